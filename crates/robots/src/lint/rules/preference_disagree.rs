//! R043 `preference-vocabularies-disagree`: `Content-Usage` and
//! `Content-Signal` that say opposite things to the same robots.

use crate::lint::{Context, Diagnostic};
use crate::prefs::{Preference, Purpose, Vocabulary};

declare_lint! {
    /// ## What it does
    /// Finds a group whose `Content-Usage` line for every path and whose
    /// `Content-Signal` line allow and refuse the same use (`train-ai=y`
    /// beside `ai-train=no`).
    ///
    /// ## Why
    /// A robot that reads both takes the refusal (any `n` wins); a robot that
    /// reads one vocabulary only takes that one. The file says two things.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Content-Usage: train-ai=y
    /// Content-Signal: ai-train=no
    /// ```
    ///
    /// ## Fix
    /// Make both lines say the same.
    "R043", "preference-vocabularies-disagree", Warning, "Content-Usage and Content-Signal that disagree"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    use std::collections::BTreeMap;
    let robots = cx.robots_named("rfc9309");
    // Per group and purpose, per vocabulary: the first line allowing and the
    // first refusing (`Content-Usage` lines for every path only).
    type Firsts = [[Option<u32>; 2]; 2];
    let mut groups: BTreeMap<(u32, usize), Firsts> = BTreeMap::new();
    for l in robots.preference_lines() {
        let Some(g) = l.group else { continue };
        let v = match l.statement.vocabulary {
            Vocabulary::Aipref if l.path.is_none() => 0,
            Vocabulary::Aipref => continue,
            Vocabulary::ContentSignal => 1,
        };
        for (i, p) in [Purpose::Search, Purpose::TrainAi].into_iter().enumerate() {
            let slot = match l.statement.preference(p) {
                Preference::Allowed => 0,
                Preference::Refused => 1,
                Preference::Unstated => continue,
            };
            groups.entry((g, i)).or_default()[v][slot].get_or_insert(l.line);
        }
    }
    for ((_, i), firsts) in groups {
        let p = [Purpose::Search, Purpose::TrainAi][i];
        // Content-Usage allows and Content-Signal refuses, or the reverse.
        for (usage, signal, a, b) in [(0, 1, Preference::Allowed, Preference::Refused), (1, 0, Preference::Refused, Preference::Allowed)] {
            let (Some(u), Some(s)) = (firsts[0][usage], firsts[1][signal]) else { continue };
            let later = u.max(s);
            let Some(span) = cx.value_span_of(later) else { continue };
            out.push(
                Diagnostic::new(
                    &LINT,
                    span,
                    format!(
                        "`Content-Usage` (line {u}) says {p}={a} and `Content-Signal` (line {s}) says {}={}: readers of both take `n`, readers of one take its answer",
                        p.label(Vocabulary::ContentSignal).unwrap_or(p.as_str()),
                        if b == Preference::Allowed { "yes" } else { "no" },
                    ),
                )
                .caused_by(u.min(s))
                .help("make both lines say the same"),
            );
        }
    }
}
