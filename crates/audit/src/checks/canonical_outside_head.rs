//! `canonical/outside-head`: canonicals in the `<body>`.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page with a `<link rel="canonical">` after the end of
    /// its `<head>` (after `</head>` or a `<body>` start tag).
    ///
    /// ## Why it matters
    /// Search engines read a canonical only in the `<head>`: one in the
    /// body is ignored (anyone who may write into a page's body could
    /// otherwise move it elsewhere). A canonical often ends up there when
    /// an element that belongs in the body (an `<img>`, a `<div>`, text)
    /// appears early in the head and closes it.
    ///
    /// ## Fix
    /// Move the `<link rel="canonical">` into the `<head>`, before any
    /// element that does not belong there.
    "canonical/outside-head", Warning, "canonicals after the end of <head>, which search engines ignore"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, p.canonical_outside_head ||
                ' <link rel=\"canonical\"> after the end of <head>', p.canonical
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.canonical_outside_head > 0
         ORDER BY u.id"
    ))
}
