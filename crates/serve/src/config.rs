//! The service's configuration: `--config FILE` (TOML) and the command's
//! options over it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use botwarden_verify::SharedVerdicts;

use serde::Deserialize;

use crate::error::Error;
use crate::webbotauth::WebBotAuthConfig;

/// Where the service listens unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// The service's settings, as read from a TOML file (every key optional;
/// unknown keys are errors). Start from [`Config::default`] or
/// [`Config::from_toml`] and change fields.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct Config {
    /// Address and port to listen on. Default `127.0.0.1:8080`.
    pub listen: SocketAddr,
    /// Proxies whose client-address header is believed: addresses or CIDR
    /// blocks (`127.0.0.1`, `10.0.0.0/8`). Default none: the peer's
    /// address is the client's.
    pub trusted_proxies: Vec<String>,
    /// The header a trusted proxy puts the client's address in. Default
    /// `X-Forwarded-For` (the right-most address that is not a trusted
    /// proxy is the client); `X-Real-IP` works the same way with one address.
    pub client_header: String,
    /// Enforce mode: `GET /verify` answers `403` for spoofed crawlers.
    /// Default false (monitor mode: always `200`, the verdict in headers).
    pub enforce: bool,
    /// Registry or uap_extras files read after the default registry.
    pub registry: Vec<PathBuf>,
    /// Start from an empty registry instead of the default one.
    pub no_default_registry: bool,
    /// The directory of published ranges `bots update` stores (default:
    /// the same as the command's).
    pub ranges_dir: Option<PathBuf>,
    /// Fetch robots.txt from loopback and private addresses too. Default
    /// false.
    pub allow_private: bool,
    /// Certificate authorities (PEM files) trusted beside the built-in
    /// roots for what the service fetches (robots.txt, key directories),
    /// as on a staging network. Default none.
    pub ca_cert: Vec<PathBuf>,
    /// The name server verification asks (`ADDR:PORT`) instead of the
    /// system's.
    pub nameserver: Option<SocketAddr>,
    /// Verify by address lists and published ranges only.
    pub no_dns: bool,
    /// Seconds one DNS lookup may take. Default 2.
    pub dns_timeout: f64,
    /// Seconds one verification may take before `GET /verify` answers
    /// `unknown`. Default 3.
    pub verify_timeout: f64,
    /// Verifications waiting on DNS at once; past it `GET /verify` answers
    /// `unknown` at once. Default 1,024.
    pub max_pending: usize,
    /// Verdicts kept in the cache. Default 100,000.
    pub cache_capacity: usize,
    /// Threads serving connections (the command's async runtime; a
    /// library user runs [`Service::run`](crate::Service::run) on a
    /// runtime of their own). Default: half the CPUs, at least 1 (one on
    /// two cores): a cached `GET /verify` costs so little that one thread
    /// answers tens of thousands a second, with fewer threads than cores
    /// the answers wait less for the scheduler, and the web server asking
    /// keeps the other cores. Raise it when those threads are busy all the
    /// time.
    pub io_threads: usize,
    /// Checks, fixes and URL tests running at once (each on a thread of
    /// its own). Default: the number of CPUs.
    pub workers: usize,
    /// Checks admitted at once, running or waiting for a worker; past it
    /// the answer is `503` with `Retry-After: 1`. Default: four times the
    /// workers.
    pub max_jobs: usize,
    /// Connections open at once. When full, a new connection closes the
    /// one that has been idle longest (no request in flight); with none
    /// idle it is closed at once. Default: the open-file limit less a
    /// reserve of a quarter of it (at least 64) for DNS, fetches and files:
    /// 768 under the usual limit of 1,024.
    pub max_connections: usize,
    /// HTTP/2 streams (requests) open at once on one connection. Default 16.
    pub http2_max_streams: u32,
    /// Bytes of request bodies held at once, every request together
    /// (reserved as they arrive, or all at once for a declared
    /// `Content-Length`); past it the answer is `503 busy`. Default 64 MiB.
    pub max_body_bytes: usize,
    /// Seconds a client may take to send a request's line and headers;
    /// past it the connection is closed. Default 10.
    pub header_timeout: f64,
    /// Seconds a client may take to send a request's body; past it the
    /// answer is `408`. Default 30.
    pub body_timeout: f64,
    /// Seconds one request may take from its headers to its answer
    /// (reading the body, fetching, checking); past it the answer is
    /// `503` with `Retry-After: 1`. Default 60.
    pub request_timeout: f64,
    /// Site robots.txt fetches kept for the web checker's site links and
    /// the API's `url` inputs. Default 256.
    pub robots_cache_entries: usize,
    /// Bytes of robots.txt bodies kept in that cache. Default 64 MiB.
    pub robots_cache_bytes: usize,
    /// The shortest time, in seconds, a fetched robots.txt is kept, whatever
    /// its caching headers say (`no-store` and `no-cache` included). Default 60.
    pub robots_cache_min: f64,
    /// The longest time, in seconds, a fetched robots.txt is kept: RFC 9309
    /// asks crawlers not to cache it longer than 24 hours. Default 86,400.
    pub robots_cache_max: f64,
    /// Web Bot Auth: the operator's key directory served, and whether
    /// signature agents' directories are fetched (`[web_bot_auth]`).
    pub web_bot_auth: WebBotAuthConfig,
    /// A verdict cache shared with other processes (the command's
    /// `--redis`), behind the verifier's own. Not read from the file.
    #[serde(skip)]
    pub shared: Option<Arc<dyn SharedVerdicts>>,
}

impl Default for Config {
    fn default() -> Config {
        let cpus = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        Config {
            listen: DEFAULT_LISTEN
                .parse()
                .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 8080))),
            trusted_proxies: Vec::new(),
            client_header: "X-Forwarded-For".to_owned(),
            enforce: false,
            registry: Vec::new(),
            no_default_registry: false,
            ranges_dir: None,
            allow_private: false,
            ca_cert: Vec::new(),
            nameserver: None,
            no_dns: false,
            dns_timeout: 2.0,
            verify_timeout: 3.0,
            max_pending: 1024,
            cache_capacity: 100_000,
            io_threads: (cpus / 2).max(1),
            workers: cpus,
            max_jobs: 4 * cpus,
            max_connections: default_max_connections(),
            http2_max_streams: 16,
            max_body_bytes: 64 * 1024 * 1024,
            header_timeout: 10.0,
            body_timeout: 30.0,
            request_timeout: 60.0,
            robots_cache_entries: 256,
            robots_cache_bytes: 64 * 1024 * 1024,
            robots_cache_min: 60.0,
            robots_cache_max: 86_400.0,
            web_bot_auth: WebBotAuthConfig::default(),
            shared: None,
        }
    }
}

/// The process's open-file limit (its soft limit, from
/// `/proc/self/limits`), 1,024 where it cannot be read.
pub(crate) fn open_file_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("Max open files"))?;
            let soft = line
                .trim_start_matches("Max open files")
                .split_whitespace()
                .next()?;
            if soft == "unlimited" {
                return Some(1 << 20);
            }
            soft.parse().ok()
        })
        .unwrap_or(1024)
}

/// `max_connections` by default: the open-file limit less a quarter of it
/// (at least 64) kept for the descriptors the service opens itself.
fn default_max_connections() -> usize {
    let limit = open_file_limit();
    limit.saturating_sub((limit / 4).max(64)).max(16)
}

impl Config {
    /// Reads a configuration file's text; `path` names it in errors.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for TOML that does not parse or does not fit
    /// (with the line and column), and for values out of range.
    pub fn from_toml(path: &Path, text: &str) -> Result<Config, Error> {
        let config: Config = toml::from_str(text).map_err(|e| Error::Config {
            path: path.display().to_string(),
            message: e.to_string().trim_end().to_owned(),
        })?;
        config.check().map_err(|message| Error::Config {
            path: path.display().to_string(),
            message,
        })?;
        Ok(config)
    }

    /// Checks the values that the types let through.
    pub(crate) fn check(&self) -> Result<(), String> {
        let within = |name: &str, v: f64, max: f64| {
            if v.is_finite() && v > 0.0 && v <= max {
                Ok(())
            } else {
                Err(format!(
                    "{name} = {v} is not a number of seconds between 0 and {max}"
                ))
            }
        };
        within("dns_timeout", self.dns_timeout, 60.0)?;
        within("verify_timeout", self.verify_timeout, 60.0)?;
        within("header_timeout", self.header_timeout, 3600.0)?;
        within("body_timeout", self.body_timeout, 3600.0)?;
        within("request_timeout", self.request_timeout, 3600.0)?;
        within("robots_cache_min", self.robots_cache_min, 86_400.0)?;
        within("robots_cache_max", self.robots_cache_max, 86_400.0)?;
        if self.robots_cache_min > self.robots_cache_max {
            return Err(format!(
                "robots_cache_min = {} is more than robots_cache_max = {}",
                self.robots_cache_min, self.robots_cache_max
            ));
        }
        for (name, v) in [
            ("max_pending", self.max_pending),
            ("io_threads", self.io_threads),
            ("workers", self.workers),
            ("max_jobs", self.max_jobs),
            ("max_connections", self.max_connections),
            (
                "http2_max_streams",
                usize::try_from(self.http2_max_streams).unwrap_or(1),
            ),
            ("max_body_bytes", self.max_body_bytes),
        ] {
            if v == 0 {
                return Err(format!("{name} must be at least 1"));
            }
        }
        if self.client_header.is_empty()
            || axum::http::HeaderName::try_from(self.client_header.as_str()).is_err()
        {
            return Err(format!(
                "client_header = '{}' is not a header name",
                self.client_header
            ));
        }
        crate::webbotauth::allowed_origins(&self.web_bot_auth)?;
        for (i, proxy) in self.trusted_proxies.iter().enumerate() {
            crate::proxy::parse_proxy(proxy)
                .map_err(|e| format!("trusted_proxies[{i}] = '{proxy}': {e}"))?;
        }
        Ok(())
    }
}
