//! `GET /verify`: the verdict on the request a web server is about to
//! serve, for nginx's `auth_request` and its kin.
//!
//! Each request is read once: its User-Agent classified, its client's
//! address read, the verdict cache looked in and its signature fields
//! looked for, one time each. An unsigned request from a registered
//! crawler whose verdict is cached is answered at once; any other gathers
//! what its signature and its address give, and [`decision::decide`]
//! makes the answer.

use std::borrow::Cow;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use botwarden_verify::{Claim, SignatureCheck, Verdict};

use crate::bot_headers::{
    X_BOT_REASON, X_BOT_VERDICT, annotate_signature, header_value, verdict_response,
};
use crate::decision::{self, Address, Mode, Signature};
use crate::pending;
use crate::proxy::Client;
use crate::state::{Inner, Shared};
use crate::webbotauth;

/// The label a verdict is counted under: a registered bot's name, else
/// `unregistered` or `none`, so that clients cannot make up series.
fn counted_as<'a>(inner: &Inner, claim: &'a Claim) -> &'a str {
    match claim {
        Claim::Bot { name, .. } if inner.registry.find(name).is_some() => name,
        Claim::Bot { .. } | Claim::Unregistered { .. } => "unregistered",
        Claim::NotABot => "none",
    }
}

/// The `wait` query parameter of `GET /verify`: seconds to wait for a
/// verification not in the cache before answering `unknown` (it goes on in
/// the background, and its verdict is cached for the next request).
fn wait_of(query: Option<&str>) -> Result<Option<Duration>, String> {
    let mut wait = None;
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if k != "wait" {
            return Err(format!(
                "unknown query parameter '{k}' (only wait is known)"
            ));
        }
        let seconds: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| format!("wait = '{v}' is not a number of seconds"))?;
        wait = Some(Duration::from_secs_f64(seconds.min(60.0)));
    }
    Ok(wait)
}

/// `GET /verify` (and `GET /verify?wait=SECONDS`) through the router.
pub(crate) async fn verify(
    State(inner): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    verify_request(&inner, peer.ip(), query.as_deref(), &headers).await
}

/// The answer to `GET /verify` from `peer` with this query and these
/// headers: the router's handler and the connection loop's direct path
/// both give this.
pub(crate) async fn verify_request(
    inner: &Shared,
    peer: IpAddr,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Response {
    let wait = match wait_of(query) {
        Ok(w) => w,
        Err(message) => return bad_query(inner, &message),
    };
    let ua: Option<Cow<'_, str>> = headers
        .get(header::USER_AGENT)
        .map(|v| String::from_utf8_lossy(v.as_bytes()));
    let signed = webbotauth::is_signed(headers);
    let class = ua.as_deref().map(|ua| inner.classifier.classify(ua));
    let client = inner.proxies.client(peer, headers);
    // The common case, answered without building a claim: an unsigned
    // request from a registered crawler whose verdict for the client's
    // address is in the cache.
    if !signed && let (Some(bot), Client::Known(ip)) = (class.and_then(|c| c.bot), client) {
        let ip = botwarden_verify::normalize(ip);
        // A hit means the verifier knows the name: a registered bot,
        // counted under its name.
        if let Some(verdict) = inner.verifier.cached(ip, bot.name) {
            inner.metrics.verdict(bot.name, verdict.kind());
            tracing::debug!(
                %ip,
                ua = ua.as_deref().unwrap_or(""),
                verdict = verdict.kind(),
                bot = verdict.bot().unwrap_or("-"),
                "verify"
            );
            let status = decision::status(&verdict, Mode::of(inner.config.enforce));
            return verdict_response(&inner.bot_names, &verdict, status);
        }
    }
    let claim = match (&ua, &class) {
        (Some(ua), Some(class)) => Claim::classified(&inner.classifier, ua, class),
        _ => Claim::NotABot,
    };
    let asked = Asked {
        peer,
        headers,
        ua: ua.as_deref(),
        client,
        signed,
        wait,
    };
    uncached(inner, &claim, &asked).await
}

/// What was read of a request the cache did not answer.
struct Asked<'a> {
    peer: IpAddr,
    headers: &'a HeaderMap,
    ua: Option<&'a str>,
    client: Client,
    /// Whether it carries signature fields.
    signed: bool,
    wait: Option<Duration>,
}

/// The answer to a request the cache did not answer: what its signature
/// gives, else its address's verdict, decided by [`decision::decide`].
async fn uncached(inner: &Shared, claim: &Claim, asked: &Asked<'_>) -> Response {
    let signature = if asked.signed {
        // Directory fetches are charged to the client (to the proxy when
        // its header holds no address).
        signature(inner, asked.headers, claim, asked.client.or(asked.peer)).await
    } else {
        Signature::Absent
    };
    // A signature decides only when it verifies, or is shown forged; else
    // the address decides, as for an unsigned request.
    let address = match signature.decides() {
        Some(_) => None,
        None => Some(address(inner, claim, asked).await),
    };
    let d = decision::decide(
        claim,
        &signature,
        address.as_ref(),
        Mode::of(inner.config.enforce),
    );
    inner
        .metrics
        .verdict(counted_as(inner, claim), d.verdict.kind());
    let mut response = verdict_response(&inner.bot_names, &d.verdict, d.status);
    if let Some((outcome, reason)) = d.signature {
        annotate_signature(response.headers_mut(), outcome, reason);
    }
    response
}

/// The verdict on the client's address. The cache was looked in already
/// for an unsigned request.
async fn address(inner: &Shared, claim: &Claim, asked: &Asked<'_>) -> Address {
    let Client::Known(ip) = asked.client else {
        inner.metrics.bad_client_header();
        return Address::Unreadable;
    };
    let ip = botwarden_verify::normalize(ip);
    let verdict = pending::gate_verdict(inner, ip, claim, asked.wait, asked.signed).await;
    tracing::debug!(
        %ip,
        ua = asked.ua.unwrap_or(""),
        verdict = verdict.kind(),
        bot = verdict.bot().unwrap_or("-"),
        "verify"
    );
    Address::Verdict(verdict)
}

/// What a signed request's signature gives for `claim`, its agents'
/// directories fetched on `client`'s account.
///
/// A signature that does not verify never makes the User-Agent's claim
/// weaker: when its keys cannot be had (an invented key id, an agent whose
/// directory does not answer) or it cannot be checked now, it decides
/// nothing and the claim is judged by the address, as if the request were
/// unsigned. Only a valid signature (`verified`, or `spoofed` with a key of
/// another bot) and an invalid one (`spoofed`) decide.
///
/// The request being verified is the original one
/// ([`webbotauth::original_request`]).
async fn signature(inner: &Inner, headers: &HeaderMap, claim: &Claim, client: IpAddr) -> Signature {
    let req = webbotauth::original_request(headers);
    // A directory fetch may make the check wait: checks share
    // `max_pending` with the verifications waiting on DNS.
    let Ok(_permit) = Arc::clone(&inner.pending).try_acquire_owned() else {
        inner.metrics.busy();
        return Signature::Undecided {
            outcome: "unchecked",
            reason: "too many verifications waiting; the signature was not checked".into(),
        };
    };
    let limit = Duration::from_secs_f64(inner.config.verify_timeout);
    let check = inner
        .webbotauth
        .check(&req, client, limit, SystemTime::now())
        .await;
    let outcome = check.kind();
    let signature = match check {
        SignatureCheck::Undecided { reason, .. } => Signature::Undecided { outcome, reason },
        check => Signature::Checked {
            outcome,
            verdict: inner.verifier.signature_verdict(claim, &check),
        },
    };
    let verdict = signature.decides();
    tracing::debug!(
        signature = outcome,
        verdict = verdict.map_or("-", Verdict::kind),
        bot = verdict.and_then(Verdict::bot).unwrap_or("-"),
        "verify signed"
    );
    signature
}

/// The answer to a query `GET /verify` does not take: never a 4xx the web
/// server would turn into a refusal, but `unknown`, the reason saying why.
fn bad_query(inner: &Inner, message: &str) -> Response {
    let mut r = verdict_response(&inner.bot_names, &Verdict::NotABot, StatusCode::OK);
    r.headers_mut()
        .insert(X_BOT_VERDICT, HeaderValue::from_static("unknown"));
    r.headers_mut().insert(X_BOT_REASON, header_value(message));
    r
}
