//! An index of one path, for matching it against very many wildcard rules.
//!
//! Greedy wildcard matching is linear in the path, so one rule costs at
//! most one walk of the path; a set of `r` wildcard rules that all get as
//! far as the end of an `n`-byte path costs `r × n` (8 MiB of
//! `Disallow: /*aN*b*c$` against a 60 KB path: seconds of CPU for one
//! answer). When a path has been walked that often, the matcher builds
//! this index and answers the remaining rules from it: the path's suffix
//! array, which finds the suffixes that begin with a segment by binary
//! search, and a wavelet matrix over it, which finds the first of them
//! at or after a position in `O(log n)`. A segment then costs
//! `O(|segment| log n)` whatever the path, and the index is built in
//! `O(n log n)`.

use std::cmp::Ordering;

/// A path, its suffix array and the wavelet matrix of the suffix array.
#[derive(Debug)]
pub(crate) struct PathIndex<'p> {
    path: &'p [u8],
    /// The start of every suffix of `path`, in the suffixes' order.
    suffixes: Vec<u32>,
    /// `suffixes` as a wavelet matrix: the first occurrence at or after a
    /// position among a range of suffixes.
    starts: WaveletMatrix,
}

impl<'p> PathIndex<'p> {
    /// The index of `path` (at most `u32::MAX` bytes).
    pub(crate) fn new(path: &'p [u8]) -> PathIndex<'p> {
        let suffixes = suffix_array(path);
        let starts = WaveletMatrix::new(&suffixes, path.len());
        PathIndex {
            path,
            suffixes,
            starts,
        }
    }

    /// The first occurrence of `segment` in the path at or after `from`.
    pub(crate) fn find_from(&self, segment: &[u8], from: usize) -> Option<usize> {
        if segment.is_empty() {
            return (from <= self.path.len()).then_some(from);
        }
        let (lo, hi) = self.range(segment);
        if lo == hi {
            return None;
        }
        let from = u32::try_from(from).ok()?;
        let before = self.starts.count_less(lo, hi, from);
        (before < hi - lo).then(|| self.starts.kth_smallest(lo, hi, before) as usize)
    }

    /// The suffixes (as a range of `suffixes`) that begin with `segment`.
    fn range(&self, segment: &[u8]) -> (usize, usize) {
        let head = |start: u32| {
            let start = start as usize;
            &self.path[start..(start + segment.len()).min(self.path.len())]
        };
        let lo = self
            .suffixes
            .partition_point(|&s| head(s).cmp(segment) == Ordering::Less);
        let hi = lo
            + self.suffixes[lo..].partition_point(|&s| head(s).cmp(segment) != Ordering::Greater);
        (lo, hi)
    }

    /// Whether `pattern` (`*` wildcards, an optional final `$`) matches
    /// the path from byte `from` on: what
    /// [`wild_match`](crate::ruleset::wild_match)`(pattern, &path[from..])`
    /// answers.
    pub(crate) fn matches(&self, pattern: &[u8], from: usize) -> bool {
        let path = self.path.get(from..).unwrap_or_default();
        let (pattern, anchored) = match pattern.split_last() {
            Some((b'$', before)) => (before, true),
            _ => (pattern, false),
        };
        let mut segments = pattern.split(|&b| b == b'*');
        let first = segments.next().unwrap_or_default();
        let Some(mut segment) = segments.next() else {
            return if anchored {
                path == first
            } else {
                path.starts_with(first)
            };
        };
        if !path.starts_with(first) {
            return false;
        }
        // Positions in the whole path from here on.
        let mut pos = from + first.len();
        loop {
            match segments.next() {
                // The last segment: at the end of an anchored pattern, the
                // path's last bytes; otherwise anywhere after `pos`.
                None if anchored => {
                    return self.path.len() >= pos + segment.len() && path.ends_with(segment);
                }
                None => return self.find_from(segment, pos).is_some(),
                Some(next) => {
                    match self.find_from(segment, pos) {
                        Some(at) => pos = at + segment.len(),
                        None => return false,
                    }
                    segment = next;
                }
            }
        }
    }
}

/// The suffix array of `text`: prefix doubling, each round two stable
/// counting sorts, `O(n log n)` whatever the text (a run of one byte
/// takes `log n` rounds, not `n`).
fn suffix_array(text: &[u8]) -> Vec<u32> {
    let n = text.len();
    let mut suffixes: Vec<u32> = (0..to_u32(n)).collect();
    if n < 2 {
        return suffixes;
    }
    // Ranks start at 1: 0 is "past the end", below every byte.
    let mut rank: Vec<u32> = text.iter().map(|&b| u32::from(b) + 1).collect();
    let mut next = vec![0u32; n];
    let mut order = vec![0u32; n];
    let mut counts = vec![0usize; n.max(256) + 2];
    sort_by_rank(&mut suffixes, &rank, &mut order, &mut counts);
    let mut width = 1;
    loop {
        // By the second half (the rank `width` bytes on): the suffixes too
        // short to have one first, then the others in the order of their
        // second half's suffix.
        let mut k = 0;
        for start in n - width..n {
            order[k] = to_u32(start);
            k += 1;
        }
        for &s in &suffixes {
            if s as usize >= width {
                order[k] = s - to_u32(width);
                k += 1;
            }
        }
        // Then, stably, by the first half.
        std::mem::swap(&mut suffixes, &mut order);
        sort_by_rank(&mut suffixes, &rank, &mut order, &mut counts);
        let second = |s: u32, rank: &[u32]| rank.get(s as usize + width).copied().unwrap_or(0);
        next[suffixes[0] as usize] = 1;
        let mut classes = 1;
        for pair in suffixes.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if rank[a as usize] != rank[b as usize] || second(a, &rank) != second(b, &rank) {
                classes += 1;
            }
            next[b as usize] = classes;
        }
        std::mem::swap(&mut rank, &mut next);
        if classes as usize == n {
            return suffixes;
        }
        width *= 2;
    }
}

/// Paths over 4 GiB are not a use case.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Sorts `items` stably by `rank` (values below `counts.len()`), through
/// `scratch`.
fn sort_by_rank(items: &mut Vec<u32>, rank: &[u32], scratch: &mut Vec<u32>, counts: &mut [usize]) {
    counts.fill(0);
    for &s in items.iter() {
        counts[rank[s as usize] as usize + 1] += 1;
    }
    for k in 1..counts.len() {
        counts[k] += counts[k - 1];
    }
    for &s in items.iter() {
        let slot = &mut counts[rank[s as usize] as usize];
        scratch[*slot] = s;
        *slot += 1;
    }
    std::mem::swap(items, scratch);
}

/// A wavelet matrix over values below `2^bits`: counts the values below a
/// bound in a range of positions, and finds the k-th smallest of a range,
/// each in `bits` steps.
#[derive(Debug)]
struct WaveletMatrix {
    /// From the highest bit down: each level's bits and its count of zeros.
    levels: Vec<(Bits, usize)>,
}

impl WaveletMatrix {
    fn new(values: &[u32], bound: usize) -> WaveletMatrix {
        let bits = usize::BITS - bound.leading_zeros();
        let mut current = values.to_vec();
        let mut zeros_side = Vec::with_capacity(values.len());
        let mut ones_side = Vec::new();
        let mut levels = Vec::with_capacity(bits as usize);
        for bit in (0..bits).rev() {
            let mut level = Bits::with_len(current.len());
            zeros_side.clear();
            ones_side.clear();
            for (i, &v) in current.iter().enumerate() {
                if v >> bit & 1 == 1 {
                    level.set(i);
                    ones_side.push(v);
                } else {
                    zeros_side.push(v);
                }
            }
            level.index();
            levels.push((level, zeros_side.len()));
            current.clear();
            current.extend_from_slice(&zeros_side);
            current.extend_from_slice(&ones_side);
        }
        WaveletMatrix { levels }
    }

    fn bit_of(&self, level: usize) -> u32 {
        (self.levels.len() - 1 - level) as u32
    }

    /// How many values at positions `lo..hi` are below `bound`.
    fn count_less(&self, mut lo: usize, mut hi: usize, bound: u32) -> usize {
        if self.levels.is_empty() || u64::from(bound) >> self.levels.len() != 0 {
            return hi - lo;
        }
        let mut below = 0;
        for (level, (bits, zeros)) in self.levels.iter().enumerate() {
            if bound >> self.bit_of(level) & 1 == 1 {
                below += bits.zeros(hi) - bits.zeros(lo);
                (lo, hi) = (zeros + bits.ones(lo), zeros + bits.ones(hi));
            } else {
                (lo, hi) = (bits.zeros(lo), bits.zeros(hi));
            }
        }
        below
    }

    /// The `k`-th smallest value (from 0) at positions `lo..hi`; `k` must
    /// be below `hi - lo`.
    fn kth_smallest(&self, mut lo: usize, mut hi: usize, mut k: usize) -> u32 {
        let mut value = 0;
        for (level, (bits, zeros)) in self.levels.iter().enumerate() {
            let here = bits.zeros(hi) - bits.zeros(lo);
            if k < here {
                (lo, hi) = (bits.zeros(lo), bits.zeros(hi));
            } else {
                k -= here;
                value |= 1 << self.bit_of(level);
                (lo, hi) = (zeros + bits.ones(lo), zeros + bits.ones(hi));
            }
        }
        value
    }
}

/// A bit vector with the count of ones before each word.
#[derive(Debug)]
struct Bits {
    words: Vec<u64>,
    /// Ones before each word, one more entry than `words`.
    before: Vec<u32>,
}

impl Bits {
    fn with_len(len: usize) -> Bits {
        Bits {
            words: vec![0; len / 64 + 1],
            before: Vec::new(),
        }
    }

    fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    fn index(&mut self) {
        let mut ones = 0u32;
        self.before = Vec::with_capacity(self.words.len());
        for w in &self.words {
            self.before.push(ones);
            ones += w.count_ones();
        }
    }

    /// Ones at positions below `i`.
    fn ones(&self, i: usize) -> usize {
        let (word, bit) = (i / 64, i % 64);
        let low = self.words[word] & ((1u64 << bit) - 1);
        self.before[word] as usize + low.count_ones() as usize
    }

    /// Zeros at positions below `i`.
    fn zeros(&self, i: usize) -> usize {
        i - self.ones(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::wild_match;

    fn naive_suffixes(text: &[u8]) -> Vec<u32> {
        let mut s: Vec<u32> = (0..text.len() as u32).collect();
        s.sort_by(|&a, &b| text[a as usize..].cmp(&text[b as usize..]));
        s
    }

    #[test]
    fn suffix_arrays_of_runs_and_words() {
        for text in [
            &b""[..],
            b"a",
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            b"banana",
            b"/a0a1a2a3a4a5a6a7a8a9a10c",
            b"mississippi$",
        ] {
            assert_eq!(suffix_array(text), naive_suffixes(text), "{text:?}");
        }
    }

    #[test]
    fn occurrences_at_or_after_a_position() {
        let path = b"/abcabcabc/x/abc";
        let index = PathIndex::new(path);
        assert_eq!(index.find_from(b"abc", 0), Some(1));
        assert_eq!(index.find_from(b"abc", 2), Some(4));
        assert_eq!(index.find_from(b"abc", 8), Some(13));
        assert_eq!(index.find_from(b"abc", 14), None);
        assert_eq!(index.find_from(b"abd", 0), None);
        assert_eq!(index.find_from(b"/x/abc", 0), Some(10));
        assert_eq!(index.find_from(b"", 16), Some(16));
        assert_eq!(index.find_from(b"", 17), None);
    }

    /// 3,000 wildcard rules against paths of a few KB: the rules walk each
    /// path far more than [`INDEX_AFTER`](crate::ruleset) times, so the
    /// index answers most of them; every answer is the rule that the
    /// rules' plain walks name (the longest, `allow` on a tie, then the
    /// earliest).
    #[test]
    fn answers_from_the_index_are_the_walks_answers() {
        use crate::{Profile, Reason, RobotMatcher, RobotsTxt, TokenChain};
        let mut file = String::from("User-agent: *\n");
        let mut rules = Vec::new();
        for n in 0..3000 {
            let (allow, pattern) = match n % 7 {
                0 => (true, format!("/*a{n}*c$")),
                3 => (false, format!("/*b*a{n}*")),
                _ => (false, format!("/*a{n}*b*c$")),
            };
            file.push_str(if allow { "Allow: " } else { "Disallow: " });
            file.push_str(&pattern);
            file.push('\n');
            rules.push((allow, pattern, 2 + rules.len() as u32));
        }
        let txt = RobotsTxt::parse(file.into_bytes());
        let chain = TokenChain::parse("botwarden");
        let matcher = RobotMatcher::new(&txt, &Profile::RFC9309, &chain);
        let before = crate::wildcard_walk();
        for (b_after, end) in [
            (None, "c"),
            (Some(1500), "c"),
            (Some(2990), "c"),
            (Some(10), "d"),
        ] {
            let mut path = String::from("/");
            for n in (0..3000).step_by(3) {
                path.push_str(&format!("a{n}"));
                if b_after == Some(n) {
                    path.push('b');
                }
            }
            path.push_str(end);
            let want = rules
                .iter()
                .filter(|(_, p, _)| wild_match(p.as_bytes(), path.as_bytes()))
                .max_by_key(|(allow, p, line)| (p.len(), *allow, std::cmp::Reverse(*line)))
                .map(|(allow, _, line)| (*allow, *line));
            let got = matcher.check_path(path.as_bytes());
            let got = match got.reason {
                Reason::Rule { line, .. } => Some((got.allowed, line)),
                _ => None,
            };
            assert_eq!(got, want, "b after {b_after:?}, ending {end}");
        }
        // The walks stopped well before every rule had walked every path.
        let walked = crate::wildcard_walk() - before;
        assert!(walked < 4 * 3000 * 4000, "{walked} bytes walked");
    }

    proptest::proptest! {
        #![proptest_config(crate::unit_proptest_config())]

        #[test]
        fn suffix_array_is_sorted_suffixes(
            text in proptest::collection::vec(proptest::sample::select(b"ab/".to_vec()), 0..80),
        ) {
            proptest::prop_assert_eq!(suffix_array(&text), naive_suffixes(&text));
        }

        #[test]
        fn find_from_is_the_first_occurrence_after(
            text in proptest::collection::vec(proptest::sample::select(b"ab/".to_vec()), 0..80),
            needle in proptest::collection::vec(proptest::sample::select(b"ab/".to_vec()), 1..5),
            from in 0usize..90,
        ) {
            let index = PathIndex::new(&text);
            let naive = (from..text.len())
                .find(|&i| text[i..].starts_with(&needle));
            proptest::prop_assert_eq!(index.find_from(&needle, from), naive);
        }

        /// The index answers every pattern as [`wild_match`] does, from any
        /// byte of the path.
        #[test]
        fn index_matches_as_wild_match(
            pattern in proptest::collection::vec(proptest::sample::select(b"ab*$".to_vec()), 0..8),
            path in proptest::collection::vec(proptest::sample::select(b"ab$".to_vec()), 0..16),
            from in 0usize..16,
        ) {
            let index = PathIndex::new(&path);
            let from = from.min(path.len());
            proptest::prop_assert_eq!(
                index.matches(&pattern, from),
                wild_match(&pattern, &path[from..]),
            );
        }
    }
}
