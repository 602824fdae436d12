//! `content/exact-duplicate`: HTML pages with the same body.

use crate::{CANONICAL_ELSEWHERE, Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every group of HTML pages that answered `200` with byte-for-byte
    /// the same body (the same `content_hash`). One finding per group, at
    /// its first page in the order of discovery, with the others. Pages
    /// that name another URL as canonical are left out: they already say
    /// which page is the original. A body cut at `--max-bytes` is compared
    /// as far as it was read.
    ///
    /// ## Why it matters
    /// Search engines index one of the copies, perhaps not the one meant,
    /// and spread links and signals over the others; robots spend the
    /// crawl fetching the same page again.
    ///
    /// ## Fix
    /// Keep one address: redirect the others to it, or have them name it
    /// with `<link rel="canonical">`; look for the parameter or path
    /// variant that makes the copies (`?sort=`, `/index.html`, a trailing
    /// slash).
    "content/exact-duplicate", Warning, "HTML pages with the same body"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let pages = cx.rows(
        &format!(
            "WITH candidates AS (
                 SELECT u.id, u.url, p.content_hash AS hash
                 FROM pages p JOIN urls u ON u.id = p.url_id
                 WHERE {HTML_PAGE} AND p.content_hash IS NOT NULL AND NOT {CANONICAL_ELSEWHERE})
             SELECT id, url, hash FROM candidates
             WHERE hash IN (SELECT hash FROM candidates GROUP BY hash HAVING count(*) > 1)
             ORDER BY id"
        ),
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
    )?;
    groups(cx, pages, &|n, hash| {
        format!("{n} pages have the same body (content hash {hash})")
    })
}

/// Findings for pages grouped by a key, each group at its first page:
/// `pages` are `(id, url, key)` in the order of discovery.
pub(crate) fn groups(
    cx: &Context<'_>,
    pages: Vec<(i64, String, String)>,
    message: &dyn Fn(usize, &str) -> String,
) -> Result<Vec<Finding>, rusqlite::Error> {
    let mut order: Vec<String> = Vec::new();
    let mut by_key: std::collections::HashMap<String, Vec<(i64, String)>> =
        std::collections::HashMap::new();
    for (id, url, key) in pages {
        let group = by_key.entry(key.clone()).or_default();
        if group.is_empty() {
            order.push(key);
        }
        group.push((id, url));
    }
    order
        .into_iter()
        .map(|key| {
            let group = by_key.remove(&key).unwrap_or_default();
            let mut members = group.into_iter();
            let (id, url) = members.next().unwrap_or_default();
            let related: Vec<String> = members.map(|(_, u)| u).collect();
            let mut f = cx.linked_finding(id, url, message(related.len() + 1, &key))?;
            f.related = related;
            Ok(f)
        })
        .collect()
}
