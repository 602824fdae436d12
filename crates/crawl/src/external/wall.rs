//! Bot walls: answers that say a robot was stopped, not that the URL is
//! dead. An external URL behind one could not be verified
//! (`links/external-unverified`) and is not reported broken.
//!
//! Only `403`, `429` and `503` answers are read, and one of these makes a
//! wall:
//!
//! - the header `cf-mitigated: challenge` (Cloudflare's challenge);
//! - a `Retry-After` header (the site asks to come back later);
//! - a challenge page, read from the first [`PAGE_BYTES`] of the body:
//!   Cloudflare's (`server: cloudflare` with `Just a moment...`,
//!   `Attention Required! | Cloudflare`, `cf-chl` or
//!   `challenge-platform`), Akamai's reference page (`Access Denied` with
//!   `Reference #`), and the markers of other walls' pages: Imperva
//!   (`_Incapsula_Resource`), DataDome (`captcha-delivery.com`), HUMAN
//!   (`px-captcha`), AWS WAF (`awswaf`), and CAPTCHA widgets
//!   (`g-recaptcha`, `h-captcha`, `cf-turnstile`).
//!
//! A `403` without any of them is an answer like any other: broken.

use reqwest::header::HeaderMap;

/// The most of a page read for a challenge's markers.
pub(crate) const PAGE_BYTES: usize = 64 * 1024;

/// Markers of challenge pages that name their wall whatever the server,
/// each with the wall's name.
const PAGE_MARKERS: &[(&str, &str)] = &[
    ("_Incapsula_Resource", "Imperva challenge page"),
    ("captcha-delivery.com", "DataDome challenge page"),
    ("px-captcha", "HUMAN challenge page"),
    ("awswaf", "AWS WAF challenge page"),
    ("g-recaptcha", "CAPTCHA page (reCAPTCHA)"),
    ("h-captcha", "CAPTCHA page (hCaptcha)"),
    ("cf-turnstile", "CAPTCHA page (Turnstile)"),
];

/// Markers of Cloudflare's challenge pages.
const CLOUDFLARE_MARKERS: &[&str] = &[
    "Just a moment...",
    "Attention Required! | Cloudflare",
    "cf-chl",
    "challenge-platform",
];

/// Whether an answer of this status may be a wall.
#[must_use]
pub(crate) fn may_be_wall(status: u16) -> bool {
    matches!(status, 403 | 429 | 503)
}

/// The wall the headers show, if any (only for [`may_be_wall`]
/// statuses).
pub(crate) fn in_headers(status: u16, headers: &HeaderMap) -> Option<String> {
    if !may_be_wall(status) {
        return None;
    }
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if header("cf-mitigated").is_some_and(|v| v.eq_ignore_ascii_case("challenge")) {
        return Some("cf-mitigated: challenge (Cloudflare)".to_owned());
    }
    header("retry-after").map(|v| format!("Retry-After: {v}"))
}

/// The wall a page of this status shows, if any: `server` is the
/// `Server` header, `page` the first bytes of the body.
pub(crate) fn in_page(status: u16, server: Option<&str>, page: &[u8]) -> Option<String> {
    if !may_be_wall(status) {
        return None;
    }
    let text = String::from_utf8_lossy(&page[..page.len().min(PAGE_BYTES)]);
    let server = server.unwrap_or_default().trim().to_ascii_lowercase();
    if server == "cloudflare" && CLOUDFLARE_MARKERS.iter().any(|m| text.contains(m)) {
        return Some("Cloudflare challenge page".to_owned());
    }
    if text.contains("Access Denied") && text.contains("Reference #") {
        return Some("Akamai Access Denied reference page".to_owned());
    }
    PAGE_MARKERS
        .iter()
        .find(|(m, _)| text.contains(m))
        .map(|(_, wall)| (*wall).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn walls_are_told_by_header_or_page_and_only_for_their_statuses() {
        let cf = headers(&[("cf-mitigated", "challenge")]);
        assert!(in_headers(403, &cf).is_some());
        assert!(in_headers(404, &cf).is_none());
        assert!(in_headers(429, &headers(&[("retry-after", "30")])).is_some());
        assert!(in_headers(429, &headers(&[])).is_none());
        let moment = b"<title>Just a moment...</title>";
        assert!(in_page(403, Some("cloudflare"), moment).is_some());
        assert!(in_page(403, Some("nginx"), moment).is_none());
        assert!(in_page(403, None, b"<h1>Access Denied</h1> Reference #18.2ae").is_some());
        assert!(in_page(403, None, b"<h1>Access Denied</h1>").is_none());
        assert!(in_page(410, None, b"g-recaptcha").is_none());
        assert!(in_page(503, None, b"<div class=\"g-recaptcha\">").is_some());
    }
}
