//! R029 `unparseable-line`: a line no robot can read.

use crate::lint::{Context, Diagnostic};
use crate::parse::LineKind;

declare_lint! {
    /// ## What it does
    /// Finds lines that are neither blank, a comment, nor a `key: value`
    /// directive.
    ///
    /// ## Why
    /// Without a colon (and more than two words) a line means nothing to any
    /// robot. Often it is a rule whose colon was lost, or text that belongs
    /// in a comment.
    ///
    /// ## Example
    /// ```text
    /// User-agent: *
    /// Disallow /a /b
    /// ```
    ///
    /// ## Fix
    /// Add the colon, or turn the line into a comment.
    "R029", "unparseable-line", Warning, "a line no robot can read"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // An HTML page is reported once, by R031.
    if cx.html.is_some() {
        return;
    }
    for line in cx.txt.lines() {
        if line.kind != LineKind::Unparsed {
            continue;
        }
        let text = cx.txt.text(line.span);
        if text.contains('<') || text.contains("{{") || text.contains("{%") {
            continue;
        }
        out.push(
            Diagnostic::new(&LINT, line.span, "no robot can read this line: it is not `key: value`")
                .help("add the missing colon, or start the line with `#` to make it a comment"),
        );
    }
}
