//! R008 `empty-allow`: an empty allow.

use crate::lint::{Context, Diagnostic, Edit};

declare_lint! {
    /// ## What it does
    /// Finds `Allow:` lines without a value.
    ///
    /// ## Why
    /// An empty pattern never decides for robots that pick the longest match,
    /// and allows everything from where it stands for strict robots, which
    /// read rules in order.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Allow:
    /// Disallow: /private
    /// ```
    ///
    /// ## Fix
    /// Remove the line, or give the path to allow.
    "R008", "empty-allow", Warning, "an empty allow"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        let rules = cx.rules(block);
        for (k, r) in rules.iter().enumerate() {
            if !r.allow || !r.value.is_empty() {
                continue;
            }
            let below = rules.len() - k - 1;
            let message = if below == 0 {
                "an empty `Allow` does nothing for any robot".to_owned()
            } else {
                format!("an empty `Allow` does nothing for RFC 9309, Google, Bing and Yandex robots, but strict robots read it first and ignore the {below} rule(s) below it")
            };
            out.push(
                Diagnostic::new(&LINT, cx.line_span(r.index), message)
                    .help("remove the line, or give the path to allow")
                    .fix("remove the line", vec![Edit { span: cx.line_with_ending(r.index), replacement: String::new() }]),
            );
        }
    }
}
