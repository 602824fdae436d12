//! `structured-data/invalid-json-ld`: JSON-LD blocks that are not JSON.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with a `<script type="application/ld+json">` block
    /// that is not JSON, with why (the first such block, its number, and
    /// the line and column within it).
    ///
    /// ## Why it matters
    /// Search engines drop a block they cannot parse, and with it every
    /// rich result it would earn; a trailing comma or a stray quote is
    /// enough.
    ///
    /// ## Fix
    /// Fix the JSON (a validator names the place), or generate it with a
    /// JSON encoder rather than by concatenating text.
    "structured-data/invalid-json-ld", Warning, "JSON-LD blocks that are not JSON"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} IS NOT NULL", q("$.jsonld_error")), &format!("'JSON-LD that does not parse: ' || {}", q("$.jsonld_error")), "NULL")
}
