//! `sitemaps/error`: sitemap URLs that answer an error or nothing.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every URL a sitemap lists that the crawl fetched and that answered
    /// `4xx`, `5xx` or nothing, with the sitemaps that list it.
    ///
    /// ## Why it matters
    /// A sitemap asks search engines to crawl and index its URLs: broken
    /// ones waste that crawl and make the sitemap less trusted.
    ///
    /// ## Fix
    /// Remove the URL from the sitemap, or restore the page.
    "sitemaps/error", Error, "sitemap URLs that answer 4xx, 5xx or nothing"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    super::listed::findings(
        cx,
        "u.state = 'fetched' AND (p.status IS NULL OR p.status >= 400)",
        "CASE WHEN p.status IS NULL THEN 'no answer (' || coalesce(p.error, '') || ')'
              ELSE 'answered ' || p.status END",
    )
}
