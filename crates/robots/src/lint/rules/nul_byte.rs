//! R036 `nul-byte`: a NUL byte.

use crate::lint::{Context, Diagnostic, Edit};
use crate::parse::{ByteIssue, Span};

declare_lint! {
    /// ## What it does
    /// Finds NUL bytes.
    ///
    /// ## Why
    /// Google's parser and others written in C stop reading a line at a NUL
    /// byte, so the rest of the line is lost for them; other robots read it
    /// as part of a key or value.
    ///
    /// ## Example
    /// ```text
    /// Disallow: /a\0/b
    /// ```
    ///
    /// ## Fix
    /// Remove the NUL bytes.
    "R036", "nul-byte", Warning, "a NUL byte"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // One finding per line, with an edit per NUL byte.
    let mut by_line: Vec<(u32, Vec<usize>)> = Vec::new();
    for issue in cx.txt.byte_issues() {
        let ByteIssue::Nul { offset } = *issue else { continue };
        let line = cx.txt.line_of(offset);
        match by_line.last_mut() {
            Some((l, offsets)) if *l == line => offsets.push(offset),
            _ => by_line.push((line, vec![offset])),
        }
    }
    for (_, offsets) in by_line {
        let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else { continue };
        // One edit per run of NULs: a line of a million NULs is one edit.
        let mut edits: Vec<Edit> = Vec::new();
        for &o in &offsets {
            match edits.last_mut() {
                Some(run) if run.span.end == o => run.span.end = o + 1,
                _ => edits.push(Edit { span: Span::new(o, o + 1), replacement: String::new() }),
            }
        }
        out.push(
            Diagnostic::new(&LINT, Span::new(first, last + 1), format!("{} NUL byte(s): Google and RFC 9309 robots stop reading the line at the first", offsets.len()))
                .help("remove the NUL bytes")
                .fix("remove the NUL bytes", edits),
        );
    }
}
