//! The scheduler keeps going: a slow robots.txt of one origin holds only
//! that origin's URLs.

use std::time::Duration;

use botwarden_crawl::{CrawlConfig, FrontierConfig, Scope};
use botwarden_store::Store;
use botwarden_testdata::dns::{TestDns, Zone};
use url::Url;

use crate::crawl::{TempStore, crawl_all};
use crate::faults::{Act, FaultServer, Gate, Script};

#[tokio::test]
async fn a_slow_robots_txt_holds_only_its_own_origin() {
    // b.site.test's robots.txt answers only once a.site.test's last page
    // was asked for: a crawler that waited for it before asking for
    // anything else would wait until its time limit.
    let gate = Gate::new();
    let b = FaultServer::start(
        Script::new()
            .path(
                "/robots.txt",
                [Act::text("User-agent: *\nDisallow: /private\n").waits_for(&gate)],
            )
            .path("/x", [Act::html("<p>x</p>")]),
    )
    .await;
    let dns = TestDns::start(
        Zone::new()
            .a("a.site.test", &["127.0.0.1"])
            .a("b.site.test", &["127.0.0.1"]),
    )
    .await;
    let b_url = |path: &str| format!("http://b.site.test:{}{path}", b.addr.port());
    let links = format!(
        r#"<a href="{}">x</a> <a href="{}">p</a> {}"#,
        b_url("/x"),
        b_url("/private"),
        (0..10)
            .map(|i| format!("<a href=\"/p/{i}\">{i}</a>"))
            .collect::<String>()
    );
    let opener = gate.clone();
    let a = FaultServer::start(
        Script::new()
            .path("/robots.txt", [Act::text("User-agent: *\nAllow: /\n")])
            .path("/", [Act::html(&links)])
            .fallback(move |asked| match asked.path {
                "/p/9" => Act::html("<p>last</p>").opens(&opener),
                p if p.starts_with("/p/") => Act::html("<p>page</p>"),
                _ => Act::status(404),
            }),
    )
    .await;
    let tmp = TempStore::new("slow-robots");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&format!("http://a.site.test:{}/", a.addr.port())).expect("url");
    let fetcher = crate::loopback()
        .nameserver(Some(dns.addr()))
        .timeout(Duration::from_secs(5))
        .build()
        .expect("fetcher");
    // One attempt at each robots.txt: b's must succeed the first time.
    let cfg = CrawlConfig {
        frontier: FrontierConfig {
            scope: Scope::Domain,
            ..FrontierConfig::default()
        },
        robots_attempts: 1,
        ..crate::crawl::config()
    };
    let (store, end) = crawl_all(&start, &cfg, &fetcher, store, false).await;
    assert!(gate.is_open());
    // b's robots.txt was read (not timed out) and obeyed.
    assert_eq!(end.fetched, 12, "a's 11 pages and b's /x");
    let robots: Vec<(String, Option<u16>, String)> = {
        let mut st = store
            .connection()
            .prepare("SELECT origin, status, availability FROM robots_files ORDER BY origin")
            .expect("query");
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("rows")
            .map(|r| r.expect("row"))
            .collect()
    };
    assert_eq!(robots.len(), 2);
    assert_eq!(
        robots[1],
        (
            format!("http://b.site.test:{}", b.addr.port()),
            Some(200),
            "parse".to_owned()
        )
    );
    let private: String = store
        .connection()
        .query_row(
            "SELECT skip_reason FROM urls WHERE url LIKE '%/private'",
            [],
            |r| r.get(0),
        )
        .expect("private");
    assert_eq!(private, "robots");
    assert_eq!(b.hits("/x"), 1);
}
