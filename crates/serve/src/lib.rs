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
//!   external requests) that checks a pasted file or a site's robots.txt.
//!
//! Every bound (request bodies, header, body and request timeouts, checks
//! at once, verifications in flight, caches) is documented in
//! `docs/serve.md`. The library never prints; the
//! `botwarden serve` command reads the configuration, installs a log
//! subscriber and runs [`Service::run`].

mod api;
mod config;
mod error;
mod fetch_rate;
mod gate;
mod metrics;
mod page;
mod permalink;
mod rewrite_map;
mod robots_cache;
mod state;
mod webbotauth;

pub use config::{Config, DEFAULT_LISTEN};
pub use error::Error;
pub use rewrite_map::{MapCounts, RewriteMap};
pub use state::{MAX_BODY, MAX_REQUEST_BODY, Service};
pub use webbotauth::WebBotAuthConfig;
