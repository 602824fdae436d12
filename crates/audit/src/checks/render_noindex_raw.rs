//! `render/noindex-raw-only`: a noindex that a script removes.

use super::render_facts::{f, findings};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page rendered with `crawl --render` whose raw HTML says
    /// `noindex` (robots meta tags for the crawler) and whose rendered
    /// page does not: a script removed or changed the tag.
    ///
    /// ## Why it matters
    /// The `noindex` of the raw HTML holds all the same: Google does not
    /// render a page whose HTML says `noindex`, and a renderer that does
    /// applies the union of both readings. The page is kept out of the
    /// index although its script means to let it in.
    ///
    /// ## Fix
    /// Leave the `noindex` out of the HTML the server sends when the page
    /// is to be indexed.
    "render/noindex-raw-only", Error, "pages whose noindex a script removes, in vain"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(
        cx,
        &format!("{} = 1 AND {} = 0", f("$.raw.noindex"), f("$.rendered.noindex")),
        "'noindex in the raw HTML, removed by script: the page stays out of the index'",
        "NULL",
    )
}
