//! Key directory fetches per client: a token bucket for each address, so
//! that no client makes the service fetch more than
//! `web_bot_auth.fetches_per_minute` directories a minute.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

/// The most clients whose buckets are kept. A bucket is made only when a
/// fetch is due (an allowed directory not in the cache), so few ever are;
/// past this, buckets full again are dropped (a full bucket is what a new
/// client gets), and if none is, the fetch is refused.
const MAX_CLIENTS: usize = 10_000;

/// Directory fetches per client address (an IPv6 client by its `/64`,
/// what one subscriber is usually given).
pub(crate) struct FetchRate {
    /// Tokens a bucket holds at most, and gets back per minute.
    per_minute: f64,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    /// Its tokens at `now`, refilled since it was last looked at.
    fn level(&self, now: Instant, per_minute: f64) -> f64 {
        let minutes = now.saturating_duration_since(self.at).as_secs_f64() / 60.0;
        (self.tokens + minutes * per_minute).min(per_minute)
    }
}

impl FetchRate {
    pub(crate) fn new(per_minute: u32) -> FetchRate {
        FetchRate {
            per_minute: f64::from(per_minute.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one fetch from `client`'s bucket: `false` when it is empty.
    pub(crate) fn take(&self, client: IpAddr) -> bool {
        self.take_at(client, Instant::now())
    }

    fn take_at(&self, client: IpAddr, now: Instant) -> bool {
        let key = key_of(client);
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if !buckets.contains_key(&key) && buckets.len() >= MAX_CLIENTS {
            let full = self.per_minute;
            buckets.retain(|_, b| b.level(now, full) < full);
            if buckets.len() >= MAX_CLIENTS {
                return false;
            }
        }
        let bucket = buckets.entry(key).or_insert(Bucket {
            tokens: self.per_minute,
            at: now,
        });
        let tokens = bucket.level(now, self.per_minute);
        bucket.at = now;
        if tokens >= 1.0 {
            bucket.tokens = tokens - 1.0;
            true
        } else {
            bucket.tokens = tokens;
            false
        }
    }

    /// Clients with a bucket now.
    pub(crate) fn clients(&self) -> usize {
        self.buckets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// The bucket's key: an IPv4 address (also when written inside IPv6), an
/// IPv6 address's `/64`.
fn key_of(client: IpAddr) -> IpAddr {
    match botwarden_verify::normalize(client) {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(bits))
        }
        v4 @ IpAddr::V4(_) => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("address")
    }

    #[test]
    fn a_client_gets_its_rate_and_then_nothing_until_it_refills() {
        let rate = FetchRate::new(3);
        let start = Instant::now();
        let a = ip("192.0.2.1");
        assert!((0..3).all(|_| rate.take_at(a, start)));
        assert!(!rate.take_at(a, start));
        // Another client has its own bucket.
        assert!(rate.take_at(ip("192.0.2.2"), start));
        // A third of a minute gives one back (3 a minute), not two.
        let later = start + Duration::from_secs(20);
        assert!(rate.take_at(a, later));
        assert!(!rate.take_at(a, later));
        // Never more than the rate, however long it waited.
        let much_later = later + Duration::from_secs(3600);
        assert!((0..3).all(|_| rate.take_at(a, much_later)));
        assert!(!rate.take_at(a, much_later));
    }

    #[test]
    fn an_ipv6_client_is_its_64_and_a_mapped_ipv4_its_address() {
        let rate = FetchRate::new(1);
        let now = Instant::now();
        assert!(rate.take_at(ip("2001:db8:1:2::1"), now));
        assert!(!rate.take_at(ip("2001:db8:1:2:ffff::9"), now));
        assert!(rate.take_at(ip("2001:db8:1:3::1"), now));
        assert!(rate.take_at(ip("::ffff:192.0.2.7"), now));
        assert!(!rate.take_at(ip("192.0.2.7"), now));
    }

    #[test]
    fn the_buckets_kept_are_bounded() {
        let rate = FetchRate::new(2);
        let now = Instant::now();
        for n in 0..u32::try_from(MAX_CLIENTS).expect("fits") {
            assert!(rate.take_at(IpAddr::from(n.to_be_bytes()), now));
        }
        assert_eq!(rate.clients(), MAX_CLIENTS);
        // None is full again: a new client is refused, not kept.
        assert!(!rate.take_at(ip("198.51.100.1"), now));
        assert_eq!(rate.clients(), MAX_CLIENTS);
        // A minute later every bucket is full: they are dropped for it.
        let later = now + Duration::from_secs(60);
        assert!(rate.take_at(ip("198.51.100.1"), later));
        assert_eq!(rate.clients(), 1);
    }
}
