//! `sitemaps/blocked`: sitemap URLs that robots.txt disallows.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every URL a sitemap lists that robots.txt disallows (the reading the
    /// crawl obeyed), with the rule and its line. This is also where a
    /// `noindex` can never work: a robot that may not fetch the page never
    /// sees its `noindex`, and the URL can be indexed from the sitemap and
    /// links alone.
    ///
    /// ## Why it matters
    /// The sitemap asks for the URL to be crawled, robots.txt forbids it:
    /// search engines report the contradiction and may index the bare URL
    /// without its content.
    ///
    /// ## Fix
    /// Remove the URL from the sitemap, or allow it in robots.txt (and
    /// use `noindex` to keep it out of the index).
    "sitemaps/blocked", Warning, "sitemap URLs that robots.txt disallows"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    super::listed::findings(
        cx,
        "d.relaxed_allowed = 0",
        "'disallowed by ' || coalesce(d.relaxed_rule || ' (line ' || d.relaxed_line || ')',
                                      'robots.txt')",
    )
}
