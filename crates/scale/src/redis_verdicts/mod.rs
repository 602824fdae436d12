//! The verdict cache shared on Redis: what one process worked out with
//! DNS, every other process behind the same Redis (standalone or a
//! cluster) reuses, and a lookup one process has in flight the others
//! wait for instead of asking DNS too. Plugs into the verifier's seam
//! ([`SharedVerdicts`]); the verifier's own cache stays in front.
//!
//! Keys (schema version 1; nothing else is stored):
//!
//! - `botwarden:v1:verdict:IP:BOT` — the verdict in its compact form
//!   ([`encode_verdict`]), set with `PX` the verifier's TTL for it (the
//!   same rule as its own cache: 60 s for verified and spoofed, 5 s for
//!   unknown by default); read with `GET` and `PTTL`, so a process keeps
//!   it no longer than it has left;
//! - `botwarden:v1:lookup:IP:BOT` — the claim of a lookup in flight,
//!   `SET NX PX` the verifier's lock TTL, deleted once the verdict is
//!   stored; the other processes poll the verdict's key meanwhile (every
//!   2 ms at first, doubling up to 50 ms).
//!
//! Only core commands (`GET`, `PTTL`, `SET`, `DEL`, `PING`): Redis 6 and
//! later or Valkey. No key names two slots in one command, so no hash
//! tags are needed on a cluster.
//!
//! Every call has a timeout (reads 10 ms, writes 50 ms by default). A call
//! that fails or times out is counted, marks Redis down and starts a task
//! reconnecting with backoff; while down, every call returns at once
//! without Redis (the verifier then works verdicts out itself), and
//! [`SharedStats::up`] says so.

mod exports;
mod feeds;
mod follow;
mod link;
mod tree;

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use botwarden_verify::{
    READ_BUCKETS, SharedFuture, SharedLock, SharedStats, SharedVerdicts, Verdict, WIRE_VERSION,
    decode_verdict, encode_verdict,
};

pub use exports::{Announced, Announcement, ExportFile, RedisExports, is_plain_name};
pub use feeds::{RedisFeeds, SharedFeed};
pub use follow::{
    Applied, ExportsFollower, FollowStep, ReloadCommand, ReloadStatus, Reloaded, Written,
    write_announcement,
};
pub use link::Timeouts;
pub use tree::{ExportTree, Refused, TreeLimits};

use crate::RedisTarget;
use link::Link;

/// The first pause of a process waiting for another's verdict, and the
/// longest; the pause doubles in between.
const FIRST_PAUSE: Duration = Duration::from_millis(2);
const LONGEST_PAUSE: Duration = Duration::from_millis(50);

/// The verdict cache on Redis. Build with [`RedisVerdicts::connect`]; hand
/// it to the verifier as `VerifierConfig::shared`.
#[derive(Debug)]
pub struct RedisVerdicts {
    link: Arc<Link>,
    counts: Counts,
}

#[derive(Debug, Default)]
struct Counts {
    hits: AtomicU64,
    misses: AtomicU64,
    joins: AtomicU64,
    bad: AtomicU64,
    reads: AtomicU64,
    read_micros: AtomicU64,
    buckets: [AtomicU64; 6],
}

impl RedisVerdicts {
    /// The cache on `target`, with `timeouts`. Redis need not answer yet:
    /// until it does, the cache is down and a task keeps trying. Needs a
    /// Tokio runtime.
    pub async fn connect(target: RedisTarget, timeouts: Timeouts) -> Arc<RedisVerdicts> {
        Arc::new(RedisVerdicts {
            link: Link::open(target, timeouts).await,
            counts: Counts::default(),
        })
    }

    /// Where the cache is.
    #[must_use]
    pub fn target(&self) -> &RedisTarget {
        self.link.target()
    }

    /// Stored verdicts that could not be read (written by another version,
    /// or damaged): counted, and treated as absent.
    #[must_use]
    pub fn unreadable(&self) -> u64 {
        self.counts.bad.load(Ordering::Relaxed)
    }

    fn verdict_key(ip: IpAddr, bot: &str) -> String {
        format!("botwarden:v{WIRE_VERSION}:verdict:{ip}:{bot}")
    }

    fn lookup_key(ip: IpAddr, bot: &str) -> String {
        format!("botwarden:v{WIRE_VERSION}:lookup:{ip}:{bot}")
    }

    fn timed(&self, took: Duration) {
        let c = &self.counts;
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        c.reads.fetch_add(1, Ordering::Relaxed);
        c.read_micros.fetch_add(micros, Ordering::Relaxed);
        let secs = took.as_secs_f64();
        for (bound, count) in READ_BUCKETS.iter().zip(&c.buckets) {
            if secs <= *bound {
                count.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    async fn read(&self, ip: IpAddr, bot: &str) -> Option<(Verdict, Duration)> {
        let key = Self::verdict_key(ip, bot);
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(&key).cmd("PTTL").arg(&key);
        let start = Instant::now();
        let timeout = self.link.timeouts().read;
        let (bytes, ttl): (Option<Vec<u8>>, i64) =
            self.link.pipe("GET verdict", timeout, &pipe).await?;
        self.timed(start.elapsed());
        let found = bytes.and_then(|b| match decode_verdict(&b) {
            Ok(v) => Some(v),
            Err(e) => {
                self.counts.bad.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("redis {}: {key}: {e}", self.link.target().describe());
                None
            }
        });
        // PTTL: -2 gone since, -1 no expiry (never set so here).
        let ttl = u64::try_from(ttl).ok().filter(|&t| t > 0)?;
        match found {
            Some(v) => {
                self.counts.hits.fetch_add(1, Ordering::Relaxed);
                Some((v, Duration::from_millis(ttl)))
            }
            None => None,
        }
    }
}

impl SharedVerdicts for RedisVerdicts {
    fn get<'a>(
        &'a self,
        ip: IpAddr,
        bot: &'a str,
    ) -> SharedFuture<'a, Option<(Verdict, Duration)>> {
        Box::pin(async move {
            let found = self.read(ip, bot).await;
            // Not asked (down) is counted as skipped, not as a miss.
            if found.is_none() && self.link.is_up() {
                self.counts.misses.fetch_add(1, Ordering::Relaxed);
            }
            found
        })
    }

    fn put<'a>(
        &'a self,
        ip: IpAddr,
        bot: &'a str,
        verdict: &'a Verdict,
        ttl: Duration,
    ) -> SharedFuture<'a, ()> {
        Box::pin(async move {
            let timeout = self.link.timeouts().write;
            let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
            if millis > 0 {
                let set = redis::cmd("SET")
                    .arg(Self::verdict_key(ip, bot))
                    .arg(encode_verdict(verdict))
                    .arg("PX")
                    .arg(millis)
                    .clone();
                if self
                    .link
                    .cmd::<()>("SET verdict", timeout, &set)
                    .await
                    .is_none()
                {
                    return;
                }
            }
            let del = redis::cmd("DEL").arg(Self::lookup_key(ip, bot)).clone();
            let _ = self.link.cmd::<i64>("DEL lookup", timeout, &del).await;
        })
    }

    fn try_lock<'a>(
        &'a self,
        ip: IpAddr,
        bot: &'a str,
        ttl: Duration,
    ) -> SharedFuture<'a, SharedLock> {
        Box::pin(async move {
            let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            let set = redis::cmd("SET")
                .arg(Self::lookup_key(ip, bot))
                .arg(std::process::id())
                .arg("NX")
                .arg("PX")
                .arg(millis)
                .clone();
            let timeout = self.link.timeouts().write;
            match self
                .link
                .cmd::<Option<String>>("SET NX lookup", timeout, &set)
                .await
            {
                Some(Some(_)) => SharedLock::Acquired,
                Some(None) => SharedLock::Held,
                None => SharedLock::Unavailable,
            }
        })
    }

    fn wait<'a>(
        &'a self,
        ip: IpAddr,
        bot: &'a str,
        longest: Duration,
    ) -> SharedFuture<'a, Option<(Verdict, Duration)>> {
        Box::pin(async move {
            let deadline = Instant::now() + longest;
            let mut pause = FIRST_PAUSE;
            while Instant::now() < deadline && self.link.is_up() {
                tokio::time::sleep(pause).await;
                if let Some(hit) = self.read(ip, bot).await {
                    self.counts.joins.fetch_add(1, Ordering::Relaxed);
                    return Some(hit);
                }
                pause = (pause * 2).min(LONGEST_PAUSE);
            }
            None
        })
    }

    fn stats(&self) -> SharedStats {
        let c = &self.counts;
        let h = &self.link.health;
        let mut s = SharedStats::default();
        s.hits = c.hits.load(Ordering::Relaxed);
        s.misses = c.misses.load(Ordering::Relaxed);
        s.joins = c.joins.load(Ordering::Relaxed);
        s.errors = h.errors.load(Ordering::Relaxed);
        s.skipped = h.skipped.load(Ordering::Relaxed);
        s.up = self.link.is_up();
        s.reads = c.reads.load(Ordering::Relaxed);
        s.read_micros = c.read_micros.load(Ordering::Relaxed);
        for (to, from) in s.read_buckets.iter_mut().zip(&c.buckets) {
            *to = from.load(Ordering::Relaxed);
        }
        s
    }
}
