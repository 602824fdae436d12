//! `canonical/to-noindex`: canonicals that name a `noindex` page.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page whose canonical names another URL that the crawl fetched
    /// and that says `noindex` (a robots `<meta>` or `X-Robots-Tag` for
    /// the crawler), with where the directive came from.
    ///
    /// ## Why it matters
    /// The canonical says "index that page instead", the target says "do
    /// not index me": the signals contradict each other, and search
    /// engines may drop both pages.
    ///
    /// ## Fix
    /// Point the canonical at an indexable page, or lift the `noindex` of
    /// the target if it is the page meant to be found.
    "canonical/to-noindex", Warning, "canonicals that name a page that says noindex"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(
        "SELECT u.id, u.url, 'its canonical ' || p.canonical || ' says noindex (' || t.noindex || ')',
                p.canonical
         FROM pages p JOIN urls u ON u.id = p.url_id
         JOIN urls c ON c.url = p.canonical JOIN pages t ON t.url_id = c.id
         WHERE p.canonical != u.url AND t.noindex IS NOT NULL
         ORDER BY u.id",
    )
}
