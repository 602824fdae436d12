//! The report's data model.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The schema version of [`Report`].
pub const REPORT_SCHEMA: u32 = 1;

/// Everything one analysis found: what `botwarden logs analyze --report
/// json` prints (the model serialized with `serde_json`; its shape is
/// documented in `crates/logs/docs/report.md`).
///
/// The shape is stable within a `schema` version: fields may be added,
/// none is renamed or removed without raising it. Times are
/// [`jiff::Timestamp`]s, written as RFC 3339 in UTC; counts are requests
/// unless named otherwise.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`REPORT_SCHEMA`].
    pub schema: u32,
    /// When the report was made (RFC 3339, UTC).
    pub generated: Timestamp,
    /// Whether addresses were verified with DNS (`false` under `--no-dns`:
    /// published ranges and address lists only).
    pub dns: bool,
    /// One entry per input, in the order given.
    pub inputs: Vec<InputSummary>,
    /// Line accounting over all inputs.
    pub lines: LineCounts,
    /// Up to a few bad lines per reason, with where they are.
    pub samples: Vec<BadLine>,
    /// The first and last request time seen.
    pub period: Option<Period>,
    /// Published range lists of the bots claimed in the log that are newer
    /// than its first request (by more than the verifier's grace, a week by
    /// default): older requests outside them are `unknown` rather than
    /// `spoofed`, as the lists may have changed since.
    #[serde(default)]
    pub newer_feeds: Vec<NewerFeed>,
    /// Totals over all parsed requests.
    pub totals: Totals,
    /// Requests per verdict kind (`verified`, `spoofed`, `unknown`,
    /// `unverifiable`, `not-a-bot`).
    pub verdicts: BTreeMap<String, VerdictCount>,
    /// One row per bot and verdict, most requests first.
    pub bots: Vec<BotRow>,
    /// Addresses that claimed a registered bot and failed its verification,
    /// most requests first.
    pub spoofed: Vec<SpoofedIp>,
    /// Spoofed addresses left out of [`Report::spoofed`] (past the
    /// analysis's `max_listed`); the exports list them all.
    #[serde(default)]
    pub spoofed_omitted: u64,
    /// Clients the log names by host name instead of address that claimed
    /// a bot, most requests first: unverifiable, with the reason.
    #[serde(default)]
    pub host_names: Vec<NamedClient>,
    /// Such clients left out of [`Report::host_names`].
    #[serde(default)]
    pub host_names_omitted: u64,
    /// Crawlers that are not in the registry (named by their User-Agent
    /// family), most requests first.
    pub unknown_crawlers: Vec<UnknownCrawler>,
    /// Requests over time per bot.
    pub timeline: Timeline,
    /// Requests per HTTP status code, over all requests.
    pub status_codes: BTreeMap<u16, u64>,
    /// Verification work done.
    pub verification: VerificationStats,
    /// The robots.txt whose usage preferences requests were measured
    /// against, if any (`BotRow::usage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_policy: Option<String>,
    /// With `--crawl`, what verified bots did on the crawl's URLs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crawl: Option<super::CrawlJoin>,
}

/// One input file (or standard input).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InputSummary {
    /// The path as given, or `-` for standard input.
    pub name: String,
    /// The format its lines were read with (a preset name or the format
    /// string).
    pub format: String,
    /// Whether it was gzip-compressed.
    pub gzip: bool,
    /// Its line counts.
    pub lines: LineCounts,
    /// Why reading stopped early, if it did (the lines before still count).
    pub error: Option<String>,
}

/// How lines were accounted for: `read == parsed + skipped + failed`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineCounts {
    /// Lines read.
    pub read: u64,
    /// Lines that gave a request.
    pub parsed: u64,
    /// Lines that are not requests by design (blank lines, comments).
    pub skipped: u64,
    /// Lines that did not match the format.
    pub failed: u64,
    /// Skipped lines per reason.
    pub skip_reasons: BTreeMap<String, u64>,
    /// Failed lines per reason.
    pub fail_reasons: BTreeMap<String, u64>,
    /// Parsed lines that were cut short (they end inside a quoted field,
    /// the request or a later one): requests whose missing fields are
    /// unknown. Counted in `parsed` too.
    #[serde(default)]
    pub truncated: u64,
}

/// A line that was skipped or failed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BadLine {
    /// The input's name.
    pub file: String,
    /// The 1-based line number.
    pub line: u64,
    /// The 1-based column (in bytes) where parsing stopped, if known.
    pub column: Option<u32>,
    /// The reason, as counted in [`LineCounts`].
    pub reason: String,
    /// The line, cut to 300 bytes, invalid UTF-8 replaced.
    pub text: String,
}

/// A time span (RFC 3339, UTC).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Period {
    /// The earliest request time.
    pub first: Timestamp,
    /// The latest request time.
    pub last: Timestamp,
}

/// Totals over all parsed requests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Requests.
    pub requests: u64,
    /// Response bytes.
    pub bytes: u64,
    /// Distinct clients: addresses, and host names where the log gives
    /// names instead.
    pub ips: u64,
    /// Requests whose User-Agent is a bot or crawler.
    pub bot_requests: u64,
    /// Distinct User-Agents.
    pub user_agents: u64,
    /// Distinct clients the log names by host name instead of address
    /// (Apache's `HostnameLookups On`); included in `ips`.
    #[serde(default)]
    pub host_names: u64,
    /// Requests from those clients.
    #[serde(default)]
    pub host_name_requests: u64,
    /// Requests whose client the log does not give (a W3C log's `c-ip`
    /// written `-`); not in `ips`.
    #[serde(default)]
    pub requests_without_client: u64,
}

/// Requests and clients of one verdict kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictCount {
    /// Requests.
    pub requests: u64,
    /// Distinct clients (addresses, or host names).
    pub ips: u64,
}

/// Status codes grouped by class.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusClasses {
    /// 1xx and 2xx.
    pub ok: u64,
    /// 3xx.
    pub redirect: u64,
    /// 4xx.
    pub client_error: u64,
    /// 5xx.
    pub server_error: u64,
    /// No status, or one outside 100–599.
    pub other: u64,
}

/// One bot under one verdict.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotRow {
    /// The bot's registry name, or its User-Agent family when it is not
    /// registered.
    pub bot: String,
    /// Its category (`search`, `ai-training`, …, or `crawler`, `library`
    /// or `scanner` when it is not registered).
    pub category: Option<String>,
    /// The verdict kind.
    pub verdict: String,
    /// Requests.
    pub requests: u64,
    /// Distinct clients (addresses, or host names).
    pub ips: u64,
    /// Response bytes.
    pub bytes: u64,
    /// Status classes.
    pub status: StatusClasses,
    /// First request seen (RFC 3339, UTC).
    pub first_seen: Option<Timestamp>,
    /// Last request seen (RFC 3339, UTC).
    pub last_seen: Option<Timestamp>,
    /// Its requests for `/robots.txt`.
    pub robots_txt: RobotsFetches,
    /// The paths it requested most, most first.
    pub top_paths: Vec<PathCount>,
    /// Its requests against the usage preferences of the robots.txt the
    /// run was given (`Report::usage_policy`), for a crawler whose
    /// category uses content for AI training, AI input or search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageCounts>,
}

/// A crawler's requests against a site's usage preferences.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageCounts {
    /// The use its category stands for: `train-ai`, `ai-input`, `search`.
    pub purpose: String,
    /// Requests asked (every request with a path).
    pub requests: u64,
    /// Requests for paths whose preferences refuse that use, read by group
    /// (aipref-attach; paths the crawler may not fetch have none).
    pub refused: u64,
    /// The same with every `Content-Signal` read for every robot
    /// (crawler-commons).
    pub refused_file_wide: u64,
}

/// Requests for `/robots.txt`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsFetches {
    /// Requests.
    pub requests: u64,
    /// Requests per status code.
    pub status: BTreeMap<u16, u64>,
}

/// A path and how often it was requested.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathCount {
    /// The path, query included, as logged.
    pub path: String,
    /// Requests (a lower bound when `approximate`).
    pub requests: u64,
    /// Whether the count may be low: paths are counted in bounded memory,
    /// and a path first seen late may have lost earlier requests.
    pub approximate: bool,
}

/// An address that claimed a bot and failed its verification.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpoofedIp {
    /// The address.
    pub ip: String,
    /// The bot it claimed.
    pub claimed: String,
    /// Why verification failed.
    pub reason: String,
    /// Requests.
    pub requests: u64,
    /// First request seen (RFC 3339, UTC).
    pub first_seen: Option<Timestamp>,
    /// Last request seen (RFC 3339, UTC).
    pub last_seen: Option<Timestamp>,
    /// One of the User-Agents it sent.
    pub user_agent: String,
}

/// A client named by host name that claimed a bot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedClient {
    /// The host name, as logged.
    pub name: String,
    /// The bot it claimed.
    pub claimed: String,
    /// Why it cannot be verified.
    pub reason: String,
    /// Requests.
    pub requests: u64,
    /// First request seen (RFC 3339, UTC).
    pub first_seen: Option<Timestamp>,
    /// Last request seen (RFC 3339, UTC).
    pub last_seen: Option<Timestamp>,
    /// One of the User-Agents it sent.
    pub user_agent: String,
}

/// A published range list newer than the log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewerFeed {
    /// The list's URL.
    pub url: String,
    /// Its version: its creation time, else when it was fetched.
    pub version: String,
    /// The bots claimed in the log that it verifies.
    pub bots: Vec<String>,
}

/// A crawler that is not in the registry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownCrawler {
    /// Its User-Agent family.
    pub name: String,
    /// Requests.
    pub requests: u64,
    /// Distinct addresses.
    pub ips: u64,
    /// One of its User-Agents.
    pub user_agent: String,
}

/// Requests over time, in fixed buckets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeline {
    /// The first bucket's start (RFC 3339, UTC); `None` when no request had
    /// a time.
    pub start: Option<Timestamp>,
    /// The bucket width in seconds (chosen so that the period fits in at
    /// most 200 buckets: 1 minute, 5, 15, 1 hour, 6, 1 day, 1 week).
    pub bucket_seconds: u64,
    /// One series per bot and verdict (the same rows as
    /// [`Report::bots`]), plus `humans` for requests that are not bots.
    pub series: Vec<Series>,
}

/// One line of the timeline.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Series {
    /// The bot (or `humans`).
    pub bot: String,
    /// The verdict kind.
    pub verdict: String,
    /// Requests per bucket, from [`Timeline::start`].
    pub counts: Vec<u64>,
}

/// Verification work.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VerificationStats {
    /// Distinct (address, claimed bot) pairs verified.
    pub pairs: u64,
    /// DNS lookups sent (PTR and forward).
    pub dns_lookups: u64,
    /// Seconds spent waiting for verification after the last line was read.
    pub wait_seconds: f64,
    /// Lines whose Web Bot Auth signature was checked (logs that record
    /// the signature fields); absent when none was.
    #[serde(default, skip_serializing_if = "SignedLines::is_empty")]
    pub web_bot_auth: SignedLines,
}

/// Signed requests in a log (Web Bot Auth), checked line by line at each
/// line's time. Requests counted here as `verified`, `spoofed` or
/// `unknown` got that verdict from their signature (method
/// `web_bot_auth`), whatever their address.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedLines {
    /// Lines claiming a bot that carry signature fields.
    pub signed: u64,
    /// Verified by their signature.
    pub verified: u64,
    /// Spoofed by their signature (invalid, or another bot's key).
    pub spoofed: u64,
    /// Unknown: the agent's keys were not at hand.
    pub unknown: u64,
    /// Signed, but the signature said nothing of the claim (an agent the
    /// registry does not know, for a bot without signature methods): the
    /// address decided.
    pub address_decided: u64,
    /// Not checked: the line has no time to check it at (the address
    /// decided).
    pub without_time: u64,
    /// Invalid signatures by failure (`bad_signature`, `expired`, …).
    pub failures: BTreeMap<String, u64>,
}

impl SignedLines {
    /// Whether no signed line was seen.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.signed == 0
    }

    pub(crate) fn merge(&mut self, other: &SignedLines) {
        self.signed += other.signed;
        self.verified += other.verified;
        self.spoofed += other.spoofed;
        self.unknown += other.unknown;
        self.address_decided += other.address_decided;
        self.without_time += other.without_time;
        for (k, v) in &other.failures {
            *self.failures.entry(k.clone()).or_default() += v;
        }
    }
}
