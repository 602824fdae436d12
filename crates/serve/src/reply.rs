//! The API's answers that are not a handler's own: an error as JSON
//! (`{"error": {"code", "message"}}`), and a JSON text as a body.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// An error answer: `{"error": {"code", "message"}}` with its status.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

impl ApiError {
    /// A request that went away (its client left, or it timed out) before
    /// its work was done: the work stopped.
    pub(crate) fn cancelled() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "cancelled",
            "the request went away before its work was done",
        )
    }

    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    pub(crate) fn bad(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub(crate) fn busy() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "too many checks are running or waiting; try again shortly",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "error": {"code": self.code, "message": self.message}
        });
        let mut response = (self.status, json_body(body.to_string() + "\n")).into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        }
        response
    }
}

/// A JSON text as a response body, typed and not to be sniffed as
/// anything else.
pub(crate) fn json_body(text: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        text,
    )
        .into_response()
}
