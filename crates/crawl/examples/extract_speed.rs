//! How long `html::extract` takes on one page of the crawl benchmark's
//! site: `cargo run --release -p botwarden-crawl --example extract_speed
//! [FILE] [ROUNDS]` (FILE defaults to a page shaped like the bench site's).

#![allow(clippy::print_stdout)]

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let body = match args.get(1) {
        Some(path) => std::fs::read(path).expect("read the page"),
        None => std::fs::read("target/bench-crawl/site-100000/p/7.html").expect("bench page"),
    };
    let rounds: u32 = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(20_000);
    let mut links = 0;
    let start = Instant::now();
    for _ in 0..rounds {
        let facts = botwarden_crawl::extract_html(&body, Some("utf-8")).expect("extract");
        links += facts.links.len();
    }
    let per = start.elapsed() / rounds;
    println!(
        "{} bytes, {links} links over {rounds} rounds: {per:?} per page",
        body.len()
    );
}
