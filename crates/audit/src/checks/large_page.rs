//! `performance/large-page`: HTML pages over 300 KiB.

use crate::{Context, Finding, HTML_PAGE};

/// HTML bodies larger than this many bytes (decoded) are reported.
pub(crate) const MAX_BYTES: u32 = 300 * 1024;

declare_check! {
    /// ## What it finds
    /// Every HTML page whose body, decoded, is larger than 300 KiB, or was
    /// cut at the crawl's `--max-bytes` (the finding says so: the page is
    /// larger than what was read). Images, scripts and style sheets are
    /// not counted: the crawl does not fetch them. A typical page's HTML
    /// is well under 100 KiB; 300 KiB is a lot of markup (inlined data,
    /// scripts, or very long lists).
    ///
    /// ## Why it matters
    /// Every byte of HTML is downloaded and parsed before the page can
    /// show; search engines read only the first part of a very large page
    /// (Googlebot: the first 2 MB of HTML), and a long page spends more of
    /// the crawl.
    ///
    /// ## Fix
    /// Move inline data and scripts to files that can be cached, paginate
    /// long lists, and compress what is sent.
    "performance/large-page", Notice, "HTML pages over 300 KiB (decoded) or cut at --max-bytes"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url,
                CASE WHEN p.truncated THEN 'larger than the ' || p.bytes ||
                          ' bytes read (--max-bytes)'
                     ELSE p.bytes || ' bytes of HTML (limit {MAX_BYTES})' END, NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND (p.bytes > {MAX_BYTES} OR p.truncated)
         ORDER BY u.id"
    ))
}
