//! `botwarden crawl --render` and the audit's view per robot, against an
//! HTTP server on 127.0.0.1, in the real headless Chromium.

use serde_json::Value;

use crate::robots_fetch::{reply, serve};
use crate::{TempFile, botwarden};

/// A home page whose only link to `/found` is written by its script.
fn site(path: &str) -> String {
    match path {
        "/robots.txt" => reply(
            200,
            &[("Content-Type", "text/plain")],
            "User-agent: *\nAllow: /\n",
        ),
        "/" => reply(
            200,
            &[("Content-Type", "text/html")],
            "<!doctype html><html><head><title>Home</title><script src=\"/app.js\" defer></script>\
             </head><body><p>Home.</p></body></html>",
        ),
        "/app.js" => reply(
            200,
            &[("Content-Type", "text/javascript")],
            "var a = document.createElement('a'); a.href = '/found'; a.textContent = 'found'; \
             document.body.appendChild(a);",
        ),
        "/found" => reply(
            200,
            &[("Content-Type", "text/html")],
            "<!doctype html><html><head><title>Found</title></head><body><a href=\"/\">home</a></body></html>",
        ),
        _ => reply(404, &[], "not found"),
    }
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = botwarden(args, b"");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_rendered_crawl_finds_what_scripts_link_and_the_audit_says_who_sees_it() {
    let addr = serve(site);
    let dir = TempFile::new("render-placeholder", b"");
    let db = dir.path.with_file_name("render.db");
    let db = db.to_str().expect("UTF-8 path");
    let url = format!("http://{addr}/");
    let chromium = botwarden_testdata::chromium::binary();
    let chromium = chromium.to_str().expect("UTF-8 path");
    let (code, out, err) = run(&[
        "crawl",
        &url,
        "--db",
        db,
        "--allow-private",
        "--render",
        "--chromium",
        chromium,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let summary: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        summary["urls"]["fetched"],
        2,
        "{summary}\nrenders: {}",
        renders(std::path::Path::new(db))
    );

    let (code, out, err) = run(&["audit", db, "--format", "json", "--select", "render"]);
    assert_eq!(code, 0, "{err}");
    let audit: Value = serde_json::from_str(&out).expect("JSON");
    let view = &audit["render"];
    assert_eq!(view["rendered"], 2, "{view}");
    assert_eq!(view["links_only_rendered"], 1, "{view}");
    let reads = |name: &str| {
        view["robots"]
            .as_array()
            .and_then(|r| r.iter().find(|r| r["name"] == name))
            .map(|r| r["reads"].clone())
    };
    assert_eq!(reads("Googlebot"), Some(Value::from("rendered")), "{view}");
    assert_eq!(reads("GPTBot"), Some(Value::from("raw")), "{view}");
    assert!(
        view["robots"]
            .as_array()
            .is_some_and(|r| r.iter().all(|r| r["source"].is_string())),
        "every stated reading names its source: {view}"
    );
}

#[test]
fn render_needs_a_browser_and_one_worker() {
    let dir = TempFile::new("render-refused", b"");
    let db = dir.path.with_file_name("refused.db");
    let db = db.to_str().expect("UTF-8 path");
    let missing = dir.path.with_file_name("no-such-chromium");
    let missing = missing.to_str().expect("UTF-8 path");
    let (code, _, err) = run(&[
        "crawl",
        "http://127.0.0.1:9/",
        "--db",
        db,
        "--render",
        "--chromium",
        missing,
    ]);
    assert_ne!(code, 0);
    assert!(err.contains(missing) && err.contains("chromium"), "{err}");
    let (code, _, err) = run(&[
        "crawl",
        "http://127.0.0.1:9/",
        "--db",
        db,
        "--render",
        "--workers",
        "2",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--render is for a crawl by one worker"),
        "{err}"
    );
}

/// The store's renders and their requests, as text, for a failure's
/// message.
fn renders(db: &std::path::Path) -> String {
    let conn = rusqlite::Connection::open(db).expect("store");
    let mut st = conn
        .prepare(
            "SELECT r.url_id, r.outcome, coalesce(r.error, ''), q.url, q.outcome, coalesce(q.status, 0), \
             coalesce(q.detail, '') FROM renders r LEFT JOIN render_requests q ON q.url_id = r.url_id",
        )
        .expect("query");
    let rows = st
        .query_map([], |r| {
            Ok(format!(
                "{} {} {} | {:?} {:?} {:?} {:?}",
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, i64>(5)?,
                r.get::<_, String>(6)?
            ))
        })
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .expect("rows");
    rows.join("\n")
}
