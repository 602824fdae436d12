//! The site audit over a real crawl of a site on 127.0.0.1 that plants one
//! instance of each check, and near misses that must not fire.

use std::sync::{Arc, OnceLock};

use botwarden_crawl::{AUDIT_SCHEMA, Audit, AuditReport, CHECKS, CrawlConfig, Store};
use url::Url;

use crate::crawl::{TempStore, config, crawl_all, fetcher};
use crate::server::{Reply, Server};

const ROBOTS: &str = "User-agent: *\nDisallow: /private\nAllow: /private/open\n";

fn page(title: Option<&str>, head: &str, body: &str) -> Reply {
    let title = title
        .map(|t| format!("<title>{t}</title>"))
        .unwrap_or_default();
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(format!(
            "<!doctype html><html><head>{title}{head}</head><body>{body}</body></html>"
        ))
}

fn redirect(status: u16, to: &str) -> Reply {
    Reply::new(status).header("location", to)
}

const HOME: &str = r#"<a href="/missing">gone</a> <a href="/old">old news</a> <a href="/new">new</a>
<a href="/private/x">secret</a> <a href="/private/open">open</a> <a href="/hidden">hidden</a>
<a href="/dup-a">twin a</a> <a href="/dup-b">twin b</a> <a href="/title-a">ta</a>
<a href="/title-b">tb</a> <a href="/untitled">u</a> <a href="/notes.txt">notes</a>
<a href="/canon-bad">cb</a> <a href="/orig">o</a> <a href="/orig-copy">oc</a>
<a href="/d1">deeper</a> <a href="http://other.invalid/">elsewhere</a>"#;

/// The planted site; the sitemap names absolute URLs, known once the server
/// listens.
async fn site() -> Server {
    let base: Arc<OnceLock<String>> = Arc::default();
    let own = Arc::clone(&base);
    let server = Server::start(move |asked| {
        let base = own.get().cloned().unwrap_or_default();
        let noindex = r#"<meta name="robots" content="noindex">"#;
        let canonical_orig = r#"<link rel="canonical" href="/orig">"#;
        if let Some(n) = asked
            .path
            .strip_prefix("/d")
            .and_then(|n| n.parse::<u32>().ok())
        {
            let body = if n < 6 {
                format!(r#"<a href="/d{}">next</a>"#, n + 1)
            } else {
                "<p>bottom</p>".to_owned()
            };
            return page(Some(&format!("Depth {n}")), "", &body);
        }
        match asked.path {
            "/robots.txt" => Reply::text(ROBOTS),
            "/sitemap.xml" => Reply::new(200)
                .header("content-type", "application/xml")
                .body(format!(
                    "<urlset><url><loc>{base}/chain-1</loc></url>\
                     <url><loc>{base}/loop-a</loc></url></urlset>"
                )),
            "/" => page(Some("Home"), "", HOME),
            // One hop: a link to a redirect, not a chain.
            "/old" => redirect(301, "/new"),
            "/new" => page(Some("New"), "", "<p>new</p>"),
            "/private/open" => page(Some("Open"), "", "<p>open</p>"),
            "/hidden" => page(Some("Hidden"), noindex, "<p>hidden</p>"),
            "/dup-a" | "/dup-b" => page(Some("Twin"), "", "<p>same words</p>"),
            "/title-a" => page(Some("Same"), "", "<p>first</p>"),
            "/title-b" => page(Some(" Same "), "", "<p>second</p>"),
            "/untitled" => page(None, "", "<p>no title</p>"),
            "/notes.txt" => Reply::text("notes have no title"),
            "/canon-bad" => page(
                Some("Canonical to a redirect"),
                r#"<link rel="canonical" href="/old">"#,
                "<p>c</p>",
            ),
            // The same body, the copy naming the original: neither a
            // duplicate nor a bad canonical (the original names itself).
            "/orig" | "/orig-copy" => page(Some("Original"), canonical_orig, "<p>original</p>"),
            // Reached only from the sitemap: no link leads to them.
            "/chain-1" => redirect(301, "/chain-2"),
            "/chain-2" => redirect(302, "/chain-end"),
            // noindex, but only a redirect leads here.
            "/chain-end" => page(Some("End"), noindex, "<p>end</p>"),
            "/loop-a" => redirect(302, "/loop-b"),
            "/loop-b" => redirect(302, "/loop-a"),
            _ => Reply::new(404),
        }
    })
    .await;
    base.set(server.url("")).expect("set once");
    server
}

async fn audited(name: &str) -> (Server, AuditReport, TempStore) {
    let server = site().await;
    let tmp = TempStore::new(name);
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = CrawlConfig {
        sitemaps: vec![Url::parse(&server.url("/sitemap.xml")).expect("url")],
        ..config()
    };
    let (store, end) = crawl_all(&start, &cfg, &fetcher(), store, false).await;
    assert!(!end.stopped);
    let report = Audit::default().run(&store).expect("audit");
    (server, report, tmp)
}

/// `(url, related)` of each finding of a check, as paths.
fn found(report: &AuditReport, server: &Server, code: &str) -> Vec<(String, Vec<String>)> {
    let prefix = server.url("");
    let check = report
        .check(code)
        .unwrap_or_else(|| panic!("no check {code}"));
    assert_eq!(check.count as usize, check.findings.len(), "{code}");
    check
        .findings
        .iter()
        .map(|f| {
            (
                f.url.replace(&prefix, ""),
                f.related.iter().map(|r| r.replace(&prefix, "")).collect(),
            )
        })
        .collect()
}

fn one(url: &str, related: &[&str]) -> Vec<(String, Vec<String>)> {
    vec![(
        url.to_owned(),
        related.iter().map(|r| (*r).to_owned()).collect(),
    )]
}

#[tokio::test]
async fn each_check_finds_exactly_its_planted_instance() {
    let (server, report, _tmp) = audited("audit-planted").await;
    let f = |code: &str| found(&report, &server, code);
    assert_eq!(report.schema, AUDIT_SCHEMA);
    assert_eq!(report.state, "finished");
    assert_eq!(report.checks.len(), CHECKS.len());

    assert_eq!(f("links/broken-internal"), one("/missing", &[]));
    assert_eq!(f("links/to-redirect"), one("/old", &["/new"]));
    assert_eq!(
        f("redirects/chain"),
        one("/chain-1", &["/chain-2", "/chain-end"])
    );
    assert_eq!(f("redirects/loop"), one("/loop-a", &["/loop-b"]));
    assert_eq!(f("canonical/not-200"), one("/canon-bad", &["/old", "/new"]));
    assert_eq!(f("indexing/noindex-linked"), one("/hidden", &[]));
    assert_eq!(f("content/exact-duplicate"), one("/dup-a", &["/dup-b"]));
    assert_eq!(f("content/duplicate-title"), one("/title-a", &["/title-b"]));
    assert_eq!(f("content/missing-title"), one("/untitled", &[]));
    assert_eq!(f("robots/strict-differs"), one("/private/open", &[]));
    assert_eq!(f("robots/blocked"), one("/private/x", &[]));
    assert_eq!(f("structure/deep-page"), one("/d6", &[]));
    // Every check of the registry planted once.
    assert_eq!(report.total(), CHECKS.len() as u64);

    // The evidence: the link with its anchor, the rule and its line.
    let home = server.url("/");
    let broken = &report
        .check("links/broken-internal")
        .expect("check")
        .findings[0];
    assert_eq!(broken.message, "answered 404");
    assert_eq!(broken.link_count, 1);
    assert_eq!(broken.links[0].source, home);
    assert_eq!(broken.links[0].anchor.as_deref(), Some("gone"));
    let blocked = &report.check("robots/blocked").expect("check").findings[0];
    assert_eq!(blocked.message, "disallowed by Disallow: /private (line 2)");
    let robots = blocked.robots.as_ref().expect("robots evidence");
    assert_eq!(
        (
            robots.obeyed.allowed,
            robots.obeyed.rule.as_deref(),
            robots.obeyed.line
        ),
        (false, Some("Disallow: /private"), Some(2))
    );
    assert_eq!(blocked.links[0].anchor.as_deref(), Some("secret"));
    let differs = &report
        .check("robots/strict-differs")
        .expect("check")
        .findings[0];
    let robots = differs.robots.as_ref().expect("robots evidence");
    assert_eq!(
        (
            robots.obeyed.allowed,
            robots.obeyed.line,
            robots.strict.allowed,
            robots.strict.line
        ),
        (true, Some(3), false, Some(2))
    );
    let chain = &report.check("redirects/chain").expect("check").findings[0];
    assert!(
        chain.message.starts_with("2 redirects in a row; ends at "),
        "{}",
        chain.message
    );
    assert!(
        chain.message.ends_with("/chain-end: 200"),
        "{}",
        chain.message
    );
    assert_eq!(chain.link_count, 0, "only the sitemap leads there");
    let deep = &report.check("structure/deep-page").expect("check").findings[0];
    assert_eq!(deep.message, "6 clicks from the start URL (limit 5)");
    assert_eq!(deep.links[0].source, server.url("/d5"));

    // Most severe first.
    let severities: Vec<_> = report.checks.iter().map(|c| c.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort();
    assert_eq!(severities, sorted);

    // The text names each check with its count and an example.
    let text = report.to_string();
    assert!(
        text.contains("12 finding(s) from 12 of 12 checks"),
        "{text}"
    );
    assert!(
        text.contains("error    links/broken-internal  1: "),
        "{text}"
    );
    assert!(
        text.contains(&format!("    linked from {home} (\"gone\")")),
        "{text}"
    );
    assert!(!text.contains("no findings:"), "{text}");
    // A chain's next URLs, but not its end, which the message names.
    let chain_end = server.url("/chain-end");
    assert!(
        text.contains(&format!("    involves {}\n", server.url("/chain-2"))),
        "{text}"
    );
    assert!(!text.contains(&format!("involves {chain_end}")), "{text}");
    let first_error = text.find("error ").expect("an error");
    let first_notice = text.find("notice ").expect("a notice");
    assert!(first_error < first_notice, "{text}");

    // JSON: the documented shape.
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["schema"], AUDIT_SCHEMA);
    let checks = json["checks"].as_array().expect("checks");
    assert_eq!(checks[0]["severity"], "error");
    let broken = checks
        .iter()
        .find(|c| c["code"] == "links/broken-internal")
        .expect("broken");
    assert_eq!(broken["count"], 1);
    assert_eq!(broken["findings"][0]["links"][0]["anchor"], "gone");
}

#[tokio::test]
async fn the_depth_limit_is_a_setting() {
    let (server, _, tmp) = audited("audit-depth").await;
    let store = Store::open(&tmp.db()).expect("open");
    let deep = |max_depth| {
        let report = Audit { max_depth }.run(&store).expect("audit");
        found(&report, &server, "structure/deep-page")
            .into_iter()
            .map(|(u, _)| u)
            .collect::<Vec<_>>()
    };
    assert_eq!(deep(6), Vec::<String>::new());
    assert_eq!(deep(4), ["/d5", "/d6"]);
}

#[test]
fn a_store_without_a_crawl_has_no_findings() {
    let tmp = TempStore::new("audit-empty");
    let store = Store::create(&tmp.db()).expect("store");
    let report = Audit::default().run(&store).expect("audit");
    assert_eq!(report.checks.len(), CHECKS.len());
    assert_eq!(report.total(), 0);
    assert_eq!(report.urls.known, 0);
    let text = report.to_string();
    assert!(
        text.contains(&format!("0 finding(s) from 0 of {} checks", CHECKS.len())),
        "{text}"
    );
    assert!(text.contains("the crawl did not finish"), "{text}");
    assert!(
        text.contains("no findings: links/broken-internal, "),
        "{text}"
    );
}
