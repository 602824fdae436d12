//! `hreflang/to-noindex`: hreflang alternates whose page says noindex.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every hreflang link from a page to a page that answered 200 and
    /// says `noindex` (in a robots `<meta>` or an `X-Robots-Tag` header),
    /// one finding per pair, at the page that lists it, with the target in
    /// `related` and every code it is listed under. A page that says
    /// noindex and lists itself is reported too. An alternate that is
    /// indexable is not.
    ///
    /// ## Why it matters
    /// A language version kept out of the index is shown to no one: the
    /// annotation names a page search engines will not serve, and the
    /// cluster loses that language.
    ///
    /// ## Fix
    /// Let the language version be indexed, or drop it from every page's
    /// alternates.
    "hreflang/to-noindex", Warning, "hreflang alternates whose page says noindex"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    super::hreflang_to_non_canonical::pairs(
        cx,
        "p.status = 200 AND p.noindex IS NOT NULL",
        "'which says noindex (' || p.noindex || ')'",
    )
}
