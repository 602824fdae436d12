//! Bodies: decompression under a size limit, and what text encoding a body
//! is in.

use std::fmt;
use std::io::{self, Write};

/// A `Content-Encoding` the fetcher decodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Coding {
    Identity,
    Gzip,
    /// `deflate`: zlib-wrapped as HTTP says, or raw deflate as some servers
    /// send it; told apart by the first two bytes.
    Deflate,
    Brotli,
    /// Anything else: the body is kept as it came.
    Unsupported(String),
}

impl Coding {
    pub(crate) fn of(header: Option<&str>) -> Coding {
        let Some(value) = header.map(str::trim).filter(|v| !v.is_empty()) else {
            return Coding::Identity;
        };
        match value.to_ascii_lowercase().as_str() {
            "identity" => Coding::Identity,
            "gzip" | "x-gzip" => Coding::Gzip,
            "deflate" => Coding::Deflate,
            "br" => Coding::Brotli,
            _ => Coding::Unsupported(value.to_owned()),
        }
    }
}

impl fmt::Display for Coding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coding::Identity => f.write_str("identity"),
            Coding::Gzip => f.write_str("gzip"),
            Coding::Deflate => f.write_str("deflate"),
            Coding::Brotli => f.write_str("br"),
            Coding::Unsupported(coding) => f.write_str(coding),
        }
    }
}

/// Where decoded bytes go: keeps at most `max`, notes whether more came.
#[derive(Debug, Default)]
struct Sink {
    kept: Vec<u8>,
    max: usize,
    over: bool,
}

/// Returned by the sink once it is full, to stop the decoder.
#[derive(Debug)]
struct Full;

impl fmt::Display for Full {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("size limit reached")
    }
}

impl std::error::Error for Full {}

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        let room = self.max - self.kept.len();
        if room == 0 {
            self.over = true;
            return Err(io::Error::other(Full));
        }
        let n = room.min(data.len());
        self.kept.extend_from_slice(&data[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

enum Decoder {
    Identity(Sink),
    Gzip(flate2::write::GzDecoder<Sink>),
    Zlib(flate2::write::ZlibDecoder<Sink>),
    RawDeflate(flate2::write::DeflateDecoder<Sink>),
    /// `deflate` before its first two bytes have come.
    DeflateStart(Vec<u8>, Sink),
    Brotli(Box<brotli_decompressor::DecompressorWriter<Sink>>),
}

impl fmt::Debug for Decoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Decoder::Identity(_) => "identity",
            Decoder::Gzip(_) => "gzip",
            Decoder::Zlib(_) => "zlib",
            Decoder::RawDeflate(_) => "deflate",
            Decoder::DeflateStart(..) => "deflate (start)",
            Decoder::Brotli(_) => "br",
        };
        f.write_str(name)
    }
}

/// Whether to go on reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feed {
    More,
    Full,
}

/// Decodes a body chunk by chunk, counting decoded bytes against the limit.
/// The most a body's buffer is sized to before any of it came: a
/// `Content-Length` is the server's word, not a promise.
const MAX_PRESIZE: usize = 4 << 20;

#[derive(Debug)]
pub(crate) struct BodyDecoder {
    decoder: Decoder,
    wire: u64,
}

impl BodyDecoder {
    /// A decoder that keeps at most `max` bytes; `expected`, the
    /// `Content-Length` if one came, sizes the buffer of a body that is
    /// not compressed at once (up to `max`), so it is not copied as it
    /// grows.
    pub(crate) fn new(coding: &Coding, max: usize, expected: Option<u64>) -> BodyDecoder {
        let capacity = match coding {
            Coding::Identity | Coding::Unsupported(_) => expected
                .and_then(|n| usize::try_from(n).ok())
                .map_or(0, |n| n.min(max).min(MAX_PRESIZE)),
            _ => 0,
        };
        let sink = Sink {
            kept: Vec::with_capacity(capacity),
            max,
            over: false,
        };
        let decoder = match coding {
            Coding::Identity | Coding::Unsupported(_) => Decoder::Identity(sink),
            Coding::Gzip => Decoder::Gzip(flate2::write::GzDecoder::new(sink)),
            Coding::Deflate => Decoder::DeflateStart(Vec::new(), sink),
            Coding::Brotli => Decoder::Brotli(Box::new(
                brotli_decompressor::DecompressorWriter::new(sink, 16 * 1024),
            )),
        };
        BodyDecoder { decoder, wire: 0 }
    }

    /// Bytes received so far, before decoding.
    pub(crate) fn wire_bytes(&self) -> u64 {
        self.wire
    }

    /// Decodes one chunk as received.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<Feed, String> {
        self.wire += chunk.len() as u64;
        if let Decoder::DeflateStart(start, sink) = &mut self.decoder {
            start.extend_from_slice(chunk);
            if start.len() < 2 {
                return Ok(Feed::More);
            }
            let start = std::mem::take(start);
            let sink = std::mem::take(sink);
            self.decoder = if is_zlib_header(start[0], start[1]) {
                Decoder::Zlib(flate2::write::ZlibDecoder::new(sink))
            } else {
                Decoder::RawDeflate(flate2::write::DeflateDecoder::new(sink))
            };
            return self.write(&start);
        }
        self.write(chunk)
    }

    fn write(&mut self, data: &[u8]) -> Result<Feed, String> {
        let result = match &mut self.decoder {
            Decoder::Identity(w) => w.write_all(data),
            Decoder::Gzip(w) => w.write_all(data),
            Decoder::Zlib(w) => w.write_all(data),
            Decoder::RawDeflate(w) => w.write_all(data),
            Decoder::Brotli(w) => w.write_all(data),
            Decoder::DeflateStart(..) => Ok(()),
        };
        match result {
            Ok(()) => Ok(Feed::More),
            Err(_) if self.sink().over => Ok(Feed::Full),
            Err(e) => Err(e.to_string()),
        }
    }

    fn sink(&mut self) -> &mut Sink {
        match &mut self.decoder {
            Decoder::Identity(s) | Decoder::DeflateStart(_, s) => s,
            Decoder::Gzip(w) => w.get_mut(),
            Decoder::Zlib(w) => w.get_mut(),
            Decoder::RawDeflate(w) => w.get_mut(),
            Decoder::Brotli(w) => w.get_mut(),
        }
    }

    /// Ends the stream: flushes what the decoder holds and checks that the
    /// compressed stream was complete.
    pub(crate) fn finish(&mut self) -> Result<(), String> {
        if self.sink().over {
            return Ok(());
        }
        let result = match &mut self.decoder {
            Decoder::Identity(_) => Ok(()),
            Decoder::DeflateStart(start, _) if start.is_empty() => Ok(()),
            Decoder::DeflateStart(..) => Err(io::Error::other("deflate stream of one byte")),
            Decoder::Gzip(w) => w.try_finish(),
            Decoder::Zlib(w) => w.try_finish(),
            Decoder::RawDeflate(w) => w.try_finish(),
            Decoder::Brotli(w) => w.close(),
        };
        match result {
            Ok(()) => Ok(()),
            Err(_) if self.sink().over => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The bytes kept, and whether the body was longer.
    pub(crate) fn take(&mut self) -> (Vec<u8>, bool) {
        let sink = self.sink();
        (std::mem::take(&mut sink.kept), sink.over)
    }
}

/// RFC 1950: CM 8, and the first two bytes a multiple of 31.
fn is_zlib_header(cmf: u8, flg: u8) -> bool {
    cmf & 0x0f == 8 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
}

/// A byte-order mark at the start of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bom {
    /// `EF BB BF`.
    Utf8,
    /// `FF FE`.
    Utf16Le,
    /// `FE FF`.
    Utf16Be,
}

impl Bom {
    /// The mark at the start of `body`, if any.
    #[must_use]
    pub fn sniff(body: &[u8]) -> Option<Bom> {
        match body {
            [0xEF, 0xBB, 0xBF, ..] => Some(Bom::Utf8),
            [0xFF, 0xFE, ..] => Some(Bom::Utf16Le),
            [0xFE, 0xFF, ..] => Some(Bom::Utf16Be),
            _ => None,
        }
    }

    /// The encoding's name: `UTF-8`, `UTF-16LE`, `UTF-16BE`.
    #[must_use]
    pub const fn encoding(self) -> &'static str {
        match self {
            Bom::Utf8 => "UTF-8",
            Bom::Utf16Le => "UTF-16LE",
            Bom::Utf16Be => "UTF-16BE",
        }
    }

    /// The mark's length in bytes.
    #[must_use]
    pub const fn byte_len(self) -> usize {
        match self {
            Bom::Utf8 => 3,
            Bom::Utf16Le | Bom::Utf16Be => 2,
        }
    }
}

/// A body's text encoding, and how it was found.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// From a byte-order mark, which wins over the `Content-Type`.
    Bom(Bom),
    /// From the `charset` of the `Content-Type`, as written.
    Declared(String),
    /// Nothing says: UTF-8, as RFC 9309 §2.3 requires of robots.txt.
    Assumed,
}

impl Encoding {
    /// Works out the encoding of `body` served with this `charset`.
    #[must_use]
    pub fn detect(body: &[u8], charset: Option<&str>) -> Encoding {
        match (Bom::sniff(body), charset) {
            (Some(bom), _) => Encoding::Bom(bom),
            (None, Some(label)) => Encoding::Declared(label.to_owned()),
            (None, None) => Encoding::Assumed,
        }
    }

    /// The encoding's name (`UTF-8`, `UTF-16LE`, or the declared label).
    #[must_use]
    pub fn label(&self) -> &str {
        match self {
            Encoding::Bom(bom) => bom.encoding(),
            Encoding::Declared(label) => label,
            Encoding::Assumed => "UTF-8",
        }
    }

    /// Whether robots that read UTF-8 read this body as written: UTF-8, or
    /// ASCII, which is a part of it.
    #[must_use]
    pub fn is_utf8(&self) -> bool {
        let label = self.label().to_ascii_lowercase();
        matches!(
            label.as_str(),
            "utf-8" | "utf8" | "unicode-1-1-utf-8" | "us-ascii" | "ascii"
        )
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Encoding::Bom(bom) => write!(f, "{} (byte-order mark)", bom.encoding()),
            Encoding::Declared(label) => write!(f, "{label} (Content-Type)"),
            Encoding::Assumed => f.write_str("UTF-8 (assumed)"),
        }
    }
}

/// `body` as UTF-8: a UTF-16 body (by its byte-order mark) transcoded, with
/// the mark dropped and invalid units replaced; any other body as it is.
#[must_use]
pub fn utf8_body(body: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let unit: fn([u8; 2]) -> u16 = match Bom::sniff(body) {
        Some(Bom::Utf16Le) => u16::from_le_bytes,
        Some(Bom::Utf16Be) => u16::from_be_bytes,
        _ => return std::borrow::Cow::Borrowed(body),
    };
    let units = body[2..].chunks_exact(2).map(|p| unit([p[0], p[1]]));
    let text: String = char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    std::borrow::Cow::Owned(text.into_bytes())
}

/// The media type (lower case, without parameters) and `charset` of a
/// `Content-Type` value.
#[must_use]
pub fn parse_content_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let charset = parts.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches('"').to_owned())
            .filter(|v| !v.is_empty())
    });
    (media, charset)
}

/// Whether a body looks like an HTML page rather than a robots.txt.
pub(crate) fn looks_like_html(body: &[u8]) -> bool {
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(&[][..], |i| &body[i..]);
    let start = &start[..start.len().min(64)];
    let lower = start.to_ascii_lowercase();
    [
        &b"<!doctype html"[..],
        b"<html",
        b"<head",
        b"<!--",
        b"<body",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(
        coding: &Coding,
        max: usize,
        chunks: &[&[u8]],
    ) -> (Vec<u8>, bool, Result<(), String>) {
        let mut d = BodyDecoder::new(coding, max, None);
        for c in chunks {
            match d.push(c) {
                Ok(Feed::More) => {}
                Ok(Feed::Full) => break,
                Err(e) => return (Vec::new(), false, Err(e)),
            }
        }
        let end = d.finish();
        let (kept, over) = d.take();
        (kept, over, end)
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).expect("gzip");
        e.finish().expect("gzip")
    }

    #[test]
    fn identity_keeps_up_to_the_limit() {
        assert_eq!(decode(&Coding::Identity, 5, &[b"abc", b"de"]).0, b"abcde");
        assert!(!decode(&Coding::Identity, 5, &[b"abc", b"de"]).1);
        let (kept, over, end) = decode(&Coding::Identity, 4, &[b"abc", b"de"]);
        assert_eq!((kept.as_slice(), over, end), (&b"abcd"[..], true, Ok(())));
    }

    #[test]
    fn gzip_counts_decoded_bytes() {
        let zeros = vec![b'a'; 1_000_000];
        let packed = gzip(&zeros);
        assert!(packed.len() < 10_000);
        let (kept, over, end) = decode(&Coding::Gzip, 1000, &[&packed]);
        assert_eq!((kept.len(), over, end), (1000, true, Ok(())));
        let (kept, over, _) = decode(
            &Coding::Gzip,
            2_000_000,
            &packed.chunks(7).collect::<Vec<_>>(),
        );
        assert_eq!((kept.len(), over), (1_000_000, false));
    }

    #[test]
    fn deflate_zlib_and_raw() {
        let text = b"User-agent: *\nDisallow: /x\n";
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(text).expect("zlib");
        let zlib = z.finish().expect("zlib");
        let mut r = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        r.write_all(text).expect("deflate");
        let raw = r.finish().expect("deflate");
        for body in [zlib, raw] {
            let chunks: Vec<&[u8]> = body.chunks(1).collect();
            let (kept, over, end) = decode(&Coding::Deflate, 1000, &chunks);
            assert_eq!((kept.as_slice(), over, end), (&text[..], false, Ok(())));
        }
    }

    #[test]
    fn brotli_stored_blocks() {
        // A brotli stream of one uncompressed meta-block holding "hello",
        // then the last, empty meta-block (RFC 7932 §9.2).
        let stream = [0x40, 0x00, 0x10, b'h', b'e', b'l', b'l', b'o', 0x03];
        let (kept, over, end) = decode(&Coding::Brotli, 100, &[&stream]);
        assert_eq!((kept.as_slice(), over, end), (&b"hello"[..], false, Ok(())));
        let (kept, over, _) = decode(&Coding::Brotli, 3, &[&stream]);
        assert_eq!((kept.as_slice(), over), (&b"hel"[..], true));
    }

    #[test]
    fn broken_streams_are_errors() {
        let (_, _, end) = decode(&Coding::Gzip, 100, &[b"not gzip at all"]);
        assert!(end.is_err());
        let packed = gzip(b"User-agent: *\n");
        let (_, _, end) = decode(&Coding::Gzip, 100, &[&packed[..packed.len() - 6]]);
        assert!(end.is_err(), "a cut gzip stream is an error");
    }

    #[test]
    fn encodings() {
        assert_eq!(Bom::sniff(b"\xEF\xBB\xBFx"), Some(Bom::Utf8));
        assert_eq!(Bom::sniff(b"\xFF\xFEx\0"), Some(Bom::Utf16Le));
        assert_eq!(Bom::sniff(b"\xFE\xFF\0x"), Some(Bom::Utf16Be));
        assert_eq!(Bom::sniff(b"\xEF\xBB"), None);
        let e = Encoding::detect(b"\xFF\xFEx\0", Some("utf-8"));
        assert_eq!(e.to_string(), "UTF-16LE (byte-order mark)");
        assert!(!e.is_utf8());
        assert!(Encoding::detect(b"x", Some("US-ASCII")).is_utf8());
        assert!(!Encoding::detect(b"x", Some("iso-8859-1")).is_utf8());
        assert_eq!(Encoding::detect(b"x", None).to_string(), "UTF-8 (assumed)");
        let le = b"\xFF\xFEU\0-\0a\0";
        assert_eq!(&*utf8_body(le), b"U-a");
        let be = b"\xFE\xFF\0U\0-\0a";
        assert_eq!(&*utf8_body(be), b"U-a");
    }

    #[test]
    fn content_types() {
        assert_eq!(
            parse_content_type("Text/Plain; Charset=\"UTF-8\""),
            ("text/plain".to_owned(), Some("UTF-8".to_owned()))
        );
        assert_eq!(
            parse_content_type("text/html"),
            ("text/html".to_owned(), None)
        );
        assert!(looks_like_html(b"\n  <!DOCTYPE html><html>"));
        assert!(!looks_like_html(b"User-agent: *"));
    }

    #[test]
    fn codings() {
        assert_eq!(Coding::of(None), Coding::Identity);
        assert_eq!(Coding::of(Some("GZIP")), Coding::Gzip);
        assert_eq!(Coding::of(Some("x-gzip")), Coding::Gzip);
        assert_eq!(Coding::of(Some("br")), Coding::Brotli);
        assert_eq!(
            Coding::of(Some("gzip, br")),
            Coding::Unsupported("gzip, br".to_owned())
        );
    }
}
