//! `content/empty-description`: meta descriptions with no text.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose first `<meta name="description">` has no
    /// `content`, or only white space.
    ///
    /// ## Why it matters
    /// An empty description is a missing one (search engines pick a
    /// snippet themselves), and usually a template field left blank.
    ///
    /// ## Fix
    /// Fill the template's description field, or drop the tag.
    "content/empty-description", Notice, "meta descriptions with no text"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, '<meta name=\"description\"> is empty', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.description_count > 0 AND coalesce(p.description, '') = ''
         ORDER BY u.id"
    ))
}
