//! The resources a page uses, as its markup names them: `<img src>`,
//! `<script src>` and `<link rel=stylesheet href>`, outside `<template>`s.
//! A `srcset`'s candidates, icons, preloads and media are not read: the
//! three kinds are what a renderer needs to draw the page, and what the
//! audit's checks judge.

use lol_html::html_content::Element;

use botwarden_store::{PageResourceRecord, ResourceKind, normalize_url};
use url::Url;

/// One resource as the page writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsedResource {
    /// What it is.
    pub kind: ResourceKind,
    /// Its URL as written, trimmed, character references decoded.
    pub href: String,
}

/// The resource `el` (named `name`) uses, if it is one.
pub(crate) fn used(el: &Element<'_, '_>, name: &str) -> Option<UsedResource> {
    let (kind, attribute) = match name {
        "img" => (ResourceKind::Image, "src"),
        "script" => (ResourceKind::Script, "src"),
        "link" if is_stylesheet(el) => (ResourceKind::Style, "href"),
        _ => return None,
    };
    let href = crate::html::decode_entities(el.get_attribute(attribute)?);
    let href = href.trim();
    (!href.is_empty()).then(|| UsedResource {
        kind,
        href: href.to_owned(),
    })
}

/// Whether a `<link>`'s `rel` has the word `stylesheet` (an alternate
/// style sheet is one too: it is loaded when chosen).
fn is_stylesheet(el: &Element<'_, '_>) -> bool {
    el.get_attribute("rel").is_some_and(|rel| {
        rel.split_ascii_whitespace()
            .any(|w| w.eq_ignore_ascii_case("stylesheet"))
    })
}

/// The records of the resources page `source` uses, each URL resolved
/// against `base` and in its normal form, once per page (its first
/// kind), `http` and `https` only (a `data:` image is in the page; a
/// URL that is not one is not requested by a browser either).
pub(crate) fn record_used(
    source: u64,
    base: &Url,
    used: Vec<UsedResource>,
    out: &mut Vec<PageResourceRecord>,
) {
    let mut seen = std::collections::HashSet::new();
    let mut position = 0u32;
    for u in used {
        let Ok(url) = base.join(&u.href).map(normalize_url) else {
            continue;
        };
        let Ok(url) = url.map(String::from) else {
            continue;
        };
        if !seen.insert(url.clone()) {
            continue;
        }
        out.push(PageResourceRecord {
            source,
            position,
            kind: u.kind,
            url,
        });
        position += 1;
    }
}
