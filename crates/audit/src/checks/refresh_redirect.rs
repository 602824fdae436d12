//! `links/refresh-redirect`: pages that redirect with a meta refresh or a
//! `Refresh` header.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every page that sends the visitor elsewhere with
    /// `<meta http-equiv="refresh" content="N; url=…">` or a `Refresh`
    /// header that names a URL, with its target. A refresh that only
    /// reloads the page (no URL) is not reported.
    ///
    /// ## Why it matters
    /// A refresh is a redirect the browser makes after loading the page:
    /// slower for visitors, a step back in the history that lands on the
    /// redirect again, and a weaker signal than an HTTP redirect for
    /// search engines (a delayed one is treated as temporary).
    ///
    /// ## Fix
    /// Redirect with HTTP: `301` for a permanent move.
    "links/refresh-redirect", Notice, "pages that redirect with a meta refresh or Refresh header"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.linked_findings(
        "SELECT u.id, u.url, 'refreshes to ' || p.refresh,
                (SELECT t.url FROM head_links l JOIN urls t ON t.id = l.target_id
                 WHERE l.source_id = u.id AND l.kind = 'refresh' LIMIT 1)
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE p.refresh IS NOT NULL
         ORDER BY u.id",
    )
}
