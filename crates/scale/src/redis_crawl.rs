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
//! | `botwarden:crawl:NAME:{H}:state` | hash: `next`, `paused` (ms), `inflight`, `delay`, `parallel`, `floor`, the throttle's `requests`, `indicators`, `changed`, counters `queued`, `done`, `errors`, `skipped`, `retries`, `requeued` |
//! | `botwarden:crawl:NAME:{H}:window` | list of 0/1: the throttle's window |
//! | `botwarden:crawl:NAME:{H}:queries` | hash: distinct queries per path (the trap limit) |
//! | `botwarden:crawl:NAME:{H}:robots:ORIGIN` | string: what was read of the origin's robots.txt |
//! | `botwarden:crawl:NAME:{H}:turn:ORIGIN` | string: the worker reading it (expires) |
//! | `botwarden:crawl:NAME:meta` | hash: `seed` |
//! | `botwarden:crawl:NAME:hosts` | set of hosts |
//! | `botwarden:crawl:NAME:total` | URLs queued (the `max-urls` limit) |
//! | `botwarden:crawl:NAME:workers`, `…:worker:W` | workers and each one's progress |
//!
//! Time is the Redis server's (`TIME` in the scripts), so the workers'
//! clocks do not matter. The seen-set is exact up to 64-bit hashes: two
//! URLs of one host collide with probability about n²/2⁶⁵ (10⁻⁸ for a
//! million URLs on a host). `max-urls` is checked before an offer and
//! counted after it, so the workers together may queue a few more than
//! it (at most one page's links per worker).

use std::collections::BTreeMap;
use std::time::Duration;

use botwarden_crawl::{
    Claim, Coordinator, CoordinatorConfig, CoordinatorFuture, Error as CrawlError, Finish, Lease,
    Offer, Offered, RobotsLookup, RobotsRead, Skip, WorkerStats,
};
use redis::aio::ConnectionManager;
use redis::cluster_async::ClusterConnection;
use redis::{FromRedisValue, Script};
use url::Url;

use crate::Error;
use crate::connect::{RedisClient, RedisTarget};

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
            RedisClient::Single(client) => ConnectionManager::new(client)
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
";

/// Leases that ran out go back to the front of the queue; then URLs are
/// leased while the host's parallelism and delay allow.
const CLAIM: &str = r"
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
return {wait, out}
";

/// Each offer: (hash, item, path if it has a query). New URLs are queued
/// unless a limit refuses them.
const OFFER: &str = r"
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
return res
";

/// Ends a lease and applies the throttling rule of
/// `botwarden_crawl::Throttle` to the host (the same rule, step for step).
const FINISH: &str = r"
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return {0} end
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
if ind < 0 then return {1} end
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
return adj
";

/// An origin's robots.txt: known, due again, or being read by another.
const ROBOTS: &str = r"
local now = now_ms()
local v = redis.call('GET', KEYS[1])
local attempts = '0'
if v then
  if string.sub(v, 1, 1) ~= 'w' then return {'known', v} end
  local until_ms, a = string.match(v, '^w\t(%d+)\t(%d+)')
  if tonumber(until_ms) > now then return {'wait', tostring(tonumber(until_ms) - now), a} end
  attempts = a
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'fetch', attempts} end
return {'busy'}
";

/// Keeps what was read; a `Crawl-delay` raises the host's floor.
const PUT_ROBOTS: &str = r"
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
return 1
";

/// A crawl shared by workers on Redis (module docs).
pub struct RedisCoordinator {
    conn: Conn,
    url: String,
    prefix: String,
    config: CoordinatorConfig,
    claim: Script,
    offer: Script,
    finish: Script,
    robots: Script,
    put_robots: Script,
}

impl std::fmt::Debug for RedisCoordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCoordinator")
            .field("url", &self.url)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
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
    /// Its last report (Unix ms, its own clock).
    pub reported_ms: u64,
}

/// A shared crawl's state.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CrawlStatus {
    /// The crawl's name.
    pub crawl: String,
    /// Its start URL (`None`: no such crawl).
    pub seed: Option<String>,
    /// Per host.
    pub hosts: Vec<HostStatus>,
    /// Per worker.
    pub workers: Vec<WorkerStatus>,
}

/// Whether a crawl name is usable in keys.
fn check_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 200
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
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
        if !check_name(name) {
            return Err(Error::Invalid {
                what: "crawl name".into(),
                message: format!("'{name}': letters, digits and -_.: only, at most 200"),
            });
        }
        let conn = Conn::open(target).await?;
        let script = |body: &str| Script::new(&format!("{INIT}{body}"));
        Ok(RedisCoordinator {
            conn,
            url: target.to_string(),
            prefix: format!("botwarden:crawl:{name}"),
            config,
            claim: script(CLAIM),
            offer: script(OFFER),
            finish: script(FINISH),
            robots: script(ROBOTS),
            put_robots: script(PUT_ROBOTS),
        })
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

    fn init_args(&self) -> (Vec<u8>, Vec<u8>) {
        let t = self.config.throttle;
        (
            ms(t.min_delay.min(t.max_delay.max(t.min_delay))).into_bytes(),
            t.max_parallel.max(1).to_string().into_bytes(),
        )
    }

    async fn hosts(&self) -> Result<Vec<String>, CrawlError> {
        let mut hosts: Vec<String> = self
            .conn
            .query(redis::cmd("SMEMBERS").arg(self.global("hosts")))
            .await
            .map_err(|e| self.fail("read the hosts", &e))?;
        hosts.sort();
        Ok(hosts)
    }

    async fn offer_host(
        &self,
        host: &str,
        offers: &[(usize, &Offer)],
        full: bool,
    ) -> Result<Vec<(usize, Offered)>, CrawlError> {
        self.conn
            .query::<()>(redis::cmd("SADD").arg(self.global("hosts")).arg(host))
            .await
            .map_err(|e| self.fail("add a host", &e))?;
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
        let verdicts: Vec<String> = self
            .conn
            .script(&self.offer, &keys, &args)
            .await
            .map_err(|e| self.fail("offer URLs", &e))?;
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

    /// The crawl's state: per host and per worker.
    ///
    /// # Errors
    /// [`Error::Redis`] when Redis fails.
    pub async fn status(&self) -> Result<CrawlStatus, Error> {
        let err = |operation: &str| {
            let url = self.url.clone();
            let operation = operation.to_owned();
            move |source| Error::Redis {
                url,
                operation,
                source,
            }
        };
        let seed: Option<String> = self
            .conn
            .query(redis::cmd("HGET").arg(self.global("meta")).arg("seed"))
            .await
            .map_err(err("read the seed"))?;
        let mut status = CrawlStatus {
            crawl: self
                .prefix
                .trim_start_matches("botwarden:crawl:")
                .to_owned(),
            seed,
            ..CrawlStatus::default()
        };
        let mut hosts: Vec<String> = self
            .conn
            .query(redis::cmd("SMEMBERS").arg(self.global("hosts")))
            .await
            .map_err(err("read the hosts"))?;
        hosts.sort();
        let (secs, micros): (u64, u64) = self
            .conn
            .query(&redis::cmd("TIME"))
            .await
            .map_err(err("read the time"))?;
        let now_ms = secs * 1000 + micros / 1000;
        let mut leased: BTreeMap<String, u64> = BTreeMap::new();
        for host in hosts {
            let queued: u64 = self
                .conn
                .query(redis::cmd("LLEN").arg(self.key(&host, "queue")))
                .await
                .map_err(err("read a queue"))?;
            let members: Vec<String> = self
                .conn
                .query(
                    redis::cmd("ZRANGE")
                        .arg(self.key(&host, "leases"))
                        .arg(0)
                        .arg(-1),
                )
                .await
                .map_err(err("read the leases"))?;
            for m in &members {
                let w = m.split('\t').next().unwrap_or_default().to_owned();
                *leased.entry(w).or_default() += 1;
            }
            let state: BTreeMap<String, String> = self
                .conn
                .query(redis::cmd("HGETALL").arg(self.key(&host, "state")))
                .await
                .map_err(err("read a host's state"))?;
            let window: u64 = self
                .conn
                .query(redis::cmd("LLEN").arg(self.key(&host, "window")))
                .await
                .map_err(err("read the throttle's window"))?;
            let n = |k: &str| state.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
            status.hosts.push(HostStatus {
                host,
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
                window,
                window_errors: n("indicators"),
                paused_ms: n("paused").saturating_sub(now_ms),
            });
        }
        let mut workers: Vec<String> = self
            .conn
            .query(redis::cmd("SMEMBERS").arg(self.global("workers")))
            .await
            .map_err(err("read the workers"))?;
        workers.sort();
        for name in workers {
            let w: BTreeMap<String, String> = self
                .conn
                .query(redis::cmd("HGETALL").arg(self.global(&format!("worker:{name}"))))
                .await
                .map_err(err("read a worker"))?;
            let n = |k: &str| w.get(k).and_then(|v| v.parse().ok()).unwrap_or(0);
            status.workers.push(WorkerStatus {
                leased: leased.get(&name).copied().unwrap_or(0),
                fetched: n("fetched"),
                errors: n("errors"),
                skipped: n("skipped"),
                in_flight: n("in_flight"),
                ended: n("ended") == 1,
                reported_ms: n("reported_ms"),
                name,
            });
        }
        Ok(status)
    }

    /// Forgets the crawl: every key of it (to crawl the site again from
    /// the start). Returns the keys removed.
    ///
    /// # Errors
    /// [`Error::Redis`] when Redis fails.
    pub async fn clear(&self) -> Result<u64, Error> {
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
        hosts.sort();
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
        RobotsRead::Waiting { .. } => b"w".to_vec(),
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
            self.conn
                .query::<()>(
                    redis::cmd("HSETNX")
                        .arg(self.global("meta"))
                        .arg("seed")
                        .arg(seed.as_str()),
                )
                .await
                .map_err(|e| self.fail("record the seed", &e))?;
            let known: String = self
                .conn
                .query(redis::cmd("HGET").arg(self.global("meta")).arg("seed"))
                .await
                .map_err(|e| self.fail("read the seed", &e))?;
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
                    self.conn
                        .query::<()>(redis::cmd("INCR").arg(self.global("total")))
                        .await
                        .map_err(|e| self.fail("count the seed", &e))?;
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
                let args = [
                    worker.as_bytes().to_vec(),
                    (max - claim.leases.len()).to_string().into_bytes(),
                    ms(self.config.lease).into_bytes(),
                    delay.clone(),
                    parallel.clone(),
                ];
                let (wait, members): (i64, Vec<String>) = self
                    .conn
                    .script(&self.claim, &keys, &args)
                    .await
                    .map_err(|e| self.fail("claim URLs", &e))?;
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
            let total: Option<u64> = self
                .conn
                .query(redis::cmd("GET").arg(self.global("total")))
                .await
                .map_err(|e| self.fail("read the URL count", &e))?;
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
                self.conn
                    .query::<()>(redis::cmd("INCRBY").arg(self.global("total")).arg(queued))
                    .await
                    .map_err(|e| self.fail("count the URLs queued", &e))?;
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
                .conn
                .script(&self.finish, &keys, &args)
                .await
                .map_err(|e| self.fail("finish a lease", &e))?;
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
            ];
            let args = [
                worker.as_bytes().to_vec(),
                ms(self.config.robots_turn).into_bytes(),
            ];
            let reply: Vec<Vec<u8>> = self
                .conn
                .script(&self.robots, &keys, &args)
                .await
                .map_err(|e| self.fail("look up robots.txt", &e))?;
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
            self.conn
                .script::<i64>(&self.put_robots, &keys, &args)
                .await
                .map_err(|e| self.fail("keep robots.txt", &e))?;
            Ok(())
        })
    }

    fn report<'a>(&'a self, worker: &'a str, stats: WorkerStats) -> CoordinatorFuture<'a, ()> {
        Box::pin(async move {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            self.conn
                .query::<()>(redis::cmd("SADD").arg(self.global("workers")).arg(worker))
                .await
                .map_err(|e| self.fail("record a worker", &e))?;
            self.conn
                .query::<()>(
                    redis::cmd("HSET")
                        .arg(self.global(&format!("worker:{worker}")))
                        .arg("fetched")
                        .arg(stats.fetched)
                        .arg("errors")
                        .arg(stats.errors)
                        .arg("skipped")
                        .arg(stats.skipped)
                        .arg("in_flight")
                        .arg(stats.in_flight)
                        .arg("ended")
                        .arg(u8::from(stats.ended))
                        .arg("reported_ms")
                        .arg(ms(now)),
                )
                .await
                .map_err(|e| self.fail("record a worker's progress", &e))
        })
    }

    fn is_finished(&self) -> CoordinatorFuture<'_, bool> {
        Box::pin(async move {
            for host in self.hosts().await? {
                let queued: u64 = self
                    .conn
                    .query(redis::cmd("LLEN").arg(self.key(&host, "queue")))
                    .await
                    .map_err(|e| self.fail("read a queue", &e))?;
                let leased: u64 = self
                    .conn
                    .query(redis::cmd("ZCARD").arg(self.key(&host, "leases")))
                    .await
                    .map_err(|e| self.fail("read the leases", &e))?;
                if queued + leased > 0 {
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
    fn names_usable_in_keys() {
        assert!(check_name("www.example.com:8080"));
        assert!(!check_name("a{b}"));
        assert!(!check_name(""));
    }
}
