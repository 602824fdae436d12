//! `render/blocked-resources`: pages whose scripts, styles or data
//! robots.txt disallows.

use crate::{Context, Finding};

/// What a page's render needs: a blocked one of these renders the page
/// differently.
const NEEDED: &str = "('Script', 'Stylesheet', 'XHR', 'Fetch', 'Document', 'EventSource')";

declare_check! {
    /// ## What it finds
    /// Every page rendered with `crawl --render` for which the browser
    /// asked for a script, a style sheet, data (`XHR`, `fetch`, an event
    /// source) or a frame that robots.txt disallows for the crawler, with
    /// how many and, in `related`, each with its rule. Images, fonts and
    /// media blocked are left out: they do not change what the page
    /// says.
    ///
    /// ## Why it matters
    /// A renderer obeys robots.txt for every resource: the page renders
    /// without them, often without its content or links (Google's
    /// classic "blocked resources"). What the page would be with them
    /// cannot be known without fetching what robots.txt forbids, which
    /// the crawl does not do.
    ///
    /// ## Fix
    /// Allow the resources pages need (`Allow: /assets/`), or stop using
    /// them.
    "render/blocked-resources", Warning, "pages whose scripts, styles or data robots.txt disallows"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url,
                count(*) || ' resource(s) the page needs disallowed by robots.txt: the page renders without them',
                group_concat(q.kind || ' ' || q.url || ' (' || coalesce(q.detail, 'disallowed') || ')', char(10))
         FROM render_requests q JOIN urls u ON u.id = q.url_id
         WHERE q.outcome = 'blocked' AND q.kind IN {NEEDED}
         GROUP BY u.id ORDER BY u.id"
    ))
}
