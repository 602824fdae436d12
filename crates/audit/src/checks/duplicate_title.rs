//! `content/duplicate-title`: HTML pages with different bodies and the same
//! title.

use crate::checks::exact_duplicate::groups;
use crate::{CANONICAL_ELSEWHERE, Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every group of HTML pages that answered `200` with the same
    /// `<title>` (white space at either end ignored) and not all the same
    /// body. One finding per group, at its first page in the order of
    /// discovery, with the others. A group of identical bodies is left to
    /// `content/exact-duplicate`; pages that name another URL as canonical
    /// are left out.
    ///
    /// ## Why it matters
    /// The title is what search results show and what tells pages apart
    /// in them; pages with one title compete for the same searches and
    /// look like copies.
    ///
    /// ## Fix
    /// Give each page a title that says what is on it and on no other page.
    "content/duplicate-title", Warning, "HTML pages with different bodies and the same title"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let pages = cx.rows(
        &format!(
            "WITH candidates AS (
                 SELECT u.id, u.url, trim(p.title) AS title, p.content_hash AS hash
                 FROM pages p JOIN urls u ON u.id = p.url_id
                 WHERE {HTML_PAGE} AND trim(coalesce(p.title, '')) != ''
                   AND NOT {CANONICAL_ELSEWHERE})
             SELECT id, url, title FROM candidates
             WHERE title IN (SELECT title FROM candidates GROUP BY title
                             HAVING count(*) > 1 AND count(DISTINCT coalesce(hash, id)) > 1)
             ORDER BY id"
        ),
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
    )?;
    groups(cx, pages, &|n, title| format!("{n} pages have the title \"{title}\""))
}
