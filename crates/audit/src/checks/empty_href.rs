//! `links/empty-href`: links with an empty `href`.

use crate::{Context, Finding};

use super::bad_href::{Bad, findings};

declare_check! {
    /// ## What it finds
    /// Every page with links (`<a>`, `<area>`, frames) whose `href` is
    /// empty or white space, one finding per page with the links' anchor
    /// text. The crawler records such a link as written and does not count
    /// it as a link of the page to itself.
    ///
    /// ## Why it matters
    /// An empty `href` reloads the page: a link that goes nowhere for
    /// visitors, and usually a template whose URL field was left blank.
    ///
    /// ## Fix
    /// Fill in the URL, or drop the link (a `<button>` for an action).
    "links/empty-href", Notice, "links with an empty href"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, Bad::Empty)
}
