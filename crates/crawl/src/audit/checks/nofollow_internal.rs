//! `robots/nofollow-internal`: links to the site's own pages marked
//! `nofollow`.

use crate::audit::{Context, Finding, SITE_LINK};

declare_check! {
    /// ## What it finds
    /// Every page of the site that some of the site's own links mark
    /// `rel="nofollow"` (or `ugc`, `sponsored`), one finding per target
    /// with those links (page and anchor text). Targets the crawl left
    /// out of its scope (other sites) are not the site's own. Pages that
    /// say `nofollow` for all their links are not counted link by link.
    ///
    /// ## Why it matters
    /// `nofollow` on internal links does not keep a page out of search
    /// results; it only stops the link from passing signals, so the
    /// site weakens its own pages. It is often a leftover of "PageRank
    /// sculpting", which search engines stopped honouring long ago.
    ///
    /// ## Fix
    /// Remove `rel="nofollow"` from links to the site's own pages; keep a
    /// page out of the index with `noindex`, or out of the crawl with
    /// robots.txt.
    "robots/nofollow-internal", Notice, "the site's own pages linked with rel=\"nofollow\""
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.linked_findings(&format!(
        "SELECT t.id, t.url, count(*) || ' link(s) of the site mark it ' ||
                group_concat(DISTINCT 'rel=\"' || l.rel || '\"'), NULL
         FROM links l JOIN urls t ON t.id = l.target_id
         WHERE {SITE_LINK} AND l.rel IS NOT NULL
           AND coalesce(t.skip_reason, '') != 'scope'
         GROUP BY t.id ORDER BY t.id"
    ))
}
