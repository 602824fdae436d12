//! `resources/broken`: images, scripts and style sheets that answered an
//! error or nothing (`crawl --resources`).

use super::resource_pages::{KIND_NAME, resource_findings};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every image (`<img src>`), script (`<script src>`) and style sheet
    /// (`<link rel=stylesheet href>`) that the crawled pages use and that
    /// answered `4xx` or `5xx`, or nothing (a refused connection, a name
    /// that does not resolve, a timeout), when the crawl asked them
    /// (`crawl --resources`: `HEAD`, then `GET` when the `HEAD` is
    /// refused; redirects not followed and not counted), with the pages
    /// that use it. A resource robots.txt keeps the crawler from is not
    /// asked and not reported here (`resources/blocked`). Without
    /// `--resources` nothing is known of them and nothing is reported.
    ///
    /// ## Why it matters
    /// A missing style sheet or script breaks how the page looks and
    /// works, for visitors and for the renderers of search engines; a
    /// missing image shows a broken icon and is lost to image search.
    ///
    /// ## Fix
    /// Point the pages to the resource's address, restore the file, or
    /// remove the reference.
    "resources/broken", Warning, "images, scripts and style sheets that answered 4xx, 5xx or nothing"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    resource_findings(
        cx,
        "r.blocked IS NULL AND (r.status >= 400 OR r.status IS NULL)",
        &format!(
            "{KIND_NAME} || CASE WHEN r.status IS NOT NULL
                 THEN ' answered ' || r.status || ' to ' || r.method
                 ELSE ' had no answer to ' || coalesce(r.method, 'HEAD')
                      || coalesce(' (' || r.error || ')', '') END"
        ),
    )
}
