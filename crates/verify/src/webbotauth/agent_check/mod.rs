//! What a signed agent's operator needs to know: whether sites will accept
//! its signatures. [`check_agent`] reads the agent's key directory as
//! fetched (and a signed sample request, when given) and reports, like
//! `robots check` does for robots.txt, each deviation as a finding with a
//! stable code, and whether it verifies under three readings:
//!
//! - [`Reader::Draft`]: the protocol draft as of
//!   `draft-meunier-webbotauth-httpsig-protocol-02` (the working group's
//!   -00), what it asks of signers and of verifiers;
//! - [`Reader::Cloudflare`]: Cloudflare's verifier as its documentation
//!   describes it (the largest deployed verifier; its rules are quoted in
//!   `crates/verify/docs/check-agent.md`, not guessed from behaviour);
//! - [`Reader::Botwarden`]: botwarden's own verifier, run for real.
//!
//! Nothing here fetches: the caller hands over the directory response
//! ([`DirectoryObservation`]); `botwarden-fetch` has the fetch.

mod directory;
mod render;
mod sample;

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde::Serialize;

use super::base::RequestParts;
use super::fields::{AgentKind, keys_url};
use super::keys::WELL_KNOWN_DIRECTORY;
pub use sample::sample_agent;

/// A verifier whose reading is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reader {
    /// The protocol draft (-02 = the working group's -00).
    Draft,
    /// Cloudflare's verifier, as documented.
    Cloudflare,
    /// botwarden's verifier.
    Botwarden,
}

impl Reader {
    /// The three, in report order.
    pub const ALL: [Reader; 3] = [Reader::Draft, Reader::Cloudflare, Reader::Botwarden];

    /// `draft`, `cloudflare` or `botwarden`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Reader::Draft => "draft",
            Reader::Cloudflare => "cloudflare",
            Reader::Botwarden => "botwarden",
        }
    }

    /// The name in reports.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Reader::Draft => "WG draft (protocol -02)",
            Reader::Cloudflare => "Cloudflare (documented)",
            Reader::Botwarden => "botwarden",
        }
    }
}

/// What a finding does to a reader's verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// It may still verify: the reader is allowed (not required) to
    /// accept this, or its documentation does not say.
    Depends,
    /// It does not verify.
    Fails,
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentSeverity {
    /// Worth knowing; no reader refuses for it.
    Note,
    /// A reader may refuse, or a requirement of the drafts is not met.
    Warning,
    /// A reader refuses (or a secret is exposed).
    Error,
}

impl AgentSeverity {
    /// `note`, `warning` or `error`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AgentSeverity::Note => "note",
            AgentSeverity::Warning => "warning",
            AgentSeverity::Error => "error",
        }
    }
}

/// One deviation: a stable code and name, how serious, what it is, and
/// what each reader does with it (readers not named accept it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentFinding {
    /// `A001`…
    pub code: &'static str,
    /// `directory-not-https`…
    pub name: &'static str,
    /// How serious.
    pub severity: AgentSeverity,
    /// What is wrong, naming the value, and why each reader minds.
    pub message: String,
    /// The readers that refuse it or may.
    pub effects: BTreeMap<Reader, Effect>,
}

impl AgentFinding {
    fn new(code: &'static str, name: &'static str, message: impl Into<String>) -> AgentFinding {
        AgentFinding {
            code,
            name,
            severity: AgentSeverity::Note,
            message: message.into(),
            effects: BTreeMap::new(),
        }
    }

    fn fails(mut self, readers: &[Reader]) -> AgentFinding {
        for r in readers {
            self.effects.insert(*r, Effect::Fails);
        }
        self.settle()
    }

    fn depends(mut self, readers: &[Reader]) -> AgentFinding {
        for r in readers {
            self.effects.entry(*r).or_insert(Effect::Depends);
        }
        self.settle()
    }

    fn warning(mut self) -> AgentFinding {
        self.severity = self.severity.max(AgentSeverity::Warning);
        self
    }

    fn error(mut self) -> AgentFinding {
        self.severity = AgentSeverity::Error;
        self
    }

    /// The severity follows the effects: a reader refusing is an error, a
    /// reader that may refuse a warning.
    fn settle(mut self) -> AgentFinding {
        let worst = self.effects.values().max().copied();
        let floor = match worst {
            Some(Effect::Fails) => AgentSeverity::Error,
            Some(Effect::Depends) => AgentSeverity::Warning,
            None => AgentSeverity::Note,
        };
        self.severity = self.severity.max(floor);
        self
    }
}

/// Whether a reader verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// It verifies.
    Verifies,
    /// It may: the reader is allowed to accept, or its documentation does
    /// not say.
    Depends,
    /// It does not.
    Fails,
}

impl Outcome {
    /// `verifies`, `depends` or `fails`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Verifies => "verifies",
            Outcome::Depends => "depends",
            Outcome::Fails => "fails",
        }
    }
}

/// A reader's verdict and the findings that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReaderVerdict {
    /// The reader.
    pub reader: Reader,
    /// Whether it verifies.
    pub outcome: Outcome,
    /// The codes of the findings that made it fail or depend.
    pub because: Vec<&'static str>,
}

/// The verdict of each reader over `findings`.
fn verdicts(findings: &[&AgentFinding]) -> Vec<ReaderVerdict> {
    Reader::ALL
        .iter()
        .map(|&reader| {
            let mut outcome = Outcome::Verifies;
            let mut because = Vec::new();
            for f in findings {
                if let Some(e) = f.effects.get(&reader) {
                    outcome = outcome.max(match e {
                        Effect::Depends => Outcome::Depends,
                        Effect::Fails => Outcome::Fails,
                    });
                    if !because.contains(&f.code) {
                        because.push(f.code);
                    }
                }
            }
            ReaderVerdict {
                reader,
                outcome,
                because,
            }
        })
        .collect()
}

/// The key directory response, as fetched (no redirect followed).
#[derive(Debug, Clone)]
pub struct DirectoryObservation {
    /// The URL fetched.
    pub url: String,
    /// The response, or why there is none (in a sentence).
    pub response: Result<DirectoryHttp, String>,
}

/// A key directory response.
#[derive(Debug, Clone)]
pub struct DirectoryHttp {
    /// The status.
    pub status: u16,
    /// The header fields, names lower case.
    pub headers: Vec<(String, String)>,
    /// The body, up to the limit.
    pub body: Vec<u8>,
    /// Whether the body was larger than the limit (and cut).
    pub over_limit: bool,
}

impl DirectoryHttp {
    fn header(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }
}

/// One key of the directory, as the report lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeySummary {
    /// The JWK thumbprint (what `keyid` names).
    pub keyid: String,
    /// `ed25519` or `rsa-pss-sha512`.
    pub alg: &'static str,
    /// The JWK's `kid`, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kid: Option<String>,
    /// Whether the directory response carries a valid signature by it.
    pub signed: bool,
}

/// What was read of the sample request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SampleSummary {
    /// botwarden's check: `valid`, `invalid`, `undecided` or `unsigned`.
    pub check: &'static str,
    /// Why, when not valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The signature's label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Its covered components, as identifiers.
    pub components: Vec<String>,
    /// How `Signature-Agent` was read (`dictionary`, `string`,
    /// `unquoted`), if sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_form: Option<&'static str>,
}

/// Which readers a signer's `Signature-Agent` form satisfies (with a good
/// directory): computed by signing a request in that form and reading it
/// with the sample rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FormVerdict {
    /// `dictionary` or `string` (`crawl --signature-agent-form`).
    pub form: &'static str,
    /// Each reader's verdict on a request signed so.
    pub verdicts: Vec<ReaderVerdict>,
}

/// The report of [`check_agent`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentCheck {
    /// The agent, as it would go in `Signature-Agent`.
    pub agent: String,
    /// The directory URL fetched.
    pub directory: String,
    /// The directory's status line, in a few words.
    pub summary: String,
    /// Its keys.
    pub keys: Vec<KeySummary>,
    /// Every finding, directory first, then the sample.
    pub findings: Vec<AgentFinding>,
    /// Each reader's verdict on the directory (can the keys be had).
    pub directory_verdicts: Vec<ReaderVerdict>,
    /// The sample, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<SampleSummary>,
    /// Each reader's verdict on the sample (directory findings included),
    /// when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_verdicts: Option<Vec<ReaderVerdict>>,
    /// Each signer form, read by each reader.
    pub forms: Vec<FormVerdict>,
    /// The signer setting to use, in a sentence.
    pub advice: String,
}

impl AgentCheck {
    /// Whether any finding is an error.
    #[must_use]
    pub fn has_errors(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.severity == AgentSeverity::Error)
    }
}

/// The directory URL of `agent` (what goes in `Signature-Agent`): a bare
/// origin's well-known directory, or the URL itself.
///
/// # Errors
///
/// A sentence, when `agent` is not an http(s) URL without a query or
/// fragment.
pub fn agent_directory_url(agent: &str) -> Result<String, String> {
    keys_url(agent).ok_or_else(|| {
        format!("`{agent}` is not an http(s) URL (an origin, or its well-known directory)")
    })
}

/// Checks a signed agent: `agent` as it goes in `Signature-Agent` (an
/// origin, or a directory URL), `observed` its directory as fetched from
/// [`agent_directory_url`], `sample` a request it signed (optional), `now`
/// the time; `allow_http` says whether plain http is allowed (loopback
/// tests, staging networks) as `--allow-private` does.
#[must_use]
pub fn check_agent(
    agent: &str,
    observed: &DirectoryObservation,
    sample: Option<&RequestParts<'_>>,
    now: SystemTime,
    allow_http: bool,
) -> AgentCheck {
    // A `jwks_uri` or card member names its keys by a URL with a path.
    let by_url = sample
        .and_then(sample::sample_agent)
        .is_some_and(|a| a.uri == agent && a.kind != AgentKind::Directory);
    let dir = directory::read(agent, observed, now, allow_http, by_url);
    let directory_verdicts = verdicts(&dir.findings.iter().collect::<Vec<_>>());
    let mut findings = dir.findings;
    let (summary_sample, sample_verdicts) = match sample {
        Some(req) => {
            let read = sample::read(req, &observed.url, dir.keys.as_ref(), &dir.signed, now);
            let all: Vec<&AgentFinding> = findings.iter().chain(read.findings.iter()).collect();
            let v = verdicts(&all);
            findings.extend(read.findings);
            (Some(read.summary), Some(v))
        }
        None => (None, None),
    };
    let forms = sample::forms(agent, now);
    let advice = render::advice(&forms, &directory_verdicts);
    AgentCheck {
        agent: agent.to_owned(),
        directory: observed.url.clone(),
        summary: dir.summary,
        keys: dir.key_summaries,
        findings,
        directory_verdicts,
        sample: summary_sample,
        sample_verdicts,
        forms,
        advice,
    }
}

/// Whether `url` is an origin's well-known directory URL.
fn is_well_known(url: &url::Url) -> bool {
    url.path() == WELL_KNOWN_DIRECTORY
}
