//! Compiled rule sets: the part of the matcher that answers one path.
//!
//! All sets of a file live in one [`Tables`]: the rules, their patterns in
//! one text arena, and flat arrays that sets refer to by range, so that a
//! compiled file is a handful of allocations.
//!
//! A set keeps the literal prefixes of its rules — a prefix rule's pattern
//! (less trailing `*`s), a wildcard rule's part before its first `*` — in a
//! sorted array where each entry links to the longest other entry that is
//! its prefix. The entries that are prefixes of a path are one entry found
//! by a binary search and its ancestors. Each entry carries the best prefix
//! rule among itself and its ancestors, so the prefix answer is known
//! without a scan; the only wildcard rules tried are those of the entries on
//! that chain, best first, while they could still beat the answer, and a
//! byte mask skips those whose literal bytes the path lacks. Wildcard
//! matching is greedy, segment by segment, which is linear in the length of
//! the path. Longest match and first match use the same structure with
//! another ranking.

use std::cmp::Reverse;

/// A range of indices into one of the flat arrays, as `u32`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Range32 {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

impl Range32 {
    pub(crate) fn new(start: usize, end: usize) -> Range32 {
        Range32 {
            start: to_u32(start),
            end: to_u32(end),
        }
    }

    pub(crate) fn of<T>(self, items: &[T]) -> &[T] {
        &items[self.start as usize..self.end as usize]
    }

    pub(crate) fn str(self, text: &str) -> &str {
        &text[self.start as usize..self.end as usize]
    }

    pub(crate) fn len(self) -> usize {
        (self.end - self.start) as usize
    }
}

/// Sizes and offsets are kept as `u32`: a robots.txt file over 4 GiB is
/// not a use case, and a compact table is a fast one.
pub(crate) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One rule. Its pattern lives in the text arena; its priority under
/// longest match is the pattern's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) pattern: Range32,
    /// 1-based line number.
    pub(crate) line: u32,
    /// `allow` (true) or `disallow`.
    pub(crate) allow: bool,
    /// Added by a profile rather than written in the file (Google's
    /// `index.html` directory rule).
    pub(crate) derived: bool,
}

impl Rule {
    pub(crate) fn priority(&self) -> u32 {
        self.pattern.end - self.pattern.start
    }

    /// Ordering among matching rules, best last: under longest match a
    /// higher priority, then `allow`, then an earlier line; under first
    /// match an earlier line.
    fn rank(&self, order: Order) -> (u32, bool, Reverse<u32>) {
        match order {
            Order::Longest => (self.priority(), self.allow, Reverse(self.line)),
            Order::First => (0, false, Reverse(self.line)),
        }
    }
}

/// How the matching rules of a set are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// The longest pattern wins, `allow` on a tie; empty patterns never
    /// decide.
    Longest,
    /// The first rule in file order wins; an empty pattern matches every
    /// path and allows.
    First,
}

const NONE: u32 = u32::MAX;
/// `PrefixEntry::parent` of an entry without parent.
const ROOT: u32 = 0x7FFF_FFFF;
/// Flag in `PrefixEntry::parent`: this entry or an ancestor has wildcard
/// rules, so the walk up the chain must go on.
const WILD_ON_CHAIN: u32 = 1 << 31;

impl PrefixEntry {
    fn parent(&self) -> Option<usize> {
        match self.parent & !WILD_ON_CHAIN {
            ROOT => None,
            p => Some(p as usize),
        }
    }

    fn wild_on_chain(&self) -> bool {
        self.parent & WILD_ON_CHAIN != 0
    }
}

/// A distinct literal prefix: of a prefix rule (its pattern without
/// trailing `*`s), or the part of a wildcard rule before its first `*`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PrefixEntry {
    /// The prefix in the text arena.
    bytes: Range32,
    /// Best prefix rule among this entry and its ancestors, or `NONE`.
    best: u32,
    /// The longest other entry that is a prefix of this one (`ROOT`: none),
    /// with `WILD_ON_CHAIN` set when this entry or an ancestor has
    /// wildcard rules.
    parent: u32,
    /// First of this entry's wildcard rules in `Tables::wild` (they run to
    /// the next entry's `wild`), best first.
    wild: u32,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct WildEntry {
    rule: u32,
    /// One bit per literal byte of the pattern (`b & 63`).
    mask: u64,
}

/// What a rule set answers for one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// The deciding rule.
    pub(crate) rule: u32,
    /// Whether the path is allowed (a strict empty `disallow` allows).
    pub(crate) allowed: bool,
}

/// The compiled rules of one group, or of several groups merged: ranges into
/// [`Tables`]. Both orders use the same structure: the matching prefix
/// rules of a path are the ancestors of one entry, so the best of them is
/// known once the entry is found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleSet {
    order: Order,
    prefix: Range32,
    wild: Range32,
}

/// Every rule set of one compiled file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tables {
    /// Patterns, agent values, tokens, sitemap and host values.
    pub(crate) text: String,
    pub(crate) rules: Vec<Rule>,
    prefix: Vec<PrefixEntry>,
    wild: Vec<WildEntry>,
    /// Group lists of tokens.
    pub(crate) ids: Vec<u32>,
}

/// Files with more wildcard rules than this check the byte mask first.
const MASK_FROM: usize = 4;

fn byte_mask(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |m, &b| m | 1 << (b & 63))
}

fn is_wild(pattern: &[u8]) -> bool {
    pattern.last() == Some(&b'$') || memchr::memchr(b'*', pattern).is_some()
}

impl Tables {
    pub(crate) fn pattern(&self, rule: &Rule) -> &[u8] {
        rule.pattern.str(&self.text).as_bytes()
    }

    /// Adds a set over the rules `ids`, ranked by `order`.
    pub(crate) fn set(&mut self, ids: &[u32], wildcards: bool, order: Order) -> RuleSet {
        // Every rule under its literal prefix: the whole pattern (less
        // trailing `*`s) for a prefix rule, the part before the first `*`
        // for a wildcard rule.
        let mut items: Vec<(Range32, u32, bool)> = Vec::with_capacity(ids.len());
        for &id in ids {
            let r = self.rules[id as usize];
            if r.priority() == 0 && order == Order::Longest {
                continue;
            }
            let pat = self.pattern(&r);
            let trimmed = if wildcards {
                pat.len() - pat.iter().rev().take_while(|&&b| b == b'*').count()
            } else {
                pat.len()
            };
            let wild = wildcards && is_wild(&pat[..trimmed]);
            let key_len = if wild {
                let before_dollar = pat.strip_suffix(b"$").unwrap_or(pat);
                memchr::memchr(b'*', before_dollar).unwrap_or(before_dollar.len())
            } else {
                trimmed
            };
            let key = Range32 {
                start: r.pattern.start,
                end: r.pattern.start + to_u32(key_len),
            };
            items.push((key, id, wild));
        }
        let text = self.text.as_bytes();
        let rules = &self.rules;
        let bytes = |r: Range32| &text[r.start as usize..r.end as usize];
        let rank = |id: u32| rules[id as usize].rank(order);
        items.sort_by(|a, b| {
            bytes(a.0)
                .cmp(bytes(b.0))
                .then_with(|| rank(b.1).cmp(&rank(a.1)))
        });
        let prefix_start = self.prefix.len();
        let wild_start = self.wild.len();
        let mut stack: Vec<usize> = Vec::new();
        let mut i = 0;
        while i < items.len() {
            let key = items[i].0;
            let same = items[i..]
                .iter()
                .take_while(|it| bytes(it.0) == bytes(key))
                .count();
            let group = &items[i..i + same];
            i += same;
            // The best prefix rule here is the first (groups are best first).
            let here = group.iter().find(|it| !it.2).map_or(NONE, |it| it.1);
            let wild_at = to_u32(self.wild.len());
            for &(_, id, _) in group.iter().filter(|it| it.2) {
                let pat = self.pattern(&self.rules[id as usize]);
                let literal = pat.strip_suffix(b"$").unwrap_or(pat);
                let mask = byte_mask(literal) & !byte_mask(b"*");
                self.wild.push(WildEntry { rule: id, mask });
            }
            let me = bytes(key);
            while let Some(&top) = stack.last() {
                if me.starts_with(bytes(self.prefix[top].bytes)) {
                    break;
                }
                stack.pop();
            }
            let (parent, inherited, chain_wild) = match stack.last() {
                Some(&p) => (
                    to_u32(p - prefix_start),
                    self.prefix[p].best,
                    self.prefix[p].wild_on_chain(),
                ),
                None => (ROOT, NONE, false),
            };
            let has_wild = to_u32(self.wild.len()) > wild_at;
            let parent = if has_wild || chain_wild {
                parent | WILD_ON_CHAIN
            } else {
                parent
            };
            let best = match (inherited, here) {
                (NONE, b) | (b, NONE) => b,
                (a, b) => {
                    if rank(a) > rank(b) {
                        a
                    } else {
                        b
                    }
                }
            };
            stack.push(self.prefix.len());
            self.prefix.push(PrefixEntry {
                bytes: key,
                best,
                parent,
                wild: wild_at,
            });
        }
        RuleSet {
            order,
            prefix: Range32::new(prefix_start, self.prefix.len()),
            wild: Range32::new(wild_start, self.wild.len()),
        }
    }

    /// The rule that decides `path` under `set`, if any.
    pub(crate) fn decide(&self, set: RuleSet, path: &[u8]) -> Option<Verdict> {
        let rank = |id: u32| self.rules[id as usize].rank(set.order);
        let entries = set.prefix.of(&self.prefix);
        let k = self.deepest(entries, path)?;
        let mut best = Some(entries[k].best).filter(|&b| b != NONE);
        // The wildcard rules that can match are those of the entries on the
        // chain: their literal part before the first `*` is a prefix of the
        // path.
        let mut path_mask = None;
        let mut next = Some(k).filter(|&k| entries[k].wild_on_chain());
        while let Some(k) = next {
            let end = entries.get(k + 1).map_or(set.wild.end, |e| e.wild);
            let wild = &self.wild[entries[k].wild as usize..end as usize];
            for w in wild {
                if best.is_some_and(|b| rank(w.rule) <= rank(b)) {
                    break;
                }
                if wild.len() > MASK_FROM {
                    let have = *path_mask.get_or_insert_with(|| byte_mask(path));
                    if w.mask & !have != 0 {
                        continue;
                    }
                }
                if wild_match(self.pattern(&self.rules[w.rule as usize]), path) {
                    best = Some(w.rule);
                    break;
                }
            }
            next = entries[k].parent().filter(|&p| entries[p].wild_on_chain());
        }
        best.map(|rule| {
            let r = &self.rules[rule as usize];
            Verdict {
                rule,
                allowed: r.allow || (set.order == Order::First && r.priority() == 0),
            }
        })
    }

    /// The deepest entry whose bytes are a prefix of `path`.
    fn deepest(&self, entries: &[PrefixEntry], path: &[u8]) -> Option<usize> {
        let text = self.text.as_bytes();
        let bytes = |e: &PrefixEntry| &text[e.bytes.start as usize..e.bytes.end as usize];
        let found = entries.partition_point(|e| bytes(e) <= path);
        let mut k = found.checked_sub(1)?;
        let pat = bytes(&entries[k]);
        if path.starts_with(pat) {
            return Some(k);
        }
        // Every entry that is a prefix of the path is a prefix of `pat` no
        // longer than their common prefix: walk up to the first such
        // ancestor.
        let common = pat.iter().zip(path).take_while(|(a, b)| a == b).count();
        loop {
            k = entries[k].parent()?;
            if entries[k].bytes.len() <= common {
                return Some(k);
            }
        }
    }

    /// Releases spare capacity once the file is compiled.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.rules.shrink_to_fit();
        self.prefix.shrink_to_fit();
        self.wild.shrink_to_fit();
        self.ids.shrink_to_fit();
    }

    /// Heap bytes held.
    pub(crate) fn heap_size(&self) -> usize {
        self.text.capacity()
            + self.rules.capacity() * size_of::<Rule>()
            + self.prefix.capacity() * size_of::<PrefixEntry>()
            + self.wild.capacity() * size_of::<WildEntry>()
            + self.ids.capacity() * size_of::<u32>()
    }
}

/// The first occurrence of `needle` in `hay`: a first-byte scan for short
/// haystacks (typical paths), the two-way searcher of `memchr` otherwise so
/// that hostile input stays linear.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    match needle {
        [] => Some(0),
        [b] => memchr::memchr(*b, hay),
        [first, ..] if hay.len() <= 128 => {
            let mut from = 0;
            while let Some(i) = memchr::memchr(*first, &hay[from..]) {
                let at = from + i;
                if hay[at..].starts_with(needle) {
                    return Some(at);
                }
                from = at + 1;
            }
            None
        }
        _ => memchr::memmem::find(hay, needle),
    }
}

/// Whether a pattern with `*` wildcards and an optional final `$` matches
/// `path` from its start. Greedy: each literal segment is matched at its
/// earliest place after the previous one, which is correct for `*`-only
/// patterns and linear in `path`.
pub(crate) fn wild_match(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let mut segments = pattern.split(|&b| b == b'*');
    let first = segments.next().unwrap_or_default();
    if !path.starts_with(first) {
        return false;
    }
    let mut pos = first.len();
    let mut segments = segments.peekable();
    if segments.peek().is_none() {
        return !anchored || path.len() == pos;
    }
    while let Some(seg) = segments.next() {
        let last = segments.peek().is_none();
        if last && anchored {
            return path.len() >= pos + seg.len() && path.ends_with(seg);
        }
        if seg.is_empty() {
            continue;
        }
        match find(&path[pos..], seg) {
            Some(i) => pos += i + seg.len(),
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        let m = |p: &str, s: &str| wild_match(p.as_bytes(), s.as_bytes());
        assert!(m("/*.php$", "/index.php"));
        assert!(!m("/*.php$", "/index.php?x"));
        assert!(m("/*.php", "/index.php?x"));
        assert!(m("/fish*", "/fish"));
        assert!(m("/a*b*c", "/aXbYc"));
        assert!(!m("/a*b*c", "/aXcYb"));
        assert!(m("/a$", "/a"));
        assert!(!m("/a$", "/ab"));
        assert!(m("/a*$", "/abc"));
        assert!(m("*", ""));
        assert!(m("/ab*ab$", "/abab"));
        assert!(!m("/ab*ab$", "/ab"));
        assert!(m("/x$y", "/x$y"));
        assert!(m("/*aab", "/aaab"));
    }

    #[test]
    fn find_agrees_with_a_naive_search() {
        let hay = b"/aaabaaabaab/aab";
        for needle in [&b"aab"[..], b"ab", b"b/", b"zz", b"aaab", b"/aab"] {
            let naive = hay.windows(needle.len()).position(|w| w == needle);
            assert_eq!(find(hay, needle), naive, "{needle:?}");
        }
        let long = [b'a'; 300];
        assert_eq!(find(&long, b"ab"), None);
    }

    #[test]
    fn hostile_pattern_is_linear() {
        let pattern = format!("/{}a$", "*a".repeat(1000));
        let path = format!("/{}", "a".repeat(6000));
        assert!(wild_match(pattern.as_bytes(), path.as_bytes()));
        let path = format!("/{}b", "a".repeat(6000));
        assert!(!wild_match(pattern.as_bytes(), path.as_bytes()));
    }

    fn tables(rules: &[(&str, bool)]) -> Tables {
        let mut t = Tables::default();
        for (line, &(pat, allow)) in (1..).zip(rules) {
            let start = t.text.len();
            t.text.push_str(pat);
            t.rules.push(Rule {
                pattern: Range32::new(start, t.text.len()),
                line,
                allow,
                derived: false,
            });
        }
        t
    }

    #[test]
    fn longest_prefix_walks_to_ancestors() {
        let mut t = tables(&[
            ("/a", false),
            ("/ab0", true),
            ("/abc/d", true),
            ("/ab", true),
            ("/a", true),
        ]);
        let set = t.set(&[0, 1, 2, 3, 4], true, Order::Longest);
        let decide = |p: &str| t.decide(set, p.as_bytes()).map(|v| v.rule);
        assert_eq!(decide("/abc"), Some(3));
        assert_eq!(decide("/abc/d/e"), Some(2));
        assert_eq!(decide("/ax"), Some(4), "allow wins the tie on /a");
        assert_eq!(decide("/b"), None);
        assert_eq!(decide("/ab0"), Some(1));
    }

    #[test]
    fn first_match_is_the_earliest_matching_line() {
        let mut t = tables(&[
            ("/a/b", true),
            ("/a", false),
            ("", false),
            ("/a/b/c", false),
        ]);
        let set = t.set(&[0, 1, 2, 3], false, Order::First);
        let decide = |p: &str| t.decide(set, p.as_bytes()).map(|v| (v.rule, v.allowed));
        assert_eq!(decide("/a/b/c/d"), Some((0, true)));
        assert_eq!(decide("/a/x"), Some((1, false)));
        assert_eq!(decide("/z"), Some((2, true)), "an empty disallow allows");
    }

    #[test]
    fn many_wildcards_use_the_mask_and_agree() {
        let rules: Vec<(String, bool)> = (0..12)
            .map(|i| (format!("/*{}x{i}", char::from(b'a' + i)), i % 2 == 0))
            .collect();
        let refs: Vec<(&str, bool)> = rules.iter().map(|(p, a)| (p.as_str(), *a)).collect();
        let mut t = tables(&refs);
        let ids: Vec<u32> = (0..12).collect();
        let set = t.set(&ids, true, Order::Longest);
        assert_eq!(t.decide(set, b"/zzcx2").map(|v| v.rule), Some(2));
        assert_eq!(t.decide(set, b"/zzz"), None);
    }
}
