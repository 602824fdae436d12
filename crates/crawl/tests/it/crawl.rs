//! Whole crawls of a small site served on 127.0.0.1: which URLs are
//! fetched, which are not and why, what the store holds, and a crawl
//! stopped midway and resumed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use botwarden_crawl::{CrawlConfig, CrawlEnd, StopSignal, ThrottleConfig, crawl};
use botwarden_fetch::Fetcher;
use botwarden_store::{Store, Summary};
use url::Url;

use crate::server::{Reply, Server};

const ROBOTS: &str = "User-agent: *\nDisallow: /\n\nUser-agent: botwarden\nDisallow: /private\nAllow: /private/open\nDisallow: /*.pdf$\n";

fn html(body: &str) -> Reply {
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(format!(
            "<!doctype html><html><head><title>t</title></head><body>{body}</body></html>"
        ))
}

/// The site, counting the requests for each path.
async fn site() -> (Server, Arc<Mutex<BTreeMap<String, usize>>>) {
    let hits: Arc<Mutex<BTreeMap<String, usize>>> = Arc::default();
    let busy = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&hits);
    let server = Server::start(move |asked| {
        *seen
            .lock()
            .expect("hits")
            .entry(asked.path.to_owned())
            .or_insert(0) += 1;
        match asked.path {
            "/robots.txt" => Reply::text(ROBOTS),
            "/" => html(
                r#"<a href="/a">A</a> <a href="/b" rel="nofollow">B</a>
                <a href="/private/x">x</a> <a href="/private/open">open</a>
                <a href="/doc.pdf">pdf</a> <a href="mailto:me@example.com">mail</a>
                <a href="/redirect">r</a> <a href="/a#frag">A again</a> <a href="/c">C</a>
                <a href="http://other.example/">elsewhere</a> <a href="/busy">busy</a>"#,
            ),
            "/a" => html(
                r#"<meta name="botwarden" content="nofollow"><a href="/hidden">h</a><a href="/c">c</a>"#,
            ),
            "/c" => html(r#"<a href="/">home</a> <a href="noindex-page">n</a>"#),
            "/noindex-page" => html(r#"<a href="/hidden2">h2</a>"#)
                .header("x-robots-tag", "otherbot: noindex")
                .header("x-robots-tag", "botwarden: noindex, nofollow"),
            "/redirect" => Reply::new(301).header("location", "/target"),
            "/target" | "/private/open" => html("<p>end</p>"),
            "/busy" => {
                if busy.fetch_add(1, Ordering::SeqCst) == 0 {
                    Reply::new(503).header("retry-after", "1")
                } else {
                    html("<p>better now</p>")
                }
            }
            _ => Reply::new(404),
        }
    })
    .await;
    (server, hits)
}

/// A URL, then each reading's answer and deciding line.
type Decided = (String, bool, Option<u32>, bool, Option<u32>);

pub(crate) struct TempStore(PathBuf);

impl TempStore {
    pub(crate) fn new(name: &str) -> TempStore {
        let dir =
            std::env::temp_dir().join(format!("botwarden-crawl-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempStore(dir)
    }

    pub(crate) fn db(&self) -> PathBuf {
        self.0.join("crawl.db")
    }

    /// The directory itself, for other files of the test.
    pub(crate) fn dir(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempStore {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn config() -> CrawlConfig {
    CrawlConfig {
        throttle: ThrottleConfig {
            max_parallel: 2,
            ..ThrottleConfig::default()
        },
        ..CrawlConfig::default()
    }
}

/// Crawls until nothing is left (no stop signal).
pub(crate) async fn crawl_all(
    start: &Url,
    config: &CrawlConfig,
    fetcher: &Fetcher,
    store: Store,
    resume: bool,
) -> (Store, CrawlEnd) {
    crawl(
        start,
        config,
        fetcher,
        store,
        resume,
        &StopSignal::new(),
        |_| {},
    )
    .await
    .expect("the crawl runs")
}

/// A new crawl into `store`, stopped (as Ctrl-C stops it) once `pages`
/// pages are fetched.
async fn crawl_stopped_after(
    start: &Url,
    config: &CrawlConfig,
    store: Store,
    pages: u64,
) -> (Store, CrawlEnd) {
    let stop = StopSignal::new();
    let stopper = stop.clone();
    crawl(start, config, &fetcher(), store, false, &stop, |p| {
        if p.fetched >= pages {
            stopper.stop();
        }
    })
    .await
    .expect("crawl")
}

pub(crate) fn fetcher() -> Fetcher {
    Fetcher::builder()
        .allow_private(true)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("fetcher")
}

/// `(path or URL, state, skip reason)` of every URL in the store.
fn urls(store: &Store, server: &Server) -> BTreeSet<(String, String, Option<String>)> {
    let prefix = server.url("");
    let mut st = store
        .connection()
        .prepare("SELECT url, state, skip_reason FROM urls")
        .expect("query");
    st.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
        ))
    })
    .expect("rows")
    .map(|r| {
        let (url, state, reason) = r.expect("row");
        (url.replace(&prefix, ""), state, reason)
    })
    .collect()
}

fn expected() -> BTreeSet<(String, String, Option<String>)> {
    let fetched = [
        "/",
        "/a",
        "/c",
        "/noindex-page",
        "/redirect",
        "/target",
        "/busy",
        "/private/open",
    ];
    let skipped = [
        ("/b", "nofollow"),
        ("/hidden", "nofollow"),
        ("/hidden2", "nofollow"),
        ("/private/x", "robots"),
        ("/doc.pdf", "robots"),
        ("http://other.example/", "scope"),
    ];
    fetched
        .iter()
        .map(|p| ((*p).to_owned(), "fetched".to_owned(), None))
        .chain(
            skipped
                .iter()
                .map(|(p, r)| ((*p).to_owned(), "skipped".to_owned(), Some((*r).to_owned()))),
        )
        .collect()
}

#[tokio::test]
async fn a_site_is_crawled_exactly_as_robots_txt_and_nofollow_allow() {
    let (server, hits) = site().await;
    let tmp = TempStore::new("whole");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let (store, end) = crawl_all(&start, &config(), &fetcher(), store, false).await;
    assert!(!end.stopped);
    assert_eq!(end.left, 0);
    assert_eq!(urls(&store, &server), expected());

    // Nothing fetched twice but the 503 asked again after its Retry-After.
    let hits = hits.lock().expect("hits").clone();
    for (path, n) in &hits {
        let want = if path == "/busy" { 2 } else { 1 };
        assert_eq!(*n, want, "{path} requested {n} times");
    }
    assert!(!hits.contains_key("/b") && !hits.contains_key("/hidden"));

    // Why each robots skip happened, and where the readings differ.
    let c = store.connection();
    let detail: String = c
        .query_row(
            "SELECT skip_detail FROM urls WHERE url LIKE '%/private/x'",
            [],
            |r| r.get(0),
        )
        .expect("detail");
    assert_eq!(detail, "Disallow: /private (line 5)");
    let mut st = c
        .prepare(
            "SELECT u.url, d.relaxed_allowed, d.relaxed_line, d.strict_allowed, d.strict_line
             FROM robots_decisions d JOIN urls u ON u.id = d.url_id ORDER BY u.url",
        )
        .expect("query");
    let decisions: Vec<Decided> = st
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .expect("rows")
        .map(|r| r.expect("row"))
        .map(|(u, a, b, c, d): (String, _, _, _, _)| (u.replace(&server.url(""), ""), a, b, c, d))
        .collect();
    assert_eq!(
        decisions,
        [
            // `/*.pdf$` is a wildcard rule for RFC 9309, a literal prefix
            // that matches nothing for the strict reading.
            ("/doc.pdf".to_owned(), false, Some(7), true, None),
            // Longest match allows; first match stops at line 5.
            ("/private/open".to_owned(), true, Some(6), false, Some(5)),
            ("/private/x".to_owned(), false, Some(5), false, Some(5)),
        ]
    );
    // Page facts: the header's directives for the chain, not otherbot's.
    let (noindex, nofollow): (Option<String>, Option<String>) = c
        .query_row(
            "SELECT noindex, nofollow FROM pages p JOIN urls u ON u.id = p.url_id
             WHERE u.url LIKE '%/noindex-page'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("page");
    assert_eq!(noindex.as_deref(), Some("X-Robots-Tag (botwarden:)"));
    assert_eq!(nofollow.as_deref(), Some("X-Robots-Tag (botwarden:)"));
    let (status, location): (u16, String) = c
        .query_row(
            "SELECT status, location FROM pages p JOIN urls u ON u.id = p.url_id
             WHERE u.url LIKE '%/redirect'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("redirect");
    assert_eq!((status, location), (301, server.url("/target")));
    let not_followed: i64 = c
        .query_row("SELECT count(*) FROM links WHERE followed = 0", [], |r| {
            r.get(0)
        })
        .expect("links");
    // /b (rel), /hidden and /c from /a (meta), /hidden2 (header), mailto
    // (not a URL).
    assert_eq!(not_followed, 5);
    let robots: (u16, String) = c
        .query_row("SELECT status, availability FROM robots_files", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .expect("robots file");
    assert_eq!(robots, (200, "parse".to_owned()));

    // The summary says the same.
    let summary = Summary::read(&store).expect("summary");
    assert_eq!(summary.state, "finished");
    assert_eq!(
        (
            summary.urls.fetched,
            summary.urls.skipped,
            summary.urls.queued
        ),
        (8, 6, 0)
    );
    assert_eq!(summary.skipped.get("nofollow"), Some(&3));
    assert_eq!(summary.strict_differences.count, 2);
    assert_eq!(summary.statuses.get("301"), Some(&1));
    let rules: Vec<&str> = summary.blocked_by.iter().map(|b| b.rule.as_str()).collect();
    assert!(rules.contains(&"Disallow: /private (line 5)"), "{rules:?}");
    assert!(rules.contains(&"Disallow: /*.pdf$ (line 7)"), "{rules:?}");
    let text = summary.to_string();
    assert!(
        text.contains("strict (1994/1997, first match) reading differs on 2 URL(s)"),
        "{text}"
    );
}

#[tokio::test]
async fn a_stopped_crawl_resumes_and_fetches_nothing_twice() {
    let (server, hits) = site().await;
    let tmp = TempStore::new("resume");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = crate::one_at_a_time();
    let (store, end) = crawl_stopped_after(&start, &cfg, store, 2).await;
    assert!(end.stopped, "{end:?}");
    assert!(end.left > 0);
    let (queued, _, _) = store.counts().expect("counts");
    assert!(queued > 0);
    drop(store);

    let store = Store::open(&tmp.db()).expect("reopen");
    let (store, end) = crawl_all(&start, &cfg, &fetcher(), store, true).await;
    assert!(!end.stopped);
    assert_eq!(urls(&store, &server), expected());
    let hits = hits.lock().expect("hits").clone();
    for (path, n) in &hits {
        // robots.txt once (the resumed run reads it from the store); the
        // 503 twice.
        let want = match path.as_str() {
            "/busy" => 2,
            _ => 1,
        };
        assert_eq!(*n, want, "{path} requested {n} times");
    }
}

#[tokio::test]
async fn sitemaps_from_robots_txt_add_urls_no_link_leads_to() {
    // The sitemaps name absolute URLs: the server's own address, known
    // once it listens.
    let base: Arc<std::sync::OnceLock<String>> = Arc::default();
    let own = Arc::clone(&base);
    let server = Server::start(move |asked| {
        let base = own.get().cloned().unwrap_or_default();
        match asked.path {
            "/robots.txt" => {
                Reply::text("User-agent: *\nDisallow: /blocked\nSitemap: /sitemap-index.xml\n")
            }
            "/sitemap-index.xml" => Reply::new(200).body(format!(
                "<sitemapindex><sitemap><loc>{base}/sitemap.xml.gz</loc></sitemap></sitemapindex>"
            )),
            "/sitemap.xml.gz" => {
                let xml = format!(
                    "<urlset><url><loc>{base}/a</loc></url><url><loc>{base}/orphan</loc></url>\
                     <url><loc>{base}/blocked</loc></url><url><loc>http://other.example/x</loc></url></urlset>"
                );
                let mut gz =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                std::io::Write::write_all(&mut gz, xml.as_bytes()).expect("gzip");
                Reply::new(200)
                    .header("content-type", "application/gzip")
                    .body(gz.finish().expect("gzip"))
            }
            "/" => html(r#"<a href="/a">a</a>"#),
            "/a" | "/orphan" => html("<p>x</p>"),
            _ => Reply::new(404),
        }
    })
    .await;
    base.set(server.url("")).expect("set once");
    let tmp = TempStore::new("sitemaps");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = CrawlConfig {
        robots_sitemaps: true,
        ..config()
    };
    let (store, _) = crawl_all(&start, &cfg, &fetcher(), store, false).await;
    let got: BTreeSet<(String, String, Option<String>)> = urls(&store, &server);
    let want: BTreeSet<(String, String, Option<String>)> = [
        ("/", "fetched", None),
        ("/a", "fetched", None),
        ("/orphan", "fetched", None),
        ("/blocked", "skipped", Some("robots")),
        ("http://other.example/x", "skipped", Some("scope")),
    ]
    .into_iter()
    .map(|(u, s, r)| (u.to_owned(), s.to_owned(), r.map(str::to_owned)))
    .collect();
    assert_eq!(got, want);
    let summary = Summary::read(&store).expect("summary");
    // /a is in the sitemap and linked from the home page; /orphan, /blocked
    // and the other host's URL are only in the sitemap (the last two never
    // fetched).
    assert_eq!(summary.sitemap_only, 3, "{summary:?}");
    let lines: Vec<&str> = summary.sitemaps.lines().collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].ends_with("/sitemap-index.xml\tindex\t1\t0\t"),
        "{lines:?}"
    );
    assert!(
        lines[1].ends_with("/sitemap.xml.gz\turlset\t4\t0\t"),
        "{lines:?}"
    );
}

#[tokio::test]
async fn html_canonicals_follow_base_href_and_link_headers_the_page() {
    // `<base href="/docs/">`: an HTML canonical `guide` is /docs/guide; a
    // `Link` header's `faq` is relative to the page (/faq), as is a
    // `Refresh` header's target.
    let server = Server::start(|asked| match asked.path {
        "/robots.txt" => Reply::text("User-agent: *\nAllow: /\n"),
        "/" => html(r#"<a href="/page">p</a>"#),
        "/page" => Reply::new(200)
            .header("content-type", "text/html")
            .header("link", "<faq>; rel=\"canonical\"")
            .body(
                r#"<html><head><base href="/docs/"><link rel="canonical" href="guide">
                <link rel="alternate" hreflang="de" href="de"></head>
                <body><a href="intro">i</a></body></html>"#,
            ),
        _ => html("<p>x</p>"),
    })
    .await;
    let tmp = TempStore::new("base-href");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let (store, _) = crawl_all(&start, &config(), &fetcher(), store, false).await;
    let c = store.connection();
    let canonical: String = c
        .query_row(
            "SELECT p.canonical FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url LIKE '%/page'",
            [],
            |r| r.get(0),
        )
        .expect("canonical");
    assert_eq!(canonical, server.url("/docs/guide"));
    let mut st = c
        .prepare(
            "SELECT l.kind, t.url FROM links l JOIN urls s ON s.id = l.source_id
             JOIN urls t ON t.id = l.target_id WHERE s.url LIKE '%/page' ORDER BY l.position",
        )
        .expect("query");
    let links: Vec<(String, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    let want: Vec<(String, String)> = [
        ("a", "/docs/intro"),
        ("canonical", "/docs/guide"),
        ("canonical", "/faq"),
        ("hreflang", "/docs/de"),
    ]
    .into_iter()
    .map(|(k, p)| (k.to_owned(), server.url(p)))
    .collect();
    assert_eq!(links, want);
}

/// A site whose second page reads differently to the two readings of the
/// SimHash's text: an SVG's `<title>` is visible text to the HTML parser,
/// markup to the scan.
async fn svg_site() -> Server {
    Server::start(|asked| match asked.path {
        "/robots.txt" => Reply::text("User-agent: *\nAllow: /\n"),
        "/" => html(r#"<a href="/svg">svg</a>"#),
        "/svg" => html(
            "<p>one two three four five six seven eight nine ten</p>\
             <svg><title>eleven twelve thirteen fourteen fifteen</title></svg>",
        ),
        _ => Reply::new(404),
    })
    .await
}

fn svg_simhash(store: &Store, server: &Server) -> Option<i64> {
    store
        .connection()
        .query_row(
            "SELECT p.simhash FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?1",
            [server.url("/svg")],
            |r| r.get(0),
        )
        .expect("simhash")
}

#[tokio::test]
async fn a_resumed_store_keeps_the_text_reading_its_fingerprints_were_made_with() {
    let server = svg_site().await;
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = crate::one_at_a_time();
    // A new store names its reading.
    let tmp = TempStore::new("reading-new");
    let store = Store::create(&tmp.db()).expect("store");
    let (store, _) = crawl_all(&start, &cfg, &fetcher(), store, false).await;
    assert_eq!(
        store.meta("simhash_text").expect("meta").as_deref(),
        Some("markup-scan")
    );
    let scanned = svg_simhash(&store, &server).expect("a fingerprint");
    let report = botwarden_audit::Audit::default()
        .run(&store)
        .expect("audit");
    assert!(report.notes.is_empty(), "{:?}", report.notes);

    // A store that does not name it (written before it was named), stopped
    // after its first page and resumed: the pages fetched after the resume
    // are read as its others were, and the audit says which reading.
    let tmp = TempStore::new("reading-older");
    let store = Store::create(&tmp.db()).expect("store");
    let (store, end) = crawl_stopped_after(&start, &cfg, store, 1).await;
    assert!(end.stopped, "{end:?}");
    store
        .connection()
        .execute("DELETE FROM meta WHERE key = 'simhash_text'", [])
        .expect("an older store");
    drop(store);
    let store = Store::open(&tmp.db()).expect("reopen");
    let (store, end) = crawl_all(&start, &cfg, &fetcher(), store, true).await;
    assert!(!end.stopped);
    assert_eq!(store.meta("simhash_text").expect("meta"), None);
    let parsed = svg_simhash(&store, &server).expect("a fingerprint");
    assert_ne!(parsed, scanned, "the parser's reading holds the SVG title");
    let report = botwarden_audit::Audit::default()
        .run(&store)
        .expect("audit");
    assert_eq!(report.notes.len(), 1, "{:?}", report.notes);
    assert!(
        report.notes[0].contains("older reading") && report.notes[0].contains("markup-scan"),
        "{}",
        report.notes[0]
    );
}

#[tokio::test]
async fn the_progress_counts_every_request_in_flight() {
    // 40 pages that each take 30 ms and link to the next four: with four
    // requests allowed, four are in flight whenever the crawl waits.
    let server = Server::start(|asked| {
        if asked.path == "/robots.txt" {
            return Reply::text("User-agent: *\nAllow: /\n");
        }
        let n: u32 = asked.path.trim_start_matches("/p").parse().unwrap_or(0);
        let links: String = (1..=4)
            .map(|k| format!("<a href=\"/p{}\">next</a>", (n + k) % 40))
            .collect();
        html(&links).delayed(Duration::from_millis(30))
    })
    .await;
    let start = Url::parse(&server.url("/p0")).expect("url");
    let cfg = CrawlConfig {
        throttle: ThrottleConfig {
            max_parallel: 4,
            ..ThrottleConfig::default()
        },
        ..CrawlConfig::default()
    };
    let tmp = TempStore::new("in-flight");
    let store = Store::create(&tmp.db()).expect("store");
    let mut seen = Vec::new();
    let (_, end) = crawl(
        &start,
        &cfg,
        &fetcher(),
        store,
        false,
        &StopSignal::new(),
        |p| {
            seen.push(p.in_flight);
        },
    )
    .await
    .expect("crawl");
    assert_eq!(end.fetched, 40);
    let full = seen.iter().filter(|n| **n == 4).count();
    assert!(seen.iter().all(|n| *n <= 4), "{seen:?}");
    // Every answer but the first few and the last few finds four in flight.
    assert!(
        full >= 25,
        "{full} of {} with 4 in flight: {seen:?}",
        seen.len()
    );
}
