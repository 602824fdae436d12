//! How long the store takes to write a crawl shaped like the benchmark
//! site's (each page 30 links: two tree children and 28 pseudo-random
//! pages, anchors `page N`; pages fetched in the order they were found),
//! without any network:
//! `cargo run --release -p botwarden-store --example store_speed [PAGES]`.

#![allow(clippy::print_stdout)]

use std::time::Instant;

use botwarden_store::{Batch, LinkKind, LinkRecord, NewUrl, PageRecord, Store, UrlState};
use botwarden_testdata::Xorshift;

fn main() {
    let pages: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let dir = std::env::temp_dir().join(format!("store-speed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("s.db");
    let mut store = Store::create(&path).expect("store");
    store.defer_indexes().expect("defer");
    let start = Instant::now();
    // URL ids in discovery order; each page's URL known before it is fetched.
    let mut id_of = vec![0u64; usize::try_from(pages).expect("pages")];
    let mut next_id = 1u64;
    let mut seed = Batch::default();
    id_of[0] = next_id;
    seed.new_urls.push(new_url(0, next_id));
    next_id += 1;
    store.write(&seed).expect("seed");
    let mut rng = Xorshift::new(Xorshift::SEED);
    let mut batch = Batch::default();
    // Pages are fetched in discovery order, as the crawler's queue does.
    let mut queue = std::collections::VecDeque::from([0u64]);
    while let Some(i) = queue.pop_front() {
        let source = id_of[usize::try_from(i).expect("i")];
        batch.states.push((source, UrlState::Fetched, None));
        batch.pages.push(PageRecord {
            url_id: source,
            fetched_at: "2026-11-24T05:00:00Z".to_owned(),
            status: Some(200),
            elapsed_ms: 1.5,
            ttfb_ms: Some(0.8),
            bytes: 16_981,
            content_type: Some("text/html".to_owned()),
            charset: Some("utf-8".to_owned()),
            content_hash: Some(format!("{i:064x}")),
            title: Some(format!("Page {i}")),
            simhash: Some(rng.last()),
            ..PageRecord::default()
        });
        let mut targets = vec![2 * i + 1, 2 * i + 2];
        targets.retain(|c| *c < pages);
        while targets.len() < 30 {
            targets.push(rng.next_u64() % pages);
        }
        for (position, t) in targets.into_iter().enumerate() {
            let slot = &mut id_of[usize::try_from(t).expect("t")];
            if *slot == 0 {
                *slot = next_id;
                next_id += 1;
                batch.new_urls.push(new_url(t, *slot));
                queue.push_back(t);
            }
            batch.links.push(LinkRecord {
                source,
                target: Some(*slot),
                target_text: None,
                kind: LinkKind::A,
                anchor: Some(format!("page {t}")),
                rel: None,
                followed: true,
                position: u32::try_from(position).expect("position"),
                same_page: false,
            });
        }
        if batch.pages.len() == 80 {
            store.write(&batch).expect("write");
            batch = Batch::default();
        }
    }
    store.write(&batch).expect("write");
    let written = start.elapsed();
    store.build_indexes().expect("indexes");
    let total = start.elapsed();
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)
        + std::fs::metadata(dir.join("s.db-wal"))
            .map(|m| m.len())
            .unwrap_or(0);
    println!(
        "{pages} pages, {} links: writes {:.2} s, indexes {:.2} s, total {:.2} s, {} MB",
        pages * 30,
        written.as_secs_f64(),
        (total - written).as_secs_f64(),
        total.as_secs_f64(),
        size >> 20
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

fn new_url(page: u64, id: u64) -> NewUrl {
    NewUrl {
        id,
        url: format!("http://127.0.0.1:18999/p/{page}.html"),
        depth: 1,
        found_by: "link",
        state: UrlState::Queued,
        skip: None,
    }
}
