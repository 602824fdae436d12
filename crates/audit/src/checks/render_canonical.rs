//! `render/canonical-changed`: a canonical that a script writes or
//! changes.

use super::render_facts::{canonical_differs, f, findings, quoted};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page rendered with `crawl --render` whose first canonical,
    /// resolved, differs between the raw HTML and the rendered page (one
    /// of the two may have none), with both.
    ///
    /// ## Why it matters
    /// Robots that run no JavaScript read the raw canonical; a renderer
    /// may take either. Google asks not to change the canonical with
    /// JavaScript: the signals contradict each other.
    ///
    /// ## Fix
    /// Send the canonical meant in the HTML, and leave it alone in
    /// scripts.
    "render/canonical-changed", Warning, "pages whose canonical a script writes or changes"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let ren = f("$.rendered.canonical");
    findings(
        cx,
        &canonical_differs(),
        &format!(
            "'canonical ' || {} || ' in the raw HTML, ' || {} || ' rendered'",
            quoted("$.raw.canonical"),
            quoted("$.rendered.canonical")
        ),
        &ren,
    )
}
