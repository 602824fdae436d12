//! `links/unknown-scheme`: links whose scheme browsers do not follow.

use crate::{Context, Finding};

use super::bad_href::{Bad, findings};

declare_check! {
    /// ## What it finds
    /// Every page with links (`<a>`, `<area>`, frames) whose `href` is a
    /// valid URL of a scheme browsers do not follow, one finding per page
    /// with the schemes in the message, the hrefs as written (`related`,
    /// the first ten) and their links with anchor text (`links`).
    ///
    /// The URL parser reads anything before the first `:` as a scheme
    /// when it is made of letters, digits, `+`, `-` and `.` and no `/`
    /// comes before it: `slice::sort_by_key` (a path a documentation
    /// generator wrote as a link) is the URL `slice:` + `:sort_by_key`, and
    /// `C:\docs\a.html` has the scheme `c:`. Browsers open neither.
    ///
    /// Known schemes, not reported: `http`, `https`, `about`, `blob`,
    /// `data`, `file`, `ftp`; `javascript` (`links/javascript-href`); the
    /// schemes HTML lets a site register a handler for (`bitcoin`, `ftps`,
    /// `geo`, `im`, `irc`, `ircs`, `magnet`, `mailto`, `matrix`, `mms`,
    /// `news`, `nntp`, `openpgp4fpr`, `sftp`, `sip`, `sms`, `smsto`,
    /// `ssh`, `tel`, `urn`, `webcal`, `wtai`, `xmpp`) and any `web+…`
    /// scheme. An application's own scheme (`itms-apps:`, `whatsapp:`)
    /// is reported: it works only where that application is installed;
    /// `--ignore links/unknown-scheme` silences the check for a site that
    /// means them.
    ///
    /// Measured: on the planted site of the audit's tests (`slice::…`,
    /// `C:\…`, and as near misses `mailto:`, `tel:`, `web+x:`,
    /// `./slice::sort_by_key`), precision and recall 1.0. On the `alloc`
    /// API docs of the Rust 1.95 toolchain (rustdoc, 248 pages crawled
    /// from a local server): no finding, and by hand no href of its files
    /// has a scheme other than `http`, `https` and `javascript`.
    ///
    /// ## Why it matters
    /// The link does nothing for visitors, or shows an error, and robots
    /// do not follow it: the page it was meant to reach loses the link.
    ///
    /// ## Fix
    /// Write the link as a URL of the site (`./slice.html#method.sort_by_key`),
    /// or make a relative path that contains `:` start with `./`.
    "links/unknown-scheme", Warning, "links whose scheme browsers do not follow (slice::sort_by_key reads as the scheme slice:)"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, Bad::UnknownScheme)
}
