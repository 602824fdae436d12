//! `content/empty-h1`: a first `<h1>` with no text.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose first `<h1>` holds no text (white space, or
    /// only elements without text, such as an image whose `alt` is
    /// not read).
    ///
    /// ## Why it matters
    /// A heading without text names nothing: screen readers announce an
    /// empty heading and search engines learn nothing from it. A logo
    /// image wrapped in the `<h1>` is the usual cause.
    ///
    /// ## Fix
    /// Put the page's subject in the `<h1>` as text; keep the logo out of
    /// it.
    "content/empty-h1", Notice, "a first <h1> with no text"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'the first <h1> has no text', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.h1_count > 0 AND coalesce(p.h1, '') = ''
         ORDER BY u.id"
    ))
}
