//! `links/malformed-href`: links whose `href` is not a usable URL.

use crate::audit::{Context, Finding};

use super::bad_href::{Bad, findings};

declare_check! {
    /// ## What it finds
    /// Every page with links (`<a>`, `<area>`, frames) whose `href` is not
    /// a URL (`http://exa mple.com/`, `http://[::1/`) or is an `http(s)`
    /// URL the crawler cannot use (longer than it accepts), one finding
    /// per page with the hrefs as written (the first ten) and the links'
    /// anchor text. `mailto:`, `tel:` and other schemes are not reported;
    /// `javascript:` and empty hrefs have checks of their own.
    ///
    /// ## Why it matters
    /// Browsers and robots cannot follow a malformed link: the visitor
    /// gets an error or nothing, and the page it should lead to loses the
    /// link. It is usually a typo or a template that builds URLs from
    /// unescaped text.
    ///
    /// ## Fix
    /// Correct the URL; escape spaces and other reserved characters
    /// (`%20`).
    "links/malformed-href", Warning, "links whose href is not a usable URL"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, Bad::Malformed)
}
