//! `links/javascript-href`: links whose `href` is `javascript:`.

use crate::{Context, Finding};

use super::bad_href::{Bad, findings};

declare_check! {
    /// ## What it finds
    /// Every page with links (`<a>`, `<area>`, frames) whose `href` is a
    /// `javascript:` URL, one finding per page with the hrefs (the first
    /// ten) and the links' anchor text.
    ///
    /// ## Why it matters
    /// Robots do not run `javascript:` links: whatever they open is not
    /// reached through them. Visitors cannot open them in a new tab,
    /// and they do nothing without scripts.
    ///
    /// ## Fix
    /// Link to a real URL (`href="/page"`) and attach the script with an
    /// event handler; use a `<button>` for actions that are not
    /// navigation.
    "links/javascript-href", Notice, "links whose href is a javascript: URL"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, Bad::Javascript)
}
