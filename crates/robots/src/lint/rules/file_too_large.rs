//! R026 `file-too-large`: a file over 500 KiB.

use crate::lint::{Context, Diagnostic};
use crate::parse::Span;

declare_lint! {
    /// ## What it does
    /// Finds files larger than 500 KiB (512,000 bytes).
    ///
    /// ## Why
    /// Google reads the first 500 KiB and ignores the rest, even mid-line;
    /// Yandex ignores a file over 500 KB entirely, which leaves the whole
    /// site open to it. RFC 9309 only requires crawlers to parse 500 KiB.
    ///
    /// ## Example
    /// ```text
    /// (a 600 KiB file)
    /// ```
    ///
    /// ## Fix
    /// Shorten the file: merge rules with wildcards, drop rules for pages
    /// that no longer exist.
    "R026", "file-too-large", Error, "a file over 500 KiB"
}

const LIMIT: usize = 500 * 1024;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let size = cx.txt.bytes().len();
    if size <= LIMIT {
        return;
    }
    let line = cx.txt.line_of(LIMIT);
    let span = cx.txt.line(line).map_or(Span::new(LIMIT, LIMIT), |l| l.span);
    out.push(
        Diagnostic::new(
            &LINT,
            span,
            format!("the file has {size} bytes: Google ignores everything from here (byte 512,000, line {line}); Yandex ignores the whole file"),
        )
        .help("keep robots.txt under 500 KiB"),
    );
}
