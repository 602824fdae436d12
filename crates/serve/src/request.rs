//! Reading requests: a body within its bounds and `body_timeout`, a
//! JSON body admitted as a job, query parameters.

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{HeaderMap, StatusCode, header};
use serde::de::DeserializeOwned;

use crate::limits::MAX_REQUEST_BODY;
use crate::reply::ApiError;
use crate::state::{Admission, Inner};

fn payload_too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("the request body is over {MAX_REQUEST_BODY} bytes (11 MiB)"),
    )
}

/// Reads the body of an admitted request: at most [`MAX_REQUEST_BODY`]
/// bytes (else `413`, at once for a larger declared length), within
/// `body_timeout` (else `408`), its bytes reserved out of
/// `max_body_bytes` (all at once for a declared length, else as they
/// come; `503 busy` when they cannot be).
pub(crate) async fn read_body(
    inner: &Inner,
    admission: &mut Admission,
    mut body: Body,
) -> Result<Bytes, ApiError> {
    let hint = HttpBody::size_hint(&body);
    if usize::try_from(hint.lower()).map_or(true, |n| n > MAX_REQUEST_BODY) {
        return Err(payload_too_large());
    }
    let declared = hint
        .exact()
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0);
    inner.reserve_body(admission, declared)?;
    let limit = std::time::Duration::from_secs_f64(inner.config.body_timeout);
    let read = async {
        let mut reserved = declared;
        let mut bytes = Vec::with_capacity(declared);
        while let Some(frame) =
            std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await
        {
            let frame =
                frame.map_err(|e| ApiError::bad(format!("cannot read the request body: {e}")))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let len = bytes.len() + data.len();
            if len > MAX_REQUEST_BODY {
                return Err(payload_too_large());
            }
            if len > reserved {
                // Vec growth may take up to twice what is reserved; the
                // documented bound counts it.
                inner.reserve_body(admission, len - reserved)?;
                reserved = len;
            }
            bytes.extend_from_slice(&data);
        }
        Ok(Bytes::from(bytes))
    };
    if let Ok(read) = tokio::time::timeout(limit, read).await {
        read
    } else {
        inner.metrics.body_timeout();
        Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "body_timeout",
            format!(
                "the request body did not arrive within body_timeout ({} s)",
                inner.config.body_timeout
            ),
        ))
    }
}

/// A JSON request body: `Content-Type: application/json` (or none), read
/// into `T`; unknown fields are errors. The request is admitted as a job
/// (`max_jobs`) before any of its body is read; the admission, which
/// holds the body's bytes out of `max_body_bytes`, comes with it.
pub(crate) async fn json<T: DeserializeOwned>(
    inner: &Inner,
    headers: &HeaderMap,
    body: Body,
) -> Result<(T, Admission), ApiError> {
    if let Some(kind) = headers.get(header::CONTENT_TYPE) {
        let kind = kind.to_str().unwrap_or("");
        let essence = kind.split(';').next().unwrap_or("").trim();
        if !essence.eq_ignore_ascii_case("application/json") {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                format!("the body must be application/json, not '{kind}'"),
            ));
        }
    }
    let mut admission = inner.admit()?;
    let bytes = read_body(inner, &mut admission, body).await?;
    let value = serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_json",
            format!("the request body is not the JSON expected: {e}"),
        )
    })?;
    Ok((value, admission))
}

/// Query pairs, decoded; a name given twice is an error.
pub(crate) fn query_pairs(
    query: Option<&str>,
    known: &[&str],
) -> Result<Vec<(String, String)>, ApiError> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if !known.contains(&&*k) {
            return Err(ApiError::bad(format!(
                "unknown query parameter '{k}' (known: {})",
                known.join(", ")
            )));
        }
        if pairs.iter().any(|(seen, _)| *seen == k) {
            return Err(ApiError::bad(format!(
                "query parameter '{k}' is given twice"
            )));
        }
        pairs.push((k.into_owned(), v.into_owned()));
    }
    Ok(pairs)
}

pub(crate) fn pair<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}
