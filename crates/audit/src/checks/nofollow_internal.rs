//! `robots/nofollow-internal`: the site's own pages linked `nofollow`.

use crate::{
    Context, Finding, Interner, LINK_KINDS, LinkSource, MAX_LINKS, OWN_TARGET, SITE_LINK, link_kind,
};

declare_check! {
    /// ## What it finds
    /// Every page of the site that some of the site's own links mark
    /// `rel="nofollow"` (or `ugc`, `sponsored`), one finding per target:
    /// the message counts the pages that hold such links and the links,
    /// `links` lists those links only (page and anchor text, the first
    /// 100; `link_count` counts them all), not the target's other links.
    /// Targets the crawl left out of its scope (other sites) are not the
    /// site's own, nor are URLs on an origin the crawl fetched no page
    /// from (a link to another site marked `nofollow` is not followed, so
    /// it was never judged against the scope).
    ///
    /// A page that says `nofollow` for all its links (`<meta
    /// name="robots">` or `X-Robots-Tag`) is counted once, as a page: one
    /// finding at that page, with how many of its links lead to the
    /// site's own pages. Its links are not counted again, link by link,
    /// at their targets, whatever their own `rel`.
    ///
    /// Measured: on the planted site of the audit's tests (a target linked
    /// `nofollow` from two pages, one of them twice, beside an ordinary
    /// link; a page with `<meta name="robots" content="nofollow">` whose
    /// links also say `rel="nofollow"`; as near misses a `nofollow` link
    /// to another site and a page whose meta says only `noindex`),
    /// precision and recall 1.0.
    ///
    /// ## Why it matters
    /// `nofollow` on internal links does not keep a page out of search
    /// results; it only stops the link from passing signals, so the
    /// site weakens its own pages. It is often a leftover of "PageRank
    /// sculpting", which search engines stopped honouring long ago.
    ///
    /// ## Fix
    /// Remove `rel="nofollow"` from links to the site's own pages, and
    /// `nofollow` from the robots `<meta>` of pages whose links should
    /// count; keep a page out of the index with `noindex`, or out of the
    /// crawl with robots.txt.
    "robots/nofollow-internal", Notice, "the site's own pages linked with rel=\"nofollow\", and pages that say nofollow for all their links"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    // Pages that say nofollow for every link: one finding each. The pages
    // first, then their links by the links' key (`CROSS JOIN` keeps that
    // order): a site has few such pages and millions of links.
    let pages = cx.findings(&format!(
        "SELECT u.id, u.url, 'says nofollow for all its links (' || p.nofollow || '): ' ||
                count(*) || ' link(s) to ' || count(DISTINCT l.target_id) ||
                ' page(s) of the site', NULL
         FROM pages p CROSS JOIN links l ON l.source_id = p.url_id
         JOIN urls u ON u.id = p.url_id JOIN urls t ON t.id = l.target_id
         WHERE p.nofollow IS NOT NULL AND {SITE_LINK} AND {OWN_TARGET}
         GROUP BY u.id ORDER BY u.id"
    ))?;
    // Links marked nofollow on pages that do not say it for all: one
    // finding per target, with those links only. The links table is read
    // straight through for the few marked links (in the order of the
    // in-link index, every link would cost a lookup), then sorted.
    let rows = cx.rows(
        &format!(
            "WITH marked AS MATERIALIZED (
                 SELECT source_id, position, target_id, kind, anchor, rel FROM links NOT INDEXED
                 WHERE rel IS NOT NULL AND kind IN {LINK_KINDS} AND same_page = 0
                   AND target_id IS NOT NULL)
             SELECT l.target_id, t.url, s.url, l.source_id, l.kind, l.anchor, l.rel
             FROM marked l JOIN urls t ON t.id = l.target_id JOIN urls s ON s.id = l.source_id
             LEFT JOIN pages sp ON sp.url_id = l.source_id
             WHERE {OWN_TARGET} AND sp.nofollow IS NULL
             ORDER BY l.target_id, l.source_id, l.position"
        ),
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, String>(6)?,
            ))
        },
    )?;
    let mut targets: Vec<(Finding, Vec<i64>, Vec<String>)> = Vec::new();
    let mut last = None;
    let mut strings = Interner::default();
    for (target, url, source, source_id, kind, anchor, rel) in rows {
        if last != Some(target) {
            last = Some(target);
            targets.push((Finding::new(url, String::new()), Vec::new(), Vec::new()));
        }
        let Some((f, sources, rels)) = targets.last_mut() else {
            continue;
        };
        f.link_count += 1;
        if sources.last() != Some(&source_id) {
            sources.push(source_id);
        }
        let rel = format!("rel=\"{rel}\"");
        if !rels.contains(&rel) {
            rels.push(rel);
        }
        if f.links.len() < MAX_LINKS {
            f.links.push(LinkSource {
                source: strings.get(&source),
                kind: link_kind(&kind)?,
                anchor: anchor.map(|a| strings.get(&a)),
            });
        }
    }
    let mut out = pages;
    out.extend(targets.into_iter().map(|(mut f, sources, rels)| {
        f.message = format!(
            "linked with {} from {} page(s) of the site ({} link(s))",
            rels.join(", "),
            sources.len(),
            f.link_count
        );
        f
    }));
    Ok(out)
}
