//! The crawl shared by many workers on Redis: frontier, seen-set and
//! per-host politeness ([`RedisCoordinator`], a
//! [`Coordinator`]).
//!
//! Everything about one host lives under keys tagged `{host}` (one
//! cluster slot), and every step that reads and changes it is one Lua
//! script, so a host's delay, parallelism and throttle window are exact
//! however many workers share it. Keys of crawl `NAME`, host `H`:
//!
//! | key | what |
//! |---|---|
//! | `botwarden:crawl:NAME:{H}:queue` | list: `attempts \t depth \t url`, fetched first in, first out |
//! | `botwarden:crawl:NAME:{H}:seen` | set: the first 8 bytes of each URL's SHA-256 |
//! | `botwarden:crawl:NAME:{H}:leases` | sorted set: `worker \t item`, scored by when the lease runs out (ms) |
//! | `botwarden:crawl:NAME:{H}:state` | hash: `gen` (the crawl's generation), `steps` (never goes back), `next`, `paused` (ms), `inflight`, `delay`, `parallel`, `floor`, the throttle's `requests`, `indicators`, `changed`, counters `queued`, `done`, `errors`, `skipped`, `retries`, `requeued` |
//! | `botwarden:crawl:NAME:{H}:window` | list of 0/1: the throttle's window |
//! | `botwarden:crawl:NAME:{H}:queries` | hash: distinct queries per path (the trap limit) |
//! | `botwarden:crawl:NAME:{H}:robots:ORIGIN` | string: what was read of the origin's robots.txt |
//! | `botwarden:crawl:NAME:{H}:turn:ORIGIN` | string: the worker reading it (expires) |
//! | `botwarden:crawl:NAME:meta` | hash: `seed`, `gen` (random, the first worker's), `total` (URLs queued: the `max-urls` limit) |
//! | `botwarden:crawl:NAME:hosts` | set of hosts (a host is listed once its state exists) |
//! | `botwarden:crawl:NAME:workers`, `…:worker:W` | workers and each one's progress |
//!
//! Time is the Redis server's (`TIME` in the scripts), so the workers'
//! clocks do not matter. The seen-set is exact up to 64-bit hashes: two
//! URLs of one host collide with probability about n²/2⁶⁵ (10⁻⁸ for a
//! million URLs on a host). `max-urls` is checked before an offer and
//! counted after it, so the workers together may queue a few more than
//! it (at most one page's links per worker).
//!
//! Every step checks that the state it reads is the crawl's: `meta`'s
//! generation is the one the worker joined, the list of hosts lost none
//! it saw, and a host's state exists, carries that generation and has
//! not gone back below the step count the worker saw last. A node back
//! without its data (or from an older copy) so stops the workers with an
//! error naming what was lost and where, instead of a crawl that looks
//! finished; [`RedisCoordinator::reseed`] puts the frontier back from the
//! workers' stores. While Redis does not answer, calls are tried again
//! and the outage told ([`Patience`], [`Outage`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use botwarden_crawl::{
    Claim, Coordinator, CoordinatorConfig, CoordinatorFuture, Error as CrawlError, Finish, Lease,
    Offer, Offered, RobotsLookup, RobotsRead, StopSignal, StoredFrontier, WorkerStats,
};
use botwarden_store::Skip;
use redis::aio::ConnectionManager;
use redis::cluster_async::ClusterConnection;
use redis::{FromRedisValue, Script};
use url::Url;

use crate::Error;
use crate::connect::{RedisClient, RedisTarget};

mod report;

/// A connection to one server or to a cluster.
#[derive(Clone)]
enum Conn {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl Conn {
    /// Connects and sends a `PING`, so that credentials the server refuses
    /// fail here, not at the first step of the crawl.
    async fn open(target: &RedisTarget) -> Result<Conn, Error> {
        let conn = match target.client()? {
            // One attempt per connection: a refused password is final,
            // and an outage is waited out above (`Patience`), told as it
            // goes, rather than in the client's silent retries.
            RedisClient::Single(client) => ConnectionManager::new_with_config(
                client,
                redis::aio::ConnectionManagerConfig::new().set_number_of_retries(0),
            )
            .await
            .map(Conn::Single)
            .map_err(|e| target.error("connect", e))?,
            RedisClient::Cluster(builder) => {
                let client = builder
                    .build()
                    .map_err(|e| target.error("open the cluster client", e))?;
                client
                    .get_async_connection()
                    .await
                    .map(Conn::Cluster)
                    .map_err(|e| target.error("connect", e))?
            }
        };
        conn.query::<String>(&redis::cmd("PING"))
            .await
            .map_err(|e| target.error("PING", e))?;
        Ok(conn)
    }

    async fn query<T: FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, redis::RedisError> {
        match self.clone() {
            Conn::Single(mut c) => cmd.query_async(&mut c).await,
            Conn::Cluster(mut c) => cmd.query_async(&mut c).await,
        }
    }

    async fn script<T: FromRedisValue>(
        &self,
        script: &Script,
        keys: &[String],
        args: &[Vec<u8>],
    ) -> Result<T, redis::RedisError> {
        let mut inv = script.prepare_invoke();
        for k in keys {
            inv.key(k);
        }
        for a in args {
            inv.arg(a.as_slice());
        }
        match self.clone() {
            Conn::Single(mut c) => inv.invoke_async(&mut c).await,
            Conn::Cluster(mut c) => inv.invoke_async(&mut c).await,
        }
    }
}

/// The state every script starts from: a host's politeness as the crawl
/// configures it.
const INIT: &str = r"
local function init(state, delay, parallel)
  redis.call('HSETNX', state, 'delay', delay)
  redis.call('HSETNX', state, 'parallel', parallel)
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Every step on a host first checks that its state is the crawl's and
-- has not gone back: the first three arguments are the crawl's
-- generation, the host's step count this worker saw last, and whether the
-- host must exist already ('1'). Returns the host's new step count.
local function guarded(state)
  local gen = table.remove(ARGV, 1)
  local least = tonumber(table.remove(ARGV, 1))
  local known = table.remove(ARGV, 1)
  local st = redis.call('HMGET', state, 'gen', 'steps')
  if not st[1] then
    if known ~= '0' then error({err = 'BWLOST gone'}) end
    redis.call('HSET', state, 'gen', gen)
  elseif st[1] ~= gen then
    error({err = 'BWLOST generation'})
  end
  if (tonumber(st[2]) or 0) < least then error({err = 'BWLOST back'}) end
  return redis.call('HINCRBY', state, 'steps', 1)
end
";

/// Leases that ran out go back to the front of the queue; then URLs are
/// leased while the host's parallelism and delay allow.
const CLAIM: &str = r"
local steps = guarded(KEYS[3])
local now = now_ms()
init(KEYS[3], ARGV[4], ARGV[5])
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do
  redis.call('ZREM', KEYS[2], m)
  redis.call('LPUSH', KEYS[1], string.match(m, '^[^\t]*\t(.*)$'))
  redis.call('HINCRBY', KEYS[3], 'inflight', -1)
  redis.call('HINCRBY', KEYS[3], 'requeued', 1)
end
local st = redis.call('HMGET', KEYS[3], 'inflight', 'parallel', 'next', 'paused', 'delay')
local inflight = tonumber(st[1]) or 0
local parallel = tonumber(st[2])
local nxt = tonumber(st[3]) or 0
local paused = tonumber(st[4]) or 0
local delay = tonumber(st[5])
local out = {}
local wait = -1
local max = tonumber(ARGV[2])
while #out < max do
  if inflight >= parallel then break end
  local gate = math.max(nxt, paused)
  if gate > now then wait = gate - now; break end
  local item = redis.call('LPOP', KEYS[1])
  if not item then break end
  local member = ARGV[1] .. '\t' .. item
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), member)
  inflight = inflight + 1
  nxt = now + delay
  out[#out + 1] = member
end
redis.call('HSET', KEYS[3], 'inflight', inflight, 'next', nxt)
return {steps, {wait, out}}
";

/// Each offer: (hash, item, path if it has a query). New URLs are queued
/// unless a limit refuses them.
const OFFER: &str = r"
local steps = guarded(KEYS[4])
local res = {}
for i = 3, #ARGV, 3 do
  local h, item, qpath = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if redis.call('SADD', KEYS[1], h) == 0 then
    res[#res + 1] = 'known'
  else
    local verdict = 'queued'
    if qpath ~= '' then
      local c = tonumber(redis.call('HGET', KEYS[3], qpath) or '0')
      if c >= tonumber(ARGV[2]) then
        verdict = 'trap'
      else
        redis.call('HINCRBY', KEYS[3], qpath, 1)
      end
    end
    if verdict == 'queued' and ARGV[1] == '1' then verdict = 'full' end
    if verdict == 'queued' then
      redis.call('RPUSH', KEYS[2], item)
      redis.call('HINCRBY', KEYS[4], 'queued', 1)
    end
    res[#res + 1] = verdict
  end
end
return {steps, res}
";

/// Ends a lease and applies the throttling rule of
/// `botwarden_crawl::Throttle` to the host (the same rule, step for step).
const FINISH: &str = r"
local steps = guarded(KEYS[2])
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return {steps, {0}} end
local now = now_ms()
init(KEYS[2], ARGV[13], ARGV[15])
redis.call('HINCRBY', KEYS[2], 'inflight', -1)
local item = string.match(ARGV[1], '^[^\t]*\t(.*)$')
local kind = ARGV[2]
local pause = tonumber(ARGV[4])
if pause > 0 then
  local p = tonumber(redis.call('HGET', KEYS[2], 'paused') or '0')
  if now + pause > p then redis.call('HSET', KEYS[2], 'paused', now + pause) end
end
if kind == 'retry' then
  local a, rest = string.match(item, '^(%d+)\t(.*)$')
  redis.call('LPUSH', KEYS[4], (tonumber(a) + 1) .. '\t' .. rest)
  redis.call('HINCRBY', KEYS[2], 'retries', 1)
elseif kind == 'release' then
  redis.call('LPUSH', KEYS[4], item)
elseif kind == 'fetched' then
  redis.call('HINCRBY', KEYS[2], 'done', 1)
else
  redis.call('HINCRBY', KEYS[2], 'skipped', 1)
end
local ind = tonumber(ARGV[3])
if ind < 0 then return {steps, {1}} end
if ind == 1 then redis.call('HINCRBY', KEYS[2], 'errors', 1) end
local window, every = tonumber(ARGV[5]), tonumber(ARGV[6])
local high, low = tonumber(ARGV[7]), tonumber(ARGV[8])
local slower, faster = tonumber(ARGV[9]), tonumber(ARGV[10])
local fewer, more = tonumber(ARGV[11]), tonumber(ARGV[12])
local st = redis.call('HMGET', KEYS[2], 'requests', 'indicators', 'delay', 'parallel', 'changed', 'floor')
local requests = tonumber(st[1]) or 0
local indicators = tonumber(st[2]) or 0
local delay = tonumber(st[3])
local parallel = tonumber(st[4])
local changed = tonumber(st[5])
local floor = math.max(tonumber(ARGV[13]), tonumber(st[6]) or 0)
local max_delay = math.max(tonumber(ARGV[14]), floor)
local max_parallel = tonumber(ARGV[15])
if redis.call('LLEN', KEYS[3]) >= window then
  if redis.call('LPOP', KEYS[3]) == '1' then indicators = indicators - 1 end
end
redis.call('RPUSH', KEYS[3], ind)
indicators = indicators + ind
requests = requests + 1
local adj = {1}
if requests % every == 0 then
  local dir = nil
  if indicators >= high then dir = 'slower' elseif indicators <= low then dir = 'faster' end
  if dir then
    local periodic = (changed == nil) or (requests - changed >= window)
    local nd, np = delay, parallel
    if dir == 'slower' then
      nd = math.min(delay + slower, max_delay)
      if periodic then np = math.max(parallel - fewer, 1) end
    else
      nd = math.max(delay - faster, floor)
      if periodic then np = math.min(parallel + more, max_parallel) end
    end
    if np ~= parallel then
      changed = requests
      redis.call('HSET', KEYS[2], 'changed', changed)
    end
    if nd ~= delay or np ~= parallel then
      adj = {2, requests, indicators, redis.call('LLEN', KEYS[3]), dir, delay, nd, parallel, np}
      delay, parallel = nd, np
    end
  end
end
redis.call('HSET', KEYS[2], 'requests', requests, 'indicators', indicators, 'delay', delay, 'parallel', parallel)
return {steps, adj}
";

/// An origin's robots.txt: known, due again, or being read by another.
const ROBOTS: &str = r"
local steps = guarded(KEYS[3])
local now = now_ms()
local v = redis.call('GET', KEYS[1])
local attempts = '0'
if v then
  if string.sub(v, 1, 1) ~= 'w' then return {steps, {'known', v}} end
  local until_ms, a = string.match(v, '^w\t(%d+)\t(%d+)')
  if tonumber(until_ms) > now then return {steps, {'wait', tostring(tonumber(until_ms) - now), a}} end
  attempts = a
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {steps, {'fetch', attempts}} end
return {steps, {'busy'}}
";

/// Keeps what was read; a `Crawl-delay` raises the host's floor.
const PUT_ROBOTS: &str = r"
local steps = guarded(KEYS[3])
local now = now_ms()
init(KEYS[3], ARGV[6], ARGV[7])
if ARGV[1] == 'w' then
  local after = tonumber(ARGV[4])
  redis.call('SET', KEYS[1], 'w\t' .. (now + after) .. '\t' .. ARGV[5], 'PX', after + tonumber(ARGV[3]))
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
redis.call('DEL', KEYS[2])
local f = tonumber(ARGV[8])
if f >= 0 then
  local floor = math.max(tonumber(redis.call('HGET', KEYS[3], 'floor') or '0'), f)
  local delay = math.max(tonumber(redis.call('HGET', KEYS[3], 'delay')), floor)
  redis.call('HSET', KEYS[3], 'floor', floor, 'delay', delay)
end
return {steps, 1}
";

/// Extends leases still held: the lease's time from now.
const RENEW: &str = r"
local steps = guarded(KEYS[2])
local until_ms = now_ms() + tonumber(ARGV[1])
local n = 0
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], 'XX', until_ms, ARGV[i])
    n = n + 1
  end
end
return {steps, n}
";

/// URLs queued and leased on a host.
const PENDING: &str = r"
local steps = guarded(KEYS[3])
return {steps, redis.call('LLEN', KEYS[1]) + redis.call('ZCARD', KEYS[2])}
";

/// Joins the crawl: its seed and generation, written by the first worker.
const META: &str = r"
redis.call('HSETNX', KEYS[1], 'seed', ARGV[1])
if redis.call('HSETNX', KEYS[1], 'gen', ARGV[2]) == 1 then
  redis.call('HSET', KEYS[1], 'total', 0)
end
return redis.call('HMGET', KEYS[1], 'seed', 'gen')
";

/// A worker's progress, stamped with the server's clock.
const REPORT: &str = r"
redis.call('HSET', KEYS[1], 'fetched', ARGV[1], 'errors', ARGV[2], 'skipped', ARGV[3],
  'in_flight', ARGV[4], 'ended', ARGV[5], 'every_ms', ARGV[6], 'reported_ms', now_ms())
return 1
";

/// A crawl shared by workers on Redis (module docs).
/// A crawl shared by workers on Redis (module docs).
pub struct RedisCoordinator {
    conn: Conn,
    url: String,
    name: String,
    prefix: String,
    config: CoordinatorConfig,
    claim: Script,
    offer: Script,
    finish: Script,
    robots: Script,
    put_robots: Script,
    renew: Script,
    pending: Script,
    meta: Script,
    report: Script,
    joined: Mutex<Joined>,
    patience: Patience,
    on_outage: Option<Arc<OutageHook>>,
    slots: Vec<(u16, u16, String)>,
    /// Ends a wait for Redis at once when raised (Ctrl-C, SIGTERM).
    stop: Option<StopSignal>,
}

/// What is told of an outage while a worker waits it out.
type OutageHook = dyn Fn(&Outage) + Send + Sync;

/// What this worker knows of the crawl it joined: its generation, the
/// hosts it saw listed, and the step count of each host it saw last
/// (state on Redis never goes back below these).
#[derive(Debug, Default)]
struct Joined {
    generation: Option<String>,
    hosts: BTreeSet<String>,
    steps: HashMap<String, u64>,
}

impl std::fmt::Debug for RedisCoordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCoordinator")
            .field("url", &self.url)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// How long a call to Redis may take and how long a worker waits out
/// Redis not answering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// One call's answer, at most (a call not answered in time counts as
    /// Redis not answering).
    pub call: Duration,
    /// How long calls are tried again while Redis does not answer before
    /// the worker gives up with an error.
    pub give_up: Duration,
    /// How often an outage is told while it lasts.
    pub tell_every: Duration,
}

impl Default for Patience {
    fn default() -> Self {
        Patience {
            call: Duration::from_secs(5),
            give_up: Duration::from_secs(300),
            tell_every: Duration::from_secs(5),
        }
    }
}

/// Redis not answering while a worker waits (told every
/// [`Patience::tell_every`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outage {
    /// The crawl's name.
    pub crawl: String,
    /// The node that does not answer (`host:port`), or what is known of
    /// it.
    pub node: String,
    /// What was being done.
    pub operation: String,
    /// How long the worker has waited.
    pub waited: Duration,
    /// The last error.
    pub error: String,
}

/// One host's state, for `crawl status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct HostStatus {
    /// `host[:port]`.
    pub host: String,
    /// URLs waiting.
    pub queued: u64,
    /// URLs leased to workers now.
    pub leased: u64,
    /// URLs ever queued.
    pub seen_queued: u64,
    /// Requests answered.
    pub done: u64,
    /// Of those, the throttle's indicators.
    pub errors: u64,
    /// Leases skipped (robots.txt, refused).
    pub skipped: u64,
    /// `429`/`503` asked again.
    pub retries: u64,
    /// Leases that ran out (a worker died) and returned.
    pub requeued: u64,
    /// Requests in flight now, every worker's together.
    pub in_flight: u64,
    /// The delay now (ms).
    pub delay_ms: u64,
    /// The host's `Crawl-delay` (ms), below which its delay never goes;
    /// 0 when its robots.txt gives none.
    pub floor_ms: u64,
    /// The parallelism now.
    pub parallel: u64,
    /// Requests in the throttle's window (its last requests, up to its
    /// size).
    pub window: u64,
    /// Of those, the indicators of trouble (errors, `429`, `503`, slow
    /// answers) that make it slow down.
    pub window_errors: u64,
    /// How long the host stays paused (a `Retry-After`), ms from now.
    pub paused_ms: u64,
}

/// One worker's progress, for `crawl status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct WorkerStatus {
    /// Its name.
    pub name: String,
    /// Requests answered.
    pub fetched: u64,
    /// Of those, the throttle's indicators.
    pub errors: u64,
    /// Leases skipped.
    pub skipped: u64,
    /// Requests in flight at its last report.
    pub in_flight: u64,
    /// URLs it holds leases on now.
    pub leased: u64,
    /// Whether it ended.
    pub ended: bool,
    /// Whether it is dead: not ended, and silent for [`DEAD_AFTER`] of
    /// its report intervals.
    pub dead: bool,
    /// Its last report (Unix ms, by the Redis server's clock).
    pub reported_ms: u64,
    /// How long ago that was (ms, by the same clock).
    pub silent_ms: u64,
}

/// A worker not ended that has not reported for this many of its report
/// intervals (ten seconds at the default of a second) is dead.
pub const DEAD_AFTER: u64 = 10;

/// A shared crawl's state.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CrawlStatus {
    /// The crawl's name.
    pub crawl: String,
    /// Its start URL (`None`: no such crawl, or its record is lost).
    pub seed: Option<String>,
    /// Per host.
    pub hosts: Vec<HostStatus>,
    /// Per worker.
    pub workers: Vec<WorkerStatus>,
    /// Shared state that is gone or belongs to another start of the
    /// crawl: a node restarted without its data (each entry says what,
    /// and on which node). Workers stop on it; `crawl reseed` puts the
    /// frontier back from their stores.
    pub lost: Vec<String>,
    /// Parts that could not be read (a node down or too slow), and why.
    pub unread: Vec<String>,
}

/// What [`RedisCoordinator::reseed`] put back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reseeded {
    /// Hosts.
    pub hosts: usize,
    /// URLs in the seen-set.
    pub known: usize,
    /// URLs queued.
    pub queued: usize,
}

/// Whether a crawl name is usable in keys.
fn check_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 200
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// Why a step found the shared state lost (the `BWLOST` error of the
/// scripts): `gone`, `generation` or `back`.
fn lost_reason(e: &redis::RedisError) -> Option<String> {
    if e.code() == Some("BWLOST") {
        return Some(
            e.detail()
                .and_then(|d| d.split_whitespace().next())
                .unwrap_or("gone")
                .to_owned(),
        );
    }
    None
}

/// Whether an error means Redis is not answering (down, restarting,
/// loading, a cluster without that slot for now), rather than refusing
/// the command.
fn is_outage(e: &redis::RedisError) -> bool {
    use redis::{ErrorKind, ServerErrorKind};
    e.is_io_error()
        || e.is_timeout()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || matches!(
            e.kind(),
            ErrorKind::Io
                | ErrorKind::ClusterConnectionNotFound
                | ErrorKind::Server(
                    ServerErrorKind::BusyLoading
                        | ServerErrorKind::TryAgain
                        | ServerErrorKind::ClusterDown
                        | ServerErrorKind::MasterDown
                )
        )
}

/// A new generation: 16 random hex digits.
fn new_generation() -> String {
    use ring::rand::SecureRandom as _;
    let mut bytes = [0u8; 8];
    if ring::rand::SystemRandom::new().fill(&mut bytes).is_err() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        bytes = (now.as_nanos() as u64 ^ u64::from(std::process::id())).to_be_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The cluster slot of a key (CRC16-XMODEM of the key or its `{tag}`,
/// modulo 16384), to name the node that holds it.
fn slot_of(key: &str) -> u16 {
    let bytes = key.as_bytes();
    let tagged = bytes
        .iter()
        .position(|&c| c == b'{')
        .and_then(|open| {
            let rest = &bytes[open + 1..];
            rest.iter()
                .position(|&c| c == b'}')
                .filter(|&n| n > 0)
                .map(|n| &rest[..n])
        })
        .unwrap_or(bytes);
    let mut crc: u16 = 0;
    for &b in tagged {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 == 0 {
                crc << 1
            } else {
                (crc << 1) ^ 0x1021
            };
        }
    }
    crc % 16384
}

/// `host:port` of a Redis URL (no user, no password), for messages.
fn node_of_url(url: &str) -> String {
    Url::parse(url.trim())
        .ok()
        .and_then(|u| {
            let host = u.host_str()?.to_owned();
            Some(format!("{host}:{}", u.port().unwrap_or(6379)))
        })
        .unwrap_or_else(|| "the Redis server".into())
}

/// The slot ranges of a cluster and the `host:port` of each range's
/// primary, from `CLUSTER SLOTS`.
fn slot_ranges(reply: &redis::Value) -> Vec<(u16, u16, String)> {
    let redis::Value::Array(ranges) = reply else {
        return Vec::new();
    };
    ranges
        .iter()
        .filter_map(|r| {
            let redis::Value::Array(r) = r else {
                return None;
            };
            let int = |v: &redis::Value| match v {
                redis::Value::Int(n) => u16::try_from(*n).ok(),
                _ => None,
            };
            let (first, last) = (int(r.first()?)?, int(r.get(1)?)?);
            let redis::Value::Array(node) = r.get(2)? else {
                return None;
            };
            let host = match node.first()? {
                redis::Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
                redis::Value::SimpleString(s) => s.clone(),
                _ => return None,
            };
            let port = match node.get(1)? {
                redis::Value::Int(n) => *n,
                _ => return None,
            };
            Some((first, last, format!("{host}:{port}")))
        })
        .collect()
}

impl RedisCoordinator {
    /// Connects to Redis at `url` (several, comma-separated: a cluster)
    /// for the crawl `name` (letters, digits, `-_.:`).
    ///
    /// # Errors
    /// [`Error::RedisUrl`] when the URL is not one, [`Error::Redis`] when
    /// the server does not answer; [`Error::Invalid`] for a name that is
    /// not usable.
    pub async fn connect(
        url: &str,
        name: &str,
        config: CoordinatorConfig,
    ) -> Result<RedisCoordinator, Error> {
        RedisCoordinator::open(&RedisTarget::parse(url)?, name, config).await
    }

    /// [`connect`](Self::connect), given up after `within`.
    ///
    /// # Errors
    /// As `connect`; [`Error::RedisNode`] when nothing answered in time.
    pub async fn connect_within(
        url: &str,
        name: &str,
        config: CoordinatorConfig,
        within: Duration,
    ) -> Result<RedisCoordinator, Error> {
        RedisCoordinator::open_within(&RedisTarget::parse(url)?, name, config, within).await
    }

    /// Connects to `target` (credentials and TLS as it says) for the crawl
    /// `name` (letters, digits, `-_.:`). Messages and the coordinator's
    /// name show the target without its password.
    ///
    /// # Errors
    /// [`Error::Redis`] when the server does not answer or refuses the
    /// credentials; [`Error::Invalid`] for a name that is not usable.
    pub async fn open(
        target: &RedisTarget,
        name: &str,
        config: CoordinatorConfig,
    ) -> Result<RedisCoordinator, Error> {
        RedisCoordinator::open_within(target, name, config, Duration::from_secs(10)).await
    }

    /// [`open`](Self::open), given up after `within`.
    ///
    /// # Errors
    /// As `open`; [`Error::RedisNode`] when nothing answered in time.
    pub async fn open_within(
        target: &RedisTarget,
        name: &str,
        config: CoordinatorConfig,
        within: Duration,
    ) -> Result<RedisCoordinator, Error> {
        if !check_name(name) {
            return Err(Error::Invalid {
                what: "crawl name".into(),
                message: format!("'{name}': letters, digits and -_.: only, at most 200"),
            });
        }
        let nodes = || {
            let shown = target.to_string();
            shown
                .trim_start_matches("cluster ")
                .split(',')
                .map(node_of_url)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let conn = match tokio::time::timeout(within, Conn::open(target)).await {
            Ok(conn) => conn?,
            Err(_) => {
                return Err(Error::RedisNode {
                    node: nodes(),
                    operation: format!("connect for crawl {name}"),
                    message: format!("no answer in {} ms", within.as_millis()),
                });
            }
        };
        let slots = match &conn {
            Conn::Single(_) => Vec::new(),
            Conn::Cluster(_) => {
                match tokio::time::timeout(
                    within,
                    conn.query::<redis::Value>(&redis::cmd("CLUSTER").arg("SLOTS").clone()),
                )
                .await
                {
                    Ok(Ok(reply)) => slot_ranges(&reply),
                    _ => Vec::new(),
                }
            }
        };
        let script = |body: &str| Script::new(&format!("{INIT}{body}"));
        Ok(RedisCoordinator {
            conn,
            url: target.to_string(),
            name: name.to_owned(),
            prefix: format!("botwarden:crawl:{name}"),
            config,
            claim: script(CLAIM),
            offer: script(OFFER),
            finish: script(FINISH),
            robots: script(ROBOTS),
            put_robots: script(PUT_ROBOTS),
            renew: script(RENEW),
            pending: script(PENDING),
            meta: script(META),
            report: script(REPORT),
            joined: Mutex::new(Joined::default()),
            patience: Patience::default(),
            on_outage: None,
            slots,
            stop: None,
        })
    }

    /// Calls bounded and outages waited out so (`give_up`), each told to
    /// `on_outage` (every `tell_every`) while it lasts.
    #[must_use]
    pub fn with_patience(
        mut self,
        patience: Patience,
        on_outage: impl Fn(&Outage) + Send + Sync + 'static,
    ) -> RedisCoordinator {
        self.patience = patience;
        self.on_outage = Some(Arc::new(on_outage));
        self
    }

    /// Gives up a wait for Redis at once when `stop` is raised: a worker
    /// asked to stop during an outage ends with an error saying so.
    #[must_use]
    pub fn with_stop(mut self, stop: StopSignal) -> RedisCoordinator {
        self.stop = Some(stop);
        self
    }

    fn key(&self, host: &str, what: &str) -> String {
        format!("{}:{{{host}}}:{what}", self.prefix)
    }

    fn global(&self, what: &str) -> String {
        format!("{}:{what}", self.prefix)
    }

    fn fail(&self, operation: &str, e: &redis::RedisError) -> CrawlError {
        CrawlError::Coordinator {
            coordinator: format!("redis {}", self.url),
            message: format!("{operation}: {e}"),
        }
    }

    /// The node that holds `key`: `host:port`.
    fn node(&self, key: &str) -> String {
        match self.conn {
            Conn::Single(_) => node_of_url(&self.url),
            Conn::Cluster(_) => {
                let slot = slot_of(key);
                self.slots
                    .iter()
                    .find(|(first, last, _)| (*first..=*last).contains(&slot))
                    .map_or_else(
                        || format!("the cluster node of slot {slot}"),
                        |(_, _, node)| node.clone(),
                    )
            }
        }
    }

    fn joined(&self) -> std::sync::MutexGuard<'_, Joined> {
        self.joined
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The error that stops a worker when the shared state is lost.
    fn lost(&self, part: &str, key: &str, reason: &str) -> CrawlError {
        let what = match reason {
            "generation" => {
                "belongs to another start of the crawl (it was re-seeded, or cleared and \
                 started again)"
            }
            "back" => "went back to an older state (the node came back from an older copy)",
            _ => "is gone (the node restarted without its data)",
        };
        CrawlError::Coordinator {
            coordinator: format!("crawl {}", self.name),
            message: format!(
                "shared state lost: {part} on {} {what}; this worker stops. Stop every \
                 worker, run `botwarden crawl reseed` with all their stores, then start \
                 workers again with new stores",
                self.node(key)
            ),
        }
    }

    /// One call, bounded by [`Patience::call`]; while Redis does not
    /// answer, tried again (told every `tell_every`) until `give_up`.
    async fn call<T, F, Fut>(
        &self,
        operation: &str,
        part: &str,
        key: &str,
        f: F,
    ) -> Result<T, CrawlError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, redis::RedisError>>,
    {
        let started = Instant::now();
        let mut told = started;
        let mut pause = Duration::from_millis(100);
        loop {
            let error = match tokio::time::timeout(self.patience.call, f()).await {
                Ok(Ok(v)) => return Ok(v),
                Ok(Err(e)) => {
                    if let Some(reason) = lost_reason(&e) {
                        return Err(self.lost(part, key, &reason));
                    }
                    if !is_outage(&e) {
                        return Err(self.fail(operation, &e));
                    }
                    e.to_string()
                }
                Err(_) => format!("no answer in {} ms", self.patience.call.as_millis()),
            };
            let waited = started.elapsed();
            if waited >= self.patience.give_up {
                return Err(CrawlError::Coordinator {
                    coordinator: format!("crawl {}", self.name),
                    message: format!(
                        "{operation}: Redis ({}) unreachable for {} s ({error}); gave up after \
                         {} s (--redis-wait)",
                        self.node(key),
                        waited.as_secs(),
                        self.patience.give_up.as_secs()
                    ),
                });
            }
            if told.elapsed() >= self.patience.tell_every {
                told = Instant::now();
                if let Some(hook) = &self.on_outage {
                    hook(&Outage {
                        crawl: self.name.clone(),
                        node: self.node(key),
                        operation: operation.to_owned(),
                        waited,
                        error: error.clone(),
                    });
                }
            }
            let nap = tokio::time::sleep(pause.min(self.patience.give_up.saturating_sub(waited)));
            match &self.stop {
                Some(stop) => tokio::select! {
                    () = nap => {}
                    () = stop.raised() => {
                        return Err(CrawlError::Coordinator {
                            coordinator: format!("crawl {}", self.name),
                            message: format!(
                                "{operation}: stopped while Redis ({}) was unreachable ({error})",
                                self.node(key)
                            ),
                        });
                    }
                },
                None => nap.await,
            }
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    }

    async fn query<T: FromRedisValue>(
        &self,
        operation: &str,
        part: &str,
        key: &str,
        cmd: &redis::Cmd,
    ) -> Result<T, CrawlError> {
        self.call(operation, part, key, || self.conn.query(cmd))
            .await
    }

    /// A script on a host's keys, guarded: the host's state must be the
    /// crawl's generation and not behind what this worker saw (`known`:
    /// the host must exist already).
    async fn step<T: FromRedisValue>(
        &self,
        operation: &str,
        host: &str,
        script: &Script,
        keys: &[String],
        args: Vec<Vec<u8>>,
        known: bool,
    ) -> Result<T, CrawlError> {
        let generation = self.generation().await?;
        let least = self.joined().steps.get(host).copied().unwrap_or(0);
        let mut all = vec![
            generation.into_bytes(),
            least.to_string().into_bytes(),
            if known { b"1".to_vec() } else { b"0".to_vec() },
        ];
        all.extend(args);
        let part = format!("host {host}'s frontier (queue, seen-set, leases, counters)");
        let state = self.key(host, "state");
        let (steps, reply): (u64, T) = self
            .call(operation, &part, &state, || {
                self.conn.script(script, keys, &all)
            })
            .await?;
        let mut j = self.joined();
        let seen = j.steps.entry(host.to_owned()).or_insert(0);
        *seen = (*seen).max(steps);
        Ok(reply)
    }

    fn meta_part() -> &'static str {
        "the crawl's record (seed, generation, URL count)"
    }

    fn init_args(&self) -> (Vec<u8>, Vec<u8>) {
        let t = self.config.throttle;
        (
            ms(t.min_delay.min(t.max_delay.max(t.min_delay))).into_bytes(),
            t.max_parallel.max(1).to_string().into_bytes(),
        )
    }

    /// The generation of the crawl this worker joined; one that did not
    /// call `start` joins the crawl's current one.
    async fn generation(&self) -> Result<String, CrawlError> {
        if let Some(g) = self.joined().generation.clone() {
            return Ok(g);
        }
        let key = self.global("meta");
        let g: Option<String> = self
            .query(
                "read the crawl's record",
                Self::meta_part(),
                &key,
                redis::cmd("HGET").arg(&key).arg("gen"),
            )
            .await?;
        let g = g.ok_or_else(|| self.lost(Self::meta_part(), &key, "gone"))?;
        self.joined().generation = Some(g.clone());
        Ok(g)
    }

    /// The crawl's generation as Redis holds it, checked against the one
    /// joined.
    async fn check_meta(&self) -> Result<Option<u64>, CrawlError> {
        let mine = Some(self.generation().await?);
        let key = self.global("meta");
        let (generation, total): (Option<String>, Option<u64>) = self
            .query(
                "read the crawl's record",
                Self::meta_part(),
                &key,
                redis::cmd("HMGET").arg(&key).arg("gen").arg("total"),
            )
            .await?;
        match generation {
            None => Err(self.lost(Self::meta_part(), &key, "gone")),
            Some(g) if Some(&g) != mine.as_ref() => {
                Err(self.lost(Self::meta_part(), &key, "generation"))
            }
            Some(_) => Ok(total),
        }
    }

    async fn hosts(&self) -> Result<Vec<String>, CrawlError> {
        self.check_meta().await?;
        let key = self.global("hosts");
        let part = "the crawl's list of hosts";
        let mut hosts: Vec<String> = self
            .query(
                "read the hosts",
                part,
                &key,
                redis::cmd("SMEMBERS").arg(&key),
            )
            .await?;
        hosts.sort();
        let mut j = self.joined();
        if hosts.is_empty() || j.hosts.iter().any(|h| hosts.binary_search(h).is_err()) {
            drop(j);
            return Err(self.lost(part, &key, "gone"));
        }
        j.hosts.extend(hosts.iter().cloned());
        Ok(hosts)
    }

    /// Whether the host was listed in the crawl already (its state must
    /// then exist).
    async fn is_listed(&self, host: &str) -> Result<bool, CrawlError> {
        if self.joined().hosts.contains(host) {
            return Ok(true);
        }
        let key = self.global("hosts");
        self.query(
            "read the hosts",
            "the crawl's list of hosts",
            &key,
            redis::cmd("SISMEMBER").arg(&key).arg(host),
        )
        .await
    }

    async fn offer_host(
        &self,
        host: &str,
        offers: &[(usize, &Offer)],
        full: bool,
    ) -> Result<Vec<(usize, Offered)>, CrawlError> {
        let keys = [
            self.key(host, "seen"),
            self.key(host, "queue"),
            self.key(host, "queries"),
            self.key(host, "state"),
        ];
        let mut args = vec![
            if full { b"1".to_vec() } else { b"0".to_vec() },
            self.config
                .frontier
                .max_queries_per_path
                .to_string()
                .into_bytes(),
        ];
        for (_, o) in offers {
            args.push(url_hash(&o.url).to_vec());
            args.push(format!("0\t{}\t{}", o.depth, o.url).into_bytes());
            let qpath = Url::parse(&o.url)
                .ok()
                .filter(|u| u.query().is_some())
                .map(|u| u.path().to_owned())
                .unwrap_or_default();
            args.push(qpath.into_bytes());
        }
        let known = self.is_listed(host).await?;
        let verdicts: Vec<String> = self
            .step("offer URLs", host, &self.offer, &keys, args, known)
            .await?;
        // Listed once its state exists: a host listed always has state.
        let hosts = self.global("hosts");
        self.query::<()>(
            "add a host",
            "the crawl's list of hosts",
            &hosts,
            redis::cmd("SADD").arg(&hosts).arg(host),
        )
        .await?;
        self.joined().hosts.insert(host.to_owned());
        let max = self.config.frontier.max_urls;
        let max_q = self.config.frontier.max_queries_per_path;
        Ok(offers
            .iter()
            .zip(verdicts)
            .map(|((i, o), v)| {
                let answer = match v.as_str() {
                    "queued" => Offered::Queued,
                    "known" => Offered::Known,
                    "trap" => Offered::Refused(Skip {
                        reason: "trap",
                        detail: format!(
                            "more than {max_q} distinct queries on {}",
                            Url::parse(&o.url)
                                .map(|u| u.path().to_owned())
                                .unwrap_or_default()
                        ),
                    }),
                    _ => Offered::Refused(Skip {
                        reason: "max-urls",
                        detail: format!("{max} URLs queued already (--max-urls)"),
                    }),
                };
                (*i, answer)
            })
            .collect())
    }

    /// A read for `status`, bounded by [`Patience::call`], not tried again:
    /// a part not read is named in [`CrawlStatus::unread`]. A node that
    /// failed a read already (in `down`) is not asked again.
    async fn read<T: FromRedisValue>(
        &self,
        cmd: redis::Cmd,
        key: &str,
        down: &Mutex<BTreeMap<String, String>>,
    ) -> Result<T, String> {
        let node = self.node(key);
        let known = |d: &Mutex<BTreeMap<String, String>>| {
            d.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(&node)
                .cloned()
        };
        if let Some(why) = known(down) {
            return Err(why);
        }
        let why = match tokio::time::timeout(self.patience.call, self.conn.query(&cmd)).await {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(e)) if !is_outage(&e) => return Err(format!("{node} ({e})")),
            Ok(Err(e)) => format!("{node} ({e})"),
            Err(_) => format!(
                "{node} (no answer in {} ms)",
                self.patience.call.as_millis()
            ),
        };
        down.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(node, why.clone());
        Err(why)
    }

    /// One host's state for `status`: its figures, its leases by worker,
    /// and its generation.
    async fn host_status(
        &self,
        host: &str,
        now_ms: u64,
        down: &Mutex<BTreeMap<String, String>>,
    ) -> Result<HostRead, String> {
        let queue = self.key(host, "queue");
        let leases = self.key(host, "leases");
        let state = self.key(host, "state");
        let window = self.key(host, "window");
        let queued: u64 = self.read(on_key("LLEN", &queue), &queue, down).await?;
        let mut range = on_key("ZRANGE", &leases);
        range.arg(0).arg(-1);
        let members: Vec<String> = self.read(range, &leases, down).await?;
        let fields: BTreeMap<String, String> =
            self.read(on_key("HGETALL", &state), &state, down).await?;
        let in_window: u64 = self.read(on_key("LLEN", &window), &window, down).await?;
        let n = |k: &str| fields.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
        let status = HostStatus {
            host: host.to_owned(),
            queued,
            leased: members.len() as u64,
            seen_queued: n("queued"),
            done: n("done"),
            errors: n("errors"),
            skipped: n("skipped"),
            retries: n("retries"),
            requeued: n("requeued"),
            in_flight: n("inflight"),
            delay_ms: n("delay"),
            floor_ms: n("floor"),
            parallel: n("parallel"),
            window: in_window,
            window_errors: n("indicators"),
            paused_ms: n("paused").saturating_sub(now_ms),
        };
        let holders = members
            .iter()
            .map(|m| m.split('\t').next().unwrap_or_default().to_owned())
            .collect();
        Ok((status, holders, fields.get("gen").cloned()))
    }

    /// The crawl's state: per host and per worker, what was lost, and
    /// what could not be read. Every read is bounded by
    /// [`Patience::call`] and the hosts are read at once, so a node down
    /// costs one such wait.
    ///
    /// # Errors
    /// None beyond the connection's: a part not read is named in
    /// [`CrawlStatus::unread`].
    pub async fn status(&self) -> Result<CrawlStatus, Error> {
        let mut status = CrawlStatus {
            crawl: self.name.clone(),
            ..CrawlStatus::default()
        };
        let meta_key = self.global("meta");
        let hosts_key = self.global("hosts");
        let workers_key = self.global("workers");
        let down = Mutex::new(BTreeMap::new());
        let (meta, hosts, time, workers) = tokio::join!(
            self.read::<BTreeMap<String, String>>(on_key("HGETALL", &meta_key), &meta_key, &down),
            self.read::<Vec<String>>(on_key("SMEMBERS", &hosts_key), &hosts_key, &down),
            self.read::<(u64, u64)>(redis::cmd("TIME"), &meta_key, &down),
            self.read::<Vec<String>>(on_key("SMEMBERS", &workers_key), &workers_key, &down),
        );
        let now_ms = server_ms(time.ok());
        let meta = meta.unwrap_or_else(|e| {
            status.unread.push(format!("{}: {e}", Self::meta_part()));
            BTreeMap::new()
        });
        let mut hosts = hosts.unwrap_or_else(|e| {
            status
                .unread
                .push(format!("the crawl's list of hosts: {e}"));
            Vec::new()
        });
        hosts.sort();
        let mut workers = workers.unwrap_or_else(|e| {
            status.unread.push(format!("the crawl's workers: {e}"));
            Vec::new()
        });
        workers.sort();
        status.seed = meta.get("seed").cloned();
        let generation = meta.get("gen").cloned();
        let anything = !hosts.is_empty() || !workers.is_empty();
        if generation.is_none() && anything && status.unread.is_empty() {
            status.lost.push(format!(
                "{} on {} is gone",
                Self::meta_part(),
                self.node(&meta_key)
            ));
        }
        if generation.is_some() && hosts.is_empty() && status.unread.is_empty() {
            status.lost.push(format!(
                "the crawl's list of hosts on {} is gone",
                self.node(&hosts_key)
            ));
        }
        // Hosts and workers at once: a node down costs one wait.
        let keys: Vec<String> = workers
            .iter()
            .map(|w| self.global(&format!("worker:{w}")))
            .collect();
        let (reads, worker_reads) = tokio::join!(
            futures_util::future::join_all(
                hosts.iter().map(|h| self.host_status(h, now_ms, &down))
            ),
            futures_util::future::join_all(keys.iter().map(|k| {
                self.read::<BTreeMap<String, String>>(on_key("HGETALL", k), k, &down)
            })),
        );
        let leased = self.host_statuses(&mut status, &hosts, reads, generation.as_ref());
        for (name, read) in workers.into_iter().zip(worker_reads) {
            match read {
                Ok(w) => status
                    .workers
                    .push(worker_status(name, &w, &leased, now_ms)),
                Err(e) => status.unread.push(format!("worker {name}: {e}")),
            }
        }
        Ok(status)
    }

    /// Adds each host's status read to `status` (a frontier gone, or of
    /// another start of the crawl than `generation`, is lost; a host not
    /// read is unread), and gives how many leases each worker holds.
    fn host_statuses(
        &self,
        status: &mut CrawlStatus,
        hosts: &[String],
        reads: Vec<Result<HostRead, String>>,
        generation: Option<&String>,
    ) -> BTreeMap<String, u64> {
        let mut leased: BTreeMap<String, u64> = BTreeMap::new();
        for (host, read) in hosts.iter().zip(reads) {
            match read {
                Ok((h, holders, host_gen)) => {
                    let node = self.node(&self.key(host, "state"));
                    match (&host_gen, generation) {
                        (None, _) => status.lost.push(format!(
                            "host {host}'s frontier (queue, seen-set, leases, counters) on \
                             {node} is gone"
                        )),
                        (Some(g), Some(mine)) if g != mine => status.lost.push(format!(
                            "host {host}'s frontier on {node} belongs to another start of \
                             the crawl"
                        )),
                        _ => {}
                    }
                    for w in holders {
                        *leased.entry(w).or_default() += 1;
                    }
                    status.hosts.push(h);
                }
                Err(e) => status.unread.push(format!("host {host}: {e}")),
            }
        }
        leased
    }

    /// Status reads bounded by `call` instead of the default (5 s).
    #[must_use]
    pub fn with_call_timeout(mut self, call: Duration) -> RedisCoordinator {
        self.patience.call = call;
        self
    }

    /// Forgets the crawl: every key of it (to crawl the site again from
    /// the start). Returns the keys removed.
    ///
    /// # Errors
    /// [`Error::Redis`] when Redis fails.
    pub async fn clear(&self) -> Result<u64, Error> {
        self.clear_with(&[]).await
    }

    /// [`clear`](Self::clear), the keys of `more` hosts too (hosts the
    /// list of hosts may have lost).
    async fn clear_with(&self, more: &[&str]) -> Result<u64, Error> {
        let err = |source| Error::Redis {
            url: self.url.clone(),
            operation: "remove the crawl's keys".into(),
            source,
        };
        let mut hosts: Vec<String> = self
            .conn
            .query(redis::cmd("SMEMBERS").arg(self.global("hosts")))
            .await
            .map_err(err)?;
        hosts.extend(more.iter().map(|h| (*h).to_owned()));
        hosts.sort();
        hosts.dedup();
        let mut removed = 0u64;
        let workers: Vec<String> = self
            .conn
            .query(redis::cmd("SMEMBERS").arg(self.global("workers")))
            .await
            .map_err(err)?;
        let mut keys: Vec<String> = ["meta", "hosts", "total", "workers"]
            .iter()
            .map(|k| self.global(k))
            .chain(workers.iter().map(|w| self.global(&format!("worker:{w}"))))
            .collect();
        for host in &hosts {
            // The robots.txt keys of a host: one slot, found with SCAN on
            // a single server; a cluster's are left to expire.
            let pattern = format!("{}*", self.key(host, ""));
            if let Conn::Single(_) = self.conn {
                let mut cursor = 0u64;
                loop {
                    let (next, found): (u64, Vec<String>) = self
                        .conn
                        .query(
                            redis::cmd("SCAN")
                                .arg(cursor)
                                .arg("MATCH")
                                .arg(&pattern)
                                .arg("COUNT")
                                .arg(1000),
                        )
                        .await
                        .map_err(err)?;
                    keys.extend(found);
                    cursor = next;
                    if cursor == 0 {
                        break;
                    }
                }
            } else {
                for k in ["queue", "seen", "leases", "state", "window", "queries"] {
                    keys.push(self.key(host, k));
                }
            }
        }
        keys.sort();
        keys.dedup();
        for k in keys {
            let n: u64 = self
                .conn
                .query(redis::cmd("DEL").arg(&k))
                .await
                .map_err(err)?;
            removed += n;
        }
        Ok(removed)
    }

    /// Seeds the crawl again from what its workers stored, after its
    /// shared state was lost: every key of the crawl is removed, then each
    /// host's seen-set holds every URL of the stores and its queue the
    /// URLs no worker fetched or judged (least depth first), under a new
    /// generation. Workers still running with the old one stop at their
    /// next step; start new ones (with new stores) once this returns.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the stores hold nothing or are of another
    /// crawl than the one Redis records; [`Error::Redis`] when Redis
    /// fails.
    pub async fn reseed(&self, frontier: &StoredFrontier) -> Result<Reseeded, Error> {
        if frontier.urls.is_empty() {
            return Err(Error::Invalid {
                what: format!("the stores of crawl {}", self.name),
                message: "they hold no URL".into(),
            });
        }
        let seed: Option<String> = self
            .conn
            .query(redis::cmd("HGET").arg(self.global("meta")).arg("seed"))
            .await
            .map_err(self.reseed_error("read the seed"))?;
        if let Some(seed) = seed
            && seed != frontier.seed
        {
            return Err(Error::Invalid {
                what: format!("the stores of crawl {}", self.name),
                message: format!(
                    "they are of a crawl of {}, Redis holds a crawl of {seed}",
                    frontier.seed
                ),
            });
        }
        let mut by_host: BTreeMap<&str, Vec<&botwarden_crawl::FrontierUrl>> = BTreeMap::new();
        for u in &frontier.urls {
            by_host.entry(u.host.as_str()).or_default().push(u);
        }
        let hosts: Vec<&str> = by_host.keys().copied().collect();
        self.clear_with(&hosts).await?;
        let generation = new_generation();
        let mut done = Reseeded::default();
        for (host, urls) in &by_host {
            let queued = self.reseed_host(host, urls, &generation).await?;
            done.hosts += 1;
            done.known += urls.len();
            done.queued += queued;
        }
        self.conn
            .query::<()>(
                redis::cmd("HSET")
                    .arg(self.global("meta"))
                    .arg("seed")
                    .arg(&frontier.seed)
                    .arg("gen")
                    .arg(&generation)
                    .arg("total")
                    .arg(frontier.urls.len()),
            )
            .await
            .map_err(self.reseed_error("write the crawl's record"))?;
        Ok(done)
    }

    /// The error of `operation` in [`reseed`](Self::reseed), named with
    /// the node of the crawl's record.
    fn reseed_error(&self, operation: &str) -> impl FnOnce(redis::RedisError) -> Error + use<> {
        let node = self.node(&self.global("meta"));
        let operation = format!("{operation} (crawl {})", self.name);
        move |e: redis::RedisError| Error::RedisNode {
            node,
            operation,
            message: e.to_string(),
        }
    }

    /// Fills the seen-set of `host` with its `urls` and its queue with
    /// those queued (least depth first), writes its state under
    /// `generation` and lists it; gives how many URLs it queued.
    async fn reseed_host(
        &self,
        host: &str,
        urls: &[&botwarden_crawl::FrontierUrl],
        generation: &str,
    ) -> Result<usize, Error> {
        let seen = self.key(host, "seen");
        for chunk in urls.chunks(1000) {
            let mut cmd = redis::cmd("SADD");
            cmd.arg(&seen);
            for u in chunk {
                cmd.arg(url_hash(&u.url).as_slice());
            }
            self.conn
                .query::<()>(&cmd)
                .await
                .map_err(self.reseed_error("fill a seen-set"))?;
        }
        let mut queued: Vec<&&botwarden_crawl::FrontierUrl> =
            urls.iter().filter(|u| u.queued).collect();
        queued.sort_by_key(|u| u.depth);
        let queue = self.key(host, "queue");
        for chunk in queued.chunks(1000) {
            let mut cmd = redis::cmd("RPUSH");
            cmd.arg(&queue);
            for u in chunk {
                cmd.arg(format!("0\t{}\t{}", u.depth, u.url));
            }
            self.conn
                .query::<()>(&cmd)
                .await
                .map_err(self.reseed_error("fill a queue"))?;
        }
        self.conn
            .query::<()>(
                redis::cmd("HSET")
                    .arg(self.key(host, "state"))
                    .arg("gen")
                    .arg(generation)
                    .arg("steps")
                    .arg(1)
                    .arg("queued")
                    .arg(urls.len()),
            )
            .await
            .map_err(self.reseed_error("write a host's state"))?;
        self.conn
            .query::<()>(redis::cmd("SADD").arg(self.global("hosts")).arg(host))
            .await
            .map_err(self.reseed_error("list a host"))?;
        Ok(queued.len())
    }
}

/// One host's status read: the status, the workers holding its leases
/// (one per lease), and the generation of its frontier.
type HostRead = (HostStatus, Vec<String>, Option<String>);

/// The server's clock in milliseconds from its `TIME`, or this machine's
/// when it could not be read.
fn server_ms(time: Option<(u64, u64)>) -> u64 {
    match time {
        Some((secs, micros)) => secs * 1000 + micros / 1000,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
    }
}

/// The status of the worker `name` from its record `w`, with the leases it
/// holds (`leased`), at `now_ms`.
fn worker_status(
    name: String,
    w: &BTreeMap<String, String>,
    leased: &BTreeMap<String, u64>,
    now_ms: u64,
) -> WorkerStatus {
    let n = |k: &str| w.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
    let ended = n("ended") == 1;
    let reported_ms = n("reported_ms");
    let every = w
        .get("every_ms")
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(1000)
        .max(1);
    let silent_ms = now_ms.saturating_sub(reported_ms);
    WorkerStatus {
        leased: leased.get(&name).copied().unwrap_or(0),
        fetched: n("fetched"),
        errors: n("errors"),
        skipped: n("skipped"),
        in_flight: n("in_flight"),
        ended,
        dead: !ended && silent_ms > DEAD_AFTER * every,
        reported_ms,
        silent_ms,
        name,
    }
}

/// A command on one key.
fn on_key(name: &str, key: &str) -> redis::Cmd {
    let mut cmd = redis::cmd(name);
    cmd.arg(key);
    cmd
}

/// The first 8 bytes of a URL's SHA-256: its entry in the seen-set.
fn url_hash(url: &str) -> [u8; 8] {
    let digest = ring::digest::digest(&ring::digest::SHA256, url.as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest.as_ref()[..8]);
    head
}

fn ms(d: Duration) -> String {
    d.as_millis().to_string()
}

/// Parses a lease member `worker \t attempts \t depth \t url`.
fn lease_of(member: String, host: &str) -> Option<Lease> {
    let mut parts = member.splitn(4, '\t');
    let _worker = parts.next()?;
    let attempts = parts.next()?.parse().ok()?;
    let depth = parts.next()?.parse().ok()?;
    let url = parts.next()?.to_owned();
    Some(Lease {
        url,
        depth,
        attempts,
        host: host.to_owned(),
        token: member,
    })
}

/// What is kept of a robots.txt read: `r \t blanket \t why \n body`,
/// `f \t why`; a wait is written by the script.
fn robots_entry(read: &RobotsRead) -> Vec<u8> {
    match read {
        RobotsRead::Ready { body, blanket, why } => {
            let b = match blanket {
                None => "n",
                Some(false) => "0",
                Some(true) => "1",
            };
            let mut v = format!("r\t{b}\t{}\n", why.replace('\n', " ")).into_bytes();
            v.extend_from_slice(body);
            v
        }
        RobotsRead::Failed { why } => format!("f\t{}", why.replace('\n', " ")).into_bytes(),
        // A worker keeps what its own settings held to itself: never put.
        RobotsRead::Waiting { .. } | RobotsRead::Held { .. } => b"w".to_vec(),
    }
}

fn robots_read(entry: &[u8]) -> Option<RobotsRead> {
    match entry.first()? {
        b'r' => {
            let nl = entry.iter().position(|&b| b == b'\n')?;
            let head = std::str::from_utf8(&entry[..nl]).ok()?;
            let mut parts = head.splitn(3, '\t');
            let _ = parts.next()?;
            let blanket = match parts.next()? {
                "0" => Some(false),
                "1" => Some(true),
                _ => None,
            };
            Some(RobotsRead::Ready {
                body: entry[nl + 1..].to_vec(),
                blanket,
                why: parts.next().unwrap_or_default().to_owned(),
            })
        }
        b'f' => Some(RobotsRead::Failed {
            why: String::from_utf8_lossy(entry.get(2..).unwrap_or_default()).into_owned(),
        }),
        _ => None,
    }
}

impl Coordinator for RedisCoordinator {
    fn name(&self) -> String {
        format!("redis {} ({})", self.url, self.prefix)
    }

    fn start<'a>(&'a self, seed: &'a Url) -> CoordinatorFuture<'a, String> {
        Box::pin(async move {
            let key = self.global("meta");
            let args = [
                seed.as_str().as_bytes().to_vec(),
                new_generation().into_bytes(),
            ];
            let (known, generation): (String, String) = self
                .call("record the seed", Self::meta_part(), &key, || {
                    self.conn
                        .script(&self.meta, std::slice::from_ref(&key), &args)
                })
                .await?;
            self.joined().generation = Some(generation);
            if known == seed.as_str() {
                // Every worker offers the seed: the seen-set keeps it
                // once, and a first worker that died before queueing it
                // loses nothing.
                let host = botwarden_crawl_host(seed);
                let offer = Offer {
                    url: seed.to_string(),
                    depth: 0,
                    host: host.clone(),
                };
                let answers = self.offer_host(&host, &[(0, &offer)], false).await?;
                if answers.iter().any(|(_, a)| *a == Offered::Queued) {
                    self.query::<()>(
                        "count the seed",
                        Self::meta_part(),
                        &key,
                        redis::cmd("HINCRBY").arg(&key).arg("total").arg(1),
                    )
                    .await?;
                }
            }
            Ok(known)
        })
    }

    fn claim<'a>(&'a self, worker: &'a str, max: usize) -> CoordinatorFuture<'a, Claim> {
        Box::pin(async move {
            let mut claim = Claim::default();
            let (delay, parallel) = self.init_args();
            for host in self.hosts().await? {
                if claim.leases.len() >= max {
                    break;
                }
                let keys = [
                    self.key(&host, "queue"),
                    self.key(&host, "leases"),
                    self.key(&host, "state"),
                ];
                let args = vec![
                    worker.as_bytes().to_vec(),
                    (max - claim.leases.len()).to_string().into_bytes(),
                    ms(self.config.lease).into_bytes(),
                    delay.clone(),
                    parallel.clone(),
                ];
                let (wait, members): (i64, Vec<String>) = self
                    .step("claim URLs", &host, &self.claim, &keys, args, true)
                    .await?;
                if wait >= 0 {
                    let w = Duration::from_millis(wait.unsigned_abs());
                    claim.wait = Some(claim.wait.map_or(w, |x| x.min(w)));
                }
                claim
                    .leases
                    .extend(members.into_iter().filter_map(|m| lease_of(m, &host)));
            }
            Ok(claim)
        })
    }

    fn offer(&self, offers: Vec<Offer>) -> CoordinatorFuture<'_, Vec<Offered>> {
        Box::pin(async move {
            let total = self.check_meta().await?;
            let full = total.unwrap_or(0) >= self.config.frontier.max_urls;
            let mut by_host: BTreeMap<&str, Vec<(usize, &Offer)>> = BTreeMap::new();
            for (i, o) in offers.iter().enumerate() {
                by_host.entry(o.host.as_str()).or_default().push((i, o));
            }
            let mut answers = vec![Offered::Known; offers.len()];
            let mut queued = 0u64;
            for (host, list) in by_host {
                for (i, a) in self.offer_host(host, &list, full).await? {
                    queued += u64::from(a == Offered::Queued);
                    answers[i] = a;
                }
            }
            if queued > 0 {
                let key = self.global("meta");
                self.query::<()>(
                    "count the URLs queued",
                    Self::meta_part(),
                    &key,
                    redis::cmd("HINCRBY").arg(&key).arg("total").arg(queued),
                )
                .await?;
            }
            Ok(answers)
        })
    }

    fn finish<'a>(
        &'a self,
        _worker: &'a str,
        lease: &'a Lease,
        how: Finish,
    ) -> CoordinatorFuture<'a, Option<botwarden_crawl::Adjustment>> {
        Box::pin(async move {
            let host = &lease.host;
            let keys = [
                self.key(host, "leases"),
                self.key(host, "state"),
                self.key(host, "window"),
                self.key(host, "queue"),
            ];
            let (kind, outcome, pause) = match how {
                Finish::Fetched { outcome, pause } => ("fetched", outcome, pause),
                Finish::Retry { outcome, pause } => ("retry", Some(outcome), Some(pause)),
                Finish::Skipped => ("skipped", None, None),
                Finish::Release { pause } => ("release", None, pause),
            };
            let indicator: i64 = match outcome {
                None => -1,
                Some(o) => i64::from(o.is_indicator()),
            };
            let t = self.config.throttle;
            let args: Vec<Vec<u8>> = [
                lease.token.clone(),
                kind.to_owned(),
                indicator.to_string(),
                pause.map_or_else(|| "0".to_owned(), ms),
                t.window.max(1).to_string(),
                t.every.max(1).to_string(),
                t.high.to_string(),
                t.low.to_string(),
                ms(t.slower),
                ms(t.faster),
                t.fewer.to_string(),
                t.more.to_string(),
                ms(t.min_delay),
                ms(t.max_delay.max(t.min_delay)),
                t.max_parallel.max(1).to_string(),
            ]
            .into_iter()
            .map(String::into_bytes)
            .collect();
            let reply: Vec<redis::Value> = self
                .step("finish a lease", host, &self.finish, &keys, args, true)
                .await?;
            Ok(adjustment(&reply))
        })
    }

    fn robots<'a>(
        &'a self,
        worker: &'a str,
        host: &'a str,
        origin: &'a str,
    ) -> CoordinatorFuture<'a, RobotsLookup> {
        Box::pin(async move {
            let keys = [
                self.key(host, &format!("robots:{origin}")),
                self.key(host, &format!("turn:{origin}")),
                self.key(host, "state"),
            ];
            let args = vec![
                worker.as_bytes().to_vec(),
                ms(self.config.robots_turn).into_bytes(),
            ];
            let reply: Vec<Vec<u8>> = self
                .step("look up robots.txt", host, &self.robots, &keys, args, true)
                .await?;
            let word = |i: usize| {
                reply
                    .get(i)
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .unwrap_or_default()
            };
            Ok(match word(0).as_str() {
                "known" => match reply.get(1).and_then(|v| robots_read(v)) {
                    Some(read) => RobotsLookup::Known(read),
                    None => {
                        return Err(CrawlError::Coordinator {
                            coordinator: self.name(),
                            message: format!("the robots.txt kept for {origin} is unreadable"),
                        });
                    }
                },
                "wait" => RobotsLookup::Known(RobotsRead::Waiting {
                    after: Duration::from_millis(word(1).parse().unwrap_or(0)),
                    attempts: word(2).parse().unwrap_or(0),
                }),
                "fetch" => RobotsLookup::Fetch {
                    attempts: word(1).parse().unwrap_or(0),
                },
                _ => RobotsLookup::Wait,
            })
        })
    }

    fn put_robots<'a>(
        &'a self,
        host: &'a str,
        origin: &'a str,
        read: RobotsRead,
        floor: Option<Duration>,
    ) -> CoordinatorFuture<'a, ()> {
        Box::pin(async move {
            let keys = [
                self.key(host, &format!("robots:{origin}")),
                self.key(host, &format!("turn:{origin}")),
                self.key(host, "state"),
            ];
            let (after, attempts) = match &read {
                RobotsRead::Waiting { after, attempts } => (*after, *attempts),
                _ => (Duration::ZERO, 0),
            };
            let (delay, parallel) = self.init_args();
            let args = vec![
                match read {
                    RobotsRead::Waiting { .. } => b"w".to_vec(),
                    _ => b"r".to_vec(),
                },
                robots_entry(&read),
                ms(self.config.robots_ttl.max(Duration::from_millis(1))).into_bytes(),
                ms(after).into_bytes(),
                attempts.to_string().into_bytes(),
                delay,
                parallel,
                floor.map_or_else(|| "-1".to_owned(), ms).into_bytes(),
            ];
            self.step::<i64>("keep robots.txt", host, &self.put_robots, &keys, args, true)
                .await?;
            Ok(())
        })
    }

    fn renew<'a>(&'a self, _worker: &'a str, leases: &'a [Lease]) -> CoordinatorFuture<'a, ()> {
        Box::pin(async move {
            let mut by_host: BTreeMap<&str, Vec<&Lease>> = BTreeMap::new();
            for l in leases {
                by_host.entry(l.host.as_str()).or_default().push(l);
            }
            for (host, held) in by_host {
                let keys = [self.key(host, "leases"), self.key(host, "state")];
                let mut args = vec![ms(self.config.lease).into_bytes()];
                args.extend(held.iter().map(|l| l.token.as_bytes().to_vec()));
                self.step::<i64>("renew leases", host, &self.renew, &keys, args, true)
                    .await?;
            }
            Ok(())
        })
    }

    fn report<'a>(&'a self, worker: &'a str, stats: WorkerStats) -> CoordinatorFuture<'a, ()> {
        Box::pin(async move {
            let workers = self.global("workers");
            self.query::<()>(
                "record a worker",
                "the crawl's workers",
                &workers,
                redis::cmd("SADD").arg(&workers).arg(worker),
            )
            .await?;
            let key = self.global(&format!("worker:{worker}"));
            let args: Vec<Vec<u8>> = [
                stats.fetched.to_string(),
                stats.errors.to_string(),
                stats.skipped.to_string(),
                stats.in_flight.to_string(),
                u8::from(stats.ended).to_string(),
                botwarden_crawl::WorkerConfig::default()
                    .report_every
                    .as_millis()
                    .to_string(),
            ]
            .into_iter()
            .map(String::into_bytes)
            .collect();
            self.call(
                "record a worker's progress",
                "the crawl's workers",
                &key,
                || {
                    self.conn
                        .script::<i64>(&self.report, std::slice::from_ref(&key), &args)
                },
            )
            .await?;
            Ok(())
        })
    }

    fn is_finished(&self) -> CoordinatorFuture<'_, bool> {
        Box::pin(async move {
            for host in self.hosts().await? {
                let keys = [
                    self.key(&host, "queue"),
                    self.key(&host, "leases"),
                    self.key(&host, "state"),
                ];
                let pending: u64 = self
                    .step(
                        "read a queue",
                        &host,
                        &self.pending,
                        &keys,
                        Vec::new(),
                        true,
                    )
                    .await?;
                if pending > 0 {
                    return Ok(false);
                }
            }
            Ok(true)
        })
    }
}

/// `host[:port]` as the crawler keys politeness.
fn botwarden_crawl_host(url: &Url) -> String {
    match url.port() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    }
}

/// The throttle's adjustment in a `FINISH` reply.
fn adjustment(reply: &[redis::Value]) -> Option<botwarden_crawl::Adjustment> {
    let int = |i: usize| match reply.get(i) {
        Some(redis::Value::Int(n)) => u64::try_from(*n).ok(),
        _ => None,
    };
    if int(0)? != 2 {
        return None;
    }
    let dir = match reply.get(4)? {
        redis::Value::BulkString(b) if b.as_slice() == b"slower" => {
            botwarden_crawl::Direction::Slower
        }
        _ => botwarden_crawl::Direction::Faster,
    };
    let small = |i: usize| int(i).and_then(|n| u32::try_from(n).ok());
    Some(botwarden_crawl::Adjustment {
        request: int(1)?,
        indicators: small(2)?,
        requests_in_window: small(3)?,
        direction: dir,
        delay: (
            Duration::from_millis(int(5)?),
            Duration::from_millis(int(6)?),
        ),
        parallel: (small(7)?, small(8)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_entries_read_back() {
        for read in [
            RobotsRead::Ready {
                body: b"User-agent: *\nDisallow: /a\tb\n".to_vec(),
                blanket: None,
                why: "robots.txt answered 200: parse (ok)".into(),
            },
            RobotsRead::Ready {
                body: b"User-agent: *\nDisallow: /\n".to_vec(),
                blanket: Some(false),
                why: "answered 401".into(),
            },
            RobotsRead::Failed {
                why: "gave up".into(),
            },
        ] {
            assert_eq!(robots_read(&robots_entry(&read)), Some(read));
        }
        assert_eq!(robots_read(b"x"), None);
    }

    #[test]
    fn lease_members_read_back() {
        let l =
            lease_of("w1\t2\t3\thttps://example.com/a\tb".into(), "example.com").expect("a lease");
        assert_eq!(
            (l.attempts, l.depth, l.url.as_str()),
            (2, 3, "https://example.com/a\tb")
        );
        assert_eq!(lease_of("w1\tx\t3\thttps://e/".into(), "e"), None);
    }

    #[test]
    fn slots_are_the_clusters() {
        // As `CLUSTER KEYSLOT` answers.
        assert_eq!(slot_of("foo"), 12182);
        assert_eq!(slot_of("somekey"), 11058);
        assert_eq!(slot_of("foo{hash_tag}"), 2515);
        assert_eq!(slot_of("botwarden:crawl:x:{www.example.com}:state"), 13603);
    }

    #[test]
    fn nodes_are_named_without_credentials() {
        assert_eq!(
            node_of_url("redis://user:secret@10.0.0.5:7000/"),
            "10.0.0.5:7000"
        );
        assert_eq!(node_of_url("redis://10.0.0.5/"), "10.0.0.5:6379");
    }

    #[test]
    fn names_usable_in_keys() {
        assert!(check_name("www.example.com:8080"));
        assert!(!check_name("a{b}"));
        assert!(!check_name(""));
    }
}
