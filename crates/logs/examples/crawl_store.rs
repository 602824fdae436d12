//! Writes a crawl store to join a log with (`logs analyze --crawl`), for
//! the benchmark of `scripts/bench-logs-join`: the distinct paths of the
//! log (queries left off, so that the log's query variants are URLs the
//! crawl did not find) as pages of `https://www.example.com`, then
//! generated pages `/p/N.html` up to PAGES; each page links to two tree
//! children and 28 pseudo-random pages (as the crawl store's own
//! benchmark does), a robots.txt disallows `/p/1` and asks bingbot for a
//! 10 s `Crawl-delay`, one page in 50 is `noindex`, one in 40 names
//! another page canonical, and one in 30 redirects.
//!
//! `cargo run --release -p botwarden-logs --example crawl_store LOG STORE [PAGES]`

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::HashSet;
use std::io::BufRead;
use std::path::PathBuf;
use std::time::Instant;

use botwarden_logs::LogFormat;
use botwarden_store::{
    Batch, LinkKind, LinkRecord, NewUrl, PageRecord, RobotsFileRecord, Store, UrlState,
    normalize_text,
};
use botwarden_testdata::Xorshift;
use url::Url;

const ORIGIN: &str = "https://www.example.com";

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(log), Some(store)) = (args.next(), args.next()) else {
        eprintln!("usage: crawl_store LOG STORE [PAGES]");
        std::process::exit(2);
    };
    let pages: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let start = Instant::now();
    let base = Url::parse(&format!("{ORIGIN}/")).expect("the origin");
    let format = LogFormat::from_spec("combined").expect("combined");
    let mut urls: Vec<String> = Vec::with_capacity(pages);
    let mut seen: HashSet<String> = HashSet::new();
    let mut text = String::new();
    let file = std::fs::File::open(&log).expect("the log");
    for line in std::io::BufReader::new(file).lines() {
        let Ok(line) = line else { continue };
        let Ok(record) = format.parse(&line) else {
            continue;
        };
        let Some(path) = record.path else { continue };
        let path = path.split('?').next().unwrap_or(path);
        if !path.starts_with('/') || normalize_text(&base, path, &mut text).is_err() {
            continue;
        }
        if urls.len() < pages && seen.insert(text.clone()) {
            urls.push(text.clone());
        }
    }
    let from_log = urls.len();
    let mut i = 0;
    while urls.len() < pages {
        let url = format!("{ORIGIN}/p/{i}.html");
        i += 1;
        if seen.insert(url.clone()) {
            urls.push(url);
        }
    }
    let path = PathBuf::from(&store);
    let _ = std::fs::remove_file(&path);
    let mut store = Store::create(&path).expect("the store");
    store.defer_indexes().expect("defer");
    let mut batch = Batch::default();
    batch.meta.push(("seed".to_owned(), format!("{ORIGIN}/")));
    batch.robots_files.push(RobotsFileRecord {
        origin: ORIGIN.to_owned(),
        fetched_at: "2026-01-01T00:00:00Z".to_owned(),
        status: Some(200),
        availability: "parse".to_owned(),
        error: None,
        body: Some(
            b"User-agent: *\nDisallow: /p/1\n\nUser-agent: bingbot\nCrawl-delay: 10\nDisallow: /p/1\n"
                .to_vec(),
        ),
        source: "site",
        redirects: 0,
        truncated: false,
    });
    let mut rng = Xorshift::new(Xorshift::SEED);
    let n = urls.len() as u64;
    for (i, url) in urls.iter().enumerate() {
        let id = i as u64 + 1;
        batch.new_urls.push(NewUrl {
            id,
            url: url.clone(),
            depth: u64::BITS - (i as u64 + 1).leading_zeros(),
            found_by: if i == 0 { "seed" } else { "link" },
            state: UrlState::Fetched,
            skip: None,
        });
        let redirect = i % 30 == 29;
        batch.pages.push(PageRecord {
            url_id: id,
            fetched_at: "2026-01-01T00:00:00Z".to_owned(),
            status: Some(if redirect { 301 } else { 200 }),
            bytes: 16_981,
            content_type: Some("text/html".to_owned()),
            body_read: !redirect,
            noindex: (i % 50 == 49).then(|| "<meta name=\"robots\">".to_owned()),
            canonical: (i % 40 == 39).then(|| urls[0].clone()),
            location: redirect.then(|| urls[0].clone()),
            ..PageRecord::default()
        });
        let mut targets = vec![2 * i as u64 + 1, 2 * i as u64 + 2];
        targets.retain(|c| *c < n);
        while targets.len() < 30 {
            targets.push(rng.next_u64() % n);
        }
        for (position, t) in targets.into_iter().enumerate() {
            batch.links.push(LinkRecord {
                source: id,
                target: Some(t + 1),
                target_text: None,
                kind: LinkKind::A,
                anchor: None,
                rel: None,
                followed: true,
                position: u32::try_from(position).expect("position"),
                same_page: false,
            });
        }
        if batch.pages.len() == 500 {
            store.write(&batch).expect("write");
            batch = Batch::default();
        }
    }
    store.write(&batch).expect("write");
    store.build_indexes().expect("indexes");
    println!(
        "{}: {} pages ({from_log} paths of the log), {} links, in {:.1} s",
        path.display(),
        urls.len(),
        urls.len() * 30,
        start.elapsed().as_secs_f64()
    );
}
