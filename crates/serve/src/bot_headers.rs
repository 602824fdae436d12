//! The `X-Bot-*` headers of a verdict, as `GET /verify` answers them.

use std::collections::HashMap;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use botwarden_verify::{Registry, Verdict};

const X_BOT_NAME: HeaderName = HeaderName::from_static("x-bot-name");
pub(crate) const X_BOT_VERDICT: HeaderName = HeaderName::from_static("x-bot-verdict");
const X_BOT_METHOD: HeaderName = HeaderName::from_static("x-bot-method");
pub(crate) const X_BOT_REASON: HeaderName = HeaderName::from_static("x-bot-reason");
/// `X-Bot-Signature`: the outcome of a signed request's check, beside the
/// verdict.
const X_BOT_SIGNATURE: HeaderName = HeaderName::from_static("x-bot-signature");
/// `X-Bot-Signature-Reason`: why the signature did not decide.
const X_BOT_SIGNATURE_REASON: HeaderName = HeaderName::from_static("x-bot-signature-reason");
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
const DASH: HeaderValue = HeaderValue::from_static("-");

/// The `X-Bot-Name` values of the registry's bots, built once: an answer
/// about a registered bot copies no text.
pub(crate) struct BotNames(HashMap<String, HeaderValue>);

impl BotNames {
    pub(crate) fn new(registry: &Registry) -> BotNames {
        BotNames(
            registry
                .bots()
                .iter()
                .map(|b| (b.name.clone(), header_value(&b.name)))
                .collect(),
        )
    }

    fn value(&self, name: Option<&str>) -> HeaderValue {
        match name {
            None => DASH,
            Some(name) => self
                .0
                .get(name)
                .cloned()
                .unwrap_or_else(|| header_value(name)),
        }
    }
}

/// `X-Bot-Method`: the verifying methods joined by `+`; a single method
/// is a static value.
fn method_value(verdict: &Verdict) -> HeaderValue {
    match verdict {
        Verdict::Verified { methods, .. } if methods.len() == 1 => {
            HeaderValue::from_static(methods[0].as_str())
        }
        Verdict::Verified { .. } => header_value(verdict.method().as_deref().unwrap_or("-")),
        _ => DASH,
    }
}

/// A header value from text that may hold anything: visible ASCII kept,
/// the rest as `?`.
pub(crate) fn header_value(text: &str) -> HeaderValue {
    let clean: String = text
        .chars()
        .take(200)
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect();
    HeaderValue::from_str(clean.trim()).unwrap_or_else(|_| HeaderValue::from_static("?"))
}

/// The answer with `status` and the verdict's headers: `X-Bot-Name`,
/// `X-Bot-Verdict`, `X-Bot-Method`, `X-Bot-Reason` when it has a reason,
/// and `Cache-Control: no-store`.
pub(crate) fn verdict_response(
    names: &BotNames,
    verdict: &Verdict,
    status: StatusCode,
) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    let h = response.headers_mut();
    h.reserve(5);
    h.insert(X_BOT_NAME, names.value(verdict.bot()));
    h.insert(X_BOT_VERDICT, HeaderValue::from_static(verdict.kind()));
    h.insert(X_BOT_METHOD, method_value(verdict));
    if let Some(reason) = verdict.reason() {
        h.insert(X_BOT_REASON, header_value(reason));
    }
    h.insert(header::CACHE_CONTROL, NO_STORE);
    response
}

/// Reports a signed request's signature outcome, and why it did not
/// decide, beside the verdict.
pub(crate) fn annotate_signature(
    headers: &mut HeaderMap,
    outcome: &'static str,
    reason: Option<&str>,
) {
    headers.insert(X_BOT_SIGNATURE, HeaderValue::from_static(outcome));
    if let Some(reason) = reason {
        headers.insert(X_BOT_SIGNATURE_REASON, header_value(reason));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_hold_only_visible_ascii() {
        assert_eq!(header_value("Searchbot"), "Searchbot");
        assert_eq!(header_value("Bad\r\nX-Injected: 1"), "Bad??X-Injected: 1");
        assert_eq!(header_value("Bötchen"), "B?tchen");
        assert_eq!(header_value(&"a".repeat(500)).len(), 200);
    }
}
