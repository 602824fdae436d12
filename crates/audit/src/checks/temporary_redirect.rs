//! `links/temporary-redirect`: the site's URLs that redirect with `302`
//! or `307`.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every URL of the site (in the crawl's scope) that answered a
    /// temporary redirect, `302` or `307`, with its target. A crawl sees
    /// the redirect once: it cannot tell a move meant to last from a
    /// short one, so this is a notice to review, not an error.
    ///
    /// ## Why it matters
    /// A temporary redirect tells search engines to keep the old URL in
    /// the index and come back to it; for a page that has moved for good,
    /// the new URL takes longer to replace it, and the old one keeps being
    /// crawled.
    ///
    /// ## Fix
    /// For a permanent move, answer `301` (or `308`, which keeps the
    /// method); keep `302`/`307` for redirects that really are temporary
    /// (a login, a sale page).
    "links/temporary-redirect", Notice, "the site's URLs that redirect with 302 or 307 (temporary)"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.linked_findings(
        "SELECT u.id, u.url, 'redirects with ' || p.status || ' (temporary) to ' ||
                coalesce(p.location, 'no crawlable URL'), p.location
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE p.status IN (302, 307)
         ORDER BY u.id",
    )
}
