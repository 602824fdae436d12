//! Compiled rule sets: the part of the matcher that answers one path.
//!
//! Longest-match sets keep prefix rules (no wildcard, or only trailing `*`)
//! in a sorted array where each entry links to the longest other entry that
//! is its prefix. The entry found by one binary search, or one of its
//! ancestors, is the longest prefix rule that matches; each entry also
//! carries the best rule among itself and its ancestors, so the answer is
//! known without a scan. Wildcard rules are few; they are kept sorted by
//! priority and tried only while they could still beat the prefix answer.
//! Their matching is greedy, segment by segment, which is linear in the
//! length of the path.

use std::cmp::Reverse;

/// One rule, stored compactly. The pattern lives in the owner's arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rule {
    /// Offset of the normalised pattern in the arena.
    pub(crate) start: u32,
    /// Length of the normalised pattern.
    pub(crate) len: u32,
    /// Priority when rules compete by length (the pattern's length, or one
    /// more than the directory for Google's `index.html` rules).
    pub(crate) priority: u32,
    /// 1-based line number.
    pub(crate) line: u32,
    /// Index of the group the rule belongs to.
    pub(crate) group: u32,
    /// `allow` (true) or `disallow`.
    pub(crate) allow: bool,
    /// Added by a profile rather than written in the file (Google's
    /// `index.html` directory rule).
    pub(crate) derived: bool,
}

impl Rule {
    pub(crate) fn pattern<'a>(&self, arena: &'a [u8]) -> &'a [u8] {
        &arena[self.start as usize..(self.start + self.len) as usize]
    }

    /// Ordering among matching rules: higher priority, then `allow`, then
    /// earlier line.
    fn rank(&self) -> (u32, bool, Reverse<u32>) {
        (self.priority, self.allow, Reverse(self.line))
    }
}

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
pub(crate) struct PrefixEntry {
    start: u32,
    len: u32,
    /// Best rule among this entry and its ancestors.
    best: u32,
    /// The longest other entry that is a prefix of this one, or `NONE`.
    parent: u32,
}

/// What a rule set answers for one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// The deciding rule.
    pub(crate) rule: u32,
    /// Whether the path is allowed (a strict empty `disallow` allows).
    pub(crate) allowed: bool,
}

/// The compiled rules of one group, or of several groups merged.
#[derive(Debug, Clone)]
pub(crate) enum RuleSet {
    Longest {
        prefix: Box<[PrefixEntry]>,
        wild: Box<[u32]>,
    },
    First {
        rules: Box<[u32]>,
        wildcards: bool,
    },
}

fn is_wild(pattern: &[u8]) -> bool {
    pattern.last() == Some(&b'$') || memchr::memchr(b'*', pattern).is_some()
}

impl RuleSet {
    /// A longest-match set over `ids`.
    pub(crate) fn longest(ids: &[u32], rules: &[Rule], arena: &[u8], wildcards: bool) -> RuleSet {
        let mut prefix: Vec<(u32, u32, u32)> = Vec::with_capacity(ids.len());
        let mut wild = Vec::new();
        for &id in ids {
            let r = &rules[id as usize];
            if r.priority == 0 {
                continue;
            }
            let pat = r.pattern(arena);
            if wildcards {
                let trimmed = pat.len() - pat.iter().rev().take_while(|&&b| b == b'*').count();
                if is_wild(&pat[..trimmed]) {
                    wild.push(id);
                } else {
                    prefix.push((r.start, trimmed as u32, id));
                }
            } else {
                prefix.push((r.start, r.len, id));
            }
        }
        let bytes = |start: u32, len: u32| &arena[start as usize..(start + len) as usize];
        prefix.sort_by(|a, b| {
            bytes(a.0, a.1)
                .cmp(bytes(b.0, b.1))
                .then_with(|| rules[b.2 as usize].rank().cmp(&rules[a.2 as usize].rank()))
        });
        prefix.dedup_by(|later, first| bytes(later.0, later.1) == bytes(first.0, first.1));
        let mut entries: Vec<PrefixEntry> = Vec::with_capacity(prefix.len());
        let mut stack: Vec<u32> = Vec::new();
        for (start, len, id) in prefix {
            let me = bytes(start, len);
            while let Some(&top) = stack.last() {
                let t = entries[top as usize];
                if me.starts_with(bytes(t.start, t.len)) {
                    break;
                }
                stack.pop();
            }
            let (parent, best) = match stack.last() {
                Some(&p) => {
                    let inherited = entries[p as usize].best;
                    let best = if rules[inherited as usize].rank() > rules[id as usize].rank() {
                        inherited
                    } else {
                        id
                    };
                    (p, best)
                }
                None => (NONE, id),
            };
            stack.push(entries.len() as u32);
            entries.push(PrefixEntry {
                start,
                len,
                best,
                parent,
            });
        }
        wild.sort_by_key(|&id| Reverse(rules[id as usize].rank()));
        RuleSet::Longest {
            prefix: entries.into_boxed_slice(),
            wild: wild.into_boxed_slice(),
        }
    }

    /// A first-match set over `ids`, in file order.
    pub(crate) fn first(ids: &[u32], rules: &[Rule], wildcards: bool) -> RuleSet {
        let mut ids = ids.to_vec();
        ids.sort_by_key(|&id| rules[id as usize].line);
        RuleSet::First {
            rules: ids.into_boxed_slice(),
            wildcards,
        }
    }

    /// The rule that decides `path`, if any.
    pub(crate) fn decide(&self, path: &[u8], rules: &[Rule], arena: &[u8]) -> Option<Verdict> {
        match self {
            RuleSet::Longest { prefix, wild } => {
                let mut best = longest_prefix(prefix, path, arena);
                for &id in wild.iter() {
                    let r = &rules[id as usize];
                    if let Some(b) = best
                        && r.rank() <= rules[b as usize].rank()
                    {
                        break;
                    }
                    if wild_match(r.pattern(arena), path) {
                        best = Some(id);
                        break;
                    }
                }
                best.map(|rule| Verdict {
                    rule,
                    allowed: rules[rule as usize].allow,
                })
            }
            RuleSet::First {
                rules: ids,
                wildcards,
            } => ids.iter().find_map(|&id| {
                let r = &rules[id as usize];
                let pat = r.pattern(arena);
                let hit = if *wildcards && is_wild(pat) {
                    wild_match(pat, path)
                } else {
                    path.starts_with(pat)
                };
                hit.then_some(Verdict {
                    rule: id,
                    allowed: r.allow || r.len == 0,
                })
            }),
        }
    }

    /// Heap bytes used by this set.
    pub(crate) fn heap_size(&self) -> usize {
        match self {
            RuleSet::Longest { prefix, wild } => {
                size_of_val::<[PrefixEntry]>(prefix) + size_of_val::<[u32]>(wild)
            }
            RuleSet::First { rules, .. } => size_of_val::<[u32]>(rules),
        }
    }
}

fn longest_prefix(prefix: &[PrefixEntry], path: &[u8], arena: &[u8]) -> Option<u32> {
    let bytes = |e: &PrefixEntry| &arena[e.start as usize..(e.start + e.len) as usize];
    let found = prefix.partition_point(|e| bytes(e) <= path);
    let mut k = found.checked_sub(1)?;
    let entry = &prefix[k];
    let pat = bytes(entry);
    if path.starts_with(pat) {
        return Some(entry.best);
    }
    // Every matching entry is a prefix of `pat` no longer than the common
    // prefix of `pat` and `path`: walk up to the first such ancestor.
    let common = pat.iter().zip(path).take_while(|(a, b)| a == b).count();
    loop {
        let parent = prefix[k].parent;
        if parent == NONE {
            return None;
        }
        k = parent as usize;
        if prefix[k].len as usize <= common {
            return Some(prefix[k].best);
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    match needle {
        [] => Some(0),
        [b] => memchr::memchr(*b, hay),
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
    }

    #[test]
    fn hostile_pattern_is_linear() {
        let pattern = format!("/{}a$", "*a".repeat(1000));
        let path = format!("/{}", "a".repeat(6000));
        assert!(wild_match(pattern.as_bytes(), path.as_bytes()));
        let path = format!("/{}b", "a".repeat(6000));
        assert!(!wild_match(pattern.as_bytes(), path.as_bytes()));
    }

    fn rule(arena: &mut Vec<u8>, pat: &str, allow: bool, line: u32) -> Rule {
        let start = arena.len() as u32;
        arena.extend_from_slice(pat.as_bytes());
        Rule {
            start,
            len: pat.len() as u32,
            priority: pat.len() as u32,
            line,
            group: 0,
            allow,
            derived: false,
        }
    }

    #[test]
    fn longest_prefix_walks_to_ancestors() {
        let mut arena = Vec::new();
        let rules = vec![
            rule(&mut arena, "/a", false, 1),
            rule(&mut arena, "/ab0", true, 2),
            rule(&mut arena, "/abc/d", true, 3),
            rule(&mut arena, "/ab", true, 4),
            rule(&mut arena, "/a", true, 5),
        ];
        let set = RuleSet::longest(&[0, 1, 2, 3, 4], &rules, &arena, true);
        let decide = |p: &str| set.decide(p.as_bytes(), &rules, &arena).map(|v| v.rule);
        assert_eq!(decide("/abc"), Some(3));
        assert_eq!(decide("/abc/d/e"), Some(2));
        assert_eq!(decide("/ax"), Some(4), "allow wins the tie on /a");
        assert_eq!(decide("/b"), None);
        assert_eq!(decide("/ab0"), Some(1));
    }
}
