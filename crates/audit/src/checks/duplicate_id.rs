//! `content/duplicate-id`: HTML pages that give one id to several elements.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page where an `id` is on more than one element, with
    /// how many ids are, and the first in `related`.
    ///
    /// ## Why it matters
    /// An id names one element: links to `#id`, labels, ARIA references
    /// and scripts find the first and miss the others.
    ///
    /// ## Fix
    /// Make each id unique on the page.
    "content/duplicate-id", Notice, "HTML pages that give one id to several elements"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} > 0", q("$.duplicate_ids")), &format!("{} || ' id(s) given to more than one element'", q("$.duplicate_ids")), &q("$.duplicate_id_first"))
}
