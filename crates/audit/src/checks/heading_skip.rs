//! `content/heading-skip`: HTML pages whose headings skip a level.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page where a heading comes more than one level below
    /// the one before it (`<h2>` then `<h4>`), with the first such step.
    /// Going back up (`<h4>` then `<h2>`) is fine; the first heading may
    /// be of any level.
    ///
    /// ## Why it matters
    /// Screen-reader users move by headings, and a skipped level reads as
    /// a missing section; the outline search engines read is broken too.
    ///
    /// ## Fix
    /// Use the next level down (`<h3>` after `<h2>`), and style headings
    /// with CSS rather than picking them by size.
    "content/heading-skip", Notice, "HTML pages whose headings skip a level"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} IS NOT NULL", q("$.heading_skip")), &format!("'a heading skips a level: ' || {}", q("$.heading_skip")), "NULL")
}
