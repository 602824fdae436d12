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

/// SQL: the rendered page has at least twice the words of the raw HTML,
/// and 50 more (`render/content-only-rendered`).
pub(crate) fn text_only_rendered() -> String {
    let (raw, ren) = (f("$.raw.words"), f("$.rendered.words"));
    format!("({ren} >= 2 * {raw} AND {ren} >= {raw} + 50)")
}

/// SQL: the rendered page links to URLs the raw HTML does not
/// (`render/links-only-rendered`).
pub(crate) fn links_only_rendered() -> String {
    format!("({} > 0)", f("$.rendered_only_links"))
}

/// SQL: one reading says noindex and the other does not.
pub(crate) fn noindex_differs() -> String {
    format!("({} != {})", f("$.raw.noindex"), f("$.rendered.noindex"))
}

/// SQL: the canonicals differ (`render/canonical-changed`).
pub(crate) fn canonical_differs() -> String {
    format!(
        "(r.facts IS NOT NULL AND coalesce({}, '') != coalesce({}, ''))",
        f("$.raw.canonical"),
        f("$.rendered.canonical")
    )
}

/// SQL: the title, description or `<h1>` differ (`render/head-changed`).
pub(crate) fn head_differs() -> String {
    let differs = |key: &str| {
        format!(
            "coalesce({}, '') != coalesce({}, '')",
            f(&format!("$.raw.{key}")),
            f(&format!("$.rendered.{key}"))
        )
    };
    format!(
        "(r.facts IS NOT NULL AND ({} OR {} OR {}))",
        differs("title"),
        differs("description"),
        differs("h1")
    )
}
