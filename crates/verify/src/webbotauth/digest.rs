//! `Content-Digest` (RFC 9530): the digest of a response's content, which
//! a signed key directory covers so that its signature binds the keys it
//! serves, not only the authority.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ring::digest::{SHA256, SHA512, digest};
use serde::Serialize;
use sfv::{BareItem, Dictionary, Item, ListEntry, Parser};

use super::failure::SignatureFailure;

/// What a response's `Content-Digest` showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum BodyDigest {
    /// The response has no `Content-Digest`.
    Absent,
    /// Every digest botwarden computes matched the body: their
    /// algorithms (`sha-256`, `sha-512`).
    Matches {
        /// The algorithms checked.
        algorithms: Vec<&'static str>,
    },
}

fn failure(reason: impl Into<String>) -> SignatureFailure {
    SignatureFailure::ContentDigest {
        reason: reason.into(),
    }
}

/// The `Content-Digest` of `body` as a server sends it: `sha-256=:…:`.
#[must_use]
pub fn content_digest(body: &[u8]) -> String {
    format!("sha-256=:{}:", STANDARD.encode(digest(&SHA256, body)))
}

/// Checks `value` (the `Content-Digest` field lines joined, `None` when
/// absent) against `body`. Members of algorithms other than `sha-256` and
/// `sha-512` are passed over, as RFC 9530 §2 lets a recipient; a field
/// with none of these two cannot be checked and fails, as does a digest
/// that differs from the body's.
///
/// # Errors
///
/// [`SignatureFailure::ContentDigest`], naming the algorithm.
pub fn check_content_digest(
    value: Option<&str>,
    body: &[u8],
) -> Result<BodyDigest, SignatureFailure> {
    let Some(value) = value else {
        return Ok(BodyDigest::Absent);
    };
    let dict: Dictionary = Parser::new(value)
        .parse()
        .map_err(|e| failure(format!("not a structured dictionary: {e}")))?;
    if let Some(key) = super::fields::duplicate_key(value) {
        return Err(failure(format!("{key} is given more than once")));
    }
    let mut algorithms = Vec::new();
    for (alg, entry) in &dict {
        let (name, algorithm) = match alg.as_str() {
            "sha-256" => ("sha-256", &SHA256),
            "sha-512" => ("sha-512", &SHA512),
            _ => continue,
        };
        let ListEntry::Item(Item {
            bare_item: BareItem::ByteSequence(sent),
            ..
        }) = entry
        else {
            return Err(failure(format!("{name} is not a byte sequence")));
        };
        if digest(algorithm, body).as_ref() != sent.as_slice() {
            return Err(failure(format!(
                "the {name} digest does not match the body ({} bytes)",
                body.len()
            )));
        }
        algorithms.push(name);
    }
    if algorithms.is_empty() {
        return Err(failure(format!(
            "no sha-256 or sha-512 digest among {}",
            dict.keys()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(BodyDigest::Matches { algorithms })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_checked_against_the_body() {
        // RFC 9530 B.1: `{"hello": "world"}` with a final newline.
        let body = b"{\"hello\": \"world\"}\n";
        let sent = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:";
        assert_eq!(content_digest(body), sent);
        assert_eq!(
            check_content_digest(Some(sent), body),
            Ok(BodyDigest::Matches {
                algorithms: vec!["sha-256"]
            })
        );
        let both = "sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:, md5=:AAAA:";
        assert_eq!(
            check_content_digest(Some(both), body),
            Ok(BodyDigest::Matches {
                algorithms: vec!["sha-512"]
            })
        );
        assert_eq!(check_content_digest(None, body), Ok(BodyDigest::Absent));
        let other = check_content_digest(Some(sent), b"{\"hello\": \"there\"}\n").unwrap_err();
        assert!(
            other.to_string().contains("sha-256 digest does not match"),
            "{other}"
        );
        assert!(check_content_digest(Some("md5=:AAAA:"), body).is_err());
        assert!(check_content_digest(Some("sha-256=\"x\""), body).is_err());
        assert!(check_content_digest(Some(&format!("{sent}, {sent}")), body).is_err());
    }
}
