//! `hreflang/to-non-canonical`: hreflang alternates whose page names
//! another URL as canonical.

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every hreflang link from a page to an HTML page that names another
    /// URL as its canonical, one finding per pair, at the page that lists
    /// it, with the target in `related`, every code it is listed under and
    /// the canonical it names. A target whose canonical is its own URL is
    /// not reported; a target that redirects or fails is
    /// `hreflang/not-200`'s.
    ///
    /// ## Why it matters
    /// Search engines keep the canonical and drop the other URL, and with
    /// it the annotation: hreflang must name the canonical version of each
    /// language.
    ///
    /// ## Fix
    /// List each language version by its canonical URL.
    "hreflang/to-non-canonical", Warning, "hreflang alternates whose page names another URL as canonical"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    pairs(
        cx,
        &format!("{HTML_PAGE} AND p.canonical IS NOT NULL AND p.canonical != t.url"),
        "'which names ' || p.canonical || ' as canonical'",
    )
}

/// One finding per hreflang pair whose target page `p` (URL `t`) meets
/// `condition`, at the page that lists it: `lists T as its "de" version,
/// ` and then `which` (SQL).
pub(crate) fn pairs(
    cx: &Context<'_>,
    condition: &str,
    which: &str,
) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT s.id, s.url, 'lists ' || t.url || ' as its ' ||
                group_concat('\"' || coalesce(l.anchor, '') || '\"', ', ') ||
                ' version, ' || {which}, t.url
         FROM head_links l JOIN urls s ON s.id = l.source_id JOIN urls t ON t.id = l.target_id
         JOIN pages p ON p.url_id = t.id
         WHERE l.kind = 'hreflang' AND {condition}
         GROUP BY s.id, t.id
         ORDER BY s.id, min(l.position)"
    ))
}
