//! The connections open (at most `max_connections`, the idle ones closed
//! first to make room) and what each is doing: requests in flight, and
//! since when it has had none (`header_timeout`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::metrics::Metrics;

/// What a connection is doing: requests in flight, and since when it has
/// had none.
pub(crate) struct Activity {
    /// Its number among the connections open.
    pub(crate) id: u64,
    /// When the connection was opened: `idle_since` counts from it.
    opened: Instant,
    in_flight: AtomicUsize,
    /// Microseconds from `opened` to the end of the last request.
    idle_since: AtomicU64,
    /// Told to close, to make room for a new connection.
    pub(crate) close: Notify,
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
    pub(crate) async fn idle_for(&self, limit: Duration) {
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
pub(crate) struct Connections {
    max: usize,
    next: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Activity>>>,
}

impl Connections {
    pub(crate) fn new(max: usize) -> Connections {
        Connections {
            max,
            next: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Room for a new connection: when full, the connection idle the
    /// longest is told to close (and no longer counted); `None` when none
    /// is idle (the new one is refused).
    pub(crate) fn open(&self, metrics: &Metrics) -> Option<Arc<Activity>> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
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

    pub(crate) fn close(&self, id: u64) {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
    }

    pub(crate) fn count(&self) -> usize {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// A request in flight on a connection, from its headers until its
/// answer's body is written.
pub(crate) struct Busy(Arc<Activity>);

impl Busy {
    pub(crate) fn begin(activity: &Arc<Activity>) -> Busy {
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
pub(crate) struct Sending {
    body: axum::body::Body,
    _busy: Busy,
}

impl Sending {
    pub(crate) fn new(body: axum::body::Body, busy: Busy) -> Sending {
        Sending { body, _busy: busy }
    }
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
