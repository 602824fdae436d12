//! R025 `invalid-utf8`: bytes that are not UTF-8.

use crate::lint::{Context, Diagnostic};
use crate::parse::{ByteIssue, Span};

declare_lint! {
    /// ## What it does
    /// Finds byte sequences that are not valid UTF-8.
    ///
    /// ## Why
    /// RFC 9309 files are UTF-8. Robots compare other bytes percent-encoded
    /// (`é` in Latin-1 becomes `%E9`), which matches no UTF-8 URL (`%C3%A9`).
    ///
    /// ## Example
    /// ```text
    /// (`Disallow: /caf` followed by the Latin-1 byte E9)
    /// ```
    ///
    /// ## Fix
    /// Save the file as UTF-8.
    "R025", "invalid-utf8", Warning, "bytes that are not UTF-8"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // One finding per line, spanning its invalid bytes.
    let mut current: Option<(u32, Span, usize)> = None;
    let mut flush = |found: Option<(u32, Span, usize)>| {
        if let Some((_, span, count)) = found {
            out.push(
                Diagnostic::new(&LINT, span, format!("{count} sequence(s) not UTF-8: robots compare these bytes percent-encoded, and they match no UTF-8 URL"))
                    .help("save the file as UTF-8"),
            );
        }
    };
    for issue in cx.txt.byte_issues() {
        let ByteIssue::InvalidUtf8 { offset, len } = *issue else { continue };
        let line = cx.txt.line_of(offset);
        match &mut current {
            Some((l, span, count)) if *l == line => {
                span.end = offset + len;
                *count += 1;
            }
            _ => {
                flush(current.take());
                current = Some((line, Span::new(offset, offset + len), 1));
            }
        }
    }
    flush(current);
}
