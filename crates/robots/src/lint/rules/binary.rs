//! R039 `binary`: a binary file served as robots.txt.

use crate::lint::{Context, Diagnostic};
use crate::parse::Span;

declare_lint! {
    /// ## What it does
    /// Finds bodies that are not text: compressed data (gzip, zip, zstd),
    /// images, PDF, or a large share of control bytes.
    ///
    /// ## Why
    /// A server that compresses robots.txt but forgets the
    /// `Content-Encoding` header, or serves a file of another kind at that
    /// path, leaves robots with no directive: the site is open to all of
    /// them.
    ///
    /// ## Example
    /// ```text
    /// (the bytes 1F 8B 08 00 …: a gzip stream)
    /// ```
    ///
    /// ## Fix
    /// Serve robots.txt as plain UTF-8 text (compressed only with a
    /// `Content-Encoding` header).
    "R039", "binary", Error, "a binary file served as robots.txt"
}

/// Magic numbers of formats a server may send by mistake.
const MAGIC: [(&[u8], &str); 7] = [
    (&[0x1F, 0x8B], "a gzip stream (compressed without a Content-Encoding header?)"),
    (b"PK\x03\x04", "a zip archive"),
    (&[0x28, 0xB5, 0x2F, 0xFD], "a zstd stream"),
    (b"\x89PNG", "a PNG image"),
    (&[0xFF, 0xD8, 0xFF], "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
];

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let b = cx.txt.bytes();
    let what = MAGIC.iter().find(|(m, _)| b.starts_with(m)).map(|(_, w)| (*w).to_owned()).or_else(|| {
        // UTF-16 has its own lint; NUL bytes alone count as binary only
        // when they are not every other byte.
        let sample = &b[..b.len().min(1024)];
        let control = sample.iter().filter(|&&c| c < 0x20 && !matches!(c, b'\t' | b'\n' | b'\r' | 0)).count();
        (sample.len() >= 16 && control * 10 > sample.len()).then(|| format!("binary data ({control} control bytes in the first {})", sample.len()))
    });
    let Some(what) = what else { return };
    let span = Span::new(0, b.len().min(4));
    out.push(
        Diagnostic::new(&LINT, span, format!("this is {what}, not a robots.txt: robots read no rule from it"))
            .help("serve robots.txt as plain UTF-8 text"),
    );
}
