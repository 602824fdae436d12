//! Findings a site owner can trust: a planted site for the checks whose
//! reading was wrong (valid long URLs called malformed, unknown schemes
//! not reported, exact copies reported again as near duplicates, a
//! page-level `nofollow` counted link by link, one hreflang pair reported
//! per code, cut sitemaps read as whole, evidence shaped unlike the
//! documentation), each with near misses; the choice of checks; the
//! HTML's order and depth chart.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use botwarden_audit::{Audit, AuditDocument, AuditReport, Selection, render_html};
use botwarden_crawl::{CrawlConfig, MAX_URL_LEN};
use botwarden_fetch::Fetcher;
use botwarden_store::Store;
use botwarden_testdata::chromium;
use url::Url;

use crate::audit::near;
use crate::crawl::{TempStore, config, crawl_all};
use crate::server::{Reply, Server};

/// The fetcher's body limit (`--max-bytes`): the large sitemap is cut.
const MAX_BYTES: usize = 16 * 1024;

/// How deep the chain of pages goes: the depth chart's labels must not
/// overlap.
const CHAIN: u32 = 24;

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

/// A valid URL of the site longer than the crawler follows.
fn long_url() -> String {
    format!("/search?q={}", "a".repeat(3000))
}

/// A valid URL on another site, 2,000 bytes: under the limit.
fn near_long_url() -> String {
    format!("http://other.invalid/search?q={}", "a".repeat(1960))
}

fn hrefs() -> String {
    [
        ("http://exa mple.com/", "typo"),
        ("https://example.com:99999/", "port"),
        (&long_url(), "long"),
        (&near_long_url(), "long but fine"),
        ("slice::sort_by_key", "sort_by_key"),
        ("C:\\docs\\a.html", "windows path"),
        ("mailto:x@example.com", "mail"),
        ("tel:+331234", "phone"),
        ("web+coffee:espresso", "handler"),
        ("./slice::sort_by_key", "written right"),
    ]
    .iter()
    .map(|(href, anchor)| format!(r#"<a href="{href}">{anchor}</a> "#))
    .collect()
}

fn hreflang(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(lang, href)| format!(r#"<link rel="alternate" hreflang="{lang}" href="{href}">"#))
        .collect()
}

/// A sitemap of other sites' URLs, each entry 50 bytes, padded so that
/// [`MAX_BYTES`] ends exactly between two entries: what is read is well
/// formed, only cut.
fn big_sitemap() -> String {
    let mut xml = format!("<urlset>{}", " ".repeat(26));
    for i in 0..1000 {
        let entry = format!("<url><loc>http://other.invalid/s/{i:05}</loc></url>");
        assert_eq!(entry.len(), 50);
        xml.push_str(&entry);
    }
    assert_eq!((MAX_BYTES - 34) % 50, 0);
    xml.push_str("</urlset>");
    xml
}

const HOME: &str = r#"<a href="/hrefs">hrefs</a> <a href="/n-a">na</a> <a href="/n-a-copy">nac</a>
<a href="/n-b">nb</a> <a href="/n-c">nc</a> <a href="/x-a">xa</a> <a href="/x-b">xb</a>
<a href="/p1">p1</a> <a href="/p2">p2</a> <a href="/p3">p3</a> <a href="/nf-meta">nf</a>
<a href="/nf-noindex">ni</a> <a href="/h-en">en</a> <a href="/h-de">de</a> <a href="/h-it">it</a>
<a href="/h-x">hx</a> <a href="/untitled">untitled</a> <a href="/canon-bad">cb</a>
<a href="/chain/1">chain</a> <a href="/canon-refresh">crf</a> <a href="/canon-slow">csl</a>"#;

async fn site() -> Server {
    let base: Arc<OnceLock<String>> = Arc::default();
    let own = Arc::clone(&base);
    let server = Server::start(move |asked| {
        let base = own.get().cloned().unwrap_or_default();
        route(asked.path, &base)
    })
    .await;
    base.set(server.url("")).expect("set once");
    server
}

fn route(path: &str, base: &str) -> Reply {
    let xml = |body: String| {
        Reply::new(200)
            .header("content-type", "application/xml")
            .body(body)
    };
    if let Some(n) = path
        .strip_prefix("/chain/")
        .and_then(|n| n.parse::<u32>().ok())
    {
        let body = if n < CHAIN {
            format!(r#"<a href="/chain/{}">next</a>"#, n + 1)
        } else {
            "<p>bottom</p>".to_owned()
        };
        return page(Some(&format!("Chain {n}")), "", &body);
    }
    match path {
        "/" => page(Some("Home"), "", HOME),
        "/hrefs" => page(Some("Hrefs"), "", &hrefs()),
        "/slice::sort_by_key" => page(Some("Sort"), "", "<p>sort</p>"),
        // The same body, byte for byte; a near duplicate; the near miss.
        "/n-a" | "/n-a-copy" => page(Some("Near"), "", &near('a')),
        "/n-b" => page(Some("Near"), "", &near('b')),
        "/n-c" => page(Some("Near"), "", &near('c')),
        // Exact duplicates only: not near duplicates as well.
        "/x-a" | "/x-b" => page(
            Some("Twin"),
            "",
            "<p>twin words that are the same on both pages</p>",
        ),
        "/p1" => page(
            Some("P1"),
            "",
            r#"<a href="/t3" rel="nofollow">one</a> <a href="/t3" rel="nofollow">two</a>
               <a href="http://other.invalid/" rel="nofollow">elsewhere</a>"#,
        ),
        "/p2" => page(Some("P2"), "", r#"<a href="/t3" rel="ugc">three</a>"#),
        "/p3" => page(Some("P3"), "", r#"<a href="/t3">plain</a>"#),
        "/nf-meta" => page(
            Some("Nofollow page"),
            r#"<meta name="robots" content="nofollow">"#,
            r#"<a href="/t1" rel="nofollow">t1</a> <a href="/t2">t2</a>"#,
        ),
        "/nf-noindex" => page(
            Some("Noindex page"),
            r#"<meta name="robots" content="noindex">"#,
            r#"<a href="/t4">t4</a>"#,
        ),
        "/t1" | "/t2" | "/t3" | "/t4" => page(Some("Target"), "", &format!("<p>target {path}</p>")),
        // One alternate under two codes: one pair, one finding.
        "/h-en" => page(
            Some("English"),
            &hreflang(&[
                ("en", "/h-en"),
                ("de", "/h-de"),
                ("de-DE", "/h-de"),
                ("it", "/h-it"),
                ("x-default", "/h-en"),
            ]),
            "",
        ),
        "/h-de" => page(
            Some("Deutsch"),
            &hreflang(&[("de", "/h-de"), ("x-default", "/h-de")]),
            "",
        ),
        "/h-it" => page(
            Some("Italiano"),
            &hreflang(&[("it", "/h-it"), ("en", "/h-en"), ("x-default", "/h-en")]),
            "",
        ),
        // Not itself among its alternates.
        "/h-x" => page(
            Some("Other"),
            &hreflang(&[("it", "/h-it"), ("x-default", "/h-it")]),
            "",
        ),
        "/untitled" => page(None, "", "<p>no title</p>"),
        "/canon-bad" => page(
            Some("Canonical to a redirect"),
            r#"<link rel="canonical" href="/moved">"#,
            "",
        ),
        "/moved" => Reply::new(301).header("location", "/t4"),
        // A canonical that refreshes at once is a redirect; one that
        // refreshes after five seconds is a page.
        "/canon-refresh" => page(
            Some("Canonical to a refresh"),
            r#"<link rel="canonical" href="/stub">"#,
            "",
        ),
        "/canon-slow" => page(
            Some("Canonical to a slow refresh"),
            r#"<link rel="canonical" href="/slow-stub">"#,
            "",
        ),
        "/stub" => page(
            Some("Moved"),
            r#"<meta http-equiv="refresh" content="0; url=/t4">"#,
            "",
        ),
        "/slow-stub" => page(
            Some("Moving"),
            r#"<meta http-equiv="refresh" content="5; url=/t4">"#,
            "<p>this page moves in five seconds</p>",
        ),
        "/cut-sitemap.xml" => xml(format!(
            "<urlset><url><loc>{base}/n-a</loc></url><url><loc>{base}/n-b</loc></url>"
        )),
        "/big-sitemap.xml" => xml(big_sitemap()),
        "/ok-sitemap.xml" => xml(format!(
            "<urlset><url><loc>{base}/n-a</loc></url><url><loc>{base}/gone</loc></url>\
             <url><loc>{base}/stub</loc></url><url><loc>{base}/slow-stub</loc></url></urlset>"
        )),
        _ => Reply::new(404),
    }
}

async fn audited(name: &str) -> (Server, Store, TempStore) {
    let server = site().await;
    let tmp = TempStore::new(name);
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = CrawlConfig {
        sitemaps: ["/cut-sitemap.xml", "/big-sitemap.xml", "/ok-sitemap.xml"]
            .iter()
            .map(|p| Url::parse(&server.url(p)).expect("url"))
            .collect(),
        ..config()
    };
    let fetcher = Fetcher::builder()
        .allow_private(true)
        .max_bytes(MAX_BYTES)
        .build()
        .expect("fetcher");
    let (store, end) = crawl_all(&start, &cfg, &fetcher, store, false).await;
    assert!(!end.stopped);
    (server, store, tmp)
}

/// `(url, related)` of each finding of a check, as paths.
pub(crate) fn found(report: &AuditReport, server: &Server, code: &str) -> Found {
    let prefix = server.url("");
    let check = report
        .check(code)
        .unwrap_or_else(|| panic!("no check {code}"));
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

pub(crate) fn owned(list: &[(&str, &[&str])]) -> Found {
    list.iter()
        .map(|(u, r)| ((*u).to_owned(), r.iter().map(|s| (*s).to_owned()).collect()))
        .collect()
}

/// Findings as `(url, related)`, paths.
pub(crate) type Found = Vec<(String, Vec<String>)>;

/// Each touched check's planted findings.
fn planted() -> Vec<(&'static str, Found)> {
    let href = |h: &str| format!("href=\"{h}\"");
    vec![
        (
            "links/malformed-href",
            vec![(
                "/hrefs".into(),
                vec![
                    href("http://exa mple.com/"),
                    href("https://example.com:99999/"),
                ],
            )],
        ),
        (
            "links/long-url",
            vec![("/hrefs".into(), vec![href(&long_url()[..MAX_URL_LEN])])],
        ),
        (
            "links/unknown-scheme",
            vec![(
                "/hrefs".into(),
                vec![href("slice::sort_by_key"), href("C:\\docs\\a.html")],
            )],
        ),
        ("content/near-duplicate", owned(&[("/n-a", &["/n-b"])])),
        (
            "content/exact-duplicate",
            owned(&[("/n-a", &["/n-a-copy"]), ("/x-a", &["/x-b"])]),
        ),
        (
            "robots/nofollow-internal",
            owned(&[("/nf-meta", &[]), ("/t3", &[])]),
        ),
        (
            "hreflang/no-return",
            owned(&[("/h-en", &["/h-de"]), ("/h-x", &["/h-it"])]),
        ),
        ("hreflang/no-self", owned(&[("/h-x", &["/h-it"])])),
        (
            "sitemaps/unreadable",
            owned(&[("/cut-sitemap.xml", &[]), ("/big-sitemap.xml", &[])]),
        ),
        ("sitemaps/error", owned(&[("/gone", &["/ok-sitemap.xml"])])),
        (
            "sitemaps/redirect",
            owned(&[("/stub", &["/ok-sitemap.xml"])]),
        ),
        (
            "canonical/not-200",
            owned(&[
                ("/canon-bad", &["/moved", "/t4"]),
                ("/canon-refresh", &["/stub", "/t4"]),
            ]),
        ),
        ("content/missing-title", owned(&[("/untitled", &[])])),
    ]
}

// The table of planted and found per check is the test's report.
#[allow(clippy::print_stdout)]
#[tokio::test]
async fn touched_checks_find_exactly_their_planted_cases() {
    let (server, store, _tmp) = audited("audit-trust").await;
    let report = Audit::default().run(&store).expect("audit");
    println!(
        "{:<28} {:>7} {:>5} {:>9} {:>6}",
        "check", "planted", "found", "precision", "recall"
    );
    let mut wrong = Vec::new();
    for (code, planted) in planted() {
        let got = found(&report, &server, code);
        let hits = got.iter().filter(|g| planted.contains(g)).count();
        let ratio = |n: usize, of: usize| if of == 0 { 1.0 } else { n as f64 / of as f64 };
        println!(
            "{code:<28} {:>7} {:>5} {:>9.2} {:>6.2}",
            planted.len(),
            got.len(),
            ratio(hits, got.len()),
            ratio(hits, planted.len())
        );
        if got != planted {
            wrong.push(format!("{code}:\n  planted {planted:?}\n  found   {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    let finding = |code: &str, path: &str| {
        report
            .check(code)
            .and_then(|c| c.findings.iter().find(|f| f.url == server.url(path)))
            .unwrap_or_else(|| panic!("{code}: no finding at {path}"))
            .clone()
    };
    // The words say what was found.
    let long = finding("links/long-url", "/hrefs");
    assert_eq!(
        long.message,
        "1 link(s) to URLs longer than 2048 bytes, not crawled"
    );
    let scheme = finding("links/unknown-scheme", "/hrefs");
    assert_eq!(
        scheme.message,
        "2 link(s) with a scheme browsers do not follow (slice:, c:)"
    );
    let anchors: Vec<_> = scheme.links.iter().map(|l| l.anchor.as_deref()).collect();
    assert_eq!(anchors, [Some("sort_by_key"), Some("windows path")]);
    let near = finding("content/near-duplicate", "/n-a");
    assert!(
        near.message
            .starts_with("2 pages with nearly the same text: SimHash "),
        "{}",
        near.message
    );
    // Counted by pages, with only the offending links as evidence.
    let t3 = finding("robots/nofollow-internal", "/t3");
    assert_eq!(
        t3.message,
        "linked with rel=\"nofollow\", rel=\"ugc\" from 2 page(s) of the site (3 link(s))"
    );
    assert_eq!(t3.link_count, 3);
    let anchors: Vec<_> = t3.links.iter().map(|l| l.anchor.as_deref()).collect();
    assert_eq!(anchors, [Some("one"), Some("two"), Some("three")]);
    let meta = finding("robots/nofollow-internal", "/nf-meta");
    assert_eq!(
        meta.message,
        "says nofollow for all its links (<meta name=\"robots\">): 2 link(s) to 2 page(s) of the site"
    );
    let pair = finding("hreflang/no-return", "/h-en");
    assert!(
        pair.message.contains(r#"as its "de", "de-DE" version"#),
        "{}",
        pair.message
    );
    // Cut sitemaps say so; the large one was read up to the limit.
    let cut = finding("sitemaps/unreadable", "/cut-sitemap.xml");
    assert!(
        cut.message.contains("ends inside <urlset>"),
        "{}",
        cut.message
    );
    let big = finding("sitemaps/unreadable", "/big-sitemap.xml");
    assert!(
        big.message
            .contains(&format!("cut at --max-bytes after {MAX_BYTES} bytes")),
        "{}",
        big.message
    );
    // A check about a page's own head lists no links; a sitemap's URL
    // names its sitemaps in `related`.
    for (code, path) in [
        ("canonical/not-200", "/canon-bad"),
        ("content/missing-title", "/untitled"),
    ] {
        let f = finding(code, path);
        assert!(f.links.is_empty() && f.link_count == 0, "{code}: {f:?}");
    }
    let gone = finding("sitemaps/error", "/gone");
    assert_eq!(gone.message, "answered 404; listed in 1 sitemap(s)");
    // An instant refresh is named as such.
    let stub = finding("sitemaps/redirect", "/stub");
    assert_eq!(
        stub.message,
        format!(
            "refreshes at once to {}; listed in 1 sitemap(s)",
            server.url("/t4")
        )
    );
    let canonical = finding("canonical/not-200", "/canon-refresh");
    assert_eq!(
        canonical.message,
        format!(
            "its canonical {} refreshes at once (to {})",
            server.url("/stub"),
            server.url("/t4")
        )
    );
}

#[tokio::test]
async fn a_selection_runs_only_its_checks_and_evidence_is_capped() {
    let (_server, store, _tmp) = audited("audit-trust-select").await;
    let selection = Selection::new(
        vec!["links".into(), "content/near-duplicate".into()],
        vec!["links/long-url".into()],
    )
    .expect("selection");
    let mut report = Audit {
        selection,
        ..Audit::default()
    }
    .run(&store)
    .expect("audit");
    let codes: Vec<&str> = report.checks.iter().map(|c| c.code).collect();
    assert!(codes.contains(&"content/near-duplicate"), "{codes:?}");
    assert!(codes.contains(&"links/unknown-scheme"), "{codes:?}");
    assert!(!codes.contains(&"links/long-url"), "{codes:?}");
    assert!(!codes.contains(&"content/exact-duplicate"), "{codes:?}");
    assert!(
        codes
            .iter()
            .all(|c| c.starts_with("links/") || *c == "content/near-duplicate")
    );
    // One related URL and one link at most; the totals kept.
    report.limit_evidence(1);
    let hrefs = &report
        .check("links/unknown-scheme")
        .expect("check")
        .findings[0];
    assert_eq!((hrefs.related.len(), hrefs.related_count), (1, 2));
    assert_eq!((hrefs.links.len(), hrefs.link_count), (1, 2));
    let json = serde_json::to_value(hrefs).expect("json");
    assert_eq!(json["related_count"], 2);
    assert_eq!(json["link_count"], 2);
}

#[tokio::test]
async fn the_html_puts_findings_first_and_its_depth_labels_apart() {
    let (_server, store, _tmp) = audited("audit-trust-html").await;
    let doc = AuditDocument::build(&Audit::default(), &store, None).expect("audit");
    let html = render_html(&doc);
    // The table of checks: every check with findings before any without,
    // errors before warnings before notices.
    let table = &html[html.find(r#"id="overview""#).expect("overview")..];
    let table = &table[..table.find("</table>").expect("table end")];
    let rows: Vec<(&str, bool)> = table
        .split("<tr>")
        .skip(2)
        .map(|row| {
            let severity = ["error", "warning", "notice"]
                .into_iter()
                .find(|s| row.contains(&format!("sev-{s}")) || row.contains(&format!(">{s}<")))
                .unwrap_or("?");
            (severity, !row.contains(r#"class="num zero""#))
        })
        .collect();
    let with: Vec<&str> = rows.iter().filter(|r| r.1).map(|r| r.0).collect();
    let first_without = rows
        .iter()
        .position(|r| !r.1)
        .expect("a check without findings");
    assert!(rows[first_without..].iter().all(|r| !r.1), "{rows:?}");
    let mut sorted = with.clone();
    sorted.sort_by_key(|s| ["error", "warning", "notice"].iter().position(|x| x == s));
    assert_eq!(with, sorted, "most severe first");

    // The depth chart: 0 to CHAIN, labels at least 16 units apart.
    let chart = &html[html.find(r#"<svg id="depth-chart""#).expect("chart")..];
    let chart = &chart[..chart.find("</svg>").expect("svg end")];
    let labels: Vec<(f64, &str)> = chart
        .split("<text ")
        .skip(1)
        .filter(|t| !t.starts_with(r#"class="val""#))
        .map(|t| {
            let x = t
                .split(r#"x=""#)
                .nth(1)
                .and_then(|v| v.split('"').next())
                .and_then(|v| v.parse().ok())
                .expect("x");
            let label = t
                .split('>')
                .nth(1)
                .and_then(|v| v.split('<').next())
                .expect("label");
            (x, label)
        })
        .collect();
    assert!(labels.len() >= 8, "{labels:?}");
    assert_eq!(labels.first().map(|l| l.1), Some("0"));
    assert_eq!(labels.last().map(|l| l.1), Some(&*CHAIN.to_string()));
    for pair in labels.windows(2) {
        assert!(pair[1].0 - pair[0].0 >= 16.0, "labels overlap: {pair:?}");
    }
    // In headless Chromium: a screenshot of the page, kept to look at.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("audit-trust-html");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("artifact dir");
    let file = dir.join("audit.html");
    std::fs::write(&file, &html).expect("write the page");
    let png = dir.join("audit.png");
    let dom = chromium::render(&format!("file://{}", file.display()), &png, 1200, 1400);
    assert!(dom.contains(r#"id="depth-chart""#));
}
