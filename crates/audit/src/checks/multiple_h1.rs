//! `content/multiple-h1`: HTML pages with more than one `<h1>`.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page with two or more `<h1>` elements, with the first's
    /// text.
    ///
    /// ## Why it matters
    /// HTML allows several, but a page with one main heading has a clear
    /// outline: screen reader users jump to the `<h1>` to learn what the
    /// page is about, and several compete. Often a template makes the
    /// site's name an `<h1>` on every page.
    ///
    /// ## Fix
    /// Keep one `<h1>` for the page's subject; make the others `<h2>` or
    /// plain text.
    "content/multiple-h1", Notice, "HTML pages with more than one <h1>"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, p.h1_count || ' <h1> elements; the first: \"' || coalesce(p.h1, '') ||
                '\"', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.h1_count > 1
         ORDER BY u.id"
    ))
}
