//! What the sitemap checks share: the URLs sitemaps list.

use crate::{Context, Finding};

/// One finding per URL a sitemap lists (`sitemap_entries`) that meets
/// `condition` (SQL over `u`, its URL, `p`, its page if fetched, and `d`,
/// its robots decision if any), its message `message` (SQL) with how many
/// sitemaps list it, and those sitemaps in `related`.
pub(crate) fn findings(
    cx: &Context<'_>,
    condition: &str,
    message: &str,
) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, {message} || '; listed in ' ||
                (SELECT count(DISTINCT sitemap) FROM sitemap_entries s WHERE s.url_id = u.id) ||
                ' sitemap(s)',
                (SELECT group_concat(sitemap, char(10)) FROM
                    (SELECT DISTINCT sitemap FROM sitemap_entries s WHERE s.url_id = u.id))
         FROM urls u LEFT JOIN pages p ON p.url_id = u.id
         LEFT JOIN robots_decisions d ON d.url_id = u.id
         WHERE u.id IN (SELECT url_id FROM sitemap_entries) AND ({condition})
         ORDER BY u.id"
    ))
}
