//! What every handler shares: the configuration, the registry and its
//! verifier, the caches and counters, and the bounds on the work in
//! flight (checks admitted and running, request bodies held,
//! verifications waiting on DNS, connections open).
//!
//! A leaf of the crate: it holds the parts other modules define and
//! imports none of the handlers, the router or the server loop.

use std::sync::Arc;

use axum::http::StatusCode;
use botwarden_fetch::Fetcher;
use botwarden_verify::{Classifier, Registry, Verifier};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::bot_headers::BotNames;
use crate::config::Config;
use crate::connections::Connections;
use crate::metrics::Metrics;
use crate::proxy::Proxies;
use crate::reply::ApiError;
use crate::robots_cache::RobotsCache;
use crate::webbotauth::WebBotAuth;

/// What every handler shares.
pub(crate) struct Inner {
    pub(crate) config: Config,
    /// The trusted proxies and the header they write the client's address
    /// in.
    pub(crate) proxies: Proxies,
    pub(crate) registry: Arc<Registry>,
    pub(crate) classifier: Classifier,
    pub(crate) verifier: Verifier,
    pub(crate) fetcher: Fetcher,
    pub(crate) webbotauth: WebBotAuth,
    pub(crate) metrics: Metrics,
    /// `X-Bot-Name` of each registered bot.
    pub(crate) bot_names: BotNames,
    /// Verifications waiting on DNS (`GET /verify`, and the API's within
    /// its share).
    pub(crate) pending: Arc<Semaphore>,
    /// The public API's share of `pending` ([`api_share`]).
    pub(crate) api_pending: Arc<Semaphore>,
    /// Checks admitted (running or waiting for a worker).
    jobs: Arc<Semaphore>,
    /// Checks running.
    workers: Arc<Semaphore>,
    /// Bytes of request bodies held (`max_body_bytes`).
    bodies: Arc<Semaphore>,
    /// The connections open, to close the idle ones first when full.
    pub(crate) connections: Connections,
    /// Site robots.txt fetches.
    pub(crate) robots_cache: RobotsCache,
}

pub(crate) type Shared = Arc<Inner>;

/// The parts of the shared state that are read from the configuration
/// (the registry and what is built on it), as the service loads them.
pub(crate) struct Parts {
    pub(crate) registry: Arc<Registry>,
    pub(crate) classifier: Classifier,
    pub(crate) verifier: Verifier,
    pub(crate) fetcher: Fetcher,
    pub(crate) webbotauth: WebBotAuth,
    pub(crate) proxies: Proxies,
}

/// The verifications the public API (`GET` and `POST /api/v1/verify`) may
/// have waiting on DNS at once, out of `max_pending`: half of them, at
/// most 32 (the verifier's resolver has 64 lookups in flight), at least
/// one. The rest are kept for `GET /verify`.
pub(crate) fn api_share(max_pending: usize) -> usize {
    (max_pending / 2).clamp(1, 32)
}

impl Inner {
    /// The shared state of `config` and its loaded `parts`: every bound
    /// at its configured size, every counter at zero.
    pub(crate) fn new(config: Config, parts: Parts) -> Inner {
        let Parts {
            registry,
            classifier,
            verifier,
            fetcher,
            webbotauth,
            proxies,
        } = parts;
        Inner {
            pending: Arc::new(Semaphore::new(config.max_pending)),
            api_pending: Arc::new(Semaphore::new(api_share(config.max_pending))),
            jobs: Arc::new(Semaphore::new(config.max_jobs)),
            workers: Arc::new(Semaphore::new(config.workers)),
            bodies: Arc::new(Semaphore::new(config.max_body_bytes)),
            connections: Connections::new(config.max_connections),
            robots_cache: RobotsCache::new(&config),
            metrics: Metrics::new(registry.bots().iter().map(|b| b.name.as_str())),
            bot_names: BotNames::new(&registry),
            config,
            proxies,
            registry,
            classifier,
            verifier,
            fetcher,
            webbotauth,
        }
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

    /// [`Inner::job_admitted`]: the work of a request admitted already.
    pub(crate) async fn run_admitted<T: Send + 'static>(
        &self,
        admission: Admission,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        self.job_admitted(admission, work)
            .await
            .ok_or_else(ApiError::busy)
    }

    /// Connections open now and bytes of request bodies held now.
    pub(crate) fn held(&self) -> (usize, usize) {
        (
            self.connections.count(),
            self.config.max_body_bytes - self.bodies.available_permits(),
        )
    }

    /// Checks admitted and checks running now.
    pub(crate) fn jobs_now(&self) -> (usize, usize) {
        (
            self.config.max_jobs - self.jobs.available_permits(),
            self.config.workers - self.workers.available_permits(),
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
