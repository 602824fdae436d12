//! The order in which a group's rules are written, so that robots that take
//! the first matching rule decide as robots that take the longest one do.
//!
//! Two rules compete when one's pattern is a prefix of the other's (both
//! match a path that starts with the longer one) and they decide
//! differently. Longest-match robots let the longer pattern win, `allow` on
//! a tie; a first-match robot agrees when the winner comes first. So each
//! competing pair gives one constraint, "the longer rule (or the `allow` on
//! a tie) first", and the rules are written in the order that meets every
//! constraint and otherwise keeps the file's order as far as possible (a rule
//! that must come earlier moves just before the first rule it must precede). Rules that compete
//! with nothing do not move.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A rule as a first-match robot compares it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Key<'a> {
    /// The pattern in that robot's normal form.
    pub(super) pattern: &'a [u8],
    /// Whether a match allows: an `allow`, or an empty pattern (first-match
    /// robots read an empty `disallow` as allowing everything).
    pub(super) allows: bool,
}

/// Constraints allowed per rule before the exact order gives way to a plain
/// sort by priority (which meets every constraint too, but moves rules that
/// compete with nothing). Real files stay far below it; a long chain of
/// nested patterns of alternating kinds could exceed it.
const EDGES_PER_RULE: usize = 16;

/// For each position of the written group, the index of the rule in `rules`.
pub(super) fn order(rules: &[Key<'_>]) -> Vec<usize> {
    if rules.len() < 2 {
        return (0..rules.len()).collect();
    }
    match constraints(rules) {
        Some(edges) => topological(rules.len(), &edges),
        None => by_priority(rules),
    }
}

/// Every competing pair as `(first, second)`, or `None` when there are too
/// many.
fn constraints(rules: &[Key<'_>]) -> Option<Vec<(u32, u32)>> {
    let n = rules.len();
    let budget = EDGES_PER_RULE * n + 1024;
    let mut sorted: Vec<usize> = (0..n).collect();
    sorted.sort_by(|&a, &b| rules[a].pattern.cmp(rules[b].pattern));
    let mut edges: Vec<(u32, u32)> = Vec::new();
    // Ranges of `sorted` holding one pattern each; every entry is a prefix
    // of the next one.
    let mut ancestors: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < n {
        let pattern = rules[sorted[i]].pattern;
        let j = i + sorted[i..]
            .iter()
            .take_while(|&&k| rules[k].pattern == pattern)
            .count();
        while let Some(&(s, _)) = ancestors.last() {
            if pattern.starts_with(rules[sorted[s]].pattern) {
                break;
            }
            ancestors.pop();
        }
        let node = &sorted[i..j];
        // The same pattern: `allow` first.
        for &x in node.iter().filter(|&&x| rules[x].allows) {
            for &y in node.iter().filter(|&&y| !rules[y].allows) {
                edges.push((x as u32, y as u32));
            }
        }
        // A shorter pattern of the other kind comes after.
        for &(s, e) in &ancestors {
            for &y in &sorted[s..e] {
                for &x in node {
                    if rules[x].allows != rules[y].allows {
                        edges.push((x as u32, y as u32));
                    }
                }
            }
            if edges.len() > budget {
                return None;
            }
        }
        if edges.len() > budget {
            return None;
        }
        ancestors.push((i, j));
        i = j;
    }
    Some(edges)
}

/// An order that meets every constraint and keeps each rule as late as it
/// can: built from the end, always taking the rule with the largest original
/// index among those with nothing left that must follow them. A rule that
/// must move earlier jumps just before the first rule it must precede, and
/// an order that already meets every constraint is kept as it is.
fn topological(n: usize, edges: &[(u32, u32)]) -> Vec<usize> {
    // `after[k]`: how many rules must still be placed after `k`.
    let mut after = vec![0u32; n];
    let mut start = vec![0usize; n + 1];
    for &(a, b) in edges {
        after[a as usize] += 1;
        start[b as usize + 1] += 1;
    }
    for k in 0..n {
        start[k + 1] += start[k];
    }
    // `before[start[b]..start[b + 1]]`: the rules that must precede `b`.
    let mut before = vec![0u32; edges.len()];
    let mut fill = start.clone();
    for &(a, b) in edges {
        before[fill[b as usize]] = a;
        fill[b as usize] += 1;
    }
    let mut ready: BinaryHeap<usize> = (0..n).filter(|&k| after[k] == 0).collect();
    let mut out = Vec::with_capacity(n);
    while let Some(k) = ready.pop() {
        out.push(k);
        for &a in &before[start[k]..start[k + 1]] {
            let a = a as usize;
            after[a] -= 1;
            if after[a] == 0 {
                ready.push(a);
            }
        }
    }
    debug_assert_eq!(out.len(), n, "constraints between rules form no cycle");
    out.reverse();
    out
}

/// Longest pattern first, `allow` first on a tie, file order otherwise.
fn by_priority(rules: &[Key<'_>]) -> Vec<usize> {
    let mut out: Vec<usize> = (0..rules.len()).collect();
    out.sort_by_key(|&k| (Reverse(rules[k].pattern.len()), !rules[k].allows));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys<'a>(rules: &[(&'a str, bool)]) -> Vec<Key<'a>> {
        rules
            .iter()
            .map(|&(p, allow)| Key {
                pattern: p.as_bytes(),
                allows: allow || p.is_empty(),
            })
            .collect()
    }

    fn ordered(rules: &[(&str, bool)]) -> Vec<usize> {
        order(&keys(rules))
    }

    #[test]
    fn a_more_specific_allow_moves_before_its_disallow() {
        let got = ordered(&[
            ("/wp-admin/", false),
            ("/cart", false),
            ("/wp-admin/admin-ajax.php", true),
        ]);
        assert_eq!(got, [2, 0, 1]);
    }

    #[test]
    fn a_more_specific_disallow_stays_before_a_broad_allow() {
        assert_eq!(ordered(&[("/a/b", false), ("/a", true)]), [0, 1]);
        assert_eq!(ordered(&[("/a", true), ("/a/b", false)]), [1, 0]);
    }

    #[test]
    fn allow_wins_a_tie_and_empty_rules_go_last() {
        assert_eq!(ordered(&[("/a", false), ("/a", true)]), [1, 0]);
        assert_eq!(
            ordered(&[("", false), ("/x", false), ("/y", true)]),
            [1, 0, 2]
        );
    }

    #[test]
    fn rules_that_compete_with_nothing_keep_their_order() {
        let rules = [("/b", false), ("/a", true), ("/c", false), ("/d", true)];
        assert_eq!(ordered(&rules), [0, 1, 2, 3]);
    }

    #[test]
    fn nested_alternating_rules_are_ordered_by_length() {
        let rules = [("/a", true), ("/a/b/c", true), ("/a/b", false)];
        assert_eq!(ordered(&rules), [1, 2, 0]);
    }

    #[test]
    fn too_many_constraints_fall_back_to_priority_order() {
        // 300 nested patterns of alternating kinds: 22,000 constraints.
        let patterns: Vec<String> = (1..=300).map(|k| "/".repeat(k)).collect();
        let rules: Vec<(&str, bool)> = patterns
            .iter()
            .enumerate()
            .map(|(k, p)| (p.as_str(), k % 2 == 0))
            .collect();
        assert!(constraints(&keys(&rules)).is_none());
        let got = ordered(&rules);
        assert_eq!(got, (0..300).rev().collect::<Vec<_>>());
    }
}
