//! `hreflang/no-return`: hreflang alternates that do not link back.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every hreflang link from a page A to another page B (`<link
    /// rel="alternate" hreflang>`) where B was fetched as an HTML page and
    /// lists no hreflang alternate back to A. One finding per pair, at A,
    /// with B in `related` and every code A lists B under in the message
    /// (`as its "de", "de-DE" version`): a page that lists the same
    /// alternate under two codes is one pair, one finding.
    ///
    /// Measured: on the planted sites of the audit's tests (an alternate
    /// listed under two codes, a page whose only alternate does not list
    /// it back, and as near misses pairs that list each other), precision
    /// and recall 1.0.
    ///
    /// ## Why it matters
    /// Search engines use an hreflang pair only when both pages confirm
    /// it: without the return link the annotation is ignored (anyone could
    /// otherwise claim another site's pages as their translations), and
    /// the wrong language version may be shown.
    ///
    /// ## Fix
    /// Give every language version the same complete set of alternates,
    /// itself included.
    "hreflang/no-return", Warning, "hreflang alternates that do not list the page back"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT s.id, s.url, 'lists ' || t.url || ' as its ' ||
                group_concat('\"' || coalesce(l.anchor, '') || '\"', ', ') ||
                ' version, which does not list it back', t.url
         FROM head_links l JOIN urls s ON s.id = l.source_id JOIN urls t ON t.id = l.target_id
         JOIN pages p ON p.url_id = t.id
         WHERE l.kind = 'hreflang' AND l.target_id != l.source_id AND {HTML_PAGE}
           AND NOT EXISTS (SELECT 1 FROM head_links b WHERE b.source_id = t.id
                           AND b.kind = 'hreflang' AND b.target_id = s.id)
         GROUP BY s.id, t.id
         ORDER BY s.id, min(l.position)"
    ))
}
