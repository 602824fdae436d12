//! The join with a crawl as CSV files (`logs analyze --crawl-csv DIR`):
//! one file per table of [`CrawlJoin`], RFC 4180, formulas defused (the
//! audit's cells, `botwarden_audit::csv_row`).

use std::path::{Path, PathBuf};

use botwarden_audit::{CsvCell, csv_row};

use super::crawl::CrawlJoin;
use crate::error::Error;
use crate::export::write_atomic;

fn num<T: ToString + Copy>(n: T) -> CsvCell<'static> {
    CsvCell::Number(n.to_string())
}

fn opt<T: ToString>(n: Option<T>) -> CsvCell<'static> {
    CsvCell::Number(n.map(|v| v.to_string()).unwrap_or_default())
}

fn head(names: &[&'static str]) -> String {
    let cells: Vec<CsvCell<'_>> = names.iter().map(|n| CsvCell::Text(n)).collect();
    csv_row(&cells)
}

/// Writes the tables of `join` into `dir` (which must exist), each
/// atomically: `bots.csv`, `categories.csv`, `urls.csv` (a row per URL
/// and bot), `directories.csv`, `never-crawled.csv`, `orphans.csv`,
/// `status-changes.csv`, `waste.csv`, `bands.csv` (by depth and by link score) and
/// `crawl-delay.csv`.
/// Returns the files written.
///
/// # Errors
/// [`Error::Io`] naming the file that could not be written.
pub fn write_join_csv(join: &CrawlJoin, dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    let mut write = |name: &str, text: String| -> Result<(), Error> {
        let path = dir.join(name);
        write_atomic(&path, text.as_bytes())?;
        files.push(path);
        Ok(())
    };

    write("bots.csv", bots_csv(join))?;
    write("categories.csv", categories_csv(join))?;
    write("urls.csv", urls_csv(join))?;
    write("directories.csv", directories_csv(join))?;
    write("never-crawled.csv", never_crawled_csv(join))?;
    write("status-changes.csv", status_changes_csv(join))?;
    write("waste.csv", waste_csv(join))?;
    write("orphans.csv", orphans_csv(join))?;
    write("bands.csv", bands_csv(join))?;
    write("crawl-delay.csv", crawl_delay_csv(join))?;
    Ok(files)
}

/// `bots.csv` of the join.
fn bots_csv(join: &CrawlJoin) -> String {
    let mut t = head(&[
        "bot",
        "category",
        "profile",
        "verified",
        "urls",
        "requests_in_crawl",
        "urls_in_crawl",
        "requests_not_in_crawl",
        "status_changes",
        "on_redirects",
        "on_errors",
        "on_non_canonical",
        "on_noindex",
        "disallowed",
        "disallowed_urls",
        "disallowed_ips",
        "robots_fetches",
        "spoofed",
        "spoofed_disallowed",
        "unconfirmed",
    ]);
    for b in &join.bots {
        t.push_str(&csv_row(&[
            CsvCell::Text(&b.bot),
            CsvCell::Text(b.category.as_deref().unwrap_or("")),
            CsvCell::Text(&b.profile),
            num(b.requests),
            num(b.urls),
            num(b.requests_in_crawl),
            num(b.urls_in_crawl),
            num(b.requests_not_in_crawl),
            num(b.status_changes),
            num(b.waste.redirect),
            num(b.waste.error),
            num(b.waste.non_canonical),
            num(b.waste.noindex),
            num(b.disallowed),
            num(b.disallowed_urls),
            num(b.disallowed_ips),
            num(b.robots_fetches),
            num(b.spoofed),
            num(b.spoofed_disallowed),
            num(b.unconfirmed),
        ]));
    }
    t
}

/// `categories.csv` of the join.
fn categories_csv(join: &CrawlJoin) -> String {
    let mut t = head(&[
        "category",
        "bots",
        "requests",
        "urls",
        "disallowed",
        "on_waste",
    ]);
    for k in &join.categories {
        t.push_str(&csv_row(&[
            CsvCell::Text(&k.category),
            num(k.bots),
            num(k.requests),
            num(k.urls),
            num(k.disallowed),
            num(k.waste),
        ]));
    }
    t
}

/// `urls.csv` of the join.
fn urls_csv(join: &CrawlJoin) -> String {
    let mut t = head(&[
        "url",
        "in_crawl",
        "depth",
        "link_score",
        "crawl_status",
        "bot",
        "requests",
        "bytes",
        "last_seen",
        "days",
        "statuses",
        "last_status",
        "status_before",
        "status_until",
        "status_since",
        "disallowed",
    ]);
    for u in &join.top_urls {
        for b in &u.bots {
            let days: Vec<String> = b.days.iter().map(|(d, n)| format!("{d}:{n}")).collect();
            let statuses: Vec<String> =
                b.statuses.iter().map(|(c, n)| format!("{c}:{n}")).collect();
            let change = b.status_change.as_ref();
            t.push_str(&csv_row(&[
                CsvCell::Text(&u.url),
                num(u.in_crawl),
                opt(u.depth),
                opt(u.link_score.map(|s| format!("{s:.4}"))),
                opt(u.crawl_status),
                CsvCell::Text(&b.bot),
                num(b.requests),
                num(b.bytes),
                opt(b.last_seen),
                CsvCell::Text(&days.join(" ")),
                CsvCell::Text(&statuses.join(" ")),
                num(b.last_status),
                opt(change.map(|c| c.from)),
                opt(change.and_then(|c| c.until)),
                opt(change.and_then(|c| c.since)),
                num(b.disallowed),
            ]));
        }
    }
    t
}

/// `directories.csv` of the join.
fn directories_csv(join: &CrawlJoin) -> String {
    let mut t = head(&[
        "directory",
        "requests",
        "urls",
        "pages",
        "pages_requested",
        "search",
        "ai-search",
        "ai-user",
        "ai-training",
        "other",
    ]);
    for d in &join.directories {
        let cat = |k: &str| num(d.categories.get(k).copied().unwrap_or(0));
        t.push_str(&csv_row(&[
            CsvCell::Text(&d.directory),
            num(d.requests),
            num(d.urls),
            num(d.pages),
            num(d.pages_requested),
            cat("search"),
            cat("ai-search"),
            cat("ai-user"),
            cat("ai-training"),
            cat("other"),
        ]));
    }
    t
}

/// `never-crawled.csv` of the join.
fn never_crawled_csv(join: &CrawlJoin) -> String {
    let mut t = head(&["url", "depth", "link_score"]);
    for p in &join.never_crawled.list {
        t.push_str(&csv_row(&[
            CsvCell::Text(&p.url),
            num(p.depth),
            opt(p.link_score.map(|s| format!("{s:.4}"))),
        ]));
    }
    t
}

/// `status-changes.csv` of the join.
fn status_changes_csv(join: &CrawlJoin) -> String {
    let mut t = head(&[
        "url",
        "bot",
        "requests",
        "status_before",
        "until",
        "status_now",
        "since",
    ]);
    for u in &join.status_changes {
        t.push_str(&csv_row(&[
            CsvCell::Text(&u.url),
            CsvCell::Text(&u.bot),
            num(u.requests),
            num(u.change.from),
            opt(u.change.until),
            num(u.change.to),
            opt(u.change.since),
        ]));
    }
    t
}

/// `waste.csv` of the join.
fn waste_csv(join: &CrawlJoin) -> String {
    let mut t = head(&["url", "waste", "crawl_status", "requests", "bots"]);
    for w in &join.waste_urls {
        t.push_str(&csv_row(&[
            CsvCell::Text(&w.url),
            CsvCell::Text(&w.kinds.join(" ")),
            opt(w.crawl_status),
            num(w.requests),
            CsvCell::Text(&w.bots.join(" ")),
        ]));
    }
    t
}

/// `orphans.csv` of the join.
fn orphans_csv(join: &CrawlJoin) -> String {
    let mut t = head(&["url", "kind", "requests", "last_status", "bots"]);
    for o in &join.orphans.list {
        t.push_str(&csv_row(&[
            CsvCell::Text(&o.url),
            CsvCell::Text(&o.kind),
            num(o.requests),
            num(o.last_status),
            CsvCell::Text(&o.bots.join(" ")),
        ]));
    }
    t
}

/// `bands.csv` of the join.
fn bands_csv(join: &CrawlJoin) -> String {
    let mut t = head(&["by", "band", "pages", "requested", "requests"]);
    for (by, bands) in [("depth", &join.depths), ("link_score", &join.scores)] {
        for s in bands {
            t.push_str(&csv_row(&[
                CsvCell::Text(by),
                CsvCell::Text(&s.band),
                num(s.pages),
                num(s.requested),
                num(s.requests),
            ]));
        }
    }
    t
}

/// `crawl-delay.csv` of the join.
fn crawl_delay_csv(join: &CrawlJoin) -> String {
    let mut t = head(&[
        "bot", "origin", "robots", "delay", "gaps", "kept", "min", "median", "keeps",
    ]);
    for b in &join.bots {
        for d in &b.crawl_delay {
            t.push_str(&csv_row(&[
                CsvCell::Text(&b.bot),
                CsvCell::Text(&d.origin),
                CsvCell::Text(&d.robots),
                num(d.delay),
                num(d.gaps),
                num(d.kept),
                opt(d.min),
                opt(d.median),
                num(d.keeps),
            ]));
        }
    }
    t
}
