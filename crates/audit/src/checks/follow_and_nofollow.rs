//! `links/follow-and-nofollow`: a page that links one page of the site
//! both with and without `nofollow`.

use crate::{Context, Finding, LINK_KINDS, OWN_TARGET};

declare_check! {
    /// ## What it finds
    /// Every page that links to a page of the site both with
    /// `rel="nofollow"` and without it (`<a>`, `<area>`, frames), with the
    /// targets so linked. Pages that say `nofollow` for all their links
    /// are left out (`robots/nofollow-internal` reports them).
    ///
    /// ## Why it matters
    /// The page says two things about one target: search engines follow
    /// the followed link anyway, so the `nofollow` achieves nothing but
    /// confusion, or the followed one was not meant.
    ///
    /// ## Fix
    /// Decide whether the target should be followed, and mark every link
    /// to it on the page the same way.
    "links/follow-and-nofollow", Notice, "pages that link one page of the site both with and without nofollow"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    // The few nofollow links first, the table read straight through in
    // its key's order (left to itself, SQLite walks the target index
    // instead, a row lookup per link), then a followed link of the same
    // pair looked up by its source.
    cx.findings(&format!(
        "WITH marked AS MATERIALIZED (
             SELECT source_id, target_id FROM links
             WHERE rel IS NOT NULL AND instr(rel, 'nofollow') > 0
               AND kind IN {LINK_KINDS} AND same_page = 0 AND +target_id IS NOT NULL
             ORDER BY source_id, position),
         both AS (
             SELECT DISTINCT m.source_id, m.target_id
             FROM marked m JOIN urls t ON t.id = m.target_id
             WHERE {OWN_TARGET}
               AND EXISTS (SELECT 1 FROM links l WHERE l.source_id = m.source_id
                           AND l.target_id = m.target_id AND l.kind IN {LINK_KINDS}
                           AND (l.rel IS NULL OR instr(l.rel, 'nofollow') = 0)))
         SELECT u.id, u.url,
                count(*) || ' page(s) of the site linked both with and without nofollow',
                group_concat(t.url, char(10))
         FROM both b JOIN urls u ON u.id = b.source_id JOIN urls t ON t.id = b.target_id
         JOIN pages p ON p.url_id = u.id
         WHERE p.nofollow IS NULL
         GROUP BY u.id ORDER BY u.id"
    ))
}
