//! `images/missing-alt`: HTML pages with images that have no alt attribute.

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with `<img>` elements that have no `alt`
    /// attribute at all, with how many of its images, and the first one's
    /// `src` in `related`. `alt=""` (a decorative image) is not reported.
    ///
    /// ## Why it matters
    /// Screen readers read the file name, or nothing; search engines
    /// learn nothing of the image; and a broken image shows no text.
    ///
    /// ## Fix
    /// Describe each image in `alt`, or give decorative ones `alt=""`.
    "images/missing-alt", Warning, "HTML pages with images that have no alt attribute"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} > 0", q("$.images_no_alt")), &format!("{} || ' of ' || {} || ' image(s) without an alt attribute'", q("$.images_no_alt"), q("$.images")), &q("$.images_no_alt_first"))
}
