//! Bodies: plain, compressed, with byte-order marks, oversize, HTML.

use botwarden_fetch::{Bom, Encoding, Warning};
use botwarden_robots::FetchResult;

use crate::server::{Reply, Server, brotli_stored, gzip, zlib};
use crate::{PARSE, decisions, fetch, loopback};

const ROBOTS: &str =
    "User-agent: *\nDisallow: /private\n\nSitemap: https://example.com/sitemap.xml\n";

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let mut out = if big_endian {
        vec![0xFE, 0xFF]
    } else {
        vec![0xFF, 0xFE]
    };
    for unit in text.encode_utf16() {
        let bytes = if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        };
        out.extend_from_slice(&bytes);
    }
    out
}

async fn site() -> Server {
    Server::start(|asked| {
        let big = vec![b'#'; 600_000];
        match asked.path {
            "/plain/robots.txt" => Reply::new(200)
                .header("content-type", "text/plain; charset=utf-8")
                .body(ROBOTS),
            "/gzip/robots.txt" => Reply::text(gzip(ROBOTS.as_bytes())).header("content-encoding", "gzip"),
            "/deflate/robots.txt" => {
                Reply::text(zlib(ROBOTS.as_bytes())).header("content-encoding", "deflate")
            }
            "/br/robots.txt" => {
                Reply::text(brotli_stored(ROBOTS.as_bytes())).header("content-encoding", "br")
            }
            "/bom8/robots.txt" => Reply::text([b"\xEF\xBB\xBF".as_slice(), ROBOTS.as_bytes()].concat()),
            "/utf16le/robots.txt" => Reply::new(200)
                .header("content-type", "text/plain; charset=utf-16")
                .body(utf16(ROBOTS, false)),
            "/utf16be/robots.txt" => Reply::text(utf16(ROBOTS, true)),
            "/latin1/robots.txt" => Reply::new(200)
                .header("content-type", "text/plain; charset=iso-8859-1")
                .body(b"User-agent: *\nDisallow: /caf\xE9\n".to_vec()),
            "/big/robots.txt" => Reply::text(big),
            "/big-gzip/robots.txt" => Reply::text(gzip(&big)).header("content-encoding", "gzip"),
            "/html/robots.txt" => Reply::new(200)
                .header("content-type", "text/html; charset=utf-8")
                .body("<!DOCTYPE html>\n<html><head><title>Not found</title></head><body>Oops</body></html>\n"),
            "/zstd/robots.txt" => Reply::text(ROBOTS).header("content-encoding", "zstd"),
            "/bad-gzip/robots.txt" => Reply::text("not gzip at all").header("content-encoding", "gzip"),
            _ => Reply::new(404),
        }
    })
    .await
}

#[tokio::test]
async fn plain() {
    let server = site().await;
    let report = fetch(&server.url("/plain/robots.txt")).await;
    assert_eq!(report.result, FetchResult::Status(200));
    assert_eq!(report.status, Some(200));
    assert_eq!(report.body, ROBOTS.as_bytes());
    assert!(!report.truncated);
    assert_eq!(
        report.content_type.as_deref(),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(report.charset.as_deref(), Some("utf-8"));
    assert_eq!(report.content_encoding, None);
    assert_eq!(report.content_length, Some(ROBOTS.len() as u64));
    assert_eq!(report.full_length, Some(ROBOTS.len() as u64));
    assert_eq!(report.wire_bytes, ROBOTS.len() as u64);
    assert_eq!(report.encoding(), Encoding::Declared("utf-8".to_owned()));
    assert_eq!(report.hops.len(), 1);
    assert_eq!(report.hops[0].status, Some(200));
    assert_eq!(report.hops[0].url.as_str(), server.url("/plain/robots.txt"));
    assert!(report.error.is_none());
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(decisions(&report.outcome()), PARSE);
}

#[tokio::test]
async fn compressed_bodies_are_decoded() {
    let server = site().await;
    for (path, coding) in [
        ("/gzip/robots.txt", "gzip"),
        ("/deflate/robots.txt", "deflate"),
        ("/br/robots.txt", "br"),
    ] {
        let report = fetch(&server.url(path)).await;
        assert_eq!(report.result, FetchResult::Status(200), "{path}");
        assert_eq!(report.body, ROBOTS.as_bytes(), "{path}");
        assert_eq!(report.content_encoding.as_deref(), Some(coding));
        assert_eq!(report.content_length, Some(report.wire_bytes), "{path}");
        assert_eq!(report.full_length, None, "{path}: decoded length unknown");
        assert!(report.warnings.is_empty(), "{path}: {:?}", report.warnings);
        assert_eq!(decisions(&report.outcome()), PARSE);
    }
}

#[tokio::test]
async fn utf8_bom() {
    let server = site().await;
    let report = fetch(&server.url("/bom8/robots.txt")).await;
    assert_eq!(report.bom(), Some(Bom::Utf8));
    assert_eq!(report.encoding(), Encoding::Bom(Bom::Utf8));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(decisions(&report.outcome()), PARSE);
}

#[tokio::test]
async fn utf16_with_bom() {
    let server = site().await;
    for (path, bom) in [
        ("/utf16le/robots.txt", Bom::Utf16Le),
        ("/utf16be/robots.txt", Bom::Utf16Be),
    ] {
        let report = fetch(&server.url(path)).await;
        assert_eq!(report.bom(), Some(bom), "{path}");
        assert_eq!(report.encoding(), Encoding::Bom(bom), "{path}");
        assert_eq!(report.body.len(), 2 + 2 * ROBOTS.len(), "{path}");
        assert_eq!(&*report.utf8_body(), ROBOTS.as_bytes(), "{path}");
        assert!(
            report
                .warnings
                .iter()
                .any(|w| matches!(w, Warning::NotUtf8 { .. })),
            "{path}: {:?}",
            report.warnings
        );
        assert_eq!(decisions(&report.outcome()), PARSE);
    }
    let report = fetch(&server.url("/utf16le/robots.txt")).await;
    assert_eq!(report.charset.as_deref(), Some("utf-16"));
}

#[tokio::test]
async fn declared_latin1() {
    let server = site().await;
    let report = fetch(&server.url("/latin1/robots.txt")).await;
    assert_eq!(report.encoding().label(), "iso-8859-1");
    assert_eq!(
        report.warnings,
        [Warning::NotUtf8 {
            encoding: Encoding::Declared("iso-8859-1".to_owned())
        }]
    );
}

#[tokio::test]
async fn oversize_body_is_cut_at_the_limit() {
    let server = site().await;
    let report = fetch(&server.url("/big/robots.txt")).await;
    assert_eq!(report.result, FetchResult::Status(200));
    assert_eq!(report.body.len(), 512_000);
    assert!(report.truncated);
    assert_eq!(report.full_length, Some(600_000));
    assert!(report.warnings.contains(&Warning::Truncated {
        kept: 512_000,
        full_length: Some(600_000)
    }));
    // Google reads the first 500 KiB; Yandex ignores a file over 500 KB.
    assert_eq!(
        decisions(&report.outcome()),
        ["parse", "parse", "parse", "full-allow", "parse", "parse"]
    );
}

#[tokio::test]
async fn oversize_gzip_counts_decoded_bytes() {
    let server = site().await;
    let report = fetch(&server.url("/big-gzip/robots.txt")).await;
    assert_eq!(report.body.len(), 512_000);
    assert!(report.truncated);
    assert_eq!(report.full_length, None);
    assert!(report.wire_bytes < 512_000, "the compressed body is small");
    assert!(report.warnings.contains(&Warning::Truncated {
        kept: 512_000,
        full_length: None
    }));
}

#[tokio::test]
async fn a_smaller_limit() {
    let server = site().await;
    let fetcher = loopback().max_bytes(10).build().expect("fetcher");
    let report = fetcher
        .fetch(&server.url("/plain/robots.txt"))
        .await
        .expect("fetched");
    assert_eq!(report.body, &ROBOTS.as_bytes()[..10]);
    assert!(report.truncated);
    assert_eq!(report.full_length, Some(ROBOTS.len() as u64));
    // Under the robots' own 500 KiB limits, the kept part is parsed.
    assert_eq!(decisions(&report.outcome()), PARSE);
}

#[tokio::test]
async fn html_served_as_robots_txt() {
    let server = site().await;
    let report = fetch(&server.url("/html/robots.txt")).await;
    assert_eq!(report.result, FetchResult::Status(200));
    assert_eq!(
        report.content_type.as_deref(),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(
        report.warnings,
        [
            Warning::NotPlainText {
                media_type: "text/html".to_owned()
            },
            Warning::LooksLikeHtml
        ]
    );
    assert_eq!(decisions(&report.outcome()), PARSE);
}

#[tokio::test]
async fn unsupported_coding_is_kept_as_sent() {
    let server = site().await;
    let report = fetch(&server.url("/zstd/robots.txt")).await;
    assert_eq!(report.body, ROBOTS.as_bytes());
    assert_eq!(
        report.warnings,
        [Warning::UnsupportedEncoding {
            coding: "zstd".to_owned()
        }]
    );
}

#[tokio::test]
async fn broken_gzip_is_a_network_error() {
    let server = site().await;
    let report = fetch(&server.url("/bad-gzip/robots.txt")).await;
    assert_eq!(report.status, Some(200));
    assert_eq!(report.result, FetchResult::NetworkError);
    assert!(
        matches!(&report.error, Some(botwarden_fetch::Error::Decode { coding, .. }) if coding == "gzip"),
        "{:?}",
        report.error
    );
    assert_eq!(
        decisions(&report.outcome()),
        [
            "full-disallow",
            "full-disallow",
            "full-disallow",
            "full-allow",
            "retry-later",
            "retry-later"
        ]
    );
}
