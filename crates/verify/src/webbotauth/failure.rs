//! Why a signature does not verify.

use std::fmt;

use serde::Serialize;

/// Why a request's signature is not valid. Each is a finding about the
/// request (its verdict is `spoofed`), not an error of botwarden.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "failure")]
#[non_exhaustive]
pub enum SignatureFailure {
    /// A signature field that cannot be read.
    Malformed {
        /// The field (`Signature-Input`, `Signature`, `Signature-Agent`).
        field: &'static str,
        /// What is wrong, naming the member.
        reason: String,
    },
    /// `Signature-Input` without `Signature`, or the reverse.
    MissingField {
        /// The field missing.
        field: &'static str,
    },
    /// A `Signature-Input` member with no signature of that label.
    NoSignature {
        /// The label.
        label: String,
    },
    /// No signature is tagged `web-bot-auth`.
    WrongTag {
        /// The tags found (`none` for a signature without one).
        found: Vec<String>,
    },
    /// A parameter the profile requires is missing.
    MissingParameter {
        /// `created`, `expires` or `keyid`.
        parameter: &'static str,
    },
    /// A component the profile requires is not covered.
    NotCovered {
        /// `@authority` or `signature-agent`.
        component: &'static str,
    },
    /// A covered component that is not in the request.
    ComponentAbsent {
        /// The component.
        component: String,
    },
    /// A covered component (or parameter of one) botwarden cannot compute.
    UnsupportedComponent {
        /// The component.
        component: String,
    },
    /// `expires` is past (beyond the allowed clock skew).
    Expired {
        /// The signature's `expires`.
        expires: i64,
        /// The time of the check.
        now: i64,
    },
    /// `created` is in the future (beyond the allowed clock skew).
    NotYetValid {
        /// The signature's `created`.
        created: i64,
        /// The time of the check.
        now: i64,
    },
    /// `expires` before `created`, or a validity longer than allowed.
    BadValidity {
        /// The signature's `created`.
        created: i64,
        /// The signature's `expires`.
        expires: i64,
        /// The longest validity allowed, in seconds, if that is the fault.
        max: Option<u64>,
    },
    /// No key with that id in the agent's key directory.
    UnknownKey {
        /// The `keyid`.
        keyid: String,
        /// Where the keys came from.
        source: String,
        /// The keys of that source left out, each with why (a key type
        /// botwarden does not verify with, a member missing): the key the
        /// signature names may be among them.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        skipped: Vec<String>,
    },
    /// The key is outside its own validity (`nbf`, `exp`).
    KeyNotValid {
        /// The `keyid`.
        keyid: String,
    },
    /// `alg` names another algorithm than the key's.
    AlgorithmMismatch {
        /// The `alg` given.
        alg: String,
        /// The key's algorithm.
        key: &'static str,
    },
    /// The signature does not match: a covered component was changed, or
    /// it was made with another key.
    BadSignature,
    /// The nonce was seen before within the signature's validity.
    Replayed {
        /// The nonce.
        nonce: String,
    },
    /// A `Content-Digest` (RFC 9530) that does not match the body, or
    /// gives no digest botwarden computes (`sha-256`, `sha-512`).
    ContentDigest {
        /// What is wrong, naming the algorithm.
        reason: String,
    },
}

impl SignatureFailure {
    /// A short name (`expired`, `bad_signature`, …).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            SignatureFailure::Malformed { .. } => "malformed",
            SignatureFailure::MissingField { .. } => "missing_field",
            SignatureFailure::NoSignature { .. } => "no_signature",
            SignatureFailure::WrongTag { .. } => "wrong_tag",
            SignatureFailure::MissingParameter { .. } => "missing_parameter",
            SignatureFailure::NotCovered { .. } => "not_covered",
            SignatureFailure::ComponentAbsent { .. } => "component_absent",
            SignatureFailure::UnsupportedComponent { .. } => "unsupported_component",
            SignatureFailure::Expired { .. } => "expired",
            SignatureFailure::NotYetValid { .. } => "not_yet_valid",
            SignatureFailure::BadValidity { .. } => "bad_validity",
            SignatureFailure::UnknownKey { .. } => "unknown_key",
            SignatureFailure::KeyNotValid { .. } => "key_not_valid",
            SignatureFailure::AlgorithmMismatch { .. } => "algorithm_mismatch",
            SignatureFailure::BadSignature => "bad_signature",
            SignatureFailure::Replayed { .. } => "replayed",
            SignatureFailure::ContentDigest { .. } => "content_digest",
        }
    }
}

impl fmt::Display for SignatureFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureFailure::Malformed { field, reason } => write!(f, "{field}: {reason}"),
            SignatureFailure::MissingField { field } => {
                write!(f, "the request has no {field} field")
            }
            SignatureFailure::NoSignature { label } => {
                write!(f, "Signature has no member {label}, which Signature-Input lists")
            }
            SignatureFailure::WrongTag { found } => write!(
                f,
                "no signature is tagged web-bot-auth (tags: {})",
                found.join(", ")
            ),
            SignatureFailure::MissingParameter { parameter } => {
                write!(f, "the signature has no `{parameter}` parameter")
            }
            SignatureFailure::NotCovered { component } => {
                write!(f, "the signature does not cover {component}")
            }
            SignatureFailure::ComponentAbsent { component } => {
                write!(f, "the signature covers {component}, which the request lacks")
            }
            SignatureFailure::UnsupportedComponent { component } => {
                write!(f, "the component {component} is not supported")
            }
            SignatureFailure::Expired { expires, now } => write!(
                f,
                "the signature expired at {expires}, {}s before the check",
                now - expires
            ),
            SignatureFailure::NotYetValid { created, now } => write!(
                f,
                "the signature is created at {created}, {}s after the check",
                created - now
            ),
            SignatureFailure::BadValidity {
                created,
                expires,
                max: Some(max),
            } => write!(
                f,
                "the signature is valid for {}s (created {created}, expires {expires}); at most {max}s is allowed",
                expires - created
            ),
            SignatureFailure::BadValidity {
                created,
                expires,
                max: None,
            } => write!(f, "the signature expires ({expires}) before it is created ({created})"),
            SignatureFailure::UnknownKey {
                keyid,
                source,
                skipped,
            } => {
                write!(f, "no key {keyid} in {source}")?;
                if !skipped.is_empty() {
                    write!(f, "; left out of it: {}", skipped.join("; "))?;
                }
                Ok(())
            }
            SignatureFailure::KeyNotValid { keyid } => {
                write!(f, "key {keyid} is outside its validity (nbf/exp)")
            }
            SignatureFailure::AlgorithmMismatch { alg, key } => {
                write!(f, "alg `{alg}` does not match the key, which is {key}")
            }
            SignatureFailure::BadSignature => f.write_str(
                "the signature does not match the request (a covered component changed, or another key signed it)",
            ),
            SignatureFailure::Replayed { nonce } => {
                write!(f, "the nonce {nonce} was already used")
            }
            SignatureFailure::ContentDigest { reason } => write!(f, "Content-Digest: {reason}"),
        }
    }
}
