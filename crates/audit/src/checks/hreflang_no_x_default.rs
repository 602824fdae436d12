//! `hreflang/no-x-default`: hreflang sets without `x-default`.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page with hreflang alternates none of which is `x-default`,
    /// with the alternates it lists in `related`.
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
        "SELECT s.id, s.url, count(*) || ' hreflang alternate(s), none x-default',
                (SELECT group_concat(url, char(10)) FROM
                    (SELECT DISTINCT a.url FROM head_links h JOIN urls a ON a.id = h.target_id
                     WHERE h.source_id = s.id AND h.kind = 'hreflang' ORDER BY h.position))
         FROM head_links l JOIN urls s ON s.id = l.source_id
         WHERE l.kind = 'hreflang'
         GROUP BY s.id
         HAVING sum(lower(coalesce(l.anchor, '')) = 'x-default') = 0
         ORDER BY s.id",
    )
}
