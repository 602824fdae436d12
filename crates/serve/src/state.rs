//! The service: its shared state, the router, and the server loop.

use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderName, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use axum::routing::{get, post};
use botwarden_fetch::Fetcher;
use botwarden_verify::{
    Cidr, Classifier, DEFAULT_EXTRAS_NAME, DEFAULT_REGISTRY_NAME, DnsConfig, FeedStore, Registry,
    RegistryBuilder, Severity, Verifier, VerifierConfig, WELL_KNOWN_DIRECTORY,
};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tower_service::Service as _;

use crate::api::ApiError;
use crate::config::Config;
use crate::error::Error;
use crate::metrics::{Metrics, Route};
use crate::robots_cache::RobotsCache;
use crate::webbotauth::{self, WebBotAuth};
use crate::{api, gate, page};

/// The most bytes of robots.txt the service reads: the command's own cap
/// (10 MiB, twenty times what Google reads).
pub const MAX_BODY: usize = 10 * 1024 * 1024;

/// The most bytes of a request body: [`MAX_BODY`] and 1 MiB more for the
/// JSON around it (options, escapes). A larger body is refused with `413`.
pub const MAX_REQUEST_BODY: usize = MAX_BODY + 1024 * 1024;

/// The most bytes hyper buffers of an HTTP/1.1 connection's input: a
/// request line and headers (permalinks' targets are under 64 KiB), or
/// body bytes not yet taken.
pub(crate) const HTTP1_BUFFER: usize = 80 * 1024;
/// HTTP/2 flow control: the bytes of request bodies a client may send on
/// one connection, and on one stream, before the service has taken them.
pub(crate) const HTTP2_CONNECTION_WINDOW: u32 = 256 * 1024;
pub(crate) const HTTP2_STREAM_WINDOW: u32 = 128 * 1024;
/// The most bytes of one HTTP/2 request's header fields, decoded.
pub(crate) const HTTP2_HEADER_LIST: u32 = 16 * 1024;
/// The most bytes of an answer queued on one HTTP/2 stream.
pub(crate) const HTTP2_SEND_BUFFER: usize = 64 * 1024;

/// What every handler shares.
pub(crate) struct Inner {
    pub(crate) config: Config,
    trusted: Vec<Cidr>,
    pub(crate) client_header: HeaderName,
    pub(crate) registry: Arc<Registry>,
    pub(crate) classifier: Classifier,
    pub(crate) verifier: Verifier,
    pub(crate) fetcher: Fetcher,
    pub(crate) webbotauth: WebBotAuth,
    pub(crate) metrics: Metrics,
    /// `X-Bot-Name` of each registered bot.
    pub(crate) bot_names: gate::BotNames,
    /// Verifications waiting on DNS (`GET /verify`, and the API's within
    /// its share).
    pub(crate) pending: Arc<Semaphore>,
    /// The public API's share of `pending` ([`gate::api_share`]).
    pub(crate) api_pending: Arc<Semaphore>,
    /// Checks admitted (running or waiting for a worker).
    jobs: Arc<Semaphore>,
    /// Checks running.
    workers: Arc<Semaphore>,
    /// Bytes of request bodies held (`max_body_bytes`).
    bodies: Arc<Semaphore>,
    /// The connections open, to close the idle ones first when full.
    connections: Connections,
    /// Site robots.txt fetches.
    pub(crate) robots_cache: RobotsCache,
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
        let webbotauth = WebBotAuth::new(&config.web_bot_auth, &verifier, fetcher.clone())?;
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
                api_pending: Arc::new(Semaphore::new(gate::api_share(config.max_pending))),
                jobs: Arc::new(Semaphore::new(config.max_jobs)),
                workers: Arc::new(Semaphore::new(config.workers)),
                bodies: Arc::new(Semaphore::new(config.max_body_bytes)),
                connections: Connections::new(config.max_connections),
                robots_cache: RobotsCache::new(&config),
                metrics: Metrics::new(registry.bots().iter().map(|b| b.name.as_str())),
                bot_names: gate::BotNames::new(&registry),
                config,
                trusted,
                client_header,
                registry,
                classifier,
                verifier,
                fetcher,
                webbotauth,
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
            .route("/verify", get(api::verify).post(webbotauth::api_verify))
            .route("/classify", post(api::classify))
            .route("/openapi.json", get(api::openapi))
            .fallback(api::not_found)
            .method_not_allowed_fallback(api::method_not_allowed);
        Router::new()
            .nest("/api/v1", api)
            .route("/verify", get(gate::verify))
            .route(WELL_KNOWN_DIRECTORY, get(webbotauth::directory))
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
    /// Each connection is served by hyper (HTTP/1.1, and HTTP/2 with prior
    /// knowledge) with `header_timeout` on reading a request's headers: a
    /// client that sends them slowly, or stops, has its connection closed.
    /// `GET /verify` is answered here directly, the rest through
    /// [`Service::router`]: the same answers, counts and timeouts.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the listener has no address.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        let addr = listener.local_addr().map_err(|source| Error::Io {
            what: "serve on",
            addr: "the listener".to_owned(),
            source,
        })?;
        tracing::info!(%addr, enforce = self.inner.config.enforce, "listening");
        let app = self.router();
        let mut http = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
        // `header_timeout` is kept by each connection's watchdog (no
        // request in flight for that long: closed), which covers a request
        // whose headers come slowly: no timer per request.
        http.http1()
            .header_read_timeout(None)
            .max_buf_size(HTTP1_BUFFER);
        http.http2()
            .timer(TokioTimer::new())
            .max_concurrent_streams(self.inner.config.http2_max_streams)
            .initial_connection_window_size(HTTP2_CONNECTION_WINDOW)
            .initial_stream_window_size(HTTP2_STREAM_WINDOW)
            .max_header_list_size(HTTP2_HEADER_LIST)
            .max_send_buf_size(HTTP2_SEND_BUFFER);
        let http = Arc::new(http);
        // Connections watch `stop`; `run` returns once every one of them
        // has dropped its receiver.
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(pair) => pair,
                    Err(e) => {
                        // Out of descriptors or a connection reset before
                        // it was taken: wait a little rather than spin.
                        tracing::warn!(error = %e, "cannot accept a connection");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            let Some(activity) = self.inner.connections.open(&self.inner.metrics) else {
                // Full, and every connection has a request in flight.
                drop(stream);
                continue;
            };
            let _ = stream.set_nodelay(true);
            let app = app.clone();
            let inner = Arc::clone(&self.inner);
            let http = Arc::clone(&http);
            let mut stopping = stopping.clone();
            let idle_limit = Duration::from_secs_f64(self.inner.config.header_timeout);
            tokio::spawn(async move {
                let _open = Open(Arc::clone(&activity), Arc::clone(&inner));
                let watched = Arc::clone(&activity);
                let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
                    let busy = Busy::begin(&watched);
                    let inner = Arc::clone(&inner);
                    let app = (!is_direct(&request)).then(|| app.clone());
                    async move {
                        let Some(mut app) = app else {
                            let response = direct(&inner, peer.ip(), &request).await;
                            // Its body is empty: written with the head.
                            drop(busy);
                            return Ok(response);
                        };
                        request
                            .extensions_mut()
                            .insert(axum::extract::ConnectInfo(peer));
                        let response = app.call(request).await?;
                        // Busy until the body is written out.
                        Ok::<_, std::convert::Infallible>(
                            response
                                .map(|body| axum::body::Body::new(Sending { body, _busy: busy })),
                        )
                    }
                });
                let connection = http.serve_connection(TokioIo::new(stream), service);
                let mut connection = std::pin::pin!(connection);
                tokio::select! {
                    done = connection.as_mut() => {
                        if let Err(e) = done {
                            tracing::debug!(%peer, error = %e, "connection ended");
                        }
                        return;
                    }
                    () = activity.idle_for(idle_limit) => {
                        tracing::debug!(%peer, "closed a connection that sent no request within header_timeout");
                        return;
                    }
                    () = activity.close.notified() => {
                        tracing::debug!(%peer, "closed an idle connection to make room (max_connections)");
                        return;
                    }
                    _ = stopping.changed() => {}
                }
                connection.as_mut().graceful_shutdown();
                if let Err(e) = connection.await {
                    tracing::debug!(%peer, error = %e, "connection ended");
                }
            });
        }
        drop(stopping);
        let _ = stop.send(true);
        stop.closed().await;
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

    /// Admits a request as a job before anything of its body is read: a
    /// place among `max_jobs`, else `503 busy`.
    pub(crate) fn admit(&self) -> Result<Admission, ApiError> {
        match Arc::clone(&self.jobs).try_acquire_owned() {
            Ok(job) => Ok(Admission {
                _job: job,
                body: None,
            }),
            Err(_) => {
                self.metrics.job_refused();
                Err(ApiError::busy())
            }
        }
    }

    /// Reserves `bytes` more of request body for an admitted request, out
    /// of `max_body_bytes` for all of them; `503 busy` when not that many
    /// are left.
    pub(crate) fn reserve_body(
        &self,
        admission: &mut Admission,
        bytes: usize,
    ) -> Result<(), ApiError> {
        if bytes == 0 {
            return Ok(());
        }
        let permit = u32::try_from(bytes)
            .ok()
            .and_then(|n| Arc::clone(&self.bodies).try_acquire_many_owned(n).ok());
        let Some(permit) = permit else {
            self.metrics.body_refused();
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy",
                "the service holds as many request bodies as it may (max_body_bytes); \
                 try again shortly",
            ));
        };
        match &mut admission.body {
            Some(held) => held.merge(permit),
            None => admission.body = Some(permit),
        }
        Ok(())
    }

    /// Runs the work of an admitted request on a blocking thread once a
    /// worker is free; its admission (and the body bytes it holds) is let
    /// go when the work ends. `None` if the work could not run.
    pub(crate) async fn job_admitted<T: Send + 'static>(
        &self,
        admitted: Admission,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        // Dropped while waiting for a worker (the client left, or the
        // request timed out): the work never starts, and is counted.
        let mut waiting = Waiting {
            metrics: &self.metrics,
            started: false,
        };
        let running = Arc::clone(&self.workers).acquire_owned().await.ok()?;
        waiting.started = true;
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

    /// Connections open now and bytes of request bodies held now.
    pub(crate) fn held(&self) -> (usize, usize) {
        (
            self.connections.count(),
            self.config.max_body_bytes - self.bodies.available_permits(),
        )
    }
}

/// A request admitted as a job: its place among `max_jobs`, and the bytes
/// of request body it holds out of `max_body_bytes`. Both are let go when
/// it is dropped.
pub(crate) struct Admission {
    _job: OwnedSemaphorePermit,
    body: Option<OwnedSemaphorePermit>,
}

impl Inner {
    /// Checks admitted and checks running now.
    pub(crate) fn jobs_now(&self) -> (usize, usize) {
        (
            self.config.max_jobs - self.jobs.available_permits(),
            self.config.workers - self.workers.available_permits(),
        )
    }
}

/// A check waiting for a worker; counted as abandoned if dropped before
/// it starts.
struct Waiting<'a> {
    metrics: &'a Metrics,
    started: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if !self.started {
            self.metrics.job_abandoned();
        }
    }
}

/// What a connection is doing: requests in flight, and since when it has
/// had none.
struct Activity {
    /// Its number among the connections open.
    id: u64,
    /// When the connection was opened: `idle_since` counts from it.
    opened: Instant,
    in_flight: AtomicUsize,
    /// Microseconds from `opened` to the end of the last request.
    idle_since: AtomicU64,
    /// Told to close, to make room for a new connection.
    close: Notify,
}

impl Activity {
    fn new(id: u64) -> Activity {
        Activity {
            id,
            opened: Instant::now(),
            in_flight: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            close: Notify::new(),
        }
    }

    /// When its last request ended (or it was opened), if none is in
    /// flight now.
    fn idle_since(&self) -> Option<Instant> {
        (self.in_flight.load(Ordering::Acquire) == 0)
            .then(|| self.opened + Duration::from_micros(self.idle_since.load(Ordering::Acquire)))
    }

    /// Completes once the connection has had no request in flight for
    /// `limit`: from its start, or from its last answer, until a
    /// request's headers have all come.
    async fn idle_for(&self, limit: Duration) {
        loop {
            // `idle_since` is written before `in_flight` goes down to 0,
            // so with no request in flight it is the last one's end.
            let wait = if self.in_flight.load(Ordering::Acquire) > 0 {
                limit
            } else {
                let since =
                    self.opened + Duration::from_micros(self.idle_since.load(Ordering::Acquire));
                match limit.checked_sub(since.elapsed()) {
                    Some(left) if !left.is_zero() => left,
                    _ => return,
                }
            };
            tokio::time::sleep(wait).await;
        }
    }
}

/// The connections open, at most `max_connections`.
struct Connections {
    max: usize,
    next: AtomicU64,
    open: std::sync::Mutex<std::collections::HashMap<u64, Arc<Activity>>>,
}

impl Connections {
    fn new(max: usize) -> Connections {
        Connections {
            max,
            next: AtomicU64::new(0),
            open: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Room for a new connection: when full, the connection idle the
    /// longest is told to close (and no longer counted); `None` when none
    /// is idle (the new one is refused).
    fn open(&self, metrics: &Metrics) -> Option<Arc<Activity>> {
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if open.len() >= self.max {
            let oldest = open
                .values()
                .filter_map(|a| a.idle_since().map(|since| (since, a.id)))
                .min()
                .map(|(_, id)| id);
            let Some(id) = oldest.and_then(|id| open.remove(&id)) else {
                metrics.connection_refused();
                return None;
            };
            id.close.notify_one();
            metrics.connection_evicted();
        }
        let activity = Arc::new(Activity::new(self.next.fetch_add(1, Ordering::Relaxed)));
        open.insert(activity.id, Arc::clone(&activity));
        Some(activity)
    }

    fn close(&self, id: u64) {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&id);
    }

    fn count(&self) -> usize {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }
}

/// A connection counted among those open until its task ends.
struct Open(Arc<Activity>, Shared);

impl Drop for Open {
    fn drop(&mut self) {
        self.1.connections.close(self.0.id);
    }
}

/// A request in flight on a connection, from its headers until its
/// answer's body is written.
struct Busy(Arc<Activity>);

impl Busy {
    fn begin(activity: &Arc<Activity>) -> Busy {
        activity.in_flight.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(activity))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let a = &self.0;
        let now = u64::try_from(a.opened.elapsed().as_micros()).unwrap_or(u64::MAX);
        a.idle_since.fetch_max(now, Ordering::AcqRel);
        a.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// An answer's body, keeping its request [`Busy`] until it is sent (or
/// dropped).
struct Sending {
    body: axum::body::Body,
    _busy: Busy,
}

impl axum::body::HttpBody for Sending {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
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
async fn tracked(
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

/// Whether the connection loop answers `request` itself, past the
/// router: `GET /verify`, the request web servers send for every request
/// they serve.
fn is_direct(request: &Request<Incoming>) -> bool {
    request.method() == Method::GET && request.uri().path() == "/verify"
}

/// `GET /verify` answered by the connection loop: what the router's
/// route gives (the same handler's work, count, log and `request_timeout`)
/// without its routing, layers and boxed futures.
async fn direct(inner: &Shared, peer: IpAddr, request: &Request<Incoming>) -> Response {
    let answer = gate::verify_request(inner, peer, request.uri().query(), request.headers());
    tracked(inner, Route::VERIFY, &Method::GET, false, answer).await
}
