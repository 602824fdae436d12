//! The service: its shared state, the router, and the server loop.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::HeaderName;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{get, post};
use botwarden_crawl::Fetcher;
use botwarden_verify::{
    Cidr, Classifier, DEFAULT_EXTRAS_NAME, DEFAULT_REGISTRY_NAME, DnsConfig, FeedStore, Registry,
    RegistryBuilder, Severity, Verifier, VerifierConfig,
};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::config::Config;
use crate::error::Error;
use crate::metrics::Metrics;
use crate::{api, gate, page};

/// The most bytes of robots.txt the service reads: the command's own cap
/// (10 MiB, twenty times what Google reads).
pub const MAX_BODY: usize = 10 * 1024 * 1024;

/// The most bytes of a request body: [`MAX_BODY`] and 1 MiB more for the
/// JSON around it (options, escapes). A larger body is refused with `413`.
pub const MAX_REQUEST_BODY: usize = MAX_BODY + 1024 * 1024;

/// What every handler shares.
pub(crate) struct Inner {
    pub(crate) config: Config,
    trusted: Vec<Cidr>,
    pub(crate) client_header: HeaderName,
    pub(crate) registry: Arc<Registry>,
    pub(crate) classifier: Classifier,
    pub(crate) verifier: Verifier,
    pub(crate) fetcher: Fetcher,
    pub(crate) metrics: Metrics,
    /// Verifications waiting on DNS (`GET /verify`).
    pub(crate) pending: Arc<Semaphore>,
    /// Checks admitted (running or waiting for a worker).
    jobs: Arc<Semaphore>,
    /// Checks running.
    workers: Arc<Semaphore>,
}

pub(crate) type Shared = Arc<Inner>;

/// A trusted proxy entry: an address or a CIDR block.
pub(crate) fn parse_proxy(text: &str) -> Result<Cidr, String> {
    let text = text.trim();
    let cidr = if text.contains('/') {
        text.to_owned()
    } else {
        match text.parse::<IpAddr>() {
            Ok(IpAddr::V4(_)) => format!("{text}/32"),
            Ok(IpAddr::V6(_)) => format!("{text}/128"),
            Err(_) => return Err("not an address or CIDR block".to_owned()),
        }
    };
    Cidr::parse(&cidr).map_err(|e| e.to_string())
}

/// The running service: its state and routes. Build with [`Service::new`],
/// then [`Service::run`] on a bound listener (or mount
/// [`Service::router`] in an application of your own, served with
/// `into_make_service_with_connect_info::<SocketAddr>()`).
#[derive(Clone)]
pub struct Service {
    inner: Shared,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl Service {
    /// Loads the registry (the default one unless told not to, the
    /// configured files, the stored published ranges) and sets up the
    /// classifier, the verifier and the fetcher. Registry warnings
    /// (outside the default registry) and unreadable stored feeds are
    /// logged as warnings.
    ///
    /// # Errors
    ///
    /// A configuration value out of range, an unreadable registry file, a
    /// registry with errors, a verifier or fetcher that cannot be set up.
    pub fn new(config: Config) -> Result<Service, Error> {
        config.check().map_err(|message| Error::Config {
            path: "options".to_owned(),
            message,
        })?;
        let registry = Arc::new(load_registry(&config)?);
        let classifier = Classifier::for_registry(&registry)?.with_cache(100_000);
        let verifier_config = if config.no_dns {
            VerifierConfig::offline()
        } else {
            let mut dns = match config.nameserver {
                Some(addr) => DnsConfig::with_nameserver(addr),
                None => DnsConfig::default(),
            };
            dns.timeout = Duration::from_secs_f64(config.dns_timeout);
            VerifierConfig::with_dns(dns)
        };
        let mut verifier_config = verifier_config;
        verifier_config.cache_capacity = config.cache_capacity;
        verifier_config.shared.clone_from(&config.shared);
        let verifier = Verifier::new(Arc::clone(&registry), verifier_config)?;
        let fetcher = Fetcher::builder()
            .allow_private(config.allow_private)
            .build()?;
        let trusted = config
            .trusted_proxies
            .iter()
            .filter_map(|p| parse_proxy(p).ok())
            .collect();
        let client_header =
            HeaderName::try_from(config.client_header.as_str()).map_err(|_| Error::Config {
                path: "options".to_owned(),
                message: format!("'{}' is not a header name", config.client_header),
            })?;
        Ok(Service {
            inner: Arc::new(Inner {
                pending: Arc::new(Semaphore::new(config.max_pending)),
                jobs: Arc::new(Semaphore::new(config.max_jobs)),
                workers: Arc::new(Semaphore::new(config.workers)),
                metrics: Metrics::default(),
                config,
                trusted,
                client_header,
                registry,
                classifier,
                verifier,
                fetcher,
            }),
        })
    }

    /// The configuration in force.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Every route: the API, `/verify`, `/healthz`, `/metrics`, the web
    /// checker. Needs the peer's address (`ConnectInfo<SocketAddr>`).
    pub fn router(&self) -> Router {
        let api = Router::new()
            .route("/check", post(api::check))
            .route("/fix", post(api::fix))
            .route("/test", post(api::test))
            .route("/fetch", get(api::fetch_get).post(api::fetch_post))
            .route("/verify", get(api::verify))
            .route("/classify", post(api::classify))
            .route("/openapi.json", get(api::openapi))
            .fallback(api::not_found)
            .method_not_allowed_fallback(api::method_not_allowed);
        Router::new()
            .nest("/api/v1", api)
            .route("/verify", get(gate::verify))
            .route("/healthz", get(|| async { "ok\n" }))
            .route("/metrics", get(crate::metrics::render))
            .route("/", get(page::home))
            .route("/check", get(page::check_get).post(page::check_post))
            .route("/style.css", get(page::style))
            .fallback(page::not_found)
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&self.inner),
                track,
            ))
            .with_state(Arc::clone(&self.inner))
    }

    /// Serves on `listener` until `shutdown` completes, then stops taking
    /// connections and waits for the requests in flight.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when serving fails.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        let addr = listener
            .local_addr()
            .map_or_else(|_| "?".to_owned(), |a| a.to_string());
        tracing::info!(%addr, enforce = self.inner.config.enforce, "listening");
        let app = self.router();
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|source| Error::Io {
            what: "serve on",
            addr,
            source,
        })?;
        tracing::info!("stopped");
        Ok(())
    }
}

impl Inner {
    /// Whether `peer` is a trusted proxy.
    pub(crate) fn is_trusted(&self, peer: IpAddr) -> bool {
        let peer = botwarden_verify::normalize(peer);
        self.trusted.iter().any(|c| c.contains(peer))
    }

    /// Runs CPU-bound work (a check, a fix, URL tests) on a blocking
    /// thread: at most `workers` at once, at most `max_jobs` admitted;
    /// `None` when the service is too busy to admit it.
    pub(crate) async fn job<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let admitted = Arc::clone(&self.jobs).try_acquire_owned().ok()?;
        let running = Arc::clone(&self.workers).acquire_owned().await.ok()?;
        let result = tokio::task::spawn_blocking(move || {
            let _permits = (admitted, running);
            work()
        })
        .await;
        match result {
            Ok(value) => Some(value),
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => None,
        }
    }
}

/// Reads the registry the way the command does: the default registry
/// unless told not to, the files in order, the stored ranges over the
/// compiled-in snapshot.
fn load_registry(config: &Config) -> Result<Registry, Error> {
    let mut builder = if config.no_default_registry {
        RegistryBuilder::new()
    } else {
        RegistryBuilder::with_defaults()
    };
    for path in &config.registry {
        let bytes = std::fs::read(path).map_err(|source| Error::RegistryFile {
            path: path.display().to_string(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| Error::Registry {
            problems: vec![format!(
                "{}: not UTF-8 (byte {})",
                path.display(),
                e.utf8_error().valid_up_to()
            )],
        })?;
        builder.add_file(&path.display().to_string(), &text);
    }
    let store = match &config.ranges_dir {
        Some(dir) => Some(FeedStore::new(dir)),
        None => FeedStore::default_location(),
    };
    if let Some(store) = store {
        for skipped in store.read_into(builder.ranges_mut())? {
            tracing::warn!("skipped {skipped}");
        }
    }
    let (registry, problems) = builder.build();
    for p in problems.iter().filter(|p| {
        p.severity == Severity::Warning
            && !matches!(&*p.file, DEFAULT_REGISTRY_NAME | DEFAULT_EXTRAS_NAME)
    }) {
        tracing::warn!("{p}");
    }
    registry.ok_or_else(|| Error::Registry {
        problems: problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .map(ToString::to_string)
            .collect(),
    })
}

/// Counts and logs every request by its route (the pattern matched, so the
/// labels stay few).
async fn track(State(inner): State<Shared>, request: Request, next: Next) -> Response {
    // The known routes as static strings: no allocation per request.
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |p| inner.metrics.route_name(p.as_str()));
    let method = request.method().clone();
    let started = Instant::now();
    let response = next.run(request).await;
    let status = response.status().as_u16();
    inner.metrics.request(route, status);
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    if route == "/verify" {
        tracing::debug!(%method, route, status, micros, "request");
    } else {
        tracing::info!(%method, route, status, micros, "request");
    }
    response
}
