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
    let robots = cx.robots_named("rfc9309");
    let lines = robots.preference_lines();
    for g in robots.groups() {
        let of = |v: Vocabulary| {
            lines
                .iter()
                .filter(move |l| l.group == Some(g.line()) && l.statement.vocabulary == v && l.path.is_none())
        };
        for signal in of(Vocabulary::ContentSignal) {
            for usage in of(Vocabulary::Aipref) {
                for p in [Purpose::Search, Purpose::TrainAi] {
                    let (a, b) = (usage.statement.preference(p), signal.statement.preference(p));
                    let opposite = matches!(
                        (a, b),
                        (Preference::Allowed, Preference::Refused) | (Preference::Refused, Preference::Allowed)
                    );
                    if !opposite {
                        continue;
                    }
                    let later = usage.line.max(signal.line);
                    let Some(span) = cx.value_span_of(later) else { continue };
                    out.push(
                        Diagnostic::new(
                            &LINT,
                            span,
                            format!(
                                "`Content-Usage` (line {}) says {p}={a} and `Content-Signal` (line {}) says {}={}: readers of both take `n`, readers of one take its answer",
                                usage.line,
                                signal.line,
                                p.label(Vocabulary::ContentSignal).unwrap_or(p.as_str()),
                                if b == Preference::Allowed { "yes" } else { "no" },
                            ),
                        )
                        .caused_by(usage.line.min(signal.line))
                        .help("make both lines say the same"),
                    );
                }
            }
        }
    }
}
