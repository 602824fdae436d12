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
    /// More findings of the head's lint that, like the head, follow from
    /// no line, in file order.
    pub like: Vec<usize>,
    /// Findings that follow from the line of the head or of one of `like`
    /// (or, when [`Folded::cause`] is set, from that line), in file order.
    pub follow: Vec<usize>,
    /// The line every finding of the entry follows from, when that line has
    /// no finding of its own at least as severe to show them with.
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

/// What an entry is keyed by while folding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    /// Findings of one lint that follow from no line.
    Lint(&'static str),
    /// Findings that follow from a line with nothing to show them with.
    Cause(u32, Severity),
}

/// Folds findings by root cause. Entries come errors first, then warnings,
/// then notes; within a severity, in the order of their first line.
///
/// A finding whose [`Diagnostic::cause`] is an earlier line follows that
/// line back to its root (a line none of whose findings has a cause). If
/// the root line has a finding at least as severe, the finding is folded
/// into that finding's entry; otherwise the findings of one severity that
/// follow from that line make an entry of their own. Findings without a
/// cause are folded with the other findings of their lint.
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
    let lines: Vec<u32> = diagnostics
        .iter()
        .map(|d| txt.position(d.span.start).0)
        .collect();
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
    // The finding of a root line that shows what follows from it: the most
    // severe, then the lowest code.
    let shown_on = |line: u32| -> Option<usize> {
        on_line.get(&line).and_then(|found| {
            found
                .iter()
                .copied()
                .min_by_key(|&k| (diagnostics[k].severity(), diagnostics[k].code()))
        })
    };
    let mut keys: Vec<Key> = Vec::with_capacity(diagnostics.len());
    // Per finding: the finding whose entry it follows into.
    let mut into: Vec<Option<usize>> = vec![None; diagnostics.len()];
    for (i, d) in diagnostics.iter().enumerate() {
        let key = match root(i) {
            None => Key::Lint(d.code()),
            Some(r) => match shown_on(r) {
                Some(h) if diagnostics[h].severity() <= d.severity() => {
                    into[i] = Some(h);
                    Key::Lint(d.code())
                }
                _ => Key::Cause(r, d.severity()),
            },
        };
        keys.push(key);
    }
    let mut entries: Vec<Folded> = Vec::new();
    let mut entry_of: HashMap<Key, usize> = HashMap::new();
    let mut entry_of_finding: Vec<usize> = vec![usize::MAX; diagnostics.len()];
    // Heads and their like first, followers after, so that a follower's
    // entry exists when it is placed.
    for (i, d) in diagnostics.iter().enumerate() {
        if into[i].is_some() {
            continue;
        }
        let key = keys[i];
        let e = *entry_of.entry(key).or_insert_with(|| {
            entries.push(Folded {
                head: i,
                like: Vec::new(),
                follow: Vec::new(),
                cause: match key {
                    Key::Cause(line, _) => Some(line),
                    Key::Lint(_) => None,
                },
                severity: d.severity(),
            });
            entries.len() - 1
        });
        entry_of_finding[i] = e;
        if entries[e].head != i {
            match key {
                Key::Lint(_) => entries[e].like.push(i),
                Key::Cause(..) => entries[e].follow.push(i),
            }
        }
    }
    for (i, h) in into.iter().enumerate() {
        if let Some(&h) = h.as_ref() {
            let e = entry_of_finding[h];
            entries[e].follow.push(i);
        }
    }
    entries.sort_by_key(|e| (e.severity, lines[e.head], e.head));
    entries
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
             Sitemap: /s.xml\n",
        );
        let heads: Vec<(&str, usize)> = entries
            .iter()
            .map(|e| (found[e.head].code(), e.folded()))
            .collect();
        assert_eq!(heads, [("R016", 0), ("R022", 1), ("R010", 1)]);
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
