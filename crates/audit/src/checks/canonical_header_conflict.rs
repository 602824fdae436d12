//! `canonical/header-conflict`: an HTML canonical and a `Link` header
//! canonical that disagree.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose `<link rel="canonical">` and canonical `Link`
    /// header name different URLs (both resolved and normalised).
    ///
    /// ## Why it matters
    /// Two canonicals that disagree cancel each other: search engines
    /// ignore both and choose for themselves. The header usually comes
    /// from the server or a CDN rule, the element from the page's
    /// template, and one of them is stale.
    ///
    /// ## Fix
    /// Give one canonical, in the element or in the header, or make both
    /// name the same URL.
    "canonical/header-conflict", Warning, "HTML and Link header canonicals that name different URLs"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, '<link rel=\"canonical\"> names ' || p.canonical ||
                ', the Link header ' || p.canonical_header,
                p.canonical || char(10) || p.canonical_header
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.canonical_count > 0 AND p.canonical_header IS NOT NULL
           AND p.canonical IS NOT NULL AND p.canonical != p.canonical_header
         ORDER BY u.id"
    ))
}
