//! The sample rules of `check-agent`: how each reader reads a signed
//! request (the form of `Signature-Agent`, the components, the parameters),
//! and botwarden's own check of it against the directory fetched.

use std::time::SystemTime;

use super::{AgentFinding, FormVerdict, Reader, SampleSummary, verdicts};
use crate::webbotauth::base::RequestParts;
use crate::webbotauth::check::{SignatureCheck, SignatureVerifier, WEB_BOT_AUTH_TAG};
use crate::webbotauth::fields::{
    Agent, AgentReading, SignatureInput, parse_agent, parse_signature_input,
};
use crate::webbotauth::keys::{KeyRing, KeySet};
use crate::webbotauth::signer::{AgentForm, Signer};

use Reader::{Botwarden, Cloudflare, Draft};

pub(super) struct SampleRead {
    pub(super) findings: Vec<AgentFinding>,
    pub(super) summary: SampleSummary,
}

fn unix(t: SystemTime) -> i64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Reads the sample: the rules, then botwarden's check with the keys of
/// `directory` (the URL fetched).
pub(super) fn read(
    req: &RequestParts<'_>,
    directory: &str,
    keys: Option<&KeySet>,
    signed: &[String],
    now: SystemTime,
) -> SampleRead {
    let (mut findings, mut summary) = rules(req, now);
    let mut ring = KeyRing::new();
    match keys {
        Some(keys) => ring.insert_directory(directory, keys.clone()),
        None => ring.insert_unreachable(directory, "the directory could not be used"),
    }
    let check = SignatureVerifier::default().check(req, &ring, now);
    summary.check = check.kind();
    match &check {
        SignatureCheck::Unsigned => {}
        SignatureCheck::Valid(ev) => {
            if !signed.is_empty() && !signed.contains(&ev.keyid) {
                findings.push(
                    AgentFinding::new(
                        "A019",
                        "key-unsigned",
                        format!(
                            "the sample is signed with {}, which no directory signature is \
                             made with: Cloudflare uses only keys that have one",
                            ev.keyid
                        ),
                    )
                    .fails(&[Cloudflare]),
                );
            }
        }
        SignatureCheck::Invalid { failure, .. } => {
            summary.reason = Some(failure.to_string());
            findings.push(
                AgentFinding::new(
                    "A039",
                    "sample-does-not-verify",
                    format!("the sample's signature does not verify: {failure}"),
                )
                .fails(&Reader::ALL),
            );
        }
        SignatureCheck::Undecided { reason, .. } => {
            summary.reason = Some(reason.clone());
            findings.push(
                AgentFinding::new(
                    "A039",
                    "sample-does-not-verify",
                    format!("the sample's signature cannot be checked: {reason}"),
                )
                .fails(&Reader::ALL),
            );
        }
    }
    SampleRead { findings, summary }
}

/// The rules over a signed request (no keys needed).
fn rules(req: &RequestParts<'_>, now: SystemTime) -> (Vec<AgentFinding>, SampleSummary) {
    let mut findings = Vec::new();
    let mut summary = SampleSummary {
        check: "unsigned",
        reason: None,
        label: None,
        components: Vec::new(),
        agent_form: None,
    };
    let inputs = req
        .header_value("signature-input")
        .map(|v| parse_signature_input(&v));
    let input = match inputs {
        None => {
            findings.push(
                AgentFinding::new(
                    "A030",
                    "sample-unsigned",
                    "the sample has no Signature-Input: it is not signed",
                )
                .fails(&Reader::ALL),
            );
            return (findings, summary);
        }
        // botwarden's check names what cannot be read.
        Some(Err(_)) => return (findings, summary),
        Some(Ok(all)) => match all
            .into_iter()
            .find(|i| i.tag.as_deref() == Some(WEB_BOT_AUTH_TAG))
        {
            Some(i) => i,
            None => return (findings, summary),
        },
    };
    summary.label = Some(input.label.clone());
    summary.components = input
        .components
        .iter()
        .map(|c| c.identifier.clone())
        .collect();
    components(&input, &mut findings);
    agent(req, &input, &mut findings, &mut summary);
    timing(&input, now, &mut findings);
    (findings, summary)
}

fn components(input: &SignatureInput, findings: &mut Vec<AgentFinding>) {
    let has = |n: &str| input.components.iter().any(|c| c.name == n);
    if !has("@authority") && has("@target-uri") {
        findings.push(
            AgentFinding::new(
                "A035",
                "sample-target-uri",
                "the signature covers @target-uri, not @authority: the draft allows either \
                 (since architecture-04), as botwarden does; Cloudflare's documentation asks \
                 for @authority and does not say whether @target-uri alone is taken",
            )
            .depends(&[Cloudflare]),
        );
    }
    let unsupported: Vec<&str> = input
        .components
        .iter()
        .filter(|c| c.sf || c.req || matches!(c.name.as_str(), "@query-param" | "@status"))
        .map(|c| c.identifier.as_str())
        .collect();
    if !unsupported.is_empty() {
        findings.push(
            AgentFinding::new(
                "A036",
                "sample-unsupported-component",
                format!(
                    "the signature covers {}: Cloudflare fails a message with the sf, bs, \
                     key, req or name parameters, @query-param or @status",
                    unsupported.join(", ")
                ),
            )
            .fails(&[Cloudflare]),
        );
    }
    if input.alg.as_deref().is_some_and(|a| a != "ed25519") {
        findings.push(
            AgentFinding::new(
                "A038",
                "sample-not-ed25519",
                format!(
                    "alg is `{}`: Cloudflare verifies Ed25519 signatures only",
                    input.alg.as_deref().unwrap_or_default()
                ),
            )
            .fails(&[Cloudflare]),
        );
    }
}

/// `Signature-Agent`: its form, its coverage, its member.
fn agent(
    req: &RequestParts<'_>,
    input: &SignatureInput,
    findings: &mut Vec<AgentFinding>,
    summary: &mut SampleSummary,
) {
    let covered = input
        .components
        .iter()
        .find(|c| c.name == "signature-agent");
    let Some(value) = req.header_value("signature-agent") else {
        findings.push(
            AgentFinding::new(
                "A034",
                "sample-no-agent",
                "the sample has no Signature-Agent: the draft (-02) has every signed request \
                 carry one (MUST); without it a verifier can only use keys it already holds \
                 (botwarden: the registry's)",
            )
            .fails(&[Draft])
            .depends(&[Botwarden]),
        );
        return;
    };
    let Some(component) = covered else {
        // botwarden's check says `not_covered`; every reader refuses.
        return;
    };
    let Ok(parsed) = parse_agent(&value, &input.label, component.key.as_deref()) else {
        return;
    };
    summary.agent_form = Some(parsed.reading.as_str());
    match parsed.reading {
        AgentReading::Dictionary => findings.push(
            AgentFinding::new(
                "A031",
                "sample-agent-form",
                format!(
                    "Signature-Agent is a dictionary (`{value}`): the draft's form, which \
                     Cloudflare's documentation says fails (it reads the structured string of \
                     the directory draft -03)"
                ),
            )
            .fails(&[Cloudflare]),
        ),
        AgentReading::String => findings.push(
            AgentFinding::new(
                "A031",
                "sample-agent-form",
                format!(
                    "Signature-Agent is a bare string (`{value}`): the form Cloudflare reads; \
                     the draft has signers send the dictionary form (MUST) and lets \
                     verifiers accept this one (MAY), as botwarden does"
                ),
            )
            .depends(&[Draft]),
        ),
        AgentReading::Unquoted => findings.push(
            AgentFinding::new(
                "A031",
                "sample-agent-form",
                format!(
                    "Signature-Agent is not a structured field (`{value}`, unquoted): \
                     Cloudflare fails a URL not in double quotes, and the draft's verifiers \
                     need a dictionary (or the quoted legacy string); botwarden reads it"
                ),
            )
            .fails(&[Draft, Cloudflare]),
        ),
    }
    match (&component.key, parsed.reading) {
        (Some(key), _) => {
            findings.push(
                AgentFinding::new(
                    "A032",
                    "sample-agent-key",
                    format!(
                        "the signature covers Signature-Agent with ;key=\"{key}\": Cloudflare \
                         fails the key parameter"
                    ),
                )
                .fails(&[Cloudflare]),
            );
            if *key != input.label {
                findings.push(
                    AgentFinding::new(
                        "A032",
                        "sample-agent-key",
                        format!(
                            "the covered member `{key}` is not the signature's label `{}`: the \
                             draft (-02) has each signature cover the member keyed to its own \
                             label (MUST)",
                            input.label
                        ),
                    )
                    .fails(&[Draft]),
                );
            }
        }
        (None, AgentReading::Dictionary) => findings.push(
            AgentFinding::new(
                "A032",
                "sample-agent-key",
                format!(
                    "the signature covers the whole Signature-Agent dictionary, not the member \
                     keyed to its label (\"signature-agent\";key=\"{}\"): the draft (-02) \
                     requires the member (MUST)",
                    input.label
                ),
            )
            .fails(&[Draft]),
        ),
        (None, _) => {}
    }
    if let Some(why) = &parsed.ignored {
        findings.push(
            AgentFinding::new(
                "A042",
                "sample-agent-ignored",
                format!(
                    "the Signature-Agent member is ignored ({why}): verifiers that follow the \
                     draft, botwarden among them, fetch no keys for it"
                ),
            )
            .fails(&[Draft, Botwarden]),
        );
    }
}

fn timing(input: &SignatureInput, now: SystemTime, findings: &mut Vec<AgentFinding>) {
    if let (Some(created), Some(expires)) = (input.created, input.expires) {
        if expires - created > 86_400 {
            findings.push(AgentFinding::new(
                "A037",
                "sample-long-validity",
                format!(
                    "the signature is valid for {} s: the draft recommends 24 hours at most, \
                     and Cloudflare a minute or so",
                    expires - created
                ),
            ));
        }
        let now = unix(now);
        if created > now {
            findings.push(
                AgentFinding::new(
                    "A040",
                    "sample-created-ahead",
                    format!(
                        "created is {} s ahead of this clock: Cloudflare's verifier allows no \
                         clock skew (botwarden allows 60 s)",
                        created - now
                    ),
                )
                .fails(&[Cloudflare]),
            );
        }
    }
}

/// The signature agent of the sample's first `web-bot-auth` signature,
/// ignored or not (what `check-agent` checks when no agent is given).
#[must_use]
pub fn sample_agent(req: &RequestParts<'_>) -> Option<Agent> {
    let input = parse_signature_input(&req.header_value("signature-input")?)
        .ok()?
        .into_iter()
        .find(|i| i.tag.as_deref() == Some(WEB_BOT_AUTH_TAG))?;
    let value = req.header_value("signature-agent")?;
    let key = input
        .components
        .iter()
        .find(|c| c.name == "signature-agent")
        .and_then(|c| c.key.clone());
    parse_agent(&value, &input.label, key.as_deref()).ok()
}

/// Each `Signature-Agent` form botwarden's signer sends, read with the
/// sample rules: a request signed in that form naming `agent`.
pub(super) fn forms(agent: &str, now: SystemTime) -> Vec<FormVerdict> {
    [
        ("dictionary", AgentForm::Dictionary),
        ("string", AgentForm::String),
    ]
    .into_iter()
    .filter_map(|(name, form)| {
        let signer = Signer::generate().ok()?.agent(agent, form).ok()?;
        let req = RequestParts::new("GET", "site.example", "/").scheme("https");
        let h = signer.sign(&req, now).ok()?;
        let mut signed = RequestParts::new("GET", "site.example", "/").scheme("https");
        for (n, v) in h.fields() {
            signed.push_header(n, v);
        }
        let (findings, _) = rules(&signed, now);
        Some(FormVerdict {
            form: name,
            verdicts: verdicts(&findings.iter().collect::<Vec<_>>()),
        })
    })
    .collect()
}
