//! XML sitemaps (sitemaps.org): the `<loc>` of every `<url>` of a
//! `<urlset>`, or of every `<sitemap>` of a `<sitemapindex>`; gzip-compressed
//! files (`sitemap.xml.gz`) are read too.
//!
//! A sitemap holds at most [`MAX_LOCS`] URLs and 50 MB uncompressed
//! (sitemaps.org); more is not read, and said so. Malformed XML stops the
//! reading where it breaks: what was read before is kept, with the error.

use std::borrow::Cow;
use std::io::Read;

use quick_xml::Reader;
use quick_xml::events::Event;

/// URLs read from one sitemap, at most (the protocol's limit).
pub const MAX_LOCS: usize = 50_000;
/// Bytes of a sitemap read after decompression, at most.
pub const MAX_BYTES: usize = 50 * 1024 * 1024;

/// What a sitemap file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SitemapKind {
    /// `<urlset>`: pages.
    UrlSet,
    /// `<sitemapindex>`: other sitemaps.
    Index,
    /// Neither root element was found.
    Unknown,
}

/// One sitemap, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sitemap {
    /// What it is.
    pub kind: SitemapKind,
    /// The `<loc>` values, trimmed, in order (at most [`MAX_LOCS`]).
    pub locs: Vec<String>,
    /// `<loc>` values past [`MAX_LOCS`], not kept.
    pub dropped: usize,
    /// Why reading stopped early, if it did (malformed XML, a bad gzip
    /// stream, the size limit).
    pub error: Option<String>,
}

/// Reads a sitemap (module docs).
#[must_use]
pub fn parse_sitemap(body: &[u8]) -> Sitemap {
    let (xml, error) = xml_of(body);
    let mut sitemap = Sitemap {
        kind: SitemapKind::Unknown,
        locs: Vec::new(),
        dropped: 0,
        error,
    };
    read_locs(&xml, &mut sitemap);
    sitemap
}

/// The XML of a sitemap file: inflated when it is gzip, cut at
/// [`MAX_BYTES`]; with why it is not whole, if it is not.
fn xml_of(body: &[u8]) -> (Cow<'_, [u8]>, Option<String>) {
    let mut error = None;
    let mut xml = if body.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        let mut decoder = flate2::read::GzDecoder::new(body).take(MAX_BYTES as u64 + 1);
        if let Err(e) = decoder.read_to_end(&mut out) {
            error = Some(format!("the gzip stream breaks: {e}"));
        }
        Cow::Owned(out)
    } else {
        Cow::Borrowed(body)
    };
    if xml.len() > MAX_BYTES {
        error.get_or_insert_with(|| format!("longer than {MAX_BYTES} bytes: the rest is not read"));
        xml = match xml {
            Cow::Borrowed(b) => Cow::Borrowed(&b[..MAX_BYTES]),
            Cow::Owned(mut v) => {
                v.truncate(MAX_BYTES);
                Cow::Owned(v)
            }
        };
    }
    (xml, error)
}

/// Reads the root element and every `<loc>` of `xml` into `sitemap`,
/// until the end or the first error.
fn read_locs(xml: &[u8], sitemap: &mut Sitemap) {
    let mut reader = Reader::from_reader(xml);
    let mut buf = Vec::new();
    let mut in_loc = false;
    let mut text = String::new();
    // The elements open, outermost first: a file that ends inside one is
    // cut, however well formed what came before.
    let mut open: Vec<Vec<u8>> = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                let name = e.local_name();
                open.push(name.as_ref().to_vec());
                match name.as_ref() {
                    b"urlset" if sitemap.kind == SitemapKind::Unknown => {
                        sitemap.kind = SitemapKind::UrlSet;
                    }
                    b"sitemapindex" if sitemap.kind == SitemapKind::Unknown => {
                        sitemap.kind = SitemapKind::Index;
                    }
                    b"loc" => {
                        in_loc = true;
                        text.clear();
                    }
                    _ => {}
                }
            }
            Ok(Event::Text(t)) if in_loc => match t.decode() {
                Ok(s) => match quick_xml::escape::unescape(&s) {
                    Ok(u) => text.push_str(&u),
                    Err(_) => text.push_str(&s),
                },
                Err(e) => {
                    sitemap.error = Some(format!("a <loc> is not text: {e}"));
                    break;
                }
            },
            Ok(Event::CData(t)) if in_loc => {
                text.push_str(&String::from_utf8_lossy(&t));
            }
            Ok(Event::GeneralRef(r)) if in_loc => {
                // `&amp;` and friends arrive as references.
                let name = String::from_utf8_lossy(&r).into_owned();
                let entity = format!("&{name};");
                match quick_xml::escape::unescape(&entity) {
                    Ok(u) => text.push_str(&u),
                    Err(_) => text.push_str(&entity),
                }
            }
            Ok(Event::End(e)) if e.local_name().as_ref() == b"loc" => {
                open.pop();
                in_loc = false;
                let loc = text.trim();
                if !loc.is_empty() {
                    if sitemap.locs.len() < MAX_LOCS {
                        sitemap.locs.push(loc.to_owned());
                    } else {
                        sitemap.dropped += 1;
                    }
                }
            }
            Ok(Event::End(_)) => {
                open.pop();
            }
            Ok(Event::Eof) => {
                if let Some(inner) = open.last() {
                    sitemap.error.get_or_insert_with(|| {
                        format!(
                            "the file ends inside <{}> ({} element(s) not closed): it is cut",
                            String::from_utf8_lossy(inner),
                            open.len()
                        )
                    });
                }
                break;
            }
            Err(e) => {
                sitemap.error = Some(format!(
                    "malformed XML at byte {}: {e}",
                    reader.buffer_position()
                ));
                break;
            }
            Ok(_) => {}
        }
        buf.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn urlsets_and_indexes() {
        let set = parse_sitemap(
            br#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> https://example.com/a?x=1&amp;y=2 </loc><lastmod>2026-01-01</lastmod></url>
  <url><loc><![CDATA[https://example.com/b]]></loc></url>
  <url><loc></loc></url>
</urlset>"#,
        );
        assert_eq!(set.kind, SitemapKind::UrlSet);
        assert_eq!(
            set.locs,
            ["https://example.com/a?x=1&y=2", "https://example.com/b"]
        );
        assert_eq!(set.error, None);
        let index = parse_sitemap(
            b"<sitemapindex><sitemap><loc>https://example.com/s1.xml</loc></sitemap></sitemapindex>",
        );
        assert_eq!(index.kind, SitemapKind::Index);
        assert_eq!(index.locs, ["https://example.com/s1.xml"]);
    }

    #[test]
    fn gzip_and_broken_files() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"<urlset><url><loc>https://example.com/z</loc></url></urlset>")
            .expect("gzip");
        let gz = gz.finish().expect("gzip");
        assert_eq!(parse_sitemap(&gz).locs, ["https://example.com/z"]);
        // Cut between two entries: well formed so far, but not closed.
        let cut = parse_sitemap(b"<urlset><url><loc>https://example.com/1</loc></url><url>");
        assert_eq!(cut.kind, SitemapKind::UrlSet);
        assert_eq!(cut.locs, ["https://example.com/1"]);
        assert_eq!(
            cut.error.as_deref(),
            Some("the file ends inside <url> (2 element(s) not closed): it is cut")
        );
        let whole =
            parse_sitemap(b"<urlset><url><loc>https://example.com/1</loc></url></urlset>\n");
        assert_eq!(whole.error, None);
        let broken =
            parse_sitemap(b"<urlset><url><loc>https://example.com/1</loc></url><url><loc>x</lo");
        assert_eq!(broken.locs, ["https://example.com/1"]);
        assert!(broken.error.is_some());
        let html = parse_sitemap(b"<html><body>not a sitemap</body></html>");
        assert_eq!(html.kind, SitemapKind::Unknown);
        assert!(html.locs.is_empty());
        let cut = parse_sitemap(&gz[..gz.len() / 2]);
        assert!(cut.error.is_some_and(|e| e.contains("gzip")));
    }

    #[test]
    fn at_most_fifty_thousand_urls() {
        let mut xml = String::from("<urlset>");
        for i in 0..MAX_LOCS + 3 {
            xml.push_str(&format!("<url><loc>https://example.com/{i}</loc></url>"));
        }
        xml.push_str("</urlset>");
        let s = parse_sitemap(xml.as_bytes());
        assert_eq!((s.locs.len(), s.dropped), (MAX_LOCS, 3));
    }
}
