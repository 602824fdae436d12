//! `content/thin`: indexable HTML pages with fewer than 200 words.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page that may be indexed (no `noindex`, no canonical
    /// naming another URL) with fewer than 200 words of visible text
    /// (what the SimHash reads: the text between the markup, not
    /// scripts, styles, the title or attributes; a word is split at every
    /// tag, and `&lt;` is the word `lt`).
    ///
    /// ## Why it matters
    /// A page with little text has little to rank for, and many thin
    /// pages make a site look like a shell of templates; search engines
    /// may leave them out of the index.
    ///
    /// ## Fix
    /// Give the page the content it exists for, merge it with a related
    /// page, or keep it out of the index with `noindex`.
    "content/thin", Notice, "indexable HTML pages with fewer than 200 words"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} < 200 AND p.noindex IS NULL AND NOT {}", q("$.words"), crate::CANONICAL_ELSEWHERE), &format!("{} || ' words of text (fewer than 200)'", q("$.words")), "NULL")
}
