//! `GET /metrics`: the service's counters and gauges, and those of the
//! verifier, its caches and Web Bot Auth, in Prometheus's text exposition
//! format (version 0.0.4), written by hand.

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use crate::metrics::head;
use crate::state::{Inner, Shared};

/// `GET /metrics`.
pub(crate) async fn render(State(inner): State<Shared>) -> impl IntoResponse {
    let mut out = String::with_capacity(4096);
    inner.metrics.write_traffic(&mut out);
    verdict_cache_metrics(&mut out, &inner.verifier.stats());
    if let Some(dns) = inner.verifier.dns() {
        dns_metrics(&mut out, &dns.stats());
    }
    signature_metrics(&mut out, &inner.webbotauth.stats());
    if let Some(d) = inner.webbotauth.directory_stats() {
        key_directory_metrics(&mut out, &d, inner.webbotauth.allowed_and_clients());
    }
    if let Some(shared) = inner.verifier.shared() {
        shared_metrics(&mut out, &shared.stats());
    }
    inner.metrics.write_counters(&mut out);
    gauges(&mut out, &inner);
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    )
}

/// The verifier's verdict cache: hits, misses and their ratio.
fn verdict_cache_metrics(out: &mut String, stats: &botwarden_verify::VerdictStats) {
    head(
        out,
        "botwarden_verdict_cache_hits_total",
        "counter",
        "Verdicts answered from the verifier's cache.",
    );
    let _ = writeln!(out, "botwarden_verdict_cache_hits_total {}", stats.hits);
    head(
        out,
        "botwarden_verdict_cache_misses_total",
        "counter",
        "Verdicts worked out (address lists, published ranges, DNS).",
    );
    let _ = writeln!(out, "botwarden_verdict_cache_misses_total {}", stats.misses);
    head(
        out,
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
}

/// The DNS caches' outcomes and sizes.
fn dns_metrics(out: &mut String, s: &botwarden_verify::DnsStats) {
    head(
        out,
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
        out,
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

/// The Web Bot Auth signature checks by outcome, and nonces evicted.
fn signature_metrics(out: &mut String, s: &botwarden_verify::SignatureStats) {
    head(
        out,
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
        out,
        "botwarden_signature_nonces_evicted_total",
        "counter",
        "Signature nonces forgotten before they expired because the nonce cache was full.",
    );
    let _ = writeln!(
        out,
        "botwarden_signature_nonces_evicted_total {}",
        s.nonces_evicted
    );
}

/// The gauges of the work in flight and of what is held now.
fn gauges(out: &mut String, inner: &Inner) {
    let pending = inner.config.max_pending - inner.pending.available_permits();
    head(
        out,
        "botwarden_verify_pending",
        "gauge",
        "Verifications waiting on DNS now.",
    );
    let _ = writeln!(out, "botwarden_verify_pending {pending}");
    let (admitted, running) = inner.jobs_now();
    head(
        out,
        "botwarden_jobs_admitted",
        "gauge",
        "Checks, fixes and tests admitted now (running or waiting for a worker).",
    );
    let _ = writeln!(out, "botwarden_jobs_admitted {admitted}");
    head(
        out,
        "botwarden_jobs_running",
        "gauge",
        "Checks, fixes and tests running now on a worker.",
    );
    let _ = writeln!(out, "botwarden_jobs_running {running}");
    let (connections, body_bytes) = inner.held();
    head(
        out,
        "botwarden_connections",
        "gauge",
        "Connections open now.",
    );
    let _ = writeln!(out, "botwarden_connections {connections}");
    head(
        out,
        "botwarden_body_bytes",
        "gauge",
        "Bytes of request bodies held now.",
    );
    let _ = writeln!(out, "botwarden_body_bytes {body_bytes}");
    let (entries, bytes) = inner.robots_cache.size();
    head(
        out,
        "botwarden_robots_cache_entries",
        "gauge",
        "Site robots.txt fetches held in the cache.",
    );
    let _ = writeln!(out, "botwarden_robots_cache_entries {entries}");
    head(
        out,
        "botwarden_robots_cache_bytes",
        "gauge",
        "Bytes of robots.txt bodies held in the cache.",
    );
    let _ = writeln!(out, "botwarden_robots_cache_bytes {bytes}");
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
