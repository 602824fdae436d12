//! What the audit's page checks read of a page beyond its head: images,
//! `<title>` elements, its language, viewport, ids, heading order, words,
//! JSON-LD blocks (whether they parse, the properties rich results need
//! that their items lack, their contexts), microdata and RDFa items, the
//! ids and names a link's fragment may name, the links that name one,
//! hreflang URLs written relative, and links written without a scheme;
//! and, added from the response, the security headers of an HTTPS page.
//! Stored as one JSON object per page (`pages.quality`, schema 10), read
//! by the audit with SQLite's JSON functions. The fields added after
//! schema 10's first release are left out of the JSON when they are zero
//! or empty, except [`Quality::fragment_targets`], whose absence marks a
//! page read before it was kept.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write as _;

use serde::Serialize;

/// A page with more ids and names than this keeps none
/// ([`Quality::fragment_targets_capped`]): links to it are not judged.
pub const MAX_FRAGMENT_TARGETS: usize = 10_000;

/// The links with a fragment kept per page ([`Quality::fragment_links`]).
pub const MAX_FRAGMENT_LINKS: usize = 1_000;

/// Distinct `@context` vocabularies kept per page
/// ([`Quality::jsonld_contexts`]).
pub const MAX_CONTEXTS: usize = 5;

/// An image's `alt` longer than this many characters is reported.
pub const LONG_ALT: usize = 100;

/// What the page checks read of a page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Quality {
    /// `<img>` elements.
    pub images: u32,
    /// Those without an `alt` attribute (`alt=""` is a decorative
    /// image's, and fine).
    pub images_no_alt: u32,
    /// The first one's `src`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images_no_alt_first: Option<String>,
    /// Those whose `alt` is longer than [`LONG_ALT`] characters.
    pub images_long_alt: u32,
    /// The first one's `src`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images_long_alt_first: Option<String>,
    /// Those without both `width` and `height`.
    pub images_no_size: u32,
    /// The first one's `src`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images_no_size_first: Option<String>,
    /// `<title>` elements of the document (not SVG's own).
    pub titles: u32,
    /// The `<html lang>`, as written (`None`: no attribute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Whether a `<meta name="viewport">` is there.
    pub viewport: bool,
    /// Ids given to more than one element (each counted once).
    pub duplicate_ids: u32,
    /// The first of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_id_first: Option<String>,
    /// The first heading that skips a level (`h2 → h4`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading_skip: Option<String>,
    /// Words of visible text, as the SimHash reads them (between the
    /// markup, without scripts, styles, the title and the like; a
    /// `<template>`'s text is read too).
    pub words: u32,
    /// `<script type="application/ld+json">` blocks.
    pub jsonld: u32,
    /// Why the first one that is not JSON is not (`block 2: …`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jsonld_error: Option<String>,
    /// Links written without a scheme (`//cdn.example/x`).
    pub protocol_relative: u32,
    /// The first of them, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_relative_first: Option<String>,
    /// The ids of the page's elements and the names of its `<a name>`
    /// elements, outside `<template>`s: each [`fragment_hash`] as eight
    /// hexadecimal digits, distinct, in ascending order. Empty when the
    /// page has more than [`MAX_FRAGMENT_TARGETS`].
    pub fragment_targets: String,
    /// Whether the page had more than [`MAX_FRAGMENT_TARGETS`] ids and
    /// names.
    #[serde(skip_serializing_if = "is_false")]
    pub fragment_targets_capped: bool,
    /// The page's `<a>` and `<area>` links whose fragment names an element
    /// ([`FragmentLink`]), the first [`MAX_FRAGMENT_LINKS`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fragment_links: Vec<FragmentLink>,
    /// Elements with an `itemscope` attribute (microdata items).
    #[serde(skip_serializing_if = "is_zero")]
    pub microdata: u32,
    /// Elements with a `typeof` attribute (RDFa typed resources).
    #[serde(skip_serializing_if = "is_zero")]
    pub rdfa: u32,
    /// JSON-LD items of a type whose rich result needs properties they
    /// lack (`crate::structured`).
    #[serde(skip_serializing_if = "is_zero")]
    pub jsonld_missing: u32,
    /// The first of them: `block 1: Product lacks offers, review or
    /// aggregateRating`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jsonld_missing_first: Option<String>,
    /// The distinct vocabularies the JSON-LD items' `@context`s name, one
    /// entry per item's context (`schema.org`, or several joined by ` + `
    /// for an array), the first [`MAX_CONTEXTS`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jsonld_contexts: Vec<String>,
    /// hreflang alternates whose URL is written relative (without a
    /// scheme).
    #[serde(skip_serializing_if = "is_zero")]
    pub hreflang_relative: u32,
    /// The first of them, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hreflang_relative_first: Option<String>,
    /// The security headers an HTTPS page was served with (`None`: not an
    /// HTTPS page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<botwarden_fetch::SecurityHeaders>,
}

/// A link whose fragment names an element of its target, stored as the
/// array `[position, fragment, hash, decoded hash]`: the link's place
/// among the page's links (`links.position`), its fragment as written
/// (without a text directive `:~:…`), and the [`fragment_hash`] of the
/// fragment as written and percent-decoded, the two forms a browser looks
/// for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FragmentLink(pub u32, pub String, pub u32, pub u32);

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_false(b: &bool) -> bool {
    !*b
}

/// The 32-bit FNV-1a hash of an id, a name or a fragment (its UTF-8
/// bytes). Two different strings share a hash rarely enough (a fragment
/// missing from a page of 1,000 ids matches one by chance once in four
/// million) that a missing fragment is missed, never one present reported.
#[must_use]
pub fn fragment_hash(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5, |h: u32, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The fragment of an `href` that must name an element, if it has one:
/// the part after the first `#`, without a text directive (`:~:` and what
/// follows); not an empty one nor `top` in any case (both lead to the top
/// of the page).
#[must_use]
pub fn element_fragment(href: &str) -> Option<&str> {
    let (_, fragment) = href.split_once('#')?;
    let fragment = fragment.find(":~:").map_or(fragment, |at| &fragment[..at]);
    (!fragment.is_empty() && !fragment.eq_ignore_ascii_case("top")).then_some(fragment)
}

/// A fragment percent-decoded, as a browser decodes it to find an element
/// (bytes that are not UTF-8 replaced by U+FFFD).
#[must_use]
pub fn percent_decoded(fragment: &str) -> Cow<'_, str> {
    if !fragment.contains('%') {
        return Cow::Borrowed(fragment);
    }
    let bytes = fragment.as_bytes();
    let hex = |b: u8| char::from(b).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let pair = bytes
            .get(i + 1)
            .copied()
            .and_then(hex)
            .zip(bytes.get(i + 2).copied().and_then(hex));
        match pair {
            Some((hi, lo)) if bytes[i] == b'%' => {
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
                i += 3;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// The [`FragmentLink`] of a link at `position` with this `href`, if its
/// fragment names an element.
#[must_use]
pub fn fragment_link(position: u32, href: &str) -> Option<FragmentLink> {
    let fragment = element_fragment(href)?;
    Some(FragmentLink(
        position,
        fragment.to_owned(),
        fragment_hash(fragment),
        fragment_hash(&percent_decoded(fragment)),
    ))
}

/// The state of the HTML pass behind [`Quality`].
#[derive(Debug, Default)]
pub(crate) struct QualityPass {
    pub(crate) quality: Quality,
    ids: HashSet<String>,
    /// The hashes of the `<a name>` values.
    names: Vec<u32>,
    repeated: HashSet<String>,
    last_heading: Option<u8>,
    /// Where each JSON-LD block starts.
    pub(crate) jsonld_at: Vec<usize>,
}

impl QualityPass {
    /// An `<img>` with these attributes.
    pub(crate) fn image(
        &mut self,
        src: Option<&str>,
        alt: Option<&str>,
        width: bool,
        height: bool,
    ) {
        let q = &mut self.quality;
        q.images += 1;
        let src = || src.unwrap_or_default().to_owned();
        match alt {
            None => {
                q.images_no_alt += 1;
                q.images_no_alt_first.get_or_insert_with(src);
            }
            Some(a) if a.trim().chars().count() > LONG_ALT => {
                q.images_long_alt += 1;
                q.images_long_alt_first.get_or_insert_with(src);
            }
            Some(_) => {}
        }
        if !(width && height) {
            q.images_no_size += 1;
            q.images_no_size_first.get_or_insert_with(src);
        }
    }

    /// An element's `id`.
    pub(crate) fn id(&mut self, id: &str) {
        if id.is_empty() {
            return;
        }
        if !self.ids.insert(id.to_owned()) && self.repeated.insert(id.to_owned()) {
            self.quality.duplicate_ids += 1;
            self.quality
                .duplicate_id_first
                .get_or_insert_with(|| id.to_owned());
        }
    }

    /// An `<a>` element's `name`, which a fragment may name as it names
    /// an id.
    pub(crate) fn name(&mut self, name: &str) {
        if !name.is_empty() {
            self.names.push(fragment_hash(name));
        }
    }

    /// The start tag of an element with an `itemscope` or a `typeof`
    /// attribute.
    pub(crate) fn item(&mut self, itemscope: bool, typeof_: bool) {
        self.quality.microdata += u32::from(itemscope);
        self.quality.rdfa += u32::from(typeof_);
    }

    /// [`Quality::fragment_targets`] from the ids and names met.
    pub(crate) fn finish_fragment_targets(&mut self) {
        let mut hashes: Vec<u32> = self.ids.iter().map(|id| fragment_hash(id)).collect();
        hashes.append(&mut self.names);
        hashes.sort_unstable();
        hashes.dedup();
        if hashes.len() > MAX_FRAGMENT_TARGETS {
            self.quality.fragment_targets_capped = true;
            return;
        }
        let mut out = String::with_capacity(hashes.len() * 8);
        for h in hashes {
            let _ = write!(out, "{h:08x}");
        }
        self.quality.fragment_targets = out;
    }

    /// A heading `<hN>`.
    pub(crate) fn heading(&mut self, level: u8) {
        if let Some(prev) = self.last_heading
            && level > prev + 1
            && self.quality.heading_skip.is_none()
        {
            self.quality.heading_skip = Some(format!("h{prev} → h{level}"));
        }
        self.last_heading = Some(level);
    }
}

/// Whether a URL as written is relative: it has no scheme (`/de/`,
/// `de.html`, `//example.com/de/`, an empty one).
#[must_use]
pub fn is_relative(href: &str) -> bool {
    matches!(
        url::Url::parse(href.trim()),
        Err(url::ParseError::RelativeUrlWithoutBase)
    ) || href.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_that_name_an_element() {
        for (href, want) in [
            ("/a#b", Some("b")),
            ("#top", None),
            ("#TOP", None),
            ("/a#", None),
            ("/a", None),
            ("#:~:text=hello", None),
            ("#sec:~:text=x", Some("sec")),
            ("#a#b", Some("a#b")),
        ] {
            assert_eq!(element_fragment(href), want, "{href}");
        }
        assert_eq!(percent_decoded("caf%C3%A9"), "café");
        assert_eq!(percent_decoded("100%"), "100%");
        assert_eq!(percent_decoded("%zz%4"), "%zz%4");
        assert_eq!(percent_decoded("%FF"), "\u{fffd}");
        let link = fragment_link(7, "/p#caf%C3%A9").expect("a fragment");
        assert_eq!(
            (link.0, link.2, link.3),
            (7, fragment_hash("caf%C3%A9"), fragment_hash("café"))
        );
        assert_ne!(fragment_hash("a"), fragment_hash("b"));
    }

    #[test]
    fn relative_urls() {
        for r in ["/de/", "de.html", "//example.com/de/", "", "?x", "#a"] {
            assert!(is_relative(r), "{r}");
        }
        for a in [
            "https://example.com/de/",
            "HTTP://example.com/",
            "mailto:x@example.com",
        ] {
            assert!(!is_relative(a), "{a}");
        }
    }
}
