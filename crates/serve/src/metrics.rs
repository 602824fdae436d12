//! Prometheus metrics, in the text exposition format (version 0.0.4),
//! written by hand.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

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
    "/api/v1/check-agent",
    "/agent",
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

    /// The requests by route and status, the verdicts by label and kind,
    /// and the verification latency histogram, in the text format.
    pub(crate) fn write_traffic(&self, out: &mut String) {
        let m = self;
        head(
            out,
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
            out,
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
            out,
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
    }

    /// The counters of refusals, timeouts and the robots.txt cache, in the
    /// text format.
    pub(crate) fn write_counters(&self, out: &mut String) {
        let m = self;
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
            head(out, name, "counter", help);
            let _ = writeln!(out, "{name} {}", value.load(Ordering::Relaxed));
        }
    }
}

/// A label value, escaped as the text format asks.
pub(crate) fn label(value: &str) -> String {
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

pub(crate) fn head(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
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
