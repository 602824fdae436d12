//! `links/too-many`: HTML pages with more than 1,000 links.

use crate::{Context, Finding, HTML_PAGE, SITE_LINK};

/// The most links a page may have before it is reported.
pub(crate) const TOO_MANY: u32 = 1000;

declare_check! {
    /// ## What it finds
    /// Every HTML page with more than 1,000 links (`<a>`, `<area>`,
    /// frames; links to the page itself left out), to the site or
    /// elsewhere, with how many.
    ///
    /// ## Why it matters
    /// Search engines have no fixed limit, but a page's weight is shared
    /// among its links, and crawlers may not read them all; visitors
    /// cannot use a thousand links either. Such pages are usually
    /// generated indexes, tag clouds or mega-menus.
    ///
    /// ## Fix
    /// Split the page (pagination, categories), or trim the repeated
    /// navigation.
    "links/too-many", Notice, "HTML pages with more than 1,000 links"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, count(*) || ' links (more than {TOO_MANY})', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id JOIN links l ON l.source_id = u.id
         WHERE {HTML_PAGE} AND {SITE_LINK}
         GROUP BY u.id HAVING count(*) > {TOO_MANY}
         ORDER BY u.id"
    ))
}
