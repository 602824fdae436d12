//! Prometheus metrics, in the text exposition format (version 0.0.4),
//! written by hand.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use crate::state::Shared;

/// The routes requests are counted by; anything else is `other`.
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
    requests: Mutex<BTreeMap<(&'static str, u16), u64>>,
    verdicts: Mutex<BTreeMap<(String, &'static str), u64>>,
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
    /// Site robots.txt fetches answered from the cache, and sent.
    pub(crate) robots_cache_hits: AtomicU64,
    pub(crate) robots_cache_misses: AtomicU64,
}

impl Metrics {
    /// The static name of a matched route.
    pub(crate) fn route_name(&self, matched: &str) -> &'static str {
        ROUTES
            .iter()
            .find(|r| **r == matched)
            .copied()
            .unwrap_or("other")
    }

    pub(crate) fn request(&self, route: &'static str, status: u16) {
        *self
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry((route, status))
            .or_default() += 1;
    }

    /// A `GET /verify` verdict: `bot` is a registered bot's name,
    /// `unregistered` or `none`.
    pub(crate) fn verdict(&self, bot: &str, kind: &'static str) {
        let mut map = self.verdicts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = map.get_mut(&(bot.to_owned(), kind)) {
            *n += 1;
        } else {
            map.insert((bot.to_owned(), kind), 1);
        }
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
    for ((route, status), n) in m
        .requests
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
    {
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
    for ((bot, kind), n) in m
        .verdicts
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
    {
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
