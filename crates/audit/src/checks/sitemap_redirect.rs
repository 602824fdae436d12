//! `sitemaps/redirect`: sitemap URLs that redirect.

use crate::{Context, Finding, REDIRECT};

declare_check! {
    /// ## What it finds
    /// Every URL a sitemap lists that answered a redirect (`301`, `302`,
    /// `303`, `307`, `308`) or refreshes at once (a meta refresh or
    /// `Refresh` header of at most one second, `links/refresh-redirect`),
    /// with its target and the sitemaps that list it.
    ///
    /// ## Why it matters
    /// A sitemap should list the URLs to index: a redirect is not one, and
    /// search engines trust a sitemap less when many of its URLs are not.
    ///
    /// ## Fix
    /// List the redirect's target instead, or regenerate the sitemap from
    /// the pages that answer `200`.
    "sitemaps/redirect", Warning, "sitemap URLs that redirect"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    super::listed::findings(
        cx,
        REDIRECT,
        "CASE WHEN p.status = 200 THEN 'refreshes at once' ELSE 'redirects (' || p.status || ')' END
         || ' to ' || coalesce(p.location, 'no crawlable URL')",
    )
}
