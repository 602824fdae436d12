//! The site audit over a real crawl of a site on 127.0.0.1 that plants one
//! instance of each check, and near misses that must not fire.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use botwarden_audit::{AUDIT_SCHEMA, Audit, AuditReport, CHECKS};
use botwarden_crawl::CrawlConfig;
use botwarden_store::Store;
use url::Url;

use crate::crawl::{TempStore, config, crawl_all, fetcher};
use crate::server::{Reply, Server};

const ROBOTS: &str = "User-agent: *\nDisallow: /private\nAllow: /private/open\n";

/// robots.txt, padded with comments past RFC 9309's 500 KiB
/// (`robots/txt-health`): its rules come first and still apply.
fn robots() -> String {
    let mut body = ROBOTS.to_owned();
    while body.len() <= 520 * 1024 {
        body.push_str("# a comment line that only makes the file larger, as some do\n");
    }
    body
}

/// An HTML page. Unless told otherwise (`<!--no-canonical-->`,
/// `<!--no-description-->` in `head`, `<!--no-h1-->` in `body`) or already
/// given, it names itself as canonical by its absolute URL and has a
/// description and an `<h1>` of its own, so that only the planted pages
/// lack them. `{BASE}`, `{SELF}` and `{PATH}` are filled in by the server.
fn page(title: Option<&str>, head: &str, body: &str) -> Reply {
    let title = title
        .map(|t| format!("<title>{t}</title>"))
        .unwrap_or_default();
    let mut extra = String::new();
    if !head.contains("canonical") {
        extra.push_str(r#"<link rel="canonical" href="{SELF}">"#);
    }
    if !head.contains("description") {
        extra.push_str(r#"<meta name="description" content="About {PATH}">"#);
    }
    let h1 = if body.contains("<h1") || body.contains("<!--no-h1-->") {
        ""
    } else {
        "<h1>Page {PATH}</h1>"
    };
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(format!(
            "<!doctype html><html><head>{title}{extra}{head}</head><body>{h1}{body}</body></html>"
        ))
}

fn redirect(status: u16, to: &str) -> Reply {
    Reply::new(status).header("location", to)
}

/// `n` words of a text, the same for the same `n`: three-word shingles all
/// different.
fn words(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("term{}", i * 37 % 1009)).collect()
}

/// The near duplicates (`content/near-duplicate`): `/near-b` is `/near-a`
/// with one word of 1,000 changed (a date, say) beside its heading; `/near-c`,
/// the near miss, has one word in twenty changed (95 % the same words),
/// which changes about 15 % of its shingles and puts it well beyond 3 bits.
pub(crate) fn near(which: char) -> String {
    let mut w = words(1000);
    match which {
        'b' => w[500] = "changed".to_owned(),
        'c' => {
            for (i, word) in w.iter_mut().enumerate().filter(|(i, _)| i % 20 == 10) {
                *word = format!("other{i}");
            }
        }
        _ => {}
    }
    format!("<p>{}</p>", w.join(" "))
}

const HOME: &str = r#"<a href="/missing">gone</a> <a href="/old">old news</a> <a href="/new">new</a>
<a href="/private/x">secret</a> <a href="/private/open">open</a> <a href="/hidden">hidden</a>
<a href="/dup-a">twin a</a> <a href="/dup-b">twin b</a> <a href="/title-a">ta</a>
<a href="/title-b">tb</a> <a href="/untitled">u</a> <a href="/notes.txt">notes</a>
<a href="/canon-bad">cb</a> <a href="/orig">o</a> <a href="/orig-copy">oc</a>
<a href="/d1">deeper</a> <a href="http://other.invalid/">elsewhere</a>
<a href="/near-a">na</a> <a href="/near-b">nb</a> <a href="/near-c">nc</a>
<a href="/no-canon">c1</a> <a href="/canon-rel">c2</a> <a href="/canon-two">c3</a>
<a href="/canon-body">c4</a> <a href="/canon-header">c5</a> <a href="/canon-same">c6</a>
<a href="/canon-noindex">c7</a> <a href="/canon-blocked">c8</a> <a href="/canon-chain">c9</a>
<a href="/no-desc">d1</a> <a href="/empty-desc">d2</a> <a href="/desc-a">d3</a>
<a href="/desc-b">d4</a> <a href="/long-desc">d5</a> <a href="/long-title">t1</a>
<a href="/no-h1">h1</a> <a href="/empty-h1">h2</a> <a href="/two-h1">h3</a>
<a href="/h1-a">h4</a> <a href="/h1-b">h5</a> <a href="/long-h1">h6</a>
<a href="/new" rel="nofollow">new again</a> <a href="/conflict">conflict</a>
<a href="/refresh">refresh</a> <a href="http://exa mple.com/">typo</a>
<a href="javascript:void(0)">script</a> <a href="">here</a> <a href="mailto:x@example.com">mail</a>
<a href="/Upper_Case">hygiene</a> <a href="/lower-case?a=1&amp;b=2&amp;c=3">fine</a>
<a href="/base-other">base</a> <a href="/en">english</a>
<a href="/slow">slow</a> <a href="/large">large</a>
<a href="/no-charset">cs1</a> <a href="/charset-conflict">cs2</a> <a href="/charset-same">cs3</a>
<a href="/head-break">hb1</a> <a href="/head-noscript">hb2</a>
<a href="slice::sort_by_key">sort</a> <a href="{LONG}">long</a>"#;

/// The home page, with a link to a valid URL too long to crawl.
fn home() -> String {
    HOME.replace("{LONG}", &format!("/search?q={}", "a".repeat(3000)))
}

/// The planted site; absolute URLs (the sitemap's, canonicals) are known
/// once the server listens.
async fn site() -> Server {
    let base: Arc<OnceLock<String>> = Arc::default();
    let own = Arc::clone(&base);
    let server = Server::start(move |asked| {
        let base = own.get().cloned().unwrap_or_default();
        let mut reply = route(asked.path, &base);
        let query = if asked.query.is_empty() {
            String::new()
        } else {
            format!("?{}", asked.query)
        };
        let fill = |s: &str| {
            s.replace("{SELF}", &format!("{base}{}{query}", asked.path))
                .replace("{BASE}", &base)
                .replace("{PATH}", asked.path)
        };
        if let Ok(text) = std::str::from_utf8(&reply.body)
            && text.contains('{')
        {
            reply.body = fill(text).into_bytes();
        }
        for (_, value) in &mut reply.headers {
            *value = fill(value);
        }
        reply
    })
    .await;
    base.set(server.url("")).expect("set once");
    server
}

fn route(path: &str, base: &str) -> Reply {
    let noindex = r#"<meta name="robots" content="noindex">"#;
    let canonical_orig = r#"<link rel="canonical" href="{BASE}/orig">"#;
    let self_header = r#"<{SELF}>; rel="canonical""#;
    let canonical_to = |to: &str| format!(r#"<link rel="canonical" href="{{BASE}}{to}">"#);
    let hreflang = |pairs: &[(&str, &str)]| -> String {
        pairs
            .iter()
            .map(|(lang, href)| {
                format!(r#"<link rel="alternate" hreflang="{lang}" href="{href}">"#)
            })
            .collect()
    };
    if let Some(n) = path.strip_prefix("/d").and_then(|n| n.parse::<u32>().ok()) {
        let body = if n < 6 {
            format!(r#"<a href="/d{}">next</a>"#, n + 1)
        } else {
            "<p>bottom</p>".to_owned()
        };
        return page(Some(&format!("Depth {n}")), "", &body);
    }
    match path {
        "/robots.txt" => Reply::text(robots()),
        "/sitemap.xml" => Reply::new(200)
            .header("content-type", "application/xml")
            .body(format!(
                "<urlset>{}</urlset>",
                [
                    "/chain-1",
                    "/loop-a",
                    "/gone",
                    "/listed-noindex",
                    "/private/x",
                    "/orig-copy",
                    "/orphan",
                ]
                .iter()
                .map(|p| format!("<url><loc>{base}{p}</loc></url>"))
                .collect::<String>()
            )),
        // Cut off in the middle of an entry: what came before is read.
        "/broken-sitemap.xml" => Reply::new(200)
            .header("content-type", "application/xml")
            .body(format!(
                "<urlset><url><loc>{base}/orphan</loc></url><url><loc>{base}/x</lo"
            )),
        "/" => page(Some("Home"), "", &home()),
        // One hop, temporary: a link to a redirect, not a chain.
        "/old" => redirect(302, "/new"),
        "/new" => page(Some("New"), r#"<base href="/">"#, "<p>new</p>"),
        "/private/open" => page(Some("Open"), "", "<p>open</p>"),
        "/hidden" => page(Some("Hidden"), noindex, "<p>hidden</p>"),
        // Byte for byte the same: each names itself in a header.
        "/dup-a" | "/dup-b" => page(
            Some("Twin"),
            r#"<!--no-canonical--><meta name="description" content="Twin">"#,
            "<h1>Twin</h1><p>same words</p>",
        )
        .header("link", self_header),
        "/title-a" => page(Some("Same"), "", "<p>first</p>"),
        "/title-b" => page(Some(" Same "), "", "<p>second</p>"),
        "/untitled" => page(None, "", "<p>no title</p>"),
        "/notes.txt" => Reply::text("notes have no title"),
        "/canon-bad" => page(
            Some("Canonical to a redirect"),
            &canonical_to("/old"),
            "<p>c</p>",
        ),
        // The copy naming the original: neither a duplicate nor a bad
        // canonical (the original names itself).
        "/orig" | "/orig-copy" => page(Some("Original"), canonical_orig, "<p>original</p>"),
        // Reached only from the sitemap: no link leads to them.
        "/chain-1" => redirect(301, "/chain-2"),
        "/chain-2" => redirect(308, "/chain-end"),
        // noindex, but only a redirect leads here.
        "/chain-end" => page(Some("End"), noindex, "<p>end</p>"),
        "/loop-a" => redirect(301, "/loop-b"),
        "/loop-b" => redirect(301, "/loop-a"),
        "/near-a" => page(Some("Near A"), "", &near('a')),
        "/near-b" => page(Some("Near B"), "", &near('b')),
        "/near-c" => page(Some("Near C"), "", &near('c')),
        "/no-canon" => page(Some("No canonical"), "<!--no-canonical-->", "<p>x</p>"),
        "/canon-rel" => page(
            Some("Relative canonical"),
            r#"<link rel="canonical" href="/canon-rel">"#,
            "<p>x</p>",
        ),
        "/canon-two" => page(
            Some("Two canonicals"),
            r#"<link rel="canonical" href="{SELF}"><link rel="canonical" href="{SELF}">"#,
            "<p>x</p>",
        ),
        "/canon-body" => page(
            Some("Canonical in the body"),
            "<!--no-canonical-->",
            r#"<link rel="canonical" href="{SELF}"><p>x</p>"#,
        ),
        "/canon-header" => page(Some("Header disagrees"), &canonical_to("/canon-header"), "")
            .header("link", r#"<{BASE}/new>; rel="canonical""#),
        "/canon-same" => page(Some("Header agrees"), "", "").header("link", self_header),
        "/canon-noindex" => page(Some("To noindex"), &canonical_to("/hidden"), ""),
        "/canon-blocked" => page(Some("To blocked"), &canonical_to("/private/x"), ""),
        "/canon-chain" => page(Some("To a copy"), &canonical_to("/orig-copy"), ""),
        "/no-desc" => page(Some("No description"), "<!--no-description-->", ""),
        "/empty-desc" => page(
            Some("Empty description"),
            r#"<meta name="description" content="  ">"#,
            "",
        ),
        // The title is 60 characters: at the limit, not over.
        "/desc-a" => page(
            Some("A title of exactly sixty characters, at the limit, not over!"),
            r#"<meta name="description" content="Shared words">"#,
            "",
        ),
        "/desc-b" => page(
            Some("Description B"),
            r#"<meta name="description" content="Shared   words">"#,
            "",
        ),
        "/long-desc" => page(
            Some("Long description"),
            &format!(
                r#"<meta name="description" content="{}">"#,
                "word ".repeat(40)
            ),
            "",
        ),
        "/long-title" => page(
            Some("A title that goes on and on, well past what a result can show"),
            "",
            "",
        ),
        "/no-h1" => page(Some("No heading"), "", "<!--no-h1--><p>x</p>"),
        "/empty-h1" => page(
            Some("Empty heading"),
            "",
            r#"<h1><img src="/logo.png" alt="Logo"></h1>"#,
        ),
        // 71 characters; the near miss, /h1-a's, is short.
        "/long-h1" => page(
            Some("Long heading"),
            "",
            "<h1>A heading that runs on for a whole sentence, which is what text is for.</h1>",
        ),
        "/two-h1" => page(Some("Two headings"), "", "<h1>One</h1><h1>Two</h1>"),
        "/h1-a" => page(Some("Heading A"), "", "<h1>Products</h1><p>a</p>"),
        "/h1-b" => page(Some("Heading B"), "", "<h1> Products </h1><p>b</p>"),
        "/conflict" => page(
            Some("Conflict"),
            r#"<meta name="robots" content="follow">"#,
            "",
        )
        .header("x-robots-tag", "nofollow"),
        "/refresh" => page(
            Some("Refresh"),
            r#"<meta http-equiv="refresh" content="0; url=/new">"#,
            "",
        ),
        "/Upper_Case" => page(Some("Hygiene"), "", ""),
        "/lower-case" => page(Some("Hygiene fine"), "", ""),
        "/base-other" => page(Some("Base"), r#"<base href="http://other.invalid/">"#, ""),
        "/en" => page(
            Some("English"),
            &hreflang(&[
                ("en", "/en"),
                ("en_GB", "/en"),
                ("de", "/de"),
                ("fr", "/fr"),
                ("it", "/it"),
                ("nl", "/nl"),
                ("x-default", "/en"),
            ]),
            "",
        ),
        "/de" => page(
            Some("Deutsch"),
            &hreflang(&[("de", "/de"), ("en", "/en"), ("en-gb", "/en")]),
            "",
        ),
        "/fr" => page(
            Some("Français"),
            &hreflang(&[("fr", "/fr"), ("x-default", "/fr")]),
            "",
        ),
        "/it" => page(
            Some("Italiano"),
            &hreflang(&[("en", "/en"), ("x-default", "/en")]),
            "",
        ),
        "/listed-noindex" => page(Some("Listed noindex"), noindex, ""),
        "/orphan" => page(Some("Orphan"), "", "<p>nobody links here</p>"),
        "/slow" => page(Some("Slow"), "", "").delayed(Duration::from_millis(1200)),
        "/large" => page(
            Some("Large"),
            "",
            &format!("<!-- {} -->", "x".repeat(310 * 1024)),
        ),
        // A tracking pixel in the head ends it: the viewport after it is
        // ignored. The near miss keeps its pixel in a `<noscript>`, and
        // loads an `http://` image on an HTTP page (not mixed content).
        "/head-break" => page(
            Some("Head break"),
            "\n<img src=\"/pixel.gif\">\n<meta name=\"viewport\" content=\"width=device-width\">",
            "",
        ),
        "/head-noscript" => page(
            Some("Head noscript"),
            r#"<noscript><img src="/pixel.gif"></noscript><meta name="viewport" content="x">"#,
            r#"<img src="http://img.example.invalid/photo.png">"#,
        ),
        "/no-charset" => Reply::new(200).header("content-type", "text/html").body(
            r#"<html><head><title>No charset</title><link rel="canonical" href="{SELF}">
<meta name="description" content="No charset"></head><body><h1>No charset</h1></body></html>"#,
        ),
        "/charset-conflict" => page(
            Some("Charset conflict"),
            r#"<meta charset="iso-8859-1">"#,
            "",
        ),
        "/charset-same" => Reply::new(200)
            .header("content-type", "text/html; charset=UTF-8")
            .body(
                r#"<html><head><meta charset="utf8"><title>Charset same</title>
<link rel="canonical" href="{SELF}"><meta name="description" content="Same">
</head><body><h1>Same</h1></body></html>"#,
            ),
        _ => Reply::new(404),
    }
}

async fn audited(name: &str) -> (Server, AuditReport, TempStore) {
    let server = site().await;
    let tmp = TempStore::new(name);
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = CrawlConfig {
        sitemaps: vec![
            Url::parse(&server.url("/sitemap.xml")).expect("url"),
            Url::parse(&server.url("/broken-sitemap.xml")).expect("url"),
        ],
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

/// Each check's planted instances: the URLs (paths) of its findings. A URL
/// may be planted for two checks (`/old` is a link to a redirect and a
/// temporary one); the sitemap lists two redirects, because the chain and
/// the loop are reached only from it.
const PLANTED: &[(&str, &[&str])] = &[
    ("links/broken-internal", &["/missing"]),
    // Planted on a second server (`audit_external.rs`): this crawl does
    // not check its external links.
    ("links/broken-external", &[]),
    ("redirects/loop", &["/loop-a"]),
    // `/refresh` refreshes at once: a redirect.
    ("links/to-redirect", &["/old", "/refresh"]),
    ("redirects/chain", &["/chain-1"]),
    ("canonical/not-200", &["/canon-bad"]),
    ("indexing/noindex-linked", &["/hidden"]),
    ("content/exact-duplicate", &["/dup-a"]),
    ("content/duplicate-title", &["/title-a"]),
    ("content/missing-title", &["/untitled"]),
    ("robots/strict-differs", &["/private/open"]),
    ("robots/blocked", &["/private/x"]),
    ("structure/deep-page", &["/d6"]),
    ("content/near-duplicate", &["/near-a"]),
    ("canonical/missing", &["/no-canon"]),
    ("canonical/relative", &["/canon-rel"]),
    ("canonical/multiple", &["/canon-two"]),
    ("canonical/outside-head", &["/canon-body"]),
    ("canonical/header-conflict", &["/canon-header"]),
    ("canonical/to-noindex", &["/canon-noindex"]),
    ("canonical/to-blocked", &["/canon-blocked"]),
    ("canonical/chain", &["/canon-chain"]),
    ("content/missing-description", &["/no-desc"]),
    ("content/empty-description", &["/empty-desc"]),
    ("content/duplicate-description", &["/desc-a"]),
    ("content/long-description", &["/long-desc"]),
    ("content/long-title", &["/long-title"]),
    ("content/missing-h1", &["/no-h1"]),
    ("content/empty-h1", &["/empty-h1"]),
    ("content/multiple-h1", &["/two-h1"]),
    ("content/duplicate-h1", &["/h1-a"]),
    ("content/long-h1", &["/long-h1"]),
    ("robots/txt-health", &["/robots.txt"]),
    ("robots/nofollow-internal", &["/new"]),
    ("robots/conflicting-directives", &["/conflict"]),
    // Planted on a site of their own (`audit_usage.rs`): a `Content-Signal`
    // outside the `*` group makes every page reader-dependent.
    ("robots/robots-tag-invalid", &[]),
    ("usage/conflict", &[]),
    ("usage/reader-dependent", &[]),
    ("links/temporary-redirect", &["/old"]),
    ("links/refresh-redirect", &["/refresh"]),
    ("links/malformed-href", &["/"]),
    ("links/long-url", &["/"]),
    ("links/unknown-scheme", &["/"]),
    ("links/javascript-href", &["/"]),
    ("links/empty-href", &["/"]),
    ("structure/orphan", &["/orphan"]),
    ("structure/url-hygiene", &["/Upper_Case"]),
    ("structure/base-href", &["/base-other"]),
    ("hreflang/no-return", &["/en"]),
    ("hreflang/no-self", &["/it"]),
    ("hreflang/invalid-code", &["/en"]),
    ("hreflang/not-200", &["/en"]),
    ("hreflang/no-x-default", &["/de"]),
    ("sitemaps/redirect", &["/chain-1", "/loop-a"]),
    ("sitemaps/error", &["/gone"]),
    ("sitemaps/noindex", &["/listed-noindex"]),
    ("sitemaps/blocked", &["/private/x"]),
    ("sitemaps/not-canonical", &["/orig-copy"]),
    ("sitemaps/unreadable", &["/broken-sitemap.xml"]),
    ("performance/slow", &["/slow"]),
    ("performance/large-page", &["/large"]),
    ("encoding/charset-missing", &["/no-charset"]),
    ("encoding/charset-conflict", &["/charset-conflict"]),
    ("structure/body-in-head", &["/head-break"]),
    // Planted on the HTTPS site (`audit_tls.rs`): this site is HTTP, and
    // its `http://` image is not mixed content.
    ("security/mixed-content-active", &[]),
    ("security/mixed-content-passive", &[]),
];

/// The checks of `crawl --render`: planted with their near misses on the
/// script-built site of `botwarden-render`'s tests, which need a browser.
const RENDER_CODES: [&str; 9] = [
    "render/content-only-rendered",
    "render/links-only-rendered",
    "render/noindex-rendered-only",
    "render/noindex-raw-only",
    "render/canonical-changed",
    "render/head-changed",
    "render/blocked-resources",
    "render/js-redirect",
    "render/failed",
];

// The table of planted and found per check is the test's report.
#[allow(clippy::print_stdout)]
#[tokio::test]
async fn each_check_finds_exactly_its_planted_instance() {
    let (server, report, tmp) = audited("audit-planted").await;
    let f = |code: &str| found(&report, &server, code);
    assert_eq!(report.schema, AUDIT_SCHEMA);
    assert_eq!(report.state, "finished");
    assert_eq!(report.checks.len(), CHECKS.len());
    assert!(report.notes.is_empty(), "{:?}", report.notes);

    // Every check of the registry planted, and found exactly: the table
    // of precision and recall per check.
    // (The checks of `audit_breadth` and `audit_resources` are planted on
    // sites of their own.)
    let mut codes: Vec<&str> = PLANTED
        .iter()
        .map(|(c, _)| *c)
        .chain(crate::audit_breadth::CODES.iter().copied())
        .chain(crate::audit_resources::CODES.iter().copied())
        .chain(RENDER_CODES.iter().copied())
        // Planted in a store of both schemes written by the check's own
        // test: a crawl on loopback cannot serve one host over both.
        .chain(std::iter::once("security/http-page"))
        .collect();
    codes.sort_unstable();
    let mut registry: Vec<&str> = CHECKS.iter().map(|c| c.code).collect();
    registry.sort_unstable();
    assert_eq!(codes, registry, "a check without a planted instance");
    println!(
        "{:<32} {:>7} {:>5} {:>9} {:>6}",
        "check", "planted", "found", "precision", "recall"
    );
    let mut wrong = Vec::new();
    for (code, planted) in PLANTED {
        let urls: Vec<String> = f(code).into_iter().map(|(u, _)| u).collect();
        let hits = urls
            .iter()
            .filter(|u| planted.contains(&u.as_str()))
            .count();
        let ratio = |n: usize, of: usize| if of == 0 { 1.0 } else { n as f64 / of as f64 };
        println!(
            "{code:<32} {:>7} {:>5} {:>9.2} {:>6.2}",
            planted.len(),
            urls.len(),
            ratio(hits, urls.len()),
            ratio(hits, planted.len())
        );
        if urls != *planted {
            wrong.push(format!("{code}: planted {planted:?}, found {urls:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Every finding of these checks is planted (the checks planted on
    // `audit_breadth`'s site find this site's dead ends and the like too).
    let planted_total: usize = PLANTED.iter().map(|(_, p)| p.len()).sum();
    let found_total: u64 = report
        .checks
        .iter()
        .filter(|c| PLANTED.iter().any(|(p, _)| *p == c.code))
        .map(|c| c.count)
        .sum();
    assert_eq!(found_total, planted_total as u64);

    // The original checks' related URLs.
    assert_eq!(
        f("links/to-redirect"),
        [
            ("/old".to_owned(), vec!["/new".to_owned()]),
            ("/refresh".to_owned(), vec!["/new".to_owned()]),
        ]
    );
    assert_eq!(
        f("redirects/chain"),
        one("/chain-1", &["/chain-2", "/chain-end"])
    );
    assert_eq!(f("redirects/loop"), one("/loop-a", &["/loop-b"]));
    assert_eq!(f("canonical/not-200"), one("/canon-bad", &["/old", "/new"]));
    assert_eq!(f("content/exact-duplicate"), one("/dup-a", &["/dup-b"]));
    assert_eq!(f("content/duplicate-title"), one("/title-a", &["/title-b"]));
    // The new checks' related URLs: the near miss is not in the group.
    assert_eq!(f("content/near-duplicate"), one("/near-a", &["/near-b"]));
    assert_eq!(
        f("content/duplicate-description"),
        one("/desc-a", &["/desc-b"])
    );
    assert_eq!(f("content/duplicate-h1"), one("/h1-a", &["/h1-b"]));
    assert_eq!(
        f("canonical/chain"),
        one("/canon-chain", &["/orig-copy", "/orig"])
    );
    assert_eq!(
        f("canonical/header-conflict"),
        one("/canon-header", &["/canon-header", "/new"])
    );
    // The near duplicate is a bit or two away, the near miss (95 % of the
    // words the same) far beyond the threshold of 3.
    let store = Store::open(&tmp.db()).expect("open");
    let simhash = |path: &str| -> u64 {
        store
            .connection()
            .query_row(
                "SELECT p.simhash FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?1",
                [server.url(path)],
                |r| r.get::<_, i64>(0),
            )
            .expect("a SimHash")
            .cast_unsigned()
    };
    let (a, b, c) = (simhash("/near-a"), simhash("/near-b"), simhash("/near-c"));
    println!(
        "SimHash distances: near-b {} bit(s), near-c {} bit(s) from near-a",
        (a ^ b).count_ones(),
        (a ^ c).count_ones()
    );
    assert!((a ^ b).count_ones() <= 3);
    assert!((a ^ c).count_ones() > 6, "the near miss is not near");
    let near = &report
        .check("content/near-duplicate")
        .expect("check")
        .findings[0];
    assert!(
        near.message
            .starts_with("2 pages with nearly the same text"),
        "{}",
        near.message
    );
    assert_eq!(
        f("structure/body-in-head"),
        one("/head-break", &["<meta name=\"viewport\"> (line 3)"])
    );
    let head = &report
        .check("structure/body-in-head")
        .expect("check")
        .findings[0];
    assert_eq!(
        head.message,
        "<img> at line 2 ends <head> early; 1 head element(s) after it are ignored"
    );
    assert_eq!(f("hreflang/no-return"), one("/en", &["/fr"]));
    // Every URL involved is in `related`, not only in the message.
    assert_eq!(
        f("structure/base-href"),
        one("/base-other", &["http://other.invalid/"])
    );
    assert_eq!(
        f("structure/orphan"),
        one("/orphan", &["/sitemap.xml", "/broken-sitemap.xml"])
    );
    assert_eq!(
        f("sitemaps/noindex"),
        one("/listed-noindex", &["/sitemap.xml"])
    );
    assert_eq!(f("hreflang/no-self"), one("/it", &["/en"]));
    assert_eq!(f("hreflang/not-200"), one("/en", &["/nl"]));
    assert_eq!(
        f("links/malformed-href"),
        one("/", &["href=\"http://exa mple.com/\""])
    );

    // The evidence: the link with its anchor, the rule and its line.
    let home = server.url("/");
    let broken = &report
        .check("links/broken-internal")
        .expect("check")
        .findings[0];
    assert_eq!(broken.message, "answered 404");
    assert_eq!(broken.link_count, 1);
    assert_eq!(*broken.links[0].source, *home);
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
    assert_eq!(*deep.links[0].source, *server.url("/d5"));

    // Most severe first.
    let severities: Vec<_> = report.checks.iter().map(|c| c.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort();
    assert_eq!(severities, sorted);

    // The text names each check with its count and an example.
    let text = report.to_string();
    let summary = format!(
        "{} finding(s) from {} of {} checks",
        report.total(),
        report.checks.iter().filter(|c| c.count > 0).count(),
        CHECKS.len()
    );
    assert!(text.contains(&summary), "{text}");
    assert!(
        text.contains("error    links/broken-internal  1: "),
        "{text}"
    );
    assert!(
        text.contains(&format!("    linked from {home} (\"gone\")")),
        "{text}"
    );
    // Only the checks planted on other sites have nothing here.
    assert!(
        text.contains(
            "no findings: security/mixed-content-active, render/noindex-raw-only, \
             links/broken-external, robots/robots-tag-invalid, usage/conflict, \
             security/mixed-content-passive, links/private-address, content/multiple-title, \
             content/lang-invalid, structured-data/invalid-json-ld, content/soft-404, \
             links/missing-fragment, structured-data/missing-required, \
             hreflang/lang-mismatch, hreflang/to-non-canonical, hreflang/to-noindex, \
             resources/broken, resources/blocked, security/certificate-expiring, security/http-page, \
             render/content-only-rendered, render/links-only-rendered, \
             render/noindex-rendered-only, render/canonical-changed, \
             render/blocked-resources, render/js-redirect, render/failed, \
             usage/reader-dependent, links/too-many, links/non-descriptive-anchor, \
             content/multiple-description, images/long-alt, content/duplicate-id, \
             content/heading-skip, security/missing-headers, links/protocol-relative, \
             structured-data/conflicting-context, images/heavy, links/external-unverified, \
             render/head-changed"
        ),
        "{text}"
    );
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
        let report = Audit {
            max_depth,
            ..Audit::default()
        }
        .run(&store)
        .expect("audit");
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
    assert!(
        text.contains("no crawl is recorded in this store"),
        "{text}"
    );
    assert!(
        text.contains("no findings: links/broken-internal, "),
        "{text}"
    );
}

#[test]
fn pages_crawled_before_the_store_recorded_the_details_are_named_once() {
    let tmp = TempStore::new("audit-old-pages");
    let store = Store::create(&tmp.db()).expect("store");
    // A page as an upgraded store of version 3 holds it: the columns of
    // version 4 are empty.
    store
        .connection()
        .execute_batch(
            "INSERT INTO urls VALUES (1, 'https://example.com/', 0, 'seed', 'fetched', NULL, NULL);
             INSERT INTO pages (url_id, fetched_at, status, elapsed_ms, bytes, truncated,
                                content_type, title)
             VALUES (1, '2026-11-23T19:00:00Z', 200, 5.0, 10, 0, 'text/html', 'Home');",
        )
        .expect("an old page");
    let report = Audit::default().run(&store).expect("audit");
    assert_eq!(report.notes.len(), 2, "{:?}", report.notes);
    assert!(
        report.notes[1].starts_with("1 HTML page(s) were crawled before the store recorded images"),
        "{}",
        report.notes[1]
    );
    assert!(
        report.notes[0].starts_with("1 HTML page(s) were crawled before"),
        "{}",
        report.notes[0]
    );
    assert!(report.notes[0].contains("content/near-duplicate"));
    // Not judged: no finding says the page lacks what was not recorded.
    // (It has no link at all, which every version records: a dead end.)
    let found: Vec<&str> = report
        .checks
        .iter()
        .filter(|c| c.count > 0)
        .map(|c| c.code)
        .collect();
    assert_eq!(found, ["links/dead-end"], "{report}");
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["notes"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn a_redirected_robots_txt_is_named() {
    let server = Server::start(|asked| match asked.path {
        "/robots.txt" => redirect(301, "/rules.txt"),
        "/rules.txt" => Reply::text("User-agent: *\nDisallow: /private\n"),
        "/" => Reply::new(200)
            .header("content-type", "text/html; charset=utf-8")
            .body("<title>Home</title><p>home</p>"),
        _ => Reply::new(404),
    })
    .await;
    let tmp = TempStore::new("audit-robots-redirect");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let (store, _) = crawl_all(&start, &config(), &fetcher(), store, false).await;
    let report = Audit::default().run(&store).expect("audit");
    assert_eq!(
        found(&report, &server, "robots/txt-health"),
        one("/robots.txt", &[])
    );
    let health = &report.check("robots/txt-health").expect("check").findings[0];
    assert_eq!(health.message, "reached through 1 redirect(s)");
}
