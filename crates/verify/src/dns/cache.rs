//! The answer cache shared by every check: entries expire after their own
//! time to live, identical lookups in flight are joined, and the clock is
//! injectable so expiry can be tested without waiting.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::OnceCell;

/// Where the cache reads the time from.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current instant.
    fn now(&self) -> Instant;
}

/// The system's monotonic clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when told to, for tests of expiry.
///
/// ```
/// use std::time::Duration;
/// use botwarden_verify::{Clock, ManualClock};
///
/// let clock = ManualClock::new();
/// let start = clock.now();
/// clock.advance(Duration::from_secs(90));
/// assert_eq!(clock.now() - start, Duration::from_secs(90));
/// ```
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<Instant>,
}

impl ManualClock {
    /// A clock standing at the current instant.
    pub fn new() -> Self {
        Self {
            now: Mutex::new(Instant::now()),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        *now += by;
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Counters of one cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Answers served from a fresh cache entry.
    pub hits: u64,
    /// Lookups sent to DNS (each one a query of one name and type).
    pub misses: u64,
    /// Callers that found the same lookup in flight and waited for its
    /// answer instead of sending their own.
    pub joins: u64,
    /// Entries held now, fresh, expired or in flight.
    pub entries: usize,
}

/// A stored answer and when it stops being fresh.
#[derive(Debug)]
struct Stored<V> {
    value: V,
    expires: Instant,
}

type Slot<V> = Arc<OnceCell<Stored<V>>>;

/// A map from lookup key to answer with per-entry expiry and in-flight
/// deduplication.
pub(crate) struct TtlCache<K, V> {
    map: Mutex<HashMap<K, Slot<V>>>,
    max_entries: usize,
    hits: AtomicU64,
    misses: AtomicU64,
    joins: AtomicU64,
}

impl<K, V> fmt::Debug for TtlCache<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TtlCache")
            .field("max_entries", &self.max_entries)
            .finish_non_exhaustive()
    }
}

impl<K: Eq + Hash + Clone, V: Clone> TtlCache<K, V> {
    /// An empty cache holding at most about `max_entries` entries.
    pub(crate) fn new(max_entries: usize) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            max_entries: max_entries.max(1),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            joins: AtomicU64::new(0),
        }
    }

    /// The fresh cached answer for `key`, or the answer of the lookup in
    /// flight for it, or the answer of `fetch` (which returns the answer and
    /// how long it stays fresh), stored for the others.
    ///
    /// If the caller running `fetch` is cancelled, a waiting caller runs its
    /// own `fetch` instead.
    pub(crate) async fn get_or_fetch<F, Fut>(&self, key: K, clock: &dyn Clock, fetch: F) -> V
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = (V, Duration)>,
    {
        let slot = {
            let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
            let now = clock.now();
            match map.get(&key).map(|slot| (slot.get(), slot)) {
                Some((Some(stored), _)) if stored.expires > now => {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    return stored.value.clone();
                }
                Some((None, slot)) => {
                    self.joins.fetch_add(1, Ordering::Relaxed);
                    Arc::clone(slot)
                }
                Some((Some(_), _)) | None => {
                    if map.len() >= self.max_entries {
                        self.evict(&mut map, now);
                    }
                    let slot = Slot::default();
                    map.insert(key, Arc::clone(&slot));
                    slot
                }
            }
        };
        let stored = slot
            .get_or_init(|| async {
                self.misses.fetch_add(1, Ordering::Relaxed);
                let (value, ttl) = fetch().await;
                let expires = clock.now().checked_add(ttl).unwrap_or_else(|| clock.now());
                Stored { value, expires }
            })
            .await;
        stored.value.clone()
    }

    /// Drops expired entries, then, if still above nine tenths of the
    /// capacity, the answered entries closest to expiry. Entries in flight
    /// stay.
    fn evict(&self, map: &mut HashMap<K, Slot<V>>, now: Instant) {
        map.retain(|_, slot| slot.get().is_none_or(|s| s.expires > now));
        let keep = self.max_entries - self.max_entries / 10;
        if map.len() <= keep {
            return;
        }
        let mut answered: Vec<(Instant, K)> = map
            .iter()
            .filter_map(|(k, slot)| slot.get().map(|s| (s.expires, k.clone())))
            .collect();
        let drop = (map.len() - keep).min(answered.len());
        if drop == 0 {
            return;
        }
        answered.select_nth_unstable_by_key(drop - 1, |(expires, _)| *expires);
        for (_, key) in &answered[..drop] {
            map.remove(key);
        }
    }

    /// The counters.
    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            joins: self.joins.load(Ordering::Relaxed),
            entries: self
                .map
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn expiry_and_eviction() {
        let clock = ManualClock::new();
        let cache = TtlCache::<u32, u32>::new(10);
        let ttl = Duration::from_secs(10);
        assert_eq!(
            cache.get_or_fetch(1, &clock, || async { (7, ttl) }).await,
            7
        );
        assert_eq!(
            cache.get_or_fetch(1, &clock, || async { (8, ttl) }).await,
            7
        );
        clock.advance(ttl);
        assert_eq!(
            cache.get_or_fetch(1, &clock, || async { (9, ttl) }).await,
            9
        );
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.joins, s.entries), (1, 2, 0, 1));
        for k in 2..=20 {
            let ttl = Duration::from_secs(u64::from(k));
            cache
                .get_or_fetch(k, &clock, || async move { (k, ttl) })
                .await;
        }
        assert!(cache.stats().entries <= 10, "{:?}", cache.stats());
        // The longest-lived entry is still there.
        assert_eq!(
            cache.get_or_fetch(20, &clock, || async { (0, ttl) }).await,
            20
        );
    }
}
