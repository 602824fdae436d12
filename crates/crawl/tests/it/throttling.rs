//! The crawler's politeness against the fault-injecting server: the
//! throttle step by step, resets and timeouts as indicators, `429` with
//! `Retry-After`, and a burst of `503`s.

use std::time::Duration;

use botwarden_crawl::{CrawlConfig, StopSignal, ThrottleConfig, crawl};
use botwarden_fetch::Fetcher;
use botwarden_store::Store;
use url::Url;

use crate::crawl::{TempStore, crawl_all, fetcher};
use crate::faults::{Act, FaultServer, Script};

/// One change of the throttle as the store holds it: request, indicators,
/// direction, delay before and after (ms), parallelism before and after.
type Change = (u64, u32, String, u64, u64, u32, u32);

/// A home page linking to `/p/0` … `/p/{n-1}`, robots.txt allowing all;
/// `page` answers the pages.
fn pages(n: u32, page: impl Fn(u32, usize) -> Act + Send + Sync + 'static) -> Script {
    let links: String = (0..n)
        .map(|i| format!("<a href=\"/p/{i}\">{i}</a>"))
        .collect();
    Script::new()
        .path("/robots.txt", [Act::text("User-agent: *\nAllow: /\n")])
        .path("/", [Act::html(&links)])
        .fallback(move |asked| {
            match asked
                .path
                .strip_prefix("/p/")
                .and_then(|n| n.parse::<u32>().ok())
            {
                Some(i) => page(i, asked.global),
                None => Act::status(404),
            }
        })
}

/// The seed's counts (a window of 100, applied every 10 requests, 10 or
/// more indicators slower, 4 or fewer faster, parallelism -2 / +1 at most
/// once per window); the delay steps are a tenth of the seed's (10 ms / 5 ms
/// instead of 100 ms / 50 ms) to keep the tests short; the unit tests of the
/// rule use the seed's.
fn seed_rule() -> CrawlConfig {
    CrawlConfig {
        throttle: ThrottleConfig {
            max_parallel: 3,
            slower: Duration::from_millis(10),
            faster: Duration::from_millis(5),
            ..ThrottleConfig::default()
        },
        ..CrawlConfig::default()
    }
}

fn changes(store: &Store) -> Vec<Change> {
    let mut st = store
        .connection()
        .prepare(
            "SELECT request, indicators, direction, delay_ms_before, delay_ms_after,
                    parallel_before, parallel_after FROM throttle_events ORDER BY id",
        )
        .expect("query");
    st.query_map([], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
        ))
    })
    .expect("rows")
    .map(|r| r.expect("row"))
    .collect()
}

/// The changes once ten indicators among the first requests have left the
/// window: 5 ms faster every 10 requests from request 110 (starting from
/// `delay`), one more in parallel at 120 and at 220 (a window after the
/// last change each), up to the maximum of 3.
fn recovery(mut delay: u64, mut parallel: u32) -> Vec<Change> {
    let mut want = Vec::new();
    for request in (110..=300).step_by(10) {
        if delay == 0 && parallel == 3 {
            break;
        }
        let next_parallel = if request == 120 || request == 220 {
            parallel + 1
        } else {
            parallel
        };
        let next_delay = delay.saturating_sub(5);
        want.push((
            request,
            0,
            "faster".to_owned(),
            delay,
            next_delay,
            parallel,
            next_parallel,
        ));
        delay = next_delay;
        parallel = next_parallel;
    }
    want
}

/// The number of indicators of a faster step may be 0 or 1 (the last error
/// may be answered after a later success): compare the rest.
fn strip(c: &[Change]) -> Vec<Change> {
    c.iter()
        .map(|x| {
            let ind = if x.2 == "faster" { 0 } else { x.1 };
            (x.0, ind, x.2.clone(), x.3, x.4, x.5, x.6)
        })
        .collect()
}

/// The ten indicators of the first pages: from request 20 to 100 the window
/// holds all ten: 10 ms slower each time, and at the first change 2 fewer in
/// parallel (3 → 1).
fn slowing() -> Vec<Change> {
    (0..9u64)
        .map(|k| {
            let parallel = if k == 0 { (3, 1) } else { (1, 1) };
            (
                20 + 10 * k,
                10,
                "slower".to_owned(),
                10 * k,
                10 * k + 10,
                parallel.0,
                parallel.1,
            )
        })
        .collect()
}

#[tokio::test]
async fn throttling_follows_the_seeds_rule_step_by_step() {
    // 300 pages linked from the home page; the first ten answer 500.
    let server = FaultServer::start(pages(300, |i, _| {
        if i < 10 {
            Act::status(500)
        } else {
            Act::html("<p>page</p>")
        }
    }))
    .await;
    let tmp = TempStore::new("throttle");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let (store, end) = crawl_all(&start, &seed_rule(), &fetcher(), store, false).await;
    assert_eq!(end.fetched, 301);
    let changes = changes(&store);
    // Requests 1-10: 9 indicators, nothing changes; then the seed's steps.
    let mut want = slowing();
    want.extend(recovery(90, 1));
    assert_eq!(strip(&changes), want);
    assert!(
        changes.iter().filter(|c| c.2 == "faster").all(|c| c.1 <= 4),
        "{changes:?}"
    );
}

#[tokio::test]
async fn resets_and_timeouts_count_as_indicators() {
    // Of the first ten pages, five reset the connection and five answer
    // after the fetcher has given up. One request at a time, so that the
    // answers come in the order of the requests (a timeout takes longer
    // than many answers).
    let server = FaultServer::start(pages(300, |i, _| match i {
        0..5 => Act::reset(),
        5..10 => Act::html("<p>late</p>").delay(Duration::from_secs(3)),
        _ => Act::html("<p>page</p>"),
    }))
    .await;
    let tmp = TempStore::new("resets");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let fetcher = Fetcher::builder()
        .allow_private(true)
        .timeout(Duration::from_millis(500))
        .build()
        .expect("fetcher");
    let cfg = CrawlConfig {
        throttle: ThrottleConfig {
            max_parallel: 1,
            slower: Duration::from_millis(2),
            faster: Duration::from_millis(1),
            ..ThrottleConfig::default()
        },
        ..CrawlConfig::default()
    };
    let mut errors = 0;
    let (store, end) = crawl(
        &start,
        &cfg,
        &fetcher,
        store,
        false,
        &StopSignal::new(),
        |p| errors = p.errors,
    )
    .await
    .expect("crawl");
    assert_eq!(end.fetched, 301);
    assert_eq!(errors, 10, "every failure is an indicator");
    // The failures are pages without a status, each with its reason.
    let failed: Vec<(String, String)> = {
        let mut st = store
            .connection()
            .prepare(
                "SELECT u.url, p.error FROM pages p JOIN urls u ON u.id = p.url_id
                 WHERE p.status IS NULL ORDER BY u.id",
            )
            .expect("query");
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("rows")
            .map(|r| r.expect("row"))
            .collect()
    };
    assert_eq!(failed.len(), 10, "{failed:?}");
    for (url, error) in &failed[..5] {
        assert!(!error.contains("500 ms"), "{url}: {error}");
    }
    for (url, error) in &failed[5..] {
        assert!(error.contains("500 ms"), "{url}: {error}");
    }
    // The throttle counts them as it counts error statuses: from request 20
    // to 100 the window holds all ten, 2 ms slower each time; from 110 they
    // leave it, 1 ms faster each time down to none.
    let mut want: Vec<Change> = (0..9u64)
        .map(|k| (20 + 10 * k, 10, "slower".to_owned(), 2 * k, 2 * k + 2, 1, 1))
        .collect();
    // (At request 110 the window is requests 11 to 110: the last timeout
    // is still in it.)
    want.extend((0..18u64).map(|k| {
        let indicators = u32::from(k == 0);
        (
            110 + 10 * k,
            indicators,
            "faster".to_owned(),
            18 - k,
            17 - k,
            1,
            1,
        )
    }));
    assert_eq!(changes(&store), want);
}

#[tokio::test]
async fn a_429_with_retry_after_pauses_the_site_and_asks_again() {
    let script = Script::new()
        .path("/robots.txt", [Act::text("User-agent: *\nAllow: /\n")])
        .path(
            "/",
            [Act::html(
                r#"<a href="/busy">b</a> <a href="/a">a</a> <a href="/b">b</a>"#,
            )],
        )
        .path(
            "/busy",
            [
                Act::status(429).retry_after("1"),
                Act::html("<p>better now</p>"),
            ],
        )
        .path("/a", [Act::html("<p>a</p>")])
        .path("/b", [Act::html("<p>b</p>")]);
    let server = FaultServer::start(script).await;
    let tmp = TempStore::new("429");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = crate::one_at_a_time();
    let (store, end) = crawl_all(&start, &cfg, &fetcher(), store, false).await;
    assert_eq!(end.fetched, 5, "/, /busy twice, /a, /b");
    assert_eq!(server.hits("/busy"), 2);
    // One page per URL: the answer after the pause.
    let busy: Vec<u16> = {
        let mut st = store
            .connection()
            .prepare(
                "SELECT p.status FROM pages p JOIN urls u ON u.id = p.url_id
                 WHERE u.url LIKE '%/busy'",
            )
            .expect("query");
        st.query_map([], |r| r.get(0))
            .expect("rows")
            .map(|r| r.expect("row"))
            .collect()
    };
    assert_eq!(busy, [200]);
    // The whole site paused: no request of any path came within the
    // second the 429 asked for. (A lower bound: a slow machine only
    // lengthens the gap.)
    let seen = server.seen();
    let at_429 = seen.iter().position(|s| s.path == "/busy").expect("asked");
    let answered = seen[at_429].answered.expect("answered");
    let next = &seen[at_429 + 1];
    assert!(
        next.at.duration_since(answered) >= Duration::from_secs(1),
        "{} came {:?} after the 429",
        next.path,
        next.at.duration_since(answered)
    );
}

#[tokio::test]
async fn a_503_burst_slows_the_crawl_and_it_recovers() {
    // The server's requests 10 to 24 (the home page and robots.txt are 0
    // and 1) answer 503 with `Retry-After: 0`, whatever the URL; the URLs
    // are asked again.
    let server = FaultServer::start(pages(300, |_, global| {
        if (10..25).contains(&global) {
            Act::status(503).retry_after("0")
        } else {
            Act::html("<p>page</p>")
        }
    }))
    .await;
    let tmp = TempStore::new("503");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = CrawlConfig {
        retries: 20,
        ..seed_rule()
    };
    let (store, end) = crawl_all(&start, &cfg, &fetcher(), store, false).await;
    assert_eq!(end.left, 0);
    // Every page ends answered 200.
    let not_ok: i64 = store
        .connection()
        .query_row(
            "SELECT count(*) FROM pages WHERE status IS NOT 200",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(not_ok, 0);
    let changes = changes(&store);
    let first = changes.first().expect("a change");
    assert_eq!(
        (first.2.as_str(), first.3, first.4, first.5, first.6),
        ("slower", 0, 10, 3, 1),
        "{changes:?}"
    );
    assert!(first.1 >= 10, "{changes:?}");
    // Back to no delay and full parallelism once the burst left the window.
    let last = changes.last().expect("a change");
    assert_eq!(
        (last.2.as_str(), last.4, last.6),
        ("faster", 0, 3),
        "{changes:?}"
    );
    let slower: Vec<&Change> = changes.iter().filter(|c| c.2 == "slower").collect();
    let last_slower = slower.last().expect("slower");
    assert!(
        changes
            .iter()
            .skip_while(|c| c.0 <= last_slower.0)
            .all(|c| c.2 == "faster"),
        "{changes:?}"
    );
}
