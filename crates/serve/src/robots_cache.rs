//! The cache of site robots.txt fetches: a site link viewed again, or
//! checked and then fixed, does not ask the site again.
//!
//! Keyed by the robots.txt URL (so `https://example.com/` and
//! `https://example.com/page` share an entry); bounded in entries and in
//! body bytes, the oldest fetch evicted first. An entry is kept for the
//! freshness lifetime its answer's caching headers give (RFC 9111:
//! `s-maxage`, else `max-age`, else `Expires` less `Date`; less `Age`),
//! held between a floor and a ceiling: the floor keeps a burst of views
//! from becoming a burst of fetches even when the site says `no-store`;
//! the ceiling is RFC 9309's 24 hours at most.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use botwarden_fetch::{CacheHeaders, RobotsFetch};

use crate::config::Config;

/// What an entry costs besides its body (the URL, the report's fields).
const ENTRY_OVERHEAD: usize = 1024;

/// A fetch from the cache, with its age.
pub(crate) struct Cached {
    pub(crate) fetch: Arc<RobotsFetch>,
    /// Since it was fetched.
    pub(crate) age: Duration,
    /// How long it is kept in all.
    pub(crate) kept: Duration,
}

struct Entry {
    fetch: Arc<RobotsFetch>,
    fetched: Instant,
    kept: Duration,
    weight: usize,
    /// Insertion number: `order` holds stale numbers of replaced entries.
    serial: u64,
}

#[derive(Default)]
struct Map {
    entries: HashMap<String, Entry>,
    /// Keys in insertion order, with the serial they were inserted with.
    order: VecDeque<(String, u64)>,
    bytes: usize,
    next: u64,
}

/// The cache; all methods take `&self`.
pub(crate) struct RobotsCache {
    map: Mutex<Map>,
    max_entries: usize,
    max_bytes: usize,
    floor: Duration,
    ceiling: Duration,
}

impl RobotsCache {
    pub(crate) fn new(config: &Config) -> RobotsCache {
        RobotsCache {
            map: Mutex::new(Map::default()),
            max_entries: config.robots_cache_entries,
            max_bytes: config.robots_cache_bytes,
            floor: Duration::from_secs_f64(config.robots_cache_min),
            ceiling: Duration::from_secs_f64(config.robots_cache_max),
        }
    }

    /// The fetch of `url` (a robots.txt URL) while it is fresh.
    pub(crate) fn get(&self, url: &str) -> Option<Cached> {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = map.entries.get(url)?;
        let age = entry.fetched.elapsed();
        if age < entry.kept {
            return Some(Cached {
                fetch: Arc::clone(&entry.fetch),
                age,
                kept: entry.kept,
            });
        }
        if let Some(old) = map.entries.remove(url) {
            map.bytes -= old.weight;
        }
        None
    }

    /// Keeps `fetch` under `url` for as long as its headers allow, within
    /// the floor and the ceiling; returns how long. A body larger than the
    /// whole cache is not kept (`None`).
    pub(crate) fn put(&self, url: &str, fetch: Arc<RobotsFetch>) -> Option<Duration> {
        let weight = fetch.report.body.len() + url.len() + ENTRY_OVERHEAD;
        if self.max_entries == 0 || weight > self.max_bytes {
            return None;
        }
        let kept = self.lifetime(&fetch.report.caching, SystemTime::now());
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let serial = map.next;
        map.next += 1;
        if let Some(old) = map.entries.insert(
            url.to_owned(),
            Entry {
                fetch,
                fetched: Instant::now(),
                kept,
                weight,
                serial,
            },
        ) {
            map.bytes -= old.weight;
        }
        map.bytes += weight;
        map.order.push_back((url.to_owned(), serial));
        while map.entries.len() > self.max_entries || map.bytes > self.max_bytes {
            let Some((key, serial)) = map.order.pop_front() else {
                break;
            };
            if map.entries.get(&key).is_some_and(|e| e.serial == serial)
                && let Some(old) = map.entries.remove(&key)
            {
                map.bytes -= old.weight;
            }
        }
        // Stale keys of replaced entries: drop them once they outnumber
        // the live ones, so `order` stays bounded.
        if map.order.len() > 2 * map.entries.len() + 16 {
            let Map { entries, order, .. } = &mut *map;
            order.retain(|(k, s)| entries.get(k).is_some_and(|e| e.serial == *s));
        }
        Some(kept)
    }

    /// Entries and bytes held.
    pub(crate) fn size(&self) -> (usize, usize) {
        let map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        (map.entries.len(), map.bytes)
    }

    /// How long an answer with these headers is kept, at `now`.
    fn lifetime(&self, headers: &CacheHeaders, now: SystemTime) -> Duration {
        freshness(headers, now)
            .unwrap_or(Duration::ZERO)
            .clamp(self.floor, self.ceiling)
    }
}

/// The freshness lifetime left (RFC 9111 §4.2.1, for a shared cache),
/// `None` when the headers give none.
fn freshness(headers: &CacheHeaders, now: SystemTime) -> Option<Duration> {
    let mut max_age = None;
    let mut s_maxage = None;
    let mut uncacheable = false;
    for directive in headers.cache_control.as_deref().unwrap_or("").split(',') {
        let (name, value) = match directive.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.trim().trim_matches('"'))),
            None => (directive.trim(), None),
        };
        let seconds = || value.and_then(|v| v.parse::<u64>().ok());
        match name.to_ascii_lowercase().as_str() {
            "no-store" | "no-cache" | "private" => uncacheable = true,
            "max-age" => max_age = max_age.or(Some(seconds().unwrap_or(0))),
            "s-maxage" => s_maxage = s_maxage.or(Some(seconds().unwrap_or(0))),
            _ => {}
        }
    }
    if uncacheable {
        return Some(Duration::ZERO);
    }
    let age = headers
        .age
        .as_deref()
        .and_then(|a| a.trim().parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_secs);
    let lifetime = if let Some(s) = s_maxage.or(max_age) {
        Duration::from_secs(s)
    } else if let Some(expires) = &headers.expires {
        // An Expires that is not a date means "already expired".
        let Ok(expires) = httpdate::parse_http_date(expires.trim()) else {
            return Some(Duration::ZERO);
        };
        let date = headers
            .date
            .as_deref()
            .and_then(|d| httpdate::parse_http_date(d.trim()).ok())
            .unwrap_or(now);
        expires.duration_since(date).unwrap_or(Duration::ZERO)
    } else {
        return None;
    };
    Some(lifetime.saturating_sub(age))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(cc: Option<&str>, expires: Option<&str>, date: Option<&str>) -> CacheHeaders {
        let mut h = CacheHeaders::default();
        h.cache_control = cc.map(str::to_owned);
        h.expires = expires.map(str::to_owned);
        h.date = date.map(str::to_owned);
        h
    }

    #[test]
    fn lifetimes_from_headers() {
        let now = httpdate::parse_http_date("Tue, 24 Nov 2026 02:00:00 GMT").expect("date");
        let f = |h: &CacheHeaders| freshness(h, now);
        assert_eq!(f(&headers(None, None, None)), None);
        assert_eq!(
            f(&headers(Some("public, max-age=600"), None, None)),
            Some(Duration::from_secs(600))
        );
        assert_eq!(
            f(&headers(Some("max-age=600, s-maxage=30"), None, None)),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            f(&headers(Some("max-age=600, no-store"), None, None)),
            Some(Duration::ZERO)
        );
        assert_eq!(
            f(&headers(Some("max-age=bad"), None, None)),
            Some(Duration::ZERO)
        );
        let expires = headers(
            None,
            Some("Tue, 24 Nov 2026 03:00:00 GMT"),
            Some("Tue, 24 Nov 2026 02:30:00 GMT"),
        );
        assert_eq!(f(&expires), Some(Duration::from_secs(1800)));
        let no_date = headers(None, Some("Tue, 24 Nov 2026 03:00:00 GMT"), None);
        assert_eq!(f(&no_date), Some(Duration::from_secs(3600)));
        assert_eq!(f(&headers(None, Some("0"), None)), Some(Duration::ZERO));
        let mut aged = headers(Some("max-age=600"), None, None);
        aged.age = Some("100".to_owned());
        assert_eq!(f(&aged), Some(Duration::from_secs(500)));

        let config = Config {
            robots_cache_min: 60.0,
            robots_cache_max: 86_400.0,
            ..Config::default()
        };
        let cache = RobotsCache::new(&config);
        let life = |h: &CacheHeaders| cache.lifetime(h, now).as_secs();
        assert_eq!(life(&headers(None, None, None)), 60);
        assert_eq!(life(&headers(Some("no-store"), None, None)), 60);
        assert_eq!(life(&headers(Some("max-age=600"), None, None)), 600);
        assert_eq!(life(&headers(Some("max-age=999999"), None, None)), 86_400);
    }
}
