//! `content/multiple-title`: HTML pages with more than one `<title>`.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with more than one `<title>` element of its own
    /// (an SVG's `<title>` is the drawing's, and not counted).
    ///
    /// ## Why it matters
    /// Browsers and search engines take the first; the others are a
    /// template's mistake, and may be the title meant.
    ///
    /// ## Fix
    /// Keep one `<title>`, in the head.
    "content/multiple-title", Warning, "HTML pages with more than one <title>"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} > 1", q("$.titles")), &format!("{} || ' <title> elements'", q("$.titles")), "NULL")
}
