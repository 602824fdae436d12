//! `botwarden audit`, over the store of a crawl of a site on 127.0.0.1.

use serde_json::Value;

use crate::robots_fetch::{reply, serve};
use crate::{TempFile, botwarden};

fn site(path: &str) -> String {
    let html = |title: &str, body: &str| {
        reply(
            200,
            &[("Content-Type", "text/html")],
            &format!("<html><head><title>{title}</title></head><body>{body}</body></html>"),
        )
    };
    match path {
        "/robots.txt" => reply(
            200,
            &[("Content-Type", "text/plain")],
            "User-agent: *\nDisallow: /private\n",
        ),
        "/" => html(
            "Home",
            r#"<a href="/missing">gone</a> <a href="/old">old</a> <a href="/new">new</a>
               <a href="/private/p">p</a>"#,
        ),
        "/old" => reply(301, &[("Location", "/new")], ""),
        "/new" => html("New", "<p>new</p>"),
        _ => reply(404, &[], "not found"),
    }
}

/// Crawls the site into a fresh store; the store's path.
fn crawled(dir: &TempFile) -> String {
    let addr = serve(site);
    let db = dir.path.with_file_name("audit.db");
    let db = db.to_str().expect("UTF-8 path").to_owned();
    let url = format!("http://{addr}/");
    let out = botwarden(&["crawl", &url, "--db", &db, "--allow-private"], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

#[test]
fn audit_prints_text_and_json() {
    let dir = TempFile::new("placeholder", b"");
    let db = crawled(&dir);

    let out = botwarden(&["audit", &db], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The three planted problems, and the pages' missing canonical,
    // description, <h1> and charset (four checks, two pages each).
    let checks = botwarden_crawl::CHECKS.len();
    assert!(
        text.contains(&format!("11 finding(s) from 7 of {checks} checks")),
        "{text}"
    );
    assert!(
        text.contains("error    links/broken-internal  1: "),
        "{text}"
    );
    assert!(text.contains("/missing: answered 404"), "{text}");
    assert!(text.contains("(\"gone\")"), "{text}");
    assert!(text.contains("warning  links/to-redirect  1: "), "{text}");
    assert!(
        text.contains("/private/p: disallowed by Disallow: /private (line 2)"),
        "{text}"
    );
    assert!(text.contains("no findings: redirects/loop, "), "{text}");

    let out = botwarden(&["audit", &db, "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["schema"], "botwarden-audit/1", "{v}");
    assert_eq!(v["state"], "finished", "{v}");
    let checks = v["checks"].as_array().expect("checks");
    assert_eq!(checks.len(), botwarden_crawl::CHECKS.len(), "{v}");
    let by_code = |code: &str| {
        checks
            .iter()
            .find(|c| c["code"] == code)
            .unwrap_or_else(|| panic!("{code} in {v}"))
    };
    let broken = by_code("links/broken-internal");
    assert_eq!(broken["severity"], "error");
    assert_eq!(broken["count"], 1);
    assert_eq!(broken["findings"][0]["links"][0]["anchor"], "gone");
    let blocked = by_code("robots/blocked");
    assert_eq!(blocked["findings"][0]["robots"]["obeyed"]["line"], 2, "{v}");
    assert_eq!(by_code("structure/deep-page")["count"], 0);

    // Every page is deeper than no click at all.
    let out = botwarden(&["audit", &db, "--format", "json", "--max-depth", "0"], b"");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let deep = v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["code"] == "structure/deep-page")
        .expect("deep-page");
    // /new (linked from the home page and the redirect's target).
    assert_eq!(deep["count"], 1, "{v}");
    assert_eq!(v["max_depth"], 0);
}

#[test]
fn audit_of_a_missing_store_names_it() {
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("nothing.db");
    let out = botwarden(&["audit", db.to_str().expect("UTF-8 path")], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("nothing.db") && stderr.contains("no such file"),
        "{stderr}"
    );
}
