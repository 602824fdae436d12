//! `render/links-only-rendered`: pages with links only scripts write.

use super::render_facts::{f, findings, links_only_rendered};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page rendered with `crawl --render` whose rendered page links
    /// to URLs (`<a>`, `<area>`, frames) that no link of its raw HTML
    /// leads to, with how many and, in `related`, the targets (crawled,
    /// found by `render`).
    ///
    /// ## Why it matters
    /// Robots that run no JavaScript never find those URLs through this
    /// page; a renderer finds them late. Pages reached only so may go
    /// unseen by AI crawlers altogether.
    ///
    /// ## Fix
    /// Write the links into the HTML the server sends (`<a href>`), and
    /// list the pages in a sitemap.
    "render/links-only-rendered", Warning, "pages with links that only scripts write"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let n = f("$.rendered_only_links");
    findings(
        cx,
        &links_only_rendered(),
        &format!("{n} || ' link(s) only in the rendered page: robots that run no script do not follow them'"),
        "(SELECT group_concat(t.url, char(10)) FROM (SELECT DISTINCT t.url FROM links l
           JOIN urls t ON t.id = l.target_id
           WHERE l.source_id = u.id AND l.position >= r.links_from AND l.kind IN ('a', 'area', 'iframe')
           ORDER BY l.position) t)",
    )
}
