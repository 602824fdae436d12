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
    // Refused by the crawl's own settings, not by the site: the URL is
    // held, still queued, for a resume with --allow-private.
    assert_eq!(code, 3, "{stderr}");
    assert_eq!(v["urls"]["fetched"], 0, "{v}");
    assert_eq!(v["urls"]["queued"], 1, "{v}");
    assert_eq!(v["skipped"], serde_json::json!({}), "{v}");
    assert_eq!(v["state"], "stopped", "{v}");
    assert!(
        stderr.contains("127.0.0.1 is a loopback address; allow it with --allow-private"),
        "{stderr}"
    );
}

#[test]
fn an_unreadable_or_empty_ca_bundle_is_named() {
    let dir = TempFile::new("not-a-cert.pem", b"hello\n");
    let db = dir.path.with_file_name("ca.db");
    let missing = dir.path.with_file_name("missing.pem");
    for (file, want) in [
        (
            missing.to_str().expect("UTF-8 path"),
            "--ca-cert: cannot read",
        ),
        (
            dir.path.to_str().expect("UTF-8 path"),
            "cannot read the certificates to trust: no PEM certificate in it",
        ),
    ] {
        let (code, _, stderr) = crawl(&[
            "crawl",
            "http://127.0.0.1:9/",
            "--db",
            db.to_str().expect("UTF-8 path"),
            "--ca-cert",
            file,
        ]);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(want), "{stderr}");
        assert!(stderr.contains(file), "{stderr}");
        assert!(!db.exists(), "no store is made before the crawl can start");
    }
}

/// Requests per path of the slow site, across every crawl of the test.
static SLOW_HITS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// 120 pages in a ring of links, each answered after 15 ms.
fn slow_site(path: &str) -> String {
    SLOW_HITS.lock().expect("hits").push(path.to_owned());
    if path == "/robots.txt" {
        return reply(
            200,
            &[("Content-Type", "text/plain")],
            "User-agent: *\nDisallow: /never\n",
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(15));
    let n: u32 = path.trim_start_matches("/p").parse().unwrap_or(0);
    let body = format!(
        "<html><body><a href=\"/p{}\">next</a> <a href=\"/p{}\">skip</a> <a href=\"/never\">x</a></body></html>",
        (n + 1) % 120,
        (n + 7) % 120
    );
    reply(200, &[("Content-Type", "text/html")], &body)
}

/// `(url without host, state, skip reason)` of every URL of a store, and
/// its pages and links counted.
fn store_facts(db: &std::path::Path, addr: &str) -> (Vec<(String, String, String)>, i64, i64) {
    let c = rusqlite::Connection::open(db).expect("open the store");
    let mut st = c
        .prepare("SELECT url, state, coalesce(skip_reason, '') FROM urls ORDER BY url")
        .expect("query");
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?.replace(addr, ""),
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).expect("count");
    (
        rows,
        count("SELECT count(*) FROM pages"),
        count("SELECT count(*) FROM links"),
    )
}

/// The options of the killed and the uninterrupted crawl of the slow
/// site: a resumed crawl must keep every one of them.
const SLOW_OPTIONS: [&str; 5] = [
    "--allow-private",
    "--parallel",
    "2",
    "--exclude",
    "/p11[0-9]$",
];

#[test]
fn a_crawl_killed_midway_resumes_to_the_same_store_as_an_uninterrupted_one() {
    let addr = serve(slow_site);
    let host = format!("http://{addr}");
    let dir = TempFile::new("placeholder", b"");
    let killed = dir.path.with_file_name("killed.db");
    let whole = dir.path.with_file_name("whole.db");
    let url = format!("{host}/p0");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", &url, "--db", killed.to_str().expect("path")])
        .args(SLOW_OPTIONS)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start botwarden");
    // Let it fetch part of the site, then SIGKILL it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while SLOW_HITS.lock().expect("hits").len() < 40 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let before = SLOW_HITS.lock().expect("hits").len();
    assert!(
        (40..110).contains(&before),
        "{before} requests before the kill"
    );

    // Exactly the documented command: the store keeps the crawl's
    // options (loopback allowed, the exclusion, the parallelism).
    let resumed = botwarden(
        &["crawl", "--resume", "--db", killed.to_str().expect("path")],
        b"",
    );
    assert_eq!(
        resumed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let pages: Vec<String> = SLOW_HITS
        .lock()
        .expect("hits")
        .iter()
        .filter(|p| p.as_str() != "/robots.txt")
        .cloned()
        .collect();
    let mut counts = std::collections::BTreeMap::new();
    for p in &pages {
        *counts.entry(p.clone()).or_insert(0) += 1;
    }
    assert_eq!(
        counts.len(),
        110,
        "every page not excluded was fetched, and no other: {:?}",
        counts
            .keys()
            .filter(|p| !(0..110).any(|n| **p == format!("/p{n}")))
            .collect::<Vec<_>>()
    );
    assert!(
        !counts.keys().any(|p| p.len() == 5 && p.starts_with("/p11")),
        "an excluded page was fetched: {counts:?}"
    );
    // Fetched twice: only what was in flight when the process died (at
    // most 2 requests with --parallel 2) and answers it had not yet
    // committed (each answer is handed to the writer at once).
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        twice.len() <= 4 && counts.values().all(|n| *n <= 2),
        "{twice:?}"
    );
    // The resumed crawl read robots.txt from its store, not again.
    let robots = SLOW_HITS
        .lock()
        .expect("hits")
        .iter()
        .filter(|p| p.as_str() == "/robots.txt")
        .count();
    assert_eq!(robots, 1, "robots.txt asked {robots} times");

    let done = botwarden(
        &[
            &["crawl", &url, "--db", whole.to_str().expect("path")][..],
            &SLOW_OPTIONS[..],
        ]
        .concat(),
        b"",
    );
    assert_eq!(done.status.code(), Some(0));
    let a = store_facts(&killed, &host);
    let b = store_facts(&whole, &host);
    assert_eq!(
        a, b,
        "the resumed crawl's store differs from the uninterrupted one's"
    );
    assert_eq!(a.1, 110);
}

/// A store's `(state, meta state)`: the URLs in each state, and whether
/// the crawl is recorded finished.
fn store_states(db: &std::path::Path) -> (Vec<(String, String, i64)>, String) {
    let c = rusqlite::Connection::open(db).expect("open the store");
    let mut st = c
        .prepare(
            "SELECT state, coalesce(skip_reason, ''), count(*) FROM urls \
             GROUP BY state, skip_reason ORDER BY state, skip_reason",
        )
        .expect("query");
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    drop(st);
    drop(c);
    (rows, one(db, "SELECT value FROM meta WHERE key = 'state'"))
}

/// The one value a query of a store gives.
fn one<T: rusqlite::types::FromSql>(db: &std::path::Path, sql: &str) -> T {
    rusqlite::Connection::open(db)
        .expect("open the store")
        .query_row(sql, [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[test]
fn a_robots_txt_refused_by_the_crawls_own_settings_holds_the_urls_for_a_resume() {
    let addr = serve(site);
    let url = format!("http://{addr}/");
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("held.db");
    let db_arg = db.to_str().expect("path");
    // Loopback is refused without --allow-private: that says nothing of
    // the site, so nothing is skipped for good and the crawl is not
    // finished.
    let (code, _, stderr) = crawl(&["crawl", &url, "--db", db_arg]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("1 URL(s) of http://127.0.0.1") && stderr.contains("--allow-private"),
        "{stderr}"
    );
    let (rows, state) = store_states(&db);
    assert_eq!(rows, vec![("queued".into(), String::new(), 1)]);
    assert_eq!(state, "stopped");

    // An option that may not change on resume is refused by name.
    let (code, _, stderr) = crawl(&["crawl", "--resume", "--db", db_arg, "--max-depth", "3"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--max-depth '3': the crawl was started with --max-depth '50'"),
        "{stderr}"
    );
    // --max-urls may only be raised.
    let (code, _, stderr) = crawl(&["crawl", "--resume", "--db", db_arg, "--max-urls", "5"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("may only be raised"), "{stderr}");

    // --allow-private may change: the crawl goes on and finishes.
    let (code, v, stderr) = crawl(&[
        "crawl",
        "--resume",
        "--db",
        db_arg,
        "--allow-private",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["urls"]["fetched"], 3, "{v}");
    let (_, state) = store_states(&db);
    assert_eq!(state, "finished");
    let changes: String = one(&db, "SELECT value FROM meta WHERE key = 'settings_changes'");
    assert!(
        changes.contains("\t--allow-private\tfalse\ttrue\n"),
        "{changes:?}"
    );
}

#[test]
fn urls_skipped_for_a_reason_not_the_sites_are_queued_again_on_request() {
    let addr = serve(site);
    let url = format!("http://{addr}/");
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("retry.db");
    let db_arg = db.to_str().expect("path");
    let (code, _, stderr) = crawl(&["crawl", &url, "--db", db_arg, "--allow-private"]);
    assert_eq!(code, 0, "{stderr}");
    // As an earlier botwarden left a store: URLs skipped because robots.txt
    // could not be read, and the crawl marked finished.
    let c = rusqlite::Connection::open(&db).expect("open the store");
    let marked = c
        .execute(
            "UPDATE urls SET state = 'skipped', skip_reason = 'robots-unavailable', \
             skip_detail = 'robots.txt could not be requested' WHERE url LIKE '%/a'",
            [],
        )
        .expect("mark");
    assert_eq!(marked, 1);
    c.execute(
        "DELETE FROM pages WHERE url_id = (SELECT id FROM urls WHERE url LIKE '%/a')",
        [],
    )
    .expect("forget the page");
    drop(c);
    // A reason that is the site's answer is not one to retry.
    let (code, _, stderr) = crawl(&[
        "crawl",
        "--resume",
        "--db",
        db_arg,
        "--retry-skipped",
        "robots",
    ]);
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = crawl(&[
        "crawl",
        "--resume",
        "--db",
        db_arg,
        "--retry-skipped",
        "robots-unavailable",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("1 URL(s) skipped as robots-unavailable queued again"),
        "{stderr}"
    );
    let (rows, state) = store_states(&db);
    assert!(
        !rows
            .iter()
            .any(|(_, reason, _)| reason == "robots-unavailable"),
        "{rows:?}"
    );
    assert_eq!(state, "finished");
    let fetched: i64 = one(
        &db,
        "SELECT count(*) FROM pages JOIN urls ON urls.id = pages.url_id WHERE url LIKE '%/a'",
    );
    assert_eq!(fetched, 1);
}

/// A site whose robots.txt answers 503 and asks to be asked again in ten
/// minutes.
fn unavailable_site(path: &str) -> String {
    match path {
        "/robots.txt" => reply(503, &[("Retry-After", "600")], "down"),
        _ => reply(200, &[("Content-Type", "text/html")], "<html></html>"),
    }
}

#[test]
fn a_crawl_waiting_to_ask_robots_txt_again_stops_at_once_on_sigterm_and_sigint() {
    let addr = serve(unavailable_site);
    let url = format!("http://{addr}/");
    let dir = TempFile::new("placeholder", b"");
    for (signal, name) in [("-TERM", "term"), ("-INT", "int")] {
        let db = dir.path.with_file_name(format!("wait-{name}.db"));
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_botwarden"))
            .args([
                "crawl",
                &url,
                "--db",
                db.to_str().expect("path"),
                "--allow-private",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start botwarden");
        // Once robots.txt was asked and answered 503, the crawl waits.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !db.exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        let sent = std::time::Instant::now();
        let status = std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let code = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status.code();
            }
            assert!(
                sent.elapsed() < std::time::Duration::from_secs(60),
                "still running a minute after {signal}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert_eq!(code, Some(3), "{signal}");
        let (rows, state) = store_states(&db);
        assert_eq!(rows, vec![("queued".into(), String::new(), 1)], "{signal}");
        assert_eq!(state, "stopped", "{signal}");
    }
}

#[test]
fn identity_gives_robots_lines_a_registry_entry_the_registry_accepts_and_ranges() {
    let out = botwarden(
        &[
            "crawl",
            "identity",
            "--host",
            "crawl.example.net.",
            "--network",
            "203.0.113.0/24",
            "--network",
            "2001:db8:7::/48",
            "--only",
            "registry",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let yaml = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        yaml.contains("fcrdns_hosts: [\"crawl.example.net\"]"),
        "{yaml}"
    );
    let file = TempFile::new("crawler.yaml", yaml.as_bytes());
    let check = botwarden(&["bots", "registry", "check", file.arg()], b"");
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let all = botwarden(&["crawl", "identity", "--network", "203.0.113.7"], b"");
    let text = String::from_utf8_lossy(&all.stdout);
    assert!(text.contains("User-agent: botwarden-phone"), "{text}");
    assert!(
        text.contains("\"ipv4Prefix\": \"203.0.113.7/32\""),
        "{text}"
    );
    let bad = botwarden(&["crawl", "identity", "--network", "203.0.113.7/24"], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("host bits"));
}

#[test]
fn identity_writes_a_jafar_range_file_that_bots_update_fetches_and_verifies() {
    let dir = TempFile::new("identity-placeholder", b"");
    let file = dir.path.with_file_name("botwarden-ranges.json");
    let served = file.clone();
    let addr = serve(move |path| match path {
        "/botwarden-ranges.json" => reply(
            200,
            &[("Content-Type", "application/jafar+json")],
            &std::fs::read_to_string(&served).unwrap_or_default(),
        ),
        _ => reply(404, &[], "not here"),
    });
    let ranges_url = format!("http://{addr}/botwarden-ranges.json");
    let identity = |only: &str, extra: &[&str]| {
        let mut args = vec![
            "crawl",
            "identity",
            "--network",
            "203.0.113.0/25",
            "--network",
            "2001:db8:7::/48",
            "--info-url",
            "https://crawler.example/bot",
            "--ranges-url",
            &ranges_url,
            "--only",
            only,
        ];
        args.extend(extra);
        let out = botwarden(&args, b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    // The file, written whole, in the JAFAR format.
    let said = identity("ranges", &["--ranges-file", file.to_str().unwrap()]);
    assert!(
        said.starts_with(&format!(
            "# range file (JAFAR) written to {}: 2 prefixes",
            file.display()
        )),
        "{said}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["formatVersion"], "1.0");
    assert!(doc["synctoken"].as_str().is_some_and(|t| t.len() == 16));
    assert!(
        doc["creationTime"]
            .as_str()
            .is_some_and(|t| t.starts_with("20") && t.ends_with('Z')),
        "{doc}"
    );
    assert_eq!(doc["prefixes"][0]["ipv4Prefix"], "203.0.113.0/25");
    assert_eq!(doc["prefixes"][1]["ipv6Prefix"], "2001:db8:7::/48");
    assert_eq!(doc["prefixes"][1]["services"][1], "botwarden-essential");
    // How to link it from the crawler's page.
    let link = identity("link", &[]);
    assert!(
        link.contains(&format!(
            "<link rel=\"client-ranges\" href=\"{ranges_url}\">\n"
        )),
        "{link}"
    );
    assert!(
        link.contains(&format!("Link: <{ranges_url}>; rel=\"client-ranges\"\n")),
        "{link}"
    );
    // The registry entry names the file; bots update fetches it, and the
    // crawler's addresses verify by it.
    let entry = identity("registry", &[]);
    assert!(
        entry.contains(&format!(
            "    ranges_url: \"{ranges_url}\"\n    ranges_refresh: 1d\n"
        )),
        "{entry}"
    );
    let registry = TempFile::new("identity-registry.yaml", entry.as_bytes());
    let ranges_dir = dir.path.with_file_name("identity-ranges");
    let registry_args = [
        "--no-default-registry",
        "--registry",
        registry.arg(),
        "--ranges-dir",
        ranges_dir.to_str().unwrap(),
    ];
    let mut update = vec!["bots", "update", "--allow-private"];
    update.extend(registry_args);
    let out = botwarden(&update, b"");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.starts_with(&format!("updated\t{ranges_url}\t2 prefixes of 20")),
        "{stdout}"
    );
    assert!(
        stdout.contains("\tbotwarden, botwarden-essential\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("stale"), "{stdout}");
    let mut verify = vec!["bots", "verify", "--no-dns"];
    verify.extend(registry_args);
    let input = "203.0.113.9\tbotwarden full crawler 0.1.0 (refer to in robots.txt as botwarden; +https://crawler.example/bot)\n\
                 2001:db8:7::1\tbotwarden essential crawler 0.1.0 (refer to in robots.txt as botwarden-essential; +https://crawler.example/bot)\n\
                 203.0.113.200\tbotwarden full crawler 0.1.0 (refer to in robots.txt as botwarden; +https://crawler.example/bot)\n";
    let out = botwarden(&verify, input.as_bytes());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<&str> = stdout
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap_or(""))
        .collect();
    assert_eq!(verdicts, ["verified", "verified", "spoofed"], "{stdout}");
    assert!(
        stdout.contains(&format!("published_ranges: 203.0.113.0/25 in {ranges_url}")),
        "{stdout}"
    );
}

#[test]
fn export_writes_pages_links_and_redirects() {
    let addr = serve(site);
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("export.db");
    let db = db.to_str().expect("UTF-8 path");
    let url = format!("http://{addr}/");
    let done = botwarden(&["crawl", &url, "--db", db, "--allow-private"], b"");
    assert_eq!(done.status.code(), Some(0));
    let pages = botwarden(&["crawl", "export", "--db", db, "--pages"], b"");
    let csv = String::from_utf8_lossy(&pages.stdout);
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .is_some_and(|h| h.starts_with("url,depth,found_by,fetched_at,status")
                && h.contains(
                    ",http_version,content_length,body_read,dns_ms,connect_ms,download_ms,simhash,"
                )
                && h.ends_with(
                    ",mixed_active,mixed_passive,mixed_examples,refresh_delay,robots_tag,quality"
                )),
        "{csv}"
    );
    assert_eq!(lines.count(), 3, "{csv}");
    let links = botwarden(
        &[
            "crawl", "export", "--db", db, "--links", "--format", "jsonl",
        ],
        b"",
    );
    let rows: Vec<Value> = String::from_utf8_lossy(&links.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let ugc = rows
        .iter()
        .find(|r| r["rel"] == "ugc")
        .expect("the ugc link");
    assert_eq!(ugc["followed"], 0);
    assert_eq!(ugc["target"], format!("http://{addr}/b"));
    let none = botwarden(&["crawl", "export", "--db", db], b"");
    assert_eq!(none.status.code(), Some(2), "a table must be named");
}

const SECRET: &str = "the operator's secret, kept out of every output\n";

/// googlebot's group differs from botwarden's, and Google reads it
/// differently from RFC 9309 (`Allow: /dir/index.html` allows `/dir/`).
const OWNED_ROBOTS: &str = "User-agent: botwarden\nDisallow: /shop\n\nUser-agent: googlebot\nDisallow: /dir/\nAllow: /dir/index.html\nDisallow: /private\n\nUser-agent: botwarden-essential\nDisallow: /private\n\nUser-agent: *\nDisallow: /dir/\n";

/// How a test site shows its ownership.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Proof {
    File,
    Meta,
    None,
}

/// A site that serves the verification `token` as `proof` says.
fn owned_site(proof: Proof, token: std::sync::Arc<std::sync::OnceLock<String>>) -> String {
    let addr = serve(move |path| {
        let token = token.get().cloned().unwrap_or_default();
        let html = |body: &str| {
            reply(
                200,
                &[("Content-Type", "text/html")],
                &format!("<html>{body}</html>"),
            )
        };
        if path == format!("/botwarden-{token}.txt") && proof == Proof::File {
            return reply(200, &[("Content-Type", "text/plain")], &token);
        }
        match path {
            "/robots.txt" => reply(200, &[("Content-Type", "text/plain")], OWNED_ROBOTS),
            "/" => {
                let meta = if proof == Proof::Meta {
                    format!(r#"<meta name="botwarden-site-verification" content="{token}">"#)
                } else {
                    String::new()
                };
                html(&format!(
                    r#"<head>{meta}</head><body><a href="/dir/">d</a> <a href="/private">p</a> <a href="/shop">s</a></body>"#
                ))
            }
            "/dir/" | "/private" | "/shop" => html("page"),
            _ => reply(404, &[], "not found"),
        }
    });
    format!("http://{addr}/")
}

/// Starts a site and tells it its token, as its owner would be told by
/// `crawl verify-site --offline`.
fn start_owned(proof: Proof, secret: &TempFile) -> String {
    let token = std::sync::Arc::new(std::sync::OnceLock::new());
    let url = owned_site(proof, std::sync::Arc::clone(&token));
    let (code, v, stderr) = crawl(&[
        "crawl",
        "verify-site",
        &url,
        "--offline",
        "--site-secret-file",
        secret.arg(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    token
        .set(v["token"].as_str().expect("a token").to_owned())
        .expect("set once");
    url
}

#[test]
fn verify_site_prints_what_to_place_and_checks_it_without_showing_the_secret() {
    let secret = TempFile::new("secret", SECRET.as_bytes());
    let url = start_owned(Proof::File, &secret);
    let out = botwarden(
        &[
            "crawl",
            "verify-site",
            &url,
            "--site-secret-file",
            secret.arg(),
            "--allow-private",
        ],
        b"",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("/botwarden-"), "{stdout}");
    assert!(
        stdout.contains("<meta name=\"botwarden-site-verification\" content=\""),
        "{stdout}"
    );
    assert!(stdout.contains("verified by file"), "{stdout}");
    assert!(!stdout.contains("operator's secret"), "{stdout}");

    // A site without the file or the tag: exit 1, each check says why.
    let none = start_owned(Proof::None, &secret);
    let (code, v, stderr) = crawl(&[
        "crawl",
        "verify-site",
        &none,
        "--site-secret-file",
        secret.arg(),
        "--allow-private",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(v["verified"], Value::Null, "{v}");
    assert_eq!(v["checks"][0]["detail"], "answered 404", "{v}");
    assert_eq!(v["checks"][1]["method"], "meta", "{v}");

    // The secret also comes from the environment; the token is the same.
    let env = std::process::Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args([
            "crawl",
            "verify-site",
            &url,
            "--offline",
            "--format",
            "json",
        ])
        .env("BOTWARDEN_SITE_SECRET", SECRET)
        .output()
        .expect("run");
    let from_env: Value = serde_json::from_slice(&env.stdout).expect("JSON");
    let (_, from_file, _) = crawl(&[
        "crawl",
        "verify-site",
        &url,
        "--offline",
        "--site-secret-file",
        secret.arg(),
        "--format",
        "json",
    ]);
    assert_eq!(from_env["token"], from_file["token"]);

    // No secret, or a short one: exit 2, where it was looked for named.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", "verify-site", &url, "--offline"])
        .env_remove("BOTWARDEN_SITE_SECRET")
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--site-secret-file") && stderr.contains("BOTWARDEN_SITE_SECRET"),
        "{stderr}"
    );
    let short = TempFile::new("short", b"hunter2\n");
    let (code, _, stderr) = crawl(&[
        "crawl",
        "verify-site",
        &url,
        "--offline",
        "--site-secret-file",
        short.arg(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("7 byte(s)") && stderr.contains("short"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
}

#[test]
fn simulating_a_robot_is_refused_on_a_site_not_verified() {
    let secret = TempFile::new("secret", SECRET.as_bytes());
    let url = start_owned(Proof::None, &secret);
    let db = secret.path.with_file_name("refused.db");
    let robots = TempFile::new("robots.txt", b"User-agent: *\nAllow: /\n");
    for flags in [
        vec!["--as", "googlebot", "--profile", "google"],
        vec!["--robots-file", robots.arg()],
        vec!["--profile", "bing"],
    ] {
        let mut args = vec![
            "crawl",
            &url,
            "--db",
            db.to_str().expect("UTF-8 path"),
            "--allow-private",
            "--site-secret-file",
            secret.arg(),
        ];
        args.extend(flags.iter().copied());
        let (code, _, stderr) = crawl(&args);
        assert_eq!(code, 2, "{stderr}");
        let named = flags
            .iter()
            .filter(|f| f.starts_with("--"))
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        assert!(
            stderr.contains(&format!("{named} refused: the ownership of")),
            "{stderr}"
        );
        assert!(stderr.contains("crawl verify-site"), "{stderr}");
        // Nothing was crawled, and no store was left behind.
        assert!(!db.exists(), "{}", db.display());
    }

    // A token of another secret does not verify either.
    let other = TempFile::new("other", b"another operator's secret, long enough");
    let verified = start_owned(Proof::File, &secret);
    let (code, _, stderr) = crawl(&[
        "crawl",
        &verified,
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--allow-private",
        "--site-secret-file",
        other.arg(),
        "--as",
        "googlebot",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--as refused"), "{stderr}");

    // Unknown profiles and tokens are named.
    let (code, _, stderr) = crawl(&["crawl", &url, "--profile", "altavista"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("rfc9309, google, bing, yandex, strict"),
        "{stderr}"
    );
    let (code, _, stderr) = crawl(&[
        "crawl",
        &url,
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--as",
        "google bot",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("'google bot' is not a product token"),
        "{stderr}"
    );
    assert!(!db.exists());
}

#[test]
fn a_verified_site_is_crawled_as_googlebot_under_googles_reading() {
    let secret = TempFile::new("secret", SECRET.as_bytes());
    let url = start_owned(Proof::Meta, &secret);
    let db = secret.path.with_file_name("google.db");
    let (code, v, stderr) = crawl(&[
        "crawl",
        &url,
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--allow-private",
        "--site-secret-file",
        secret.arg(),
        "--as",
        "googlebot",
        "--profile",
        "google",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    // googlebot's group under Google's reading: only /private is blocked
    // (RFC 9309 would block /dir/ too; botwarden's group blocks /shop).
    assert_eq!(v["skipped"]["robots"], 1, "{v}");
    assert_eq!(
        v["blocked_by"][0]["rule"], "Disallow: /private (line 7)",
        "{v}"
    );
    assert_eq!(v["reading"]["tokens"], "googlebot", "{v}");
    assert_eq!(v["reading"]["profile"], "google", "{v}");
    assert_eq!(v["reading"]["source"], "site", "{v}");
    assert_eq!(v["verifications"][0]["method"], "meta", "{v}");
    assert!(
        v["user_agent"]
            .as_str()
            .is_some_and(|ua| ua.starts_with("botwarden full crawler ")),
        "{v}"
    );
    // The store keeps the fingerprint, never the token.
    let conn = rusqlite::Connection::open(&db).expect("open");
    let (method, fingerprint): (String, String) = conn
        .query_row(
            "SELECT method, token_fingerprint FROM site_verifications",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("a verification");
    assert_eq!(method, "meta");
    assert!(fingerprint.starts_with("sha256:"), "{fingerprint}");

    // The text summary says how the site was read and verified.
    let db2 = secret.path.with_file_name("google-text.db");
    let out = botwarden(
        &[
            "crawl",
            &url,
            "--db",
            db2.to_str().expect("UTF-8 path"),
            "--allow-private",
            "--site-secret-file",
            secret.arg(),
            "--as",
            "googlebot",
            "--profile",
            "google",
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("read as googlebot → * under google"),
        "{text}"
    );
    assert!(text.contains("verified by meta"), "{text}");
}

#[test]
fn a_robots_file_replaces_a_verified_sites_own() {
    let secret = TempFile::new("secret", SECRET.as_bytes());
    let url = start_owned(Proof::File, &secret);
    let robots = TempFile::new(
        "staging.txt",
        b"User-agent: botwarden\nDisallow: /private\n",
    );
    let db = secret.path.with_file_name("file.db");
    let (code, v, stderr) = crawl(&[
        "crawl",
        &url,
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--allow-private",
        "--site-secret-file",
        secret.arg(),
        "--robots-file",
        robots.arg(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    // The file's rule decides, not the site's (which blocks /shop).
    assert_eq!(
        v["blocked_by"][0]["rule"], "Disallow: /private (line 2)",
        "{v}"
    );
    assert_eq!(v["skipped"]["robots"], 1, "{v}");
    assert_eq!(v["robots_files"][0]["source"], "file", "{v}");
    assert_eq!(
        v["reading"]["source"],
        format!("file {}", robots.arg()),
        "{v}"
    );
    assert_eq!(v["reading"]["tokens"], "botwarden", "{v}");
    assert_eq!(v["verifications"][0]["method"], "file", "{v}");

    // Resuming it with another file is refused: the reading would change.
    let other = TempFile::new("other.txt", b"User-agent: *\nDisallow: /\n");
    let (code, _, stderr) = crawl(&[
        "crawl",
        "--resume",
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--robots-file",
        other.arg(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("cannot resume") && stderr.contains("--robots-file"),
        "{stderr}"
    );
    // Resumed as documented, it reads the file it started with.
    let (code, v, stderr) = crawl(&[
        "crawl",
        "--resume",
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        v["reading"]["source"],
        format!("file {}", robots.arg()),
        "{v}"
    );
}

#[test]
fn the_essential_crawler_obeys_its_own_group_then_the_star() {
    let secret = TempFile::new("secret", SECRET.as_bytes());
    let url = start_owned(Proof::None, &secret);
    let db = secret.path.with_file_name("essential.db");
    let (code, v, stderr) = crawl(&[
        "crawl",
        &url,
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--allow-private",
        "--essential",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    // botwarden-essential's group blocks /private; botwarden's (/shop)
    // and *'s (/dir/) do not apply.
    assert_eq!(v["tokens"], "botwarden-essential", "{v}");
    assert_eq!(v["skipped"]["robots"], 1, "{v}");
    assert_eq!(
        v["blocked_by"][0]["rule"], "Disallow: /private (line 10)",
        "{v}"
    );

    // A site without an essential group: the essential crawler reads *.
    let star = serve(|path| match path {
        "/robots.txt" => reply(
            200,
            &[("Content-Type", "text/plain")],
            "User-agent: botwarden\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n",
        ),
        "/" => reply(
            200,
            &[("Content-Type", "text/html")],
            r#"<a href="/private">p</a> <a href="/open">o</a>"#,
        ),
        "/open" => reply(200, &[("Content-Type", "text/html")], "open"),
        _ => reply(404, &[], "not found"),
    });
    let db = secret.path.with_file_name("essential-star.db");
    let (code, v, stderr) = crawl(&[
        "crawl",
        &format!("http://{star}/"),
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--allow-private",
        "--essential",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["urls"]["fetched"], 2, "{v}");
    assert_eq!(
        v["blocked_by"][0]["rule"], "Disallow: /private (line 5)",
        "{v}"
    );
    // --as replaces the chain: it cannot be combined with --essential.
    let (code, _, stderr) = crawl(&["crawl", &url, "--essential", "--as", "googlebot"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--as"), "{stderr}");
}

#[test]
fn fresh_connections_store_each_pages_version_and_timings() {
    let addr = serve(site);
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("fresh.db");
    let url = format!("http://{addr}/");
    let args = [
        "crawl",
        &url,
        "--db",
        db.to_str().expect("UTF-8 path"),
        "--allow-private",
        "--fresh-connections",
        "--format",
        "json",
    ];
    let (code, v, stderr) = crawl(&args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["urls"]["fetched"], 3, "{v}");
    let c = rusqlite::Connection::open(&db).expect("open the store");
    let (pages, http11, connected, downloaded): (i64, i64, i64, i64) = c
        .query_row(
            "SELECT count(*), count(*) FILTER (WHERE http_version = 'HTTP/1.1'),
                    count(connect_ms), count(download_ms) FROM pages",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .expect("counts");
    assert_eq!((http11, connected, downloaded), (pages, pages, pages));
}

fn site_with_resources(path: &str) -> String {
    match path {
        "/robots.txt" => reply(
            200,
            &[("Content-Type", "text/plain")],
            "User-agent: *\nDisallow: /private/\n",
        ),
        "/" => reply(
            200,
            &[("Content-Type", "text/html")],
            r#"<html><head><script src="/private/app.js"></script></head>
<body><img src="/gone.png" alt="g"><img src="/ok.png" alt="o"></body></html>"#,
        ),
        "/ok.png" => reply(200, &[("Content-Type", "image/png")], "png"),
        _ => reply(404, &[], "not found"),
    }
}

#[test]
fn resources_are_asked_after_the_crawl_and_a_resume_asks_none_twice() {
    let addr = serve(site_with_resources);
    let dir = TempFile::new("placeholder", b"");
    let db = dir.path.with_file_name("resources.db");
    let db = db.to_str().expect("UTF-8 path");
    let url = format!("http://{addr}/");
    let (code, v, stderr) = crawl(&[
        "crawl",
        &url,
        "--db",
        db,
        "--allow-private",
        "--resources",
        "--delay",
        "0",
        "--audit",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "botwarden: 3 resource(s) checked, 1 broken, 1 blocked by robots.txt; \
             0 left unchecked (over 10,000 in all); 0 checked before"
        ),
        "{stderr}"
    );
    let count = |code: &str| {
        v["audit"]["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["code"] == code))
            .map(|c| c["count"].clone())
    };
    assert_eq!(count("resources/broken"), Some(1.into()), "{v}");
    assert_eq!(count("resources/blocked"), Some(1.into()), "{v}");
    // Resumed, the stored settings keep --resources; nothing is asked again.
    let (code, _, stderr) = crawl(&["crawl", "--resume", "--db", db]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("botwarden: 0 resource(s) checked") && stderr.contains("3 checked before"),
        "{stderr}"
    );
}
