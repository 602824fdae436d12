//! `canonical/not-200`: canonicals that name a URL that does not answer
//! `200`.

use crate::{Context, Finding, INSTANT_REFRESH_PAGE, answer};

declare_check! {
    /// ## What it finds
    /// Every page whose canonical URL (`<link rel="canonical">`, else the
    /// `Link` header's) is a URL the crawl fetched and that answered
    /// anything but `200` — a redirect, an error, or no answer — or a `200`
    /// that refreshes at once (a meta refresh or `Refresh` header of at
    /// most one second: a redirect, `links/refresh-redirect`). A page that
    /// names itself is fine; a canonical the crawl did not fetch (another
    /// site, blocked by robots.txt, behind a nofollow) is not judged. The
    /// canonical and where it redirects are in `related`; as a check of
    /// the page's own head, the links to the page are not listed.
    ///
    /// ## Why it matters
    /// A canonical says "index that address instead of this one". Search
    /// engines ignore a canonical that redirects or fails, and may then
    /// pick the original themselves, or drop both.
    ///
    /// ## Fix
    /// Name the final address: the redirect's target, or a page that
    /// answers `200`.
    "canonical/not-200", Warning, "canonicals that name a redirect, an error or no answer"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    // The target's page is `t`; the refresh test reads `p`.
    let refresh = INSTANT_REFRESH_PAGE.replace("p.", "t.");
    let rows = cx.rows(
        &format!(
            "SELECT u.id, u.url, p.canonical, t.status, t.error, t.location, {refresh}
             FROM pages p JOIN urls u ON u.id = p.url_id
             JOIN urls c ON c.url = p.canonical JOIN pages t ON t.url_id = c.id
             WHERE p.canonical != u.url AND (t.status IS NULL OR t.status != 200 OR {refresh})
             ORDER BY u.id"
        ),
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<u16>>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, bool>(6)?,
            ))
        },
    )?;
    rows.into_iter()
        .map(|(_, url, canonical, status, error, location, refreshes)| {
            let mut message = if refreshes {
                format!("its canonical {canonical} refreshes at once")
            } else {
                format!(
                    "its canonical {canonical} answered {}",
                    answer(status, error.as_deref())
                )
            };
            if let Some(l) = &location {
                message.push_str(&format!(" (to {l})"));
            }
            let mut f = Finding::new(url, message);
            f.related.push(canonical);
            f.related.extend(location);
            Ok(f)
        })
        .collect()
}
