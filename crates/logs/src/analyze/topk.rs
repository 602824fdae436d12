//! The most requested paths, counted in bounded memory (the Space-Saving
//! algorithm: when full, a new path replaces the least counted one and
//! inherits its count as a possible overcount).

use std::hash::BuildHasher;

use foldhash::HashMap;

/// Paths kept per sketch; the report shows far fewer, so the top ones are
/// exact unless the traffic is spread very thin.
pub(crate) const CAPACITY: usize = 256;

/// A Space-Saving sketch: counters in a binary min-heap (by count) with
/// each path's slot found through a hash map, so that a hit costs one
/// lookup and a short sift, and a miss replaces the minimum in O(log n).
#[derive(Debug, Clone, Default)]
pub(crate) struct TopK {
    /// Slots by the 64-bit hash of their path (two paths with the same
    /// hash would share a counter: at one in 2^64 per pair, never seen).
    index: HashMap<u64, u32>,
    /// Per slot: count, overcount, path (its buffer reused on
    /// replacement).
    slots: Vec<(u64, u64, String)>,
    /// Slots in heap order.
    heap: Vec<u32>,
    /// Per slot: its place in `heap`.
    pos: Vec<u32>,
}

impl TopK {
    fn hash(path: &str) -> u64 {
        foldhash::fast::FixedState::with_seed(0x746f_706b).hash_one(path)
    }

    pub(crate) fn add(&mut self, path: &str, n: u64) {
        let hash = TopK::hash(path);
        if let Some(&slot) = self.index.get(&hash) {
            self.slots[slot as usize].0 += n;
            self.sift_down(self.pos[slot as usize] as usize);
            return;
        }
        if self.slots.len() < CAPACITY {
            let slot = self.slots.len() as u32;
            self.slots.push((n, 0, path.to_owned()));
            self.index.insert(hash, slot);
            self.pos.push(self.heap.len() as u32);
            self.heap.push(slot);
            self.sift_up(self.heap.len() - 1);
            return;
        }
        // Replace the least counted path; the newcomer inherits its count
        // as a possible overcount.
        let slot = self.heap[0];
        let entry = &mut self.slots[slot as usize];
        self.index.remove(&TopK::hash(&entry.2));
        self.index.insert(hash, slot);
        let count = entry.0;
        entry.0 = count + n;
        entry.1 = count;
        entry.2.clear();
        entry.2.push_str(path);
        self.sift_down(0);
    }

    fn count_at(&self, i: usize) -> u64 {
        self.slots[self.heap[i] as usize].0
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a] as usize] = a as u32;
        self.pos[self.heap[b] as usize] = b as u32;
    }

    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.count_at(parent) <= self.count_at(i) {
                break;
            }
            self.swap(parent, i);
            i = parent;
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut least = i;
            if l < n && self.count_at(l) < self.count_at(least) {
                least = l;
            }
            if r < n && self.count_at(r) < self.count_at(least) {
                least = r;
            }
            if least == i {
                return;
            }
            self.swap(i, least);
            i = least;
        }
    }

    fn entries(&self) -> impl Iterator<Item = (&str, u64, u64)> {
        self.slots.iter().map(|(c, e, p)| (&**p, *c, *e))
    }

    pub(crate) fn merge(&mut self, other: &TopK) {
        let mut all: HashMap<&str, (u64, u64)> = HashMap::default();
        for (p, c, e) in self.entries().chain(other.entries()) {
            let v = all.entry(p).or_default();
            v.0 += c;
            v.1 += e;
        }
        let mut all: Vec<(&str, (u64, u64))> = all.into_iter().collect();
        all.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(b.0)));
        all.truncate(CAPACITY);
        let mut merged = TopK::default();
        for (p, (c, e)) in all {
            merged.add(p, c);
            if let Some(&slot) = merged.index.get(&TopK::hash(p)) {
                merged.slots[slot as usize].1 = e;
            }
        }
        *self = merged;
    }

    /// The `n` most counted paths: (path, count, whether approximate).
    /// The count is a lower bound (the overcount taken off) when
    /// approximate.
    pub(crate) fn top(&self, n: usize) -> Vec<(String, u64, bool)> {
        let mut all: Vec<_> = self
            .entries()
            .map(|(p, c, e)| (p.to_owned(), c - e, e > 0))
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
    fn merge_adds_counts() {
        let mut a = TopK::default();
        let mut b = TopK::default();
        a.add("/x", 3);
        b.add("/x", 4);
        b.add("/y", 1);
        a.merge(&b);
        assert_eq!(
            a.top(5),
            [("/x".to_owned(), 7, false), ("/y".to_owned(), 1, false)]
        );
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
