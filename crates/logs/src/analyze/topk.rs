//! The most requested paths, counted in bounded memory (the Space-Saving
//! algorithm: when full, a new path replaces the least counted one and
//! inherits its count as a possible overcount).

use foldhash::HashMap;

/// Paths kept per sketch; the report shows far fewer, so the top ones are
/// exact unless the traffic is spread very thin.
pub(crate) const CAPACITY: usize = 256;

#[derive(Debug, Clone, Default)]
pub(crate) struct TopK {
    entries: HashMap<Box<str>, (u64, u64)>,
}

impl TopK {
    pub(crate) fn add(&mut self, path: &str, n: u64) {
        if let Some(e) = self.entries.get_mut(path) {
            e.0 += n;
            return;
        }
        if self.entries.len() < CAPACITY {
            self.entries.insert(path.into(), (n, 0));
            return;
        }
        let Some((victim, &(count, _))) = self.entries.iter().min_by_key(|(_, (c, _))| *c) else {
            return;
        };
        let victim = victim.clone();
        self.entries.remove(&victim);
        self.entries.insert(path.into(), (count + n, count));
    }

    pub(crate) fn merge(&mut self, other: &TopK) {
        for (path, &(count, err)) in &other.entries {
            if let Some(e) = self.entries.get_mut(path) {
                e.0 += count;
                e.1 += err;
            } else {
                self.entries.insert(path.clone(), (count, err));
            }
        }
        if self.entries.len() > CAPACITY {
            let mut all: Vec<_> = self.entries.drain().collect();
            all.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(&b.0)));
            all.truncate(CAPACITY);
            self.entries = all.into_iter().collect();
        }
    }

    /// The `n` most counted paths: (path, count, whether approximate).
    /// The count is a lower bound (the overcount taken off) when
    /// approximate.
    pub(crate) fn top(&self, n: usize) -> Vec<(String, u64, bool)> {
        let mut all: Vec<_> = self
            .entries
            .iter()
            .map(|(p, &(c, e))| (p.to_string(), c - e, e > 0))
            .collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_below_capacity() {
        let mut t = TopK::default();
        for i in 0..100 {
            for _ in 0..=i {
                t.add(&format!("/p{i}"), 1);
            }
        }
        let top = t.top(3);
        assert_eq!(top[0], ("/p99".to_owned(), 100, false));
        assert_eq!(top[2], ("/p97".to_owned(), 98, false));
    }

    #[test]
    fn heavy_paths_survive_a_flood_of_singletons() {
        let mut t = TopK::default();
        for i in 0..10_000 {
            t.add("/hot", 1);
            t.add(&format!("/cold{i}"), 1);
        }
        let top = t.top(1);
        assert_eq!(top[0].0, "/hot");
        assert!(top[0].1 <= 10_000);
        assert!(top[0].1 >= 9_000, "{top:?}");
    }
}
