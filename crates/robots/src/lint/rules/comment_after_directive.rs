//! R027 `comment-after-directive`: a comment after a directive.

use crate::lint::{Context, Diagnostic, Edit};
use crate::parse::{LineKind, Span};

declare_lint! {
    /// ## What it does
    /// Finds comments on the same line as a directive.
    ///
    /// ## Why
    /// The 1994 standard allows comments at the end of a line but recommends
    /// them on their own line, and some old parsers read the `#` and the rest
    /// as part of the value.
    ///
    /// ## Example
    /// ```text
    /// Disallow: /tmp # temporary files
    /// ```
    ///
    /// ## Fix
    /// Move the comment to its own line before the directive.
    "R027", "comment-after-directive", Info, "a comment after a directive"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for line in cx.txt.lines() {
        let (LineKind::Directive(d), Some(comment)) = (line.kind, line.comment) else { continue };
        let ending = if line.ending.as_str().is_empty() { "\n" } else { line.ending.as_str() };
        let indent = &cx.txt.bytes()[line.span.start..d.key.start];
        let indent = String::from_utf8_lossy(indent);
        let text = cx.txt.text(comment);
        out.push(
            Diagnostic::new(&LINT, comment, "old parsers may read this comment as part of the value")
                .help("move the comment to its own line before the directive")
                .fix(
                    "move the comment to the line before",
                    vec![
                        Edit { span: Span::new(line.span.start, line.span.start), replacement: format!("{indent}{text}{ending}") },
                        Edit { span: Span::new(d.value.end, line.span.end), replacement: String::new() },
                    ],
                ),
        );
    }
}
