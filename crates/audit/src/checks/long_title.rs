//! `content/long-title`: titles over 60 characters.

use crate::{Context, Finding, HTML_PAGE};

/// Titles longer than this many characters are reported.
pub(crate) const MAX_CHARS: u32 = 60;

declare_check! {
    /// ## What it finds
    /// Every HTML page whose `<title>` (white space collapsed) is longer
    /// than 60 characters.
    ///
    /// ## Why it matters
    /// Search results show about 600 pixels of a title, some 50–60
    /// characters: the rest is cut with an ellipsis, and search engines
    /// are more likely to rewrite a long title themselves.
    ///
    /// ## Fix
    /// Put the words that matter first and keep the title under 60
    /// characters; leave the site's name out or at the end.
    "content/long-title", Notice, "titles longer than 60 characters"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'the title has ' || length(trim(p.title)) ||
                ' characters (limit {MAX_CHARS})', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND length(trim(p.title)) > {MAX_CHARS}
         ORDER BY u.id"
    ))
}
