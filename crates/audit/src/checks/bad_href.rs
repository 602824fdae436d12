//! The links that lead nowhere a browser or a crawler can go: what
//! `links/malformed-href`, `links/long-url`, `links/unknown-scheme`,
//! `links/javascript-href` and `links/empty-href` share.

use url::Url;

use std::sync::Arc;

use botwarden_store::{MAX_URL_LEN, UrlProblem, normalize_url};
use crate::{Context, Finding, Interner, LINK_KINDS, LinkSource, link_kind};

/// What is wrong with a link's `href`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bad {
    /// The WHATWG URL parser fails on it, resolved against its page.
    Malformed,
    /// A valid `http(s)` URL longer than [`MAX_URL_LEN`] bytes.
    Long,
    /// A valid URL whose scheme no browser follows ([`KNOWN_SCHEMES`]).
    UnknownScheme,
    /// `javascript:`.
    Javascript,
    /// Empty.
    Empty,
}

/// The schemes a browser follows from a link, or hands to an application
/// it knows: the fetch schemes (`about`, `blob`, `data`, `file`, `http`,
/// `https`), `javascript` (its own check), the schemes HTML lets a site
/// register a handler for (`registerProtocolHandler`'s safelist: `bitcoin`
/// to `xmpp`) and `ftp`. `web+` schemes are a site's own handlers and are
/// known too. Any other scheme (`slice:` of `slice::sort_by_key`, `c:` of a
/// Windows path) opens nothing in a browser without an application of its
/// own.
pub(crate) const KNOWN_SCHEMES: &[&str] = &[
    "about",
    "blob",
    "data",
    "file",
    "ftp",
    "http",
    "https",
    "javascript",
    "bitcoin",
    "ftps",
    "geo",
    "im",
    "irc",
    "ircs",
    "magnet",
    "mailto",
    "matrix",
    "mms",
    "news",
    "nntp",
    "openpgp4fpr",
    "sftp",
    "sip",
    "sms",
    "smsto",
    "ssh",
    "tel",
    "urn",
    "webcal",
    "wtai",
    "xmpp",
];

/// What a link's `href`, written `text` on the page `source`, is, if it
/// is bad.
pub(crate) fn classify(source: &str, text: &str) -> Option<Bad> {
    let text = text.trim();
    if text.is_empty() {
        return Some(Bad::Empty);
    }
    if text
        .get(..11)
        .is_some_and(|s| s.eq_ignore_ascii_case("javascript:"))
    {
        return Some(Bad::Javascript);
    }
    let Ok(base) = Url::parse(source) else {
        return None;
    };
    match base.join(text) {
        Err(_) => Some(Bad::Malformed),
        Ok(u) if matches!(u.scheme(), "http" | "https") => match normalize_url(u) {
            // Of valid http(s) URLs the crawler refuses only those over
            // its limit; it keeps the first 2,048 characters of an href it
            // refused, so a kept href that long was longer.
            Err(UrlProblem::TooLong(_)) => Some(Bad::Long),
            Err(_) => Some(Bad::Malformed),
            Ok(_) if text.chars().count() >= MAX_URL_LEN => Some(Bad::Long),
            Ok(_) => None,
        },
        Ok(u) if known_scheme(u.scheme()) => None,
        Ok(_) => Some(Bad::UnknownScheme),
    }
}

/// Whether browsers follow links of this (lower-case) scheme.
pub(crate) fn known_scheme(scheme: &str) -> bool {
    KNOWN_SCHEMES.contains(&scheme) || scheme.starts_with("web+")
}

/// One finding per page with links of the kind `which`: the page, how
/// many, and the offending hrefs as written (at most ten, in `related`,
/// with their links in `links`).
pub(crate) fn findings(cx: &Context<'_>, which: Bad) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT s.id, s.url, l.target, l.kind, l.anchor
             FROM links l JOIN urls s ON s.id = l.source_id
             WHERE l.target_id IS NULL AND l.target IS NOT NULL AND l.kind IN {LINK_KINDS}
             ORDER BY l.source_id, l.position"
        ),
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        },
    )?;
    let mut out: Vec<Finding> = Vec::new();
    let mut last: Option<i64> = None;
    let mut anchors = Interner::default();
    let mut page: Arc<str> = Arc::from("");
    for (id, source, text, kind, anchor) in rows {
        if classify(&source, &text) != Some(which) {
            continue;
        }
        if last != Some(id) {
            last = Some(id);
            page = Arc::from(source.as_str());
            out.push(Finding::new(source, String::new()));
        }
        let Some(f) = out.last_mut() else { continue };
        f.link_count += 1;
        if f.links.len() < 10 {
            f.related.push(format!("href=\"{text}\""));
            f.links.push(LinkSource {
                source: Arc::clone(&page),
                kind: link_kind(&kind)?,
                anchor: anchor.map(|a| anchors.get(&a)),
            });
        }
    }
    for f in &mut out {
        f.related_count = f.link_count;
        let n = f.link_count;
        f.message = match which {
            Bad::Malformed => format!("{n} link(s) whose href is not a URL"),
            Bad::Long => {
                format!("{n} link(s) to URLs longer than {MAX_URL_LEN} bytes, not crawled")
            }
            Bad::UnknownScheme => {
                let schemes = f
                    .related
                    .iter()
                    .filter_map(|r| {
                        let href = r.strip_prefix("href=\"")?.trim_start();
                        let (scheme, _) = href.split_once(':')?;
                        Some(format!("{}:", scheme.to_ascii_lowercase()))
                    })
                    .fold(Vec::<String>::new(), |mut v, s| {
                        if !v.contains(&s) {
                            v.push(s);
                        }
                        v
                    });
                format!(
                    "{n} link(s) with a scheme browsers do not follow ({})",
                    schemes.join(", ")
                )
            }
            Bad::Javascript => format!("{n} link(s) with a javascript: href"),
            Bad::Empty => format!("{n} link(s) with an empty href"),
        };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_are_told_apart() {
        let page = "https://example.com/a/";
        assert_eq!(classify(page, ""), Some(Bad::Empty));
        assert_eq!(classify(page, "  "), Some(Bad::Empty));
        assert_eq!(classify(page, "JavaScript:void(0)"), Some(Bad::Javascript));
        assert_eq!(classify(page, "http://exa mple.com/"), Some(Bad::Malformed));
        assert_eq!(classify(page, "http://[::1/"), Some(Bad::Malformed));
        assert_eq!(classify(page, "https://exa%mple.com/"), Some(Bad::Malformed));
        assert_eq!(classify(page, "mailto:x@example.com"), None);
        assert_eq!(classify(page, "tel:+331234"), None);
        assert_eq!(classify(page, "web+coffee:espresso"), None);
        assert_eq!(classify(page, "SMS:+331234"), None);
        assert_eq!(
            classify(page, "slice::sort_by_key"),
            Some(Bad::UnknownScheme)
        );
        assert_eq!(classify(page, "C:\\docs\\a.html"), Some(Bad::UnknownScheme));
        // A relative path with a colon after a slash is a path.
        assert_eq!(classify(page, "./slice::sort_by_key"), None);
        let long = format!("/search?q={}", "a".repeat(MAX_URL_LEN));
        assert_eq!(classify(page, &long), Some(Bad::Long));
        let under = format!("/search?q={}", "a".repeat(MAX_URL_LEN - 60));
        assert_eq!(classify(page, &under), None);
    }
}
