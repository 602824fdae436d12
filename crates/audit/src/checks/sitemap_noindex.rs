//! `sitemaps/noindex`: sitemap URLs that say `noindex`.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every URL a sitemap lists whose page says `noindex` to the crawler
    /// (a robots `<meta>` or `X-Robots-Tag`), with where the directive came
    /// from.
    ///
    /// ## Why it matters
    /// The sitemap asks for the page to be indexed, the page refuses: one
    /// of the two is wrong, and search engines report the contradiction.
    ///
    /// ## Fix
    /// Remove the URL from the sitemap, or the `noindex` from the page.
    "sitemaps/noindex", Warning, "sitemap URLs whose page says noindex"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    super::listed::findings(
        cx,
        "p.noindex IS NOT NULL",
        "'says noindex (' || p.noindex || ')'",
    )
}
