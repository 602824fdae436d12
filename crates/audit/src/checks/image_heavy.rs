//! `images/heavy`: images over 100 KiB (`crawl --resources`).

use super::resource_pages::resource_findings;
use crate::{Context, Finding};

/// Images larger than this many bytes are reported: 100 KiB.
pub(crate) const MAX_BYTES: u32 = 100 * 1024;

declare_check! {
    /// ## What it finds
    /// Every image (`<img src>`) the crawled pages use that answered
    /// `2xx` with more than 100 KiB (102,400 bytes), by its
    /// `Content-Length` or, when there is none, by the bytes a `GET` read
    /// (at most 1 MiB: a larger image is reported as larger than that),
    /// when the crawl asked the pages' resources (`crawl --resources`),
    /// with the pages that use it. 100 KiB is the threshold common site
    /// audits use: a photograph sized for the screen and compressed
    /// (WebP, AVIF, JPEG at a sensible quality) is well under it; an
    /// image over it is most often a camera's original or a PNG of a
    /// photograph. An image of 102,400 bytes exactly is not reported.
    ///
    /// ## Why it matters
    /// Images are most of what pages download: a heavy one slows the
    /// page (Largest Contentful Paint), costs visitors on metered
    /// connections, and spends the crawl of image search engines.
    ///
    /// ## Fix
    /// Resize the image to the size it is shown at, compress it, serve a
    /// modern format (`<picture>` with WebP or AVIF), and give `srcset`
    /// sizes for small screens.
    "images/heavy", Notice, "images over 100 KiB (Content-Length, or the bytes read)"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    resource_findings(
        cx,
        &format!(
            "r.kind = 'image' AND r.blocked IS NULL AND r.status BETWEEN 200 AND 299
             AND r.size > {MAX_BYTES}"
        ),
        &format!(
            "CASE WHEN r.size_capped THEN 'image larger than the ' || r.size || ' bytes read'
                  ELSE 'image of ' || r.size || ' bytes (limit {MAX_BYTES})' END"
        ),
    )
}
