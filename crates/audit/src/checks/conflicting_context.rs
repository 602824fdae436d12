//! `structured-data/conflicting-context`: pages whose JSON-LD items name
//! different vocabularies.

use super::page_quality::findings;
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose JSON-LD items' `@context`s name different
    /// vocabularies, with them. An item's context is the set of
    /// vocabularies it names (its strings and an object's `@vocab`);
    /// schema.org by any scheme, with `www.` or not, with a trailing `/`
    /// or not, or as its context file, is one vocabulary. Not reported:
    /// `http://schema.org` in one block and `https://schema.org/` in
    /// another; an array such as `["https://schema.org", {"@language":
    /// "en"}]`, which names schema.org alone; an item without a
    /// `@context`. Reported: `https://schema.org` beside
    /// `https://example.org/vocab`, and an item whose context adds a
    /// vocabulary to schema.org beside one that names schema.org alone.
    ///
    /// ## Why it matters
    /// A term means what its item's context says: the same `name` or
    /// `Product` read in two vocabularies is two different things, and
    /// search engines read schema.org terms only. Two contexts on one page
    /// are most often two plugins writing their own blocks.
    ///
    /// ## Fix
    /// Write every item against schema.org (`"@context":
    /// "https://schema.org"`), or merge the blocks into one `@graph`.
    "structured-data/conflicting-context", Notice, "pages whose JSON-LD items name different vocabularies"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(
        cx,
        "json_array_length(p.quality, '$.jsonld_contexts') > 1",
        "'JSON-LD contexts of ' || json_array_length(p.quality, '$.jsonld_contexts') ||
         ' vocabularies: ' || (SELECT group_concat(c.value, ', ')
                               FROM json_each(p.quality, '$.jsonld_contexts') c)",
        "NULL",
    )
}
