//! `links/broken-external`: links to other sites' URLs that answered an
//! error or nothing (`crawl --check-external`).

use crate::{Context, Finding, SITE_LINK};

declare_check! {
    /// ## What it finds
    /// Every URL of another site that the site's pages link to (`<a>`,
    /// `<area>`, frames) and that answered `4xx` or `5xx`, or nothing (a
    /// refused connection, a name that does not resolve, a timeout), when
    /// the crawl checked its external links (`crawl --check-external`:
    /// `HEAD`, then `GET` when the `HEAD` is refused), with every link
    /// that leads there: the page and the anchor text. A redirect is not
    /// followed and does not count. An answer that is a bot wall (a
    /// `403`, `429` or `503` with a challenge's header or page, or
    /// `Retry-After`) is not reported here but as
    /// `links/external-unverified`. Without `--check-external` nothing is
    /// known of these URLs and nothing is reported.
    ///
    /// ## Why it matters
    /// Visitors who follow the link meet an error; a page full of dead
    /// references reads as neglected, to visitors and to search engines.
    /// Another site's `5xx` or timeout may be passing: check again before
    /// fixing.
    ///
    /// ## Fix
    /// Point the link to the resource's new address (an archive copy if it
    /// is gone), or remove it.
    "links/broken-external", Warning, "links to other sites' URLs that answered 4xx, 5xx or nothing"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    external_findings(
        cx,
        "(e.status >= 400 OR e.status IS NULL) AND e.wall IS NULL",
        |c| match (c.status, c.error) {
            (Some(s), _) => format!("answered {s} to {}", c.method),
            (None, Some(why)) => format!("no answer to {} ({why})", c.method),
            (None, None) => format!("no answer to {}", c.method),
        },
    )
}

/// What an external URL's check found (`external_checks`).
pub(crate) struct Checked {
    pub(crate) status: Option<u16>,
    pub(crate) error: Option<String>,
    pub(crate) method: String,
    pub(crate) wall: Option<String>,
}

/// A finding, worded by `message`, for each checked external URL the
/// site's pages link to whose check (`e`) meets `condition`, with the
/// links that lead there.
pub(crate) fn external_findings(
    cx: &Context<'_>,
    condition: &str,
    message: impl Fn(Checked) -> String,
) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT u.id, u.url, e.status, e.error, e.method, e.wall
             FROM urls u JOIN external_checks e ON e.url_id = u.id
             WHERE {condition}
               AND EXISTS (SELECT 1 FROM links l WHERE l.target_id = u.id AND {SITE_LINK})
             ORDER BY u.id"
        ),
        |r| {
            let checked = Checked {
                status: r.get(2)?,
                error: r.get(3)?,
                method: r.get(4)?,
                wall: r.get(5)?,
            };
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, checked))
        },
    )?;
    rows.into_iter()
        .map(|(id, url, checked)| cx.linked_finding(id, url, message(checked)))
        .collect()
}
