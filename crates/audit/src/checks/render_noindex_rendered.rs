//! `render/noindex-rendered-only`: a noindex that a script adds.

use super::render_facts::{f, findings};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page rendered with `crawl --render` whose robots meta tags
    /// (`robots` or a token of the crawler) say `noindex` in the rendered
    /// page and not in the raw HTML.
    ///
    /// ## Why it matters
    /// Robots that run no JavaScript never see the `noindex` and index
    /// the page. A renderer applies the union of both readings, but only
    /// once it has rendered the page.
    ///
    /// ## Fix
    /// Put the `noindex` in the HTML the server sends, or send it as an
    /// `X-Robots-Tag` header.
    "render/noindex-rendered-only", Warning, "pages that a script makes noindex"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(
        cx,
        &format!("{} = 0 AND {} = 1", f("$.raw.noindex"), f("$.rendered.noindex")),
        "'noindex only in the rendered page: robots that run no script index it'",
        "NULL",
    )
}
