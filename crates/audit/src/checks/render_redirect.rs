//! `render/js-redirect`: pages that send themselves elsewhere by script.

use super::render_facts::findings;
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page rendered with `crawl --render` that moved itself to
    /// another document while it was rendered (`location` set or
    /// replaced, a refresh made in time), with where to. A change of the
    /// address by `history.pushState` or of its fragment is no move.
    ///
    /// ## Why it matters
    /// Robots that run no JavaScript stay on the page and never learn of
    /// the move; a renderer follows it late, and reads it as a weaker
    /// signal than an HTTP redirect.
    ///
    /// ## Fix
    /// Redirect with HTTP (`301` for a permanent move).
    "render/js-redirect", Warning, "pages that send themselves elsewhere by script"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(
        cx,
        "r.final_url IS NOT NULL",
        "'moves by script to ' || r.final_url",
        "r.final_url",
    )
}
