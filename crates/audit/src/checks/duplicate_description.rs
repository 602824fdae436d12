//! `content/duplicate-description`: HTML pages with the same meta
//! description.

use crate::{CANONICAL_ELSEWHERE, Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every group of HTML pages with the same non-empty meta description
    /// (white space collapsed) and not all the same body (those are
    /// `content/exact-duplicate`). One finding per group, at its first page
    /// in the order of discovery, with the others. Pages that name another
    /// URL as canonical are left out.
    ///
    /// ## Why it matters
    /// A description shared by many pages says nothing about any of them:
    /// search engines replace it with a snippet of their own, and the
    /// results for the site look alike.
    ///
    /// ## Fix
    /// Write a description for each page, or generate it from what is
    /// particular to the page (its product, its article's summary).
    "content/duplicate-description", Notice, "HTML pages with the same meta description"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    grouped(cx, "description", &|n, d| {
        format!("{n} pages have the description \"{d}\"")
    })
}

/// Findings for HTML pages grouped by the text column `column` (non-empty,
/// not canonical elsewhere, groups not all of one body).
pub(crate) fn grouped(
    cx: &Context<'_>,
    column: &str,
    message: &dyn Fn(usize, &str) -> String,
) -> Result<Vec<Finding>, rusqlite::Error> {
    let pages = cx.rows(
        &format!(
            "WITH candidates AS (
                 SELECT u.id, u.url, p.{column} AS key, p.content_hash AS hash
                 FROM pages p JOIN urls u ON u.id = p.url_id
                 WHERE {HTML_PAGE} AND coalesce(p.{column}, '') != ''
                   AND NOT {CANONICAL_ELSEWHERE})
             SELECT id, url, key FROM candidates
             WHERE key IN (SELECT key FROM candidates GROUP BY key
                           HAVING count(*) > 1 AND count(DISTINCT coalesce(hash, id)) > 1)
             ORDER BY id"
        ),
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
    )?;
    super::exact_duplicate::groups(cx, pages, message)
}
