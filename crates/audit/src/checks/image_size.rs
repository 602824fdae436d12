//! `images/missing-size`: HTML pages with images that lack width or height.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with `<img>` elements that lack a `width` or a
    /// `height` attribute, with how many, and the first one's `src` in
    /// `related`.
    ///
    /// ## Why it matters
    /// Without both, the browser does not know the image's space until
    /// it loads, and the page jumps as images arrive (Cumulative Layout
    /// Shift, a Core Web Vital).
    ///
    /// ## Fix
    /// Give every image its `width` and `height` (CSS can still scale
    /// it; the ratio is what counts).
    "images/missing-size", Notice, "HTML pages with images that lack width or height"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} > 0", q("$.images_no_size")), &format!("{} || ' of ' || {} || ' image(s) without both width and height'", q("$.images_no_size"), q("$.images")), &q("$.images_no_size_first"))
}
