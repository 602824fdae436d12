//! `hreflang/no-x-default`: hreflang sets without `x-default`.

use crate::audit::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page with hreflang alternates none of which is `x-default`.
    ///
    /// ## Why it matters
    /// `x-default` names the page for searchers whose language none of the
    /// versions serves (often a language chooser, or the international
    /// version); without it search engines guess.
    ///
    /// ## Fix
    /// Add `<link rel="alternate" hreflang="x-default" href="…">` to every
    /// version, naming the same fallback page.
    "hreflang/no-x-default", Notice, "hreflang sets without an x-default"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(
        "SELECT s.id, s.url, count(*) || ' hreflang alternate(s), none x-default', NULL
         FROM head_links l JOIN urls s ON s.id = l.source_id
         WHERE l.kind = 'hreflang'
         GROUP BY s.id
         HAVING sum(lower(coalesce(l.anchor, '')) = 'x-default') = 0
         ORDER BY s.id",
    )
}
