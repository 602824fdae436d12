//! `links/external-unverified`: links to other sites' URLs that answered
//! with a bot wall (`crawl --check-external`).

use super::broken_external::external_findings;
use crate::{Context, Finding};

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
    external_findings(cx, "e.wall IS NOT NULL", |c| {
        let status = c
            .status
            .map_or_else(|| "nothing".to_owned(), |s| s.to_string());
        format!(
            "could not verify: answered {status} to {}, a bot wall ({})",
            c.method,
            c.wall.unwrap_or_default()
        )
    })
}
