//! `links/protocol-relative`: links written without a scheme (//host/path).

use super::page_quality::{findings, q};
use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with links (`<a>`, `<area>`, frames) whose href
    /// starts with `//`, with how many and the first in `related`.
    ///
    /// ## Why it matters
    /// They take the page's scheme: on an HTTPS page they work, but a
    /// copy of the page over HTTP (or a file saved to disk) makes them
    /// insecure or broken. HTTPS everywhere makes the shortcut pointless.
    ///
    /// ## Fix
    /// Write the scheme: `https://host/path`.
    "links/protocol-relative", Notice, "links written without a scheme (//host/path)"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, &format!("{} > 0", q("$.protocol_relative")), &format!("{} || ' link(s) written without a scheme'", q("$.protocol_relative")), &q("$.protocol_relative_first"))
}
