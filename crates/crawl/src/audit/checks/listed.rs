//! What the sitemap checks share: the URLs sitemaps list.

use crate::audit::{Context, Finding};

/// One finding per URL a sitemap lists (`sitemap_entries`) that meets
/// `condition` (SQL over `u`, its URL, `p`, its page if fetched, and `d`,
/// its robots decision if any), its message `message` (SQL), with the
/// sitemaps that list it.
pub(crate) fn findings(
    cx: &Context<'_>,
    condition: &str,
    message: &str,
) -> Result<Vec<Finding>, rusqlite::Error> {
    cx.findings(&format!(
        "SELECT u.id, u.url, {message} || '; listed in ' ||
                (SELECT group_concat(sitemap, ', ') FROM
                    (SELECT DISTINCT sitemap FROM sitemap_entries s WHERE s.url_id = u.id)),
                NULL
         FROM urls u LEFT JOIN pages p ON p.url_id = u.id
         LEFT JOIN robots_decisions d ON d.url_id = u.id
         WHERE u.id IN (SELECT url_id FROM sitemap_entries) AND ({condition})
         ORDER BY u.id"
    ))
}
