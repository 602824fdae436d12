//! R017 `sitemap-suspicious`: a sitemap URL that does not look like a sitemap.

use crate::directive::DirectiveName;
use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds absolute sitemap URLs that end with `/` or do not end with
    /// `.xml`, `.xml.gz` or `.txt`.
    ///
    /// ## Why
    /// A sitemap is a file: a URL ending with `/` is usually a page, and a
    /// sitemap URL with another extension is often a mistake (query strings
    /// aside).
    ///
    /// ## Example
    /// ```text
    /// Sitemap: https://example.com/
    /// ```
    ///
    /// ## Fix
    /// Point to the sitemap file itself.
    "R017", "sitemap-suspicious", Warning, "a sitemap URL that does not look like a sitemap"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, value) in cx.lines_named(DirectiveName::Sitemap) {
        let lower = value.to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) || lower.contains('?') {
            continue;
        }
        let message = if lower.ends_with('/') {
            format!("`{value}` ends with `/`: that is a page, not a sitemap file")
        } else if [".xml", ".xml.gz", ".txt", ".gz"].iter().any(|e| lower.ends_with(e)) {
            continue;
        } else {
            format!("`{value}` does not end with `.xml`, `.xml.gz` or `.txt`: is it a sitemap?")
        };
        out.push(Diagnostic::new(&LINT, cx.line_span(i), message).help("point to the sitemap file itself"));
    }
}
