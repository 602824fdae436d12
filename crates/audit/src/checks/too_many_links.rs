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
    // The links counted in the order of their key (a page's links come
    // together), then the few pages over the limit joined.
    cx.findings(&format!(
        "WITH many AS MATERIALIZED (
             SELECT l.source_id AS id, count(*) AS n FROM links l
             WHERE {SITE_LINK}
             GROUP BY l.source_id HAVING count(*) > {TOO_MANY})
         SELECT u.id, u.url, m.n || ' links (more than {TOO_MANY})', NULL
         FROM many m JOIN urls u ON u.id = m.id JOIN pages p ON p.url_id = u.id
         WHERE {HTML_PAGE}
         ORDER BY u.id"
    ))
}
