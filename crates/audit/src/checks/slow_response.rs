//! `performance/slow`: pages that took more than a second to answer.

use crate::{Context, Finding};

/// Answers whose head took longer than this are reported.
pub(crate) const MAX_TTFB_MS: u32 = 1000;

declare_check! {
    /// ## What it finds
    /// Every URL whose answer took more than 1 second to begin (time to
    /// first byte, from sending the request to the answer's head, a new
    /// connection's set-up included), with the time and the whole
    /// request's time. One second is well above what a healthy server
    /// needs for a page (Google's guidance for server response time is
    /// under 200 ms, and it counts 800 ms as poor), so what is reported is
    /// slow by any measure. A crawl that throttled itself does not make
    /// answers slower; a crawl from far away adds its round trips.
    ///
    /// ## Why it matters
    /// Every visitor waits that long before anything shows; search engines
    /// crawl fewer pages of a slow site, and may rank it lower.
    ///
    /// ## Fix
    /// Find what the page waits for (database queries, calls to other
    /// services), cache it, or serve the page from a cache.
    "performance/slow", Notice, "answers that took more than 1 s to begin (time to first byte)"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'answered after ' || CAST(round(p.ttfb_ms) AS INTEGER) ||
                ' ms (limit {MAX_TTFB_MS} ms; ' || CAST(round(p.elapsed_ms) AS INTEGER) ||
                ' ms with the body)', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE p.ttfb_ms > {MAX_TTFB_MS}
         ORDER BY u.id"
    ))
}
