//! Integration tests of `botwarden-render`: a crawl with `--render`
//! against a loopback site built to need rendering, in the real headless
//! Chromium (`scripts/setup` installs Debian's `chromium`). No test sends
//! traffic anywhere else, and none asserts a timing.

mod site;

use std::sync::Arc;

use botwarden_crawl::{
    CrawlConfig, Identity, RenderSetup, Renderer, StopSignal, ThrottleConfig, crawl,
};
use botwarden_fetch::Fetcher;
use botwarden_render::{Chromium, ChromiumConfig};
use botwarden_store::Store;
use rusqlite_free::Rows;

/// A store in a fresh directory of its own, removed afterwards.
struct TempStore(std::path::PathBuf);

impl TempStore {
    fn new(name: &str) -> TempStore {
        let dir =
            std::env::temp_dir().join(format!("botwarden-render-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempStore(dir)
    }

    fn db(&self) -> std::path::PathBuf {
        self.0.join("crawl.db")
    }
}

impl Drop for TempStore {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Crawls the site at `start`, rendering with two tabs when `render`.
async fn crawl_site(start: &url::Url, name: &str, render: bool) -> (TempStore, Store) {
    let dir = TempStore::new(name);
    let store = Store::create(&dir.db()).expect("store");
    let fetcher = Fetcher::builder()
        .allow_private(true)
        .user_agent(Identity::default().user_agent())
        .build()
        .expect("fetcher");
    let browser = if render {
        let mut config = ChromiumConfig::new(
            botwarden_testdata::chromium::binary(),
            Identity::default().user_agent(),
        );
        // Shorter than the slow page's data takes, far longer than any
        // other page needs on loopback.
        config.budget = site::SLOW / 2;
        Some(Chromium::start(config).await.expect("chromium"))
    } else {
        None
    };
    let config = CrawlConfig {
        throttle: ThrottleConfig {
            max_parallel: 2,
            ..ThrottleConfig::default()
        },
        render: browser
            .clone()
            .map(|b| RenderSetup::new(b as Arc<dyn Renderer>)),
        ..CrawlConfig::default()
    };
    let (store, end) = crawl(
        start,
        &config,
        &fetcher,
        store,
        false,
        &StopSignal::new(),
        |_| {},
    )
    .await
    .expect("crawl");
    assert!(!end.stopped, "the crawl ended: {end:?}");
    if let Some(b) = browser {
        assert_eq!(b.launches(), 1, "the browser never died");
        b.close().await;
    }
    (dir, store)
}

mod rusqlite_free {
    //! Reading the store back through its own SQLite connection.

    /// Rows of a query, each as text columns (`NULL` as `None`).
    pub(crate) trait Rows {
        fn rows(&self, sql: &str) -> Vec<Vec<Option<String>>>;
        fn one(&self, sql: &str) -> Option<String>;
    }

    impl Rows for botwarden_store::Store {
        fn rows(&self, sql: &str) -> Vec<Vec<Option<String>>> {
            let conn = self.connection();
            let mut st = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
            let n = st.column_count();
            st.query_map([], |r| {
                (0..n)
                    .map(|i| {
                        r.get_ref(i).map(|v| match v {
                            rusqlite::types::ValueRef::Null => None,
                            rusqlite::types::ValueRef::Integer(i) => Some(i.to_string()),
                            rusqlite::types::ValueRef::Real(f) => Some(f.to_string()),
                            rusqlite::types::ValueRef::Text(t)
                            | rusqlite::types::ValueRef::Blob(t) => {
                                Some(String::from_utf8_lossy(t).into_owned())
                            }
                        })
                    })
                    .collect()
            })
            .and_then(|rows| rows.collect())
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
        }

        fn one(&self, sql: &str) -> Option<String> {
            self.rows(sql)
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().next().flatten())
        }
    }
}

/// The path of a stored URL.
fn path_of(url: &str) -> String {
    url::Url::parse(url)
        .map(|u| u.path().to_owned())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rendered_crawl_keeps_both_readings_and_crawls_what_only_scripts_link() {
    let site = site::serve().await;
    let (_dir, store) = crawl_site(&site.url, "both", true).await;

    // Every HTML page was rendered, and rendered to the end.
    let renders = store.rows(
        "SELECT u.url, r.outcome, r.error FROM renders r JOIN urls u ON u.id = r.url_id ORDER BY u.url",
    );
    let rendered: Vec<String> = renders
        .iter()
        .map(|r| path_of(r[0].as_deref().unwrap_or("")))
        .collect();
    assert_eq!(rendered, site::HTML_PAGES, "{renders:?}");
    for r in &renders {
        let slow = path_of(r[0].as_deref().unwrap_or("")) == "/slow";
        let expected = if slow { "timeout" } else { "rendered" };
        assert_eq!(r[1].as_deref(), Some(expected), "{r:?}");
    }

    // Links that only scripts write are crawled, found by the render.
    let found =
        store.rows("SELECT url, found_by, state FROM urls WHERE found_by = 'render' ORDER BY url");
    let found: Vec<(String, String)> = found
        .iter()
        .map(|r| {
            (
                path_of(r[0].as_deref().unwrap_or("")),
                r[2].clone().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("/canonical-target".to_owned(), "fetched".to_owned()),
            ("/only-rendered".to_owned(), "fetched".to_owned()),
            ("/spa/about".to_owned(), "fetched".to_owned()),
        ]
    );

    // The home page's script link is numbered after its raw links.
    let home_only = store.one(&format!(
        "SELECT count(*) FROM links l JOIN renders r ON r.url_id = l.source_id
         JOIN urls s ON s.id = l.source_id JOIN urls t ON t.id = l.target_id
         WHERE s.url = '{}' AND l.position >= r.links_from AND t.url LIKE '%/only-rendered'",
        site.url
    ));
    assert_eq!(home_only.as_deref(), Some("1"));

    // A noindex written by script counts (the union of both readings),
    // and the facts say where each came from.
    let facts = |path: &str| -> serde_json::Value {
        let text = store
            .one(&format!(
                "SELECT r.facts FROM renders r JOIN urls u ON u.id = r.url_id WHERE u.url LIKE '%{path}'"
            ))
            .unwrap_or_else(|| panic!("{path}: no facts"));
        serde_json::from_str(&text).expect("facts JSON")
    };
    let noindex = facts("/noindex-by-js");
    assert_eq!(noindex["raw"]["noindex"], false);
    assert_eq!(noindex["rendered"]["noindex"], true);
    let page_noindex = store.one("SELECT p.noindex FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url LIKE '%/noindex-by-js'");
    assert!(page_noindex.is_some(), "the page is noindex");

    let canonical = facts("/canonical-by-js");
    assert_eq!(
        path_of(canonical["raw"]["canonical"].as_str().unwrap_or("")),
        "/canonical-by-js"
    );
    assert_eq!(
        path_of(canonical["rendered"]["canonical"].as_str().unwrap_or("")),
        "/canonical-target"
    );
    assert_eq!(canonical["raw"]["title"], "Raw title");
    assert_eq!(canonical["rendered"]["title"], "Title by script");

    let spa = facts("/spa");
    let raw_words = spa["raw"]["words"].as_u64().unwrap_or(0);
    let rendered_words = spa["rendered"]["words"].as_u64().unwrap_or(0);
    assert!(raw_words < 10 && rendered_words > 100, "{spa}");
    assert_eq!(spa["rendered_only_links"], 1);

    let plain = facts("/plain");
    assert_eq!(
        plain["raw"], plain["rendered"],
        "a page without scripts renders as it is"
    );

    // A script's redirect is recorded and its target crawled.
    let moved = store.one("SELECT r.final_url FROM renders r JOIN urls u ON u.id = r.url_id WHERE u.url LIKE '%/redirect-by-js'");
    assert_eq!(path_of(moved.as_deref().unwrap_or("")), "/plain");

    // robots.txt holds for the browser's requests: the disallowed script
    // is refused with its rule, and never reaches the server.
    let blocked = store.rows(
        "SELECT q.url, q.kind, q.detail FROM render_requests q WHERE q.outcome = 'blocked' ORDER BY q.url",
    );
    let blocked: Vec<(String, String, String)> = blocked
        .iter()
        .map(|r| {
            let text = |i: usize| r[i].clone().unwrap_or_default();
            (path_of(&text(0)), text(1), text(2))
        })
        .collect();
    let rule = "Disallow: /private/ (line 2)".to_owned();
    assert_eq!(
        blocked,
        [
            (
                "/private/app.js".to_owned(),
                "Script".to_owned(),
                rule.clone()
            ),
            ("/private/pixel.png".to_owned(), "Image".to_owned(), rule),
        ]
    );

    // The script the home page and others share is fetched once, then
    // answered from what the crawl kept; the SPA's fetch() went through
    // the crawl too.
    let shared = store.rows(
        "SELECT q.outcome, count(*) FROM render_requests q WHERE q.url LIKE '%/app.js' AND q.url NOT LIKE '%/private/%' GROUP BY q.outcome ORDER BY q.outcome",
    );
    assert_eq!(
        shared,
        [
            vec![Some("cached".to_owned()), Some("7".to_owned())],
            vec![Some("fetched".to_owned()), Some("1".to_owned())],
        ]
    );
    let api = store.one("SELECT q.kind || ' ' || q.outcome || ' ' || q.status FROM render_requests q WHERE q.url LIKE '%/api/data.json'");
    assert_eq!(api.as_deref(), Some("XHR fetched 200"));

    // Every request the site saw came with the crawler's User-Agent, the
    // disallowed script was never asked, and no page was asked twice.
    let log = site.log();
    let agent = Identity::default().user_agent();
    for (path, ua) in &log {
        assert_eq!(ua, &agent, "{path}");
    }
    assert!(
        !log.iter().any(|(p, _)| p.starts_with("/private/")),
        "{log:?}"
    );
    let mut pages: Vec<&str> = log.iter().map(|(p, _)| p.as_str()).collect();
    let asked = pages.len();
    pages.sort_unstable();
    pages.dedup();
    assert_eq!(pages.len(), asked, "each URL asked once: {log:?}");

    audit_finds_the_planted_render_problems(&store, &site.url);
}

/// The render checks on the planted site: each finds its planted pages
/// and none of the near misses (`/few-words`: 40 words added to 10;
/// `/dup-link`: a script link the raw page has; `/hash-change`: a
/// fragment and `pushState`; `/blocked-image`: an image disallowed;
/// `/plain`: no script).
fn audit_finds_the_planted_render_problems(store: &Store, root: &url::Url) {
    let reader = |name: &str, renders| botwarden_audit::Reader {
        name: name.to_owned(),
        renders,
        source: renders.map(|_| format!("https://example.com/{name}")),
    };
    let audit = botwarden_audit::Audit {
        readers: vec![
            reader("Reads-raw", Some(false)),
            reader("Unknown", None),
            reader("Renders", Some(true)),
        ],
        ..botwarden_audit::Audit::default()
    };
    let report = audit.run(store).expect("audit");
    let view = report.render.as_ref().expect("a view of the renders");
    let counts = [
        view.rendered,
        view.failed,
        view.text_only_rendered,
        view.links_only_rendered,
        view.noindex_differs,
        view.canonical_differs,
        view.head_differs,
        view.js_redirects,
        view.differ,
        view.unknown,
    ];
    assert_eq!(counts, [16, 1, 2, 3, 2, 1, 3, 1, 7, 1], "{view:?}");
    let robots: Vec<(&str, &str)> = view
        .robots
        .iter()
        .map(|r| (r.name.as_str(), r.reads))
        .collect();
    assert_eq!(robots, [("Renders", "rendered"), ("Reads-raw", "raw")]);
    let text = report.to_string();
    assert!(
        text.contains("Reads-raw            sees the raw HTML: 2 page(s) without the text scripts write, 3 without the links they write"),
        "{text}"
    );
    let prefix = root.as_str().trim_end_matches('/');
    let found = |code: &str| -> Vec<(String, Vec<String>)> {
        let mut found: Vec<(String, Vec<String>)> = report
            .check(code)
            .unwrap_or_else(|| panic!("no check {code}"))
            .findings
            .iter()
            .map(|f| {
                let strip = |u: &str| u.replacen(prefix, "", 1);
                (strip(&f.url), f.related.iter().map(|r| strip(r)).collect())
            })
            .collect();
        found.sort();
        found
    };
    let pages = |code: &str| -> Vec<String> { found(code).into_iter().map(|(u, _)| u).collect() };
    assert_eq!(
        pages("render/content-only-rendered"),
        ["/spa", "/spa/about"]
    );
    assert_eq!(
        found("render/links-only-rendered"),
        [
            ("/".to_owned(), vec!["/only-rendered".to_owned()]),
            ("/spa".to_owned(), vec!["/spa/about".to_owned()]),
            ("/spa/about".to_owned(), vec!["/spa".to_owned()]),
        ]
    );
    assert_eq!(pages("render/noindex-rendered-only"), ["/noindex-by-js"]);
    assert_eq!(pages("render/noindex-raw-only"), ["/noindex-removed"]);
    assert_eq!(
        found("render/canonical-changed"),
        [(
            "/canonical-by-js".to_owned(),
            vec!["/canonical-target".to_owned()]
        )]
    );
    let head = report
        .check("render/head-changed")
        .expect("check")
        .findings
        .iter()
        .map(|f| (f.url.replacen(prefix, "", 1), f.message.clone()))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>();
    assert_eq!(
        head,
        [
            (
                "/canonical-by-js".to_owned(),
                "title 'Raw title' → 'Title by script'".to_owned()
            ),
            ("/spa".to_owned(), "h1 none → 'The application'".to_owned()),
            (
                "/spa/about".to_owned(),
                "h1 none → 'About the application'".to_owned()
            ),
        ]
    );
    assert_eq!(
        found("render/blocked-resources"),
        [(
            "/blocked-script".to_owned(),
            vec!["Script /private/app.js (Disallow: /private/ (line 2))".to_owned()]
        )]
    );
    assert_eq!(
        found("render/js-redirect"),
        [("/redirect-by-js".to_owned(), vec!["/plain".to_owned()])]
    );
    assert_eq!(pages("render/failed"), ["/slow"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_render_the_crawl_reads_the_raw_pages_only() {
    let site = site::serve().await;
    let (_dir, store) = crawl_site(&site.url, "raw", false).await;
    assert_eq!(
        store.one("SELECT count(*) FROM renders").as_deref(),
        Some("0")
    );
    assert_eq!(
        store.one("SELECT count(*) FROM render_requests").as_deref(),
        Some("0")
    );
    assert_eq!(
        store.one("SELECT count(*) FROM urls WHERE url LIKE '%/only-rendered' OR url LIKE '%/spa/about'").as_deref(),
        Some("0")
    );
    let scripts = site
        .log()
        .iter()
        .filter(|(p, _)| p.ends_with(".js"))
        .count();
    assert_eq!(scripts, 0, "no script is fetched without --render");
}
