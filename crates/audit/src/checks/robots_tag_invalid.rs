//! `robots/robots-tag-invalid`: pages whose `Robots-Tag` header no robot
//! can read.

use botwarden_robots::prefs::sf::parse_list;

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every fetched page with a `Robots-Tag` header (draft-illyes-repext)
    /// that is not an RFC 9651 List of product tokens with rules as
    /// parameters (`*;noindex, examplebot;nosnippet`): an agent written
    /// `agent: rule` as in `X-Robots-Tag`, an upper-case rule
    /// (`NoIndex`), a stray comma. The finding quotes the header and says
    /// where it breaks.
    ///
    /// ## Why it matters
    /// A reader of Structured Fields ignores the whole header: its
    /// `noindex` or `nosnippet` is not obeyed by any robot that reads
    /// `Robots-Tag`. (The crawler reads it the same way, and ignores it.)
    ///
    /// ## Fix
    /// Write `Robots-Tag: *;noindex` (every robot) or
    /// `Robots-Tag: examplebot;noindex`, rules in lower case; or keep the
    /// `X-Robots-Tag` syntax under that name.
    "robots/robots-tag-invalid", Warning, "pages whose Robots-Tag header is not a valid list"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        "SELECT u.url, p.robots_tag FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE p.robots_tag IS NOT NULL ORDER BY u.id",
        |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
    )?;
    let mut out = Vec::new();
    for (url, joined) in rows {
        for value in joined.split(" | ") {
            if let Err(e) = parse_list(value) {
                out.push(Finding::new(url.clone(), format!("`Robots-Tag: {value}` is ignored: {e}")));
            }
        }
    }
    Ok(out)
}
