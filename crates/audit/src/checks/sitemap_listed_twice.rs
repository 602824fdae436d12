//! `sitemaps/listed-twice`: URLs that several sitemaps list.

use super::listed;
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every URL that more than one sitemap lists, with the sitemaps.
    ///
    /// ## Why it matters
    /// Search engines read each entry; when the entries disagree
    /// (`lastmod`, priority), which one counts is not said, and a URL in
    /// several files usually means two generators, one of them stale.
    ///
    /// ## Fix
    /// List each URL in one sitemap.
    "sitemaps/listed-twice", Notice, "URLs that more than one sitemap lists"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    listed::findings(
        cx,
        "(SELECT count(DISTINCT sitemap) FROM sitemap_entries s WHERE s.url_id = u.id) > 1",
        "'in more than one sitemap'",
    )
}
