//! R011 `robots-txt-rule`: a rule about /robots.txt.

use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds rules whose value names `robots.txt`.
    ///
    /// ## Why
    /// RFC 9309 makes `/robots.txt` implicitly allowed, and so do Bing,
    /// Yandex and the 1997 draft; Google's library applies the rules to it
    /// like to any path. A rule about it only splits robots.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow: /robots.txt
    /// ```
    ///
    /// ## Fix
    /// Remove the rule.
    "R011", "robots-txt-rule", Warning, "a rule about /robots.txt"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        for r in cx.rules(block) {
            if !r.value.contains("robots.txt") {
                continue;
            }
            out.push(
                Diagnostic::new(
                    &LINT,
                    cx.line_span(r.index),
                    "RFC 9309, Bing, Yandex and strict robots always allow /robots.txt; only Google applies this rule to it",
                )
                .help("remove the rule: robots need to read robots.txt"),
            );
        }
    }
}
