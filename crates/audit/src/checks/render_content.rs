//! `render/content-only-rendered`: pages whose text is mostly written by
//! scripts.

use super::render_facts::{f, findings, text_only_rendered};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page rendered with `crawl --render` whose rendered page has
    /// at least twice the words of its raw HTML and at least 50 more
    /// (words as `content/thin` counts them), with both counts.
    ///
    /// ## Why it matters
    /// Robots that run no JavaScript read the raw HTML only: GPTBot,
    /// ClaudeBot, CCBot, PerplexityBot and most AI crawlers (see the
    /// audit's view per robot). To them the page is nearly empty, and
    /// a renderer such as Googlebot's reads it only later, when it has
    /// rendered it.
    ///
    /// ## Fix
    /// Render the content on the server (server-side rendering, static
    /// generation or prerendering), so that it is in the HTML the server
    /// sends.
    "render/content-only-rendered", Warning, "pages whose text is mostly written by scripts"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let (raw, ren) = (f("$.raw.words"), f("$.rendered.words"));
    findings(
        cx,
        &text_only_rendered(),
        &format!(
            "'raw HTML ' || {raw} || ' words, rendered ' || {ren} || ' words: robots that run no script read ' || {raw}"
        ),
        "NULL",
    )
}
