//! The botwarden service (`botwarden serve`): the checker and the verifier
//! over HTTP.
//!
//! - **The JSON API** under `/api/v1/` (`check`, `fix`, `test`, `fetch`,
//!   `verify`, `classify`, and `openapi.json` describing them): the same
//!   answers, built by the same library calls, as the command's
//!   `--format json` output.
//! - **`GET /verify`**, for a web server's `auth_request` (nginx), the Lua
//!   action in `recipes/botwarden.lua` (HAProxy) or the `RewriteMap prg:`
//!   helper [`RewriteMap`] (Apache): the client's address (from a trusted
//!   proxy's header, else the peer) and User-Agent give a verdict in
//!   `X-Bot-Name`, `X-Bot-Verdict` and `X-Bot-Method`; `403` for a spoofed
//!   crawler in enforce mode, `200` otherwise, never a `5xx`.
//! - **Web Bot Auth**: signed requests (`Signature-Input`, `Signature`,
//!   `Signature-Agent`) are verified at `/verify` and `POST /api/v1/verify`
//!   with the agents' key directories fetched and cached
//!   (`X-Bot-Method: web_bot_auth`); the operator's own directory is served
//!   at `/.well-known/http-message-signatures-directory`.
//! - **Operations**: `/healthz`, Prometheus `/metrics`, logs through
//!   `tracing`, graceful shutdown ([`Service::run`]).
//! - **The web checker** at `/`: a server-rendered page (no JavaScript, no
//!   external requests) that checks a pasted file or a site's robots.txt;
//!   at `/agent`, the signed-agent check of `bots check-agent` (also
//!   `/api/v1/check-agent`).
//!
//! Every bound (request bodies, header, body and request timeouts, checks
//! at once, verifications in flight, caches) is documented in
//! `docs/serve.md`. The library never prints; the
//! `botwarden serve` command reads the configuration, installs a log
//! subscriber and runs [`Service::run`].

// The modules, in layers: each imports only from the layers above it
// (`use crate::…`), so that they form no circle.
//
// 1. Plain types, importing nothing of the crate: `error`, `limits`,
//    `fetch_rate`, `reply` (the API's error and JSON answers), `proxy`
//    (trusted proxies, `X-Forwarded-For`), `bot_headers` (the `X-Bot-*`
//    headers), `decision` (the gate's decision, a pure function),
//    `metrics` (the counters), `webbotauth` (its configuration, keys and
//    directories); then `config`, `permalink`, `rewrite_map`,
//    `robots_cache` and `connections`, built on them.
// 2. `state`: what every handler shares; it holds the parts above and
//    imports none of the modules below.
// 3. Request helpers and the work they share: `request` (bodies, JSON,
//    queries) and `pending` (verifications waiting on DNS).
// 4. Handlers: `gate` (`GET /verify`), `api`, `page`, `exposition`
//    (`GET /metrics`); `agent` (`bots check-agent` as a page and in the
//    API) uses `page`'s layout.
// 5. `router` (the routes, counted and timed), `server` (the accept loop
//    and its connections' timeouts), and `service`, the public
//    [`Service`] over them.

mod agent;
mod api;
mod bot_headers;
mod config;
mod connections;
mod decision;
mod error;
mod exposition;
mod fetch_rate;
mod gate;
mod limits;
mod metrics;
mod page;
mod pending;
mod permalink;
mod proxy;
mod reply;
mod request;
mod rewrite_map;
mod robots_cache;
mod router;
mod server;
mod service;
mod state;
mod webbotauth;

pub use config::{Config, DEFAULT_LISTEN};
pub use error::Error;
pub use limits::{MAX_BODY, MAX_REQUEST_BODY};
pub use rewrite_map::{MapCounts, RewriteMap};
pub use service::Service;
pub use webbotauth::WebBotAuthConfig;
