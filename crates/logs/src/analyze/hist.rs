//! Request counts over time in buckets that widen as the span grows.

/// The bucket widths, in seconds: 1 minute, 5, 15, 1 hour, 6, 1 day,
/// 1 week. Each divides the next, so counts move exactly to a wider level.
pub(crate) const WIDTHS: [i64; 7] = [60, 300, 900, 3_600, 21_600, 86_400, 604_800];

/// The most buckets a histogram holds before it widens them.
const MAX_BUCKETS: usize = 256;

/// The most buckets a report's timeline has.
pub(crate) const REPORT_BUCKETS: i64 = 200;

/// Counts per time bucket, starting at `base` (a bucket index at the
/// level's width, counted from the Unix epoch).
#[derive(Debug, Clone, Default)]
pub(crate) struct Hist {
    level: usize,
    base: i64,
    counts: Vec<u64>,
}

impl Hist {
    pub(crate) fn width(&self) -> i64 {
        WIDTHS[self.level]
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Counts `n` requests at `unix` seconds.
    pub(crate) fn add(&mut self, unix: i64, n: u64) {
        loop {
            let idx = unix.div_euclid(self.width());
            if self.counts.is_empty() {
                self.base = idx;
                self.counts.push(n);
                return;
            }
            let lo = self.base.min(idx);
            let hi = (self.base + self.counts.len() as i64 - 1).max(idx);
            if hi - lo + 1 > MAX_BUCKETS as i64 && self.level + 1 < WIDTHS.len() {
                self.widen(self.level + 1);
                continue;
            }
            if idx < self.base {
                let grow = (self.base - idx) as usize;
                self.counts.splice(0..0, std::iter::repeat_n(0, grow));
                self.base = idx;
            }
            let at = (idx - self.base) as usize;
            if at >= self.counts.len() {
                self.counts.resize(at + 1, 0);
            }
            self.counts[at] += n;
            return;
        }
    }

    /// Moves the counts to a wider level.
    pub(crate) fn widen(&mut self, level: usize) {
        if level <= self.level {
            return;
        }
        let old_width = self.width();
        let new_width = WIDTHS[level];
        let old = std::mem::take(&mut self.counts);
        let old_base = self.base;
        self.level = level;
        for (i, c) in old.into_iter().enumerate() {
            if c == 0 {
                continue;
            }
            let start = (old_base + i as i64) * old_width;
            let idx = start.div_euclid(new_width);
            if self.counts.is_empty() {
                self.base = idx;
            }
            let at = (idx - self.base) as usize;
            if at >= self.counts.len() {
                self.counts.resize(at + 1, 0);
            }
            self.counts[at] += c;
        }
    }

    /// Adds another histogram's counts.
    pub(crate) fn merge(&mut self, other: &Hist) {
        if other.counts.is_empty() {
            return;
        }
        let mut other = other.clone();
        if other.level < self.level {
            other.widen(self.level);
        } else if other.level > self.level {
            self.widen(other.level);
        }
        let w = self.width();
        for (i, c) in other.counts.iter().enumerate() {
            if *c > 0 {
                self.add((other.base + i as i64) * w, *c);
            }
        }
    }

    /// The counts in `buckets` buckets of `WIDTHS[level]` from bucket index
    /// `start` (at that width).
    pub(crate) fn series(&self, level: usize, start: i64, buckets: usize) -> Vec<u64> {
        let mut h = self.clone();
        h.widen(level);
        let mut out = vec![0; buckets];
        for (i, c) in h.counts.iter().enumerate() {
            let at = h.base + i as i64 - start;
            if (0..buckets as i64).contains(&at) {
                out[at as usize] += c;
            }
        }
        out
    }
}

/// The narrowest level at which `first..=last` fits in
/// [`REPORT_BUCKETS`] buckets, with the first bucket's index and the
/// bucket count.
pub(crate) fn report_level(first: i64, last: i64) -> (usize, i64, usize) {
    for (level, w) in WIDTHS.iter().enumerate() {
        let lo = first.div_euclid(*w);
        let hi = last.div_euclid(*w);
        if hi - lo < REPORT_BUCKETS || level + 1 == WIDTHS.len() {
            return (level, lo, (hi - lo + 1) as usize);
        }
    }
    unreachable!("the last level always fits")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_keeps_every_count() {
        let mut h = Hist::default();
        let mut total = 0;
        for i in 0..100_000i64 {
            h.add(1_700_000_000 + i * 37, 1);
            total += 1;
        }
        assert!(h.level > 0);
        assert_eq!(h.counts.iter().sum::<u64>(), total);
        let (level, start, n) = report_level(1_700_000_000, 1_700_000_000 + 99_999 * 37);
        assert!(n <= REPORT_BUCKETS as usize);
        assert_eq!(h.series(level, start, n).iter().sum::<u64>(), total);
    }

    #[test]
    fn merge_of_different_levels() {
        let mut a = Hist::default();
        a.add(0, 2);
        a.add(59, 1);
        let mut b = Hist::default();
        b.add(0, 1);
        b.add(86_400 * 30, 1);
        a.merge(&b);
        assert_eq!(a.width(), b.width());
        assert_eq!(a.counts.iter().sum::<u64>(), 5);
        let s = a.series(5, 0, 31);
        assert_eq!(s[0], 4);
        assert_eq!(s[30], 1);
    }

    #[test]
    fn times_before_the_first_grow_to_the_left() {
        let mut h = Hist::default();
        h.add(600, 1);
        h.add(0, 1);
        assert_eq!(h.series(0, 0, 11), vec![1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    }
}
