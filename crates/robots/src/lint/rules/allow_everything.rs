//! R009 `allow-everything`: `Allow: /`.

use crate::lint::{Context, Diagnostic, Edit};

declare_lint! {
    /// ## What it does
    /// Finds `Allow: /` lines.
    ///
    /// ## Why
    /// `Allow: /` matches every path with the lowest priority: robots that
    /// pick the longest match let every other rule beat it, so it changes
    /// nothing (unless the group also has `Disallow: /`, see R013). Strict
    /// robots read rules in order: for them it allows everything and the
    /// rules below it never apply.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Allow: /
    /// Disallow: /private
    /// ```
    ///
    /// ## Fix
    /// Remove the line.
    "R009", "allow-everything", Info, "`Allow: /`"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        let rules = cx.rules(block);
        for (k, r) in rules.iter().enumerate() {
            if !r.allow || r.value != "/" {
                continue;
            }
            let below = rules.len() - k - 1;
            let mut diag = if below == 0 {
                Diagnostic::new(&LINT, cx.line_span(r.index), "`Allow: /` changes nothing: everything not disallowed is allowed anyway")
            } else {
                Diagnostic::new(
                    &LINT,
                    cx.line_span(r.index),
                    format!("`Allow: /` changes nothing for robots that pick the longest match; strict robots read it first and ignore the {below} rule(s) below it"),
                )
            };
            diag = diag.help("remove the line");
            if below == 0 {
                diag = diag.fix("remove the line", vec![Edit { span: cx.line_with_ending(r.index), replacement: String::new() }]);
            }
            out.push(diag);
        }
    }
}
