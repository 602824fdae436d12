//! `sitemaps/not-canonical`: sitemap URLs whose page names another
//! canonical.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every URL a sitemap lists whose page names another URL as its
    /// canonical, with that URL.
    ///
    /// ## Why it matters
    /// A sitemap should list canonical URLs only: listing a variant asks
    /// search engines to index a page that itself says another is the
    /// original, and the mixed signals may make them choose the variant.
    ///
    /// ## Fix
    /// List the canonical URL instead of the variant.
    "sitemaps/not-canonical", Warning, "sitemap URLs whose page names another URL as canonical"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    super::listed::findings(
        cx,
        "p.canonical IS NOT NULL AND p.canonical != u.url",
        "'names ' || p.canonical || ' as canonical'",
    )
}
