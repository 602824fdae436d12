//! `content/multiple-description`: HTML pages with more than one meta
//! description.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page with more than one `<meta name="description">`,
    /// with how many.
    ///
    /// ## Why it matters
    /// Search engines take one of them (which one is not said), so the
    /// snippet shown may not be the one written; usually a template and
    /// a plugin both add one.
    ///
    /// ## Fix
    /// Keep one description per page.
    "content/multiple-description", Notice, "HTML pages with more than one meta description"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, p.description_count || ' meta descriptions', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.description_count > 1
         ORDER BY u.id"
    ))
}
