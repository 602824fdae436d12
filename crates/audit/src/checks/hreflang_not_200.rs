//! `hreflang/not-200`: hreflang alternates that do not answer `200`.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every hreflang alternate (`<link rel="alternate" hreflang>`) that
    /// names a URL the crawl fetched and that answered anything but `200`
    /// (a redirect, an error, no answer), or that robots.txt kept the
    /// crawl from fetching. One finding per page and alternate URL, at the
    /// page, with the alternate's URL in `related` and every code the page
    /// lists it under in the message.
    ///
    /// ## Why it matters
    /// Search engines drop alternates they cannot fetch or that redirect:
    /// the language version is not offered, and the set around it may be
    /// ignored.
    ///
    /// ## Fix
    /// Name each version's final URL, and make it answer `200`.
    "hreflang/not-200", Warning, "hreflang alternates that redirect, fail or are blocked"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(
        "SELECT s.id, s.url, 'its ' || group_concat('\"' || coalesce(l.anchor, '') || '\"', ', ') ||
                ' version ' || t.url || ' ' ||
                CASE WHEN t.state = 'skipped' THEN 'was not fetched (' || t.skip_reason || ')'
                     WHEN p.status IS NULL THEN 'did not answer'
                     ELSE 'answered ' || p.status END,
                t.url
         FROM head_links l JOIN urls s ON s.id = l.source_id JOIN urls t ON t.id = l.target_id
         LEFT JOIN pages p ON p.url_id = t.id
         WHERE l.kind = 'hreflang'
           AND ((t.state = 'fetched' AND (p.status IS NULL OR p.status != 200))
                OR (t.state = 'skipped' AND t.skip_reason = 'robots'))
         GROUP BY s.id, t.id
         ORDER BY s.id, min(l.position)",
    )
}
