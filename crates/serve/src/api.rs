//! The JSON API under `/api/v1/`: the command's JSON answers over HTTP.
//!
//! Each handler builds its answer with the library calls the command uses
//! (`CheckReport::new` and `check_json`, `FixReport::new` and `fix_text`,
//! `RobotMatcher`, `RobotsFetch::summary` and `fetch_json`,
//! `Verifier::check_request`, `Classifier::classify`), so an answer is the
//! command's `--format json` output for the same input.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use base64::Engine as _;
use botwarden_robots::report::{
    CheckReport, FetchSummary, FixReport, check_json, fetch_json, fix_text,
};
use botwarden_robots::{
    Applies, AvailabilityPolicy, Profile, Reason, RobotMatcher, RobotsTxt, TokenChain,
};
use botwarden_verify::{
    Claim, ClassificationJson, RequestParts, SignatureCheck, SignedVerdictJson, Verdict,
    VerdictJson,
};
use serde::Deserialize;

use crate::limits::MAX_BODY;
use crate::pending;
use crate::reply::{ApiError, json_body};
use crate::request::{json, pair, query_pairs};
use crate::state::{Inner, Shared};

/// Where a robots.txt comes from: exactly one of the text, its bytes in
/// base64, or a site URL.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Input {
    /// The file as text.
    #[serde(default)]
    pub(crate) robots_txt: Option<String>,
    /// The file's bytes in base64 (for files that are not UTF-8).
    #[serde(default)]
    pub(crate) robots_txt_base64: Option<String>,
    /// A site whose `/robots.txt` is fetched (checker's limits).
    #[serde(default)]
    pub(crate) url: Option<String>,
    /// The name shown for the file (default `robots.txt`; for a URL, the
    /// URL fetched).
    #[serde(default)]
    pub(crate) name: Option<String>,
}

/// A robots.txt to check: its name, its bytes, and the fetch it came from.
pub(crate) struct Loaded {
    pub(crate) name: String,
    pub(crate) body: Vec<u8>,
    pub(crate) fetched: Option<FetchSummary>,
    /// When the fetch came from the service's cache: how old it is and
    /// how long it is kept.
    pub(crate) cached: Option<FromCache>,
}

/// A fetch answered from the cache.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FromCache {
    pub(crate) age: std::time::Duration,
    pub(crate) kept: std::time::Duration,
}

fn too_big() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!(
            "the robots.txt is over {MAX_BODY} bytes (10 MiB), more than botwarden reads; \
             Google reads only the first 500 KiB"
        ),
    )
}

/// The robots.txt URL of a site the caller names: `400 invalid_url` for
/// text that is not a URL, and for a URL of another scheme than `http` or
/// `https` (`file:`, `ftp:`, `gopher:`, ...), which is never fetched.
pub(crate) fn site_robots_url(url: &str) -> Result<url::Url, ApiError> {
    botwarden_fetch::robots_url(url).map_err(|e| fetch_error(&e))
}

/// A fetch error as an answer: a bad URL is the caller's (`400`), a
/// refused address is refused (`403`), the rest is the site's (`502`).
fn fetch_error(e: &botwarden_fetch::Error) -> ApiError {
    match e {
        botwarden_fetch::Error::InvalidUrl { .. }
        | botwarden_fetch::Error::UnsupportedScheme { .. } => {
            ApiError::new(StatusCode::BAD_REQUEST, "invalid_url", e.to_string())
        }
        botwarden_fetch::Error::Refused { .. } => ApiError::new(
            StatusCode::FORBIDDEN,
            "refused_address",
            format!("{e}; the service is not configured to fetch from private addresses"),
        ),
        _ => ApiError::new(StatusCode::BAD_GATEWAY, "fetch_failed", e.to_string()),
    }
}

impl Inner {
    /// The robots.txt an input names; a URL is fetched as `robots check
    /// URL` fetches it (its body kept when an availability policy parses
    /// it, and the fetch's decisions under every policy).
    pub(crate) async fn load(&self, input: Input, text_only: bool) -> Result<Loaded, ApiError> {
        let given = [
            input.robots_txt.is_some(),
            input.robots_txt_base64.is_some(),
            input.url.is_some(),
        ];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(ApiError::bad(if text_only {
                "give exactly one of robots_txt and robots_txt_base64"
            } else {
                "give exactly one of robots_txt, robots_txt_base64 and url"
            }));
        }
        let name = input.name.unwrap_or_else(|| "robots.txt".to_owned());
        if let Some(text) = input.robots_txt {
            if text.len() > MAX_BODY {
                return Err(too_big());
            }
            return Ok(Loaded {
                name,
                body: text.into_bytes(),
                fetched: None,
                cached: None,
            });
        }
        if let Some(b64) = input.robots_txt_base64 {
            let body = base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .map_err(|e| ApiError::bad(format!("robots_txt_base64 is not base64: {e}")))?;
            if body.len() > MAX_BODY {
                return Err(too_big());
            }
            return Ok(Loaded {
                name,
                body,
                fetched: None,
                cached: None,
            });
        }
        let url = input.url.unwrap_or_default();
        if text_only {
            return Err(ApiError::bad("url is not accepted here; give the file"));
        }
        let robots_url = site_robots_url(&url)?;
        let key = robots_url.as_str();
        let (fetched, cached) = if let Some(hit) = self.robots_cache.get(key) {
            self.metrics
                .robots_cache_hits
                .fetch_add(1, Ordering::Relaxed);
            let cached = Some(FromCache {
                age: hit.age,
                kept: hit.kept,
            });
            (hit.fetch, cached)
        } else {
            self.metrics
                .robots_cache_misses
                .fetch_add(1, Ordering::Relaxed);
            let fetched = Arc::new(
                self.fetcher
                    .fetch_robots(&url)
                    .await
                    .map_err(|e| fetch_error(&e))?,
            );
            self.robots_cache.put(key, Arc::clone(&fetched));
            (fetched, None)
        };
        let parsed = fetched.outcome().is_read_by(&AvailabilityPolicy::ALL);
        Ok(Loaded {
            name: fetched.robots_url.to_string(),
            body: if parsed {
                fetched.report.body.clone()
            } else {
                Vec::new()
            },
            fetched: Some(fetched.summary(&AvailabilityPolicy::ALL)),
            cached,
        })
    }
}

/// A profile by name, or the error that lists the known ones.
pub(crate) fn profile(name: &str) -> Result<&'static Profile, ApiError> {
    Profile::by_name(name).ok_or_else(|| {
        ApiError::bad(format!(
            "unknown profile '{name}' (known: {})",
            Profile::names()
        ))
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckRequest {
    robots_txt: Option<String>,
    robots_txt_base64: Option<String>,
    url: Option<String>,
    name: Option<String>,
    /// Profiles of the matrix (default: all).
    #[serde(default)]
    profiles: Vec<String>,
    /// More robots for the matrix.
    #[serde(default)]
    agents: Vec<String>,
}

/// The input fields of a request (serde's `flatten` and
/// `deny_unknown_fields` do not mix, so each request lists them).
macro_rules! input_of {
    ($r:expr) => {
        Input {
            robots_txt: $r.robots_txt,
            robots_txt_base64: $r.robots_txt_base64,
            url: $r.url,
            name: $r.name,
        }
    };
}

/// `POST /api/v1/check`: `robots check --format json`.
pub(crate) async fn check(
    State(inner): State<Shared>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (request, admission): (CheckRequest, _) = json(&inner, &headers, body).await?;
    let profiles = request
        .profiles
        .iter()
        .map(|p| profile(p))
        .collect::<Result<Vec<_>, _>>()?;
    let agents = request.agents;
    let loaded = inner.load(input_of!(request), false).await?;
    // Set when this request goes away: the check stops within a pass.
    let cancelled = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _cancel = CancelOnDrop(Arc::clone(&cancelled));
    let text = inner
        .run_admitted(admission, move || {
            let txt = RobotsTxt::parse(loaded.body);
            let agents: Vec<&str> = agents.iter().map(String::as_str).collect();
            CheckReport::new_cancellable(
                loaded.name,
                &txt,
                &profiles,
                &agents,
                loaded.fetched,
                cancelled,
            )
            .map(|report| check_json(&report).map(|t| t + "\n"))
        })
        .await?
        .ok_or_else(ApiError::cancelled)?
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    Ok(json_body(text))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FixRequest {
    robots_txt: Option<String>,
    robots_txt_base64: Option<String>,
    url: Option<String>,
    name: Option<String>,
    /// List every change in the summary.
    #[serde(default)]
    verbose: bool,
}

/// `POST /api/v1/fix`: what `robots fix` writes (the fixed file, its
/// standard output) and says (the summary, its standard error), with the
/// counts.
pub(crate) async fn fix(
    State(inner): State<Shared>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (request, admission): (FixRequest, _) = json(&inner, &headers, body).await?;
    let verbose = request.verbose;
    let loaded = inner.load(input_of!(request), false).await?;
    let doc = inner
        .run_admitted(admission, move || {
            let txt = RobotsTxt::parse(loaded.body);
            let report = FixReport::new(loaded.name, &txt);
            let eq = &report.equivalence;
            serde_json::json!({
                "source": report.name,
                "fixed": report.fixed.text,
                "changes": report.fixed.changes.len(),
                "holds": eq.holds(),
                "complete": eq.is_complete(),
                "intended_differences": eq.intended_found,
                "unintended_differences": eq.unintended_found,
                "summary": fix_text(&report, verbose),
            })
        })
        .await?;
    Ok(json_body(doc.to_string() + "\n"))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TestRequest {
    robots_txt: Option<String>,
    robots_txt_base64: Option<String>,
    /// Product tokens, most specific first, comma-separated.
    agent: String,
    /// The profile (default `rfc9309`).
    #[serde(default)]
    profile: Option<String>,
    /// URLs or paths.
    urls: Vec<String>,
}

/// One answer of `robots test --format json`, fields in its order.
#[derive(serde::Serialize)]
pub(crate) struct Answer<'a> {
    pub(crate) url: &'a str,
    pub(crate) allowed: bool,
    pub(crate) profile: &'a str,
    pub(crate) agent: &'a str,
    pub(crate) rule: Option<String>,
    pub(crate) line: Option<u32>,
    pub(crate) group: Option<&'a str>,
    pub(crate) reason: String,
}

/// The answers of `robots test --format json` for `urls`, one JSON value
/// each.
pub(crate) fn test_answers(
    txt: &RobotsTxt,
    profile: &'static Profile,
    agent: &str,
    urls: &[String],
) -> Vec<serde_json::Value> {
    let chain = TokenChain::parse(agent);
    let matcher = RobotMatcher::new(txt, profile, &chain);
    urls.iter()
        .map(|url| answer(txt, &matcher, &chain, profile, agent, url))
        .collect()
}

/// One URL's answer, as JSON.
fn answer(
    txt: &RobotsTxt,
    matcher: &RobotMatcher,
    chain: &TokenChain,
    profile: &'static Profile,
    agent: &str,
    url: &str,
) -> serde_json::Value {
    let d = matcher.check(url);
    let (rule, line) = match d.reason {
        Reason::Rule { index, line } => (Some(matcher.rule_as_written(txt, index)), Some(line)),
        _ => (None, None),
    };
    let answer = Answer {
        url,
        allowed: d.allowed,
        profile: profile.name,
        agent,
        rule,
        line,
        group: match matcher.applies() {
            Applies::Token(t) => Some(t.as_str()),
            Applies::Star => Some("*"),
            Applies::Nothing => None,
        },
        reason: d.explain(matcher, txt, chain).to_string(),
    };
    serde_json::to_value(&answer).unwrap_or(serde_json::Value::Null)
}

/// The work one `POST /api/v1/test` may take: URL bytes matched times the
/// wildcards of the file (each `*` may make the matcher walk the rest of
/// the URL again), summed over its URLs. About a second of matching.
pub(crate) const TEST_WORK_BUDGET: u64 = 2_000_000_000;

/// Why URL tests stopped before their end.
pub(crate) enum Stopped {
    /// Over [`TEST_WORK_BUDGET`] after this many URLs.
    OverBudget(usize),
    /// The request went away (its client left, or it timed out).
    Cancelled,
}

/// Sets its flag when dropped: the request's future held it, so work on a
/// blocking thread sees that nobody waits for it any more.
pub(crate) struct CancelOnDrop(pub(crate) Arc<std::sync::atomic::AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// [`test_answers`] within [`TEST_WORK_BUDGET`], stopped as soon as
/// `cancelled` is set: each URL's work is counted before it is matched.
pub(crate) fn test_answers_within(
    txt: &RobotsTxt,
    profile: &'static Profile,
    agent: &str,
    urls: &[String],
    cancelled: &std::sync::atomic::AtomicBool,
) -> Result<Vec<serde_json::Value>, Stopped> {
    let wildcards = txt.bytes().iter().filter(|b| **b == b'*').count();
    let per_byte = u64::try_from(wildcards)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let chain = TokenChain::parse(agent);
    let matcher = RobotMatcher::new(txt, profile, &chain);
    let mut work: u64 = 0;
    let mut answers = Vec::with_capacity(urls.len());
    for (i, url) in urls.iter().enumerate() {
        if cancelled.load(Ordering::Relaxed) {
            return Err(Stopped::Cancelled);
        }
        let len = u64::try_from(url.len()).unwrap_or(u64::MAX);
        work = work.saturating_add(len.saturating_mul(per_byte));
        if work > TEST_WORK_BUDGET {
            return Err(Stopped::OverBudget(i));
        }
        answers.push(answer(txt, &matcher, &chain, profile, agent, url));
    }
    Ok(answers)
}

/// What is wrong with an `agent`: `Err` when it has no product token,
/// else the warnings for tokens robots never match.
pub(crate) fn agent_warnings(agent: &str) -> Result<Vec<String>, String> {
    let chain = TokenChain::parse(agent);
    if chain.tokens().is_empty() && agent.trim() != "*" {
        return Err(
            "agent needs at least one product token (e.g. botwarden-phone,botwarden)".to_owned(),
        );
    }
    Ok(chain
        .invalid_tokens()
        .map(|token| {
            format!(
                "'{token}' is not a product token ([A-Za-z_-]+); \
                 robots that compare product tokens never match it"
            )
        })
        .collect())
}

/// `POST /api/v1/test`: `robots test --format json`, its lines as
/// `answers`.
pub(crate) async fn test(
    State(inner): State<Shared>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (request, admission): (TestRequest, _) = json(&inner, &headers, body).await?;
    let profile = profile(request.profile.as_deref().unwrap_or("rfc9309"))?;
    let warnings = agent_warnings(&request.agent).map_err(ApiError::bad)?;
    let loaded = inner
        .load(
            Input {
                robots_txt: request.robots_txt,
                robots_txt_base64: request.robots_txt_base64,
                url: None,
                name: None,
            },
            true,
        )
        .await?;
    let (agent, urls) = (request.agent, request.urls);
    // Set when this request goes away: the tests stop at the next URL.
    let cancelled = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _cancel = CancelOnDrop(Arc::clone(&cancelled));
    let answers = inner
        .run_admitted(admission, move || {
            let txt = RobotsTxt::parse(loaded.body);
            test_answers_within(&txt, profile, &agent, &urls, &cancelled)
        })
        .await?
        .map_err(|stopped| match stopped {
            Stopped::OverBudget(done) => ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "work_budget",
                format!(
                    "testing these URLs is more work than one request may take (URL bytes \
                     times the file's wildcards, at most {TEST_WORK_BUDGET}; over it after \
                     {done} URLs): send fewer or shorter URLs"
                ),
            ),
            Stopped::Cancelled => ApiError::cancelled(),
        })?;
    let doc = serde_json::json!({"answers": answers, "warnings": warnings});
    Ok(json_body(doc.to_string() + "\n"))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FetchRequest {
    url: String,
    #[serde(default)]
    profiles: Vec<String>,
}

/// An availability policy by name.
fn policy(name: &str) -> Result<&'static AvailabilityPolicy, ApiError> {
    AvailabilityPolicy::by_name(name).ok_or_else(|| {
        let names: Vec<_> = AvailabilityPolicy::ALL.iter().map(|p| p.name).collect();
        ApiError::bad(format!(
            "unknown profile '{name}' (known: {})",
            names.join(", ")
        ))
    })
}

async fn fetch_answer(inner: &Inner, request: FetchRequest) -> Result<Response, ApiError> {
    let mut policies: Vec<&'static AvailabilityPolicy> = Vec::new();
    for name in &request.profiles {
        let p = policy(name)?;
        if !policies.contains(&p) {
            policies.push(p);
        }
    }
    if policies.is_empty() {
        policies = AvailabilityPolicy::ALL.to_vec();
    }
    site_robots_url(&request.url)?;
    let fetched = inner
        .fetcher
        .fetch_robots(&request.url)
        .await
        .map_err(|e| fetch_error(&e))?;
    let summary = fetched.summary(&policies);
    let text = fetch_json(&summary)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    Ok(json_body(text + "\n"))
}

/// `GET /api/v1/fetch?url=&profile=a,b`: `robots fetch --format json`.
pub(crate) async fn fetch_get(
    State(inner): State<Shared>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let pairs = query_pairs(query.as_deref(), &["url", "profile"])?;
    let url = pair(&pairs, "url").ok_or_else(|| ApiError::bad("the url parameter is missing"))?;
    let profiles = pair(&pairs, "profile")
        .map(|p| p.split(',').map(str::trim).map(str::to_owned).collect())
        .unwrap_or_default();
    fetch_answer(
        &inner,
        FetchRequest {
            url: url.to_owned(),
            profiles,
        },
    )
    .await
}

/// `POST /api/v1/fetch` with `{"url", "profiles"}`.
pub(crate) async fn fetch_post(
    State(inner): State<Shared>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (request, _admitted): (FetchRequest, _) = json(&inner, &headers, body).await?;
    fetch_answer(&inner, request).await
}

/// `GET /api/v1/verify?ip=&ua=&bot=`: `bots verify IP --format json`.
pub(crate) async fn verify(
    State(inner): State<Shared>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let pairs = query_pairs(query.as_deref(), &["ip", "ua", "bot"])?;
    let text = pair(&pairs, "ip").ok_or_else(|| ApiError::bad("the ip parameter is missing"))?;
    let ip = text
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .map_err(|_| ApiError::bad(format!("'{text}' is not an IP address")))?;
    let (ua, bot) = (pair(&pairs, "ua"), pair(&pairs, "bot"));
    if let Some(bot) = bot
        && inner.registry.find(bot).is_none()
    {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_bot",
            format!("no bot named '{bot}' in the registry"),
        ));
    }
    let verdict = pending::api_verdict(&inner, ip, ua, bot).await?;
    let doc = VerdictJson::new(ip, ua, &verdict);
    let text = serde_json::to_string(&doc)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    Ok(json_body(text + "\n"))
}

/// `POST /api/v1/verify`: a signed request's verdict.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SignedRequest {
    /// The client's address; without it, an unsigned request (or a
    /// signature that does not decide) is `unverifiable`.
    #[serde(default)]
    ip: Option<String>,
    #[serde(default)]
    ua: Option<String>,
    #[serde(default)]
    bot: Option<String>,
    #[serde(default = "get")]
    method: String,
    #[serde(default = "https")]
    scheme: String,
    authority: String,
    #[serde(default = "slash")]
    target: String,
    /// The request's header fields: an object of names to values (a value
    /// may be an array for a field sent on several lines).
    #[serde(default)]
    headers: serde_json::Map<String, serde_json::Value>,
    /// The time to check the signature at (seconds since 1970); default
    /// now.
    #[serde(default)]
    at: Option<i64>,
}

fn get() -> String {
    "GET".to_owned()
}
fn https() -> String {
    "https".to_owned()
}
fn slash() -> String {
    "/".to_owned()
}

/// `POST /api/v1/verify`.
pub(crate) async fn verify_signed(
    State(inner): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    // Directory fetches are charged to whoever asks (not to `ip`, which
    // the asker writes).
    let asker = inner.proxies.client_or_peer(peer.ip(), &headers);
    let (asked, _admitted): (SignedRequest, _) = json(&inner, &headers, body).await?;
    let ip = asked
        .ip
        .as_deref()
        .map(|t| {
            t.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .map_err(|_| ApiError::bad(format!("'{t}' is not an IP address")))
        })
        .transpose()?;
    if let Some(bot) = &asked.bot
        && inner.registry.find(bot).is_none()
    {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_bot",
            format!("no bot named '{bot}' in the registry"),
        ));
    }
    let mut fields: Vec<(&str, &str)> = Vec::new();
    for (name, value) in &asked.headers {
        match value {
            serde_json::Value::String(s) => fields.push((name, s)),
            serde_json::Value::Array(lines) => {
                for (i, line) in lines.iter().enumerate() {
                    let s = line.as_str().ok_or_else(|| {
                        ApiError::bad(format!("headers.{name}[{i}] is not a string"))
                    })?;
                    fields.push((name, s));
                }
            }
            _ => {
                return Err(ApiError::bad(format!(
                    "headers.{name} is not a string or an array of strings"
                )));
            }
        }
    }
    let mut req =
        RequestParts::new(&asked.method, &asked.authority, &asked.target).scheme(&asked.scheme);
    for (n, v) in &fields {
        req.push_header(n, v);
    }
    let ua = asked.ua.as_deref().or_else(|| {
        fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("user-agent"))
            .map(|(_, v)| *v)
    });
    let now = match asked.at {
        Some(secs) => SystemTime::UNIX_EPOCH
            .checked_add(Duration::from_secs(
                u64::try_from(secs)
                    .map_err(|_| ApiError::bad(format!("at = {secs} is before 1970")))?,
            ))
            .ok_or_else(|| ApiError::bad(format!("at = {secs} is out of range")))?,
        None => SystemTime::now(),
    };
    let limit = Duration::from_secs_f64(inner.config.verify_timeout);
    let check = inner.webbotauth.check(&req, asker, limit, now).await;
    let bot = asked.bot.as_deref();
    let verdict: Verdict = match ip {
        Some(ip) => {
            // Keys that cannot be had decide nothing: the address does, as
            // for an unsigned request (the check is reported beside it).
            let claim = Claim::asked(&inner.classifier, ua, bot);
            let signed = match check {
                SignatureCheck::Undecided { .. } => None,
                _ => inner.verifier.signature_verdict(&claim, &check),
            };
            match signed {
                Some(verdict) => verdict,
                None => (*pending::api_verdict(&inner, ip, ua, bot).await?).clone(),
            }
        }
        None => inner
            .verifier
            .check_signed_without_address(&inner.classifier, ua, bot, &check),
    };
    let doc = SignedVerdictJson::new(ip, ua, &verdict, &check);
    let text = serde_json::to_string(&doc)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    Ok(json_body(text + "\n"))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassifyRequest {
    user_agents: Vec<String>,
    #[serde(default)]
    explain: bool,
}

/// The most User-Agents one classify request may hold.
const MAX_USER_AGENTS: usize = 10_000;

/// `POST /api/v1/classify`: `bots classify --format json`, its lines as
/// `results`.
pub(crate) async fn classify(
    State(inner): State<Shared>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (request, admission): (ClassifyRequest, _) = json(&inner, &headers, body).await?;
    if request.user_agents.len() > MAX_USER_AGENTS {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!(
                "{} User-Agents given; at most {MAX_USER_AGENTS} per request",
                request.user_agents.len()
            ),
        ));
    }
    // Classifying thousands of User-Agents takes a while: on a worker,
    // never on the threads that answer `/verify`.
    let classifier = Arc::clone(&inner);
    let text = inner
        .run_admitted(admission, move || {
            let results: Vec<serde_json::Value> = request
                .user_agents
                .iter()
                .map(|ua| {
                    let doc = if request.explain {
                        let e = classifier.classifier.explain(ua);
                        serde_json::to_value(ClassificationJson::new(
                            ua,
                            &e.classification,
                            Some(&e),
                        ))
                    } else {
                        let c = classifier.classifier.classify(ua);
                        serde_json::to_value(ClassificationJson::new(ua, &c, None))
                    };
                    doc.unwrap_or(serde_json::Value::Null)
                })
                .collect();
            serde_json::json!({ "results": results }).to_string() + "\n"
        })
        .await?;
    Ok(json_body(text))
}

/// The API's description, OpenAPI 3.1.
pub(crate) const OPENAPI: &str = include_str!("openapi.json");

/// `GET /api/v1/openapi.json`.
pub(crate) async fn openapi() -> Response {
    json_body(OPENAPI.to_owned())
}

/// Any other path under `/api/v1/`.
pub(crate) async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "no such endpoint; /api/v1/openapi.json lists them",
    )
}

/// A known path with another method.
pub(crate) async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this endpoint does not take that method; /api/v1/openapi.json lists them",
    )
}
