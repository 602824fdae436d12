//! `links/to-redirect`: links to URLs of the site that redirect.

use crate::{Context, Finding, SITE_LINK, REDIRECT};

declare_check! {
    /// ## What it finds
    /// Every URL of the site that the site's own pages link to (`<a>`,
    /// `<area>`, frames) and that answered a redirect (`301`, `302`, `303`,
    /// `307`, `308`) or refreshes at once (a meta refresh or `Refresh`
    /// header of at most one second, `links/refresh-redirect`), with where
    /// it leads and every link that leads to it.
    ///
    /// ## Why it matters
    /// Each such link costs visitors and robots one more request, and a
    /// temporary redirect leaves search engines unsure which address to
    /// keep. Links are the site's own: they can name the final address.
    ///
    /// ## Fix
    /// Change the links to the redirect's target (the `Location`).
    "links/to-redirect", Warning, "links to URLs of the site that redirect"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT u.id, u.url, p.status, p.location FROM urls u JOIN pages p ON p.url_id = u.id
             WHERE {REDIRECT}
               AND EXISTS (SELECT 1 FROM links l WHERE l.target_id = u.id AND {SITE_LINK})
             ORDER BY u.id"
        ),
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, u16>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        },
    )?;
    rows.into_iter()
        .map(|(id, url, status, location)| {
            // A `200` that redirects refreshes at once.
            let how = if status == 200 {
                "refreshes at once".to_owned()
            } else {
                format!("redirects ({status})")
            };
            let message = match &location {
                Some(l) => format!("{how} to {l}"),
                None => format!("{how} to no crawlable URL"),
            };
            let mut f = cx.linked_finding(id, url, message)?;
            f.related.extend(location);
            Ok(f)
        })
        .collect()
}
