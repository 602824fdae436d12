//! What the crawler reads from an HTML page, in one streaming pass
//! (lol_html): links, the `<base>`, robots `<meta>` tags, canonical and
//! hreflang links, a meta refresh, the title, a head that ends early and
//! `http://` subresources.
//!
//! The page is read as the HTML standard parses it with scripting
//! disabled, as a browser that runs no scripts (and botwarden) does: what
//! a `<noscript>` holds is markup, whose links, frames and images are read
//! and whose text is page text (mdBook's sidebar for readers without
//! scripts is `<noscript><iframe src="toc.html"></iframe></noscript>`).
//! Where the head ends ([`HeadBreak`]) is read as a browser that runs
//! scripts reads it, as search engines' renderers do: there a
//! `<noscript>` holds text. A UTF-8 byte-order mark is not text.
//!
//! Links are `<a href>` and `<area href>` (with their `rel` words and, for
//! `<a>`, the text inside), `<iframe src>` and `<frame src>`, wherever
//! they stand (in a `<frameset>`, in a `<noscript>`). Images,
//! scripts and style sheets are not links of the site's graph; only those
//! written as plain `http://` URLs are noted ([`Insecure`], for mixed
//! content). URLs are kept as written, character references decoded;
//! [`HtmlFacts::base_url`] gives the URL they are resolved against (the
//! first `<base href>`, as browsers do). Where a body element or text ends
//! the head early is noted too ([`HeadBreak`]).
//!
//! The page's bytes are decoded as a byte-order mark says, else as the
//! HTTP `charset` says, else as a `<meta charset>` near the start says,
//! else as UTF-8 when they are valid UTF-8, else as windows-1252 (the
//! HTML standard's fallback for documents that declare nothing).
//!
//! The SimHash of the page's visible text ([`HtmlFacts::simhash`]) reads
//! the text from the page's bytes beside the parser (`scan_text`): the
//! parser's own text chunks cost more than the rest of the pass.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::ControlFlow;

use std::cell::Cell;
use std::rc::Rc;
use std::sync::LazyLock;

use botwarden_store::TextReading;
use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{AsciiCompatibleEncoding, HtmlRewriter, Selector, Settings, doc_text};
use url::Url;

use crate::error::Error;

/// Which element a link came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkElement {
    /// `<a href>`.
    A,
    /// `<area href>`.
    Area,
    /// `<iframe src>` or `<frame src>`.
    Frame,
}

impl LinkElement {
    /// The element's name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            LinkElement::A => "a",
            LinkElement::Area => "area",
            LinkElement::Frame => "iframe",
        }
    }
}

/// The `rel` words of a link that tell a crawler not to follow it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Rel {
    /// `nofollow`.
    pub nofollow: bool,
    /// `ugc` (user-generated content).
    pub ugc: bool,
    /// `sponsored`.
    pub sponsored: bool,
}

impl Rel {
    /// Reads a `rel` attribute (words separated by white space, any case).
    #[must_use]
    pub fn parse(value: &str) -> Rel {
        let mut rel = Rel::default();
        for word in value.split_ascii_whitespace() {
            if word.eq_ignore_ascii_case("nofollow") {
                rel.nofollow = true;
            } else if word.eq_ignore_ascii_case("ugc") {
                rel.ugc = true;
            } else if word.eq_ignore_ascii_case("sponsored") {
                rel.sponsored = true;
            }
        }
        rel
    }

    /// Whether any of the words is there: each asks not to follow.
    #[must_use]
    pub fn any(self) -> bool {
        self.nofollow || self.ugc || self.sponsored
    }

    /// The words present, space-separated (`nofollow ugc`), or `""`.
    #[must_use]
    pub fn words(self) -> String {
        let mut out = Vec::new();
        if self.nofollow {
            out.push("nofollow");
        }
        if self.ugc {
            out.push("ugc");
        }
        if self.sponsored {
            out.push("sponsored");
        }
        out.join(" ")
    }
}

/// One link as written in the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlLink {
    /// The `href` (or `src`) as written, trimmed.
    pub href: String,
    /// The element.
    pub element: LinkElement,
    /// Its `rel` words.
    pub rel: Rel,
    /// The text inside an `<a>`, white space collapsed, at most
    /// [`MAX_ANCHOR`] characters (or an `<area>`'s `alt`).
    pub anchor: String,
    /// Where the element starts in the page, in bytes.
    pub offset: usize,
}

/// Longest anchor text kept, in characters.
pub const MAX_ANCHOR: usize = 200;

/// A `<meta name content>` tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// The name, as written.
    pub name: String,
    /// The content, as written.
    pub content: String,
}

/// An alternate version of the page (`<link rel="alternate" hreflang>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternate {
    /// The language (`en-gb`, `x-default`).
    pub hreflang: String,
    /// Its URL, as written.
    pub href: String,
}

/// Everything read from one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HtmlFacts {
    /// The first `<base href>`, as written.
    pub base: Option<String>,
    /// Links, in page order.
    pub links: Vec<HtmlLink>,
    /// Every `<meta name content>`.
    pub metas: Vec<Meta>,
    /// Every `<link rel="canonical" href>`, as written.
    pub canonicals: Vec<String>,
    /// `<link rel="alternate" hreflang href>`.
    pub alternates: Vec<Alternate>,
    /// The first `<meta http-equiv="refresh" content>`.
    pub refresh: Option<String>,
    /// The first `<title>`'s text, white space collapsed.
    pub title: Option<String>,
    /// The encoding the page was read in.
    pub encoding: &'static str,
    /// How many `<base href>` elements.
    pub base_count: u32,
    /// How many `<link rel="canonical">` come after the `<head>` ended
    /// (its end tag or a `<body>` start tag).
    pub canonicals_outside_head: u32,
    /// The first `<h1>`'s text, white space collapsed, at most
    /// [`MAX_ANCHOR`] characters.
    pub h1: Option<String>,
    /// How many `<h1>` elements.
    pub h1_count: u32,
    /// The encoding a `<meta charset>` (or `<meta http-equiv="content-type">`)
    /// declares, as written.
    pub meta_charset: Option<String>,
    /// The SimHash of the visible text (64 bits over its three-word
    /// shingles), `None` when the text has fewer than ten words.
    pub simhash: Option<u64>,
    /// The first element or text of the body met inside `<head>`, where
    /// parsers end the head early ([`HeadBreak`]).
    pub head_break: Option<HeadBreak>,
    /// The head elements (`<title>`, `<base>`, `<link>`, `<meta>`) after
    /// the [`HtmlFacts::head_break`] and before the head's written end: a
    /// parser reads them as part of the body, and search engines ignore
    /// them. At most [`MAX_EXAMPLES`]; [`HtmlFacts::head_ignored_count`]
    /// counts them all.
    pub head_ignored: Vec<Placed>,
    /// How many head elements the break leaves out of the head.
    pub head_ignored_count: u32,
    /// Subresources loaded over plain `http://` ([`Insecure`]): the first
    /// [`MAX_EXAMPLES`]; the counts are in
    /// [`HtmlFacts::insecure_active`] and [`HtmlFacts::insecure_passive`].
    pub insecure: Vec<Insecure>,
    /// How many `http://` scripts, style sheets, frames, objects, embeds
    /// and form actions.
    pub insecure_active: u32,
    /// How many `http://` images, audio, video and their sources.
    pub insecure_passive: u32,
    /// What the audit's page checks read (images, titles, language, ids,
    /// headings, words, JSON-LD, scheme-less links).
    pub quality: crate::quality::Quality,
    /// The images, scripts and style sheets the page uses, in page order.
    pub resources: Vec<crate::resources::UsedResource>,
}

/// The most of a JSON-LD block read to check that it is JSON.
const MAX_JSONLD: usize = 1 << 20;

/// Examples of a kind kept per page (ignored head elements, insecure
/// subresources).
pub const MAX_EXAMPLES: usize = 10;

/// Where the head ends early: an element that belongs in the body (any
/// element but `<html>`, `<head>`, `<title>`, `<base>`, `<link>`,
/// `<meta>`, `<style>`, `<script>`, `<noscript>` and `<template>`, or
/// what a `<template>` holds), or text other than white space, met before
/// the head's written end (`</head>` or `<body>`). A page that marks no
/// end of its head has no head break: its head ends where its body
/// starts, as its author meant. The head is read as a parser that runs
/// scripts reads it (as Google's renderer does): what a `<noscript>`
/// holds is text to it and does not count, although a parser without
/// scripts, which reads the page's links, ends the head at a `<noscript>`'s
/// `<img>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadBreak {
    /// The element's name (`img`, `div`), or `text`.
    pub element: String,
    /// Its line, from 1.
    pub line: u32,
}

/// A head element with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The element as it identifies itself: `<title>`, `<base>`,
    /// `<link rel="canonical">`, `<meta name="robots">`.
    pub what: String,
    /// Its line, from 1.
    pub line: u32,
}

/// A subresource written as a plain `http://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insecure {
    /// The element and attribute (`img src`, `script src`,
    /// `link rel=stylesheet href`, `form action`).
    pub element: String,
    /// The URL, as written.
    pub url: String,
    /// Whether browsers block it on an HTTPS page (active content:
    /// scripts, style sheets, frames, objects, embeds, form actions)
    /// rather than upgrade or show it (passive content: images, audio,
    /// video).
    pub active: bool,
    /// Its line, from 1.
    pub line: u32,
}

/// Whether a URL as written is a plain `http://` URL.
fn is_insecure(url: &str) -> bool {
    url.trim_start()
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("http:"))
}

/// Whether an element may stand in `<head>`.
fn head_element(name: &str) -> bool {
    matches!(
        name,
        "html"
            | "head"
            | "body"
            | "title"
            | "base"
            | "link"
            | "meta"
            | "style"
            | "script"
            | "noscript"
            | "template"
    )
}

/// The character references of a text or attribute value decoded (`&amp;`,
/// `&eacute;`, `&#233;`, `&#xE9;`), as HTML parsers do: lol_html gives
/// them as written.
#[must_use]
pub(crate) fn decode_entities(s: String) -> String {
    if s.contains('&') {
        html_escape::decode_html_entities(&s).into_owned()
    } else {
        s
    }
}

/// A string without white space at its ends, kept in place when it has
/// none (most attribute values).
fn trimmed(s: String) -> String {
    if s.trim().len() == s.len() {
        s
    } else {
        s.trim().to_owned()
    }
}

/// Pages with fewer words of visible text get no SimHash: their
/// fingerprints say little.
pub(crate) const SIMHASH_MIN_WORDS: usize = 10;

/// Words per shingle of [`simhash`].
pub(crate) const SHINGLE_WORDS: usize = 3;

/// The 64-bit SimHash of a text: its words (runs of ASCII letters and
/// digits and of non-ASCII characters, ASCII letters in lower case) taken
/// [`SHINGLE_WORDS`] at a time, each distinct shingle hashed to 64 bits
/// and counted once; bit `i` of the result is set when more shingles have
/// bit `i` set than not. Texts that share most of their shingles have
/// fingerprints a few bits apart. `None` when the text has fewer than
/// [`SIMHASH_MIN_WORDS`] words.
///
/// It runs for every HTML page the crawl reads, so it works on bytes: a
/// word is hashed as it is scanned (FNV-1a, [`Words`]), distinct shingles
/// are kept in an open-addressing table, and the bits are counted eight
/// at a time, one byte-wide counter per bit.
/// The crawler reads the text in pieces ([`Words`]); this is the whole
/// text at once, for the tests.
#[cfg(test)]
pub(crate) fn simhash(text: &str) -> Option<u64> {
    let mut words = Words::default();
    words.feed(text);
    words.simhash()
}

/// The FNV-1a offset basis a word's hash starts from.
const FNV_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// For each byte, the byte a word hashes it as (ASCII letters in lower
/// case, ASCII digits and non-ASCII bytes as they are), or 0 for a byte
/// that separates words: one load instead of three range tests a byte.
const WORD_BYTE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        // `b < 256`: the cast keeps every bit.
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() || byte >= 0x80 {
            table[b] = byte.to_ascii_lowercase();
        }
        b += 1;
    }
    table
};

/// The words of a text given in pieces (lol_html hands a page's text over
/// in chunks), each hashed as it is scanned: the same words, and the same
/// hashes, as [`simhash`] reads in the pieces joined. A word may run over
/// from one piece to the next; [`Words::end_word`] ends it where a text
/// node ends.
#[derive(Debug)]
pub(crate) struct Words {
    hashes: Vec<u64>,
    h: u64,
    in_word: bool,
}

impl Default for Words {
    fn default() -> Self {
        Words {
            hashes: Vec::new(),
            h: FNV_BASIS,
            in_word: false,
        }
    }
}

impl Words {
    /// Reads the next piece of text.
    pub(crate) fn feed(&mut self, text: &str) {
        self.feed_bytes(text.as_bytes());
    }

    /// Reads the next piece of text, UTF-8 bytes: separators skipped, then
    /// a word's bytes hashed, in two tight loops.
    pub(crate) fn feed_bytes(&mut self, text: &[u8]) {
        const PRIME: u64 = 0x0100_0000_01b3;
        let mut bytes = text.iter();
        let mut h = self.h;
        if !self.in_word {
            h = FNV_BASIS;
        }
        let mut in_word = self.in_word;
        loop {
            if !in_word {
                // Separators, to the first byte of a word.
                loop {
                    let Some(&b) = bytes.next() else {
                        self.in_word = false;
                        return;
                    };
                    let w = WORD_BYTE[usize::from(b)];
                    if w != 0 {
                        h = (FNV_BASIS ^ u64::from(w)).wrapping_mul(PRIME);
                        break;
                    }
                }
            }
            // The word, to the first separator.
            loop {
                let Some(&b) = bytes.next() else {
                    (self.h, self.in_word) = (h, true);
                    return;
                };
                let w = WORD_BYTE[usize::from(b)];
                if w == 0 {
                    break;
                }
                h = (h ^ u64::from(w)).wrapping_mul(PRIME);
            }
            self.hashes.push(h);
            in_word = false;
        }
    }

    /// How many words were read (the one being read ended).
    pub(crate) fn count(&mut self) -> usize {
        self.end_word();
        self.hashes.len()
    }

    /// Room for the words of `bytes` more bytes of text, about.
    pub(crate) fn reserve(&mut self, bytes: usize) {
        self.hashes.reserve(bytes / 6);
    }

    /// Ends the word being read, if any (as a separator would).
    pub(crate) fn end_word(&mut self) {
        if self.in_word {
            self.hashes.push(self.h);
            self.h = FNV_BASIS;
            self.in_word = false;
        }
    }

    /// The SimHash of the words read ([`simhash`]).
    pub(crate) fn simhash(mut self) -> Option<u64> {
        self.end_word();
        shingles_simhash(&self.hashes)
    }
}

/// The SimHash over the three-word shingles of words given by their
/// hashes ([`simhash`]).
fn shingles_simhash(words: &[u64]) -> Option<u64> {
    if words.len() < SIMHASH_MIN_WORDS {
        return None;
    }
    // Distinct shingles: a table at most two thirds full (it is cleared
    // for every page: a larger one costs more to clear than its probes
    // save), 0 marking a free slot (a shingle that hashes to 0, one in
    // 2^64, counts as 1).
    let slots = (words.len() + words.len() / 2).next_power_of_two();
    let mut table = vec![0u64; slots];
    let mut distinct: Vec<u64> = Vec::with_capacity(words.len());
    for w in words.windows(SHINGLE_WORDS) {
        let shingle = mix(w[0] ^ w[1].rotate_left(21) ^ w[2].rotate_left(42)).max(1);
        let mut i = usize::try_from(shingle >> 32).unwrap_or(0) & (slots - 1);
        loop {
            if table[i] == 0 {
                table[i] = shingle;
                distinct.push(shingle);
                break;
            }
            if table[i] == shingle {
                break;
            }
            i = (i + 1) & (slots - 1);
        }
    }
    // Ones per bit position, eight byte-wide counters per 64-bit word,
    // emptied before they can overflow.
    let mut ones = [0u32; 64];
    let mut lanes = [0u64; 8];
    let empty = |lanes: &mut [u64; 8], ones: &mut [u32; 64]| {
        for (k, lane) in lanes.iter_mut().enumerate() {
            for (bit, byte) in lane.to_le_bytes().iter().enumerate() {
                ones[8 * k + bit] += u32::from(*byte);
            }
            *lane = 0;
        }
    };
    for chunk in distinct.chunks(255) {
        for shingle in chunk {
            for (k, lane) in shingle.to_le_bytes().iter().enumerate() {
                lanes[k] += SPREAD[usize::from(*lane)];
            }
        }
        empty(&mut lanes, &mut ones);
    }
    let total = u64::try_from(distinct.len()).unwrap_or(u64::MAX);
    Some(
        ones.iter()
            .enumerate()
            .filter(|(_, n)| u64::from(**n) * 2 > total)
            .fold(0u64, |acc, (bit, _)| acc | 1 << bit),
    )
}

/// Elements whose content is not visible text: raw text, escapable raw
/// text and script data to an HTML parser with scripting disabled (so
/// not `<noscript>`, whose content is markup then), and `<plaintext>`,
/// which runs to the end.
fn hidden_content(name: &[u8]) -> bool {
    const HIDDEN: [&[u8]; 9] = [
        b"script",
        b"style",
        b"title",
        b"textarea",
        b"xmp",
        b"iframe",
        b"noembed",
        b"noframes",
        b"plaintext",
    ];
    HIDDEN.iter().any(|h| h.eq_ignore_ascii_case(name))
}

/// What [`scan_text`] learns about the head: where text that is not
/// white space first stands before the head's written end (outside a
/// `<template>`), the text's [`HeadBreak`].
#[derive(Debug, Default)]
pub(crate) struct HeadText {
    /// A `<head>` start tag was met: its end tag ends the head.
    head_seen: bool,
    /// `</head>` (after `<head>`) or `<body>` was met.
    over: bool,
    /// `<template>`s opened while the head was open, not yet closed.
    templates: u32,
    /// `<noscript>`s open: their text is text to a parser that runs
    /// scripts, as the head is read ([`HeadBreak`]).
    noscripts: u32,
    /// The offset of the first such text.
    pub(crate) text_break: Option<usize>,
}

impl HeadText {
    fn start_tag(&mut self, name: &[u8]) {
        if name.eq_ignore_ascii_case(b"head") {
            self.head_seen = true;
        } else if name.eq_ignore_ascii_case(b"body") {
            self.over = true;
        } else if name.eq_ignore_ascii_case(b"template") && !self.over {
            self.templates += 1;
        } else if is_noscript(name) {
            self.noscripts += 1;
        }
    }

    fn end_tag(&mut self, name: &[u8]) {
        if name.eq_ignore_ascii_case(b"head") && self.head_seen {
            self.over = true;
        } else if name.eq_ignore_ascii_case(b"template") {
            self.templates = self.templates.saturating_sub(1);
        } else if is_noscript(name) {
            self.noscripts = self.noscripts.saturating_sub(1);
        }
    }

    fn text(&mut self, at: usize, text: &[u8]) {
        if self.over || self.templates > 0 || self.noscripts > 0 || self.text_break.is_some() {
            return;
        }
        if let Some(k) = text.iter().position(|b| !b.is_ascii_whitespace()) {
            self.text_break = Some(at + k);
        }
    }
}

/// Whether a tag's name is `noscript`'s.
fn is_noscript(name: &[u8]) -> bool {
    name.len() == 8 && name.eq_ignore_ascii_case(b"noscript")
}

/// A `<noscript>` start or end tag met by the markup walk: where its name
/// starts, and whether it is the start tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NoscriptTag {
    name_at: usize,
    start: bool,
}

/// Where the name of a tag the walk met starts in the page: `name` is a
/// slice of `bytes`.
fn name_offset(bytes: &[u8], name: &[u8]) -> usize {
    (name.as_ptr() as usize).saturating_sub(bytes.as_ptr() as usize)
}

/// The `<noscript>` start and end tags of a page, in order, as the markup
/// walk tokenizes it (for the reading that does not scan the text).
fn noscript_tags(bytes: &[u8]) -> Vec<NoscriptTag> {
    let mut tags = Vec::new();
    walk_markup(bytes, 0, |m| {
        match m {
            Markup::Start(name, _) if is_noscript(name) => tags.push(NoscriptTag {
                name_at: name_offset(bytes, name),
                start: true,
            }),
            Markup::End(name) if is_noscript(name) => tags.push(NoscriptTag {
                name_at: name_offset(bytes, name),
                start: false,
            }),
            _ => {}
        }
        ControlFlow::Continue(())
    });
    tags
}

/// Reads the visible text of a page's bytes (an ASCII-compatible
/// encoding, `encoding`) into `words`, the text that breaks the head
/// into `head` and the `<noscript>` tags into `noscripts`: the text
/// outside the markup, as an HTML tokenizer splits
/// it, without the content of the [`hidden_content`] elements. Markup is
/// start and end tags (their attribute values quoted or not; a `>` inside
/// quotes does not end the tag), comments (`<!-- … -->`, ended by `-->`
/// or `--!>`, and `<!-->`, `<!--->`), `<!DOCTYPE …>` and bogus comments
/// (`<!…>`, `<?…>`, `</…>` that is not an end tag); a `<` that starts
/// none of these is text. Each piece of markup ends a word. Character
/// references stay as written; text in another encoding than UTF-8 is
/// decoded to UTF-8 for the words.
///
/// It reads what an HTML parser's text chunks of the data type hold on
/// pages written as HTML is written; it does not follow the parser into
/// foreign content (SVG and MathML, where `<title>` and `<style>` hold
/// visible text and `<![CDATA[…]]>` sections exist) nor into the escapes
/// of script data (`<!--<script>` inside a `<script>`).
pub(crate) fn scan_text(
    bytes: &[u8],
    encoding: &'static encoding_rs::Encoding,
    words: &mut Words,
    head: &mut HeadText,
    noscripts: &mut Vec<NoscriptTag>,
    ids: &mut crate::quality::QualityPass,
) {
    words.reserve(bytes.len());
    // `<template>`s open: what they hold is not the document's.
    let mut templates = 0u32;
    walk_markup(bytes, 0, |m| {
        match m {
            Markup::Text { at, run } => {
                head.text(at, run);
                if encoding == encoding_rs::UTF_8 {
                    words.feed_bytes(run);
                } else {
                    words.feed(&encoding.decode_without_bom_handling(run).0);
                }
            }
            Markup::Start(name, attributes) => {
                words.end_word();
                if templates == 0 {
                    tag_quality(ids, name, tag_facts(attributes), encoding);
                }
                if name.eq_ignore_ascii_case(b"template") {
                    templates += 1;
                }
                head.start_tag(name);
                if is_noscript(name) {
                    noscripts.push(NoscriptTag {
                        name_at: name_offset(bytes, name),
                        start: true,
                    });
                }
            }
            Markup::End(name) => {
                words.end_word();
                if name.eq_ignore_ascii_case(b"template") {
                    templates = templates.saturating_sub(1);
                }
                head.end_tag(name);
                if is_noscript(name) {
                    noscripts.push(NoscriptTag {
                        name_at: name_offset(bytes, name),
                        start: false,
                    });
                }
            }
            Markup::Other => words.end_word(),
        }
        ControlFlow::Continue(())
    });
}

/// What the page facts take of a start tag's attributes: its id, an
/// `<a>`'s name, whether it makes a microdata item or an RDFa resource.
fn tag_quality(
    q: &mut crate::quality::QualityPass,
    name: &[u8],
    f: TagFacts<'_>,
    encoding: &'static encoding_rs::Encoding,
) {
    let text = |v: &[u8]| decode_entities(decoded(v, encoding).into_owned());
    if let Some(id) = f.id {
        q.id(text(id).trim());
    }
    if name.eq_ignore_ascii_case(b"a")
        && let Some(n) = f.name
    {
        q.name(text(n).trim());
    }
    q.item(f.itemscope, f.typeof_);
}

/// A piece of a page met by [`walk_markup`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Markup<'a> {
    /// Text outside markup (character references as written), from
    /// offset `at`: a `<` that starts no markup is text.
    Text { at: usize, run: &'a [u8] },
    /// A start tag, by its name as written, and its attributes (the bytes
    /// from the name's end to the tag's `>`). The content of a
    /// [`hidden_content`] element is skipped: its end tag comes next.
    Start(&'a [u8], &'a [u8]),
    /// An end tag, by its name as written.
    End(&'a [u8]),
    /// A comment, a doctype, a processing instruction or a bogus
    /// comment.
    Other,
}

/// Walks a page's markup from offset `from` (which must not be inside
/// markup), as [`scan_text`] describes it, until `visit` breaks or the
/// page ends: each run of text whole, then the markup that ends it. A
/// page that ends inside markup, or inside a hidden element's content,
/// ends the walk there.
fn walk_markup<'a>(
    bytes: &'a [u8],
    from: usize,
    mut visit: impl FnMut(Markup<'a>) -> ControlFlow<()>,
) {
    let _ = walk(bytes, from, &mut visit);
}

/// The text from `from` to a piece of markup at `lt`, then the piece.
fn piece<'a, V: FnMut(Markup<'a>) -> ControlFlow<()>>(
    visit: &mut V,
    bytes: &'a [u8],
    from: usize,
    lt: usize,
    m: Markup<'a>,
) -> ControlFlow<()> {
    if lt > from {
        visit(Markup::Text {
            at: from,
            run: &bytes[from..lt],
        })?;
    }
    visit(m)
}

/// A start tag at `lt` (the text since `from` before it), and a hidden
/// element's content skipped to its end tag: where the walk goes on;
/// `Break` when the page ends inside them.
fn start_tag<'a, V: FnMut(Markup<'a>) -> ControlFlow<()>>(
    visit: &mut V,
    bytes: &'a [u8],
    from: usize,
    lt: usize,
) -> ControlFlow<(), usize> {
    const STOP: ControlFlow<(), usize> = ControlFlow::Break(());
    let (name_end, end) = tag_end(bytes, lt + 1);
    let name = &bytes[lt + 1..name_end];
    let Some(end) = end else {
        piece(visit, bytes, from, lt, Markup::Start(name, &[]))?;
        return STOP;
    };
    piece(
        visit,
        bytes,
        from,
        lt,
        Markup::Start(name, &bytes[name_end..end]),
    )?;
    if !hidden_content(name) {
        return ControlFlow::Continue(end);
    }
    if name.eq_ignore_ascii_case(b"plaintext") {
        return STOP;
    }
    let Some(close) = closing_tag(bytes, end, name) else {
        return STOP;
    };
    visit(Markup::End(name))?;
    match tag_end(bytes, close + 2).1 {
        Some(after) => ControlFlow::Continue(after),
        None => STOP,
    }
}

/// [`walk_markup`]; `Break` when it stops before the page's end.
fn walk<'a, V: FnMut(Markup<'a>) -> ControlFlow<()>>(
    bytes: &'a [u8],
    start: usize,
    visit: &mut V,
) -> ControlFlow<()> {
    const STOP: ControlFlow<()> = ControlFlow::Break(());
    let n = bytes.len();
    let mut i = start.min(n);
    // Where the current run of text started.
    let mut from = i;
    while let Some(k) = memchr::memchr(b'<', &bytes[i..]) {
        let lt = i + k;
        let end = match bytes.get(lt + 1).copied() {
            Some(b) if b.is_ascii_alphabetic() => start_tag(visit, bytes, from, lt)?,
            Some(b'/') => match bytes.get(lt + 2).copied() {
                Some(b) if b.is_ascii_alphabetic() => {
                    let (name_end, end) = tag_end(bytes, lt + 2);
                    piece(
                        visit,
                        bytes,
                        from,
                        lt,
                        Markup::End(&bytes[lt + 2..name_end]),
                    )?;
                    let Some(end) = end else { return STOP };
                    end
                }
                Some(b'>') => {
                    piece(visit, bytes, from, lt, Markup::Other)?;
                    lt + 3
                }
                // `</` at the end is text.
                None => break,
                Some(_) => {
                    piece(visit, bytes, from, lt, Markup::Other)?;
                    let Some(g) = memchr::memchr(b'>', &bytes[lt..]) else {
                        return STOP;
                    };
                    lt + g + 1
                }
            },
            Some(b'!') => {
                piece(visit, bytes, from, lt, Markup::Other)?;
                let rest = &bytes[lt + 2..];
                let end = if rest.starts_with(b"--") {
                    comment_end(&rest[2..]).map(|e| lt + 4 + e)
                } else {
                    memchr::memchr(b'>', rest).map(|g| lt + 2 + g + 1)
                };
                let Some(end) = end else { return STOP };
                end
            }
            Some(b'?') => {
                piece(visit, bytes, from, lt, Markup::Other)?;
                let Some(g) = memchr::memchr(b'>', &bytes[lt..]) else {
                    return STOP;
                };
                lt + g + 1
            }
            // A `<` that starts no markup is text.
            _ => {
                i = lt + 1;
                continue;
            }
        };
        i = end.min(n);
        from = i;
    }
    if n > from {
        visit(Markup::Text {
            at: from,
            run: &bytes[from..],
        })?;
    }
    ControlFlow::Continue(())
}

/// Text of a page's bytes in `encoding`, as UTF-8 (bytes that are not
/// text in it replaced).
fn decoded<'a>(run: &'a [u8], encoding: &'static encoding_rs::Encoding) -> Cow<'a, str> {
    if encoding == encoding_rs::UTF_8 {
        String::from_utf8_lossy(run)
    } else {
        encoding.decode_without_bom_handling(run).0
    }
}

/// The text inside the element whose start tag's `<` stands at `lt`, as
/// [`walk_markup`] reads it (the content of [`hidden_content`] elements
/// left out), up to the first tag for which `ends(name, is_start)` holds
/// or the page's end; reading stops once it holds `max_chars` characters
/// or more (a run of text is read to at most four bytes a character).
fn element_text(
    bytes: &[u8],
    lt: usize,
    encoding: &'static encoding_rs::Encoding,
    ends: impl Fn(&[u8], bool) -> bool,
    max_chars: usize,
) -> String {
    let mut out = String::new();
    let Some(start) = tag_end(bytes, lt + 1).1 else {
        return out;
    };
    let mut chars = 0;
    walk_markup(bytes, start, |m| match m {
        Markup::Text { run, .. } => {
            let run = &run[..run.len().min(max_chars.saturating_sub(chars) * 4)];
            let text = decoded(run, encoding);
            chars += text.chars().count();
            out.push_str(&text);
            if chars >= max_chars {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
        Markup::Start(name, _) if ends(name, true) => ControlFlow::Break(()),
        Markup::End(name) if ends(name, false) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    });
    out
}

/// The content of the raw-text or escapable raw-text element (`<title>`)
/// whose start tag's `<` stands at `lt`: to its end tag or the page's
/// end, at most `max_bytes` bytes of it (and the rest of a character cut
/// there).
fn raw_element_text(
    bytes: &[u8],
    lt: usize,
    name: &[u8],
    encoding: &'static encoding_rs::Encoding,
    max_bytes: usize,
) -> String {
    let Some(start) = tag_end(bytes, lt + 1).1 else {
        return String::new();
    };
    let end = closing_tag(bytes, start, name).unwrap_or(bytes.len());
    let content = &bytes[start..end.min(start + max_bytes)];
    decoded(content, encoding).into_owned()
}

/// Whether a tag's name is `<a>`'s: an `<a>` start tag ends an open one,
/// as an HTML parser's adoption of the formatting element does.
fn ends_anchor(name: &[u8], _start: bool) -> bool {
    name.eq_ignore_ascii_case(b"a")
}

/// Whether a tag's name is a heading's (`h1` to `h6`): a heading's start
/// or end tag closes an open heading.
fn ends_heading(name: &[u8], _start: bool) -> bool {
    matches!(name, [b'h' | b'H', b'1'..=b'6'])
}

/// The value of the `id` attribute among a start tag's `attributes` (the
/// bytes after its name), as written: the first one, as a parser keeps the
/// first of an attribute given twice; `None` without one.
#[cfg(test)]
fn id_attribute(tag: &[u8]) -> Option<&[u8]> {
    tag_facts(tag).id
}

/// What the page facts read of a start tag's attributes (the bytes after
/// its name), as written: the first `id` and `name` (a parser keeps the
/// first of an attribute given twice), and whether `itemscope` and
/// `typeof` are there.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct TagFacts<'a> {
    id: Option<&'a [u8]>,
    name: Option<&'a [u8]>,
    itemscope: bool,
    typeof_: bool,
}

/// Whether `tag` holds the byte `first` (a lower-case letter, in any
/// case) just before `second` (in any case).
fn has_pair(tag: &[u8], first: u8, second: u8) -> bool {
    memchr::memchr2_iter(second, second.to_ascii_uppercase(), tag)
        .any(|at| at > 0 && tag[at - 1] | 0x20 == first)
}

/// The [`TagFacts`] of a start tag. Tags without `id`, `pe` (`itemscope`,
/// `typeof`) or `am` (`name`) in their bytes are passed over at the cost
/// of three `memchr`s.
fn tag_facts(tag: &[u8]) -> TagFacts<'_> {
    let mut f = TagFacts::default();
    if !(has_pair(tag, b'i', b'd') || has_pair(tag, b'p', b'e') || has_pair(tag, b'a', b'm')) {
        return f;
    }
    each_attribute(tag, |attr, value| {
        if attr.eq_ignore_ascii_case(b"id") {
            f.id = f.id.or(Some(value));
        } else if attr.eq_ignore_ascii_case(b"name") {
            f.name = f.name.or(Some(value));
        } else if attr.eq_ignore_ascii_case(b"itemscope") {
            f.itemscope = true;
        } else if attr.eq_ignore_ascii_case(b"typeof") {
            f.typeof_ = true;
        }
    });
    f
}

/// Each attribute of a start tag's `attributes`, name and value as
/// written, in order, as a parser reads them.
fn each_attribute<'a>(tag: &'a [u8], mut visit: impl FnMut(&'a [u8], &'a [u8])) {
    let space = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    let n = tag.len();
    let mut i = 0;
    loop {
        while i < n && (space(tag[i]) || tag[i] == b'/') {
            i += 1;
        }
        if i >= n || tag[i] == b'>' {
            return;
        }
        let start = i;
        i += 1;
        while i < n && !space(tag[i]) && !matches!(tag[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let attr = &tag[start..i];
        while i < n && space(tag[i]) {
            i += 1;
        }
        let mut value: &[u8] = b"";
        if i < n && tag[i] == b'=' {
            i += 1;
            while i < n && space(tag[i]) {
                i += 1;
            }
            match tag.get(i).copied() {
                Some(q @ (b'"' | b'\'')) => {
                    let close = memchr::memchr(q, &tag[i + 1..]).map_or(n, |c| i + 1 + c);
                    value = &tag[i + 1..close];
                    i = close + 1;
                }
                _ => {
                    let s = i;
                    while i < n && !space(tag[i]) && tag[i] != b'>' {
                        i += 1;
                    }
                    value = &tag[s..i];
                }
            }
        }
        visit(attr, value);
    }
}

/// The end of a tag's name (from `name`, its first byte) and the offset
/// just past the tag's `>`, `None` when the page ends inside the tag.
/// Attribute values in quotes may hold `>`.
fn tag_end(bytes: &[u8], name: usize) -> (usize, Option<usize>) {
    let n = bytes.len();
    let mut i = name;
    while i < n
        && !matches!(
            bytes[i],
            b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'
        )
    {
        i += 1;
    }
    let name_end = i;
    // The states of the tokenizer between the name and `>`: an attribute
    // value starts after `=` (white space around it allowed).
    let mut after_equals = false;
    while i < n {
        match bytes[i] {
            b'>' => return (name_end, Some(i + 1)),
            b'=' if !after_equals => {
                after_equals = true;
                i += 1;
            }
            q @ (b'"' | b'\'') if after_equals => {
                match memchr::memchr(q, &bytes[i + 1..]) {
                    Some(k) => i += k + 2,
                    None => return (name_end, None),
                }
                after_equals = false;
            }
            b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' => i += 1,
            _ if after_equals => {
                // An unquoted value: to white space or `>`.
                while i < n && !matches!(bytes[i], b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'>') {
                    i += 1;
                }
                after_equals = false;
            }
            _ => {
                // An attribute's name (it may hold `=` only as its first
                // character), or `/`.
                i += 1;
                while i < n
                    && !matches!(
                        bytes[i],
                        b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>' | b'='
                    )
                {
                    i += 1;
                }
            }
        }
    }
    (name_end, None)
}

/// Where the end tag of a hidden element's content (`</name` followed by
/// white space, `/` or `>`, in any case) starts, from `from`.
fn closing_tag(bytes: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut i = from;
    while let Some(k) = memchr::memmem::find(&bytes[i..], b"</") {
        let at = i + k;
        let after = at + 2 + name.len();
        if bytes
            .get(at + 2..after)
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
            && bytes
                .get(after)
                .is_some_and(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'))
        {
            return Some(at);
        }
        i = at + 2;
    }
    None
}

/// The length of a comment's rest after `<!--` up to and with its end:
/// `>` or `->` right away, else the first `-->` or `--!>`.
fn comment_end(rest: &[u8]) -> Option<usize> {
    if rest.starts_with(b">") {
        return Some(1);
    }
    if rest.starts_with(b"->") {
        return Some(2);
    }
    let mut i = 0;
    while let Some(k) = memchr::memmem::find(&rest[i..], b"--") {
        let at = i + k;
        if rest[at + 2..].starts_with(b">") {
            return Some(at + 3);
        }
        if rest[at + 2..].starts_with(b"!>") {
            return Some(at + 4);
        }
        i = at + 1;
    }
    None
}

/// For each byte, its eight bits spread into the eight bytes of a word
/// (bit `i` of the byte becomes byte `i`, 0 or 1): adding these counts
/// eight bit positions at once.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut bit = 0;
        while bit < 8 {
            if (b >> bit) & 1 == 1 {
                table[b] |= 1 << (8 * bit);
            }
            bit += 1;
        }
        b += 1;
    }
    table
};

/// SplitMix64's finaliser: spreads a shingle's bits over the word.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl HtmlFacts {
    /// The URL links are resolved against: the `<base href>` resolved
    /// against the page's URL, or the page's URL.
    #[must_use]
    pub fn base_url(&self, page: &Url) -> Url {
        self.base
            .as_deref()
            .and_then(|b| page.join(b).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .unwrap_or_else(|| page.clone())
    }
}

/// A refresh whose delay is at most this many seconds (`0; url=…`,
/// `1; url=…`) is made at once: no visitor reads the page in that time,
/// so the page is a redirect, stored and audited as one (its target is
/// the page's `location`, at the page's depth); a longer delay leaves a
/// page to read, and its target is a link.
pub const INSTANT_REFRESH: u32 = 1;

/// The delay of a meta refresh or `Refresh` header (`5; url=/next`), in
/// whole seconds, read as the HTML standard reads it: ASCII digits after
/// white space, a fraction ignored (`.5` is 0); `None` when it starts
/// with neither a digit nor `.` (the refresh is then not made).
#[must_use]
pub fn refresh_delay(content: &str) -> Option<u32> {
    let s = content.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return s.starts_with('.').then_some(0);
    }
    Some(s[..digits].parse::<u32>().unwrap_or(u32::MAX))
}

/// The URL of a meta refresh or `Refresh` header (`5; url=/next`), if it
/// names one.
#[must_use]
pub fn refresh_target(content: &str) -> Option<&str> {
    let (_, rest) = content.split_once([';', ','])?;
    let rest = rest.trim_start();
    let rest = if rest.len() >= 3 && rest[..3].eq_ignore_ascii_case("url") {
        rest[3..].trim_start().strip_prefix('=')?.trim()
    } else {
        rest.trim()
    };
    let rest = rest.trim_matches(|c| c == '\'' || c == '"').trim();
    (!rest.is_empty()).then_some(rest)
}

/// The encoding of an HTML page (module docs).
#[must_use]
pub fn html_encoding(charset: Option<&str>, body: &[u8]) -> &'static encoding_rs::Encoding {
    if let Some((e, _)) = encoding_rs::Encoding::for_bom(body) {
        return e;
    }
    if let Some(e) = charset.and_then(|c| encoding_rs::Encoding::for_label(c.trim().as_bytes())) {
        return e;
    }
    if let Some(e) = meta_charset(&body[..body.len().min(1024)]) {
        return e;
    }
    if std::str::from_utf8(body).is_ok() {
        encoding_rs::UTF_8
    } else {
        encoding_rs::WINDOWS_1252
    }
}

/// A `charset=` in the first bytes of a page (`<meta charset="x">` or the
/// `http-equiv` form).
fn meta_charset(head: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let at = memchr::memmem::find(&lower, b"charset=")?;
    let rest = &head[at + 8..];
    let rest = rest
        .strip_prefix(b"\"")
        .or_else(|| rest.strip_prefix(b"'"))
        .unwrap_or(rest);
    let end = rest
        .iter()
        .position(|b| matches!(b, b'"' | b'\'' | b' ' | b';' | b'>' | b'/'))
        .unwrap_or(rest.len());
    encoding_rs::Encoding::for_label(&rest[..end])
}

/// The selector [`extract`] watches, parsed once: parsing it for every
/// page cost as much as reading a small page. Every element goes to one
/// handler (`*`), which tells the kinds apart by name: lol_html compiles
/// and matches one selector then, not one per kind. Text inside elements
/// (anchors, the title, the first heading) is read from the bytes after
/// the parser ([`element_text`]).
static ANY: LazyLock<Selector> = LazyLock::new(|| {
    "*".parse::<Selector>()
        .unwrap_or_else(|e| panic!("the selector `*` is valid CSS: {e}"))
});

/// The elements with an `id` (`content/duplicate-id`), for the older
/// reading of a page's text (the markup scan reads ids itself: this
/// selector makes lol_html read every element's attributes, which costs a
/// crawl an eighth of its time).
/// The elements whose attributes the older reading asks the parser for,
/// beside their ids: microdata items, RDFa resources, named anchors.
static ITEMS_AND_NAMES: LazyLock<Selector> = LazyLock::new(|| {
    "[itemscope], [typeof], a[name]"
        .parse::<Selector>()
        .unwrap_or_else(|e| panic!("the selector of items and names is valid CSS: {e}"))
});

static WITH_ID: LazyLock<Selector> = LazyLock::new(|| {
    "[id]"
        .parse::<Selector>()
        .unwrap_or_else(|e| panic!("the selector `[id]` is valid CSS: {e}"))
});

/// lol_html's `element!`, for a selector parsed once.
macro_rules! element {
    ($selector:expr, $handler:expr) => {{
        const fn type_hint<'h, T>(h: T) -> T
        where
            T: FnMut(&mut Element<'_, '_>) -> lol_html::HandlerResult + 'h,
        {
            h
        }
        (
            std::borrow::Cow::Borrowed($selector),
            lol_html::ElementContentHandlers::default().element(type_hint($handler)),
        )
    }};
}

/// Reads a page (module docs). `charset` is the HTTP `Content-Type`'s.
///
/// # Errors
/// [`Error::Html`] if the HTML parser gives up (it does not for malformed
/// markup; only for limits it enforces).
pub fn extract(body: &[u8], charset: Option<&str>) -> Result<HtmlFacts, Error> {
    extract_with(body, charset, TextReading::Scan)
}

/// The SimHash of a page's visible text alone (the markup scan of
/// [`extract`], nothing else read): for a not-found page, which is not
/// read for links.
pub(crate) fn text_simhash(body: &[u8], charset: Option<&str>) -> Option<u64> {
    let (bytes, encoding, _) = page_bytes(body, charset);
    let mut words = Words::default();
    scan_text(
        &bytes,
        encoding.into(),
        &mut words,
        &mut HeadText::default(),
        &mut Vec::new(),
        &mut crate::quality::QualityPass::default(),
    );
    words.simhash()
}

/// [`extract`], the SimHash's text read as `reading` says.
pub(crate) fn extract_with(
    body: &[u8],
    charset: Option<&str>,
    reading: TextReading,
) -> Result<HtmlFacts, Error> {
    let (bytes, encoding, detected) = page_bytes(body, charset);
    // The visible text's words, hashed as they stream by (`simhash`):
    // read beside the parser, with the text that breaks the head, or
    // (the older reading) from the parser's text chunks.
    let mut visible = Words::default();
    let mut noscript_tags_met = Vec::new();
    let mut quality = crate::quality::QualityPass::default();
    let text_break = match reading {
        TextReading::Scan => {
            let mut head = HeadText::default();
            scan_text(
                &bytes,
                encoding.into(),
                &mut visible,
                &mut head,
                &mut noscript_tags_met,
                &mut quality,
            );
            head.text_break
        }
        TextReading::Parser => {
            noscript_tags_met = noscript_tags(&bytes);
            None
        }
    };
    let pass = Pass {
        facts: RefCell::new(HtmlFacts {
            encoding: detected.name(),
            ..HtmlFacts::default()
        }),
        title_at: Cell::new(None),
        h1_at: Cell::new(None),
        head_over: Rc::new(Cell::new(false)),
        visible: RefCell::new(visible),
        text_break,
        noscripts: noscript_spans(&noscript_tags_met, bytes.len()),
        head_break: RefCell::new(None),
        ignored: RefCell::new(Vec::new()),
        templates: Rc::new(Cell::new(0u32)),
        insecure: RefCell::new(Vec::new()),
        quality: RefCell::new(quality),
        svg_open: Rc::new(Cell::new(0)),
        quality_templates: Rc::new(Cell::new(0)),
    };
    let markup = markup_of(&bytes, &noscript_tags_met);
    pass.run(&markup, encoding, reading)?;
    Ok(pass.into_facts(&bytes, encoding.into()))
}

/// A page's bytes as the parser reads them, the encoding it reads them in,
/// and the encoding detected. lol_html reads ASCII-compatible encodings
/// itself; UTF-16 pages are decoded first.
fn page_bytes<'a>(
    body: &'a [u8],
    charset: Option<&str>,
) -> (
    Cow<'a, [u8]>,
    AsciiCompatibleEncoding,
    &'static encoding_rs::Encoding,
) {
    let detected = html_encoding(charset, body);
    let (bytes, encoding) = match AsciiCompatibleEncoding::new(detected) {
        Some(e) => (std::borrow::Cow::Borrowed(body), e),
        None => {
            let (text, _, _) = detected.decode(body);
            (
                std::borrow::Cow::Owned(text.into_owned().into_bytes()),
                AsciiCompatibleEncoding::utf_8(),
            )
        }
    };
    // A UTF-8 byte-order mark is not text (a UTF-16 page's goes when it
    // is decoded).
    let bytes = match bytes {
        Cow::Borrowed(b) if detected == encoding_rs::UTF_8 => {
            Cow::Borrowed(b.strip_prefix(UTF8_BOM).unwrap_or(b))
        }
        other => other,
    };
    (bytes, encoding, detected)
}

/// The page as lol_html is given it. lol_html reads a `<noscript>`'s
/// content as text, as a parser that runs scripts does: it is given the
/// page with those tags renamed (same length, so every offset stays), and
/// reads their content as markup.
fn markup_of<'a>(bytes: &'a [u8], noscript_tags_met: &[NoscriptTag]) -> Cow<'a, [u8]> {
    if noscript_tags_met.is_empty() {
        return Cow::Borrowed(bytes);
    }
    let mut renamed = bytes.to_vec();
    for t in noscript_tags_met {
        if let Some(name) = renamed.get_mut(t.name_at..t.name_at + NOSCRIPT_AS_MARKUP.len()) {
            name.copy_from_slice(NOSCRIPT_AS_MARKUP);
        }
    }
    Cow::Owned(renamed)
}

/// What one pass of the parser over a page gathers, shared by its
/// handlers.
struct Pass {
    facts: RefCell<HtmlFacts>,
    /// Where the first `<title>` and the first `<h1>` start: their text is
    /// read from the bytes once the parser is done (text handlers would
    /// make it tokenize every element's content twice over).
    title_at: Cell<Option<usize>>,
    h1_at: Cell<Option<usize>>,
    /// Whether `<head>` has ended: set by its end tag (a handler that must
    /// own what it touches) or by `<body>`.
    head_over: Rc<Cell<bool>>,
    /// The visible text's words (`simhash`).
    visible: RefCell<Words>,
    /// Where text breaks the head, when it was read beside the parser.
    text_break: Option<usize>,
    /// Where the `<noscript>`s stand, for the head's reading.
    noscripts: Vec<(usize, usize)>,
    /// The head break and the head elements after it, with their offsets.
    head_break: RefCell<Option<(String, usize)>>,
    ignored: RefCell<Vec<(String, usize)>>,
    /// `<template>`s open (what they hold is not the document's).
    templates: Rc<Cell<u32>>,
    insecure: RefCell<Vec<(Insecure, usize)>>,
    quality: RefCell<crate::quality::QualityPass>,
    /// `<svg>` elements open (their `<title>` is not the document's).
    svg_open: Rc<Cell<u32>>,
    /// `<template>`s open anywhere in the page (`templates` counts the
    /// head's).
    quality_templates: Rc<Cell<u32>>,
}

/// An attribute's value, its character references decoded.
fn attr(el: &Element<'_, '_>, name: &str) -> Option<String> {
    el.get_attribute(name).map(decode_entities)
}

impl Pass {
    /// Runs the parser over `markup` with every handler.
    fn run(
        &self,
        markup: &[u8],
        encoding: AsciiCompatibleEncoding,
        reading: TextReading,
    ) -> Result<(), Error> {
        let settings = Settings {
            // The markup scan reads the ids; the older reading asks the
            // parser (`[id]` first: its handler sees the templates open
            // around the element, before `*`'s counts the element itself).
            element_content_handlers: match reading {
                TextReading::Scan => vec![element!(&ANY, |el| self.on_element(el))],
                TextReading::Parser => vec![
                    element!(&WITH_ID, |el| {
                        self.on_id(el);
                        Ok(())
                    }),
                    element!(&ITEMS_AND_NAMES, |el| {
                        self.on_item_or_name(el);
                        Ok(())
                    }),
                    element!(&ANY, |el| self.on_element(el)),
                ],
            },
            // The visible text of the older reading: text outside
            // `<script>`, `<style>`, `<title>` and the like, seen in the
            // same pass, and the text that breaks the head.
            document_content_handlers: match reading {
                TextReading::Scan => Vec::new(),
                TextReading::Parser => vec![doc_text!(|t: &mut TextChunk<'_>| {
                    self.on_text(t);
                    Ok(())
                })],
            },
            encoding,
            adjust_charset_on_meta_tag: false,
            strict: false,
            ..Settings::new()
        };
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        rewriter
            .write(markup)
            .and_then(|()| rewriter.end())
            .map_err(|e| Error::Html {
                message: e.to_string(),
            })
    }

    /// Whether `offset` is inside a `<noscript>`.
    fn in_noscript(&self, offset: usize) -> bool {
        let i = self.noscripts.partition_point(|&(_, end)| end <= offset);
        self.noscripts
            .get(i)
            .is_some_and(|&(start, _)| start <= offset)
    }

    /// The element handlers, called in this order for each start tag by
    /// one handler on every element (one selector to compile and match
    /// instead of one per kind of element).
    fn on_element(&self, el: &mut Element<'_, '_>) -> lol_html::HandlerResult {
        let name = el.tag_name();
        match name.as_str() {
            "a" => self.link(el, "href", LinkElement::A),
            "area" => self.link(el, "href", LinkElement::Area),
            "iframe" | "frame" => self.link(el, "src", LinkElement::Frame),
            _ => {}
        }
        self.on_any(el, &name);
        self.on_subresource(el, &name);
        self.on_quality(el, &name);
        if self.quality_templates.get() == 0
            && let Some(used) = crate::resources::used(el, &name)
        {
            self.facts.borrow_mut().resources.push(used);
        }
        match name.as_str() {
            "head" => self.on_head(el),
            "body" => self.head_over.set(true),
            "h1" => {
                let mut f = self.facts.borrow_mut();
                if f.h1_count == 0 {
                    self.h1_at.set(Some(el.source_location().bytes().start));
                }
                f.h1_count += 1;
            }
            "title" if self.title_at.get().is_none() => {
                self.title_at.set(Some(el.source_location().bytes().start));
            }
            "base" if el.has_attribute("href") => self.on_base(el),
            "meta" => self.on_meta(el),
            "link" if el.has_attribute("href") && el.has_attribute("rel") => self.on_link(el),
            _ => {}
        }
        Ok(())
    }

    /// A link of the page's body (`<a>`, `<area>`, a frame).
    fn link(&self, el: &mut Element<'_, '_>, name: &str, kind: LinkElement) {
        if let Some(href) = attr(el, name) {
            let mut f = self.facts.borrow_mut();
            let anchor = match kind {
                LinkElement::Area => collapse(&attr(el, "alt").unwrap_or_default()),
                _ => String::new(),
            };
            f.links.push(HtmlLink {
                href: trimmed(href),
                element: kind,
                rel: Rel::parse(&attr(el, "rel").unwrap_or_default()),
                anchor,
                offset: el.source_location().bytes().start,
            });
        }
    }

    /// Every element while the head is open: the first that belongs in
    /// the body breaks it, and the head elements after the break are left
    /// out of it.
    fn on_any(&self, el: &mut Element<'_, '_>, name: &str) {
        if self.head_over.get() {
            return;
        }
        if name == "template" {
            self.templates.set(self.templates.get() + 1);
            let open = Rc::clone(&self.templates);
            if let Some(handlers) = el.end_tag_handlers() {
                let handler: lol_html::EndTagHandler<'static> = Box::new(move |_| {
                    open.set(open.get().saturating_sub(1));
                    Ok(())
                });
                handlers.push(handler);
            }
        }
        if self.templates.get() > 0 {
            return;
        }
        let offset = el.source_location().bytes().start;
        // The head is read as a parser that runs scripts reads it: a
        // `<noscript>` holds text there.
        if self.in_noscript(offset) {
            return;
        }
        // Text that breaks the head, when it was read beside the
        // parser, stands where it stands.
        let text_before = self.text_break.is_some_and(|t| t < offset);
        if !head_element(name) {
            let mut b = self.head_break.borrow_mut();
            if b.is_none() && !text_before {
                *b = Some((name.to_owned(), offset));
            }
        } else if (self.head_break.borrow().is_some() || text_before)
            && matches!(name, "title" | "base" | "link" | "meta")
        {
            self.ignored
                .borrow_mut()
                .push((ignored_element(el, name), offset));
        }
    }

    /// Subresources written as `http://` URLs.
    fn on_subresource(&self, el: &mut Element<'_, '_>, name: &str) {
        for (name_attr, active) in subresource_attributes(el, name) {
            let Some(value) = attr(el, name_attr) else {
                continue;
            };
            // A `srcset` lists candidates: a URL, then a size.
            let urls: Vec<&str> = if *name_attr == "srcset" {
                value
                    .split(',')
                    .filter_map(|c| c.split_ascii_whitespace().next())
                    .collect()
            } else {
                vec![value.trim()]
            };
            for url in urls.into_iter().filter(|u| is_insecure(u)) {
                let mut f = self.facts.borrow_mut();
                if *active {
                    f.insecure_active += 1;
                } else {
                    f.insecure_passive += 1;
                }
                let mut list = self.insecure.borrow_mut();
                if list.len() < MAX_EXAMPLES {
                    let element = if name == "link" {
                        "link rel=stylesheet href".to_owned()
                    } else {
                        format!("{name} {name_attr}")
                    };
                    list.push((
                        Insecure {
                            element,
                            url: url.to_owned(),
                            active: *active,
                            line: 0,
                        },
                        el.source_location().bytes().start,
                    ));
                }
            }
        }
    }

    /// `<head>`: its end tag ends the head.
    /// What the page checks read: images, titles (not SVG's), the
    /// language, ids, headings and JSON-LD blocks, outside `<template>`s
    /// (what one holds is not the document's).
    /// An element's `id`, outside `<template>`s (a `<template>` is the
    /// document's, what it holds is not).
    fn on_id(&self, el: &mut Element<'_, '_>) {
        if self.quality_templates.get() == 0
            && let Some(id) = el.get_attribute("id")
        {
            self.quality.borrow_mut().id(id.trim());
        }
    }

    /// A microdata item, an RDFa resource or a named anchor, outside
    /// `<template>`s, in the older reading.
    fn on_item_or_name(&self, el: &mut Element<'_, '_>) {
        if self.quality_templates.get() > 0 {
            return;
        }
        let mut q = self.quality.borrow_mut();
        if el.tag_name() == "a"
            && let Some(name) = attr(el, "name")
        {
            q.name(name.trim());
        }
        q.item(el.has_attribute("itemscope"), el.has_attribute("typeof"));
    }

    fn on_quality(&self, el: &mut Element<'_, '_>, name: &str) {
        if name == "template" {
            self.quality_templates.set(self.quality_templates.get() + 1);
            if let Some(handlers) = el.end_tag_handlers() {
                let open = Rc::clone(&self.quality_templates);
                let handler: lol_html::EndTagHandler<'static> = Box::new(move |_| {
                    open.set(open.get().saturating_sub(1));
                    Ok(())
                });
                handlers.push(handler);
            }
        }
        if self.quality_templates.get() > 0 {
            return;
        }
        let mut q = self.quality.borrow_mut();
        match name {
            "img" => {
                let alt = attr(el, "alt");
                let src = attr(el, "src").map(trimmed);
                q.image(
                    src.as_deref(),
                    alt.as_deref(),
                    el.has_attribute("width"),
                    el.has_attribute("height"),
                );
            }
            "svg" if !el.is_self_closing() => {
                self.svg_open.set(self.svg_open.get() + 1);
                if let Some(handlers) = el.end_tag_handlers() {
                    let open = Rc::clone(&self.svg_open);
                    let handler: lol_html::EndTagHandler<'static> = Box::new(move |_| {
                        open.set(open.get().saturating_sub(1));
                        Ok(())
                    });
                    handlers.push(handler);
                }
            }
            "title" if self.svg_open.get() == 0 => q.quality.titles += 1,
            "html" if el.has_attribute("lang") && q.quality.lang.is_none() => {
                q.quality.lang = Some(attr(el, "lang").unwrap_or_default().trim().to_owned());
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                q.heading(name.as_bytes()[1] - b'0');
            }
            "script"
                if el
                    .get_attribute("type")
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json")) =>
            {
                q.jsonld_at.push(el.source_location().bytes().start);
            }
            _ => {}
        }
    }

    fn on_head(&self, el: &mut Element<'_, '_>) {
        let over = Rc::clone(&self.head_over);
        if let Some(handlers) = el.end_tag_handlers() {
            let handler: lol_html::EndTagHandler<'static> = Box::new(move |_| {
                over.set(true);
                Ok(())
            });
            handlers.push(handler);
        }
    }

    /// `<base href>`: counted, the first kept.
    fn on_base(&self, el: &mut Element<'_, '_>) {
        let mut f = self.facts.borrow_mut();
        f.base_count += 1;
        if f.base.is_none() {
            f.base = attr(el, "href").map(|h| h.trim().to_owned());
        }
    }

    /// `<meta>`: the charset, a named meta, the first refresh.
    fn on_meta(&self, el: &mut Element<'_, '_>) {
        let mut f = self.facts.borrow_mut();
        let content = attr(el, "content").unwrap_or_default();
        if f.meta_charset.is_none() {
            if let Some(c) = attr(el, "charset") {
                f.meta_charset = Some(c.trim().to_owned());
            } else if el
                .get_attribute("http-equiv")
                .is_some_and(|h| h.trim().eq_ignore_ascii_case("content-type"))
            {
                f.meta_charset = botwarden_fetch::parse_content_type(&content).1;
            }
        }
        if let Some(name) = attr(el, "name") {
            f.metas.push(Meta { name, content });
        } else if el
            .get_attribute("http-equiv")
            .is_some_and(|h| h.trim().eq_ignore_ascii_case("refresh"))
            && f.refresh.is_none()
        {
            f.refresh = Some(content);
        }
    }

    /// `<link rel href>`: canonicals and hreflang alternates.
    fn on_link(&self, el: &mut Element<'_, '_>) {
        let rel = attr(el, "rel").unwrap_or_default();
        let href = attr(el, "href").unwrap_or_default();
        let mut f = self.facts.borrow_mut();
        for word in rel.split_ascii_whitespace() {
            if word.eq_ignore_ascii_case("canonical") {
                f.canonicals.push(href.trim().to_owned());
                if self.head_over.get() {
                    f.canonicals_outside_head += 1;
                }
            } else if word.eq_ignore_ascii_case("alternate")
                && let Some(lang) = attr(el, "hreflang")
            {
                f.alternates.push(Alternate {
                    hreflang: lang.trim().to_owned(),
                    href: href.trim().to_owned(),
                });
            }
        }
    }

    /// A text chunk, in the older reading: the visible text's words, and
    /// the text that breaks the head.
    fn on_text(&self, t: &mut TextChunk<'_>) {
        if t.text_type() == TextType::Data
            && !self.head_over.get()
            && self.templates.get() == 0
            && self.head_break.borrow().is_none()
            && !t.as_str().trim_ascii().is_empty()
            && !self.in_noscript(t.source_location().bytes().start)
        {
            let text = t.as_str();
            let blank = text.len() - text.trim_ascii_start().len();
            *self.head_break.borrow_mut() =
                Some(("text".to_owned(), t.source_location().bytes().start + blank));
        }
        if t.text_type() == TextType::Data {
            let mut v = self.visible.borrow_mut();
            v.feed(t.as_str());
            if t.last_in_text_node() {
                v.end_word();
            }
        }
    }

    /// The facts of the page, once the parser is done: the texts read
    /// from the bytes (anchors, title, `<h1>`), lines, the SimHash.
    fn into_facts(self, bytes: &[u8], encoding: &'static encoding_rs::Encoding) -> HtmlFacts {
        let mut facts = self.facts.into_inner();
        for l in &mut facts.links {
            if l.element == LinkElement::A {
                let text = element_text(bytes, l.offset, encoding, ends_anchor, MAX_ANCHOR * 2);
                l.anchor = collapse(&decode_entities(text));
            }
        }
        facts.title = self
            .title_at
            .get()
            .map(|at| raw_element_text(bytes, at, b"title", encoding, 4096))
            .filter(|t| !t.is_empty())
            .map(|t| collapse(&decode_entities(t)));
        facts.h1 = self.h1_at.get().map(|at| {
            let text = element_text(bytes, at, encoding, ends_heading, MAX_ANCHOR * 8);
            collapse(&decode_entities(text))
        });
        let line = |offset: usize| {
            let upto = &bytes[..offset.min(bytes.len())];
            u32::try_from(memchr::memchr_iter(b'\n', upto).count() + 1).unwrap_or(u32::MAX)
        };
        let head_break = self
            .head_break
            .into_inner()
            .or_else(|| self.text_break.map(|at| ("text".to_owned(), at)));
        // A break counts when the head's written end comes after it.
        if self.head_over.get()
            && let Some((element, at)) = head_break
        {
            facts.head_break = Some(HeadBreak {
                element,
                line: line(at),
            });
            let ignored = self.ignored.into_inner();
            facts.head_ignored_count = u32::try_from(ignored.len()).unwrap_or(u32::MAX);
            facts.head_ignored = ignored
                .into_iter()
                .take(MAX_EXAMPLES)
                .map(|(what, at)| Placed {
                    what,
                    line: line(at),
                })
                .collect();
        }
        facts.insecure = self
            .insecure
            .into_inner()
            .into_iter()
            .map(|(mut i, at)| {
                i.line = line(at);
                i
            })
            .collect();
        let mut visible = self.visible.into_inner();
        let mut quality = self.quality.into_inner();
        quality.quality.words = u32::try_from(visible.count()).unwrap_or(u32::MAX);
        facts.simhash = visible.simhash();
        let q = &mut quality.quality;
        q.viewport = facts
            .metas
            .iter()
            .any(|m| m.name.trim().eq_ignore_ascii_case("viewport"));
        for l in &facts.links {
            if l.href.starts_with("//") {
                q.protocol_relative += 1;
                q.protocol_relative_first
                    .get_or_insert_with(|| l.href.clone());
            }
        }
        for a in &facts.alternates {
            if crate::quality::is_relative(&a.href) {
                q.hreflang_relative += 1;
                q.hreflang_relative_first
                    .get_or_insert_with(|| a.href.clone());
            }
        }
        for (i, &at) in quality.jsonld_at.iter().enumerate() {
            q.jsonld += 1;
            let text = raw_element_text(bytes, at, b"script", encoding, MAX_JSONLD);
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(value) => crate::structured::read_block(q, i + 1, &value),
                Err(e) if q.jsonld_error.is_none() => {
                    q.jsonld_error = Some(format!("block {}: {e}", i + 1));
                }
                Err(_) => {}
            }
        }
        quality.finish_fragment_targets();
        facts.quality = quality.quality;
        facts
    }
}

/// How a head element left out of the head is named.
fn ignored_element(el: &Element<'_, '_>, name: &str) -> String {
    match name {
        "link" => format!(
            "<link rel=\"{}\">",
            attr(el, "rel").unwrap_or_default().trim()
        ),
        "meta" => match (
            attr(el, "name"),
            attr(el, "http-equiv"),
            attr(el, "charset"),
        ) {
            (Some(n), _, _) => format!("<meta name=\"{}\">", n.trim()),
            (None, Some(h), _) => format!("<meta http-equiv=\"{}\">", h.trim()),
            (None, None, Some(c)) => format!("<meta charset=\"{}\">", c.trim()),
            _ => "<meta>".to_owned(),
        },
        other => format!("<{other}>"),
    }
}

/// The attributes of an element that load a subresource, each with
/// whether what it loads is active content.
fn subresource_attributes(el: &Element<'_, '_>, name: &str) -> &'static [(&'static str, bool)] {
    match name {
        "img" => &[("src", false), ("srcset", false)],
        "video" => &[("src", false), ("poster", false)],
        "audio" => &[("src", false)],
        "source" => &[("src", false), ("srcset", false)],
        "script" | "iframe" | "frame" | "embed" => &[("src", true)],
        "object" => &[("data", true)],
        "form" => &[("action", true)],
        "link" => {
            let rel = attr(el, "rel").unwrap_or_default();
            if rel
                .split_ascii_whitespace()
                .any(|w| w.eq_ignore_ascii_case("stylesheet"))
            {
                &[("href", true)]
            } else {
                &[]
            }
        }
        _ => &[],
    }
}

/// A UTF-8 byte-order mark.
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// The name a `<noscript>` tag is given for lol_html, which reads its
/// content as text otherwise (as a parser that runs scripts does): as
/// long as `noscript`, an element lol_html knows nothing of. The element
/// handler tells it by where it stands, not by this name.
const NOSCRIPT_AS_MARKUP: &[u8] = b"noscrip-";

/// The parts of a page inside `<noscript>` elements, outermost only: from
/// a start tag's `<` to its end tag's (or the page's end, `len`), in
/// order. `tags` are the page's `<noscript>` tags in order.
fn noscript_spans(tags: &[NoscriptTag], len: usize) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut depth = 0u32;
    let mut open = 0;
    for t in tags {
        if t.start {
            if depth == 0 {
                open = t.name_at.saturating_sub(1);
            }
            depth += 1;
        } else if depth > 0 {
            depth -= 1;
            if depth == 0 {
                spans.push((open, t.name_at.saturating_sub(2)));
            }
        }
    }
    if depth > 0 {
        spans.push((open, len));
    }
    spans
}

/// White space collapsed to single spaces, trimmed, at most
/// [`MAX_ANCHOR`] characters.
fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_ANCHOR));
    for (n, word) in s.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    match out.char_indices().nth(MAX_ANCHOR) {
        Some((at, _)) => out[..at].to_owned(),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const PAGE: &str = r#"<!doctype html>
<html><head>
<title>  The
  Page </title>
<base href="/sub/">
<base href="/ignored/">
<meta name="robots" content="noindex">
<meta name="botwarden" content="nofollow">
<meta http-equiv="Refresh" content="5; URL='/next'">
<link rel="canonical" href="https://example.com/canonical">
<link rel="alternate" hreflang="de" href="/de/">
<link rel="stylesheet" href="/style.css">
</head><body>
<a href=" one.html ">One <b>bold</b>
 link</a>
<a href="/two" rel="NoFollow ugc">Two</a>
<a name="anchor-only">no href</a>
<map><area href="/map" alt="A  map" rel="sponsored"></map>
<iframe src="/frame"></iframe>
<img src="/img.png">
<a href="mailto:x@example.com">mail</a>
</body></html>"#;

    #[test]
    fn links_metas_and_head() {
        let f = extract(PAGE.as_bytes(), None).expect("html");
        let links: Vec<(&str, &str, String, &str)> = f
            .links
            .iter()
            .map(|l| {
                (
                    l.href.as_str(),
                    l.element.as_str(),
                    l.rel.words(),
                    l.anchor.as_str(),
                )
            })
            .collect();
        assert_eq!(
            links,
            [
                ("one.html", "a", String::new(), "One bold link"),
                ("/two", "a", "nofollow ugc".into(), "Two"),
                ("/map", "area", "sponsored".into(), "A map"),
                ("/frame", "iframe", String::new(), ""),
                ("mailto:x@example.com", "a", String::new(), "mail"),
            ]
        );
        assert_eq!(f.base.as_deref(), Some("/sub/"));
        let page = Url::parse("https://example.com/dir/page").expect("url");
        assert_eq!(f.base_url(&page).as_str(), "https://example.com/sub/");
        assert_eq!(f.metas.len(), 2);
        assert_eq!(f.metas[1].name, "botwarden");
        assert_eq!(f.canonicals, ["https://example.com/canonical"]);
        assert_eq!(
            f.alternates,
            [Alternate {
                hreflang: "de".into(),
                href: "/de/".into()
            }]
        );
        assert_eq!(f.refresh.as_deref().and_then(refresh_target), Some("/next"));
        assert_eq!(f.title.as_deref(), Some("The Page"));
        assert_eq!(f.encoding, "UTF-8");
        // Offsets point at the elements.
        let two = &f.links[1];
        assert!(PAGE[two.offset..].starts_with("<a href=\"/two\""));
    }

    #[test]
    fn elements_are_told_apart_by_name_and_attributes_as_the_selectors_said() {
        // One handler sees every element: the kinds still need their
        // attributes (`a[href]`, `base[href]`, `link[href][rel]`), and
        // names and attributes in any case.
        let page = br#"<html><head><BASE TARGET=_blank><Base HREF="/b/">
<link rel=canonical><LINK HREF="/c" REL="Canonical"><link href="/no-rel">
<META NAME=robots CONTENT=noindex></head><body>
<A HREF="/up">Up</A><a name=x>no href</a><AREA HREF="/area" ALT="A">
<IFRAME SRC="/if"></IFRAME><iframe></iframe><frame src="/fr"><H1>Big</H1>
</body></html>"#;
        let f = extract(page, None).expect("html");
        let links: Vec<(&str, &str)> = f
            .links
            .iter()
            .map(|l| (l.href.as_str(), l.element.as_str()))
            .collect();
        assert_eq!(
            links,
            [
                ("/up", "a"),
                ("/area", "area"),
                ("/if", "iframe"),
                ("/fr", "iframe")
            ]
        );
        assert_eq!(f.links[0].anchor, "Up");
        assert_eq!((f.base.as_deref(), f.base_count), (Some("/b/"), 1));
        assert_eq!(f.canonicals, ["/c"]);
        assert_eq!(f.metas.len(), 1);
        assert_eq!((f.h1.as_deref(), f.h1_count), (Some("Big"), 1));
    }

    #[test]
    fn ids_are_read_from_start_tags_as_a_parser_reads_attributes() {
        let id = |attributes: &str| {
            id_attribute(attributes.as_bytes()).map(|v| String::from_utf8_lossy(v).into_owned())
        };
        assert_eq!(id(r#" id="a">"#).as_deref(), Some("a"));
        assert_eq!(id(r#" class=x ID='b' id="c">"#).as_deref(), Some("b"));
        assert_eq!(id(" id=c/>").as_deref(), Some("c/"));
        assert_eq!(id(r#" data-id="x" title="id=y">"#), None);
        assert_eq!(id(r#" idx="1" aid="2">"#), None);
        assert_eq!(id(" id>").as_deref(), Some(""));
        let facts = extract(
            br#"<html><body><i id="x"></i><b id=x></b><template id="t"><u id="x"></u></template><s id="t"></s>
               <script>var s = '<a id="x">';</script><!-- <a id="x"> --></body></html>"#,
            None,
        )
        .unwrap();
        assert_eq!(facts.quality.duplicate_ids, 2);
        assert_eq!(facts.quality.duplicate_id_first.as_deref(), Some("x"));
    }

    #[test]
    fn ids_names_items_and_relative_hreflang_are_read_in_both_readings() {
        use crate::quality::fragment_hash;
        let page = br#"<html><head><link rel="alternate" hreflang="de" href="/de/">
            <link rel="alternate" hreflang="fr" href="https://example.com/fr/">
            <link rel="alternate" hreflang="it" href="//example.com/it/"></head>
            <body><h2 id="a">x</h2><a name="b">b</a><p name="c"></p><a NAME='d' name="e"></a>
            <div itemscope itemtype="https://schema.org/Thing"><span itemscope></span></div>
            <div vocab="https://schema.org/" typeof="Person"></div>
            <template><i id="t"></i><div itemscope></div></template>
            <script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "p"}</script>
            <script type="application/ld+json">{"@context": "https://example.org/v", "@type": "Thing"}</script>
            </body></html>"#;
        let mut want: Vec<u32> = ["a", "b", "d"].iter().map(|s| fragment_hash(s)).collect();
        want.sort_unstable();
        let want: String = want.iter().map(|h| format!("{h:08x}")).collect();
        for reading in [TextReading::Scan, TextReading::Parser] {
            let q = extract_with(page, None, reading).unwrap().quality;
            assert_eq!(q.fragment_targets, want, "{reading:?}");
            assert_eq!((q.microdata, q.rdfa), (2, 1), "{reading:?}");
            assert_eq!(q.hreflang_relative, 2);
            assert_eq!(q.hreflang_relative_first.as_deref(), Some("/de/"));
            assert_eq!(q.jsonld_missing, 1);
            assert_eq!(q.jsonld_contexts, ["schema.org", "example.org/v"]);
        }
    }

    #[test]
    fn refresh_forms() {
        for (content, want) in [
            ("0; url=/a", Some("/a")),
            ("0;URL=\"/b\"", Some("/b")),
            ("3, /c", Some("/c")),
            ("5", None),
            ("5; url=", None),
        ] {
            assert_eq!(refresh_target(content), want, "{content}");
        }
    }

    #[test]
    fn encodings_from_header_bom_meta_and_bytes() {
        let latin = b"<html><a href=\"/caf\xe9\">caf\xe9</a></html>";
        let f = extract(latin, None).expect("html");
        assert_eq!(f.encoding, "windows-1252");
        assert_eq!(f.links[0].anchor, "café");
        let f = extract(latin, Some("ISO-8859-1")).expect("html");
        assert_eq!(f.links[0].anchor, "café");
        let meta = b"<meta charset=\"iso-8859-15\"><a href=\"/x\">\xa4</a>";
        let f = extract(meta, None).expect("html");
        assert_eq!(f.links[0].anchor, "€");
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(
                "<a href=\"/u\">ü</a>"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        let f = extract(&utf16, None).expect("html");
        assert_eq!(
            (f.links[0].href.as_str(), f.links[0].anchor.as_str()),
            ("/u", "ü")
        );
    }

    #[test]
    fn broken_markup_is_read_not_refused() {
        let f = extract(
            b"<a href=/x>unclosed <a href='/y'>y<div></a><<>>\0<a href",
            None,
        )
        .expect("html");
        let hrefs: Vec<&str> = f.links.iter().map(|l| l.href.as_str()).collect();
        assert_eq!(hrefs, ["/x", "/y"]);
        assert!(extract(b"", None).expect("empty").links.is_empty());
    }

    #[test]
    fn long_anchor_text_is_cut() {
        let page = format!("<a href=/x>{}</a>", "word ".repeat(1000));
        let f = extract(page.as_bytes(), None).expect("html");
        assert_eq!(f.links[0].anchor.chars().count(), MAX_ANCHOR);
    }

    #[test]
    fn element_text_is_read_as_a_browser_reads_the_elements() {
        let anchors = |page: &str| -> Vec<String> {
            let f = extract(page.as_bytes(), None).expect("html");
            f.links.into_iter().map(|l| l.anchor).collect()
        };
        // An `<a>` start tag closes an open `<a>`: the text after the
        // inner one's end belongs to neither.
        assert_eq!(
            anchors("<a href=1>one<a href=2>two</a>three"),
            ["one", "two"]
        );
        assert_eq!(anchors("<a href=1>a</A>b<A HREF=2>c</a >d"), ["a", "c"]);
        // Markup inside is not text and breaks no word; hidden content is
        // not text at all.
        assert_eq!(
            anchors(
                "<a href=1><!-- c -->Go<b>ld</b> <img alt=x src=y><script>var x</script><textarea>t</textarea>!</a>"
            ),
            ["Gold !"]
        );
        assert_eq!(
            anchors("<a href=1>to the end <p>of the page"),
            ["to the end of the page"]
        );
        assert_eq!(anchors("<a href=1></a><a href=2>"), ["", ""]);
        // A heading ends at another heading's start or end tag.
        let f = extract(b"<h1>One <em>two</em><h2>sub</h2>after</h1>", None).expect("html");
        assert_eq!((f.h1.as_deref(), f.h1_count), (Some("One two"), 1));
        // The title is the first `<title>`'s content as written, markup and
        // all (escapable raw text); an empty one is none.
        let f = extract(b"<title>a <b> &amp; c</title><title>second</title>", None).expect("html");
        assert_eq!(f.title.as_deref(), Some("a <b> & c"));
        let f = extract(b"<title></title><title>second</title>", None).expect("html");
        assert_eq!(f.title, None);
        let f = extract(b"<title>runs to the end", None).expect("html");
        assert_eq!(f.title.as_deref(), Some("runs to the end"));
    }

    #[test]
    fn the_markup_walk_stops_where_it_is_told_and_where_markup_is_cut() {
        let page = b"x<b>y</b><!--c-->z<script>s</script>w";
        let mut seen = Vec::new();
        walk_markup(page, 0, |m| {
            seen.push(match m {
                Markup::Text { at, run } => format!("{at}:{}", String::from_utf8_lossy(run)),
                Markup::Start(n, _) => format!("<{}", String::from_utf8_lossy(n)),
                Markup::End(n) => format!("</{}", String::from_utf8_lossy(n)),
                Markup::Other => "!".to_owned(),
            });
            ControlFlow::Continue(())
        });
        assert_eq!(
            seen,
            [
                "0:x", "<b", "4:y", "</b", "!", "17:z", "<script", "</script", "36:w"
            ]
        );
        let mut texts = 0;
        walk_markup(page, 0, |m| {
            if matches!(m, Markup::Text { .. }) {
                texts += 1;
            }
            if texts == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(texts, 2, "stopped at the second text");
        // A page cut inside a tag gives no text after it.
        let mut runs = Vec::new();
        walk_markup(b"a<b c='>", 0, |m| {
            if let Markup::Text { run, .. } = m {
                runs.push(run.to_vec());
            }
            ControlFlow::Continue(())
        });
        assert_eq!(runs, [b"a".to_vec()]);
    }

    /// The distance between two texts' fingerprints against the share of
    /// their three-word shingles they have in common (Jaccard), over
    /// texts of 600 words with `changed` words replaced at even spacing.
    fn distances(changed: usize, trials: u64) -> Vec<(f64, u32)> {
        let text = |words: &[String]| words.join(" ");
        let mut out = Vec::new();
        for seed in 0..trials {
            let base: Vec<String> = (0..600u64)
                .map(|i| format!("w{}", (i * 7919 + seed * 104_729) % 1_000_003))
                .collect();
            let mut other = base.clone();
            for k in 0..changed {
                let at = (k * 600 / changed.max(1) + seed as usize) % 600;
                other[at] = format!("x{seed}y{k}");
            }
            let shingles = |w: &[String]| -> std::collections::HashSet<String> {
                w.windows(3).map(|s| s.join(" ")).collect()
            };
            let (a, b) = (shingles(&base), shingles(&other));
            let jaccard = a.intersection(&b).count() as f64 / a.union(&b).count() as f64;
            let (ha, hb) = (
                simhash(&text(&base)).expect("words"),
                simhash(&text(&other)).expect("words"),
            );
            out.push((jaccard, (ha ^ hb).count_ones()));
        }
        out
    }

    /// The table of `botwarden-audit`'s `docs/audit.md` ("Near
    /// duplicates: what 3 bits mean"): words changed, pairs within 3 bits
    /// of 200. `content/near-duplicate` groups pages whose fingerprints
    /// differ in at most this many bits (its `MAX_DISTANCE`).
    #[test]
    #[allow(clippy::print_stdout)]
    fn what_three_bits_mean() {
        const MAX_DISTANCE: u32 = 3;
        let documented = [
            (1usize, 173usize),
            (3, 113),
            (6, 50),
            (10, 17),
            (20, 2),
            (30, 0),
            (45, 0),
            (60, 0),
        ];
        for (changed, expected) in documented {
            let d = distances(changed, 200);
            let within = d.iter().filter(|(_, b)| *b <= MAX_DISTANCE).count();
            assert_eq!(within, expected, "{changed} words changed");
            let mean_j = d.iter().map(|(j, _)| j).sum::<f64>() / d.len() as f64;
            let mean_b = d.iter().map(|(_, b)| f64::from(*b)).sum::<f64>() / d.len() as f64;
            println!(
                "changed {changed:>3}: jaccard {mean_j:.3}, bits {mean_b:.1}, within 3: {within}/200"
            );
        }
    }
}

#[cfg(test)]
mod audit_facts_tests {
    use botwarden_testdata::Xorshift;

    use super::*;

    #[test]
    fn headings_canonicals_base_and_charset() {
        let page = r#"<html><head><meta charset="latin1"><base href="/a/"><base href="/b/">
<link rel="canonical" href="/in-head"></head><body>
<h1>  First <em>one</em> </h1><h1>Second</h1>
<link rel="canonical" href="/in-body"><script>var hidden = "script words";</script>
</body></html>"#;
        let f = extract(page.as_bytes(), None).expect("html");
        assert_eq!(f.h1.as_deref(), Some("First one"));
        assert_eq!(f.h1_count, 2);
        assert_eq!(f.canonicals, ["/in-head", "/in-body"]);
        assert_eq!(f.canonicals_outside_head, 1);
        assert_eq!(f.base_count, 2);
        assert_eq!(f.meta_charset.as_deref(), Some("latin1"));
        let f = extract(b"<h1></h1><p>x</p>", None).expect("html");
        assert_eq!((f.h1.as_deref(), f.h1_count), (Some(""), 1));
        assert_eq!(f.simhash, None, "too few words");
    }

    /// The SimHash as its definition says, without the shortcuts.
    fn simhash_by_definition(text: &str) -> u64 {
        let words: Vec<u64> = text
            .split(|c: char| c.is_ascii() && !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| {
                w.to_ascii_lowercase()
                    .bytes()
                    .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                    })
            })
            .collect();
        let shingles: std::collections::BTreeSet<u64> = words
            .windows(3)
            .map(|w| mix(w[0] ^ w[1].rotate_left(21) ^ w[2].rotate_left(42)).max(1))
            .collect();
        (0..64)
            .filter(|bit| {
                shingles.iter().filter(|s| *s >> bit & 1 == 1).count() * 2 > shingles.len()
            })
            .fold(0, |acc, bit| acc | 1 << bit)
    }

    #[test]
    fn the_fast_simhash_is_the_defined_one() {
        // More than 255 distinct shingles (the counters are emptied), and
        // repeats, and words outside ASCII.
        let mut text: Vec<String> = (0..2000).map(|i| format!("w{}", i * 31 % 700)).collect();
        text.extend(
            ["Élan", "naïve", "café", "ÉLAN", "x"]
                .iter()
                .map(|s| (*s).to_owned()),
        );
        let text = text.join(" -- ");
        assert_eq!(simhash(&text), Some(simhash_by_definition(&text)));
        let short = "one two three four five six seven eight nine ten";
        assert_eq!(simhash(short), Some(simhash_by_definition(short)));
    }

    #[test]
    fn words_of_every_length_and_at_every_edge_hash_as_defined() {
        // Words of 1 to 40 bytes, groups of four and the rest, text that
        // starts and ends inside a word or with separators, and runs of
        // separators.
        let mut rng = Xorshift::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..200 {
            let mut text = String::new();
            if round % 2 == 1 {
                text.push_str(" ,, ");
            }
            for _ in 0..(10 + round % 37) {
                let x = rng.next_u64();
                let len = 1 + usize::try_from(x % 40).expect("small");
                for k in 0..len {
                    text.push(match (x >> (k % 50)) % 5 {
                        0 => 'Q',
                        1 => 'z',
                        2 => '7',
                        3 => 'é',
                        _ => 'm',
                    });
                }
                text.push_str(if x.is_multiple_of(3) { " " } else { " -- " });
            }
            if round % 3 == 0 {
                text.pop();
                text.push('w');
            }
            assert_eq!(
                simhash(&text),
                Some(simhash_by_definition(&text)),
                "{text:?}"
            );
        }
    }

    #[test]
    fn words_read_in_pieces_hash_as_the_text_joined() {
        // Pieces cut inside words and between them, text nodes ended
        // (as a separator would), words outside ASCII and in upper case.
        let text: String = (0..300)
            .map(|i| format!("Wörd{} x{} ", i * 13 % 97, i % 7))
            .collect();
        let mut rng = Xorshift::new(Xorshift::SEED);
        for round in 0..50 {
            let mut words = Words::default();
            let mut joined = String::new();
            let mut rest = text.as_str();
            while !rest.is_empty() {
                let x = rng.next_u64();
                let mut cut = (usize::try_from(x % 23).expect("small") + 1).min(rest.len());
                while !rest.is_char_boundary(cut) {
                    cut += 1;
                }
                let (piece, after) = rest.split_at(cut);
                words.feed(piece);
                joined.push_str(piece);
                if (x >> 20).is_multiple_of(5) {
                    words.end_word();
                    joined.push(' ');
                }
                rest = after;
            }
            let got = words.simhash();
            assert!(got.is_some(), "round {round}");
            assert_eq!(got, simhash(&joined), "round {round}");
            assert_eq!(got, Some(simhash_by_definition(&joined)), "round {round}");
        }
        // Every byte is a word byte or a separator as the definition says.
        for b in 0..=255u8 {
            let text = format!("aa {} bb cc dd ee ff gg hh ii jj", char::from(b));
            assert_eq!(
                simhash(&text),
                Some(simhash_by_definition(&text)),
                "byte {b:#04x}"
            );
        }
    }

    /// Ten words and more, so that a fingerprint is made.
    const WORDS: &str = "one two three four five six seven eight nine ten eleven twelve";

    #[test]
    fn the_markup_scan_reads_what_the_parser_reads_on_pages_as_written() {
        let pages = [
            super::tests::PAGE.to_owned(),
            format!(
                "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>T {WORDS}</title>\
                 <style>p > a {{ color: red }}</style><script>if (a<b) {{ x = '</p>' }}</script>\
                 <script type=module>let s = \"<\\/script\"</script>\
                 </head><body class=\"a>b\" data-x='c>d' data-y=e>f>\n<!-- a comment {WORDS} -->\
                 <p>Fish &amp; chips, caf&eacute; &#233; {WORDS}</p><P ID=x>UPPER case Words</P>\
                 <textarea>hidden {WORDS}</textarea><noscript>no script {WORDS}</noscript>\
                 <template><div>template text {WORDS}</div></template>\
                 <a href=/x?a=1&b=2 title=\"quoted > angle\">anchor text</a> 3 < 4 and 5 <= 6 \
                 <br/><img src=x alt='a > b'><iframe src=/f>frame text</iframe>\
                 <?php echo 1 ?><!bogus comment><!---->, <!-- x --!> after\
                 </body></html>"
            ),
            format!("<p>{WORDS}</p>"),
            format!("{WORDS} <b>bold</b>words<i>and</i>more"),
            format!("<html><head>\n\nstray {WORDS}<title>x</title></head><body>{WORDS}</body>"),
            format!(
                "<html><head><title>T</title><img src=/p><meta name=robots content=noindex>\
                 </head><body>{WORDS}</body></html>"
            ),
            format!("<title>x</title><p>{WORDS}</p><link rel=canonical href=/c>"),
            format!(
                "<html><head><title>x</title></head>between {WORDS}<body>{WORDS}</body></html>"
            ),
            format!("<html><head><template>t {WORDS}</template></head><body>{WORDS}</body>"),
        ];
        let mut made = 0;
        for page in &pages {
            let scan = extract_with(page.as_bytes(), None, TextReading::Scan).expect("scan");
            let parser = extract_with(page.as_bytes(), None, TextReading::Parser).expect("parser");
            made += usize::from(scan.simhash.is_some());
            assert_eq!(scan.simhash, parser.simhash, "{page}");
            assert_eq!(scan.head_break, parser.head_break, "{page}");
            assert_eq!(scan.head_ignored, parser.head_ignored, "{page}");
            assert_eq!(scan.head_ignored_count, parser.head_ignored_count, "{page}");
        }
        // All but the first (too few words) have a fingerprint.
        assert_eq!(made, pages.len() - 1);
        // In another encoding than UTF-8, the words are the decoded text.
        let latin = format!("<p>caf\u{e9} {WORDS}</p>");
        let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&latin);
        let f = extract_with(&bytes, Some("windows-1252"), TextReading::Scan).expect("latin");
        assert_eq!(f.simhash, simhash(&format!("café {WORDS}")));
    }

    #[test]
    fn the_markup_scan_leaves_out_markup_and_hidden_content() {
        for (page, text) in [
            (
                format!("<p class=\"x > y\">{WORDS}</p><script>var hidden = 1;</script>"),
                WORDS.to_owned(),
            ),
            (
                format!("<STYLE>p {{}}</STYLE ><Title>title</TITLE>{WORDS}<xmp>x</xmp>"),
                WORDS.to_owned(),
            ),
            (
                format!("<!-->{WORDS}<!--->more<!-- - -- -> --!>end"),
                format!("{WORDS} more end"),
            ),
            (
                format!("a</>b</ bogus>c<!doctype html>d<?pi>e< {WORDS}"),
                format!("a b c d e< {WORDS}"),
            ),
            // A `</script` that is not the end tag, and `<plaintext>`.
            (
                format!("<script>x </scripts> y</script>{WORDS}<plaintext>not </plaintext>"),
                WORDS.to_owned(),
            ),
            // A page cut inside a tag or comment keeps the text before it.
            (format!("{WORDS}<a href=\"/unclosed"), WORDS.to_owned()),
            (format!("{WORDS}<!-- open"), WORDS.to_owned()),
            (format!("{WORDS}<script>open"), WORDS.to_owned()),
        ] {
            let f = extract(page.as_bytes(), None).expect("html");
            assert_eq!(f.simhash, simhash(&text), "{page}");
        }
        // Where the parser goes into foreign content, the scan does not:
        // an SVG's `<title>` is visible text to the parser only.
        let svg = format!("<p>{WORDS}</p><svg><title>{WORDS} svg</title></svg>");
        let scan = extract_with(svg.as_bytes(), None, TextReading::Scan).expect("scan");
        let parser = extract_with(svg.as_bytes(), None, TextReading::Parser).expect("parser");
        assert_eq!(scan.simhash, simhash(WORDS));
        assert_eq!(parser.simhash, simhash(&format!("{WORDS} {WORDS} svg")));
        assert_ne!(scan.simhash, parser.simhash);
    }

    #[test]
    fn a_reading_is_named_and_a_store_without_a_name_read_with_the_parser() {
        for r in [TextReading::Scan, TextReading::Parser] {
            assert_eq!(TextReading::of_store(Some(r.name())), r);
        }
        assert_eq!(TextReading::of_store(None), TextReading::Parser);
    }

    #[test]
    fn the_simhash_reads_visible_text_only_and_near_texts_are_near() {
        let words: Vec<String> = (0..400).map(|i| format!("word{}", i * 7 % 101)).collect();
        let text = words.join(" ");
        let page = format!("<p>{text}</p><script>{}</script>", "other ".repeat(50));
        let f = extract(page.as_bytes(), None).expect("html");
        assert_eq!(f.simhash, simhash(&text), "script text is not visible text");
        // Case and punctuation do not count.
        assert_eq!(
            simhash(&text.to_uppercase().replace(' ', ", ")),
            simhash(&text)
        );
        let a = simhash("the quick brown fox jumps over the lazy dog again and again").expect("a");
        let b = simhash("an entirely different sentence about crawling web sites politely today")
            .expect("b");
        assert!((a ^ b).count_ones() > 3);
    }
}

#[cfg(test)]
mod head_and_mixed_tests {
    use super::*;

    /// A page shaped like mdBook's: its sidebar for readers without
    /// scripts is a frame inside `<noscript>`.
    const MDBOOK: &str = r##"<!DOCTYPE HTML>
<html lang="en" class="light sidebar-visible" dir="ltr">
    <head>
        <meta charset="UTF-8">
        <title>Lints - The Book</title>
        <meta name="description" content="The book's lints">
        <noscript><link rel="stylesheet" href="css/no-js.css"></noscript>
        <script src="toc.js"></script>
    </head>
    <body>
    <div id="body-container">
        <a class="skip" href="#main">Skip to the content</a>
        <nav id="sidebar" class="sidebar" aria-label="Table of contents">
            <mdbook-sidebar-scrollbox class="sidebar-scrollbox"></mdbook-sidebar-scrollbox>
            <noscript>
                <iframe class="sidebar-iframe-outer" src="toc.html"></iframe>
            </noscript>
        </nav>
        <main id="main">
            <h1 id="lints"><a class="header" href="#lints">Lints</a></h1>
            <NoScript><p>Scripts are off: read the
            <a href="print.html" title="</noscript> is not the end">whole book</a>.</p>
            <img src="http://cdn.example.com/pixel.gif"></NOSCRIPT>
            <a rel="next" href="next.html">Next</a>
        </main>
    </div>
    </body>
</html>"##;

    #[test]
    fn a_noscript_is_read_as_markup_its_frames_links_and_images_too() {
        for reading in [TextReading::Scan, TextReading::Parser] {
            let f = extract_with(MDBOOK.as_bytes(), None, reading).expect("html");
            let links: Vec<(&str, LinkElement, &str)> = f
                .links
                .iter()
                .map(|l| (l.href.as_str(), l.element, l.anchor.as_str()))
                .collect();
            assert_eq!(
                links,
                [
                    ("#main", LinkElement::A, "Skip to the content"),
                    ("toc.html", LinkElement::Frame, ""),
                    ("#lints", LinkElement::A, "Lints"),
                    ("print.html", LinkElement::A, "whole book"),
                    ("next.html", LinkElement::A, "Next"),
                ],
                "{reading:?}"
            );
            // Offsets stay those of the page as written.
            let frame = &f.links[1];
            assert!(MDBOOK[frame.offset..].starts_with("<iframe"), "{reading:?}");
            assert_eq!(f.insecure_passive, 1, "{reading:?}");
            assert_eq!(f.insecure[0].line, 23, "{reading:?}");
            // The head is read as a parser that runs scripts reads it.
            assert_eq!(f.head_break, None, "{reading:?}");
            assert_eq!(f.h1.as_deref(), Some("Lints"));
            assert_eq!(f.title.as_deref(), Some("Lints - The Book"));
        }
    }

    #[test]
    fn frames_are_links_wherever_they_stand() {
        let page = r#"<html><head><title>F</title></head>
<frameset cols="20%,80%"><frame src="/nav.html"><FRAME SRC="/main.html">
<noframes><a href="/text-only">text</a></noframes></frameset>
<noscript><noscript><iframe src="/deep"></iframe></noscript></noscript>
<template><iframe src="/in-template"></iframe></template></html>"#;
        let f = extract(page.as_bytes(), None).expect("html");
        let links: Vec<(&str, LinkElement)> = f
            .links
            .iter()
            .map(|l| (l.href.as_str(), l.element))
            .collect();
        assert_eq!(
            links,
            [
                ("/nav.html", LinkElement::Frame),
                ("/main.html", LinkElement::Frame),
                ("/deep", LinkElement::Frame),
                ("/in-template", LinkElement::Frame),
            ]
        );
    }

    #[test]
    fn the_text_of_a_noscript_is_page_text() {
        let words = "one two three four five six seven eight nine ten";
        let page = format!("<p>{words}</p><noscript><p>enable scripts please</p></noscript>");
        for reading in [TextReading::Scan, TextReading::Parser] {
            let f = extract_with(page.as_bytes(), None, reading).expect("html");
            assert_eq!(
                f.simhash,
                simhash(&format!("{words} enable scripts please")),
                "{reading:?}"
            );
        }
        // An anchor's text holds what its `<noscript>` shows.
        let f = extract(
            b"<a href=/x>Menu<noscript> (all pages)</noscript></a>",
            None,
        )
        .expect("html");
        assert_eq!(f.links[0].anchor, "Menu (all pages)");
    }

    #[test]
    fn a_utf8_byte_order_mark_is_not_text_in_the_head() {
        let page = "\u{feff}<!DOCTYPE html>\n<html><head><meta charset=utf-8>\
                    <title>T</title></head><body><p>one two three four five six seven eight \
                    nine ten</p></body></html>";
        let plain = page.trim_start_matches('\u{feff}');
        for reading in [TextReading::Scan, TextReading::Parser] {
            let f = extract_with(page.as_bytes(), None, reading).expect("html");
            assert_eq!(f.head_break, None, "{reading:?}");
            assert_eq!(f.title.as_deref(), Some("T"));
            let without = extract_with(plain.as_bytes(), None, reading).expect("html");
            assert_eq!(f.simhash, without.simhash, "{reading:?}");
        }
        // The mark decides the encoding before the HTTP charset does, as
        // the HTML standard's sniffing says.
        let f = extract(page.as_bytes(), Some("windows-1252")).expect("html");
        assert_eq!(f.encoding, "UTF-8");
        assert_eq!(f.head_break, None);
    }

    #[test]
    fn a_refresh_delay_is_read_as_the_standard_reads_it() {
        for (content, delay) in [
            ("0; url=/next", Some(0)),
            ("  5;url=/next", Some(5)),
            ("1.9, /next", Some(1)),
            (".5; url=/next", Some(0)),
            ("0", Some(0)),
            ("url=/next", None),
            ("", None),
            ("99999999999; url=/x", Some(u32::MAX)),
        ] {
            assert_eq!(refresh_delay(content), delay, "{content:?}");
        }
    }

    #[test]
    fn entities_are_decoded_in_titles_anchors_headings_and_attributes() {
        let page = br#"<html><head><title>Fish &amp; Chips &#8211; caf&eacute; &#xE9;</title>
<meta name="description" content="Tom &amp; Jerry">
<link rel="canonical" href="/search?a=1&amp;b=2"></head><body>
<h1>A &lt;b&gt; &quot;tag&quot;</h1>
<a href="/p?x=1&amp;y=2">R&amp;D &nbsp;&copy; 2026</a>
<area href="/m" alt="M&amp;M">
<a href="/plain">no entity &amp</a>
</body></html>"#;
        let f = extract(page, None).expect("html");
        assert_eq!(f.title.as_deref(), Some("Fish & Chips – café é"));
        assert_eq!(f.h1.as_deref(), Some("A <b> \"tag\""));
        assert_eq!(f.links[0].href, "/p?x=1&y=2");
        assert_eq!(f.links[0].anchor, "R&D © 2026");
        assert_eq!(f.links[1].anchor, "M&M");
        assert_eq!(f.canonicals, ["/search?a=1&b=2"]);
        assert_eq!(f.metas[0].content, "Tom & Jerry");
        assert!(f.links[2].anchor.starts_with("no entity &"));
    }

    #[test]
    fn a_body_element_in_head_breaks_it_and_the_head_elements_after_it_are_named() {
        let page = "<!doctype html>\n<html><head>\n<title>T</title>\n<meta charset=utf-8>\n\
                    <noscript><img src=/pixel></noscript>\n<img src=/tracker>\n\
                    <link rel=\"canonical\" href=\"/c\">\n<meta name=\"robots\" content=\"noindex\">\n\
                    </head><body><p>x</p></body></html>";
        let f = extract(page.as_bytes(), None).expect("html");
        assert_eq!(
            f.head_break,
            Some(HeadBreak {
                element: "img".into(),
                line: 6
            })
        );
        assert_eq!(f.head_ignored_count, 2);
        let ignored: Vec<(&str, u32)> = f
            .head_ignored
            .iter()
            .map(|p| (p.what.as_str(), p.line))
            .collect();
        assert_eq!(
            ignored,
            [
                ("<link rel=\"canonical\">", 7),
                ("<meta name=\"robots\">", 8)
            ]
        );
        // Text breaks it too.
        let f = extract(
            b"<html><head>\n\nstray<title>x</title></head><body></body>",
            None,
        )
        .expect("html");
        assert_eq!(
            f.head_break,
            Some(HeadBreak {
                element: "text".into(),
                line: 3
            })
        );
        assert_eq!(f.head_ignored_count, 1);
    }

    #[test]
    fn a_sound_head_and_a_page_without_a_written_head_end_have_no_break() {
        for page in [
            // Everything that may stand in a head, and white space.
            "<html><head>\n <title>x</title><base href=/><link rel=stylesheet href=/s.css>\
             <meta name=a content=b><style>p{}</style><script>var a = '<div>';</script>\
             <noscript><img src=/p></noscript><template><div>t</div></template>\n\
             </head><body><div>body</div></body></html>",
            // No </head> or <body> written: the head ends where meant.
            "<title>x</title><p>text</p><link rel=canonical href=/c>",
            // The element after </head>, before <body>.
            "<html><head><title>x</title></head><div>between</div><body></body></html>",
        ] {
            let f = extract(page.as_bytes(), None).expect("html");
            assert_eq!(f.head_break, None, "{page}");
            assert_eq!(f.head_ignored_count, 0, "{page}");
        }
    }

    #[test]
    fn insecure_subresources_are_told_active_or_passive() {
        let page = r#"<html><head>
<script src="HTTP://cdn.example.com/a.js"></script>
<link rel="stylesheet" href="http://cdn.example.com/s.css">
<link rel="icon" href="http://cdn.example.com/favicon.ico">
<script src="https://cdn.example.com/ok.js"></script>
</head><body>
<img src="/local.png" srcset="/a.png 1x, http://img.example.com/b.png 2x">
<img src="//img.example.com/protocol-relative.png">
<video poster="http://v.example.com/p.jpg"><source src="http://v.example.com/v.mp4"></video>
<iframe src="http://w.example.com/"></iframe>
<form action="http://f.example.com/post"></form>
<a href="http://example.org/">a link is not a subresource</a>
</body></html>"#;
        let f = extract(page.as_bytes(), None).expect("html");
        assert_eq!((f.insecure_active, f.insecure_passive), (4, 3));
        let found: Vec<(&str, &str, bool, u32)> = f
            .insecure
            .iter()
            .map(|i| (i.element.as_str(), i.url.as_str(), i.active, i.line))
            .collect();
        assert_eq!(
            found,
            [
                ("script src", "HTTP://cdn.example.com/a.js", true, 2),
                (
                    "link rel=stylesheet href",
                    "http://cdn.example.com/s.css",
                    true,
                    3
                ),
                ("img srcset", "http://img.example.com/b.png", false, 7),
                ("video poster", "http://v.example.com/p.jpg", false, 9),
                ("source src", "http://v.example.com/v.mp4", false, 9),
                ("iframe src", "http://w.example.com/", true, 10),
                ("form action", "http://f.example.com/post", true, 11),
            ]
        );
    }
}
