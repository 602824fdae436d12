//! Verifications waiting on DNS: at most `max_pending` at once (the
//! public API within its share of them), each within `verify_timeout`;
//! past either bound the verdict is `unknown` (or the API's `503 busy`),
//! never a wait.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use botwarden_verify::{Claim, Verdict};

use crate::decision::unknown;
use crate::reply::ApiError;
use crate::state::Inner;

/// The verdict on `ip` for `claim` for `GET /verify`: worked out within
/// `verify_timeout`, if fewer than `max_pending` are waiting; from the
/// cache at once when `cache` is to be looked in (the gate looked in it
/// already for an unsigned request). With `wait`, the verification runs
/// in the background and the answer waits at most `wait` for it
/// (`unknown` past it; the verdict is cached when it comes).
pub(crate) async fn gate_verdict(
    inner: &Arc<Inner>,
    ip: IpAddr,
    claim: &Claim,
    wait: Option<Duration>,
    cache: bool,
) -> Arc<Verdict> {
    let Claim::Bot { name, .. } = claim else {
        return inner.verifier.verify_claim(ip, claim, None).await;
    };
    if cache && let Some(v) = inner.verifier.cached(ip, name) {
        return v;
    }
    let Ok(permit) = Arc::clone(&inner.pending).try_acquire_owned() else {
        inner.metrics.busy();
        return Arc::new(unknown(
            claim,
            "too many verifications waiting; not verified",
        ));
    };
    let limit = Duration::from_secs_f64(inner.config.verify_timeout);
    let work = {
        let inner = Arc::clone(inner);
        let claim = claim.clone();
        async move {
            let _permit = permit;
            let started = Instant::now();
            match tokio::time::timeout(limit, inner.verifier.verify_claim(ip, &claim, None)).await {
                Ok(verdict) => {
                    inner.metrics.verification(started.elapsed());
                    Some(verdict)
                }
                Err(_) => {
                    inner.metrics.timeout();
                    None
                }
            }
        }
    };
    let timed_out = || {
        Arc::new(unknown(
            claim,
            "verification took longer than verify_timeout",
        ))
    };
    let Some(wait) = wait else {
        return work.await.unwrap_or_else(timed_out);
    };
    let background = tokio::spawn(work);
    match tokio::time::timeout(wait.min(limit), background).await {
        Ok(Ok(Some(verdict))) => verdict,
        Ok(_) => timed_out(),
        Err(_) => {
            inner.metrics.deferred();
            Arc::new(unknown(
                claim,
                "verification still running (wait elapsed); its verdict is cached for the next request",
            ))
        }
    }
}

/// The address's verdict for the public API: from the cache at once;
/// else worked out within `verify_timeout` (`unknown` past it) in one of
/// the API's share of the `max_pending` slots, so that a flood of the API
/// never holds up `GET /verify`; `503 busy` when none is free.
pub(crate) async fn api_verdict(
    inner: &Inner,
    ip: IpAddr,
    ua: Option<&str>,
    bot: Option<&str>,
) -> Result<Arc<Verdict>, ApiError> {
    let claim = Claim::asked(&inner.classifier, ua, bot);
    let Claim::Bot { name, .. } = &claim else {
        // People and unregistered clients need no lookup.
        return Ok(inner
            .verifier
            .check_request(&inner.classifier, ip, ua, bot)
            .await);
    };
    if let Some(verdict) = inner.verifier.cached(botwarden_verify::normalize(ip), name) {
        return Ok(verdict);
    }
    let share = Arc::clone(&inner.api_pending).try_acquire_owned();
    let slot = Arc::clone(&inner.pending).try_acquire_owned();
    let (Ok(_share), Ok(_slot)) = (share, slot) else {
        inner.metrics.busy();
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "too many verifications are waiting on DNS; try again shortly",
        ));
    };
    let limit = Duration::from_secs_f64(inner.config.verify_timeout);
    let started = Instant::now();
    let work = inner.verifier.check_request(&inner.classifier, ip, ua, bot);
    if let Ok(verdict) = tokio::time::timeout(limit, work).await {
        inner.metrics.verification(started.elapsed());
        Ok(verdict)
    } else {
        inner.metrics.timeout();
        Ok(Arc::new(unknown(
            &claim,
            "verification took longer than verify_timeout",
        )))
    }
}
