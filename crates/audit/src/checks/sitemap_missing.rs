//! `sitemaps/missing-indexable`: indexable pages no sitemap lists.

use crate::{CANONICAL_ELSEWHERE, Context, Finding, HTML_PAGE, origin};

declare_check! {
    /// ## What it finds
    /// Every HTML page that answered `200`, may be indexed (no
    /// `noindex`, no canonical naming another URL) and is on an origin
    /// whose sitemaps the crawl read (at least one of its URLs is in a
    /// sitemap), but that no sitemap lists. Nothing is reported when the
    /// crawl read no sitemap (`crawl --sitemaps`).
    ///
    /// ## Why it matters
    /// A sitemap is the list of pages the site wants found; a page left
    /// out is found only through links, later, and a sitemap that lacks
    /// pages is often one that a generator stopped updating.
    ///
    /// ## Fix
    /// Add the page to the sitemap (or, if it should not be indexed, say
    /// `noindex`).
    "sitemaps/missing-indexable", Notice, "indexable pages that no sitemap lists"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "WITH listed_origins AS MATERIALIZED (
             SELECT DISTINCT {o_listed} AS origin FROM sitemap_entries s JOIN urls u ON u.id = s.url_id)
         SELECT u.id, u.url, 'indexable, and in no sitemap', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.noindex IS NULL AND NOT {CANONICAL_ELSEWHERE}
           AND {o_page} IN (SELECT origin FROM listed_origins)
           AND NOT EXISTS (SELECT 1 FROM sitemap_entries s WHERE s.url_id = u.id)
         ORDER BY u.id",
        o_listed = origin!("u.url"),
        o_page = origin!("u.url"),
    ))
}
