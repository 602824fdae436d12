//! `content/long-description`: meta descriptions over 160 characters.

use crate::{Context, Finding, HTML_PAGE};

/// Descriptions longer than this many characters are reported.
pub(crate) const MAX_CHARS: u32 = 160;

declare_check! {
    /// ## What it finds
    /// Every HTML page whose meta description (white space collapsed) is
    /// longer than 160 characters.
    ///
    /// ## Why it matters
    /// Search engines cut snippets at roughly 155–160 characters on a
    /// desktop (less on a phone): the end of a longer description is not
    /// shown, and a description cut mid-sentence reads badly.
    ///
    /// ## Fix
    /// Say the essential in the first 150 characters.
    "content/long-description", Notice, "meta descriptions longer than 160 characters"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'the description has ' || length(p.description) ||
                ' characters (limit {MAX_CHARS})', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND length(p.description) > {MAX_CHARS}
         ORDER BY u.id"
    ))
}
