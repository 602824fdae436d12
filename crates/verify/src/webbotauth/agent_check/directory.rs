//! The directory rules of `check-agent`: what the fetch, the media type,
//! the keys, the digest, the response's signature and its caching headers
//! mean to each reader.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::{AgentFinding, DirectoryHttp, DirectoryObservation, KeySummary, Reader, is_well_known};
use crate::webbotauth::digest::check_content_digest;
use crate::webbotauth::directory::{
    DirectoryResponse, DirectorySignature, check_directory_response,
};
use crate::webbotauth::keys::{DIRECTORY_MEDIA_TYPE, KeyAlgorithm, KeySet};

use Reader::{Botwarden, Cloudflare, Draft};

/// What was read of the directory.
pub(super) struct DirRead {
    pub(super) findings: Vec<AgentFinding>,
    /// The keys botwarden reads (none if the directory cannot be used).
    pub(super) keys: Option<KeySet>,
    pub(super) key_summaries: Vec<KeySummary>,
    /// The `keyid`s with a valid directory signature.
    pub(super) signed: Vec<String>,
    pub(super) summary: String,
}

pub(super) fn read(
    agent: &str,
    observed: &DirectoryObservation,
    now: SystemTime,
    allow_http: bool,
    by_url: bool,
) -> DirRead {
    let mut out = DirRead {
        findings: Vec::new(),
        keys: None,
        key_summaries: Vec::new(),
        signed: Vec::new(),
        summary: String::new(),
    };
    let url = url::Url::parse(&observed.url).ok();
    agent_url(agent, url.as_ref(), allow_http, by_url, &mut out.findings);
    let http = match &observed.response {
        Err(why) => {
            out.summary = format!("not fetched: {why}");
            out.findings.push(
                AgentFinding::new(
                    "A002",
                    "directory-unreachable",
                    format!("the directory could not be fetched: {why}"),
                )
                .fails(&Reader::ALL),
            );
            return out;
        }
        Ok(http) => http,
    };
    if !status(http, &mut out) {
        return out;
    }
    let Some(keys) = body(http, &observed.url, url.as_ref(), &mut out) else {
        return out;
    };
    let signed = signature(http, &keys, &observed.url, now, &mut out.findings);
    caching(http, &mut out.findings);
    out.key_summaries = keys
        .keys()
        .iter()
        .map(|k| KeySummary {
            keyid: k.thumbprint().to_owned(),
            alg: k.algorithm().as_str(),
            kid: k.kid().map(str::to_owned),
            signed: signed.iter().any(|s| s == k.thumbprint()),
        })
        .collect();
    let unsigned: Vec<&str> = out
        .key_summaries
        .iter()
        .filter(|k| !k.signed)
        .map(|k| k.keyid.as_str())
        .collect();
    if !signed.is_empty() && !unsigned.is_empty() {
        out.findings.push(
            AgentFinding::new(
                "A019",
                "key-unsigned",
                format!(
                    "no directory signature is made with {}: the draft asks for one \
                     signature per key (SHOULD), and Cloudflare uses only the keys that have one",
                    unsigned.join(", ")
                ),
            )
            .depends(&[Cloudflare]),
        );
    }
    out.summary = format!(
        "HTTP {}, {}, {} key{}, {}",
        http.status,
        http.header("content-type")
            .unwrap_or_else(|| "no Content-Type".to_owned()),
        keys.keys().len(),
        if keys.keys().len() == 1 { "" } else { "s" },
        match (signed.is_empty(), http.header("content-digest").is_some()) {
            (true, _) => "not signed (or not validly)".to_owned(),
            (false, true) => "signed, keys bound by Content-Digest".to_owned(),
            (false, false) => "signed, without Content-Digest".to_owned(),
        }
    );
    out.signed = signed;
    out.keys = Some(keys);
    out
}

/// The agent's URL: https, an origin (or its well-known directory).
fn agent_url(
    agent: &str,
    url: Option<&url::Url>,
    allow_http: bool,
    by_url: bool,
    findings: &mut Vec<AgentFinding>,
) {
    let Some(url) = url else { return };
    if url.scheme() != "https" {
        let f = AgentFinding::new(
            "A001",
            "directory-not-https",
            format!(
                "{agent} is not https: the draft has the agent and its directory served over \
                 https (MUST), and Cloudflare fails a Signature-Agent that is not https://"
            ),
        );
        findings.push(if allow_http {
            f.fails(&[Draft, Cloudflare])
        } else {
            f.fails(&Reader::ALL)
        });
    }
    let origin = url.path().is_empty() || url.path() == "/";
    if !origin && !is_well_known(url) && !by_url {
        findings.push(
            AgentFinding::new(
                "A022",
                "agent-has-path",
                format!(
                    "{agent} has a path: a directory agent is an origin, and the draft (-02) has \
                     a verifier ignore a member with anything else, as botwarden does (the \
                     working group's -01 would fetch it as the key set); send the origin"
                ),
            )
            .fails(&[Draft, Botwarden])
            .depends(&[Cloudflare]),
        );
    }
}

/// The status: true when it is 200.
fn status(http: &DirectoryHttp, out: &mut DirRead) -> bool {
    if (300..400).contains(&http.status) {
        let to = http
            .header("location")
            .map_or_else(|| "nowhere".to_owned(), |l| format!("`{l}`"));
        out.summary = format!("HTTP {} to {to}", http.status);
        out.findings.push(
            AgentFinding::new(
                "A003",
                "directory-redirect",
                format!(
                    "the directory answers HTTP {} redirecting to {to}: discovery MUST NOT \
                     follow redirects (protocol draft -02), and botwarden does not; serve the \
                     directory itself, with 200 (Cloudflare's documentation does not say)",
                    http.status
                ),
            )
            .fails(&[Draft, Botwarden])
            .depends(&[Cloudflare]),
        );
        return false;
    }
    if http.status != 200 {
        out.summary = format!("HTTP {}", http.status);
        out.findings.push(
            AgentFinding::new(
                "A004",
                "directory-status",
                format!(
                    "the directory answers HTTP {}, not 200: no verifier reads keys from it",
                    http.status
                ),
            )
            .fails(&Reader::ALL),
        );
        return false;
    }
    true
}

/// The body: its size, media type, JSON and keys; the keys botwarden reads.
fn body(
    http: &DirectoryHttp,
    fetched: &str,
    url: Option<&url::Url>,
    out: &mut DirRead,
) -> Option<KeySet> {
    if http.over_limit {
        out.summary = format!("HTTP {}, larger than botwarden reads", http.status);
        out.findings.push(
            AgentFinding::new(
                "A006",
                "directory-too-large",
                format!(
                    "the directory is larger than {} bytes, the most botwarden reads (a \
                     directory holds a few keys; the draft asks verifiers to limit what they \
                     read)",
                    http.body.len()
                ),
            )
            .fails(&[Botwarden])
            .depends(&[Draft, Cloudflare]),
        );
        return None;
    }
    let content_type = http.header("content-type");
    media_type(content_type.as_deref(), url, &mut out.findings);
    raw_keys(&http.body, &mut out.findings);
    let keys = match KeySet::from_directory(&http.body, content_type.as_deref(), fetched) {
        Ok(keys) => keys,
        Err(e) => {
            out.summary = format!("HTTP {}, not a directory botwarden reads", http.status);
            let media =
                content_type.is_some() && KeySet::from_directory(&http.body, None, fetched).is_ok();
            out.findings.push(if media {
                AgentFinding::new("A005", "directory-media-type", e.to_string()).fails(&[Botwarden])
            } else {
                AgentFinding::new("A007", "directory-not-jwks", e.to_string()).fails(&Reader::ALL)
            });
            return None;
        }
    };
    for skipped in keys.skipped() {
        out.findings.push(AgentFinding::new(
            "A009",
            "key-skipped",
            format!("a key is left out: {skipped}"),
        ));
    }
    let ed25519 = keys
        .keys()
        .iter()
        .filter(|k| k.algorithm() == KeyAlgorithm::Ed25519)
        .count();
    if keys.keys().is_empty() {
        out.findings.push(
            AgentFinding::new(
                "A008",
                "directory-no-key",
                "the directory holds no key a verifier can use",
            )
            .fails(&Reader::ALL),
        );
    } else if ed25519 < keys.keys().len() {
        let f = AgentFinding::new(
            "A010",
            "key-not-ed25519",
            format!(
                "{} of {} keys are not Ed25519: Cloudflare verifies with Ed25519 keys only \
                 (the draft and botwarden take RSASSA-PSS too)",
                keys.keys().len() - ed25519,
                keys.keys().len()
            ),
        );
        out.findings.push(if ed25519 == 0 {
            f.fails(&[Cloudflare])
        } else {
            f
        });
    }
    if url.is_some_and(is_well_known) {
        for k in keys.keys() {
            if let Some(kid) = k.kid()
                && kid != k.thumbprint()
            {
                out.findings.push(
                    AgentFinding::new(
                        "A011",
                        "key-kid-not-thumbprint",
                        format!(
                            "a key's kid `{kid}` is not its thumbprint {}: at the well-known \
                             URL the draft has kid be the thumbprint (MUST); verifiers match \
                             keyid against thumbprints, so signatures still verify",
                            k.thumbprint()
                        ),
                    )
                    .warning(),
                );
            }
        }
    }
    Some(keys)
}

/// The media type, as the draft and Cloudflare read it.
fn media_type(
    content_type: Option<&str>,
    url: Option<&url::Url>,
    findings: &mut Vec<AgentFinding>,
) {
    let essence = content_type
        .and_then(|c| c.split(';').next())
        .map(|c| c.trim().to_ascii_lowercase());
    let at_well_known = url.is_some_and(is_well_known);
    match essence.as_deref() {
        Some(DIRECTORY_MEDIA_TYPE) => {
            if content_type.is_some_and(|c| c.contains(';')) {
                findings.push(
                    AgentFinding::new(
                        "A005",
                        "directory-media-type",
                        format!(
                            "the media type has parameters (`{}`): the draft registers it \
                             with none, and Cloudflare's registration is reported to want the \
                             type alone",
                            content_type.unwrap_or_default()
                        ),
                    )
                    .depends(&[Cloudflare]),
                );
            }
        }
        other => {
            let served = other.unwrap_or("none");
            let f = AgentFinding::new(
                "A005",
                "directory-media-type",
                format!(
                    "the directory is served as `{served}`, not `{DIRECTORY_MEDIA_TYPE}`: the \
                     draft requires that type at the well-known URL (MUST) and Cloudflare's \
                     registration wants it; botwarden also reads application/jwk-set+json and \
                     application/json, as deployed directories are served"
                ),
            );
            let f = if at_well_known {
                f.fails(&[Draft, Cloudflare])
            } else {
                f.depends(&[Draft, Cloudflare])
            };
            findings.push(f);
        }
    }
}

/// Keys that publish their private part.
fn raw_keys(body: &[u8], findings: &mut Vec<AgentFinding>) {
    let Ok(doc) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let Some(keys) = doc.get("keys").and_then(Value::as_array) else {
        return;
    };
    for (i, key) in keys.iter().enumerate() {
        let private: Vec<&str> = ["d", "p", "q", "dp", "dq", "qi"]
            .into_iter()
            .filter(|m| key.get(m).is_some())
            .collect();
        if !private.is_empty() {
            findings.push(
                AgentFinding::new(
                    "A012",
                    "key-private-part",
                    format!(
                        "keys[{i}] publishes private members ({}): anyone can sign as this \
                         agent; replace the key now and publish only the public part",
                        private.join(", ")
                    ),
                )
                .error(),
            );
        }
    }
}

/// The digest and the directory response's signatures: the `keyid`s that
/// signed it validly.
fn signature(
    http: &DirectoryHttp,
    keys: &KeySet,
    url: &str,
    now: SystemTime,
    findings: &mut Vec<AgentFinding>,
) -> Vec<String> {
    let digest = http.header("content-digest");
    if let Err(f) = check_content_digest(digest.as_deref(), &http.body) {
        findings.push(
            AgentFinding::new(
                "A015",
                "digest-mismatch",
                format!(
                    "{f}: the draft has a verifier validate it against the body (MUST), as \
                     botwarden does"
                ),
            )
            .fails(&[Draft, Botwarden])
            .depends(&[Cloudflare]),
        );
        return Vec::new();
    }
    let pairs: Vec<(&str, &str)> = http
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let response = DirectoryResponse {
        url,
        status: http.status,
        headers: &pairs,
        body: &http.body,
    };
    match check_directory_response(keys, &response, now, Duration::from_secs(60)) {
        Ok(DirectorySignature::Unsigned) => {
            findings.push(
                AgentFinding::new(
                    "A016",
                    "directory-unsigned",
                    "the directory response is not signed: the draft recommends one signature \
                     per key (tag http-message-signatures-directory, covering \
                     \"@authority\";req and content-digest), and Cloudflare uses only keys \
                     that have one",
                )
                .fails(&[Cloudflare]),
            );
            Vec::new()
        }
        Ok(DirectorySignature::Unbound { keyids }) => {
            findings.push(
                AgentFinding::new(
                    "A018",
                    "directory-signature-unbound",
                    "the directory signature does not cover content-digest (or the response \
                     has no Content-Digest): it proves the authority, not these keys; the \
                     draft (since -01) has it cover content-digest (MUST), so a draft verifier \
                     may not take it as proof",
                )
                .depends(&[Draft]),
            );
            keyids
        }
        Ok(DirectorySignature::Valid { keyids }) => keyids,
        Err(f) => {
            findings.push(
                AgentFinding::new(
                    "A017",
                    "directory-signature-invalid",
                    format!(
                        "the directory response's signature does not verify: {f}; botwarden \
                         refuses the directory, Cloudflare uses only validly signed keys, and \
                         the draft lets a verifier use keys it fetched itself without proof"
                    ),
                )
                .fails(&[Botwarden, Cloudflare])
                .depends(&[Draft]),
            );
            Vec::new()
        }
    }
}

/// `Cache-Control` and `Expires`: how long verifiers keep the directory.
fn caching(http: &DirectoryHttp, findings: &mut Vec<AgentFinding>) {
    let cc = http
        .header("cache-control")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let max_age = cc.split(',').find_map(|d| {
        d.trim()
            .strip_prefix("max-age=")
            .and_then(|v| v.trim_matches('"').parse::<u64>().ok())
    });
    if cc.contains("no-store") || cc.contains("no-cache") {
        findings.push(
            AgentFinding::new(
                "A021",
                "directory-caching",
                format!(
                    "`Cache-Control: {cc}` asks verifiers to fetch the directory for every \
                     request; they cache it anyway (botwarden for 5 minutes at least), so a \
                     max-age says how long instead"
                ),
            )
            .warning(),
        );
    } else if max_age.is_none() && http.header("expires").is_none() {
        findings.push(AgentFinding::new(
            "A021",
            "directory-caching",
            "no Cache-Control max-age nor Expires: verifiers choose how long to keep the keys \
             (botwarden: 1 hour); a max-age bounds how long a removed key keeps verifying",
        ));
    } else if let Some(age) = max_age.filter(|a| *a > 86_400) {
        findings.push(AgentFinding::new(
            "A021",
            "directory-caching",
            format!(
                "max-age={age} is over a day: botwarden keeps a directory a day at most, and a \
                 key removed from it keeps verifying elsewhere for up to {age} s"
            ),
        ));
    }
}
