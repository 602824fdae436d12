//! `canonical/relative`: canonicals written as relative URLs.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page whose first `<link rel="canonical">` is written as
    /// a relative URL (`/page`, `page.html`, `//host/page`): anything but
    /// an absolute `http:` or `https:` URL.
    ///
    /// ## Why it matters
    /// A relative canonical is resolved against the address the page was
    /// fetched at, or its `<base href>`: on a copy of the page under
    /// another host or path (a staging site, a proxy, a mirror) it names
    /// the copy itself, and the canonical stops doing its work. Google
    /// asks for absolute URLs.
    ///
    /// ## Fix
    /// Write the canonical as an absolute URL with its scheme and host.
    "canonical/relative", Notice, "canonicals written as relative URLs"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, 'its canonical is written as the relative URL \"' ||
                p.canonical_written || '\"', p.canonical
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.canonical_written IS NOT NULL
           AND lower(substr(ltrim(p.canonical_written), 1, 7)) != 'http://'
           AND lower(substr(ltrim(p.canonical_written), 1, 8)) != 'https://'
         ORDER BY u.id"
    ))
}
