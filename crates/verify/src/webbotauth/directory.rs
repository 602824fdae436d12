//! The signed key directory response: a directory served with a signature
//! of its own, tagged `http-message-signatures-directory`, covering the
//! authority of the request (`"@authority";req`) and the digest of the
//! keys served (`content-digest`), made with a key of the directory. It
//! shows that whoever holds the keys serves these keys there.

use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::base::{RequestParts, response_base};
use super::digest::check_content_digest;
use super::failure::SignatureFailure;
use super::fields::{SignatureInput, parse_signature_input, signature_bytes};
use super::keys::KeySet;

/// The tag of a key directory response's signature.
pub const DIRECTORY_TAG: &str = "http-message-signatures-directory";

/// What a key directory response's own signatures showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum DirectorySignature {
    /// No signature tagged `http-message-signatures-directory` (the
    /// response may have none, or only signatures with other tags).
    Unsigned,
    /// Every signature tagged for directories verified, each with a key of
    /// the directory, and covered the digest of the keys served: their
    /// `keyid`s.
    Valid {
        /// The `keyid` of each signature.
        keyids: Vec<String>,
    },
    /// The signatures verified, but one or more does not cover
    /// `content-digest` (as directories signed before the protocol draft's
    /// -01 do, and as Cloudflare's documentation shows): it proves the
    /// authority, not the keys served. The keys are used as an unsigned
    /// directory's are (the draft lets a verifier use keys it resolved
    /// itself whatever the proof); `botwarden bots check-agent` says so.
    Unbound {
        /// The `keyid` of each signature.
        keyids: Vec<String>,
    },
}

fn unix(t: SystemTime) -> i64 {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// The response of a key directory, as fetched: `url` is the URL it was
/// fetched from (its scheme and authority are the request's
/// `@authority`), `status`, `headers` and `body` the response's.
#[derive(Debug, Clone, Copy)]
pub struct DirectoryResponse<'a> {
    /// The URL fetched.
    pub url: &'a str,
    /// The status.
    pub status: u16,
    /// The header fields.
    pub headers: &'a [(&'a str, &'a str)],
    /// The body (the directory).
    pub body: &'a [u8],
}

/// Checks a key directory response's `Content-Digest` and signatures;
/// `keys` is the directory read from its body, `now` the time and `skew`
/// the tolerance on `created` and `expires`.
///
/// A `Content-Digest` must match the body (RFC 9530; `sha-256` or
/// `sha-512`). Only signatures tagged `http-message-signatures-directory`
/// count; each must have `created`, `expires` and `keyid`, be within its
/// validity, cover `"@authority";req`, and verify with the key of the
/// directory whose thumbprint is its `keyid`. One that also covers
/// `content-digest` (the protocol draft's MUST since -01) binds the keys
/// served, so a signature replayed over another key set fails on the
/// digest; one that does not is [`DirectorySignature::Unbound`]. Nonces are
/// not remembered: a directory response is cached and served again as it
/// is.
///
/// # Errors
///
/// The first [`SignatureFailure`]: the digest, or a tagged signature.
pub fn check_directory_response(
    keys: &KeySet,
    response: &DirectoryResponse<'_>,
    now: SystemTime,
    skew: Duration,
) -> Result<DirectorySignature, SignatureFailure> {
    let DirectoryResponse {
        url,
        status,
        headers,
        body,
    } = *response;
    let mut fields = RequestParts::new("", "", "");
    for (n, v) in headers {
        fields.push_header(n, v);
    }
    let digest = fields.header_value("content-digest");
    check_content_digest(digest.as_deref(), body)?;
    let input = fields.header_value("signature-input");
    let sig = fields.header_value("signature");
    let (input, sig) = match (input, sig) {
        (None, None) => return Ok(DirectorySignature::Unsigned),
        (Some(_), None) => return Err(SignatureFailure::MissingField { field: "Signature" }),
        (None, Some(_)) => {
            return Err(SignatureFailure::MissingField {
                field: "Signature-Input",
            });
        }
        (Some(i), Some(s)) => (i, s),
    };
    let inputs: Vec<_> = parse_signature_input(&input)?
        .into_iter()
        .filter(|i| i.tag.as_deref() == Some(DIRECTORY_TAG))
        .collect();
    if inputs.is_empty() {
        return Ok(DirectorySignature::Unsigned);
    }
    let (parsed, authority) = authority(url)?;
    let request = RequestParts::new("GET", &authority, parsed.path()).scheme(parsed.scheme());
    let now = unix(now);
    let skew = i64::try_from(skew.as_secs()).unwrap_or(i64::MAX);
    let mut keyids = Vec::with_capacity(inputs.len());
    let mut bound = true;
    for input in &inputs {
        bound &= input
            .components
            .iter()
            .any(|c| c.name == "content-digest" && !c.req);
        let keyid = valid_now(input, now, skew)?;
        let key = keys
            .get(&keyid)
            .ok_or_else(|| SignatureFailure::UnknownKey {
                keyid: keyid.clone(),
                source: format!("the directory {url} itself"),
                skipped: keys.skipped().to_vec(),
            })?;
        if let Some(alg) = &input.alg
            && alg != key.algorithm().as_str()
        {
            return Err(SignatureFailure::AlgorithmMismatch {
                alg: alg.clone(),
                key: key.algorithm().as_str(),
            });
        }
        let signature = signature_bytes(&sig, &input.label)?;
        let base = response_base(
            &request,
            status,
            headers,
            &input.components,
            &input.params_line,
        )?;
        if !key.verifies(base.as_bytes(), &signature) {
            return Err(SignatureFailure::BadSignature);
        }
        keyids.push(keyid);
    }
    Ok(if bound && digest.is_some() {
        DirectorySignature::Valid { keyids }
    } else {
        DirectorySignature::Unbound { keyids }
    })
}

/// The directory URL, parsed, and its authority (host and port, as the
/// request's `@authority`).
fn authority(url: &str) -> Result<(url::Url, String), SignatureFailure> {
    let parsed = url::Url::parse(url).map_err(|e| SignatureFailure::Malformed {
        field: "directory URL",
        reason: format!("{url}: {e}"),
    })?;
    let authority = match (parsed.host_str(), parsed.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_owned(),
        (None, _) => String::new(),
    };
    Ok((parsed, authority))
}

/// The `keyid` of a directory signature that has `created`, `expires` and
/// `keyid`, is valid at `now` (give or take `skew` seconds), and covers
/// `"@authority";req`.
fn valid_now(input: &SignatureInput, now: i64, skew: i64) -> Result<String, SignatureFailure> {
    let created = input.created.ok_or(SignatureFailure::MissingParameter {
        parameter: "created",
    })?;
    let expires = input.expires.ok_or(SignatureFailure::MissingParameter {
        parameter: "expires",
    })?;
    let keyid = input
        .keyid
        .clone()
        .ok_or(SignatureFailure::MissingParameter { parameter: "keyid" })?;
    if expires < created {
        return Err(SignatureFailure::BadValidity {
            created,
            expires,
            max: None,
        });
    }
    if created > now.saturating_add(skew) {
        return Err(SignatureFailure::NotYetValid { created, now });
    }
    if expires < now.saturating_sub(skew) {
        return Err(SignatureFailure::Expired { expires, now });
    }
    if !input
        .components
        .iter()
        .any(|c| c.name == "@authority" && c.req)
    {
        return Err(SignatureFailure::NotCovered {
            component: "\"@authority\";req",
        });
    }
    Ok(keyid)
}
