//! What the page checks share: the page facts of `pages.quality` (schema
//! 10), read with SQLite's JSON functions.

use crate::{Context, Finding, HTML_PAGE};

/// `json_extract` of the page's `quality` at `path` (`$.images`).
pub(crate) fn q(path: &str) -> String {
    format!("json_extract(p.quality, '{path}')")
}

/// One finding per HTML page read since schema 10 where `condition` holds
/// (SQL over `p` and [`q`]), its message `message` and `related` (SQL,
/// `NULL` for none).
pub(crate) fn findings(
    cx: &Context<'_>,
    condition: &str,
    message: &str,
    related: &str,
) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, {message}, {related}
         FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE {HTML_PAGE} AND p.quality IS NOT NULL AND ({condition})
         ORDER BY u.id"
    ))
}
