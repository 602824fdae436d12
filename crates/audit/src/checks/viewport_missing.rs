//! `content/viewport-missing`: HTML pages without a viewport `<meta>`.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with no `<meta name="viewport">`.
    ///
    /// ## Why it matters
    /// Phones then lay the page out for a desktop screen and shrink it;
    /// search engines judge mobile pages by how they render there.
    ///
    /// ## Fix
    /// Add `<meta name="viewport" content="width=device-width,
    /// initial-scale=1">` to the head (with a layout that fits).
    "content/viewport-missing", Notice, "HTML pages without a viewport <meta>"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} = 0", q("$.viewport")), "'no <meta name=\"viewport\">'", "NULL")
}
