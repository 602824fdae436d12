//! What the render checks share: the two readings of each page rendered
//! with `crawl --render` (`renders.facts`, schema 11), read with SQLite's
//! JSON functions.

use crate::{Context, Finding};

/// `json_extract` of the render's facts at `path` (`$.raw.title`).
pub(crate) fn f(path: &str) -> String {
    format!("json_extract(r.facts, '{path}')")
}

/// One finding per rendered page where `condition` holds (SQL over `r`,
/// `u` and [`f`]), its message `message` and `related` (SQL, `NULL` for
/// none).
pub(crate) fn findings(
    cx: &Context<'_>,
    condition: &str,
    message: &str,
    related: &str,
) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, {message}, {related}
         FROM renders r JOIN urls u ON u.id = r.url_id
         WHERE ({condition})
         ORDER BY u.id"
    ))
}

/// SQL of a text that may be missing, quoted for a message: `'…'` or
/// `none`.
pub(crate) fn quoted(path: &str) -> String {
    format!(
        "coalesce('''' || {} || '''', 'none')",
        f(path)
    )
}
