//! `indexing/noindex-linked`: pages that say `noindex` and that the site
//! links to.

use crate::{Context, Finding, SITE_LINK};

declare_check! {
    /// ## What it finds
    /// Every page that says `noindex` to the crawler (`<meta name="robots">`,
    /// a meta for one of its tokens, or `X-Robots-Tag`) and that the site's
    /// own pages link to (`<a>`, `<area>`, frames), with where the
    /// directive came from and every link that leads there.
    ///
    /// ## Why it matters
    /// The site sends visitors and robots to a page it asks search engines
    /// to leave out: either the `noindex` is a leftover (a staging
    /// template, a plugin) and the page is missing from search results, or
    /// the links spend the site's crawl on pages it does not want found.
    ///
    /// ## Fix
    /// Remove the `noindex` if the page should be found; otherwise link to
    /// it less (or not from navigation).
    "indexing/noindex-linked", Warning, "pages that say noindex and that the site links to"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT u.id, u.url, p.noindex FROM urls u JOIN pages p ON p.url_id = u.id
             WHERE p.noindex IS NOT NULL
               AND EXISTS (SELECT 1 FROM links l WHERE l.target_id = u.id AND {SITE_LINK})
             ORDER BY u.id"
        ),
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
    )?;
    rows.into_iter()
        .map(|(id, url, origin)| cx.linked_finding(id, url, format!("noindex in {origin}")))
        .collect()
}
