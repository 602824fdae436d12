//! `canonical/multiple`: pages with more than one `<link rel="canonical">`.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page with two or more `<link rel="canonical">` elements
    /// (whether or not they name the same URL). The crawl follows the
    /// first; the finding names the URL it took.
    ///
    /// ## Why it matters
    /// Google ignores every canonical of a page that gives more than one:
    /// the page is then treated as if it named none. Two canonicals often
    /// come from a theme and a plugin that both add one.
    ///
    /// ## Fix
    /// Keep one `<link rel="canonical">` in the `<head>`; remove the one
    /// the template or plugin adds.
    "canonical/multiple", Warning, "HTML pages with more than one <link rel=\"canonical\">"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, p.canonical_count || ' <link rel=\"canonical\"> elements; the first names '
                || coalesce(p.canonical, p.canonical_written), p.canonical
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.canonical_count > 1
         ORDER BY u.id"
    ))
}
