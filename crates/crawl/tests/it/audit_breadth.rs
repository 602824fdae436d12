//! The audit's breadth: a planted site for the checks that read links,
//! descriptions and sitemaps in new ways (dead ends, too many links,
//! private addresses, follow and nofollow to one target, generic anchor
//! text, several descriptions, indexable pages missing from sitemaps, URLs
//! in several sitemaps), each with near misses; precision and recall 1.0
//! per check.

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use botwarden_audit::Audit;
use botwarden_crawl::CrawlConfig;
use botwarden_fetch::Fetcher;
use botwarden_store::Store;
use url::Url;

use crate::audit_trust::{Found, found, owned};
use crate::crawl::{TempStore, config, crawl_all};
use crate::server::{Reply, Server};

/// The link home every page has, so that only the planted pages are dead
/// ends.
const HOME: &str = r#"<a href="/">home page</a>"#;

/// The pages of the site, each listed in `/sitemap.xml` unless its path
/// starts with `/unlisted`.
const PAGES: &[&str] = &[
    "/",
    "/dead",
    "/alive",
    "/many",
    "/thousand",
    "/private",
    "/mixed",
    "/all-nofollow",
    "/generic",
    "/two-desc",
    "/one-desc",
    "/twice",
    "/a",
    "/b",
    "/c",
    "/unlisted",
    "/unlisted-noindex",
    "/unlisted-canonical",
];

fn page(head: &str, body: &str) -> Reply {
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(format!(
            "<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>"
        ))
}

fn external(n: usize) -> String {
    (0..n).fold(String::new(), |mut s, i| {
        let _ = write!(s, r#"<a href="http://other.invalid/x{i}">item {i}</a>"#);
        s
    })
}

fn sitemap(base: &str, paths: &[&str]) -> Reply {
    let urls: String = paths
        .iter()
        .map(|p| format!("<url><loc>{base}{p}</loc></url>"))
        .collect();
    Reply::new(200)
        .header("content-type", "application/xml")
        .body(format!(
            r#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>"#
        ))
}

fn route(path: &str, base: &str) -> Reply {
    match path {
        "/" => {
            let links: String = PAGES
                .iter()
                .filter(|p| **p != "/")
                .map(|p| format!(r#"<a href="{p}">page {p}</a> "#))
                .collect();
            page("", &links)
        }
        "/sitemap.xml" => {
            let listed: Vec<&str> = PAGES
                .iter()
                .copied()
                .filter(|p| !p.starts_with("/unlisted"))
                .collect();
            sitemap(base, &listed)
        }
        "/sitemap2.xml" => sitemap(base, &["/twice"]),
        // Only another site, and itself: a dead end.
        "/dead" => page(
            "",
            r##"<a href="http://other.invalid/">elsewhere</a> <a href="#top">top</a>"##,
        ),
        "/alive" => page("", HOME),
        "/many" => page("", &format!("{HOME}{}", external(1000))),
        "/thousand" => page("", &format!("{HOME}{}", external(999))),
        "/private" => page(
            "",
            &format!(
                r#"{HOME} <a href="http://localhost:3000/">dev server</a>
                   <a href="http://192.168.1.10/admin">router admin</a>
                   <a href="http://[::1]/">loopback six</a>
                   <a href="http://localhost.example/">a public name</a>
                   <a href="http://172.32.0.1/">a public address</a>
                   <a href="{base}/a">this site, on loopback</a>"#
            ),
        ),
        "/mixed" => page(
            "",
            &format!(
                r#"{HOME} <a href="/a" rel="nofollow">first a</a> <a href="/a">second a</a>
                   <a href="/b" rel="nofollow ugc">only nofollow b</a> <a href="/c">only followed c</a>"#
            ),
        ),
        "/all-nofollow" => page(
            r#"<meta name="robots" content="nofollow">"#,
            &format!(r#"{HOME} <a href="/a" rel="nofollow">a one</a> <a href="/a">a two</a>"#),
        ),
        "/generic" => page(
            "",
            &format!(
                r##"{HOME} <a href="/a">Click here</a> <a href="/b"> Read more… </a>
                   <a href="/c">read more about pricing</a> <a href="#top">here</a>
                   <a href="/a">click here</a>"##
            ),
        ),
        "/two-desc" => page(
            r#"<meta name="description" content="one"><meta name="description" content="two">"#,
            HOME,
        ),
        "/one-desc" => page(r#"<meta name="description" content="one">"#, HOME),
        "/unlisted-noindex" => page(r#"<meta name="robots" content="noindex">"#, HOME),
        "/unlisted-canonical" => page(r#"<link rel="canonical" href="/a">"#, HOME),
        p if PAGES.contains(&p) => page("", HOME),
        _ => Reply::new(404),
    }
}

async fn site() -> Server {
    let base: Arc<OnceLock<String>> = Arc::default();
    let own = Arc::clone(&base);
    let server = Server::start(move |asked| {
        let base = own.get().cloned().unwrap_or_default();
        route(asked.path, base.trim_end_matches('/'))
    })
    .await;
    base.set(server.url("")).expect("set once");
    server
}

/// The checks planted here.
pub(crate) const CODES: &[&str] = &[
    "links/dead-end",
    "links/too-many",
    "links/private-address",
    "links/follow-and-nofollow",
    "links/non-descriptive-anchor",
    "content/multiple-description",
    "sitemaps/missing-indexable",
    "sitemaps/listed-twice",
];

fn planted() -> Vec<(&'static str, Found)> {
    vec![
        ("links/dead-end", owned(&[("/dead", &[])])),
        ("links/too-many", owned(&[("/many", &[])])),
        (
            "links/private-address",
            vec![
                ("http://localhost:3000/".into(), vec![]),
                ("http://192.168.1.10/admin".into(), vec![]),
                ("http://[::1]/".into(), vec![]),
            ],
        ),
        ("links/follow-and-nofollow", owned(&[("/mixed", &["/a"])])),
        (
            "links/non-descriptive-anchor",
            owned(&[("/generic", &["click here", "read more"])]),
        ),
        ("content/multiple-description", owned(&[("/two-desc", &[])])),
        ("sitemaps/missing-indexable", owned(&[("/unlisted", &[])])),
        (
            "sitemaps/listed-twice",
            owned(&[("/twice", &["/sitemap.xml", "/sitemap2.xml"])]),
        ),
    ]
}

// The table of planted and found per check is the test's report.
#[allow(clippy::print_stdout)]
#[tokio::test]
async fn new_checks_find_exactly_their_planted_cases() {
    let server = site().await;
    let tmp = TempStore::new("audit-breadth");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = CrawlConfig {
        sitemaps: ["/sitemap.xml", "/sitemap2.xml"]
            .iter()
            .map(|p| Url::parse(&server.url(p)).expect("url"))
            .collect(),
        ..config()
    };
    let fetcher = Fetcher::builder()
        .allow_private(true)
        .build()
        .expect("fetcher");
    let (store, end) = crawl_all(&start, &cfg, &fetcher, store, false).await;
    assert!(!end.stopped);
    let report = Audit::default().run(&store).expect("audit");
    let mut wrong = Vec::new();
    let all = planted();
    assert_eq!(all.iter().map(|(c, _)| *c).collect::<Vec<_>>(), CODES);
    for (code, planted) in all {
        let got = found(&report, &server, code);
        let hits = got.iter().filter(|g| planted.contains(g)).count();
        println!(
            "{code:<32} planted {:>2} found {:>2} right {hits:>2}",
            planted.len(),
            got.len()
        );
        if got != planted {
            wrong.push(format!("{code}:\n  planted {planted:?}\n  found   {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let finding = |code: &str, path: &str| {
        report
            .check(code)
            .and_then(|c| c.findings.iter().find(|f| f.url.ends_with(path)))
            .unwrap_or_else(|| panic!("{code}: no finding at {path}"))
            .clone()
    };
    assert_eq!(
        finding("links/dead-end", "/dead").message,
        "no link to another page of the site (2 link(s) in all)"
    );
    assert_eq!(
        finding("links/too-many", "/many").message,
        "1001 links (more than 1000)"
    );
    assert_eq!(
        finding("links/non-descriptive-anchor", "/generic").message,
        "3 link(s) with generic text: \"click here\", \"read more\""
    );
    let private = finding("links/private-address", "localhost:3000/");
    assert_eq!(private.message, "linked, on localhost");
    assert_eq!(private.link_count, 1);
}
