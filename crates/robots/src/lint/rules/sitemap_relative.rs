//! R016 `sitemap-relative`: a sitemap URL that is not absolute.

use crate::directive::DirectiveName;
use crate::lint::{Context, Diagnostic};

declare_lint! {
    /// ## What it does
    /// Finds `Sitemap` values that are not absolute `http://` or `https://`
    /// URLs.
    ///
    /// ## Why
    /// The sitemaps protocol and every search engine require a fully-
    /// qualified URL: a relative one is ignored.
    ///
    /// ## Example
    /// ```text
    /// Sitemap: /sitemap.xml
    /// ```
    ///
    /// ## Fix
    /// Write the full URL: `Sitemap: https://example.com/sitemap.xml`.
    "R016", "sitemap-relative", Error, "a sitemap URL that is not absolute"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (i, value) in cx.lines_named(DirectiveName::Sitemap) {
        let lower = value.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            continue;
        }
        out.push(
            Diagnostic::new(&LINT, cx.line_span(i), format!("`{value}` is not an absolute URL: Google, Bing and Yandex ignore it"))
                .help("write the full URL, with https:// and the host"),
        );
    }
}
