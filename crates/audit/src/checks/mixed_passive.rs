//! `security/mixed-content-passive`: HTTPS pages that show images, audio
//! or video from plain HTTP.

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTTPS page whose HTML shows passive content from a plain
    /// `http://` URL: `<img src>` and `srcset`, `<video src>` and
    /// `poster`, `<audio src>`, `<source src>` and `srcset`, with the
    /// count and the first ten (element, URL, line).
    ///
    /// ## Why it matters
    /// Browsers no longer show such content as is: they upgrade the
    /// request to `https://` and show nothing when the other host does
    /// not answer over HTTPS, and they drop the padlock or mark the page
    /// "not fully secure". Where the content does load, whoever is on the
    /// network sees and may replace it.
    ///
    /// ## Fix
    /// Write the URLs as `https://` (or relative), after checking that the
    /// other host serves them over HTTPS; host the files on the site
    /// otherwise.
    "security/mixed-content-passive", Warning, "HTTPS pages that show images, audio or video from HTTP"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    super::mixed_active::mixed(cx, "p.mixed_passive", "passive")
}
