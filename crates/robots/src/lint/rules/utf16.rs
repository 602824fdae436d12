//! R032 `utf16`: a file in UTF-16.

use crate::lint::{Context, Diagnostic};
use crate::parse::Span;

declare_lint! {
    /// ## What it does
    /// Finds files that start with a UTF-16 byte order mark, or whose every
    /// other byte is NUL.
    ///
    /// ## Why
    /// Robots read robots.txt as UTF-8. In UTF-16 every ASCII character comes
    /// with a NUL byte, so no line reads as a directive and the site is open
    /// to every robot.
    ///
    /// ## Example
    /// ```text
    /// (the bytes FF FE 55 00 73 00 65 00 72 00 …)
    /// ```
    ///
    /// ## Fix
    /// Save the file as UTF-8.
    "R032", "utf16", Error, "a file in UTF-16"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let b = cx.txt.bytes();
    let bom = b.starts_with(&[0xFF, 0xFE]) || b.starts_with(&[0xFE, 0xFF]);
    let sample = &b[..b.len().min(512)];
    let nuls = sample.iter().filter(|&&c| c == 0).count();
    let alternating = sample.len() >= 8 && nuls * 3 >= sample.len();
    if !bom && !alternating {
        return;
    }
    let span = Span::new(0, b.len().min(2));
    out.push(
        Diagnostic::new(&LINT, span, "the file is UTF-16: robots read UTF-8, so they see no directive at all")
            .help("save the file as UTF-8"),
    );
}
