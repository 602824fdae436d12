//! The pipeline: read → parse → classify → verify → aggregate.
//!
//! Each input is read by one worker thread (as many at once as
//! [`Options::threads`]). A worker parses its lines, classifies each
//! distinct User-Agent once, and keeps counters per (address, claimed bot)
//! pair. The first time a worker sees a pair that claims a registered bot,
//! it hands the pair to the verification task, which runs on the caller's
//! Tokio runtime, asks DNS at most once per pair however many workers see
//! it, and publishes the verdict. Workers never wait for a verdict: a
//! pair's requests are kept aside (counts per time bucket and up to
//! [`PENDING_PATHS`] paths) until its verdict is known, then folded into
//! that verdict's totals.

mod build;
mod hist;
mod topk;
mod worker;

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use botwarden_verify::{Cidr, Classifier, Verdict, Verifier};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use tokio::sync::mpsc;

use crate::export::{Listed, Standing};
use crate::format::LogFormat;
use crate::input::Input;
use crate::report::Report;

/// Paths kept per pair while its verdict is pending; requests past these
/// still count everywhere but in the top-paths lists, which are then
/// marked approximate.
pub const PENDING_PATHS: usize = 64;

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
pub struct Options {
    /// The log format.
    pub format: FormatChoice,
    /// Proxies whose `X-Forwarded-For` is trusted: when a request comes
    /// from one of them, its client is the right-most forwarded address
    /// that is not a trusted proxy.
    pub trusted_proxies: Vec<Cidr>,
    /// Inputs read at once.
    pub threads: usize,
    /// Bad lines kept as samples per reason.
    pub samples_per_reason: usize,
    /// Paths listed per bot row.
    pub top_paths: usize,
    /// Keep reading files as they grow (and are rotated) until
    /// [`Options::stop`] is set.
    pub follow: bool,
    /// How often a followed file is polled for new lines.
    pub poll: Duration,
    /// Set to end a run early (and to end following).
    pub stop: Arc<AtomicBool>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            format: FormatChoice::Auto,
            trusted_proxies: Vec::new(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            samples_per_reason: 5,
            top_paths: 10,
            follow: false,
            poll: Duration::from_millis(250),
            stop: Arc::new(AtomicBool::new(false)),
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
    name: Arc<str>,
}

/// What workers and the verification task share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) classifier: Arc<Classifier>,
    pub(crate) claims: Mutex<Claims>,
    pub(crate) verdicts: RwLock<HashMap<(IpAddr, u32), Arc<Verdict>>>,
    pub(crate) progress: Arc<Progress>,
    jobs: mpsc::UnboundedSender<Msg>,
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

    pub(crate) fn verdict(&self, ip: IpAddr, claim: u32) -> Option<Arc<Verdict>> {
        self.verdicts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(ip, claim))
            .cloned()
    }

    pub(crate) fn publish(&self, ip: IpAddr, claim: u32, verdict: Arc<Verdict>) {
        self.verdicts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((ip, claim), verdict);
        self.progress.verdicts.fetch_add(1, Ordering::Relaxed);
        self.progress.generation.fetch_add(1, Ordering::Relaxed);
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
            .filter_map(|(&(ip, claim), verdict)| {
                let standing = standing(verdict)?;
                let bot = match verdict.bot() {
                    Some(b) => b.to_owned(),
                    None => claims.list[claim as usize].name.to_string(),
                };
                Some(Listed { ip, bot, standing })
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
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
/// verdicts across runs).
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
    pub fn run(&self, inputs: Vec<Input>, options: Options) -> Analysis {
        self.start(inputs, options).finish()
    }

    /// Starts an analysis on its own threads.
    pub fn start(&self, inputs: Vec<Input>, options: Options) -> Run {
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            classifier: self.classifier.clone(),
            claims: Mutex::new(Claims::default()),
            verdicts: RwLock::new(HashMap::new()),
            progress: Arc::new(Progress::default()),
            jobs: tx,
        });
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        self.runtime.spawn(verify_loop(
            self.verifier.clone(),
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

async fn verify_loop(
    verifier: Arc<Verifier>,
    shared: Arc<Shared>,
    mut rx: mpsc::UnboundedReceiver<Msg>,
    done: tokio::sync::oneshot::Sender<()>,
) {
    let mut seen: HashSet<(IpAddr, u32)> = HashSet::new();
    let mut tasks = tokio::task::JoinSet::new();
    while let Some(Msg::Jobs(jobs)) = rx.recv().await {
        while tasks.try_join_next().is_some() {}
        for job in jobs {
            if !seen.insert((job.ip, job.claim)) {
                continue;
            }
            let verifier = verifier.clone();
            let shared = shared.clone();
            tasks.spawn(async move {
                let verdict = verifier.verify(job.ip, &job.name).await;
                shared.publish(job.ip, job.claim, verdict);
            });
        }
    }
    while tasks.join_next().await.is_some() {}
    let _ = done.send(());
}
