//! The pipeline: read → parse → classify → verify → aggregate (described
//! on [`Analyzer`]).

mod build;
mod hist;
mod join;
mod remote;
mod signed;
mod topk;
mod usage;
mod worker;

pub use join::{CrawlSite, DELAY_TIMES, JOIN_URLS};
pub use remote::{Pair, PairVerifier, VerdictFuture};
pub use usage::{UsagePolicy, purpose_of};

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime};

use botwarden_verify::{
    Cidr, Claim, Classifier, KeyRing, SignatureConfig, SignatureVerifier, Verdict, Verifier,
};
use foldhash::{HashMap, HashMapExt};
use tokio::sync::mpsc;

use crate::export::{Listed, Standing};
use crate::format::LogFormat;
use crate::input::Input;
use crate::report::Report;

/// Paths kept per pair while its verdict is pending; requests past these
/// still count everywhere but in the top-paths lists, which are then
/// marked approximate.
pub const PENDING_PATHS: usize = 64;

/// Requests kept per pair for the join with a crawl while its verdict is
/// pending ([`AnalyzeOptions::crawl`]); a pair that makes more waits for
/// its verdict before its reading thread reads on, so that none is lost.
pub const PENDING_HITS: usize = 64;

/// Verifications running at once; pairs past these wait in a queue (about
/// 40 bytes each), so that a log with millions of addresses does not start
/// millions of lookups.
pub const VERIFY_IN_FLIGHT: usize = 256;

/// Pairs awaited at once from a [`PairVerifier`]: an answer from
/// elsewhere costs this process a waiting task (a few hundred bytes) rather
/// than a lookup, and a fleet's followers should hand their pairs out as
/// fast as they read them.
pub const REMOTE_IN_FLIGHT: usize = 4_096;

/// How to read the inputs.
#[derive(Debug, Clone, Default)]
pub enum FormatChoice {
    /// Pick a preset per input from its first lines.
    #[default]
    Auto,
    /// Read every input with this format.
    Fixed(LogFormat),
}

/// How an analysis runs.
#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// The log format.
    pub format: FormatChoice,
    /// Proxies whose `X-Forwarded-For` is trusted: when a request comes
    /// from one of them, its client is the right-most forwarded address
    /// that is not a trusted proxy. See [`trusted_proxy_warnings`] for
    /// ranges too wide to trust.
    pub trusted_proxies: Vec<Cidr>,
    /// Inputs read at once.
    pub threads: usize,
    /// Bad lines kept as samples per reason.
    pub samples_per_reason: usize,
    /// Paths listed per bot row.
    pub top_paths: usize,
    /// Keep reading files as they grow (and are rotated) until
    /// [`AnalyzeOptions::stop`] is set.
    pub follow: bool,
    /// How often a followed file is polled for new lines.
    pub poll: Duration,
    /// Set to end a run early (and to end following).
    pub stop: Arc<AtomicBool>,
    /// Most entries in the report's `spoofed` and `host_names` lists (the
    /// busiest first; the rest are counted in `spoofed_omitted` and
    /// `host_names_omitted`, and every address is still in the exports).
    pub max_listed: usize,
    /// The keys signed lines (Web Bot Auth) are checked with; `None`: the
    /// registry's `signature_keys` only. A signature whose agent's keys
    /// are not here gives `unknown`.
    pub signature_keys: Option<Arc<KeyRing>>,
    /// Where registered bots' pairs are verified: `None` (the default)
    /// asks the analyzer's own [`Verifier`]; a [`PairVerifier`] hands each
    /// pair out once per run instead (to central verifiers, for instance),
    /// and the analyzer's verifier is not asked.
    pub pairs: Option<Arc<dyn PairVerifier>>,
    /// A robots.txt whose usage preferences requests are measured
    /// against: each row of a crawler that uses content for AI training,
    /// AI input or search counts its requests for paths that refuse that
    /// use ([`usage`](UsagePolicy)).
    pub usage: Option<Arc<UsagePolicy>>,
    /// A crawl to join the log with: per URL of its origins and per
    /// verified bot, the requests, days, statuses and robots.txt
    /// compliance ([`CrawlSite`], `crates/logs/docs/join.md`).
    pub crawl: Option<Arc<CrawlSite>>,
    /// The most distinct URLs the join counts per URL and bot
    /// ([`JOIN_URLS`] by default); verified requests for URLs past them
    /// are counted as capped.
    pub join_urls: u64,
}

impl Default for AnalyzeOptions {
    fn default() -> AnalyzeOptions {
        AnalyzeOptions {
            format: FormatChoice::Auto,
            trusted_proxies: Vec::new(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            samples_per_reason: 5,
            top_paths: 10,
            follow: false,
            poll: Duration::from_millis(250),
            stop: Arc::new(AtomicBool::new(false)),
            max_listed: 1_000,
            signature_keys: None,
            pairs: None,
            usage: None,
            crawl: None,
            join_urls: JOIN_URLS,
        }
    }
}

/// Counters a caller can read while a run goes on.
#[derive(Debug, Default)]
pub struct Progress {
    /// Bytes read from the inputs (compressed bytes for gzip inputs are
    /// not known: this counts what was decompressed).
    pub bytes: AtomicU64,
    /// Lines read.
    pub lines: AtomicU64,
    /// Inputs finished.
    pub inputs_done: AtomicU64,
    /// Pairs handed to verification.
    pub pairs: AtomicU64,
    /// Pairs with a verdict.
    pub verdicts: AtomicU64,
    /// Bumped each time the set of listed addresses may have changed.
    pub generation: AtomicU64,
}

/// What an analysis found.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The report.
    pub report: Report,
    /// Every address that claimed a bot, with its standing, sorted (the
    /// exports' input). Addresses whose verification was inconclusive
    /// (`unknown`) are not listed.
    pub listed: Vec<Listed>,
    /// With a crawl ([`AnalyzeOptions::crawl`]): the verified addresses
    /// of bots that requested a URL the robots.txt in force disallowed to
    /// them, sorted (standing `verified`, for the exports).
    pub ignoring_robots: Vec<Listed>,
}

/// A claim made by User-Agents: a registered bot, or an unregistered
/// crawler named by its family.
#[derive(Debug, Clone)]
pub(crate) struct ClaimInfo {
    pub(crate) name: Arc<str>,
    pub(crate) category: Option<String>,
    pub(crate) registered: bool,
}

/// Claims interned to small numbers shared by every worker.
#[derive(Debug, Default)]
pub(crate) struct Claims {
    list: Vec<ClaimInfo>,
    index: HashMap<Arc<str>, u32>,
}

impl Claims {
    fn intern(&mut self, name: &str, category: Option<&str>, registered: bool) -> u32 {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = self.list.len() as u32;
        let name: Arc<str> = name.into();
        self.list.push(ClaimInfo {
            name: name.clone(),
            category: category.map(str::to_owned),
            registered,
        });
        self.index.insert(name, id);
        id
    }
}

/// What workers send the verification task.
#[derive(Debug)]
enum Msg {
    /// Pairs to verify, sent in batches to wake the task less often.
    Jobs(Vec<Job>),
    /// Every worker is done.
    End,
}

/// A pair handed to verification.
#[derive(Debug)]
pub(crate) struct Job {
    ip: IpAddr,
    claim: u32,
    /// The time of the pair's first request (Unix seconds): verification
    /// is as of then.
    as_of: Option<i64>,
}

/// A verdict as the analysis keeps it: its kind (an index into
/// [`worker::KINDS`], or [`PENDING`]) and, for a spoofed one, its reason
/// (an index into [`Reasons`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) kind: u8,
    reason: u32,
}

/// The kind of a pair handed to verification and not answered yet.
pub(crate) const PENDING: u8 = u8::MAX;

/// No reason kept.
const NO_REASON: u32 = u32::MAX;

/// Stands for the address in an interned reason.
const ADDRESS_MARK: char = '\u{1}';

/// The reasons of spoofed verdicts, interned with the address taken out:
/// a botnet's thousands of verdicts share a handful of sentences ("… is
/// not in its published ranges …") that differ only by the address.
#[derive(Debug, Default)]
pub(crate) struct Reasons {
    list: Vec<(Arc<str>, bool)>,
    index: HashMap<Arc<str>, u32>,
}

impl Reasons {
    fn intern(&mut self, ip: IpAddr, reason: &str) -> u32 {
        // Taking the address out is undone exactly by putting it back,
        // unless the mark was there already: then the text is kept whole.
        let marked = !reason.contains(ADDRESS_MARK);
        let text: Arc<str> = if marked {
            reason
                .replace(&ip.to_string(), &ADDRESS_MARK.to_string())
                .into()
        } else {
            reason.into()
        };
        if let Some(&id) = self.index.get(&text)
            && self.list[id as usize].1 == marked
        {
            return id;
        }
        let id = u32::try_from(self.list.len()).unwrap_or(NO_REASON - 1);
        self.list.push((text.clone(), marked));
        self.index.insert(text, id);
        id
    }

    fn text(&self, ip: IpAddr, id: u32) -> Option<String> {
        let (text, marked) = self.list.get(id as usize)?;
        Some(if *marked {
            text.replace(ADDRESS_MARK, &ip.to_string())
        } else {
            text.to_string()
        })
    }
}

/// What workers and the verification task share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) classifier: Arc<Classifier>,
    pub(crate) verifier: Arc<Verifier>,
    pub(crate) claims: Mutex<Claims>,
    /// Every pair handed to verification, pending or answered.
    verdicts: RwLock<HashMap<(IpAddr, u32), Outcome>>,
    reasons: Mutex<Reasons>,
    pub(crate) progress: Arc<Progress>,
    jobs: mpsc::UnboundedSender<Msg>,
    /// Checks signed lines; nonces are not remembered.
    pub(crate) signatures: SignatureVerifier,
    pub(crate) signature_keys: Arc<KeyRing>,
}

impl Shared {
    pub(crate) fn claim(&self, name: &str, category: Option<&str>, registered: bool) -> u32 {
        self.claims
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .intern(name, category, registered)
    }

    /// Every claim, by id.
    pub(crate) fn claims(&self) -> Vec<ClaimInfo> {
        self.claims
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .list
            .clone()
    }

    pub(crate) fn claim_info(&self, id: u32) -> ClaimInfo {
        self.claims
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .list[id as usize]
            .clone()
    }

    /// The verdict's kind for a pair, once answered.
    pub(crate) fn verdict(&self, ip: IpAddr, claim: u32) -> Option<u8> {
        self.verdicts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(ip, claim))
            .map(|o| o.kind)
            .filter(|&k| k != PENDING)
    }

    /// The reason of a pair's spoofed verdict.
    pub(crate) fn reason(&self, ip: IpAddr, claim: u32) -> Option<String> {
        let outcome = *self
            .verdicts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(ip, claim))?;
        self.reasons
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .text(ip, outcome.reason)
    }

    /// Marks a pair as being verified; false when it already was.
    fn begin(&self, ip: IpAddr, claim: u32) -> bool {
        let mut map = self
            .verdicts
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        match map.entry((ip, claim)) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(Outcome {
                    kind: PENDING,
                    reason: NO_REASON,
                });
                true
            }
        }
    }

    pub(crate) fn publish(&self, ip: IpAddr, claim: u32, verdict: &Verdict) {
        let kind = worker::kind_index(verdict);
        let reason = match verdict {
            Verdict::Spoofed { reason, .. } => self
                .reasons
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .intern(ip, reason),
            _ => NO_REASON,
        };
        let old = self
            .verdicts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((ip, claim), Outcome { kind, reason });
        if old.is_none_or(|o| o.kind == PENDING) {
            self.progress.verdicts.fetch_add(1, Ordering::Relaxed);
            self.progress.generation.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Hands registered bots' pairs to verification.
    pub(crate) fn submit(&self, jobs: &mut Vec<Job>) {
        if jobs.is_empty() {
            return;
        }
        self.progress
            .pairs
            .fetch_add(jobs.len() as u64, Ordering::Relaxed);
        // The receiver lives until every worker is done.
        let _ = self.jobs.send(Msg::Jobs(std::mem::take(jobs)));
    }

    /// Every listed address, sorted.
    pub(crate) fn listed(&self) -> Vec<Listed> {
        let claims = self.claims.lock().unwrap_or_else(PoisonError::into_inner);
        let verdicts = self.verdicts.read().unwrap_or_else(PoisonError::into_inner);
        let mut out: Vec<Listed> = verdicts
            .iter()
            .filter_map(|(&(ip, claim), outcome)| {
                let standing = kind_standing(outcome.kind)?;
                let bot = claims.list[claim as usize].name.to_string();
                Some(Listed { ip, bot, standing })
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// How exports list a verdict kind (an index into [`worker::KINDS`]).
fn kind_standing(kind: u8) -> Option<Standing> {
    match kind {
        0 => Some(Standing::Verified),
        1 => Some(Standing::Spoofed),
        3 => Some(Standing::Other),
        _ => None,
    }
}

/// Warnings about trusted proxy ranges so wide that any client could choose
/// the address it is counted and verified as: shorter than /8 for IPv4 (more
/// than 1/256 of all addresses) or /7 for IPv6 (`fc00::/7`, the unique local
/// range, is fine). Each warning starts with the range.
#[must_use]
pub fn trusted_proxy_warnings(proxies: &[Cidr]) -> Vec<String> {
    proxies
        .iter()
        .filter_map(|c| {
            let v4 = c.network.is_ipv4();
            (c.len < if v4 { 8 } else { 7 }).then(|| {
                format!(
                    "{}/{} covers {} of all {} addresses: a client there can be counted \
                     and verified as any address it writes in X-Forwarded-For (a \
                     crawler's, to pass as verified); trust only your own proxies",
                    c.network,
                    c.len,
                    if c.len == 0 {
                        "every one"
                    } else {
                        "a large share"
                    },
                    if v4 { "IPv4" } else { "IPv6" }
                )
            })
        })
        .collect()
}

/// How exports list a verdict; `None` for verdicts they leave out.
pub fn standing(verdict: &Verdict) -> Option<Standing> {
    match verdict {
        Verdict::Verified { .. } => Some(Standing::Verified),
        Verdict::Spoofed { .. } => Some(Standing::Spoofed),
        Verdict::Unverifiable { .. } => Some(Standing::Other),
        Verdict::Unknown { .. } | Verdict::NotABot => None,
    }
}

/// Runs analyses with one classifier and one verifier (and so one cache of
/// verdicts across runs): read → parse → classify → verify → aggregate.
///
/// Each input is read by one worker thread (as many at once as
/// [`AnalyzeOptions::threads`]). A worker parses its lines, reads what each
/// distinct User-Agent claims once ([`Claim::of`], the reading `bots
/// verify` uses too), and keeps counters per (address, claimed bot)
/// pair. The first time a worker sees a pair that claims a registered bot,
/// it hands the pair to the verification task, which runs on the caller's
/// Tokio runtime ([`Verifier::verify_claim`]), at most
/// [`VERIFY_IN_FLIGHT`] verifications at once, asks
/// DNS at most once per pair however many workers see it, and publishes
/// the verdict. Workers never wait for a verdict: a pair's requests are
/// kept aside (counts per time bucket and up to [`PENDING_PATHS`] paths)
/// until its verdict is known, then folded into that bot and verdict's
/// totals.
///
/// Memory: once its verdict is known, a pair keeps only its address, bot,
/// verdict, request count, first and last time and a shared User-Agent
/// (about 220 bytes in all, with the verdict table and the hash tables'
/// slack); what it requested is in its bot and verdict's totals. At most
/// [`VERIFY_IN_FLIGHT`] verifications run at once, and a reading thread
/// waits for verdicts when 16,384 of its pairs wait for theirs.
/// `crates/logs/docs/report.md` (Memory) gives the bounds.
///
/// With [`AnalyzeOptions::pairs`], the pairs go to a [`PairVerifier`]
/// (central verifiers, for a fleet of web servers) in place of the
/// analyzer's verifier, still once per pair and run and at most
/// [`REMOTE_IN_FLIGHT`] awaited at once; a stopped run gives up on the
/// answers still awaited and counts their pairs as `unknown`.
///
/// Clients a log names by host name (Apache's `HostnameLookups On`) are
/// counted like addresses; a bot claim from one is `unverifiable`
/// ([`Verifier::verify_name`]).
#[derive(Debug, Clone)]
pub struct Analyzer {
    classifier: Arc<Classifier>,
    verifier: Arc<Verifier>,
    runtime: tokio::runtime::Handle,
    dns: bool,
}

/// A run in progress: read its [`Progress`] and listed addresses while it
/// goes on (for follow mode), and [`Run::finish`] it for the analysis.
#[derive(Debug)]
pub struct Run {
    shared: Arc<Shared>,
    handle: Option<std::thread::JoinHandle<Analysis>>,
}

impl Run {
    /// The counters of this run.
    pub fn progress(&self) -> &Arc<Progress> {
        &self.shared.progress
    }

    /// The addresses with a verdict so far, sorted.
    pub fn listed(&self) -> Vec<Listed> {
        self.shared.listed()
    }

    /// Whether the run has ended ([`Run::finish`] will not block).
    pub fn is_finished(&self) -> bool {
        self.handle.as_ref().is_none_or(|h| h.is_finished())
    }

    /// Waits for the run to end.
    pub fn finish(mut self) -> Analysis {
        let handle = self.handle.take().expect("a run is finished once");
        match handle.join() {
            Ok(a) => a,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl Analyzer {
    /// An analyzer whose verification runs on `runtime`. `dns` says
    /// whether `verifier` asks DNS (for the report).
    pub fn new(
        classifier: Arc<Classifier>,
        verifier: Arc<Verifier>,
        runtime: tokio::runtime::Handle,
    ) -> Analyzer {
        let dns = verifier.dns().is_some();
        Analyzer {
            classifier,
            verifier,
            runtime,
            dns,
        }
    }

    /// Analyses the inputs and waits for the result. Must not be called
    /// from within the runtime's own threads.
    pub fn run(&self, inputs: Vec<Input>, options: AnalyzeOptions) -> Analysis {
        self.start(inputs, options).finish()
    }

    /// Starts an analysis on its own threads.
    pub fn start(&self, inputs: Vec<Input>, options: AnalyzeOptions) -> Run {
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            classifier: self.classifier.clone(),
            verifier: self.verifier.clone(),
            claims: Mutex::new(Claims::default()),
            verdicts: RwLock::new(HashMap::new()),
            reasons: Mutex::new(Reasons::default()),
            progress: Arc::new(Progress::default()),
            jobs: tx,
            signatures: SignatureVerifier::new(SignatureConfig {
                remember_nonces: false,
                ..SignatureConfig::default()
            }),
            signature_keys: options
                .signature_keys
                .clone()
                .unwrap_or_else(|| Arc::new(KeyRing::from_registry(self.verifier.registry()))),
        });
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        self.runtime.spawn(verify_loop(
            Verification {
                local: self.verifier.clone(),
                remote: options.pairs.clone(),
                stop: options.stop.clone(),
            },
            shared.clone(),
            rx,
            done_tx,
        ));
        let verifier = self.verifier.clone();
        let dns = self.dns;
        let thread_shared = shared.clone();
        let handle = std::thread::Builder::new()
            .name("botwarden-analyze".to_owned())
            .spawn(move || {
                let results = worker::run_all(&thread_shared, &inputs, &options);
                let read_done = Instant::now();
                // Every worker has dropped its sender clone; drop ours so the
                // verification task sees the end of its jobs.
                let shared = thread_shared;
                drop_sender(&shared);
                let _ = done_rx.blocking_recv();
                let wait = read_done.elapsed();
                let lookups = verifier
                    .dns()
                    .map(|d| {
                        let s = d.stats();
                        s.ptr.misses + s.forward.misses
                    })
                    .unwrap_or(0);
                build::report(&shared, &inputs, results, &options, dns, wait, lookups)
            })
            .expect("a thread for the analysis");
        Run {
            shared,
            handle: Some(handle),
        }
    }
}

/// Tells the verification task that no more jobs come. The sender lives
/// in `Shared`, which outlives the workers, so the end is sent explicitly.
fn drop_sender(shared: &Shared) {
    let _ = shared.jobs.send(Msg::End);
}

/// Who answers the pairs of a run.
struct Verification {
    /// The analyzer's verifier.
    local: Arc<Verifier>,
    /// Verification done elsewhere, in its place.
    remote: Option<Arc<dyn PairVerifier>>,
    /// The run's stop flag: verdicts still awaited from elsewhere are
    /// given up when it is set.
    stop: Arc<AtomicBool>,
}

/// How often the verification task looks at the stop flag while it
/// awaits verdicts from a [`PairVerifier`].
const REMOTE_STOP_POLL: Duration = Duration::from_millis(100);

async fn verify_loop(
    verification: Verification,
    shared: Arc<Shared>,
    mut rx: mpsc::UnboundedReceiver<Msg>,
    done: tokio::sync::oneshot::Sender<()>,
) {
    let Verification {
        local: verifier,
        remote,
        stop,
    } = verification;
    let mut queue: VecDeque<Job> = VecDeque::new();
    let mut tasks = tokio::task::JoinSet::new();
    let mut open = true;
    let mut tick = tokio::time::interval(REMOTE_STOP_POLL);
    let in_flight = if remote.is_some() {
        REMOTE_IN_FLIGHT
    } else {
        VERIFY_IN_FLIGHT
    };
    loop {
        if remote.is_some() && stop.load(Ordering::Relaxed) {
            // Verdicts from elsewhere may never come (no verifier runs):
            // a stopped run does not wait for them; their pairs stay
            // pending and the report counts them as unknown.
            tasks.abort_all();
            queue.clear();
            if !open {
                break;
            }
        }
        while tasks.len() < in_flight
            && let Some(job) = queue.pop_front()
        {
            if !shared.begin(job.ip, job.claim) {
                continue;
            }
            let info = shared.claim_info(job.claim);
            let as_of = job.as_of.and_then(unix_time);
            let shared = shared.clone();
            if let Some(remote) = &remote {
                let answer = remote.verify(Pair {
                    ip: job.ip,
                    bot: info.name.to_string(),
                    category: info.category,
                    as_of,
                });
                tasks.spawn(async move {
                    let verdict = answer.await;
                    shared.publish(job.ip, job.claim, &verdict);
                });
                continue;
            }
            let claim = Claim::Bot {
                name: info.name.to_string(),
                category: info.category,
            };
            let verifier = verifier.clone();
            tasks.spawn(async move {
                let verdict = verifier.verify_claim(job.ip, &claim, as_of).await;
                shared.publish(job.ip, job.claim, &verdict);
            });
        }
        if !open && queue.is_empty() && tasks.is_empty() {
            break;
        }
        tokio::select! {
            msg = rx.recv(), if open => match msg {
                Some(Msg::Jobs(jobs)) => queue.extend(jobs),
                Some(Msg::End) | None => open = false,
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            _ = tick.tick(), if remote.is_some() => {}
        }
    }
    let _ = done.send(());
}

/// Unix seconds as a system time.
fn unix_time(unix: i64) -> Option<SystemTime> {
    let secs = Duration::from_secs(unix.unsigned_abs());
    if unix >= 0 {
        SystemTime::UNIX_EPOCH.checked_add(secs)
    } else {
        SystemTime::UNIX_EPOCH.checked_sub(secs)
    }
}
