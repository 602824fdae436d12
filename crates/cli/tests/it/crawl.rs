//! `botwarden crawl`, against an HTTP server on 127.0.0.1.

use serde_json::Value;

use crate::robots_fetch::{reply, serve};
use crate::{TempFile, botwarden};

fn site(path: &str) -> String {
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
            "User-agent: botwarden\nDisallow: /private\n\nUser-agent: botwarden-phone\nDisallow: /desktop-only\n",
        ),
        "/" => {
            html(r#"<a href="/a">a</a> <a href="/private/p">p</a> <a href="/desktop-only">d</a>"#)
        }
        "/a" => html(r#"<a href="/">home</a> <a href="/b" rel="ugc">b</a>"#),
        "/desktop-only" => html("desktop"),
        _ => reply(404, &[], "not found"),
    }
}

fn crawl(args: &[&str]) -> (i32, Value, String) {
    let out = botwarden(args, b"");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().expect("exit code"), json, stderr)
}

#[test]
fn a_site_is_crawled_and_summarised_and_a_store_is_not_overwritten() {
    let addr = serve(site);
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("crawl.db");
    let db = db.to_str().expect("UTF-8 path");
    let url = format!("http://{addr}/");
    let args = [
        "crawl",
        &url,
        "--db",
        db,
        "--allow-private",
        "--format",
        "json",
    ];
    let (code, v, stderr) = crawl(&args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["state"], "finished", "{v}");
    assert_eq!(v["urls"]["fetched"], 3, "{v}");
    assert_eq!(v["skipped"]["robots"], 1, "{v}");
    assert_eq!(v["skipped"]["nofollow"], 1, "{v}");
    assert_eq!(
        v["blocked_by"][0]["rule"], "Disallow: /private (line 2)",
        "{v}"
    );
    assert!(
        v["user_agent"]
            .as_str()
            .is_some_and(|ua| ua.starts_with("botwarden full crawler ")),
        "{v}"
    );
    assert!(stderr.contains("3 page(s) fetched"), "{stderr}");

    // The store is kept: a second crawl into it is refused, a resume of a
    // finished crawl fetches nothing.
    let (code, _, stderr) = crawl(&args);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("already exists") && stderr.contains("--resume"),
        "{stderr}"
    );
    let (code, v, stderr) = crawl(&[
        "crawl",
        "--resume",
        "--db",
        db,
        "--allow-private",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["urls"]["fetched"], 3, "{v}");
    assert!(stderr.contains("0 page(s) fetched"), "{stderr}");
}

#[test]
fn the_phone_platform_reads_its_own_group_first() {
    let addr = serve(site);
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("phone.db");
    let url = format!("http://{addr}/");
    let (code, v, stderr) = crawl(&[
        "crawl",
        &url,
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--allow-private",
        "--platform",
        "phone",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    // botwarden-phone's group applies, not botwarden's: /private is
    // fetched (a 404), /desktop-only is not.
    assert_eq!(
        v["blocked_by"][0]["rule"], "Disallow: /desktop-only (line 5)",
        "{v}"
    );
    assert_eq!(v["statuses"]["404"], 1, "{v}");
    assert_eq!(v["tokens"], "botwarden-phone botwarden", "{v}");
}

#[test]
fn private_addresses_are_refused_by_default() {
    let addr = serve(site);
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("refused.db");
    let url = format!("http://{addr}/");
    let (code, v, stderr) = crawl(&[
        "crawl",
        &url,
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["urls"]["fetched"], 0, "{v}");
    assert_eq!(v["skipped"]["robots-unavailable"], 1, "{v}");
}
