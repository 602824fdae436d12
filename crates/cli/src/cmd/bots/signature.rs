//! `botwarden bots verify --header …` / `--request FILE`: the verdict of a
//! signed request (Web Bot Auth), falling back to its address.

use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};
use botwarden_fetch::{KeyDirConfig, KeyDirectories};
use botwarden_verify::{
    Classifier, KeyRing, KeySet, OwnedRequest, RequestParts, SignatureCheck, SignatureVerifier,
    Verdict, Verifier, header_field,
};

use crate::format::Format;

/// A request as given on the command line: its line and fields.
pub(crate) struct GivenRequest(OwnedRequest);

impl GivenRequest {
    /// From `--header` values and the `--method`, `--target`,
    /// `--authority` options (the authority else from `Host`).
    pub(crate) fn from_headers(
        headers: &[String],
        method: &str,
        target: &str,
        authority: Option<&str>,
    ) -> Result<GivenRequest> {
        let headers = headers
            .iter()
            .enumerate()
            .map(|(i, h)| header_field(h, &format!("--header #{}", i + 1)))
            .collect::<Result<Vec<_>, String>>()
            .map_err(anyhow::Error::msg)?;
        OwnedRequest::from_fields(method, target, authority, headers, "--header")
            .map(GivenRequest)
            .map_err(|e| anyhow::anyhow!("{e} or --authority"))
    }

    /// From a raw request in a file: the request line, then field lines
    /// up to a blank line (a body after it is ignored).
    pub(crate) fn from_file(path: &Path, authority: Option<&str>) -> Result<GivenRequest> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        OwnedRequest::from_raw(&text, authority, &path.display().to_string())
            .map(GivenRequest)
            .map_err(|e| {
                if e.ends_with("give a Host field") {
                    anyhow::anyhow!("{e} or --authority")
                } else {
                    anyhow::Error::msg(e)
                }
            })
    }

    pub(crate) fn parts(&self) -> RequestParts<'_> {
        self.0.parts()
    }

    fn user_agent(&self) -> Option<&str> {
        self.0.header("user-agent")
    }
}

/// Where the keys of a signed request come from.
pub(crate) struct Keys<'a> {
    /// Files standing for the directories of the agents the request names.
    pub(crate) files: &'a [PathBuf],
    /// Whether the directories are fetched when no file is given.
    pub(crate) fetch: bool,
    /// How directories are fetched (private addresses, certificate
    /// authorities).
    pub(crate) directories: &'a crate::args::DirectoryFetchArgs,
}

/// The keys for a request: the registry's, and `keys` files standing for
/// every signature agent the request names, or else the agents'
/// directories fetched (when allowed).
fn key_ring(
    verifier: &Verifier,
    signatures: &SignatureVerifier,
    req: &RequestParts<'_>,
    keys: &Keys<'_>,
) -> Result<KeyRing> {
    let mut ring = KeyRing::from_registry(verifier.registry());
    let mut sets = Vec::new();
    for path in keys.files {
        let body =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let set = KeySet::from_directory(&body, None, &path.display().to_string())?;
        sets.push((path, set));
    }
    let agents = signatures.agents(req).unwrap_or_default();
    if sets.is_empty() && keys.fetch && !agents.is_empty() {
        let fetcher = keys.directories.fetcher()?;
        let directories = KeyDirectories::new(fetcher, KeyDirConfig::default());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")?;
        return Ok(runtime.block_on(directories.key_ring(signatures, req, &ring)));
    }
    for agent in &agents {
        let mut merged = Vec::new();
        for (_, set) in &sets {
            merged.extend(set.keys().iter().cloned());
        }
        if !sets.is_empty() {
            ring.insert_directory(&agent.keys_url, KeySet::new(merged));
        }
    }
    if agents.is_empty() {
        for (path, set) in &sets {
            ring.insert_registry_keys(&path.display().to_string(), set.keys());
        }
    }
    Ok(ring)
}

/// The verdict on a signed request, written as `bots verify` writes one.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    out: &mut impl Write,
    format: Format,
    verifier: &Verifier,
    classifier: &Classifier,
    given: &GivenRequest,
    ip: Option<IpAddr>,
    ua: Option<&str>,
    bot: Option<&str>,
    keys: &Keys<'_>,
    now: SystemTime,
) -> Result<Verdict> {
    let req = given.parts();
    let signatures = SignatureVerifier::default();
    let ring = key_ring(verifier, &signatures, &req, keys)?;
    let check = signatures.check(&req, &ring, now);
    let ua = ua.or(given.user_agent());
    let verdict = match ip {
        Some(ip) => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("cannot start the async runtime")?;
            (*runtime.block_on(verifier.check_signed_request(classifier, ip, ua, bot, &check)))
                .clone()
        }
        None => verifier.check_signed_without_address(classifier, ua, bot, &check),
    };
    let shown_ip = ip.map_or_else(
        || "-".to_owned(),
        |ip| botwarden_verify::normalize(ip).to_string(),
    );
    match format {
        Format::Text => writeln!(
            out,
            "{shown_ip}\t{}\t{}\t{}",
            verdict.kind(),
            verdict.bot().unwrap_or("-"),
            details(&verdict, &check)
        )?,
        Format::Json => {
            let doc = botwarden_verify::SignedVerdictJson::new(ip, ua, &verdict, &check);
            serde_json::to_writer(&mut *out, &doc)?;
            writeln!(out)?;
        }
    }
    Ok(verdict)
}

fn details(verdict: &Verdict, check: &SignatureCheck) -> String {
    match (verdict, check) {
        (Verdict::Verified { .. }, SignatureCheck::Valid(ev)) => {
            let mut s = format!("web_bot_auth: key {} ({})", ev.keyid, ev.alg.unwrap_or("?"));
            if let Some(owner) = &ev.key_owner {
                s.push_str(&format!(" from {owner}"));
            }
            if let Some(a) = &ev.agent {
                s.push_str(&format!(
                    "; Signature-Agent {} read as {}{}",
                    a.uri,
                    a.reading.as_str(),
                    if a.well_known {
                        ", its well-known directory"
                    } else {
                        ""
                    }
                ));
            }
            s
        }
        (Verdict::Verified { evidence, .. }, _) => {
            let mut parts = Vec::new();
            if let Some(name) = &evidence.confirmed_name {
                parts.push(format!("PTR {name} confirmed"));
            }
            parts.extend(evidence.matched.iter().cloned());
            format!(
                "{}: {}",
                verdict.method().unwrap_or_default(),
                parts.join("; ")
            )
        }
        (other, _) => other.reason().unwrap_or("").to_owned(),
    }
}
