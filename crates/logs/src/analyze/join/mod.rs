//! A log joined with a crawl (`AnalyzeOptions::crawl`): what each
//! verified bot did on each URL of the crawl, what the crawl found that no
//! search bot asked for, and whether bots kept the site's robots.txt.
//! `crates/logs/docs/join.md` documents the choices.

mod collect;
mod report;
mod site;

pub use collect::{DELAY_TIMES, JOIN_URLS};
pub(crate) use collect::{Hit, JoinAgg, JoinCaps, JoinReader};
pub(crate) use report::report;
pub use site::CrawlSite;
