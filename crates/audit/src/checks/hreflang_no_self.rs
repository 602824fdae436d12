//! `hreflang/no-self`: pages with hreflang alternates that do not list
//! themselves.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page with hreflang alternates (`<link rel="alternate"
    /// hreflang>`) none of which names the page itself, with the
    /// alternates it lists in `related`.
    ///
    /// ## Why it matters
    /// Each language version must list every version, itself included:
    /// the self link says which language the page is. Without it search
    /// engines may ignore the page's set.
    ///
    /// ## Fix
    /// Add the page's own URL to its alternates, with its language.
    "hreflang/no-self", Warning, "pages whose hreflang alternates do not include the page itself"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(
        "SELECT s.id, s.url, count(*) || ' hreflang alternate(s), none of them the page itself',

                (SELECT group_concat(url, char(10)) FROM
                    (SELECT DISTINCT a.url FROM head_links h JOIN urls a ON a.id = h.target_id
                     WHERE h.source_id = s.id AND h.kind = 'hreflang' ORDER BY h.position))
         FROM head_links l JOIN urls s ON s.id = l.source_id
         WHERE l.kind = 'hreflang'
         GROUP BY s.id
         HAVING sum(coalesce(l.target_id = l.source_id, 0)) = 0
         ORDER BY s.id",
    )
}
