//! `canonical/chain`: canonicals that name a page whose canonical is yet
//! another URL.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page A whose canonical names a page B that the crawl fetched
    /// and whose own canonical names a third URL C (A → B → C), with B and
    /// C.
    ///
    /// ## Why it matters
    /// Search engines do not follow canonicals from page to page
    /// reliably: a chain may stop at B, which itself says it is not the
    /// original, and the signals of A are lost or land on the wrong page.
    ///
    /// ## Fix
    /// Make every page of the chain name the final URL directly.
    "canonical/chain", Warning, "canonicals that name a page whose own canonical is another URL"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(
        "SELECT u.id, u.url, 'its canonical ' || p.canonical || ' names another canonical, ' ||
                t.canonical, p.canonical || char(10) || t.canonical
         FROM pages p JOIN urls u ON u.id = p.url_id
         JOIN urls c ON c.url = p.canonical JOIN pages t ON t.url_id = c.id
         WHERE p.canonical != u.url AND t.canonical IS NOT NULL AND t.canonical != c.url
         ORDER BY u.id",
    )
}
