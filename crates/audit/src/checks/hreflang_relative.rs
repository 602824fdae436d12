//! `hreflang/relative`: hreflang URLs written relative.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with a `<link rel="alternate" hreflang>` whose
    /// `href` has no scheme (`/de/`, `de.html`, `//example.com/de/`, an
    /// empty one), with their count and the first as written in
    /// `related`. `https://example.com/de/` and `HTTP://example.com/de/`
    /// are not reported. The crawler resolves the URL all the same (the
    /// other hreflang checks read it resolved); the crawler does not read
    /// hreflang from `Link` headers or sitemaps, so only the page's own
    /// links are judged.
    ///
    /// ## Why it matters
    /// Google asks for fully qualified alternate URLs, scheme included;
    /// a relative one may be ignored, or resolved against a base the
    /// author did not mean.
    ///
    /// ## Fix
    /// Write each alternate as an absolute URL (`https://example.com/de/`).
    "hreflang/relative", Warning, "hreflang URLs written relative"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let n = q("$.hreflang_relative");
    findings(
        cx,
        &format!("{n} > 0"),
        &format!("{n} || ' hreflang URL(s) written without a scheme'"),
        &q("$.hreflang_relative_first"),
    )
}
