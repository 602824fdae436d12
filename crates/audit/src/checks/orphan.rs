//! `structure/orphan`: pages that sitemaps or canonicals name and no link
//! of the site leads to.

use crate::{Context, Finding, HEAD_LINKS, HTML_PAGE, SITE_LINK};

declare_check! {
    /// ## What it finds
    /// Every HTML page that a sitemap lists or another page names as its
    /// canonical, and that no link of another page of the site (`<a>`,
    /// `<area>`, frames) leads to. Pages that say `noindex` are left out
    /// (they are not meant to be found). What the crawl did not reach is
    /// not known: a page linked only from a part of the site the crawl
    /// skipped (robots.txt, scope, limits) would be reported too. What
    /// names the page is in `related`: the sitemaps that list it, else the
    /// pages that name it canonical (the first ten).
    ///
    /// ## Why it matters
    /// A page that only a sitemap names gets no signals from the site's
    /// own links: search engines find it but rank it low, and visitors
    /// cannot reach it at all. It is often a page left behind by a
    /// redesign, or one the navigation forgot.
    ///
    /// ## Fix
    /// Link to it from a page where it belongs, or, if it is obsolete,
    /// remove it (and its sitemap entry) or redirect it.
    "structure/orphan", Warning, "pages in sitemaps or named as canonical that no link of the site leads to"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "WITH named AS (
             SELECT url_id AS id FROM sitemap_entries
             UNION SELECT target_id FROM {HEAD_LINKS}
             WHERE kind = 'canonical' AND target_id IS NOT NULL AND target_id != source_id)
         SELECT u.id, u.url,
                'no link of the site leads here; named by ' ||
                CASE WHEN EXISTS (SELECT 1 FROM sitemap_entries s WHERE s.url_id = u.id)
                     THEN 'a sitemap' ELSE 'a canonical' END,
                coalesce(
                    (SELECT group_concat(sitemap, char(10)) FROM
                        (SELECT DISTINCT sitemap FROM sitemap_entries s WHERE s.url_id = u.id)),
                    (SELECT group_concat(url, char(10)) FROM
                        (SELECT DISTINCT c.url FROM {HEAD_LINKS} h JOIN urls c ON c.id = h.source_id
                         WHERE h.target_id = u.id AND h.kind = 'canonical' AND h.source_id != u.id
                         ORDER BY h.source_id LIMIT 10)))
         FROM named n JOIN urls u ON u.id = n.id JOIN pages p ON p.url_id = u.id
         WHERE {HTML_PAGE} AND p.noindex IS NULL
           AND NOT EXISTS (SELECT 1 FROM links l WHERE l.target_id = u.id
                           AND {SITE_LINK} AND l.source_id != u.id)
         ORDER BY u.id"
    ))
}
