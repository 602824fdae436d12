//! The links that lead nowhere a crawler can go: what
//! `links/malformed-href`, `links/javascript-href` and `links/empty-href`
//! share.

use url::Url;

use std::sync::Arc;

use crate::audit::{Context, Finding, Interner, LINK_KINDS, LinkSource, link_kind};

/// What is wrong with a link's `href`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bad {
    /// Not a URL, or an `http(s)` URL the crawler cannot use.
    Malformed,
    /// `javascript:`.
    Javascript,
    /// Empty.
    Empty,
}

/// What a link's `href`, written `text` on the page `source`, is, if it
/// is bad (other schemes, `mailto:`, `tel:`, are fine).
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
    match Url::parse(source).and_then(|base| base.join(text)) {
        Err(_) => Some(Bad::Malformed),
        // The crawler refused an http(s) URL: too long, or not usable.
        Ok(u) if matches!(u.scheme(), "http" | "https") => Some(Bad::Malformed),
        Ok(_) => None,
    }
}

/// One finding per page with links of the kind `which`: the page, how
/// many, and the hrefs as written (at most ten, in `related`).
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
    let what = match which {
        Bad::Malformed => "malformed href",
        Bad::Javascript => "javascript: href",
        Bad::Empty => "empty href",
    };
    for f in &mut out {
        f.message = format!("{} link(s) with a {what}", f.link_count);
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
        assert_eq!(classify(page, "mailto:x@example.com"), None);
        assert_eq!(classify(page, "tel:+331234"), None);
    }
}
