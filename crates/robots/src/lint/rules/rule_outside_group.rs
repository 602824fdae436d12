//! R001 `rule-outside-group`: a rule before any user-agent line.

use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds rules and group values (`Allow`, `Disallow`, `Crawl-delay`, ...)
    /// that come before the first `User-agent` line.
    ///
    /// ## Why
    /// A rule belongs to the group of the user-agent lines above it. Before
    /// the first one there is no group, so no robot reads the rule.
    ///
    /// ## Example
    /// ```text
    /// Disallow: /private
    /// User-agent: *
    /// Disallow: /tmp
    /// ```
    ///
    /// ## Fix
    /// Move the line into the group it was meant for.
    "R001", "rule-outside-group", Warning, "a rule before any user-agent line"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for &i in &cx.before_groups {
        out.push(
            Diagnostic::new(&LINT, cx.line_span(i), "no robot reads this line: it comes before any `User-agent` line")
                .help("move it below the `User-agent` line of the group it is meant for"),
        );
    }
}
