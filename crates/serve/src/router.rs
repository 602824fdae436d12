//! The routes, and what every request goes through: counted by route
//! and status, logged, and answered within `request_timeout`.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use axum::routing::{get, post};
use botwarden_verify::WELL_KNOWN_DIRECTORY;

use crate::metrics::Route;
use crate::reply::ApiError;
use crate::state::{Inner, Shared};
use crate::{agent, api, exposition, gate, page};

/// Every route: the API, `/verify`, `/healthz`, `/metrics`, the web
/// checker. Needs the peer's address (`ConnectInfo<SocketAddr>`).
pub(crate) fn router(inner: &Shared) -> Router {
    let api = Router::new()
        .route("/check", post(api::check))
        .route("/fix", post(api::fix))
        .route("/test", post(api::test))
        .route("/fetch", get(api::fetch_get).post(api::fetch_post))
        .route("/verify", get(api::verify).post(api::verify_signed))
        .route("/classify", post(api::classify))
        .route("/check-agent", get(agent::api_get).post(agent::api_post))
        .route("/openapi.json", get(api::openapi))
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed);
    Router::new()
        .nest("/api/v1", api)
        .route("/verify", get(gate::verify))
        .route(WELL_KNOWN_DIRECTORY, get(directory))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", get(exposition::render))
        .route("/", get(page::home))
        .route("/check", get(page::check_get).post(page::check_post))
        .route("/style.css", get(page::style))
        .route("/agent", get(agent::page_get).post(agent::page_post))
        .fallback(page::not_found)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(inner),
            track,
        ))
        .with_state(Arc::clone(inner))
}

/// `GET /.well-known/http-message-signatures-directory`: the operator's
/// key directory ([`WebBotAuth::directory`](crate::webbotauth::WebBotAuth::directory)).
async fn directory(State(inner): State<Shared>, headers: HeaderMap) -> Response {
    inner.webbotauth.directory(&headers)
}

/// Counts and logs every request by its route (the pattern matched, so the
/// labels stay few).
async fn track(State(inner): State<Shared>, request: Request, next: Next) -> Response {
    // The known routes by index: no allocation per request.
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or(Route::UNMATCHED, |p| Route::of(p.as_str()));
    let method = request.method().clone();
    let api = request.uri().path().starts_with("/api/");
    tracked(&inner, route, &method, api, next.run(request)).await
}

/// An answer within `request_timeout` (else `503 timeout`), counted by
/// route and status and logged (`/verify` at debug level only).
pub(crate) async fn tracked(
    inner: &Inner,
    route: Route,
    method: &Method,
    api: bool,
    answer: impl Future<Output = Response>,
) -> Response {
    let started = Instant::now();
    let limit = Duration::from_secs_f64(inner.config.request_timeout);
    // A ready answer (a cached verdict) never sets the timer: `timeout`
    // polls the answer first.
    let response = match tokio::time::timeout(limit, answer).await {
        Ok(response) => response,
        Err(_) => {
            inner.metrics.request_timeout();
            let e = ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "timeout",
                format!(
                    "the request took longer than request_timeout ({} s); try again shortly",
                    inner.config.request_timeout
                ),
            );
            if api {
                e.into_response()
            } else {
                page::error_page(&e)
            }
        }
    };
    let status = response.status().as_u16();
    inner.metrics.request(route, status);
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    let route = route.name();
    if route == "/verify" {
        tracing::debug!(%method, route, status, micros, "request");
    } else {
        tracing::info!(%method, route, status, micros, "request");
    }
    response
}
