//! `canonical/missing`: HTML pages that name no canonical URL.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page with neither a `<link rel="canonical">` nor a
    /// canonical `Link` header.
    ///
    /// ## Why it matters
    /// Without a canonical, search engines choose the address to index
    /// themselves among the variants that reach the page (parameters,
    /// trailing slashes, `http` and `https`), and may choose another than
    /// the one meant. A page that names itself settles it.
    ///
    /// ## Fix
    /// Give every indexable page a `<link rel="canonical">` to its own
    /// absolute URL, or to the page it copies.
    "canonical/missing", Notice, "HTML pages that name no canonical URL"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'no <link rel=\"canonical\"> and no canonical Link header', NULL
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.canonical_count = 0 AND p.canonical_header IS NULL
         ORDER BY u.id"
    ))
}
