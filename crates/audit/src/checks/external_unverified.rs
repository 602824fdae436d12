//! `links/external-unverified`: links to other sites' URLs that answered
//! with a bot wall (`crawl --check-external`).

use crate::{Context, Finding, SITE_LINK};

declare_check! {
    /// ## What it finds
    /// Every URL of another site that the site's pages link to and that
    /// answered the check (`crawl --check-external`) with a bot wall
    /// rather than the page: a `403`, `429` or `503` with Cloudflare's
    /// `cf-mitigated: challenge` header, with a `Retry-After` header, or
    /// with a challenge page (Cloudflare's `Just a moment...` or
    /// `Attention Required!` served by `server: cloudflare`, Akamai's
    /// `Access Denied` page with its `Reference #`, Imperva's
    /// `_Incapsula_Resource`, DataDome's `captcha-delivery.com`, HUMAN's
    /// `px-captcha`, AWS WAF's `awswaf`, reCAPTCHA, hCaptcha and
    /// Turnstile widgets; the first 64 KiB of the page are read). Such a
    /// URL could not be verified: it is not reported as broken
    /// (`links/broken-external`), and a `403` without any of these marks
    /// is. With the links that lead there.
    ///
    /// ## Why it matters
    /// The link may work for visitors: the wall stops robots. Reporting it
    /// as broken would have it removed for nothing; it is listed so that
    /// someone looks at it with a browser.
    ///
    /// ## Fix
    /// Open the URL in a browser; if it works, nothing is to fix. Some
    /// walls let signed robots through: `crawl --check-external
    /// --sign-key` signs the checks (Web Bot Auth).
    "links/external-unverified", Notice, "links to other sites' URLs behind a bot wall: could not verify"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let walled = cx.rows(
        &format!(
            "SELECT u.id, u.url, e.status, e.method, e.wall
             FROM urls u JOIN external_checks e ON e.url_id = u.id
             WHERE e.wall IS NOT NULL
               AND EXISTS (SELECT 1 FROM links l WHERE l.target_id = u.id AND {SITE_LINK})
             ORDER BY u.id"
        ),
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<u16>>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        },
    )?;
    walled
        .into_iter()
        .map(|(id, url, status, method, wall)| {
            let status = status.map_or_else(|| "nothing".to_owned(), |s| s.to_string());
            let message = format!("could not verify: answered {status} to {method}, a bot wall ({wall})");
            cx.linked_finding(id, url, message)
        })
        .collect()
}
