//! The report's section of a log joined with a crawl (`--crawl`):
//! `crates/logs/docs/join.md` documents every field.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// What verified bots did on the crawl's URLs ([`Report::crawl`](crate::Report::crawl)).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CrawlJoin {
    /// The crawl store, as given.
    pub store: String,
    /// The crawl's origins, the start URL's first.
    pub origins: Vec<String>,
    /// The robots.txt read for each origin, and where it came from.
    pub robots: Vec<RobotsCopy>,
    /// URLs of the crawl on its origins (every state).
    pub urls: u64,
    /// Of those, pages: `200` with an HTML body read.
    pub pages: u64,
    /// Every registered bot's request, accounted for.
    pub accounting: JoinAccounting,
    /// One row per registered bot with requests, most verified requests
    /// first.
    pub bots: Vec<JoinBot>,
    /// Verified bots' requests per category.
    pub categories: Vec<JoinCategory>,
    /// URLs verified bots requested, most requests first.
    pub top_urls: Vec<JoinUrl>,
    /// URLs left out of `top_urls`.
    pub top_urls_omitted: u64,
    /// Verified bots' requests per directory (the path's first segment).
    pub directories: Vec<JoinDirectory>,
    /// Pages of the crawl no verified search bot requested.
    pub never_crawled: NeverCrawled,
    /// URLs the crawl found to be waste (a redirect, an error,
    /// non-canonical, noindex) that verified bots requested, most
    /// requests first.
    pub waste_urls: Vec<WastedUrl>,
    /// Such URLs left out of `waste_urls`.
    pub waste_urls_omitted: u64,
    /// Every URL whose status to a verified bot changed in the period
    /// (as in `top_urls`' rows, for any URL), the latest change first.
    pub status_changes: Vec<UrlChange>,
    /// Such changes left out of `status_changes`.
    pub status_changes_omitted: u64,
    /// URLs verified bots requested that the crawl did not find.
    pub orphans: Orphans,
    /// Verified search bots' requests for the crawl's pages by link
    /// depth.
    pub depths: Vec<ScaleRow>,
    /// The same by link score, in five bands of equal pages.
    pub scores: Vec<ScaleRow>,
}

/// The robots.txt a join read for an origin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsCopy {
    /// The origin.
    pub origin: String,
    /// `crawl` (the crawl's copy), `given` (`--robots`), `none` (the
    /// crawl recorded none: nothing disallowed) or `history` (a dated
    /// copy of `--robots-history`, for every origin, `origin` `*`).
    pub source: String,
    /// The file or URL given; for the crawl's copy, when it was fetched.
    pub name: String,
    /// For the crawl's copy, its availability (`parse`, `full-allow`,
    /// `full-disallow`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability: Option<String>,
    /// For a dated copy, the day from which it is in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// Registered bots' requests as the join counts them:
/// `requests = verified + spoofed + unconfirmed` and
/// `verified = joined + other_host + no_url + capped`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinAccounting {
    /// Requests of registered bots.
    pub requests: u64,
    /// Verified ones.
    pub verified: u64,
    /// Spoofed ones: shown apart, never counted as the bot's.
    pub spoofed: u64,
    /// Unknown or unverifiable ones: not counted per URL.
    pub unconfirmed: u64,
    /// Verified requests counted per URL.
    pub joined: u64,
    /// Verified requests for a host that is no origin of the crawl.
    pub other_host: u64,
    /// Verified requests without a path of the origin.
    pub no_url: u64,
    /// Verified requests for URLs past the cap of distinct URLs.
    pub capped: u64,
    /// Distinct URLs counted.
    pub distinct_urls: u64,
    /// Request times past the cap kept for `Crawl-delay` spacing.
    pub times_capped: u64,
}

/// One registered bot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JoinBot {
    /// Its registry name.
    pub bot: String,
    /// Its category.
    pub category: Option<String>,
    /// The robots.txt profile it is read with.
    pub profile: String,
    /// Verified requests.
    pub requests: u64,
    /// Distinct URLs of the crawl's origins requested.
    pub urls: u64,
    /// Verified requests for URLs the crawl found.
    pub requests_in_crawl: u64,
    /// Distinct such URLs.
    pub urls_in_crawl: u64,
    /// Verified requests for URLs the crawl did not find (`/robots.txt`
    /// aside: `robots_fetches`).
    pub requests_not_in_crawl: u64,
    /// URLs whose status to this bot changed in the period.
    pub status_changes: u64,
    /// Verified requests spent on URLs the crawl found to be waste.
    pub waste: Waste,
    /// Verified requests robots.txt disallowed to it.
    pub disallowed: u64,
    /// Distinct such URLs.
    pub disallowed_urls: u64,
    /// The first such URLs, most requests first.
    pub disallowed_examples: Vec<String>,
    /// Its addresses that requested a disallowed URL.
    pub disallowed_ips: u64,
    /// Its verified requests for the origins' `/robots.txt`: a bot that
    /// requested disallowed URLs without ever fetching robots.txt in the
    /// period did not read it (or read it before).
    pub robots_fetches: u64,
    /// Its spacing against a `Crawl-delay`, per origin whose group for
    /// it has one.
    pub crawl_delay: Vec<DelayKept>,
    /// Spoofed requests claiming it.
    pub spoofed: u64,
    /// Of those, requests robots.txt disallowed to it.
    pub spoofed_disallowed: u64,
    /// Requests neither verified nor spoofed.
    pub unconfirmed: u64,
}

/// Requests for URLs the crawl found to be waste (a URL may be in more
/// than one kind).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waste {
    /// URLs that answered the crawl with a redirect.
    pub redirect: u64,
    /// URLs that answered the crawl with 4xx or 5xx, or not at all.
    pub error: u64,
    /// Pages naming another URL as canonical.
    pub non_canonical: u64,
    /// Pages marked `noindex`.
    pub noindex: u64,
}

/// A URL whose status to a verified bot changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlChange {
    /// The URL.
    pub url: String,
    /// The bot.
    pub bot: String,
    /// Its requests for the URL.
    pub requests: u64,
    /// The status of its last request.
    pub last_status: u16,
    /// The change.
    pub change: StatusChange,
}

/// A URL of the crawl that is waste, and the verified requests spent on
/// it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WastedUrl {
    /// The URL.
    pub url: String,
    /// What makes it waste: `redirect`, `error`, `non-canonical`,
    /// `noindex`.
    pub kinds: Vec<String>,
    /// The status it answered the crawl with.
    pub crawl_status: Option<u16>,
    /// Verified requests.
    pub requests: u64,
    /// The bots, most requests first.
    pub bots: Vec<String>,
}

/// A bot's spacing on one origin against its group's `Crawl-delay`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DelayKept {
    /// The origin.
    pub origin: String,
    /// The copy of robots.txt whose group asked it: `crawl`, the file
    /// given with `--robots`, or a dated copy's file name.
    pub robots: String,
    /// The `Crawl-delay`, in seconds.
    pub delay: f64,
    /// Gaps between consecutive verified requests (requests − 1).
    pub gaps: u64,
    /// Gaps of at least the delay (whole seconds: the delay rounded
    /// down).
    pub kept: u64,
    /// The shortest gap, in seconds.
    pub min: Option<u64>,
    /// The median gap, in seconds.
    pub median: Option<u64>,
    /// At least 95 % of gaps kept the delay.
    pub keeps: bool,
}

/// Verified requests of one category.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinCategory {
    /// `search`, `ai-search`, `ai-user`, `ai-training` or `other`.
    pub category: String,
    /// Its bots with verified requests.
    pub bots: u64,
    /// Verified requests.
    pub requests: u64,
    /// Distinct URLs requested.
    pub urls: u64,
    /// Requests robots.txt disallowed.
    pub disallowed: u64,
    /// Requests on waste, of any kind.
    pub waste: u64,
}

/// One URL verified bots requested.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JoinUrl {
    /// The URL, in normal form.
    pub url: String,
    /// Whether the crawl found it.
    pub in_crawl: bool,
    /// Its depth in the crawl.
    pub depth: Option<u32>,
    /// Its link score.
    pub link_score: Option<f64>,
    /// The status it answered the crawl with.
    pub crawl_status: Option<u16>,
    /// Verified requests.
    pub requests: u64,
    /// Per bot, most requests first.
    pub bots: Vec<UrlBotRow>,
    /// The same summed per bot category (`search`, `ai-search`,
    /// `ai-user`, `ai-training`, `other`; `bot` names the category), in
    /// that order: a category's status changes when its bots' statuses
    /// taken together changed; `disallowed` when robots.txt disallowed the
    /// URL to any of them.
    pub categories: Vec<UrlBotRow>,
}

/// One verified bot's requests for one URL.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UrlBotRow {
    /// The bot.
    pub bot: String,
    /// Requests.
    pub requests: u64,
    /// Response bytes.
    pub bytes: u64,
    /// Its last request.
    pub last_seen: Option<Timestamp>,
    /// Requests per UTC day (`2026-11-20`).
    pub days: BTreeMap<String, u64>,
    /// Requests per status code (`0`: none logged).
    pub statuses: BTreeMap<u16, u64>,
    /// The status of its last request.
    pub last_status: u16,
    /// When the status changed, what it was before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_change: Option<StatusChange>,
    /// robots.txt disallowed the URL to it.
    pub disallowed: bool,
}

/// A URL whose status to a bot changed: it answered `from` until
/// `until`, and `to` since `since`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusChange {
    /// The earlier status.
    pub from: u16,
    /// Its last request.
    pub until: Option<Timestamp>,
    /// The status now.
    pub to: u16,
    /// Its first request.
    pub since: Option<Timestamp>,
}

/// Verified requests under one directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinDirectory {
    /// The origin and first path segment (`https://example.com/blog/`),
    /// or the origin's root for files at the top.
    pub directory: String,
    /// Verified requests.
    pub requests: u64,
    /// Distinct URLs requested.
    pub urls: u64,
    /// Pages of the crawl under it.
    pub pages: u64,
    /// Of those, pages a verified search bot requested.
    pub pages_requested: u64,
    /// Verified requests per category.
    pub categories: BTreeMap<String, u64>,
}

/// Pages of the crawl no verified search bot requested in the period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NeverCrawled {
    /// Pages of the crawl.
    pub pages: u64,
    /// Those a verified search bot requested.
    pub requested: u64,
    /// Those none did.
    pub not_requested: u64,
    /// The first of them, highest link score first.
    pub list: Vec<CrawlPage>,
}

/// A page of the crawl.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CrawlPage {
    /// The URL.
    pub url: String,
    /// Its depth.
    pub depth: u32,
    /// Its link score.
    pub link_score: Option<f64>,
}

/// URLs verified bots requested that the crawl did not find.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Orphans {
    /// Distinct such URLs.
    pub urls: u64,
    /// Verified requests for them.
    pub requests: u64,
    /// Per kind (`parameter`, `gone`, `redirect`, `orphan`), distinct URLs.
    pub kinds: BTreeMap<String, u64>,
    /// The first of them, most requests first.
    pub list: Vec<Orphan>,
}

/// A URL verified bots requested that the crawl did not find.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Orphan {
    /// The URL.
    pub url: String,
    /// `parameter` (its URL without the query is in the crawl), `gone`
    /// (its last status was 404 or 410), `redirect` (3xx), or `orphan`.
    pub kind: String,
    /// Verified requests.
    pub requests: u64,
    /// The bots, most requests first.
    pub bots: Vec<String>,
    /// The status of its last request.
    pub last_status: u16,
}

/// Verified search bots' requests for the crawl's pages in one band of
/// link depth or link score.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScaleRow {
    /// The band: a depth (`3`), or a score range (`1.20–3.45`).
    pub band: String,
    /// Pages in it.
    pub pages: u64,
    /// Those a verified search bot requested.
    pub requested: u64,
    /// Verified search bots' requests for them.
    pub requests: u64,
}
