//! Where the time of a request went before its answer: the name's lookup
//! and the opening of a connection, when the request made one.
//!
//! The HTTP client opens connections inside the request's own future, so a
//! task-local cell set around the request is where the resolver and the
//! connector (a layer around the client's connector) write what they
//! measured. A request that reuses a connection finds the cell empty.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tower_layer::Layer;
use tower_service::Service;

/// What a request spent before it could be sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ConnectTiming {
    /// The name's lookup (none for an address literal, or a reused
    /// connection).
    pub(crate) dns: Option<Duration>,
    /// Opening the connection: lookup, TCP and TLS (none for a reused
    /// connection).
    pub(crate) connect: Option<Duration>,
}

type Cell = Arc<Mutex<ConnectTiming>>;

tokio::task_local! {
    static CELL: Cell;
}

/// Runs `request`, returning what it spent on a lookup and a connection.
pub(crate) async fn measured<F: Future>(request: F) -> (F::Output, ConnectTiming) {
    let cell = Cell::default();
    let out = CELL.scope(Arc::clone(&cell), request).await;
    let timing = *cell
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    (out, timing)
}

/// The cell of the request being made, if any.
fn current() -> Option<Cell> {
    CELL.try_with(Arc::clone).ok()
}

fn record(cell: Option<&Cell>, f: impl FnOnce(&mut ConnectTiming)) {
    if let Some(cell) = cell {
        f(&mut cell
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner));
    }
}

/// Times a lookup for the request being made.
pub(crate) async fn lookup<T, E>(lookup: impl Future<Output = Result<T, E>>) -> Result<T, E> {
    let cell = current();
    let started = Instant::now();
    let out = lookup.await;
    if out.is_ok() {
        record(cell.as_ref(), |t| t.dns = Some(started.elapsed()));
    }
    out
}

/// The layer around the client's connector that times new connections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeConnect;

impl<S> Layer<S> for TimeConnect {
    type Service = TimedConnect<S>;

    fn layer(&self, inner: S) -> TimedConnect<S> {
        TimedConnect(inner)
    }
}

/// A connector whose connections are timed.
#[derive(Debug, Clone)]
pub(crate) struct TimedConnect<S>(S);

impl<S, R> Service<R> for TimedConnect<S>
where
    S: Service<R>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        // Called as the request is being made, inside its task.
        let cell = current();
        let started = Instant::now();
        let connecting = self.0.call(request);
        Box::pin(async move {
            let out = connecting.await;
            if out.is_ok() {
                record(cell.as_ref(), |t| t.connect = Some(started.elapsed()));
            }
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn what_is_measured_inside_a_request_is_its_own() {
        let (value, timing) = measured(async {
            lookup(async { Ok::<_, ()>(7) }).await.expect("looked up");
            lookup(async { Err::<(), _>("no such name") })
                .await
                .expect_err("failed");
            3
        })
        .await;
        assert_eq!(value, 3);
        assert!(timing.dns.is_some(), "the successful lookup");
        assert_eq!(timing.connect, None);
        // Outside a request nothing is recorded, and nothing fails.
        lookup(async { Ok::<_, ()>(1) }).await.expect("looked up");
        let (_, other) = measured(async {}).await;
        assert_eq!(other, ConnectTiming::default());
    }
}
