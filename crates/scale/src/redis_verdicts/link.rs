//! One link to Redis, standalone or a cluster, from one URL list: every
//! call bounded by a timeout, a failed call marking the link down, and a
//! background task reconnecting with backoff while the callers go on
//! without Redis.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, FromRedisValue, Pipeline, RedisFuture, Value};

use crate::Error;
use crate::connect::{RedisClient, RedisTarget};

/// The cluster client's own bound on a call; each call has a shorter
/// timeout of its own.
const CALLS_BOUND: Duration = Duration::from_secs(600);

/// A new connection to `target`, within `timeout`.
async fn connect(target: &RedisTarget, timeout: Duration) -> Result<Conn, Error> {
    let connect = async {
        match target.client()? {
            RedisClient::Single(client) => {
                // Each call has its own timeout (a blocking read of a
                // stream waits longer than a verdict's read).
                let config = redis::AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(timeout))
                    .set_response_timeout(None);
                let conn = client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                    .map_err(|e| target.error("connect", e))?;
                Ok(Conn::Single(conn))
            }
            RedisClient::Cluster(builder) => {
                let client = builder
                    .connection_timeout(timeout)
                    .response_timeout(CALLS_BOUND)
                    .retries(1)
                    .build()
                    .map_err(|e| target.error("open the cluster client", e))?;
                let conn = client
                    .get_async_connection()
                    .await
                    .map_err(|e| target.error("connect", e))?;
                Ok(Conn::Cluster(conn))
            }
        }
    };
    let mut conn =
        tokio::time::timeout(timeout, connect)
            .await
            .map_err(|_| Error::RedisTimeout {
                url: target.describe(),
                operation: "connect".to_owned(),
                after: timeout,
            })??;
    let pong: Result<String, _> =
        tokio::time::timeout(timeout, redis::cmd("PING").query_async::<String>(&mut conn))
            .await
            .map_err(|_| Error::RedisTimeout {
                url: target.describe(),
                operation: "PING".to_owned(),
                after: timeout,
            })?;
    pong.map_err(|e| target.error("PING", e))?;
    Ok(conn)
}
/// A connection to a standalone server or to a cluster; cheap to clone.
#[derive(Clone)]
enum Conn {
    Single(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// How long the link waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// A read on the request path (a cached verdict). Default 10 ms.
    pub read: Duration,
    /// A write, or a claim of a lookup. Default 50 ms.
    pub write: Duration,
    /// Connecting (and the first `PING`). Default 1 s.
    pub connect: Duration,
    /// The first wait before reconnecting after a failure; it doubles
    /// after each failed attempt. Default 100 ms.
    pub first_retry: Duration,
    /// The longest wait between reconnection attempts. Default 5 s.
    pub max_retry: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            read: Duration::from_millis(10),
            write: Duration::from_millis(50),
            connect: Duration::from_secs(1),
            first_retry: Duration::from_millis(100),
            max_retry: Duration::from_secs(5),
        }
    }
}

/// Calls that failed, and the link's state.
#[derive(Debug, Default)]
pub(crate) struct Health {
    pub(crate) errors: AtomicU64,
    pub(crate) skipped: AtomicU64,
    up: AtomicBool,
}

/// The link: a connection when up, none while down (a task reconnects).
pub(crate) struct Link {
    target: RedisTarget,
    timeouts: Timeouts,
    conn: Mutex<Option<Conn>>,
    pub(crate) health: Health,
    /// Whether a reconnecting task runs.
    reconnecting: AtomicBool,
}

impl fmt::Debug for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Link")
            .field("target", &self.target)
            .field("up", &self.is_up())
            .finish_non_exhaustive()
    }
}

impl Link {
    /// A link to `target`: connected when Redis answers now, else down
    /// with a task reconnecting in the background (Redis down at start
    /// does not stop the caller). Needs a Tokio runtime.
    pub(crate) async fn open(target: RedisTarget, timeouts: Timeouts) -> Arc<Link> {
        let link = Arc::new(Link {
            target,
            timeouts,
            conn: Mutex::new(None),
            health: Health::default(),
            reconnecting: AtomicBool::new(false),
        });
        match connect(&link.target, timeouts.connect).await {
            Ok(conn) => link.set(Some(conn)),
            Err(e) => {
                tracing::warn!("{e}; going on without Redis until it answers");
                link.health.errors.fetch_add(1, Ordering::Relaxed);
                Link::reconnect(&link);
            }
        }
        link
    }

    pub(crate) fn target(&self) -> &RedisTarget {
        &self.target
    }

    pub(crate) fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    pub(crate) fn is_up(&self) -> bool {
        self.health.up.load(Ordering::Relaxed)
    }

    fn set(&self, conn: Option<Conn>) {
        let up = conn.is_some();
        *self.conn.lock().unwrap_or_else(PoisonError::into_inner) = conn;
        self.health.up.store(up, Ordering::Relaxed);
    }

    /// Runs `cmd` within `timeout`; `None` when the link is down (counted
    /// as skipped) or the call fails or takes too long (counted as an
    /// error; the link goes down and reconnects).
    pub(crate) async fn cmd<T: FromRedisValue>(
        self: &Arc<Self>,
        what: &str,
        timeout: Duration,
        cmd: &Cmd,
    ) -> Option<T> {
        let mut conn = self.current()?;
        self.bounded(what, timeout, cmd.query_async(&mut conn))
            .await
    }

    /// Runs a pipeline as [`Link::cmd`] runs a command.
    pub(crate) async fn pipe<T: FromRedisValue>(
        self: &Arc<Self>,
        what: &str,
        timeout: Duration,
        pipe: &Pipeline,
    ) -> Option<T> {
        let mut conn = self.current()?;
        self.bounded(what, timeout, pipe.query_async(&mut conn))
            .await
    }

    /// The connection, or `None` (counted) while down.
    fn current(&self) -> Option<Conn> {
        let conn = self
            .conn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if conn.is_none() {
            self.health.skipped.fetch_add(1, Ordering::Relaxed);
        }
        conn
    }

    async fn bounded<T>(
        self: &Arc<Self>,
        what: &str,
        timeout: Duration,
        call: impl Future<Output = redis::RedisResult<T>>,
    ) -> Option<T> {
        match tokio::time::timeout(timeout, call).await {
            Ok(Ok(v)) => Some(v),
            Ok(Err(e)) => {
                self.fail(&format!("{what}: {e}"));
                None
            }
            Err(_) => {
                self.fail(&format!("{what}: no answer in {timeout:?}"));
                None
            }
        }
    }

    /// Counts a failure, marks the link down and starts reconnecting.
    fn fail(self: &Arc<Self>, what: &str) {
        self.health.errors.fetch_add(1, Ordering::Relaxed);
        if self.health.up.swap(false, Ordering::Relaxed) {
            tracing::warn!(
                "redis {}: {what}; going on without Redis until it answers",
                self.target.describe()
            );
            self.set(None);
            Link::reconnect(self);
        }
    }

    /// Starts the reconnecting task, unless one runs.
    fn reconnect(link: &Arc<Link>) {
        if link.reconnecting.swap(true, Ordering::AcqRel) {
            return;
        }
        let link = Arc::clone(link);
        tokio::spawn(async move {
            let mut wait = link.timeouts.first_retry;
            loop {
                tokio::time::sleep(wait).await;
                match connect(&link.target, link.timeouts.connect).await {
                    Ok(conn) => {
                        link.set(Some(conn));
                        tracing::info!("redis {}: answering again", link.target.describe());
                        break;
                    }
                    Err(e) => {
                        tracing::debug!("{e}");
                        wait = (wait * 2).min(link.timeouts.max_retry);
                    }
                }
            }
            link.reconnecting.store(false, Ordering::Release);
        });
    }
}
