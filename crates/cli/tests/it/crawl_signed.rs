//! `botwarden crawl --sign-key FILE --signature-agent URL`: every request
//! of the crawl carries a Web Bot Auth signature that verifies with the
//! key's directory.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use botwarden_verify::{
    DIRECTORY_MEDIA_TYPE, KeyRing, KeySet, RequestParts, SignatureCheck, SignatureVerifier, Signer,
};

use crate::robots_fetch::reply;
use crate::{TempFile, botwarden};

/// Each request's head as received: the request line, then the fields.
type Heads = Arc<Mutex<Vec<(String, Vec<(String, String)>)>>>;

fn site(path: &str, host: &str) -> String {
    let html = |body: &str| {
        reply(
            200,
            &[("Content-Type", "text/html")],
            &format!("<html><body>{body}</body></html>"),
        )
    };
    match path {
        "/robots.txt" => reply(
            200,
            &[("Content-Type", "text/plain")],
            &format!("User-agent: *\nAllow: /\nSitemap: http://{host}/sitemap.xml\n"),
        ),
        "/sitemap.xml" => reply(
            200,
            &[("Content-Type", "application/xml")],
            &format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                 <url><loc>http://{host}/listed</loc></url></urlset>"
            ),
        ),
        "/" => html(r#"<a href="/a">a</a> <a href="/moved">m</a>"#),
        "/moved" => reply(301, &[("Location", "/a?from=moved")], ""),
        "/a" | "/listed" => html("end"),
        _ => reply(404, &[], "not found"),
    }
}

/// A server on 127.0.0.1 that keeps every request's head.
fn capturing() -> (SocketAddr, Heads) {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("address");
    let heads: Heads = Arc::default();
    let keep = Arc::clone(&heads);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&request).into_owned();
            let mut lines = head.split("\r\n");
            let first = lines.next().unwrap_or_default().to_owned();
            let fields: Vec<(String, String)> = lines
                .filter_map(|l| l.split_once(':'))
                .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
                .collect();
            let path = first.split(' ').nth(1).unwrap_or("/").to_owned();
            let host = fields
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("host"))
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            keep.lock().expect("heads").push((first, fields));
            let plain = path.split('?').next().unwrap_or("/").to_owned();
            let _ = stream.write_all(site(&plain, &host).as_bytes());
        }
    });
    (addr, heads)
}

#[test]
fn every_request_of_a_crawl_with_a_signing_key_is_signed() {
    signed_crawl("dictionary", "sig1=\"https://agent.test\"");
}

#[test]
fn the_string_form_sends_the_agent_as_a_bare_string() {
    signed_crawl("string", "\"https://agent.test\"");
}

/// A crawl signed with `--signature-agent-form form`: every request
/// carries `Signature-Agent: agent_field` and verifies.
fn signed_crawl(form: &str, agent_field: &str) {
    let key = Signer::generate().expect("key");
    let key_file = TempFile::new(
        &format!("crawler-key-{form}.jwk"),
        key.private_jwk().as_bytes(),
    );
    let (addr, heads) = capturing();
    let db = key_file
        .path
        .with_file_name(format!("signed-crawl-{form}.db"));
    let url = format!("http://{addr}/");
    let out = botwarden(
        &[
            "crawl",
            &url,
            "--db",
            db.to_str().expect("UTF-8 path"),
            "--allow-private",
            "--sitemaps",
            "--sign-key",
            key_file.arg(),
            "--signature-agent",
            "https://agent.test",
            "--signature-agent-form",
            form,
            "--format",
            "json",
        ],
        b"",
    );
    let _ = std::fs::remove_file(&db);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut ring = KeyRing::new();
    ring.insert_directory(
        "https://agent.test/.well-known/http-message-signatures-directory",
        KeySet::from_directory(
            key.directory_json().as_bytes(),
            Some(DIRECTORY_MEDIA_TYPE),
            "directory",
        )
        .expect("directory"),
    );
    let verifier = SignatureVerifier::default();
    let heads = heads.lock().expect("heads").clone();
    let mut targets: Vec<&str> = Vec::new();
    for (first, fields) in &heads {
        let mut parts = first.split(' ');
        let method = parts.next().unwrap_or_default();
        let target = parts.next().unwrap_or_default();
        targets.push(target);
        let host = fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("host"))
            .map(|(_, v)| v.as_str())
            .unwrap_or_default();
        let mut req = RequestParts::new(method, host, target).scheme("http");
        for (n, v) in fields {
            req.push_header(n, v);
        }
        assert_eq!(
            req.header_value("signature-agent").as_deref(),
            Some(agent_field),
            "{first}"
        );
        match verifier.check(&req, &ring, SystemTime::now()) {
            SignatureCheck::Valid(ev) => {
                assert_eq!(ev.keyid, key.keyid(), "{first}");
                assert_eq!(
                    ev.agent.as_ref().map(|a| a.uri.as_str()),
                    Some("https://agent.test"),
                    "{first}"
                );
            }
            other => panic!("{first}: {other:?}"),
        }
    }
    targets.sort_unstable();
    assert_eq!(
        targets,
        [
            "/",
            "/a",
            "/a?from=moved",
            "/listed",
            "/moved",
            "/robots.txt",
            "/sitemap.xml"
        ]
    );
}

#[test]
fn a_bad_signing_key_is_named() {
    let bad = TempFile::new("not-a-key.jwk", b"{\"kty\":\"RSA\"}");
    let out = botwarden(
        &["crawl", "http://127.0.0.1:9/", "--sign-key", bad.arg()],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not-a-key.jwk"), "{stderr}");
    assert!(stderr.contains("not an Ed25519 JWK"), "{stderr}");
}
