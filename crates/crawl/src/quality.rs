//! What the audit's page checks read of a page beyond its head: images,
//! `<title>` elements, its language, viewport, ids, heading order, words,
//! JSON-LD blocks and links written without a scheme; and, added from the
//! response, the security headers of an HTTPS page. Stored as one JSON
//! object per page (`pages.quality`, schema 10), read by the audit with
//! SQLite's JSON functions.

use std::collections::HashSet;

use serde::Serialize;

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
    /// The security headers an HTTPS page was served with (`None`: not an
    /// HTTPS page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<botwarden_fetch::SecurityHeaders>,
}

/// The state of the HTML pass behind [`Quality`].
#[derive(Debug, Default)]
pub(crate) struct QualityPass {
    pub(crate) quality: Quality,
    ids: HashSet<String>,
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

/// Why a JSON-LD block is not JSON, if it is not: the parser's message
/// with the line and column within the block.
#[must_use]
pub fn jsonld_error(text: &str) -> Option<String> {
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .err()
        .map(|e| e.to_string())
}
