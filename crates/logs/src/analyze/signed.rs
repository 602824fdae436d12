//! Web Bot Auth in logs: a line that records the request's signature
//! fields (`Signature-Input`, `Signature`, `Signature-Agent`) is checked
//! with the keys at hand, at the line's own time; when the signature
//! decides, its verdict is the line's.

use std::borrow::Cow;
use std::time::{Duration, SystemTime};

use botwarden_verify::{Claim, RequestParts, SignatureCheck, Verdict};

use super::{ClaimInfo, Shared};
use crate::record::Record;
use crate::report::SignedLines;

/// A field as the server wrote it, its escapes undone: nginx's `\xHH`
/// (it writes `"` as `\x22`) and Apache's `\"`, `\\` and `\xHH`.
pub(crate) fn unescape(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            match b.get(i + 1) {
                Some(b'x')
                    if i + 3 < b.len()
                        && b[i + 2].is_ascii_hexdigit()
                        && b[i + 3].is_ascii_hexdigit() =>
                {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap_or("3f");
                    out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                    i += 4;
                    continue;
                }
                Some(&c @ (b'"' | b'\\')) => {
                    out.push(c);
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        out.push(b[i]);
        i += 1;
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// The claim a line makes, as the verifier reads claims.
fn claim_of(info: &ClaimInfo) -> Claim {
    if info.registered {
        Claim::Bot {
            name: info.name.to_string(),
            category: info.category.clone(),
        }
    } else {
        Claim::Unregistered {
            name: info.name.to_string(),
            category: info.category.clone().unwrap_or_default(),
        }
    }
}

/// Checks a signed line claiming `claim`; counts it in `counts`. The
/// verdict when the signature decides, else `None` (the address decides).
///
/// The request is rebuilt from the line: the method (`GET` if not
/// logged), the virtual host as the authority (log `$http_host` or
/// `%{Host}i` for the `Host` field itself, port included), the target,
/// and the three fields. The clock is the line's time; a line without one
/// is not checked (counted). Nonces are not remembered: a log holds
/// requests already served, read in no fixed order.
pub(crate) fn check(
    shared: &Shared,
    claim: &ClaimInfo,
    record: &Record<'_>,
    counts: &mut SignedLines,
) -> Option<Verdict> {
    counts.signed += 1;
    let Some(time) = record.time else {
        counts.without_time += 1;
        return None;
    };
    let at = match u64::try_from(time.unix) {
        Ok(secs) => SystemTime::UNIX_EPOCH + Duration::from_secs(secs),
        Err(_) => {
            counts.without_time += 1;
            return None;
        }
    };
    let input = record.signature.input.map(unescape);
    let signature = record.signature.signature.map(unescape);
    let agent = record.signature.agent.map(unescape);
    let target = record.path.map(unescape);
    let mut req = RequestParts::new(
        record.method.unwrap_or("GET"),
        record.vhost.unwrap_or(""),
        target.as_deref().unwrap_or("/"),
    );
    if let Some(v) = &input {
        req.push_header("Signature-Input", v);
    }
    if let Some(v) = &signature {
        req.push_header("Signature", v);
    }
    if let Some(v) = &agent {
        req.push_header("Signature-Agent", v);
    }
    let outcome = shared.signatures.check(&req, &shared.signature_keys, at);
    if let SignatureCheck::Invalid { failure, .. } = &outcome {
        *counts
            .failures
            .entry(failure.code().to_owned())
            .or_default() += 1;
    }
    let verdict = shared
        .verifier
        .signature_verdict(&claim_of(claim), &outcome);
    match &verdict {
        Some(Verdict::Verified { .. }) => counts.verified += 1,
        Some(Verdict::Spoofed { .. }) => counts.spoofed += 1,
        Some(Verdict::Unknown { .. }) => counts.unknown += 1,
        Some(_) | None => counts.address_decided += 1,
    }
    verdict.filter(|v| !matches!(v, Verdict::Unverifiable { .. } | Verdict::NotABot))
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn escapes_of_both_servers_are_undone() {
        assert_eq!(
            unescape(r#"sig1=\x22https://a.example\x22"#),
            r#"sig1="https://a.example""#
        );
        assert_eq!(
            unescape(r#"sig1=\"https://a.example\""#),
            r#"sig1="https://a.example""#
        );
        assert_eq!(unescape(r"a\\b"), r"a\b");
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(unescape(r"end\x2"), r"end\x2");
        assert_eq!(unescape(r"\q"), r"\q");
    }
}
