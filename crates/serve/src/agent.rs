//! `bots check-agent` in the service: `GET /agent` (a page: give an
//! agent, and a request it signed if you like) and `GET`/`POST
//! /api/v1/check-agent` (its JSON). The directory is fetched with the
//! service's fetcher (its address guard, `allow_private`, `ca_cert`); each
//! check is admitted as a job, as the robots.txt checks are.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use botwarden_text::HtmlText;
use botwarden_verify::{
    AgentCheck, AgentSeverity, OwnedRequest, Reader, ReaderVerdict, agent_directory_url,
    check_agent,
};
use serde::Deserialize;

use crate::page::{error_page, form_body, h, h_lines, page};
use crate::reply::{ApiError, json_body};
use crate::request::{json, pair, query_pairs};
use crate::state::{Inner, Shared};

/// The most of a directory read.
const MAX_DIRECTORY: usize = 64 * 1024;

/// What is asked: the agent (or none: the sample's), a sample, a time.
struct Ask {
    agent: Option<String>,
    sample: Option<OwnedRequest>,
    at: Option<SystemTime>,
}

/// Runs the check: the agent's directory fetched and read with the sample.
async fn run(inner: &Inner, ask: Ask) -> Result<AgentCheck, ApiError> {
    let agent = match (&ask.agent, &ask.sample) {
        (Some(a), _) if !a.trim().is_empty() => a.trim().to_owned(),
        (_, Some(sample)) => botwarden_verify::sample_agent(&sample.parts())
            .map(|a| a.uri)
            .ok_or_else(|| {
                ApiError::bad(
                    "the sample names no signature agent (no web-bot-auth signature covering a \
                     readable Signature-Agent); give the agent's origin",
                )
            })?,
        _ => {
            return Err(ApiError::bad(
                "give the agent (its origin or directory URL), a signed sample, or both",
            ));
        }
    };
    let url = agent_directory_url(&agent).map_err(ApiError::bad)?;
    let observed = botwarden_fetch::observe_directory(&inner.fetcher, &url, MAX_DIRECTORY).await;
    let now = ask.at.unwrap_or_else(SystemTime::now);
    let parts = ask.sample.as_ref().map(OwnedRequest::parts);
    Ok(check_agent(
        &agent,
        &observed,
        parts.as_ref(),
        now,
        inner.config.allow_private,
    ))
}

fn report_json(report: &AgentCheck) -> Result<Response, ApiError> {
    let text = serde_json::to_string(report)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    Ok(json_body(text + "\n"))
}

/// `GET /api/v1/check-agent?agent=URL`.
pub(crate) async fn api_get(
    State(inner): State<Shared>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let pairs = query_pairs(query.as_deref(), &["agent"])?;
    let agent =
        pair(&pairs, "agent").ok_or_else(|| ApiError::bad("the agent parameter is missing"))?;
    let _admitted = inner.admit()?;
    let report = run(
        &inner,
        Ask {
            agent: Some(agent.to_owned()),
            sample: None,
            at: None,
        },
    )
    .await?;
    report_json(&report)
}

/// The body of `POST /api/v1/check-agent`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckAgentRequest {
    /// The agent: its origin or directory URL; without it, the sample's.
    #[serde(default)]
    agent: Option<String>,
    /// A request the agent signed.
    #[serde(default)]
    sample: Option<Sample>,
    /// The time to check at (seconds since 1970); default now.
    #[serde(default)]
    at: Option<u64>,
}

/// A signed request, as `POST /api/v1/verify` takes one.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Sample {
    #[serde(default = "get")]
    method: String,
    authority: Option<String>,
    #[serde(default = "slash")]
    target: String,
    /// Names to values (an array for a field sent on several lines).
    #[serde(default)]
    headers: serde_json::Map<String, serde_json::Value>,
}

fn get() -> String {
    "GET".to_owned()
}

fn slash() -> String {
    "/".to_owned()
}

impl Sample {
    fn request(self) -> Result<OwnedRequest, ApiError> {
        let mut fields = Vec::new();
        for (name, value) in self.headers {
            match value {
                serde_json::Value::String(s) => fields.push((name, s)),
                serde_json::Value::Array(lines) => {
                    for (i, line) in lines.into_iter().enumerate() {
                        let serde_json::Value::String(s) = line else {
                            return Err(ApiError::bad(format!(
                                "sample.headers.{name}[{i}] is not a string"
                            )));
                        };
                        fields.push((name.clone(), s));
                    }
                }
                _ => {
                    return Err(ApiError::bad(format!(
                        "sample.headers.{name} is not a string or an array of strings"
                    )));
                }
            }
        }
        OwnedRequest::from_fields(
            &self.method,
            &self.target,
            self.authority.as_deref(),
            fields,
            "sample",
        )
        .map_err(|e| ApiError::bad(format!("{e} or sample.authority")))
    }
}

/// `POST /api/v1/check-agent` with `{"agent", "sample", "at"}`.
pub(crate) async fn api_post(
    State(inner): State<Shared>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (asked, _admitted): (CheckAgentRequest, _) = json(&inner, &headers, body).await?;
    let sample = asked.sample.map(Sample::request).transpose()?;
    let report = run(
        &inner,
        Ask {
            agent: asked.agent,
            sample,
            at: asked
                .at
                .map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s)),
        },
    )
    .await?;
    report_json(&report)
}

/// The form: an agent, and a raw signed request.
fn form(agent: &str, request: &str) -> String {
    format!(
        "<form method=\"post\" action=\"/agent\">\n\
         <label for=\"agent\">Agent (its origin, as in Signature-Agent)</label>\n\
         <input id=\"agent\" name=\"agent\" type=\"url\" size=\"60\" value=\"{}\" \
         placeholder=\"https://crawler.example\">\n\
         <label for=\"request\">A request it signed (optional: the request line, then its \
         header fields)</label>\n\
         <textarea id=\"request\" name=\"request\" rows=\"8\" spellcheck=\"false\">{}</textarea>\n\
         <button type=\"submit\">Check</button>\n</form>\n",
        h(agent),
        h_lines(request)
    )
}

fn intro() -> &'static str {
    "<h1>Signed agent check</h1>\n<p>Whether sites will accept a signed agent's requests \
     (Web Bot Auth): its key directory and, when given, a request it signed, read as the \
     protocol draft (-02) reads them, as Cloudflare's documentation says its verifier does, \
     and by botwarden.</p>\n"
}

/// `GET /agent` (`?agent=URL` checks it).
pub(crate) async fn page_get(State(inner): State<Shared>, RawQuery(query): RawQuery) -> Response {
    let pairs = match query_pairs(query.as_deref(), &["agent"]) {
        Ok(p) => p,
        Err(e) => return error_page(&e),
    };
    let Some(agent) = pair(&pairs, "agent").filter(|a| !a.trim().is_empty()) else {
        let body = format!("{}{}", intro(), form("", ""));
        return page(StatusCode::OK, "Signed agent check", &body);
    };
    let _admitted = match inner.admit() {
        Ok(a) => a,
        Err(e) => return error_page(&e),
    };
    let ask = Ask {
        agent: Some(agent.to_owned()),
        sample: None,
        at: None,
    };
    match run(&inner, ask).await {
        Ok(report) => result_page(&report, agent, ""),
        Err(e) => error_page(&e),
    }
}

/// `POST /agent` with the form's `agent` and `request`.
pub(crate) async fn page_post(
    State(inner): State<Shared>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let (_admitted, bytes) = match form_body(&inner, &headers, body).await {
        Ok(read) => read,
        Err(page) => return page,
    };
    let (mut agent, mut request) = (String::new(), String::new());
    for (k, v) in url::form_urlencoded::parse(&bytes) {
        match &*k {
            "agent" => agent = v.into_owned(),
            "request" => request = v.into_owned(),
            _ => {}
        }
    }
    let sample = if request.trim().is_empty() {
        None
    } else {
        match OwnedRequest::from_raw(request.trim_start(), None, "the request") {
            Ok(r) => Some(r),
            Err(e) => return error_page(&ApiError::bad(e)),
        }
    };
    let ask = Ask {
        agent: Some(agent.clone()),
        sample,
        at: None,
    };
    match run(&inner, ask).await {
        Ok(report) => result_page(&report, &agent, &request),
        Err(e) => error_page(&e),
    }
}

fn cell(v: &ReaderVerdict) -> String {
    let class = match v.outcome {
        botwarden_verify::Outcome::Verifies => "allowed",
        botwarden_verify::Outcome::Depends => "warning",
        botwarden_verify::Outcome::Fails => "disallowed",
    };
    let because = if v.because.is_empty() {
        String::new()
    } else {
        format!(" ({})", v.because.join(", "))
    };
    format!(
        "<td class=\"{class}\">{}{}</td>",
        v.outcome.as_str(),
        h(&because)
    )
}

fn result_page(report: &AgentCheck, agent: &str, request: &str) -> Response {
    let mut out = String::from(intro());
    let _ = write!(
        out,
        "<h2>{}</h2>\n<p>Directory <code>{}</code>: {}</p>\n",
        h(&report.agent),
        h(&report.directory),
        h(&report.summary)
    );
    if !report.keys.is_empty() {
        out.push_str("<table>\n<tr><th>keyid</th><th>alg</th><th>signs the directory</th></tr>\n");
        for k in &report.keys {
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                h(&k.keyid),
                k.alg,
                if k.signed { "yes" } else { "no" }
            );
        }
        out.push_str("</table>\n");
    }
    out.push_str("<h2>Verdicts</h2>\n<table>\n<tr><th>reader</th><th>directory</th>");
    if report.sample_verdicts.is_some() {
        out.push_str("<th>sample</th>");
    }
    out.push_str("</tr>\n");
    for (i, r) in Reader::ALL.iter().enumerate() {
        let _ = write!(
            out,
            "<tr><th>{}</th>{}",
            r.title(),
            cell(&report.directory_verdicts[i])
        );
        if let Some(s) = &report.sample_verdicts {
            out.push_str(&cell(&s[i]));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    let _ = writeln!(out, "<p>Signer: {}</p>", h(&report.advice));
    let _ = writeln!(out, "<h2>Findings ({})</h2>", report.findings.len());
    if !report.findings.is_empty() {
        out.push_str("<ul>\n");
        for f in &report.findings {
            let class = match f.severity {
                AgentSeverity::Error => "error",
                AgentSeverity::Warning => "warning",
                AgentSeverity::Note => "info",
            };
            let effects: Vec<String> = f
                .effects
                .iter()
                .map(|(r, e)| {
                    format!(
                        "{} {}",
                        r.as_str(),
                        match e {
                            botwarden_verify::Effect::Fails => "fails",
                            botwarden_verify::Effect::Depends => "may fail",
                        }
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "<li class=\"{class}\"><strong>{} {}</strong> {}: {}{}</li>",
                f.code,
                f.severity.as_str(),
                f.name,
                HtmlText(&f.message),
                if effects.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", effects.join(", "))
                }
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<h2>Check another</h2>\n");
    out.push_str(&form(agent, request));
    page(StatusCode::OK, "Signed agent check", &out)
}
