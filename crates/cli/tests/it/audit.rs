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
    // The three planted problems, the pages' missing canonical,
    // description, <h1>, charset, language and viewport and their little
    // text (seven checks, two pages each), and /new, which links nowhere
    // (a dead end).
    let checks = botwarden_audit::CHECKS.len();
    assert!(
        text.contains(&format!("18 finding(s) from 11 of {checks} checks")),
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
    assert_eq!(checks.len(), botwarden_audit::CHECKS.len(), "{v}");
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

#[test]
fn audit_writes_html_csv_and_the_link_graph() {
    let dir = TempFile::new("placeholder", b"");
    let db = crawled(&dir);
    let ok = |args: &[&str]| {
        let out = botwarden(args, b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };

    let out = ok(&["audit", &db, "--format", "html"]);
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(html.starts_with("<!DOCTYPE html>\n"), "{html}");
    assert!(html.contains(r#"id="check-links-broken-internal""#));
    assert!(html.contains("/missing</td>"), "{html}");
    assert!(html.trim_end().ends_with("</html>"));
    let page = dir.path.with_file_name("audit.html");
    let page = page.to_str().expect("UTF-8 path");
    let out = ok(&["audit", &db, "--format", "html", "--output", page]);
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(page).expect("the page"), html);

    let folder = dir.path.with_file_name("csv");
    let folder_arg = folder.to_str().expect("UTF-8 path");
    let out = ok(&["audit", &db, "--format", "csv", "--output", folder_arg]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("wrote 12 CSV file(s)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = std::fs::read_to_string(folder.join("index.csv")).expect("index");
    assert!(index.starts_with("code,severity,summary,findings,file\r\n"));
    assert!(index.contains("links/broken-internal,error,"), "{index}");
    let broken = std::fs::read_to_string(folder.join("links-broken-internal.csv")).expect("file");
    assert_eq!(broken.lines().count(), 2, "{broken}");
    assert!(broken.contains("/missing,answered 404,"), "{broken}");

    // CSV needs a folder.
    let out = botwarden(&["audit", &db, "--format", "csv"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--output"));

    let out = ok(&["audit", &db, "--graph", "graphml"]);
    let xml = String::from_utf8_lossy(&out.stdout);
    assert!(xml.starts_with(r#"<?xml version="1.0" encoding="UTF-8"?>"#));
    assert!(xml.contains(r#"<key id="link_score" for="node""#));
    assert!(xml.contains("<data key=\"anchor\">gone</data>"), "{xml}");
    assert!(xml.trim_end().ends_with("</graphml>"));
    let graph = dir.path.with_file_name("graph");
    let graph_arg = graph.to_str().expect("UTF-8 path");
    ok(&["audit", &db, "--graph", "csv", "--output", graph_arg]);
    let nodes = std::fs::read_to_string(graph.join("nodes.csv")).expect("nodes");
    assert!(nodes.starts_with("url,state,status,depth,in_links,out_links,link_score\r\n"));
    // The home page, /old, /new, /missing, /private/p.
    assert_eq!(nodes.lines().count(), 6, "{nodes}");
    let edges = std::fs::read_to_string(graph.join("edges.csv")).expect("edges");
    assert!(edges.starts_with("source,target,kind,anchor,rel,followed\r\n"));
    assert!(edges.contains("/missing,a,gone,,true\r\n"), "{edges}");
}

#[test]
fn audit_compares_with_an_earlier_crawl() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let changed = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&changed);
    let addr = serve(move |path| {
        if flag.load(Ordering::SeqCst) && path == "/missing" {
            reply(200, &[("Content-Type", "text/html")], "<title>Back</title>")
        } else {
            site(path)
        }
    });
    let url = format!("http://{addr}/");
    let dir = TempFile::new("placeholder", b"");
    let store = |name: &str| {
        let db = dir.path.with_file_name(name);
        let db = db.to_str().expect("UTF-8 path").to_owned();
        let out = botwarden(&["crawl", &url, "--db", &db, "--allow-private"], b"");
        assert_eq!(out.status.code(), Some(0));
        db
    };
    let before = store("before.db");
    changed.store(true, Ordering::SeqCst);
    let now = store("now.db");

    let out = botwarden(&["audit", &now, "--compare", &before], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // Fixed: the broken link. New: what the checks of a page find on
    // /missing, now a page (no canonical, description, <h1>, charset,
    // language or viewport, little text, a dead end).
    // Still there: the redirect, the blocked URL, those seven on / and
    // /new, and /new a dead end (as /missing now is too).
    assert!(text.contains(": 1 fixed, 8 new, 17 still there"), "{text}");
    assert!(
        text.contains("error    links/broken-internal  1 fixed, 0 new, 0 still there"),
        "{text}"
    );
    assert!(text.contains(&format!("  fixed  {url}missing\n")), "{text}");

    let out = botwarden(
        &["audit", &now, "--compare", &before, "--format", "json"],
        b"",
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["compare"]["fixed"], 1, "{v}");
    assert_eq!(v["compare"]["new"], 8, "{v}");
    assert_eq!(v["compare"]["still"], 17, "{v}");

    let out = botwarden(&["audit", &now, "--compare", "nowhere.db"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--compare: cannot open nowhere.db"));
}

#[test]
fn crawl_with_audit_prints_the_audit_after_the_summary() {
    let addr = serve(site);
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("crawl.db");
    let db = db.to_str().expect("UTF-8 path");
    let url = format!("http://{addr}/");
    let out = botwarden(
        &["crawl", &url, "--db", db, "--allow-private", "--audit"],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let audit = botwarden(&["audit", db], b"");
    let audit = String::from_utf8_lossy(&audit.stdout);
    assert!(
        audit.contains(&format!(
            "18 finding(s) from 11 of {} checks",
            botwarden_audit::CHECKS.len()
        )),
        "{audit}"
    );
    assert!(
        text.ends_with(&format!("\n\n{audit}")),
        "the audit follows the summary: {text}"
    );
    assert!(text.len() > audit.len() + 2, "and the summary comes first");

    let db2 = dir.path.with_file_name("crawl2.db");
    let db2 = db2.to_str().expect("UTF-8 path");
    let out = botwarden(
        &[
            "crawl",
            &url,
            "--db",
            db2,
            "--allow-private",
            "--audit",
            "--format",
            "json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let alone = botwarden(&["audit", db2, "--format", "json"], b"");
    let alone: Value = serde_json::from_slice(&alone.stdout).expect("JSON");
    assert_eq!(v["audit"], alone);
    assert_eq!(v["audit"]["schema"], "botwarden-audit/1");
    assert!(v["crawl"].is_object(), "{v}");
}

/// `botwarden audit ARGS` run in the folder `cwd`.
fn audit_in(cwd: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .arg("audit")
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run botwarden")
}

/// The codes of the checks a JSON report lists.
fn codes(out: &std::process::Output) -> Vec<String> {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| c["code"].as_str().expect("code").to_owned())
        .collect()
}

#[test]
fn audit_selects_checks_by_flag_and_config_file_flags_first() {
    let dir = TempFile::new("placeholder", b"");
    let db = crawled(&dir);
    let folder = dir.path.parent().expect("folder").to_owned();

    // By group, a code taken back from an ignored group.
    let out = audit_in(
        &folder,
        &[
            &db,
            "--format",
            "json",
            "--select",
            "links,robots/blocked",
            "--ignore",
            "links/empty-href",
        ],
    );
    let got = codes(&out);
    assert!(got.contains(&"links/broken-internal".to_owned()), "{got:?}");
    assert!(got.contains(&"robots/blocked".to_owned()), "{got:?}");
    assert!(!got.contains(&"links/empty-href".to_owned()), "{got:?}");
    assert!(
        got.iter()
            .all(|c| c.starts_with("links/") || c == "robots/blocked"),
        "{got:?}"
    );
    // The text names only the checks run.
    let out = audit_in(&folder, &[&db, "--select", "links/broken-internal"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("1 finding(s) from 1 of 1 checks"), "{text}");

    // A selector that names nothing: exit 2, saying which.
    let out = audit_in(&folder, &[&db, "--select", "near-duplicate"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("select[0]: 'near-duplicate' is no check's code")
            && stderr.contains("did you mean content/near-duplicate?"),
        "{stderr}"
    );

    // ./botwarden.toml, read when present; flags replace its keys.
    std::fs::write(
        folder.join("botwarden.toml"),
        "[audit]\nignore = [\"links\"]\nmax-evidence = 0\n",
    )
    .expect("config");
    let out = audit_in(&folder, &[&db, "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let got = codes(&out);
    assert!(!got.iter().any(|c| c.starts_with("links/")), "{got:?}");
    let blocked = v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["code"] == "robots/blocked")
        .expect("robots/blocked");
    // No link listed, all of them counted.
    assert_eq!(blocked["findings"][0]["link_count"], 1, "{v}");
    assert!(blocked["findings"][0].get("links").is_none(), "{v}");
    let out = audit_in(&folder, &[&db, "--format", "json", "--ignore", "robots"]);
    let got = codes(&out);
    assert!(got.contains(&"links/broken-internal".to_owned()), "{got:?}");
    assert!(!got.iter().any(|c| c.starts_with("robots/")), "{got:?}");
    // --config names another file; a bad one is named with its key.
    let other = folder.join("other.toml");
    std::fs::write(&other, "[audit]\nselect = [\"redirects\"]\n").expect("config");
    let other = other.to_str().expect("UTF-8 path");
    let got = codes(&audit_in(
        &folder,
        &[&db, "--format", "json", "--config", other],
    ));
    assert!(got.iter().all(|c| c.starts_with("redirects/")), "{got:?}");
    std::fs::write(folder.join("botwarden.toml"), "[audit]\nselekt = []\n").expect("config");
    let out = audit_in(&folder, &[&db]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("botwarden.toml") && stderr.contains("selekt"),
        "{stderr}"
    );
}
