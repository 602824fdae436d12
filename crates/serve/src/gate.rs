//! `GET /verify`: the verdict on the request a web server is about to
//! serve, for nginx's `auth_request` and its kin.

use std::borrow::Cow;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use botwarden_verify::{Claim, Registry, Verdict};

use crate::api::ApiError;
use crate::state::{Inner, Shared};

const X_BOT_NAME: HeaderName = HeaderName::from_static("x-bot-name");
const X_BOT_VERDICT: HeaderName = HeaderName::from_static("x-bot-verdict");
const X_BOT_METHOD: HeaderName = HeaderName::from_static("x-bot-method");
const X_BOT_REASON: HeaderName = HeaderName::from_static("x-bot-reason");
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
const DASH: HeaderValue = HeaderValue::from_static("-");

/// The `X-Bot-Name` values of the registry's bots, built once: an answer
/// about a registered bot copies no text.
pub(crate) struct BotNames(HashMap<String, HeaderValue>);

impl BotNames {
    pub(crate) fn new(registry: &Registry) -> BotNames {
        BotNames(
            registry
                .bots()
                .iter()
                .map(|b| (b.name.clone(), header_value(&b.name)))
                .collect(),
        )
    }

    fn value(&self, name: Option<&str>) -> HeaderValue {
        match name {
            None => DASH,
            Some(name) => self
                .0
                .get(name)
                .cloned()
                .unwrap_or_else(|| header_value(name)),
        }
    }
}

/// `X-Bot-Method`: the verifying methods joined by `+`; a single method
/// is a static value.
fn method_value(verdict: &Verdict) -> HeaderValue {
    match verdict {
        Verdict::Verified { methods, .. } if methods.len() == 1 => {
            HeaderValue::from_static(methods[0].as_str())
        }
        Verdict::Verified { .. } => header_value(verdict.method().as_deref().unwrap_or("-")),
        _ => DASH,
    }
}

/// Where the client's address came from, or why it is not known.
#[derive(Clone, Copy)]
enum Client {
    Known(IpAddr),
    /// A trusted proxy's header held no address.
    Unreadable,
}

/// The client's address: from the configured header when the peer is a
/// trusted proxy, else the peer's. The header's addresses (its lines in
/// order, each a comma-separated list) are read from the right: trusted
/// proxies are passed over and the first that is not one is the client,
/// whatever comes before it (a client may write anything there; only
/// what the proxies appended is believed). An entry that is not an
/// address before the client is found makes the header unreadable; when
/// every address is a trusted proxy, the left-most is the client.
fn client(inner: &Inner, peer: IpAddr, headers: &HeaderMap) -> Client {
    if !inner.is_trusted(peer) {
        return Client::Known(peer);
    }
    let mut values = headers
        .get_all(&inner.client_header)
        .iter()
        .rev()
        .peekable();
    if values.peek().is_none() {
        // The proxy sent no header: the request is its own.
        return Client::Known(peer);
    }
    let mut leftmost = None;
    for entry in values.flat_map(|v| v.as_bytes().rsplit(|b| *b == b',')) {
        let Some(ip) = std::str::from_utf8(entry).ok().and_then(parse_address) else {
            return Client::Unreadable;
        };
        if !inner.is_trusted(ip) {
            return Client::Known(ip);
        }
        leftmost = Some(ip);
    }
    leftmost.map_or(Client::Unreadable, Client::Known)
}

/// The client's address as [`client`] reads it, or the peer's when a
/// trusted proxy's header holds none: whom a request's costs are charged
/// to.
pub(crate) fn client_or_peer(inner: &Inner, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
    match client(inner, peer, headers) {
        Client::Known(ip) => ip,
        Client::Unreadable => peer,
    }
}

/// An address as proxies write it: bare, in brackets, or with a port.
fn parse_address(text: &str) -> Option<IpAddr> {
    let text = text.trim();
    if let Ok(ip) = text.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Some(addr.ip());
    }
    text.strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .and_then(|t| t.parse().ok())
}

/// A header value from text that may hold anything: visible ASCII kept,
/// the rest as `?`.
pub(crate) fn header_value(text: &str) -> HeaderValue {
    let clean: String = text
        .chars()
        .take(200)
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect();
    HeaderValue::from_str(clean.trim()).unwrap_or_else(|_| HeaderValue::from_static("?"))
}

/// The answer: the verdict's headers, `403` for a spoofed crawler in
/// enforce mode, else `200`.
fn answer(inner: &Inner, verdict: &Verdict) -> Response {
    let status = if inner.config.enforce && matches!(verdict, Verdict::Spoofed { .. }) {
        StatusCode::FORBIDDEN
    } else {
        StatusCode::OK
    };
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    let h = response.headers_mut();
    h.reserve(5);
    h.insert(X_BOT_NAME, inner.bot_names.value(verdict.bot()));
    h.insert(X_BOT_VERDICT, HeaderValue::from_static(verdict.kind()));
    h.insert(X_BOT_METHOD, method_value(verdict));
    if let Some(reason) = verdict.reason() {
        h.insert(X_BOT_REASON, header_value(reason));
    }
    h.insert(header::CACHE_CONTROL, NO_STORE);
    response
}

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
        Err(message) => {
            // Never a 4xx the web server would turn into a refusal: the
            // verdict is `unknown`, the reason says why.
            let mut r = answer(inner, &Verdict::NotABot);
            r.headers_mut()
                .insert(X_BOT_VERDICT, HeaderValue::from_static("unknown"));
            r.headers_mut().insert(X_BOT_REASON, header_value(&message));
            return r;
        }
    };
    let ua: Option<Cow<'_, str>> = headers
        .get(header::USER_AGENT)
        .map(|v| String::from_utf8_lossy(v.as_bytes()));
    if let Some(response) = cached_crawler(inner, peer, ua.as_deref(), headers) {
        return response;
    }
    let claim = match &ua {
        Some(ua) => Claim::of(&inner.classifier, ua),
        None => Claim::NotABot,
    };
    // A signature decides only when it verifies, or is shown forged; else
    // the address decides, as for an unsigned request.
    let client = client(inner, peer, headers);
    // Directory fetches are charged to the client (to the proxy when its
    // header holds no address).
    let charged = match client {
        Client::Known(ip) => ip,
        Client::Unreadable => peer,
    };
    let signed = crate::webbotauth::gate_verdict(inner, headers, &claim, charged).await;
    let verdict = match signed.as_ref().and_then(|s| s.verdict.clone()) {
        Some(verdict) => Arc::new(verdict),
        None => match client {
            Client::Known(ip) => {
                let ip = botwarden_verify::normalize(ip);
                let verdict = decide(inner, ip, &claim, wait).await;
                tracing::debug!(
                    %ip,
                    ua = ua.as_deref().unwrap_or(""),
                    verdict = verdict.kind(),
                    bot = verdict.bot().unwrap_or("-"),
                    "verify"
                );
                verdict
            }
            Client::Unreadable => {
                inner.metrics.bad_client_header();
                Arc::new(unknown(
                    &claim,
                    "the trusted proxy's client-address header holds no address",
                ))
            }
        },
    };
    inner
        .metrics
        .verdict(counted_as(inner, &claim), verdict.kind());
    let mut response = answer(inner, &verdict);
    if let Some(signed) = &signed {
        signed.annotate(response.headers_mut());
    }
    response
}

/// The common case, answered without building a claim: an unsigned
/// request from a registered crawler whose verdict for the client's
/// address is in the cache. The same verdict, count and log as the long
/// way; `None` for anything else.
fn cached_crawler(
    inner: &Inner,
    peer: IpAddr,
    ua: Option<&str>,
    headers: &HeaderMap,
) -> Option<Response> {
    if crate::webbotauth::is_signed(headers) {
        return None;
    }
    let ua = ua?;
    let bot = inner.classifier.classify(ua).bot?;
    let Client::Known(ip) = client(inner, peer, headers) else {
        return None;
    };
    let ip = botwarden_verify::normalize(ip);
    // A hit means the verifier knows the name: a registered bot, counted
    // under its name.
    let verdict = inner.verifier.cached(ip, bot.name)?;
    let bot = bot.name;
    inner.metrics.verdict(bot, verdict.kind());
    tracing::debug!(
        %ip,
        ua,
        verdict = verdict.kind(),
        bot = verdict.bot().unwrap_or("-"),
        "verify"
    );
    Some(answer(inner, &verdict))
}

/// An `unknown` verdict for a claim.
fn unknown(claim: &Claim, reason: &str) -> Verdict {
    match claim {
        Claim::Bot { name, .. } => Verdict::Unknown {
            bot: name.clone(),
            reason: reason.to_owned(),
            evidence: botwarden_verify::Evidence::default(),
        },
        Claim::Unregistered { name, category } => {
            Verdict::unregistered(name, Some(category.as_str()))
        }
        Claim::NotABot => Verdict::NotABot,
    }
}

/// The verdict: from the cache at once when there is one; else worked out
/// within `verify_timeout`, if fewer than `max_pending` are waiting. With
/// `wait`, the verification runs in the background and the answer waits
/// at most `wait` for it (`unknown` past it; the verdict is cached when it
/// comes).
async fn decide(
    inner: &Arc<Inner>,
    ip: IpAddr,
    claim: &Claim,
    wait: Option<Duration>,
) -> Arc<Verdict> {
    let Claim::Bot { name, .. } = claim else {
        return inner.verifier.verify_claim(ip, claim, None).await;
    };
    if let Some(v) = inner.verifier.cached(ip, name) {
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

/// The verifications the public API (`GET` and `POST /api/v1/verify`) may
/// have waiting on DNS at once, out of `max_pending`: half of them, at
/// most 32 (the verifier's resolver has 64 lookups in flight), at least
/// one. The rest are kept for `GET /verify`.
pub(crate) fn api_share(max_pending: usize) -> usize {
    (max_pending / 2).clamp(1, 32)
}

impl Inner {
    /// The address's verdict for the public API: from the cache at once;
    /// else worked out within `verify_timeout` (`unknown` past it) in one
    /// of the API's share of the `max_pending` slots, so that a flood of
    /// the API never holds up `GET /verify`; `503 busy` when none is free.
    pub(crate) async fn api_address_verdict(
        &self,
        ip: IpAddr,
        ua: Option<&str>,
        bot: Option<&str>,
    ) -> Result<Arc<Verdict>, ApiError> {
        let claim = Claim::asked(&self.classifier, ua, bot);
        let Claim::Bot { name, .. } = &claim else {
            // People and unregistered clients need no lookup.
            return Ok(self
                .verifier
                .check_request(&self.classifier, ip, ua, bot)
                .await);
        };
        if let Some(verdict) = self.verifier.cached(botwarden_verify::normalize(ip), name) {
            return Ok(verdict);
        }
        let share = Arc::clone(&self.api_pending).try_acquire_owned();
        let slot = Arc::clone(&self.pending).try_acquire_owned();
        let (Ok(_share), Ok(_slot)) = (share, slot) else {
            self.metrics.busy();
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy",
                "too many verifications are waiting on DNS; try again shortly",
            ));
        };
        let limit = Duration::from_secs_f64(self.config.verify_timeout);
        let started = Instant::now();
        let work = self.verifier.check_request(&self.classifier, ip, ua, bot);
        if let Ok(verdict) = tokio::time::timeout(limit, work).await {
            self.metrics.verification(started.elapsed());
            Ok(verdict)
        } else {
            self.metrics.timeout();
            Ok(Arc::new(unknown(
                &claim,
                "verification took longer than verify_timeout",
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_as_proxies_write_them() {
        let v4: IpAddr = "192.0.2.1".parse().expect("address");
        let v6: IpAddr = "2001:db8::1".parse().expect("address");
        assert_eq!(parse_address(" 192.0.2.1 "), Some(v4));
        assert_eq!(parse_address("192.0.2.1:5555"), Some(v4));
        assert_eq!(parse_address("[2001:db8::1]"), Some(v6));
        assert_eq!(parse_address("[2001:db8::1]:443"), Some(v6));
        assert_eq!(parse_address("2001:db8::1"), Some(v6));
        assert_eq!(parse_address("unknown"), None);
        assert_eq!(parse_address(""), None);
    }

    #[test]
    fn header_values_hold_only_visible_ascii() {
        assert_eq!(header_value("Searchbot"), "Searchbot");
        assert_eq!(header_value("Bad\r\nX-Injected: 1"), "Bad??X-Injected: 1");
        assert_eq!(header_value("Bötchen"), "B?tchen");
        assert_eq!(header_value(&"a".repeat(500)).len(), 200);
    }
}
