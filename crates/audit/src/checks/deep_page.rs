//! `structure/deep-page`: pages more clicks from the start than the limit.

use rusqlite::params;

use crate::{Context, Finding, INSTANT_REFRESH_PAGE};

declare_check! {
    /// ## What it finds
    /// Every page that answered `200` and lies more than the limit
    /// (`--max-depth`, 5 by default) clicks from the start URL: its depth
    /// as the crawl met it (breadth first, so the fewest links; a
    /// sitemap's URL counts as one click, a redirect's target as its
    /// source), with the links that lead to it.
    ///
    /// ## Why it matters
    /// Visitors rarely click that far, and robots crawl deep pages less
    /// often, or stop before them: the site's structure says the page
    /// matters little.
    ///
    /// ## Fix
    /// Link to the page from higher up (a category page, a hub, the
    /// navigation), or shorten paginated series.
    "structure/deep-page", Notice, "pages more clicks from the start URL than the limit"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let mut st = cx.conn.prepare(&format!(
        "SELECT u.id, u.url, u.depth FROM urls u JOIN pages p ON p.url_id = u.id
         WHERE p.status = 200 AND NOT {INSTANT_REFRESH_PAGE} AND u.depth > ?1 ORDER BY u.id"
    ))?;
    let rows = st
        .query_map(params![cx.max_depth], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, u32>(2)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(id, url, depth)| {
            let message = format!("{depth} clicks from the start URL (limit {})", cx.max_depth);
            cx.linked_finding(id, url, message)
        })
        .collect()
}
