//! `links/dead-end`: HTML pages with no link to another page of the site.

use crate::{Context, Finding, HTML_PAGE, LINK_KINDS, OWN_TARGET, SITE_LINK};

declare_check! {
    /// ## What it finds
    /// Every HTML page that answered `200` and has no link (`<a>`,
    /// `<area>`, a frame) to another page of the site: none at all, or
    /// only to other sites, to itself (`#top`), or with hrefs that lead
    /// nowhere. The message says how many links of any kind it has.
    ///
    /// ## Why it matters
    /// A visitor who lands on it (from a search, a share) can only go
    /// back; a crawler that reaches it learns nothing more of the site
    /// from it, and the page passes no weight on.
    ///
    /// ## Fix
    /// Give it the site's navigation, or links to related pages.
    "links/dead-end", Notice, "HTML pages with no link to another page of the site"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url,
                'no link to another page of the site (' ||
                (SELECT count(*) FROM links l WHERE l.source_id = u.id AND l.kind IN {LINK_KINDS})
                || ' link(s) in all)', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE}
           AND NOT EXISTS (SELECT 1 FROM links l JOIN urls t ON t.id = l.target_id
                           WHERE l.source_id = u.id AND {SITE_LINK} AND {OWN_TARGET})
         ORDER BY u.id"
    ))
}
