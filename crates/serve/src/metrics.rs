//! Prometheus metrics, in the text exposition format (version 0.0.4),
//! written by hand.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use crate::state::Shared;

/// The routes requests are counted by; anything else is `other`, and a
/// request no route matched (a library user's router) `unmatched`.
const ROUTES: &[&str] = &[
    "/api/v1/check",
    "/api/v1/fix",
    "/api/v1/test",
    "/api/v1/fetch",
    "/api/v1/verify",
    "/api/v1/classify",
    "/api/v1/openapi.json",
    "/verify",
    "/healthz",
    "/metrics",
    "/",
    "/check",
    "/style.css",
    "other",
    "unmatched",
];

/// A route requests are counted by: an index into [`ROUTES`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Route(usize);

impl Route {
    /// `GET /verify`.
    pub(crate) const VERIFY: Route = Route(7);
    const OTHER: Route = Route(ROUTES.len() - 2);
    pub(crate) const UNMATCHED: Route = Route(ROUTES.len() - 1);

    /// The route of a matched pattern, `other` for any other.
    pub(crate) fn of(matched: &str) -> Route {
        ROUTES[..Route::OTHER.0]
            .iter()
            .position(|r| *r == matched)
            .map_or(Route::OTHER, Route)
    }

    pub(crate) fn name(self) -> &'static str {
        ROUTES[self.0]
    }
}

/// The statuses counted without a lock (`/verify` answers `200` or
/// `403`); any other goes to a map.
const COMMON_STATUSES: [u16; 2] = [200, 403];

/// The verdict kinds, in the order their counters are kept.
const KINDS: [&str; 5] = [
    "not-a-bot",
    "verified",
    "spoofed",
    "unknown",
    "unverifiable",
];

/// Upper bounds (seconds) of the verification latency histogram.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// The service's counters. Labels come from fixed sets (routes, status
/// codes, verdict kinds, the registry's bot names), so the series stay
/// bounded whatever clients send.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    /// Requests by route and common status.
    requests: [[AtomicU64; COMMON_STATUSES.len()]; ROUTES.len()],
    /// Requests by route and any other status.
    requests_rare: Mutex<BTreeMap<(&'static str, u16), u64>>,
    /// The row of each label verdicts are counted by: the registry's bot
    /// names, `unregistered` and `none`.
    verdict_rows: HashMap<String, usize>,
    /// Verdicts by label (its row) and kind (in [`KINDS`]' order).
    verdicts: Vec<[AtomicU64; KINDS.len()]>,
    /// Verdicts of a label or kind without a counter of its own (none
    /// today: kept so that nothing goes uncounted).
    verdicts_rare: Mutex<BTreeMap<(String, &'static str), u64>>,
    /// Per bucket (and one past the last), verifications that asked DNS or
    /// the address lists (not answered from the cache).
    latency: [AtomicU64; BUCKETS.len() + 1],
    latency_sum_micros: AtomicU64,
    /// `GET /verify` answered `unknown` because `max_pending`
    /// verifications were waiting already.
    busy: AtomicU64,
    /// `GET /verify` answered `unknown` because the verification took
    /// longer than `verify_timeout`.
    timeouts: AtomicU64,
    /// A trusted proxy's client-address header that held no address.
    bad_client_header: AtomicU64,
    /// Checks refused with `503` (more than `max_jobs` admitted).
    jobs_refused: AtomicU64,
    /// Checks whose client left (or whose request timed out) while they
    /// waited for a worker: never started.
    jobs_abandoned: AtomicU64,
    /// `GET /verify?wait=` answered `unknown` while the verification went
    /// on in the background.
    deferred: AtomicU64,
    /// Requests answered `503` after `request_timeout`.
    request_timeouts: AtomicU64,
    /// Request bodies not received within `body_timeout` (`408`).
    body_timeouts: AtomicU64,
    /// Requests refused with `503`: `max_body_bytes` of bodies were held.
    bodies_refused: AtomicU64,
    /// Idle connections closed to make room for a new one.
    connections_evicted: AtomicU64,
    /// New connections closed at once: `max_connections` were open, none
    /// idle.
    connections_refused: AtomicU64,
    /// Site robots.txt fetches answered from the cache, and sent.
    pub(crate) robots_cache_hits: AtomicU64,
    pub(crate) robots_cache_misses: AtomicU64,
}

impl Metrics {
    /// Counters for the service of these bots.
    pub(crate) fn new<'a>(bots: impl IntoIterator<Item = &'a str>) -> Metrics {
        let mut verdict_rows = HashMap::new();
        for label in bots.into_iter().chain(["unregistered", "none"]) {
            let row = verdict_rows.len();
            verdict_rows.entry(label.to_owned()).or_insert(row);
        }
        Metrics {
            verdicts: (0..verdict_rows.len())
                .map(|_| Default::default())
                .collect(),
            verdict_rows,
            ..Metrics::default()
        }
    }

    pub(crate) fn request(&self, route: Route, status: u16) {
        match COMMON_STATUSES.iter().position(|s| *s == status) {
            Some(i) => {
                self.requests[route.0][i].fetch_add(1, Ordering::Relaxed);
            }
            None => {
                *self
                    .requests_rare
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry((route.name(), status))
                    .or_default() += 1;
            }
        }
    }

    /// A `GET /verify` verdict: `bot` is a registered bot's name,
    /// `unregistered` or `none`.
    pub(crate) fn verdict(&self, bot: &str, kind: &'static str) {
        let row = self.verdict_rows.get(bot);
        let column = KINDS.iter().position(|k| *k == kind);
        if let (Some(&row), Some(column)) = (row, column) {
            self.verdicts[row][column].fetch_add(1, Ordering::Relaxed);
            return;
        }
        *self
            .verdicts_rare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry((bot.to_owned(), kind))
            .or_default() += 1;
    }

    /// Requests by route and status, in their order.
    fn requests(&self) -> BTreeMap<(&'static str, u16), u64> {
        let mut all = self
            .requests_rare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for (route, counts) in ROUTES.iter().zip(&self.requests) {
            for (status, n) in COMMON_STATUSES.iter().zip(counts) {
                let n = n.load(Ordering::Relaxed);
                if n > 0 {
                    all.insert((route, *status), n);
                }
            }
        }
        all
    }

    /// Verdicts by label and kind, in their order.
    fn verdicts(&self) -> BTreeMap<(String, &'static str), u64> {
        let mut all = self
            .verdicts_rare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for (label, row) in &self.verdict_rows {
            for (kind, n) in KINDS.iter().zip(&self.verdicts[*row]) {
                let n = n.load(Ordering::Relaxed);
                if n > 0 {
                    *all.entry((label.clone(), kind)).or_default() += n;
                }
            }
        }
        all
    }

    pub(crate) fn verification(&self, took: Duration) {
        let secs = took.as_secs_f64();
        let i = BUCKETS
            .iter()
            .position(|b| secs <= *b)
            .unwrap_or(BUCKETS.len());
        self.latency[i].fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.latency_sum_micros.fetch_add(micros, Ordering::Relaxed);
    }

    pub(crate) fn busy(&self) {
        self.busy.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn timeout(&self) {
        self.timeouts.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn bad_client_header(&self) {
        self.bad_client_header.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn job_refused(&self) {
        self.jobs_refused.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn job_abandoned(&self) {
        self.jobs_abandoned.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn deferred(&self) {
        self.deferred.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn request_timeout(&self) {
        self.request_timeouts.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn body_refused(&self) {
        self.bodies_refused.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn connection_evicted(&self) {
        self.connections_evicted.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn connection_refused(&self) {
        self.connections_refused.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn body_timeout(&self) {
        self.body_timeouts.fetch_add(1, Ordering::Relaxed);
    }
}

/// A label value, escaped as the text format asks.
fn label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// The key directories fetched for signed requests, and those refused.
fn key_directory_metrics(
    out: &mut String,
    d: &botwarden_fetch::KeyDirStats,
    (allowed, clients): (usize, usize),
) {
    head(
        out,
        "botwarden_key_directory_total",
        "counter",
        "Web Bot Auth key directories, by outcome: fetch (fetched, redirects included), cache_hit, failure (a fetch that gave no keys), not_allowed (an agent not in web_bot_auth.agents or the registry: not fetched), over_rate (the client's web_bot_auth.fetches_per_minute spent: not fetched).",
    );
    for (outcome, n) in [
        ("fetch", d.fetches),
        ("cache_hit", d.cache_hits),
        ("failure", d.failures),
        ("not_allowed", d.not_allowed),
        ("over_rate", d.over_budget),
    ] {
        let _ = writeln!(
            out,
            "botwarden_key_directory_total{{outcome=\"{outcome}\"}} {n}"
        );
    }
    head(
        out,
        "botwarden_key_directories_allowed",
        "gauge",
        "Key directory URLs that may be fetched (web_bot_auth.agents and the registry's signature agents).",
    );
    let _ = writeln!(out, "botwarden_key_directories_allowed {allowed}");
    head(
        out,
        "botwarden_key_directory_clients",
        "gauge",
        "Client addresses with a directory fetch bucket now (at most 10,000).",
    );
    let _ = writeln!(out, "botwarden_key_directory_clients {clients}");
}

fn head(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// `GET /metrics`.
pub(crate) async fn render(State(inner): State<Shared>) -> impl IntoResponse {
    let m = &inner.metrics;
    let mut out = String::with_capacity(4096);
    head(
        &mut out,
        "botwarden_http_requests_total",
        "counter",
        "HTTP requests answered, by route and status.",
    );
    for ((route, status), n) in &m.requests() {
        let _ = writeln!(
            out,
            "botwarden_http_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
            label(route)
        );
    }
    head(
        &mut out,
        "botwarden_verdicts_total",
        "counter",
        "GET /verify verdicts, by bot (a registered name, unregistered, or none) and verdict.",
    );
    for ((bot, kind), n) in &m.verdicts() {
        let _ = writeln!(
            out,
            "botwarden_verdicts_total{{bot=\"{}\",verdict=\"{kind}\"}} {n}",
            label(bot)
        );
    }
    head(
        &mut out,
        "botwarden_verification_seconds",
        "histogram",
        "Time of verifications not answered from the verdict cache (address lists and DNS).",
    );
    let mut cumulative = 0u64;
    for (i, bound) in BUCKETS.iter().enumerate() {
        cumulative += m.latency[i].load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "botwarden_verification_seconds_bucket{{le=\"{bound}\"}} {cumulative}"
        );
    }
    cumulative += m.latency[BUCKETS.len()].load(Ordering::Relaxed);
    let sum = m.latency_sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
    let _ = writeln!(
        out,
        "botwarden_verification_seconds_bucket{{le=\"+Inf\"}} {cumulative}\n\
         botwarden_verification_seconds_sum {sum}\n\
         botwarden_verification_seconds_count {cumulative}"
    );
    let stats = inner.verifier.stats();
    head(
        &mut out,
        "botwarden_verdict_cache_hits_total",
        "counter",
        "Verdicts answered from the verifier's cache.",
    );
    let _ = writeln!(out, "botwarden_verdict_cache_hits_total {}", stats.hits);
    head(
        &mut out,
        "botwarden_verdict_cache_misses_total",
        "counter",
        "Verdicts worked out (address lists, published ranges, DNS).",
    );
    let _ = writeln!(out, "botwarden_verdict_cache_misses_total {}", stats.misses);
    head(
        &mut out,
        "botwarden_verdict_cache_hit_ratio",
        "gauge",
        "Hits over hits and misses of the verdict cache since start (0 before any).",
    );
    let total = stats.hits + stats.misses;
    let ratio = if total == 0 {
        0.0
    } else {
        stats.hits as f64 / total as f64
    };
    let _ = writeln!(out, "botwarden_verdict_cache_hit_ratio {ratio}");
    if let Some(dns) = inner.verifier.dns() {
        let s = dns.stats();
        head(
            &mut out,
            "botwarden_dns_cache_total",
            "counter",
            "DNS cache outcomes, by cache (ptr, forward) and outcome (hit, miss: a query sent, join: waited for one in flight).",
        );
        for (cache, c) in [("ptr", s.ptr), ("forward", s.forward)] {
            for (outcome, n) in [("hit", c.hits), ("miss", c.misses), ("join", c.joins)] {
                let _ = writeln!(
                    out,
                    "botwarden_dns_cache_total{{cache=\"{cache}\",outcome=\"{outcome}\"}} {n}"
                );
            }
        }
        head(
            &mut out,
            "botwarden_dns_cache_entries",
            "gauge",
            "Entries held in each DNS cache.",
        );
        for (cache, c) in [("ptr", s.ptr), ("forward", s.forward)] {
            let _ = writeln!(
                out,
                "botwarden_dns_cache_entries{{cache=\"{cache}\"}} {}",
                c.entries
            );
        }
    }
    let s = inner.webbotauth.stats();
    head(
        &mut out,
        "botwarden_signature_checks_total",
        "counter",
        "Web Bot Auth signature checks (GET /verify and POST /api/v1/verify), by outcome: valid, invalid (the request is spoofed), undecided (the keys could not be had), unsigned (signature fields without a web-bot-auth signature).",
    );
    let unsigned = s.checks.saturating_sub(s.valid + s.invalid + s.undecided);
    for (outcome, n) in [
        ("valid", s.valid),
        ("invalid", s.invalid),
        ("undecided", s.undecided),
        ("unsigned", unsigned),
    ] {
        let _ = writeln!(
            out,
            "botwarden_signature_checks_total{{outcome=\"{outcome}\"}} {n}"
        );
    }
    head(
        &mut out,
        "botwarden_signature_nonces_evicted_total",
        "counter",
        "Signature nonces forgotten before they expired because the nonce cache was full.",
    );
    let _ = writeln!(
        out,
        "botwarden_signature_nonces_evicted_total {}",
        s.nonces_evicted
    );
    if let Some(d) = inner.webbotauth.directory_stats() {
        key_directory_metrics(&mut out, &d, inner.webbotauth.allowed_and_clients());
    }
    if let Some(shared) = inner.verifier.shared() {
        shared_metrics(&mut out, &shared.stats());
    }
    for (name, help, value) in [
        (
            "botwarden_verify_busy_total",
            "GET /verify answered unknown at once: max_pending verifications were waiting.",
            &m.busy,
        ),
        (
            "botwarden_verify_timeouts_total",
            "GET /verify answered unknown: the verification took longer than verify_timeout.",
            &m.timeouts,
        ),
        (
            "botwarden_bad_client_header_total",
            "Requests from a trusted proxy whose client-address header held no address.",
            &m.bad_client_header,
        ),
        (
            "botwarden_jobs_refused_total",
            "Checks, fixes and tests refused with 503: max_jobs were admitted already.",
            &m.jobs_refused,
        ),
        (
            "botwarden_jobs_abandoned_total",
            "Checks never started: their client left, or the request timed out, while they waited for a worker.",
            &m.jobs_abandoned,
        ),
        (
            "botwarden_verify_deferred_total",
            "GET /verify?wait= answered unknown while the verification went on in the background.",
            &m.deferred,
        ),
        (
            "botwarden_request_timeouts_total",
            "Requests answered 503 after request_timeout.",
            &m.request_timeouts,
        ),
        (
            "botwarden_body_timeouts_total",
            "Request bodies not received within body_timeout (408).",
            &m.body_timeouts,
        ),
        (
            "botwarden_bodies_refused_total",
            "Requests refused with 503: max_body_bytes of request bodies were held already.",
            &m.bodies_refused,
        ),
        (
            "botwarden_connections_evicted_total",
            "Idle connections closed to make room for a new one (max_connections).",
            &m.connections_evicted,
        ),
        (
            "botwarden_connections_refused_total",
            "New connections closed at once: max_connections were open and none was idle.",
            &m.connections_refused,
        ),
        (
            "botwarden_robots_cache_hits_total",
            "Site robots.txt answered from the fetch cache.",
            &m.robots_cache_hits,
        ),
        (
            "botwarden_robots_cache_misses_total",
            "Site robots.txt fetched (not in the cache, or expired).",
            &m.robots_cache_misses,
        ),
    ] {
        head(&mut out, name, "counter", help);
        let _ = writeln!(out, "{name} {}", value.load(Ordering::Relaxed));
    }
    let pending = inner.config.max_pending - inner.pending.available_permits();
    head(
        &mut out,
        "botwarden_verify_pending",
        "gauge",
        "Verifications waiting on DNS now.",
    );
    let _ = writeln!(out, "botwarden_verify_pending {pending}");
    let (admitted, running) = inner.jobs_now();
    head(
        &mut out,
        "botwarden_jobs_admitted",
        "gauge",
        "Checks, fixes and tests admitted now (running or waiting for a worker).",
    );
    let _ = writeln!(out, "botwarden_jobs_admitted {admitted}");
    head(
        &mut out,
        "botwarden_jobs_running",
        "gauge",
        "Checks, fixes and tests running now on a worker.",
    );
    let _ = writeln!(out, "botwarden_jobs_running {running}");
    let (connections, body_bytes) = inner.held();
    head(
        &mut out,
        "botwarden_connections",
        "gauge",
        "Connections open now.",
    );
    let _ = writeln!(out, "botwarden_connections {connections}");
    head(
        &mut out,
        "botwarden_body_bytes",
        "gauge",
        "Bytes of request bodies held now.",
    );
    let _ = writeln!(out, "botwarden_body_bytes {body_bytes}");
    let (entries, bytes) = inner.robots_cache.size();
    head(
        &mut out,
        "botwarden_robots_cache_entries",
        "gauge",
        "Site robots.txt fetches held in the cache.",
    );
    let _ = writeln!(out, "botwarden_robots_cache_entries {entries}");
    head(
        &mut out,
        "botwarden_robots_cache_bytes",
        "gauge",
        "Bytes of robots.txt bodies held in the cache.",
    );
    let _ = writeln!(out, "botwarden_robots_cache_bytes {bytes}");
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    )
}

/// The shared verdict cache's lines (`--redis`).
fn shared_metrics(out: &mut String, s: &botwarden_verify::SharedStats) {
    head(
        out,
        "botwarden_shared_cache_up",
        "gauge",
        "1 while the shared verdict cache (Redis) answers, 0 while the local cache works alone.",
    );
    let _ = writeln!(out, "botwarden_shared_cache_up {}", u8::from(s.up));
    head(
        out,
        "botwarden_shared_cache_total",
        "counter",
        "Shared verdict cache outcomes: hit, miss, join (waited for another process's lookup), error (failed or too slow: marks it down), skipped (down: not asked).",
    );
    for (outcome, n) in [
        ("hit", s.hits),
        ("miss", s.misses),
        ("join", s.joins),
        ("error", s.errors),
        ("skipped", s.skipped),
    ] {
        let _ = writeln!(
            out,
            "botwarden_shared_cache_total{{outcome=\"{outcome}\"}} {n}"
        );
    }
    head(
        out,
        "botwarden_shared_cache_read_seconds",
        "histogram",
        "Time of the shared cache's reads that Redis answered.",
    );
    for (bound, n) in botwarden_verify::READ_BUCKETS.iter().zip(s.read_buckets) {
        let _ = writeln!(
            out,
            "botwarden_shared_cache_read_seconds_bucket{{le=\"{bound}\"}} {n}"
        );
    }
    let _ = writeln!(
        out,
        "botwarden_shared_cache_read_seconds_bucket{{le=\"+Inf\"}} {reads}\n\
         botwarden_shared_cache_read_seconds_sum {sum}\n\
         botwarden_shared_cache_read_seconds_count {reads}",
        reads = s.reads,
        sum = s.read_micros as f64 / 1e6
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_by_their_patterns() {
        assert_eq!(Route::VERIFY.name(), "/verify");
        assert_eq!(Route::of("/verify").0, Route::VERIFY.0);
        assert_eq!(Route::of("/api/v1/check").name(), "/api/v1/check");
        assert_eq!(Route::of("/nowhere").name(), "other");
        // A pattern cannot be the label of the routes no pattern names.
        assert_eq!(Route::of("other").name(), "other");
        assert_eq!(Route::of("unmatched").name(), "other");
        assert_eq!(Route::UNMATCHED.name(), "unmatched");
    }

    #[test]
    fn counts_come_out_by_label_in_order() {
        let m = Metrics::new(["Searchbot", "Otherbot", "none"]);
        m.verdict("Searchbot", "verified");
        m.verdict("Searchbot", "verified");
        m.verdict("none", "not-a-bot");
        m.verdict("Otherbot", "spoofed");
        // Not a label or kind of the service's: still counted.
        m.verdict("Elsebot", "unknown");
        m.verdict("Searchbot", "maybe");
        let verdicts: Vec<_> = m.verdicts().into_iter().collect();
        assert_eq!(
            verdicts,
            [
                (("Elsebot".to_owned(), "unknown"), 1),
                (("Otherbot".to_owned(), "spoofed"), 1),
                (("Searchbot".to_owned(), "maybe"), 1),
                (("Searchbot".to_owned(), "verified"), 2),
                (("none".to_owned(), "not-a-bot"), 1),
            ]
        );
        m.request(Route::VERIFY, 200);
        m.request(Route::VERIFY, 403);
        m.request(Route::VERIFY, 503);
        m.request(Route::of("/healthz"), 200);
        let requests: Vec<_> = m.requests().into_iter().collect();
        assert_eq!(
            requests,
            [
                (("/healthz", 200), 1),
                (("/verify", 200), 1),
                (("/verify", 403), 1),
                (("/verify", 503), 1),
            ]
        );
    }
}
