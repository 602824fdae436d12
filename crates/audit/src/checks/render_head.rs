//! `render/head-changed`: a title, description or `<h1>` that a script
//! writes or changes.

use super::render_facts::{f, findings, head_differs, quoted};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page rendered with `crawl --render` whose title, first meta
    /// description or first `<h1>` differs between the raw HTML and the
    /// rendered page, each difference named with both texts.
    ///
    /// ## Why it matters
    /// Robots that run no JavaScript show and rank the page by the raw
    /// texts, a renderer by the rendered ones: search results and AI
    /// answers describe the page differently.
    ///
    /// ## Fix
    /// Send the title, description and heading meant in the HTML.
    "render/head-changed", Notice, "pages whose title, description or h1 a script changes"
}

/// SQL of the part of the message about the field at `key`, or `NULL`
/// when it is the same.
fn part(key: &str, name: &str) -> String {
    let (raw, ren) = (format!("$.raw.{key}"), format!("$.rendered.{key}"));
    format!(
        "CASE WHEN coalesce({}, '') != coalesce({}, '') THEN '{name} ' || {} || ' → ' || {} END",
        f(&raw),
        f(&ren),
        quoted(&raw),
        quoted(&ren)
    )
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let parts = [
        part("title", "title"),
        part("description", "description"),
        part("h1", "h1"),
    ];
    // concat_ws leaves out NULLs: only what changed is named.
    let message = format!("concat_ws('; ', {})", parts.join(", "));
    findings(cx, &head_differs(), &message, "NULL")
}
