//! R005 `star-in-user-agent`: `*` mixed with other characters in a user-agent.

use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds user-agent values that contain `*` but are not `*` alone.
    ///
    /// ## Why
    /// `*` is not a wildcard in user-agent lines. Robots that compare product
    /// tokens read `Googlebot*` as `googlebot` and `*bot` as a name no robot
    /// has; Google reads `* foo` as `*`; strict robots look for the whole
    /// value in their name.
    ///
    /// ## Example
    /// ```text
    /// User-agent: Googlebot*
    /// ```
    ///
    /// ## Fix
    /// Write `*` alone, or the product token alone.
    "R005", "star-in-user-agent", Warning, "`*` mixed with other characters in a user-agent"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        for &i in &block.agents {
            let value = cx.value(i);
            if value == "*" || !value.contains('*') {
                continue;
            }
            let message = match cx.token(i) {
                None => format!("RFC 9309 and Google robots read `{value}` as `*`; strict robots read it as a name no robot has"),
                Some(t) if t.is_empty() => format!("`{value}` names no robot: `*` is not a wildcard in user-agent lines"),
                Some(t) => format!("robots that compare product tokens read `{value}` as `{t}`: `*` is not a wildcard in user-agent lines"),
            };
            out.push(Diagnostic::new(&LINT, cx.line_span(i), message).help("write `*` alone for every robot, or a product token alone"));
        }
    }
}
