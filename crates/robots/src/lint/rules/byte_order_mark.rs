//! R024 `byte-order-mark`: a UTF-8 byte order mark.

use crate::lint::{Context, Diagnostic, Edit};
use crate::parse::Span;

declare_lint! {
    /// ## What it does
    /// Finds a UTF-8 BOM at the start of the file.
    ///
    /// ## Why
    /// Google and RFC 9309 robots skip it; parsers that do not, such as
    /// Python's robotparser, read it as part of the first key, so the first
    /// line is lost for them (often the first `User-agent`).
    ///
    /// ## Example
    /// ```text
    /// \u{FEFF}User-agent: *
    /// ```
    ///
    /// ## Fix
    /// Save the file as UTF-8 without BOM.
    "R024", "byte-order-mark", Info, "a UTF-8 byte order mark"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    if !cx.txt.has_bom() {
        return;
    }
    let span = Span::new(0, 3);
    out.push(
        Diagnostic::new(&LINT, span, "the file starts with a byte order mark: robots that do not skip it lose the first line")
            .help("save the file as UTF-8 without BOM")
            .fix("remove the byte order mark", vec![Edit { span, replacement: String::new() }]),
    );
}
