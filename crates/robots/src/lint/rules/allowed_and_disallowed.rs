//! R013 `allowed-and-disallowed`: the same path both allowed and disallowed.

use std::collections::HashMap;

use crate::lint::{Context, Diagnostic, RuleLine};

declare_lint! {
    /// ## What it does
    /// Finds a group that has `Allow` and `Disallow` with the same value.
    ///
    /// ## Why
    /// Robots that pick the longest match see a tie, which `Allow` wins;
    /// strict robots obey whichever line comes first. The author surely meant
    /// one of the two.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: /shop
    /// Allow: /shop
    /// ```
    ///
    /// ## Fix
    /// Keep the one that was meant.
    "R013", "allowed-and-disallowed", Warning, "the same path both allowed and disallowed"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        let rules = cx.rules(block);
        let mut first: HashMap<(&str, bool), &RuleLine> = HashMap::new();
        for r in &rules {
            first.entry((r.value.as_str(), r.allow)).or_insert(r);
        }
        for r in &rules {
            if r.value.is_empty() {
                continue;
            }
            let Some(other) = first.get(&(r.value.as_str(), !r.allow)).filter(|o| o.index < r.index) else { continue };
            let first = if other.allow { "allow" } else { "disallow" };
            out.push(
                Diagnostic::new(
                    &LINT,
                    cx.line_span(r.index),
                    format!(
                        "`{}` is both allowed and disallowed (lines {} and {}): robots that pick the longest match allow it (allow wins a tie); strict robots {first} it (the first line)",
                        r.value,
                        cx.line(other.index).number,
                        cx.line(r.index).number
                    ),
                )
                .help("keep the rule that was meant")
                .caused_by(cx.line(other.index).number),
            );
        }
    }
}
