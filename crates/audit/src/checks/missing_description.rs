//! `content/missing-description`: HTML pages without a meta description.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page with no `<meta name="description">` (an empty one
    /// is `content/empty-description`).
    ///
    /// ## Why it matters
    /// Search engines show the description as the snippet under the title
    /// when it fits the query; without one they pick a piece of the page,
    /// often a menu or a cookie notice.
    ///
    /// ## Fix
    /// Write a description of one or two sentences for each page, saying
    /// what it offers.
    "content/missing-description", Notice, "HTML pages without a <meta name=\"description\">"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'no <meta name=\"description\">', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.description_count = 0
         ORDER BY u.id"
    ))
}
