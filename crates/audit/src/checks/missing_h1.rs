//! `content/missing-h1`: HTML pages without an `<h1>`.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page with no `<h1>` element (an empty one is
    /// `content/empty-h1`).
    ///
    /// ## Why it matters
    /// The main heading tells visitors, screen readers and search engines
    /// what the page is about; without one the page has no stated topic
    /// beyond its title.
    ///
    /// ## Fix
    /// Give each page one `<h1>` that names its subject.
    "content/missing-h1", Notice, "HTML pages without an <h1>"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'no <h1>', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.h1_count = 0
         ORDER BY u.id"
    ))
}
