//! `content/long-h1`: first `<h1>`s over 70 characters.

use crate::{Context, Finding, HTML_PAGE};

/// Headings longer than this many characters are reported.
pub(crate) const MAX_CHARS: u32 = 70;

declare_check! {
    /// ## What it finds
    /// Every HTML page whose first `<h1>` (white space collapsed) is longer
    /// than 70 characters. The crawler keeps the first 200 characters of a
    /// heading; longer ones are reported with 200.
    ///
    /// ## Why it matters
    /// The main heading names the page's subject at a glance; a heading of
    /// a sentence or more is usually a paragraph styled as a heading, or a
    /// template that puts the whole introduction in the `<h1>`, and says
    /// less about the page than a short one.
    ///
    /// ## Fix
    /// Keep the subject in the `<h1>` and move the rest into the text
    /// below it.
    "content/long-h1", Notice, "first <h1>s longer than 70 characters"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'the first <h1> has ' || length(p.h1) ||
                ' characters (limit {MAX_CHARS})', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND length(p.h1) > {MAX_CHARS}
         ORDER BY u.id"
    ))
}
