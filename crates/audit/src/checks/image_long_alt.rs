//! `images/long-alt`: HTML pages with images whose alt text is over 100 characters.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with `<img>` elements whose `alt`, trimmed, is
    /// longer than 100 characters, with how many, and the first one's
    /// `src` in `related`.
    ///
    /// ## Why it matters
    /// Screen readers read it all, without a way to skip; a long `alt` is
    /// often keyword stuffing, or a caption in the wrong place.
    ///
    /// ## Fix
    /// Keep `alt` to what the image shows; put longer text in a caption
    /// or the page.
    "images/long-alt", Notice, "HTML pages with images whose alt text is over 100 characters"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} > 0", q("$.images_long_alt")), &format!("{} || ' of ' || {} || ' image(s) with alt text over 100 characters'", q("$.images_long_alt"), q("$.images")), &q("$.images_long_alt_first"))
}
