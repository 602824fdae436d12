//! A log joined with a crawl (`AnalyzeOptions::crawl`): a store of six
//! URLs written by hand and a log of sixteen lines, every number of the
//! report's section worked out by hand in the comments.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use botwarden_logs::{
    AnalyzeOptions, Analyzer, CrawlJoin, CrawlSite, Input, JoinAccounting, Listed, Standing,
};
use botwarden_logs::{Pair, PairVerifier, VerdictFuture};
use botwarden_store::{
    Batch, LinkKind, LinkRecord, NewUrl, PageRecord, RobotsFileRecord, Skip, Store, UrlState,
};
use botwarden_testdata::chromium;
use botwarden_verify::{Claim, Classifier, RegistryBuilder, Verifier, VerifierConfig};

/// The site's robots.txt: every robot kept out of `/private`, bingbot
/// asked to wait 10 s between requests.
const ROBOTS: &str = "User-agent: *\nDisallow: /private\n\nUser-agent: bingbot\nCrawl-delay: 10\nDisallow: /private\n";

/// The crawl: `/` links to `/blog/a`, `/blog/b`, `/old` and `/c`;
/// `/old` redirects, `/blog/b` is noindex, `/c` names `/blog/a` as its
/// canonical, `/private/x` was not fetched (robots.txt).
pub(crate) fn write_store(path: &Path) {
    let mut store = Store::create(path).expect("a store");
    let base = "https://example.com";
    let urls = [
        ("/", 0, UrlState::Fetched),
        ("/blog/a", 1, UrlState::Fetched),
        ("/blog/b", 1, UrlState::Fetched),
        ("/old", 1, UrlState::Fetched),
        ("/private/x", 1, UrlState::Skipped),
        ("/c", 1, UrlState::Fetched),
    ];
    let mut batch = Batch::default();
    for (i, (p, depth, state)) in urls.iter().enumerate() {
        batch.new_urls.push(NewUrl {
            id: i as u64 + 1,
            url: format!("{base}{p}"),
            depth: *depth,
            found_by: if i == 0 { "seed" } else { "link" },
            state: *state,
            skip: (*state == UrlState::Skipped).then(|| Skip {
                reason: "robots",
                detail: "Disallow: /private (line 2)".to_owned(),
            }),
        });
    }
    let page = |id: u64, status: u16| PageRecord {
        url_id: id,
        fetched_at: "2026-11-19T00:00:00Z".to_owned(),
        status: Some(status),
        content_type: Some("text/html".to_owned()),
        body_read: status == 200,
        ..PageRecord::default()
    };
    batch.pages.push(page(1, 200));
    batch.pages.push(page(2, 200));
    batch.pages.push(PageRecord {
        noindex: Some("<meta name=\"robots\">".to_owned()),
        ..page(3, 200)
    });
    batch.pages.push(PageRecord {
        location: Some(format!("{base}/blog/a")),
        ..page(4, 301)
    });
    batch.pages.push(PageRecord {
        canonical: Some(format!("{base}/blog/a")),
        ..page(6, 200)
    });
    for (position, target) in [2u64, 3, 4, 6].into_iter().enumerate() {
        batch.links.push(LinkRecord {
            source: 1,
            target: Some(target),
            target_text: None,
            kind: LinkKind::A,
            anchor: None,
            rel: None,
            followed: true,
            position: position as u32,
            same_page: false,
        });
    }
    batch.robots_files.push(RobotsFileRecord {
        origin: base.to_owned(),
        fetched_at: "2026-11-19T00:00:00Z".to_owned(),
        status: Some(200),
        availability: "parse".to_owned(),
        error: None,
        body: Some(ROBOTS.as_bytes().to_vec()),
        source: "site",
        redirects: 0,
        truncated: false,
    });
    batch.meta.push(("seed".to_owned(), format!("{base}/")));
    store.write(&batch).expect("written");
    store.build_indexes().expect("indexes");
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const BINGBOT: &str = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
const GPTBOT: &str = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

/// The log: Googlebot (verified by its ranges) eight requests, bingbot
/// three, GPTBot one (by their published ranges), a spoofed GPTBot one
/// (outside OpenAI's ranges), a person one.
pub(crate) fn log_text() -> String {
    let line = |ip: &str, at: &str, path: &str, status: u16, bytes: u64, ua: &str| {
        format!("{ip} - - [{at} +0000] \"GET {path} HTTP/1.1\" {status} {bytes} \"-\" \"{ua}\"\n")
    };
    let g = "66.249.66.1";
    let b = "157.55.39.1";
    [
        line(g, "19/Nov/2026:10:00:00", "/", 200, 1000, GOOGLEBOT),
        line(g, "19/Nov/2026:10:00:05", "/blog/a", 200, 2000, GOOGLEBOT),
        line(g, "20/Nov/2026:09:00:00", "/blog/a", 404, 300, GOOGLEBOT),
        line(g, "20/Nov/2026:09:00:10", "/old", 301, 0, GOOGLEBOT),
        line(g, "20/Nov/2026:09:00:20", "/private/x", 200, 500, GOOGLEBOT),
        line(g, "20/Nov/2026:09:00:30", "/gone-page", 404, 100, GOOGLEBOT),
        line(
            g,
            "20/Nov/2026:09:00:40",
            "/blog/a?utm=1",
            200,
            2000,
            GOOGLEBOT,
        ),
        line(g, "20/Nov/2026:09:00:50", "/blog/b", 200, 1500, GOOGLEBOT),
        line(b, "20/Nov/2026:10:00:00", "/", 200, 1000, BINGBOT),
        line(b, "20/Nov/2026:10:00:05", "/blog/b", 200, 1500, BINGBOT),
        line(b, "20/Nov/2026:10:00:20", "/blog/a", 200, 2000, BINGBOT),
        line(
            "20.171.206.10",
            "20/Nov/2026:12:00:00",
            "/c",
            200,
            800,
            GPTBOT,
        ),
        line(
            "203.0.113.9",
            "20/Nov/2026:11:00:00",
            "/private/x",
            200,
            500,
            GPTBOT,
        ),
        line(
            "198.51.100.7",
            "20/Nov/2026:11:30:00",
            "/",
            200,
            1000,
            BROWSER,
        ),
    ]
    .concat()
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "botwarden-logs-join-{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// The crawl opened as the command opens it: its URLs read on a thread
/// of their own while the log is read.
fn analyze(store: &Path, log: &Path) -> botwarden_logs::Analysis {
    let site = CrawlSite::open(store).expect("the crawl");
    analyze_site(site, log)
}

fn analyze_site(site: CrawlSite, log: &Path) -> botwarden_logs::Analysis {
    let (registry, problems) = RegistryBuilder::with_defaults().build();
    let registry = Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")));
    let classifier = Arc::new(Classifier::for_registry(&registry).expect("a classifier"));
    let verifier =
        Arc::new(Verifier::new(registry, VerifierConfig::offline()).expect("a verifier"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let options = AnalyzeOptions {
        crawl: Some(Arc::new(site)),
        ..AnalyzeOptions::default()
    };
    Analyzer::new(classifier, verifier, runtime.handle().clone())
        .run(vec![Input::Path(log.to_owned())], options)
}

fn analysis() -> botwarden_logs::Analysis {
    let dir = tempdir("hand");
    let store = dir.join("crawl.db");
    write_store(&store);
    let log = dir.join("access.log");
    std::fs::write(&log, log_text()).expect("the log");
    let analysis = analyze(&store, &log);
    let _ = std::fs::remove_dir_all(&dir);
    analysis
}

fn joined() -> (CrawlJoin, Vec<Listed>) {
    let analysis = analysis();
    (
        analysis.report.crawl.expect("the join"),
        analysis.ignoring_robots,
    )
}

/// The join's sections of the HTML report, rendered by headless
/// Chromium: each section is in the DOM with its numbers.
#[test]
fn the_html_sections_render_in_chromium() {
    let report = analysis().report;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-join-html");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a directory");
    let page = dir.join("join.html");
    let png = dir.join("join.png");
    std::fs::write(&page, botwarden_logs::render_html(&report)).expect("the page");
    let dom = chromium::render(&format!("file://{}", page.display()), &png, 1200, 3000);
    for id in ["crawl-bots", "crawl-robots", "crawl-pages", "crawl-urls"] {
        assert!(
            dom.contains(&format!(r#"<section class="panel" id="{id}">"#)),
            "{id} not in the DOM"
        );
    }
    assert!(dom.contains("Bots on the crawl"));
    assert!(
        dom.contains("2026-11-19: 1 · 2026-11-20: 1"),
        "the days of /blog/a"
    );
    assert!(dom.contains("200 → 404"), "the status change of /blog/a");
    assert!(dom.contains("https://example.com/private/x"));
    let image = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert_eq!(chromium::png_size(&image), (1200, 3000));
}

#[test]
fn every_number_of_a_small_join() {
    let (c, ignoring) = joined();
    assert_eq!(c.origins, ["https://example.com"]);
    assert_eq!(c.robots.len(), 1);
    assert_eq!(c.robots[0].source, "crawl");
    assert_eq!(c.robots[0].name, "2026-11-19T00:00:00Z");
    // Six URLs; pages are the 200s with an HTML body: /, /blog/a,
    // /blog/b, /c.
    assert_eq!((c.urls, c.pages), (6, 4));
    // 8 Googlebot + 3 bingbot + 1 GPTBot verified, 1 spoofed GPTBot.
    // Distinct URLs: Googlebot's 7, and /c.
    assert_eq!(
        c.accounting,
        JoinAccounting {
            requests: 13,
            verified: 12,
            spoofed: 1,
            unconfirmed: 0,
            joined: 12,
            other_host: 0,
            no_url: 0,
            capped: 0,
            distinct_urls: 8,
            times_capped: 0,
        }
    );
    let names: Vec<&str> = c.bots.iter().map(|b| b.bot.as_str()).collect();
    assert_eq!(names, ["Googlebot", "bingbot", "GPTBot"]);

    let g = &c.bots[0];
    assert_eq!(g.profile, "google");
    assert_eq!((g.requests, g.urls), (8, 7));
    // In the crawl: / 1, /blog/a 2, /old 1, /private/x 1, /blog/b 1.
    assert_eq!((g.requests_in_crawl, g.urls_in_crawl), (6, 5));
    // /gone-page and /blog/a?utm=1.
    assert_eq!(g.requests_not_in_crawl, 2);
    // /blog/a: 200, then 404.
    assert_eq!(g.status_changes, 1);
    // /old redirects, /blog/b is noindex; /private/x was never fetched,
    // so it is no error of the crawl's.
    assert_eq!(
        (
            g.waste.redirect,
            g.waste.error,
            g.waste.non_canonical,
            g.waste.noindex
        ),
        (1, 0, 0, 1)
    );
    assert_eq!(
        (g.disallowed, g.disallowed_urls, g.disallowed_ips),
        (1, 1, 1)
    );
    assert_eq!(g.disallowed_examples, ["https://example.com/private/x"]);
    assert!(g.crawl_delay.is_empty(), "{:?}", g.crawl_delay);
    assert_eq!((g.spoofed, g.spoofed_disallowed, g.unconfirmed), (0, 0, 0));

    let b = &c.bots[1];
    assert_eq!(b.profile, "bing");
    assert_eq!((b.requests, b.urls, b.requests_in_crawl), (3, 3, 3));
    assert_eq!(b.waste.noindex, 1);
    assert_eq!(b.disallowed, 0);
    // Gaps of 5 s and 15 s against 10 s: one kept of two.
    assert_eq!(b.crawl_delay.len(), 1);
    let d = &b.crawl_delay[0];
    assert_eq!(d.origin, "https://example.com");
    assert_eq!(d.robots, "crawl");
    assert!((d.delay - 10.0).abs() < f64::EPSILON);
    assert_eq!(
        (d.gaps, d.kept, d.min, d.median, d.keeps),
        (2, 1, Some(5), Some(5), false)
    );

    let gpt = &c.bots[2];
    assert_eq!(gpt.category.as_deref(), Some("ai-training"));
    assert_eq!(gpt.profile, "rfc9309");
    assert_eq!(
        (gpt.requests, gpt.urls_in_crawl, gpt.waste.non_canonical),
        (1, 1, 1)
    );

    // search: Googlebot and bingbot, 11 requests on 7 URLs, 1 disallowed,
    // 3 on waste (/old, and /blog/b twice); ai-training: GPTBot's /c.
    let cats: Vec<(&str, u64, u64, u64, u64, u64)> = c
        .categories
        .iter()
        .map(|k| {
            (
                k.category.as_str(),
                k.bots,
                k.requests,
                k.urls,
                k.disallowed,
                k.waste,
            )
        })
        .collect();
    assert_eq!(
        cats,
        [("search", 2, 11, 7, 1, 3), ("ai-training", 1, 1, 1, 0, 1)]
    );

    // Directories: /blog/ 6 requests (/blog/a 3, /blog/b 2, ?utm 1) on 3
    // URLs, 2 pages both requested by search; / 5 (/ 2, /old, /gone-page,
    // /c) on 4 URLs, pages / and /c, only / by search; /private/ 1.
    let dirs: Vec<(&str, u64, u64, u64, u64)> = c
        .directories
        .iter()
        .map(|d| {
            (
                d.directory.as_str(),
                d.requests,
                d.urls,
                d.pages,
                d.pages_requested,
            )
        })
        .collect();
    assert_eq!(
        dirs,
        [
            ("https://example.com/blog/", 6, 3, 2, 2),
            ("https://example.com/", 5, 4, 2, 1),
            ("https://example.com/private/", 1, 1, 0, 0),
        ]
    );
    assert_eq!(c.directories[1].categories["search"], 4);
    assert_eq!(c.directories[1].categories["ai-training"], 1);

    // Only /c (GPTBot's, not a search bot's) was not requested by search.
    // Link scores: / links to three pages (/old is no page); by symmetry
    // /blog/a, /blog/b, /c share b and / has a, with a = base and
    // b = base + 0.85 a / 3, base = 0.15/4 + 0.85 × 3b/4, a + 3b = 1:
    // a = 1/4.85, b = 1.28333 a; scaled so the mean is 1: 0.8247, 1.0584.
    let n = &c.never_crawled;
    assert_eq!((n.pages, n.requested, n.not_requested), (4, 3, 1));
    assert_eq!(n.list.len(), 1);
    assert_eq!(n.list[0].url, "https://example.com/c");
    assert_eq!(n.list[0].depth, 1);
    let score = n.list[0].link_score.expect("a score");
    assert!((score - 4.0 * 1.283_333_333 / 4.85).abs() < 1e-6, "{score}");

    // Depth 0: / (2 search requests); depth 1: /blog/a 3, /blog/b 2, /c 0.
    let depths: Vec<(&str, u64, u64, u64)> = c
        .depths
        .iter()
        .map(|s| (s.band.as_str(), s.pages, s.requested, s.requests))
        .collect();
    assert_eq!(depths, [("0", 1, 1, 2), ("1", 3, 2, 5)]);
    // Four pages, four bands of one, lowest score first.
    let scores: Vec<(&str, u64, u64, u64)> = c
        .scores
        .iter()
        .map(|s| (s.band.as_str(), s.pages, s.requested, s.requests))
        .collect();
    assert_eq!(
        scores,
        [
            ("0.82–0.82", 1, 1, 2),
            ("1.06–1.06", 1, 1, 3),
            ("1.06–1.06", 1, 1, 2),
            ("1.06–1.06", 1, 0, 0),
        ]
    );

    // One status change: Googlebot's /blog/a.
    assert_eq!(c.status_changes.len(), 1);
    assert_eq!(
        (
            c.status_changes[0].url.as_str(),
            c.status_changes[0].bot.as_str()
        ),
        ("https://example.com/blog/a", "Googlebot")
    );
    assert_eq!(c.status_changes[0].change.to, 404);
    // Waste: /blog/b (noindex) twice, /c (non-canonical), /old (301).
    let waste: Vec<(&str, &[String], u64)> = c
        .waste_urls
        .iter()
        .map(|w| (w.url.as_str(), w.kinds.as_slice(), w.requests))
        .collect();
    assert_eq!(waste.len(), 3);
    assert_eq!((waste[0].0, waste[0].2), ("https://example.com/blog/b", 2));
    assert_eq!(waste[0].1, ["noindex"]);
    assert_eq!(
        (waste[2].0, waste[2].1[0].as_str()),
        ("https://example.com/old", "redirect")
    );
    assert_eq!(c.waste_urls_omitted, 0);

    let o = &c.orphans;
    assert_eq!((o.urls, o.requests), (2, 2));
    assert_eq!(o.kinds["gone"], 1);
    assert_eq!(o.kinds["parameter"], 1);
    let list: Vec<(&str, &str, u64, u16)> = o
        .list
        .iter()
        .map(|u| (u.url.as_str(), u.kind.as_str(), u.requests, u.last_status))
        .collect();
    assert_eq!(
        list,
        [
            ("https://example.com/blog/a?utm=1", "parameter", 1, 200),
            ("https://example.com/gone-page", "gone", 1, 404),
        ]
    );

    // URLs: /blog/a 3, then / and /blog/b 2, then the rest by name.
    let top: Vec<(&str, u64)> = c
        .top_urls
        .iter()
        .map(|u| (u.url.as_str(), u.requests))
        .collect();
    assert_eq!(
        top,
        [
            ("https://example.com/blog/a", 3),
            ("https://example.com/", 2),
            ("https://example.com/blog/b", 2),
            ("https://example.com/blog/a?utm=1", 1),
            ("https://example.com/c", 1),
            ("https://example.com/gone-page", 1),
            ("https://example.com/old", 1),
            ("https://example.com/private/x", 1),
        ]
    );
    assert_eq!(c.top_urls_omitted, 0);
    let a = &c.top_urls[0];
    assert!(a.in_crawl);
    assert_eq!((a.depth, a.crawl_status), (Some(1), Some(200)));
    let ga = &a.bots[0];
    assert_eq!(ga.bot, "Googlebot");
    assert_eq!((ga.requests, ga.bytes, ga.last_status), (2, 2300, 404));
    assert_eq!(
        ga.last_seen.map(|t| t.to_string()).as_deref(),
        Some("2026-11-20T09:00:00Z")
    );
    let days: Vec<(&str, u64)> = ga.days.iter().map(|(d, n)| (d.as_str(), *n)).collect();
    assert_eq!(days, [("2026-11-19", 1), ("2026-11-20", 1)]);
    let statuses: Vec<(u16, u64)> = ga.statuses.iter().map(|(c, n)| (*c, *n)).collect();
    assert_eq!(statuses, [(200, 1), (404, 1)]);
    let change = ga.status_change.as_ref().expect("a change");
    assert_eq!((change.from, change.to), (200, 404));
    assert_eq!(
        change.until.map(|t| t.to_string()).as_deref(),
        Some("2026-11-19T10:00:05Z")
    );
    assert_eq!(
        change.since.map(|t| t.to_string()).as_deref(),
        Some("2026-11-20T09:00:00Z")
    );
    // Per category: search is Googlebot's and bingbot's three requests;
    // its last request (bingbot's, 200, on 11-20 10:00:20) came after
    // Googlebot's 404, so the category's status changed 404 → 200; `since`
    // is the first 200 of all, before the 404: the statuses alternated.
    assert_eq!(a.categories.len(), 1);
    let search = &a.categories[0];
    assert_eq!(search.bot, "search");
    assert_eq!(
        (search.requests, search.bytes, search.last_status),
        (3, 4300, 200)
    );
    let days: Vec<(&str, u64)> = search.days.iter().map(|(d, n)| (d.as_str(), *n)).collect();
    assert_eq!(days, [("2026-11-19", 1), ("2026-11-20", 2)]);
    let change = search.status_change.as_ref().expect("a change");
    assert_eq!((change.from, change.to), (404, 200));
    assert_eq!(
        change.since.map(|t| t.to_string()).as_deref(),
        Some("2026-11-19T10:00:05Z")
    );
    let ba = &a.bots[1];
    assert_eq!(ba.bot, "bingbot");
    assert_eq!((ba.requests, ba.bytes, ba.last_status), (1, 2000, 200));
    assert!(ba.status_change.is_none());
    let private = &c.top_urls[7];
    assert!(private.bots[0].disallowed);
    assert_eq!(private.crawl_status, None);

    // The export: Googlebot's address, and not the spoofer's.
    assert_eq!(
        ignoring,
        [Listed {
            ip: "66.249.66.1".parse().expect("an address"),
            bot: "Googlebot".to_owned(),
            standing: Standing::Verified,
        }]
    );
}

/// The hand-computed join as the text report shows it, and as JSON
/// (`crates/logs/tests/data/join-hand.*`; `BOTWARDEN_BLESS=1` rewrites
/// them).
#[test]
fn the_text_and_json_of_the_small_join() {
    let (mut c, _) = joined();
    c.store = "crawl.db".to_owned();
    let report = botwarden_logs::Report {
        crawl: Some(c.clone()),
        ..botwarden_logs::Report::default()
    };
    let text = botwarden_logs::render_text(&report, &botwarden_logs::TextOptions::default());
    let from = text.find("Bots on the crawl").expect("the section");
    let to = text.find("Spoofed addresses").unwrap_or(text.len());
    botwarden_testdata::snapshot("crates/logs/tests/data/join-hand.txt", &text[from..to]);
    let mut json = serde_json::to_string_pretty(&c).expect("JSON");
    json.push('\n');
    botwarden_testdata::snapshot("crates/logs/tests/data/join-hand.json", &json);
}

/// The CSV files: a header and a row per bot, per URL and bot, per
/// band; numbers as the JSON has them.
#[test]
fn the_csv_files_hold_the_tables() {
    let (c, _) = joined();
    let dir = tempdir("csv");
    let files = botwarden_logs::write_join_csv(&c, &dir).expect("written");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect(name);
    assert_eq!(files.len(), 10);
    assert_eq!(
        read("status-changes.csv"),
        "url,bot,requests,status_before,until,status_now,since\r\n\
         https://example.com/blog/a,Googlebot,2,200,2026-11-19T10:00:05Z,404,2026-11-20T09:00:00Z\r\n"
    );
    assert_eq!(
        read("waste.csv"),
        "url,waste,crawl_status,requests,bots\r\n\
         https://example.com/blog/b,noindex,200,2,Googlebot bingbot\r\n\
         https://example.com/c,non-canonical,200,1,GPTBot\r\n\
         https://example.com/old,redirect,301,1,Googlebot\r\n"
    );
    let bots = read("bots.csv");
    let lines: Vec<&str> = bots.lines().collect();
    assert_eq!(lines.len(), 4, "{bots}");
    assert!(lines[0].starts_with("bot,category,profile,verified,urls,"));
    assert_eq!(
        lines[1],
        "Googlebot,search,google,8,7,6,5,2,1,1,0,0,1,1,1,1,0,0,0,0"
    );
    let urls = read("urls.csv");
    // Eleven rows of (URL, bot): /, /blog/a and /blog/b have two bots.
    assert_eq!(urls.lines().count(), 12, "{urls}");
    assert!(
        urls.contains(
            "https://example.com/blog/a,true,1,1.0584,200,Googlebot,2,2300,2026-11-20T09:00:00Z,\
             2026-11-19:1 2026-11-20:1,200:1 404:1,404,200,2026-11-19T10:00:05Z,2026-11-20T09:00:00Z,false"
        ),
        "{urls}"
    );
    let delay = read("crawl-delay.csv");
    assert!(
        delay.contains("bingbot,https://example.com,crawl,10,2,1,5,5,false"),
        "{delay}"
    );
    assert_eq!(read("bands.csv").lines().count(), 1 + 2 + 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--robots-history`: a copy dated 2026-11-20 that keeps every robot
/// out of `/blog/` and asks no delay judges the requests of that day; the
/// requests of 2026-11-19 are judged by the crawl's copy.
#[test]
fn a_dated_copy_judges_the_requests_of_its_days() {
    let dir = tempdir("history");
    let store = dir.join("crawl.db");
    write_store(&store);
    let log = dir.join("access.log");
    std::fs::write(&log, log_text()).expect("the log");
    let history = dir.join("history");
    std::fs::create_dir_all(&history).expect("a directory");
    std::fs::write(
        history.join("robots-2026-11-20.txt"),
        "User-agent: *\nDisallow: /blog/\n",
    )
    .expect("a copy");
    let mut site = CrawlSite::load(&Store::open(&store).expect("store")).expect("crawl");
    assert_eq!(site.read_robots_history(&history).expect("read"), 1);
    let c = analyze_site(site, &log).report.crawl.expect("the join");
    let copy = &c.robots[1];
    assert_eq!(
        (
            copy.source.as_str(),
            copy.name.as_str(),
            copy.from.as_deref()
        ),
        ("history", "robots-2026-11-20.txt", Some("2026-11-20"))
    );
    let bot = |name: &str| c.bots.iter().find(|b| b.bot == name).expect(name);
    // Googlebot on 11-20: /blog/a, /blog/a?utm=1 and /blog/b; /private/x
    // is allowed by that day's copy, and its /blog/a of 11-19 by the
    // crawl's.
    let g = bot("Googlebot");
    assert_eq!((g.disallowed, g.disallowed_urls), (3, 3));
    // bingbot: /blog/b and /blog/a; that day's copy asks no delay.
    let b = bot("bingbot");
    assert_eq!(b.disallowed, 2);
    assert!(b.crawl_delay.is_empty(), "{:?}", b.crawl_delay);
    // The spoofed GPTBot's /private/x is allowed that day.
    assert_eq!(bot("GPTBot").spoofed_disallowed, 0);

    // A copy whose name has no day is refused, named.
    std::fs::write(history.join("robots.txt"), "User-agent: *\n").expect("a file");
    let mut site = CrawlSite::load(&Store::open(&store).expect("store")).expect("crawl");
    let e = site.read_robots_history(&history).expect_err("refused");
    assert!(
        e.to_string().contains("robots.txt: no day in its name"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Answers pairs with the offline verifier, 300 ms late.
#[derive(Debug)]
struct Late(Arc<Verifier>);

impl PairVerifier for Late {
    fn verify(&self, pair: Pair) -> VerdictFuture {
        let verifier = self.0.clone();
        Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            let claim = Claim::Bot {
                name: pair.bot,
                category: pair.category,
            };
            verifier.verify_claim(pair.ip, &claim, pair.as_of).await
        })
    }
}

/// A pair that makes far more requests than the join keeps aside before
/// its verdict comes: its reading thread waits for the verdict, and every
/// request is counted, none dropped.
#[test]
fn requests_made_before_a_late_verdict_are_all_counted() {
    let dir = tempdir("late");
    let store = dir.join("crawl.db");
    write_store(&store);
    let log = dir.join("access.log");
    let mut text = String::new();
    let n = 10 * botwarden_logs::PENDING_HITS;
    for i in 0..n {
        text.push_str(&format!(
            "66.249.66.1 - - [20/Nov/2026:10:{:02}:{:02} +0000] \"GET /blog/a HTTP/1.1\" 200 10 \"-\" \"{GOOGLEBOT}\"\n",
            i / 60 % 60,
            i % 60
        ));
    }
    std::fs::write(&log, text).expect("the log");
    let (registry, problems) = RegistryBuilder::with_defaults().build();
    let registry = Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")));
    let classifier = Arc::new(Classifier::for_registry(&registry).expect("a classifier"));
    let verifier =
        Arc::new(Verifier::new(registry, VerifierConfig::offline()).expect("a verifier"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let site = CrawlSite::load(&Store::open(&store).expect("the store")).expect("the crawl");
    let options = AnalyzeOptions {
        crawl: Some(Arc::new(site)),
        pairs: Some(Arc::new(Late(verifier.clone()))),
        ..AnalyzeOptions::default()
    };
    let analysis = Analyzer::new(classifier, verifier, runtime.handle().clone())
        .run(vec![Input::Path(log)], options);
    let c = analysis.report.crawl.expect("the join");
    let n = n as u64;
    assert_eq!((c.accounting.verified, c.accounting.joined), (n, n));
    assert_eq!(c.top_urls[0].requests, n);
    assert_eq!(c.top_urls[0].bots[0].days["2026-11-20"], n);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The real logs of `../shared/corpus/logs` joined with the small crawl
/// (paths of other sites, mostly not in it): every registered bot's
/// request is accounted for, and the join's verified and spoofed
/// requests are the report's verified and spoofed rows.
#[test]
fn real_logs_add_up() {
    let Some(dir) =
        botwarden_testdata::shared("logs join", "corpus/logs").map(|d| d.join("corpus/logs"))
    else {
        return;
    };
    let tmp = tempdir("corpus");
    let store = tmp.join("crawl.db");
    write_store(&store);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    assert!(!logs.is_empty());
    for log in logs {
        let report = analyze(&store, &log).report;
        let c = report.crawl.as_ref().expect("the join");
        let a = &c.accounting;
        let name = log.display();
        assert_eq!(a.requests, a.verified + a.spoofed + a.unconfirmed, "{name}");
        assert_eq!(
            a.verified,
            a.joined + a.other_host + a.no_url + a.capped,
            "{name}"
        );
        let rows = |verdict: &str| -> u64 {
            report
                .bots
                .iter()
                .filter(|b| b.verdict == verdict)
                .map(|b| b.requests)
                .sum()
        };
        assert_eq!(a.verified, rows("verified"), "{name}");
        assert_eq!(a.spoofed, rows("spoofed"), "{name}");
        if c.top_urls_omitted == 0 {
            let per_url: u64 = c.top_urls.iter().map(|u| u.requests).sum();
            assert_eq!(per_url, a.joined, "{name}");
        }
        let per_bot: u64 = c.bots.iter().map(|b| b.requests).sum();
        assert_eq!(per_bot, a.verified, "{name}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Past the cap of distinct URLs, verified requests for new URLs are
/// counted as capped, per bot and in all: nothing is lost unseen.
#[test]
fn urls_past_the_cap_are_counted_as_capped() {
    let dir = tempdir("cap");
    let store = dir.join("crawl.db");
    write_store(&store);
    let log = dir.join("access.log");
    std::fs::write(&log, log_text()).expect("the log");
    let (registry, problems) = RegistryBuilder::with_defaults().build();
    let registry = Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")));
    let classifier = Arc::new(Classifier::for_registry(&registry).expect("a classifier"));
    let verifier =
        Arc::new(Verifier::new(registry, VerifierConfig::offline()).expect("a verifier"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let options = AnalyzeOptions {
        crawl: Some(Arc::new(CrawlSite::open(&store).expect("the crawl"))),
        join_urls: 3,
        threads: 1,
        ..AnalyzeOptions::default()
    };
    let analysis = Analyzer::new(classifier, verifier, runtime.handle().clone())
        .run(vec![Input::Path(log)], options);
    let c = analysis.report.crawl.expect("the join");
    let a = &c.accounting;
    // Three URLs are counted (which three depends on when each pair's
    // verdict came); every other verified request is capped, none lost.
    assert_eq!(a.distinct_urls, 3);
    assert_eq!(c.top_urls.len(), 3);
    let joined: u64 = c.top_urls.iter().map(|u| u.requests).sum();
    assert_eq!(joined, a.joined);
    assert_eq!(a.joined + a.capped, 12);
    // The three busiest URLs have 3 + 2 + 2 requests: at least 5 capped.
    assert!(a.capped >= 5, "{a:?}");
    assert_eq!(a.verified, a.joined + a.other_host + a.no_url + a.capped);
    let capped: u64 = c
        .bots
        .iter()
        .map(|b| b.requests - b.requests_in_crawl - b.requests_not_in_crawl)
        .sum();
    assert_eq!(capped, a.capped);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--robots` in place of the crawl's copy: a file that disallows
/// nothing leaves no disallowed request, and says where it came from.
#[test]
fn a_given_robots_txt_replaces_the_crawls_copy() {
    let dir = tempdir("given");
    let store_path = dir.join("crawl.db");
    write_store(&store_path);
    let mut site = CrawlSite::load(&Store::open(&store_path).expect("store")).expect("crawl");
    site.set_robots("robots-open.txt", b"User-agent: *\nAllow: /\n");
    let usage = site.usage_policy().expect("a policy");
    assert_eq!(usage.name, "robots-open.txt");
    let _ = std::fs::remove_dir_all(&dir);
}
