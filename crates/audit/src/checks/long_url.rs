//! `links/long-url`: links to valid URLs longer than the crawler follows.

use crate::{Context, Finding};

use super::bad_href::{Bad, findings};

declare_check! {
    /// ## What it finds
    /// Every page with links (`<a>`, `<area>`, frames) to valid `http(s)`
    /// URLs longer than 2,048 bytes (in their normal form, without the
    /// fragment), one finding per page with the hrefs as written (the
    /// first 2,048 characters of each, the first ten hrefs, in `related`)
    /// and their links with anchor text (`links`).
    ///
    /// Browsers follow such links (they accept URLs of megabytes); the
    /// crawl does not: botwarden records the link and does not fetch it,
    /// so the audit cannot say where it leads.
    ///
    /// Measured: on the planted site of the audit's tests (a 3,000-byte
    /// URL, and a 2,000-byte one as the near miss), precision and recall
    /// 1.0. On the `alloc` API docs of the Rust 1.95 toolchain (rustdoc,
    /// 248 pages crawled from a local server): 4 findings, the "Run"
    /// links of 4 code examples to the Rust playground (2,055 bytes and
    /// more, the example's code in the query), which are all the hrefs
    /// over 2,048 bytes in its files (precision and recall 1.0, checked
    /// by hand); `links/malformed-href` reported these 4 before.
    ///
    /// ## Why it matters
    /// Links this long are usually state packed into a query (filters, a
    /// serialized form) and make URLs without end for robots. The
    /// sitemaps protocol does not accept URLs over 2,048 characters, many
    /// servers and proxies answer `414 URI Too Long` past 8 KiB of request
    /// line, and search engines may not index them.
    ///
    /// ## Fix
    /// Keep the state server-side or in a short identifier; send long
    /// forms with `POST`; if the page is meant to be crawled, give it a
    /// short canonical URL.
    "links/long-url", Notice, "links to valid URLs longer than 2,048 bytes, which the crawl does not follow"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    findings(cx, Bad::Long)
}
