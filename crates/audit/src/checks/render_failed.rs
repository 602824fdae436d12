//! `render/failed`: pages the browser could not render in time.

use super::render_facts::findings;
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page rendered with `crawl --render` whose render failed (the
    /// browser could not open or read it) or ran out of time (its network
    /// was not idle within the page's budget, `--render-budget`), with
    /// why. A page that timed out was read as it was then, and the other
    /// render checks judge that.
    ///
    /// ## Why it matters
    /// A renderer gives up on pages the same way: what a slow script
    /// writes may never be seen.
    ///
    /// ## Fix
    /// Make the page render without long or endless requests (polling,
    /// long-lived connections), or render it on the server.
    "render/failed", Warning, "pages that could not be rendered, or not in time"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(
        cx,
        "r.outcome IN ('failed', 'timeout')",
        "CASE r.outcome WHEN 'timeout' THEN 'timed out' ELSE 'failed' END || ': ' || coalesce(r.error, 'no reason given')",
        "NULL",
    )
}
