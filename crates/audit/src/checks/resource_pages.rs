//! What the resource checks share: a finding per resource (`resources`,
//! `crawl --resources`) with the pages that use it as its evidence.

use crate::{Context, Finding};

/// Pages named per finding at most; the finding counts them all.
const MAX_PAGES: u32 = 10;

/// Findings about the resources `r` (`resources`) that `condition`
/// selects, each with `message` (an SQL expression over `r`) and the
/// pages that use it (the first [`MAX_PAGES`] by discovery, and how many
/// in all), in the order the crawl met them (the first page that uses
/// one, then its place on that page).
pub(crate) fn resource_findings(
    cx: &Context<'_>,
    condition: &str,
    message: &str,
) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT r.url, {message},
                    (SELECT group_concat(url, char(10)) FROM
                        (SELECT u.url FROM page_resources p JOIN urls u ON u.id = p.source_id
                         WHERE p.url = r.url ORDER BY p.source_id LIMIT {MAX_PAGES})),
                    (SELECT count(*) FROM page_resources p WHERE p.url = r.url) AS pages,
                    (SELECT min(p.source_id * 4294967296 + p.position)
                     FROM page_resources p WHERE p.url = r.url) AS first
             FROM resources r
             WHERE {condition}
             ORDER BY first, r.url"
        ),
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, i64>(3)?,
            ))
        },
    )?;
    Ok(rows
        .into_iter()
        .map(|(url, message, pages, count)| {
            let mut f = Finding::new(url, message);
            f.related = pages
                .map(|p| p.lines().map(str::to_owned).collect())
                .unwrap_or_default();
            f.related_count = u64::try_from(count).unwrap_or(0);
            f
        })
        .collect())
}

/// The resource's kind as the findings name it (`image`, `script`,
/// `style sheet`), an SQL expression over `r`.
pub(crate) const KIND_NAME: &str =
    "CASE r.kind WHEN 'style' THEN 'style sheet' ELSE r.kind END";
