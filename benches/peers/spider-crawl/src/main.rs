//! Crawl one site with the `spider` crate and print the URLs it fetched, one
//! per line, on standard output; the count and the wall time on standard
//! error.
//!
//! Usage: spider-crawl URL CONCURRENCY LIMIT

use std::time::Instant;

use spider::website::Website;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, url, concurrency, limit] = args.as_slice() else {
        eprintln!("usage: spider-crawl URL CONCURRENCY LIMIT");
        std::process::exit(2);
    };
    let concurrency: usize = concurrency.parse().expect("CONCURRENCY is a number");
    let limit: u32 = limit.parse().expect("LIMIT is a number");
    let mut website = Website::new(url);
    website
        .with_respect_robots_txt(true)
        .with_concurrency_limit(Some(concurrency))
        .with_limit(limit)
        .with_depth(0);
    let start = Instant::now();
    website.crawl().await;
    let elapsed = start.elapsed();
    let links = website.get_links();
    let mut out = String::new();
    for link in links.iter() {
        out.push_str(link.as_ref());
        out.push('\n');
    }
    print!("{out}");
    eprintln!("spider: {} URLs in {:.2} s", links.len(), elapsed.as_secs_f64());
}
