//! The JSON API under `/api/v1/`: the command's JSON answers over HTTP.
//!
//! Each handler builds its answer with the library calls the command uses
//! (`CheckReport::new` and `check_json`, `FixReport::new` and `fix_text`,
//! `RobotMatcher`, `RobotsFetch::summary` and `fetch_json`,
//! `Verifier::check_request`, `Classifier::classify`), so an answer is the
//! command's `--format json` output for the same input.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use botwarden_robots::report::{
    CheckReport, FetchSummary, FixReport, check_json, fetch_json, fix_text,
};
use botwarden_robots::{
    Applies, AvailabilityPolicy, Profile, Reason, RobotMatcher, RobotsTxt, TokenChain,
};
use botwarden_verify::{Classification, Evidence};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::state::{Admission, Inner, MAX_BODY, MAX_REQUEST_BODY, Shared};

/// An error answer: `{"error": {"code", "message"}}` with its status.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

impl ApiError {
    /// A request that went away (its client left, or it timed out) before
    /// its work was done: the work stopped.
    pub(crate) fn cancelled() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "cancelled",
            "the request went away before its work was done",
        )
    }

    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    pub(crate) fn bad(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub(crate) fn busy() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "too many checks are running or waiting; try again shortly",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "error": {"code": self.code, "message": self.message}
        });
        let mut response = (self.status, json_body(body.to_string() + "\n")).into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        response
    }
}

/// A JSON text as a response body, typed and not to be sniffed as
/// anything else.
pub(crate) fn json_body(text: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        text,
    )
        .into_response()
}

fn payload_too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("the request body is over {MAX_REQUEST_BODY} bytes (11 MiB)"),
    )
}

/// Reads the body of an admitted request: at most [`MAX_REQUEST_BODY`]
/// bytes (else `413`, at once for a larger declared length), within
/// `body_timeout` (else `408`), its bytes reserved out of
/// `max_body_bytes` (all at once for a declared length, else as they
/// come; `503 busy` when they cannot be).
pub(crate) async fn read_body(
    inner: &Inner,
    admission: &mut Admission,
    mut body: Body,
) -> Result<Bytes, ApiError> {
    let hint = HttpBody::size_hint(&body);
    if usize::try_from(hint.lower()).map_or(true, |n| n > MAX_REQUEST_BODY) {
        return Err(payload_too_large());
    }
    let declared = hint
        .exact()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0);
    inner.reserve_body(admission, declared)?;
    let limit = std::time::Duration::from_secs_f64(inner.config.body_timeout);
    let read = async {
        let mut reserved = declared;
        let mut bytes = Vec::with_capacity(declared);
        while let Some(frame) =
            std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await
        {
            let frame =
                frame.map_err(|e| ApiError::bad(format!("cannot read the request body: {e}")))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let len = bytes.len() + data.len();
            if len > MAX_REQUEST_BODY {
                return Err(payload_too_large());
            }
            if len > reserved {
                // Vec growth may take up to twice what is reserved; the
                // documented bound counts it.
                inner.reserve_body(admission, len - reserved)?;
                reserved = len;
            }
            bytes.extend_from_slice(&data);
        }
        Ok(Bytes::from(bytes))
    };
    if let Ok(read) = tokio::time::timeout(limit, read).await {
        read
    } else {
        inner.metrics.body_timeout();
        Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "body_timeout",
            format!(
                "the request body did not arrive within body_timeout ({} s)",
                inner.config.body_timeout
            ),
        ))
    }
}

/// A JSON request body: `Content-Type: application/json` (or none), read
/// into `T`; unknown fields are errors. The request is admitted as a job
/// (`max_jobs`) before any of its body is read; the admission, which
/// holds the body's bytes out of `max_body_bytes`, comes with it.
pub(crate) async fn json<T: DeserializeOwned>(
    inner: &Inner,
    headers: &HeaderMap,
    body: Body,
) -> Result<(T, Admission), ApiError> {
    if let Some(kind) = headers.get(header::CONTENT_TYPE) {
        let kind = kind.to_str().unwrap_or("");
        let essence = kind.split(';').next().unwrap_or("").trim();
        if !essence.eq_ignore_ascii_case("application/json") {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                format!("the body must be application/json, not '{kind}'"),
            ));
        }
    }
    let mut admission = inner.admit()?;
    let bytes = read_body(inner, &mut admission, body).await?;
    let value = serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_json",
            format!("the request body is not the JSON expected: {e}"),
        )
    })?;
    Ok((value, admission))
}

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
        let names: Vec<_> = Profile::ALL.iter().map(|p| p.name).collect();
        ApiError::bad(format!(
            "unknown profile '{name}' (known: {})",
            names.join(", ")
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

impl Inner {
    /// [`Inner::job_admitted`]: the work of a request admitted already.
    pub(crate) async fn run_admitted<T: Send + 'static>(
        &self,
        admission: Admission,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        self.job_admitted(admission, work)
            .await
            .ok_or_else(ApiError::busy)
    }
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

/// Query pairs, decoded; a name given twice is an error.
fn query_pairs(query: Option<&str>, known: &[&str]) -> Result<Vec<(String, String)>, ApiError> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if !known.contains(&&*k) {
            return Err(ApiError::bad(format!(
                "unknown query parameter '{k}' (known: {})",
                known.join(", ")
            )));
        }
        if pairs.iter().any(|(seen, _)| *seen == k) {
            return Err(ApiError::bad(format!(
                "query parameter '{k}' is given twice"
            )));
        }
        pairs.push((k.into_owned(), v.into_owned()));
    }
    Ok(pairs)
}

fn pair<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
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

/// A verdict as `bots verify --format json` writes it, fields in its
/// order.
#[derive(serde::Serialize)]
struct VerdictJson<'a> {
    ip: IpAddr,
    user_agent: Option<&'a str>,
    bot: Option<&'a str>,
    verdict: &'static str,
    method: Option<String>,
    reason: Option<&'a str>,
    evidence: Option<&'a Evidence>,
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
    let verdict = inner.api_address_verdict(ip, ua, bot).await?;
    let doc = VerdictJson {
        ip: botwarden_verify::normalize(ip),
        user_agent: ua,
        bot: verdict.bot(),
        verdict: verdict.kind(),
        method: verdict.method(),
        reason: verdict.reason(),
        evidence: verdict.evidence(),
    };
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

fn classification_json(
    ua: &str,
    c: &Classification<'_>,
    explanation: Option<&botwarden_verify::Explanation<'_>>,
) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "user_agent": ua,
        "bot": c.bot.map(|b| b.name),
        "category": c.category,
        "kind": c.kind.map(|k| k.as_str()),
        "source": c.source.map(|s| format!("{s:?}").to_lowercase()),
    });
    if let Some(e) = explanation {
        doc["explanation"] = serde_json::json!({
            "layer": e.layer,
            "rule": e.rule,
            "kind_word": e.kind_word,
            "text": e.to_string(),
        });
    }
    doc
}

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
                    if request.explain {
                        let e = classifier.classifier.explain(ua);
                        classification_json(ua, &e.classification, Some(&e))
                    } else {
                        classification_json(ua, &classifier.classifier.classify(ua), None)
                    }
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
