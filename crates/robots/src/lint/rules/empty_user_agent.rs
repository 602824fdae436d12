//! R038 `empty-user-agent`: a user-agent line without a value.

use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds `User-agent:` lines without a value.
    ///
    /// ## Why
    /// An empty user-agent names no robot for RFC 9309 and Google robots;
    /// strict robots read the empty string as part of every name, so for them
    /// the group applies to every robot.
    ///
    /// ## Example
    /// ```text
    /// User-agent:
    /// Disallow: /
    /// ```
    ///
    /// ## Fix
    /// Name the robot, or write `*`.
    "R038", "empty-user-agent", Warning, "a user-agent line without a value"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        for &i in &block.agents {
            if !cx.value(i).is_empty() {
                continue;
            }
            out.push(
                Diagnostic::new(&LINT, cx.line_span(i), "an empty user-agent names no robot for RFC 9309 and Google robots, and every robot for strict ones")
                    .help("name the robot, or write `*` for every robot"),
            );
        }
    }
}
