//! Findings folded by root cause, so that a reader sees the few things that
//! matter first.
//!
//! A file with one `Allow: /` above two hundred rules has two hundred notes
//! that strict robots never reach those rules: one thing to fix, not two
//! hundred. [`fold`] makes one entry of the finding on the line that causes
//! others and the findings that follow from it, and one entry of the
//! findings of one lint that share their cause (or have none).

use std::collections::HashMap;

use crate::lint::{Diagnostic, Severity};
use crate::parse::RobotsTxt;

/// One entry of a folded summary: a finding to show and the findings it
/// stands for. Indices are into the diagnostics given to [`fold`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folded {
    /// The finding shown: the first in file order.
    pub head: usize,
    /// More findings of the head's lint, in file order.
    pub like: Vec<usize>,
    /// Findings of other lints that follow from the line of a finding of
    /// the entry, or from the line a finding of the entry follows from, in
    /// file order.
    pub follow: Vec<usize>,
    /// The line every finding of the entry follows from, when they all
    /// follow from one line that has no finding of its own to show them
    /// with.
    pub cause: Option<u32>,
    /// The severity of the entry: its head's.
    pub severity: Severity,
}

impl Folded {
    /// Every finding of the entry: the head, then `like`, then `follow`.
    pub fn members(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.head)
            .chain(self.like.iter().copied())
            .chain(self.follow.iter().copied())
    }

    /// How many findings the entry stands for besides its head.
    #[must_use]
    pub fn folded(&self) -> usize {
        self.like.len() + self.follow.len()
    }
}

/// Findings of one lint (or groups of them that follow from one line) are
/// folded together from this many on; fewer are shown each.
pub const LIKE_FROM: usize = 3;

/// Folds findings by root cause. Entries come errors first, then warnings,
/// then notes; within a severity, in the order of their first line.
///
/// 1. A finding whose [`Diagnostic::cause`] is an earlier line follows that
///    line back to its root (a line none of whose findings has a cause).
///    If the root line has a finding at least as severe, the finding is
///    folded into that finding's entry.
/// 2. Findings of one severity that follow from one root line with no such
///    finding make one entry, when there are several.
/// 3. The rest, and those entries, are folded by lint when a lint has
///    [`LIKE_FROM`] of them or more: one entry per lint, headed by its
///    first finding.
///
/// ```
/// use botwarden_robots::{RobotsTxt, check, fold};
///
/// let txt = RobotsTxt::parse("User-agent: *\nAllow: /\nDisallow: /a\nDisallow: /b\nDisallow: /c\n");
/// let found = check(&txt);
/// // `Allow: /` (R009), and a note per rule below it that strict robots
/// // never reach (R035).
/// assert_eq!(found.len(), 4);
/// let entries = fold(&txt, &found);
/// assert_eq!(entries.len(), 1);
/// assert_eq!(found[entries[0].head].code(), "R009");
/// assert_eq!(entries[0].follow.len(), 3);
/// ```
#[must_use]
pub fn fold(txt: &RobotsTxt, diagnostics: &[Diagnostic]) -> Vec<Folded> {
    let n = diagnostics.len();
    let lines: Vec<u32> = diagnostics
        .iter()
        .map(|d| txt.line_of(d.span.start))
        .collect();
    let (roots, into) = follow_causes(diagnostics, &lines);
    // 2. Findings that share a root line with nothing to show them with.
    let mut by_root: HashMap<(u32, Severity), Vec<usize>> = HashMap::new();
    for i in (0..n).filter(|&i| into[i].is_none()) {
        if let Some(r) = roots[i] {
            by_root
                .entry((r, diagnostics[i].severity()))
                .or_default()
                .push(i);
        }
    }
    let (mut entries, entry_of) = by_lint(diagnostics, &roots, &into, &by_root);
    for (i, h) in into.iter().enumerate() {
        if let Some(&h) = h.as_ref() {
            entries[entry_of[h]].follow.push(i);
        }
    }
    for e in &mut entries {
        e.like.sort_unstable();
        e.follow.sort_unstable();
    }
    entries.sort_by_key(|e| (e.severity, lines[e.head], e.head));
    entries
}

/// Step 1 of [`fold`]: per finding (on `lines`), the root line its causes
/// lead back to, and the finding of that line it folds into, if any.
fn follow_causes(
    diagnostics: &[Diagnostic],
    lines: &[u32],
) -> (Vec<Option<u32>>, Vec<Option<usize>>) {
    let n = diagnostics.len();
    // A cause must be an earlier line, so that following causes ends.
    let cause = |i: usize| diagnostics[i].cause.filter(|&c| c < lines[i]);
    let mut on_line: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, &line) in lines.iter().enumerate() {
        on_line.entry(line).or_default().push(i);
    }
    let root = |i: usize| -> Option<u32> {
        let mut at = cause(i)?;
        while let Some(next) = on_line
            .get(&at)
            .and_then(|found| found.iter().find_map(|&k| cause(k)))
        {
            at = next;
        }
        Some(at)
    };
    // 1. Into the finding of the root line that shows what follows from
    // it: the most severe, then the lowest code.
    let mut roots: Vec<Option<u32>> = vec![None; n];
    let mut into: Vec<Option<usize>> = vec![None; n];
    for (i, d) in diagnostics.iter().enumerate() {
        roots[i] = root(i);
        let shown = roots[i].and_then(|r| on_line.get(&r)).and_then(|found| {
            found
                .iter()
                .copied()
                .min_by_key(|&k| (diagnostics[k].severity(), diagnostics[k].code()))
        });
        into[i] = shown.filter(|&h| diagnostics[h].severity() <= d.severity());
    }
    (roots, into)
}

/// Step 3 of [`fold`]: the entries of the findings not folded `into`
/// another's, the groups of `by_root` each with its first, and per
/// finding placed the index of its entry.
fn by_lint(
    diagnostics: &[Diagnostic],
    roots: &[Option<u32>],
    into: &[Option<usize>],
    by_root: &HashMap<(u32, Severity), Vec<usize>>,
) -> (Vec<Folded>, Vec<usize>) {
    let n = diagnostics.len();
    // 3. By lint, in file order, when a lint has several findings (or
    // groups of them) to fold.
    let group_of = |i: usize| {
        roots[i]
            .and_then(|r| by_root.get(&(r, diagnostics[i].severity())).map(|g| (r, g)))
            .filter(|(_, g)| g.len() > 1)
    };
    let mut units: HashMap<&str, usize> = HashMap::new();
    for i in (0..n).filter(|&i| into[i].is_none()) {
        if group_of(i).is_none_or(|(_, g)| g[0] == i) {
            *units.entry(diagnostics[i].code()).or_default() += 1;
        }
    }
    let mut entries: Vec<Folded> = Vec::new();
    let mut by_lint: HashMap<&str, usize> = HashMap::new();
    let mut entry_of: Vec<usize> = vec![usize::MAX; n];
    for (i, d) in diagnostics.iter().enumerate() {
        if into[i].is_some() {
            continue;
        }
        let group = group_of(i);
        if group.is_some_and(|(_, g)| g[0] != i) {
            continue; // placed with the first of its group
        }
        let new = Folded {
            head: i,
            like: Vec::new(),
            follow: Vec::new(),
            cause: group.map(|(r, _)| r),
            severity: d.severity(),
        };
        let e = if units[d.code()] < LIKE_FROM {
            entries.push(new);
            entries.len() - 1
        } else {
            *by_lint.entry(d.code()).or_insert_with(|| {
                entries.push(new);
                entries.len() - 1
            })
        };
        let entry = &mut entries[e];
        if entry.head != i {
            entry.like.push(i);
            entry.cause = None;
        }
        entry_of[i] = e;
        for &k in group.map_or(&[][..], |(_, g)| &g[1..]) {
            if diagnostics[k].code() == d.code() {
                entry.like.push(k);
            } else {
                entry.follow.push(k);
            }
            entry_of[k] = e;
        }
    }
    (entries, entry_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::check;

    fn folded(text: &str) -> (Vec<Diagnostic>, Vec<Folded>) {
        let txt = RobotsTxt::parse(text);
        let found = check(&txt);
        let entries = fold(&txt, &found);
        (found, entries)
    }

    #[test]
    fn every_finding_is_in_exactly_one_entry() {
        let (found, entries) = folded(
            "User-agent: *\nAllow: /\nDisallow: /*.pdf$\nDisallow: /a\nDisalow: /b\nDisalow: /c\n\
             Sitemap: /s.xml\n\nUser-agent: b\nAllow: /\nDisallow: /x\n",
        );
        let mut seen: Vec<usize> = entries.iter().flat_map(Folded::members).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..found.len()).collect::<Vec<_>>());
    }

    #[test]
    fn notes_that_follow_from_a_line_fold_into_its_finding() {
        let mut text = String::from("User-agent: *\nAllow: /\n");
        for i in 0..50 {
            text.push_str(&format!("Disallow: /p{i}\nDisallow: /*.x{i}$\n"));
        }
        let (found, entries) = folded(&text);
        assert_eq!(found.len(), 1 + 100 + 50, "R009, R035 ×100, R010 ×50");
        assert_eq!(entries.len(), 1, "{entries:#?}");
        let e = &entries[0];
        assert_eq!(found[e.head].code(), "R009");
        assert_eq!(e.follow.len(), 150);
        assert!(e.follow.iter().all(|&i| found[i].cause == Some(2)));
    }

    #[test]
    fn findings_of_one_lint_fold_together_and_severities_come_in_order() {
        let (found, entries) = folded(
            "User-agent: *\nDisallow: /*.a$\nDisalow: /b\nDisallow: /*.c$\nDisalow: /d\n\
             Disallow: /*.e$\nDisalow: /f\nSitemap: /s.xml\n",
        );
        let heads: Vec<(&str, usize)> = entries
            .iter()
            .map(|e| (found[e.head].code(), e.folded()))
            .collect();
        assert_eq!(heads, [("R016", 0), ("R022", 2), ("R010", 2)]);
        // Two of a lint are shown each.
        let (found, entries) = folded("User-agent: *\nDisalow: /b\nDisalow: /d\n");
        assert_eq!(found.len(), 2);
        assert_eq!(entries.len(), 2);
    }

    #[test]
    fn a_cause_without_a_finding_of_its_own_makes_an_entry() {
        let (found, entries) = folded(
            "User-agent: *\nDisallow: /shop\nAllow: /shop/a\nAllow: /shop/b\nAllow: /shop/*.css\n",
        );
        assert_eq!(entries.len(), 1, "{entries:#?}");
        let e = &entries[0];
        assert_eq!(e.cause, Some(2));
        assert_eq!(found[e.head].code(), "R035");
        assert_eq!(e.folded(), 3, "R035 ×2 more and R010");
    }

    #[test]
    fn findings_that_alone_follow_from_their_line_fold_by_lint() {
        // Each repeat follows from the rule it repeats, a line of its own.
        let (found, entries) = folded(
            "User-agent: a\nDisallow: /x\nDisallow: /y\nDisallow: /z\n\
             Disallow: /x\nDisallow: /y\nDisallow: /z\n",
        );
        assert_eq!(found.len(), 3);
        assert_eq!(entries.len(), 1, "{entries:#?}");
        assert_eq!(entries[0].like.len(), 2);
        assert_eq!(entries[0].cause, None);
    }

    #[test]
    fn the_same_cause_in_many_groups_is_one_entry() {
        let mut text = String::new();
        for g in 0..20 {
            text.push_str(&format!(
                "User-agent: bot{}\nDisallow: /s/\nAllow: /s/a\nAllow: /s/b*\n\n",
                char::from(b'a' + g)
            ));
        }
        let (found, entries) = folded(&text);
        assert_eq!(found.len(), 20 * 3, "R035 ×2 and R010 per group");
        assert_eq!(entries.len(), 1, "{entries:#?}");
        let e = &entries[0];
        assert_eq!(e.cause, None, "twenty lines");
        assert_eq!(found[e.head].code(), "R035");
        assert_eq!(e.like.len(), 39);
        assert_eq!(e.follow.len(), 20);
    }

    #[test]
    fn a_warning_is_not_folded_into_a_note() {
        // `/a` both allowed and disallowed (R013, a warning) follows from
        // line 3, whose finding is a note (R035, caused by line 2).
        let (found, entries) =
            folded("User-agent: *\nAllow: /\nDisallow: /a\nAllow: /a\nDisallow: /b\n");
        let warning = entries
            .iter()
            .find(|e| e.severity == Severity::Warning)
            .expect("the R013 warning has its own entry");
        assert_eq!(found[warning.head].code(), "R013");
        assert_eq!(entries[0].severity, Severity::Warning);
    }

    #[test]
    fn causes_must_be_earlier_lines() {
        let txt = RobotsTxt::parse("User-agent: *\nDisallow: /a\nDisallow: /b\n");
        let mut found = check(&txt);
        assert!(found.is_empty());
        let lint = crate::lint::lint("R035").expect("R035");
        let span = |line: u32| txt.line(line).expect("line").span;
        found.push(Diagnostic::new(lint, span(2), "a").caused_by(3));
        found.push(Diagnostic::new(lint, span(3), "b").caused_by(2));
        let entries = fold(&txt, &found);
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].head, 0);
        assert_eq!(entries[0].follow, [1]);
    }
}
