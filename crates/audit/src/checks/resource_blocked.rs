//! `resources/blocked`: images, scripts and style sheets that robots.txt
//! keeps the crawler from (`crawl --resources`).

use super::resource_pages::{KIND_NAME, resource_findings};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every image, script and style sheet the crawled pages use that
    /// robots.txt disallows for the crawler (`crawl --resources`), read
    /// as the crawl reads it: the origin's robots.txt (another host's,
    /// such as a CDN's, fetched for it), RFC 9309, the crawler's token
    /// chain (or, on a verified site, `--as` and `--profile`: run the
    /// crawl as `--as Googlebot` to see what Googlebot may load). The
    /// finding names the rule and its line, or why the robots.txt could
    /// not be read (which disallows everything), and the pages that use
    /// the resource. A resource disallowed only for other robots is not
    /// reported.
    ///
    /// ## Why it matters
    /// Search engines render pages with their resources: a page whose
    /// style sheets or scripts they may not load is judged as they see it,
    /// unstyled or empty ("Googlebot cannot access CSS and JS files"); a
    /// disallowed image is not in image search.
    ///
    /// ## Fix
    /// Allow the resources' paths for the robots that render pages
    /// (`Allow: /assets/`), or serve them from a path that is allowed.
    "resources/blocked", Warning, "images, scripts and style sheets robots.txt disallows for the crawler"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    resource_findings(
        cx,
        "r.blocked IS NOT NULL",
        &format!("{KIND_NAME} || ' disallowed by robots.txt: ' || r.blocked"),
    )
}
