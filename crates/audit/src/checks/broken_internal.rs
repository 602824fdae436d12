//! `links/broken-internal`: links to pages of the site that answered an
//! error or no answer at all.

use crate::{Context, Finding, SITE_LINK, answer};

declare_check! {
    /// ## What it finds
    /// Every URL of the site that the site's own pages link to (`<a>`,
    /// `<area>`, frames) and that answered `4xx` or `5xx`, or gave no
    /// answer (a refused connection, a reset, a timeout before the
    /// answer's head), with every link that leads there: the page and the
    /// anchor text. The answer is the last one the crawl got (a `503` asked again
    /// after its `Retry-After` counts as what came then).
    ///
    /// ## Why it matters
    /// Visitors who follow the link meet an error page; robots spend
    /// requests on it and may read the site as neglected. A `5xx` or no
    /// answer may be passing: crawl again before fixing.
    ///
    /// ## Fix
    /// Point the links to the page's current address, bring the page back,
    /// or redirect its old address to where its content went.
    "links/broken-internal", Error, "links to pages of the site that answered 4xx, 5xx or nothing"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let broken = cx.rows(
        &format!(
            "SELECT u.id, u.url, p.status, p.error FROM urls u JOIN pages p ON p.url_id = u.id
             WHERE (p.status >= 400 OR p.status IS NULL)
               AND EXISTS (SELECT 1 FROM links l WHERE l.target_id = u.id AND {SITE_LINK})
             ORDER BY u.id"
        ),
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<u16>>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        },
    )?;
    broken
        .into_iter()
        .map(|(id, url, status, error)| {
            let message = format!("answered {}", answer(status, error.as_deref()));
            cx.linked_finding(id, url, message)
        })
        .collect()
}
