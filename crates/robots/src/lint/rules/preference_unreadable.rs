//! R040 `preference-unreadable`: a usage preference a reader cannot read.

use crate::lint::{Context, Diagnostic};
use crate::prefs::{Purpose, Vocabulary};

declare_lint! {
    /// ## What it does
    /// Finds `Content-Usage` and `Content-Signal` lines that a reader
    /// ignores in whole or in part: a value that is not an RFC 9651
    /// Dictionary (an upper-case key, a missing `,`, a path that does not
    /// start with `/`), a value of the other vocabulary (`yes` in
    /// `Content-Usage`, `y` in `Content-Signal`), or a label the
    /// vocabulary does not have (`ai-train` in `Content-Usage`).
    ///
    /// ## Why
    /// The IETF vocabulary reads the line as a Structured Field: one syntax
    /// error makes every preference of the line unknown, and so does a value
    /// other than the tokens `y` and `n`. Cloudflare's Content Signals use
    /// `yes` and `no`, and their own labels.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Content-Usage: Train-AI=n
    /// Content-Usage: train-ai=no
    /// Content-Signal: ai-train=n
    /// ```
    ///
    /// ## Fix
    /// Lower-case keys; `y`/`n` with `train-ai` and `search` in
    /// `Content-Usage`; `yes`/`no` with `search`, `ai-input` and `ai-train`
    /// in `Content-Signal`.
    "R040", "preference-unreadable", Warning, "a usage preference a reader cannot read"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for line in cx.robots_named("rfc9309").preference_lines() {
        let Some(span) = cx.value_span_of(line.line) else { continue };
        let s = &line.statement;
        let field = s.vocabulary.field();
        if let Some(e) = &s.error {
            let mut d = Diagnostic::new(&LINT, span, format!("`{field}` is not a valid RFC 9651 Dictionary ({e}): readers ignore every preference of this line"));
            let value = cx.txt.text(span);
            if s.vocabulary == Vocabulary::Aipref && !value.trim_start().starts_with('/') && value.split_whitespace().count() > 1 {
                d = d.help("a path must start with `/`, and the preferences follow it after a space: `Content-Usage: /path train-ai=n`");
            } else {
                d = d.help("keys are lower case and members are separated by `,`: `train-ai=n, search=y`");
            }
            out.push(d);
            continue;
        }
        let (yes, no) = s.vocabulary.values();
        let other = match s.vocabulary {
            Vocabulary::Aipref => Vocabulary::ContentSignal,
            Vocabulary::ContentSignal => Vocabulary::Aipref,
        };
        for e in &s.entries {
            if s.vocabulary == Vocabulary::ContentSignal && e.label == "use" {
                // Cloudflare's level of use (`immediate`, `reference`, `full`).
                continue;
            }
            match e.purpose {
                None => {
                    let hint = Purpose::of_label(other, &e.label)
                        .and_then(|p| p.label(s.vocabulary).map(|l| format!("; `{field}` calls it `{l}`")))
                        .unwrap_or_else(|| match Purpose::of_label(other, &e.label) {
                            Some(p) => format!("; `{field}` has no label for {p}: state it with `{}`", other.field()),
                            None => String::new(),
                        });
                    out.push(Diagnostic::new(&LINT, span, format!("`{}` is not a label of `{field}`: readers ignore it{hint}", e.label)));
                }
                Some(p) if e.value != yes && e.value != no => {
                    let (oy, on) = other.values();
                    let meant = if e.value == oy {
                        format!(" (`{oy}` is the other vocabulary's; write `{yes}`)")
                    } else if e.value == on {
                        format!(" (`{on}` is the other vocabulary's; write `{no}`)")
                    } else {
                        String::new()
                    };
                    out.push(
                        Diagnostic::new(&LINT, span, format!("`{}={}`: readers take {p} as unstated, not allowed or refused{meant}", e.label, e.value))
                            .help(format!("the values of `{field}` are the tokens `{yes}` and `{no}`")),
                    );
                }
                Some(_) => {}
            }
        }
    }
}
