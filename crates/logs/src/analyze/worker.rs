//! One worker: reads inputs, parses and classifies lines, keeps counters.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use botwarden_verify::{Claim, Verdict, normalize};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::hist::Hist;
use super::join::{Hit, JoinAgg, JoinCaps, JoinReader};
use super::topk::TopK;
use super::usage::{self, UsageCache};
use super::{
    AnalyzeOptions, ClaimInfo, FormatChoice, Job, PENDING, PENDING_HITS, PENDING_PATHS, Shared,
};
use crate::format::{ChainRead, FormatChain, LogFormat};
use crate::input::{Input, Line, LineReader};
use crate::record::{Client, Record};
use crate::report::{BadLine, LineCounts, SignedLines};

/// Distinct User-Agents remembered per worker with their classification;
/// past this, User-Agents are classified through the classifier's own
/// cache.
const UA_CACHE: usize = 200_000;

/// Pairs of one worker that may wait for their verdict at once; past
/// these, the worker waits for verdicts before it reads on.
pub(crate) const PENDING_PAIRS: usize = 1 << 14;

/// Lines a worker reads before it looks at the stop flag.
const STOP_CHECK: u64 = 1 << 14;

/// Lines looked at to pick a format.
const DETECT_LINES: usize = 32;

/// The presets tried, richest first, on lines the chosen format cannot
/// read (auto mode only).
const FALLBACKS: [&str; 5] = [
    "vhost_combined",
    "combined",
    "vhost_common",
    "common",
    "json",
];

/// The verdict kinds, in report order.
pub(crate) const KINDS: [&str; 5] = [
    "verified",
    "spoofed",
    "unknown",
    "unverifiable",
    "not-a-bot",
];

pub(crate) fn kind_index(verdict: &Verdict) -> u8 {
    match verdict {
        Verdict::Verified { .. } => 0,
        Verdict::Spoofed { .. } => 1,
        Verdict::Unknown { .. } => 2,
        Verdict::Unverifiable { .. } => 3,
        Verdict::NotABot => 4,
    }
}

/// Index of a status code's class: 1xx/2xx, 3xx, 4xx, 5xx, other.
pub(crate) fn status_class(status: Option<u16>) -> usize {
    match status {
        Some(100..=299) => 0,
        Some(300..=399) => 1,
        Some(400..=499) => 2,
        Some(500..=599) => 3,
        _ => 4,
    }
}

/// The result of reading one input.
#[derive(Debug, Default)]
pub(crate) struct InputResult {
    pub(crate) format: String,
    pub(crate) gzip: bool,
    pub(crate) counts: LineCounts,
    pub(crate) samples: Vec<BadLine>,
    pub(crate) error: Option<String>,
}

/// Counters of requests: a bot and verdict's totals, or a pair's while its
/// verdict is pending.
#[derive(Debug, Clone)]
pub(crate) struct Counts {
    pub(crate) requests: u64,
    pub(crate) bytes: u64,
    pub(crate) status: [u64; 5],
    pub(crate) first: i64,
    pub(crate) last: i64,
    pub(crate) robots: u64,
    pub(crate) robots_status: Vec<(u16, u64)>,
    pub(crate) hist: Hist,
    /// Requests whose usage preferences were asked, and those refused by
    /// group and file-wide (`AnalyzeOptions::usage`).
    pub(crate) usage: [u64; 3],
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            requests: 0,
            bytes: 0,
            status: [0; 5],
            first: i64::MAX,
            last: i64::MIN,
            robots: 0,
            robots_status: Vec::new(),
            hist: Hist::default(),
            usage: [0; 3],
        }
    }
}

impl Counts {
    /// Counts a request; `standing` is its usage standing (`usage::ASKED`
    /// and the refusals).
    fn add(&mut self, record: &Record<'_>, time: Option<i64>, standing: u8) {
        for (i, bit) in [usage::ASKED, usage::REFUSED, usage::REFUSED_WIDE]
            .into_iter()
            .enumerate()
        {
            self.usage[i] += u64::from(standing & bit != 0);
        }
        self.requests += 1;
        self.bytes += record.bytes;
        self.status[status_class(record.status)] += 1;
        if let Some(t) = time {
            self.first = self.first.min(t);
            self.last = self.last.max(t);
            self.hist.add(t, 1);
        }
        let path = record.path.unwrap_or("");
        if path == "/robots.txt" || path.starts_with("/robots.txt?") {
            self.robots += 1;
            if let Some(code) = record.status {
                add_code(&mut self.robots_status, code, 1);
            }
        }
    }

    pub(crate) fn merge(&mut self, other: &Counts) {
        self.requests += other.requests;
        self.bytes += other.bytes;
        for i in 0..5 {
            self.status[i] += other.status[i];
        }
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        self.robots += other.robots;
        for &(code, n) in &other.robots_status {
            add_code(&mut self.robots_status, code, n);
        }
        self.hist.merge(&other.hist);
        for i in 0..3 {
            self.usage[i] += other.usage[i];
        }
    }
}

/// Requests of a pair whose verdict is not known yet.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    pub(crate) counts: Counts,
    pub(crate) paths: Vec<(Box<str>, u64)>,
    pub(crate) overflow: bool,
    /// Its requests for the join with a crawl, up to [`PENDING_HITS`].
    pub(crate) hits: Vec<Hit>,
    /// The count of published verdicts when this pair last looked for its
    /// own; it looks again only when that count has moved.
    looked_at: u64,
}

/// One (address, claim) pair. Once its verdict is known, its requests
/// are counted in its bot and verdict's [`Row`]; it keeps only what the
/// lists of spoofed addresses and unknown crawlers show.
#[derive(Debug)]
pub(crate) struct Pair {
    pub(crate) requests: u64,
    pub(crate) first: i64,
    pub(crate) last: i64,
    /// The first User-Agent it sent (shared with the User-Agent cache).
    pub(crate) ua: Arc<str>,
    /// An index into [`KINDS`], or [`PENDING`].
    pub(crate) kind: u8,
    pub(crate) pending: Option<Box<Pending>>,
}

impl Pair {
    fn new(ua: Arc<str>, kind: u8) -> Pair {
        Pair {
            requests: 0,
            first: i64::MAX,
            last: i64::MIN,
            ua,
            kind,
            pending: (kind == PENDING).then(|| {
                Box::new(Pending {
                    looked_at: u64::MAX,
                    ..Pending::default()
                })
            }),
        }
    }

    fn add(&mut self, time: Option<i64>) {
        self.requests += 1;
        if let Some(t) = time {
            self.first = self.first.min(t);
            self.last = self.last.max(t);
        }
    }

    /// Adds the same pair as counted by another worker. The User-Agent
    /// kept is the smaller, so that the report does not depend on which
    /// worker read what.
    pub(crate) fn merge(&mut self, other: Pair) {
        self.requests += other.requests;
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        if other.ua < self.ua {
            self.ua = other.ua;
        }
        if self.kind == PENDING {
            self.kind = other.kind;
        }
        match (&mut self.pending, other.pending) {
            (Some(mine), Some(theirs)) => {
                mine.counts.merge(&theirs.counts);
                for (p, n) in theirs.paths {
                    add_path(mine, &p, n);
                }
                mine.overflow |= theirs.overflow;
                mine.hits.extend(theirs.hits);
            }
            (None, Some(theirs)) => self.pending = Some(theirs),
            _ => {}
        }
    }
}

/// A client the log names by host name, and the claim it made: its verdict
/// is known at once (unverifiable), so it keeps only what the report lists.
#[derive(Debug)]
pub(crate) struct NamedPair {
    pub(crate) claim: u32,
    pub(crate) requests: u64,
    pub(crate) first: i64,
    pub(crate) last: i64,
    pub(crate) ua: Arc<str>,
    pub(crate) kind: u8,
}

impl NamedPair {
    pub(crate) fn merge(&mut self, other: NamedPair) {
        self.requests += other.requests;
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        if other.ua < self.ua {
            self.ua = other.ua;
        }
    }
}

fn add_code(codes: &mut Vec<(u16, u64)>, code: u16, n: u64) {
    match codes.iter_mut().find(|(c, _)| *c == code) {
        Some(e) => e.1 += n,
        None => {
            if codes.is_empty() {
                codes.reserve_exact(1);
            }
            codes.push((code, n));
        }
    }
}

fn add_path(pending: &mut Pending, path: &str, n: u64) {
    if let Some(e) = pending.paths.iter_mut().find(|(p, _)| &**p == path) {
        e.1 += n;
    } else if pending.paths.len() < PENDING_PATHS {
        if pending.paths.is_empty() {
            // Most pairs of a large log make one or two requests.
            pending.paths.reserve_exact(1);
        }
        pending.paths.push((path.into(), n));
    } else {
        pending.overflow = true;
    }
}

/// The totals of one bot under one verdict.
#[derive(Debug, Default)]
pub(crate) struct Row {
    pub(crate) counts: Counts,
    pub(crate) paths: TopK,
    pub(crate) approximate: bool,
}

impl Row {
    pub(crate) fn absorb(&mut self, pending: &Pending) {
        self.counts.merge(&pending.counts);
        for (p, n) in &pending.paths {
            self.paths.add(p, *n);
        }
        self.approximate |= pending.overflow;
    }

    pub(crate) fn merge(&mut self, other: &Row) {
        self.counts.merge(&other.counts);
        self.paths.merge(&other.paths);
        self.approximate |= other.approximate;
    }
}

/// Everything one worker counted.
#[derive(Debug)]
pub(crate) struct Agg {
    pub(crate) pairs: HashMap<(IpAddr, u32), Pair>,
    /// Per host name, the claims made from it.
    pub(crate) named: HashMap<Arc<str>, Vec<NamedPair>>,
    pub(crate) rows: HashMap<(u32, u8), Row>,
    pub(crate) humans: Humans,
    pub(crate) status_codes: BTreeMap<u16, u64>,
    pub(crate) ua_hashes: HashSet<u64>,
    pub(crate) first: i64,
    pub(crate) last: i64,
    pub(crate) requests: u64,
    pub(crate) bytes: u64,
    /// Requests whose client the log gives by host name.
    pub(crate) named_requests: u64,
    /// Requests whose client the log does not give.
    pub(crate) unknown_client_requests: u64,
    /// Signed lines (Web Bot Auth).
    pub(crate) signed: SignedLines,
    /// Registered bots' requests for the join with a crawl.
    pub(crate) join: Option<JoinAgg>,
}

/// Requests that claim no bot.
#[derive(Debug, Default)]
pub(crate) struct Humans {
    pub(crate) requests: u64,
    pub(crate) bytes: u64,
    pub(crate) hist: Hist,
    pub(crate) ips: HashSet<IpAddr>,
    pub(crate) names: HashSet<Box<str>>,
}

impl Default for Agg {
    fn default() -> Agg {
        Agg {
            pairs: HashMap::new(),
            named: HashMap::new(),
            rows: HashMap::new(),
            humans: Humans::default(),
            status_codes: BTreeMap::new(),
            ua_hashes: HashSet::new(),
            first: i64::MAX,
            last: i64::MIN,
            requests: 0,
            bytes: 0,
            named_requests: 0,
            unknown_client_requests: 0,
            signed: SignedLines::default(),
            join: None,
        }
    }
}

impl Agg {
    pub(crate) fn merge(&mut self, other: Agg) {
        for (key, pair) in other.pairs {
            match self.pairs.get_mut(&key) {
                Some(mine) => mine.merge(pair),
                None => {
                    self.pairs.insert(key, pair);
                }
            }
        }
        for (name, pairs) in other.named {
            let mine = self.named.entry(name).or_default();
            for pair in pairs {
                match mine.iter_mut().find(|p| p.claim == pair.claim) {
                    Some(p) => p.merge(pair),
                    None => mine.push(pair),
                }
            }
        }
        for (key, row) in other.rows {
            self.rows.entry(key).or_default().merge(&row);
        }
        self.humans.requests += other.humans.requests;
        self.humans.bytes += other.humans.bytes;
        self.humans.hist.merge(&other.humans.hist);
        self.humans.ips.extend(other.humans.ips);
        self.humans.names.extend(other.humans.names);
        for (code, n) in other.status_codes {
            *self.status_codes.entry(code).or_default() += n;
        }
        self.ua_hashes.extend(other.ua_hashes);
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        self.requests += other.requests;
        self.bytes += other.bytes;
        self.named_requests += other.named_requests;
        self.unknown_client_requests += other.unknown_client_requests;
        self.signed.merge(&other.signed);
        match (&mut self.join, other.join) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (None, theirs) => self.join = theirs,
            _ => {}
        }
    }
}

/// What a User-Agent claims.
#[derive(Debug, Clone, Copy)]
enum UaClass {
    Human,
    Claim(u32),
}

/// A worker's state.
struct Worker<'s> {
    shared: &'s Shared,
    options: &'s AnalyzeOptions,
    agg: Agg,
    /// Classified User-Agents; the key is shared with the pairs that sent
    /// it.
    ua_cache: HashMap<Arc<str>, UaClass>,
    hasher: foldhash::fast::FixedState,
    /// The claims of this worker that are unregistered crawlers, by id.
    unregistered: HashSet<u32>,
    /// Pairs not yet handed to verification.
    batch: Vec<Job>,
    /// Pairs whose verdict this worker has not seen yet.
    pending: Vec<(IpAddr, u32)>,
    /// The count of published verdicts at the last sweep of `pending`.
    swept_at: u64,
    /// Bytes read since the progress counters were last updated.
    unreported_bytes: u64,
    /// Usage preferences' matchers, when the run measures them.
    usage: Option<UsageCache>,
    /// The crawl's view, when the run joins the log with one.
    join: Option<JoinReader>,
}

/// Reads every input on up to `options.threads` threads and merges what
/// they counted. Results are in input order.
pub(crate) fn run_all(
    shared: &Shared,
    inputs: &[Input],
    options: &AnalyzeOptions,
) -> (Vec<InputResult>, Agg) {
    let next = AtomicUsize::new(0);
    let threads = options.threads.clamp(1, inputs.len().max(1));
    let mut results: Vec<Option<InputResult>> = (0..inputs.len()).map(|_| None).collect();
    let mut aggs = Vec::new();
    let caps = Arc::new(JoinCaps::new(options.join_urls));
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .name("botwarden-read".to_owned())
                    .spawn_scoped(scope, || {
                        let mut worker = Worker {
                            shared,
                            options,
                            agg: Agg {
                                join: options.crawl.as_ref().map(|_| JoinAgg::new(caps.clone())),
                                ..Agg::default()
                            },
                            ua_cache: HashMap::new(),
                            hasher: foldhash::fast::FixedState::with_seed(0x6c6f6773),
                            unregistered: HashSet::new(),
                            batch: Vec::new(),
                            pending: Vec::new(),
                            swept_at: 0,
                            unreported_bytes: 0,
                            usage: options.usage.clone().map(UsageCache::new),
                            join: options.crawl.clone().map(JoinReader::new),
                        };
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(input) = inputs.get(i) else { break };
                            let result = worker.input(input);
                            shared.progress.inputs_done.fetch_add(1, Ordering::Relaxed);
                            done.push((i, result));
                        }
                        (done, worker.agg)
                    })
                    .expect("a thread to read inputs")
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok((done, agg)) => {
                    for (i, r) in done {
                        results[i] = Some(r);
                    }
                    aggs.push(agg);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    let mut total = aggs.pop().unwrap_or_default();
    for agg in aggs {
        total.merge(agg);
    }
    (
        results.into_iter().map(Option::unwrap_or_default).collect(),
        total,
    )
}

/// The formats an input is read with.
struct InputFormats {
    /// The input's format, `None` when none was recognised.
    format: Option<LogFormat>,
    /// In auto mode a line the chosen preset cannot read is tried with
    /// the others, so that files mixing formats lose nothing.
    fallbacks: Vec<LogFormat>,
    /// Presets read extra trailing fields, so `common` reads a combined
    /// line without its User-Agent: a common log tries combined first.
    richer: Option<LogFormat>,
    /// Whether a `#Fields:` directive may set the format: in auto mode,
    /// and for a W3C format.
    w3c_ok: bool,
}

impl InputFormats {
    fn new(choice: &FormatChoice, format: Option<LogFormat>) -> InputFormats {
        let fallbacks: Vec<LogFormat> = match choice {
            FormatChoice::Fixed(_) => Vec::new(),
            FormatChoice::Auto => FALLBACKS
                .iter()
                .filter(|n| format.as_ref().is_none_or(|f| f.name() != **n))
                .filter_map(|n| LogFormat::from_spec(n).ok())
                .collect(),
        };
        let richer = match (choice, format.as_ref().map(LogFormat::name)) {
            (FormatChoice::Auto, Some("common")) => LogFormat::from_spec("combined").ok(),
            (FormatChoice::Auto, Some("vhost_common")) => {
                LogFormat::from_spec("vhost_combined").ok()
            }
            _ => None,
        };
        let w3c_ok = match choice {
            FormatChoice::Auto => true,
            FormatChoice::Fixed(f) => f.is_w3c(),
        };
        InputFormats {
            format,
            fallbacks,
            richer,
            w3c_ok,
        }
    }

    /// The formats a line is tried with, in order.
    fn chain(&self) -> FormatChain<'_> {
        FormatChain {
            richer: self.richer.as_ref(),
            primary: self.format.as_ref(),
            fallbacks: &self.fallbacks,
        }
    }
}

/// Whether the file followed was rotated: another file under its name, or
/// one shorter than what was read.
fn rotated(identity: Option<(u64, u64)>, now: Option<(u64, u64)>, consumed: u64) -> bool {
    match (identity, now) {
        (Some((ino, _)), Some((new_ino, len))) => new_ino != ino || len < consumed,
        _ => false,
    }
}

impl Worker<'_> {
    fn input(&mut self, input: &Input) -> InputResult {
        let mut result = InputResult::default();
        let name = input.name();
        let (reader, gzip) = match input.open() {
            Ok(r) => r,
            Err(e) => {
                result.error = Some(format!("cannot open: {e}"));
                result.format = self.format_name();
                return result;
            }
        };
        result.gzip = gzip;
        let follow = self.options.follow && !gzip;
        let mut identity = match input {
            Input::Path(p) if follow => file_identity(p),
            _ => None,
        };
        let mut lines = LineReader::new(reader);
        let mut lineno: u64 = 0;
        let mut reported: u64 = 0;

        let (format, head) = self.pick_format(&mut lines, follow, &mut result);
        result.format = match &format {
            Some(f) => f.name().to_owned(),
            None => "unknown".to_owned(),
        };
        let mut formats = InputFormats::new(&self.options.format, format);
        for l in head {
            lineno += 1;
            if formats.w3c_ok {
                Self::fields_directive(l.as_deref(), &mut formats.format, &mut result);
            }
            self.line(&name, lineno, l.as_deref(), &formats.chain(), &mut result);
        }
        if result.error.is_some() {
            return result;
        }
        loop {
            let line = match lines.next_line_with(!follow) {
                Ok(l) => l,
                Err(e) => {
                    result.error = Some(format!("read error after line {lineno}: {e}"));
                    break;
                }
            };
            match line {
                Some(l) => {
                    lineno += 1;
                    let text = l.text();
                    if formats.w3c_ok && text.is_some_and(|t| t.first() == Some(&b'#')) {
                        Self::fields_directive(text, &mut formats.format, &mut result);
                    }
                    self.line(&name, lineno, text, &formats.chain(), &mut result);
                    if lineno.is_multiple_of(STOP_CHECK) {
                        self.report_progress(lineno, &mut reported);
                        if self.options.stop.load(Ordering::Relaxed) {
                            if !follow {
                                result.error = Some(format!("stopped after line {lineno}"));
                            }
                            break;
                        }
                    }
                }
                None if !follow => break,
                None => {
                    self.report_progress(lineno, &mut reported);
                    if self.options.stop.load(Ordering::Relaxed) {
                        break;
                    }
                    std::thread::sleep(self.options.poll);
                    let Input::Path(path) = input else { continue };
                    let now = file_identity(path);
                    if rotated(identity, now, lines.consumed()) {
                        // Finish the old file, then start on the new one.
                        while let Ok(Some(l)) = lines.next_line_with(true) {
                            lineno += 1;
                            self.line(&name, lineno, l.text(), &formats.chain(), &mut result);
                        }
                        match input.open() {
                            Ok((r, _)) => {
                                lines = LineReader::new(r);
                                identity = now;
                            }
                            Err(_) => continue,
                        }
                    }
                }
            }
        }
        self.report_progress(lineno, &mut reported);
        result
    }

    /// The input's format: the one asked for, or in auto mode the one
    /// its first lines are in; and those first lines, `None` for one too
    /// long to keep.
    fn pick_format<R: std::io::Read>(
        &self,
        lines: &mut LineReader<R>,
        follow: bool,
        result: &mut InputResult,
    ) -> (Option<LogFormat>, Vec<Option<Vec<u8>>>) {
        let mut head: Vec<Option<Vec<u8>>> = Vec::new();
        let format = match &self.options.format {
            FormatChoice::Fixed(f) => Some(f.clone()),
            FormatChoice::Auto => {
                loop {
                    if head.len() >= DETECT_LINES {
                        break;
                    }
                    match lines.next_line_with(!follow) {
                        Ok(Some(Line::Text(t))) => head.push(Some(t.to_vec())),
                        Ok(Some(Line::TooLong)) => head.push(None),
                        Ok(None) => break,
                        Err(e) => {
                            result.error = Some(format!("read error: {e}"));
                            break;
                        }
                    }
                }
                let texts: Vec<Cow<'_, str>> = head
                    .iter()
                    .flatten()
                    .map(|l| String::from_utf8_lossy(l))
                    .collect();
                let sample: Vec<&str> = texts
                    .iter()
                    .map(|t| t.as_ref())
                    .filter(|t| !t.trim().is_empty())
                    .collect();
                // A W3C extended log says what its fields are.
                match sample.iter().find_map(|l| LogFormat::w3c_fields(l)) {
                    Some(Ok(w3c)) => Some(w3c),
                    _ => LogFormat::detect(&sample),
                }
            }
        };
        (format, head)
    }

    /// A W3C `#Fields:` directive sets the format of the lines after it
    /// (IIS writes one at each start, and the fields may change). The
    /// input's format is named after the first. A directive without a
    /// client field changes nothing (the lines after it fail as they do).
    fn fields_directive(
        text: Option<&[u8]>,
        format: &mut Option<LogFormat>,
        result: &mut InputResult,
    ) {
        let Some(text) = text.and_then(|t| std::str::from_utf8(t).ok()) else {
            return;
        };
        if let Some(Ok(w3c)) = LogFormat::w3c_fields(text)
            && format.as_ref().is_none_or(|f| f.name() != w3c.name())
        {
            if !result.format.starts_with("w3c:") {
                result.format = w3c.name().to_owned();
            }
            *format = Some(w3c);
        }
    }

    fn format_name(&self) -> String {
        match &self.options.format {
            FormatChoice::Fixed(f) => f.name().to_owned(),
            FormatChoice::Auto => "unknown".to_owned(),
        }
    }

    fn report_progress(&mut self, lineno: u64, reported: &mut u64) {
        self.shared.submit(&mut self.batch);
        self.sweep();
        let p = &self.shared.progress;
        p.lines.fetch_add(lineno - *reported, Ordering::Relaxed);
        p.bytes.fetch_add(
            std::mem::take(&mut self.unreported_bytes),
            Ordering::Relaxed,
        );
        *reported = lineno;
    }

    /// Folds the pending requests of every pair whose verdict has arrived
    /// into that verdict's row, so that pairs seen once do not hold their
    /// pending record to the end.
    fn sweep(&mut self) {
        let published = self.shared.progress.verdicts.load(Ordering::Relaxed);
        if published == self.swept_at {
            return;
        }
        self.swept_at = published;
        let shared = self.shared;
        let agg = &mut self.agg;
        self.pending.retain(|&(ip, claim)| {
            let Some(pair) = agg.pairs.get_mut(&(ip, claim)) else {
                return false;
            };
            if pair.kind != PENDING {
                return false;
            }
            let Some(kind) = shared.verdict(ip, claim) else {
                return true;
            };
            settle(pair, kind, &mut agg.rows, agg.join.as_mut(), (ip, claim));
            false
        });
        self.pending.shrink_to(self.pending.len() * 2);
    }

    /// Accounts for one line (`None`: too long to keep).
    fn line(
        &mut self,
        name: &str,
        lineno: u64,
        bytes: Option<&[u8]>,
        formats: &FormatChain<'_>,
        result: &mut InputResult,
    ) {
        result.counts.read += 1;
        self.unreported_bytes += bytes.map_or(0, |b| b.len() as u64 + 1);
        let Some(bytes) = bytes else {
            self.fail(result, name, lineno, None, "line-too-long", b"");
            return;
        };
        let text: Cow<'_, str> = match std::str::from_utf8(bytes) {
            Ok(t) => Cow::Borrowed(t),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        match formats.read(&text) {
            ChainRead::Parsed(record) => {
                result.counts.parsed += 1;
                result.counts.truncated += u64::from(record.truncated);
                self.record(&record);
            }
            ChainRead::Skipped(e) => self.skip(result, e.reason.as_str()),
            ChainRead::Failed(Some(e)) => self.fail(
                result,
                name,
                lineno,
                Some(e.column),
                e.reason.as_str(),
                bytes,
            ),
            ChainRead::Failed(None) => {
                self.fail(result, name, lineno, None, "unknown-format", bytes);
            }
        }
    }

    fn skip(&mut self, result: &mut InputResult, reason: &str) {
        result.counts.skipped += 1;
        bump(&mut result.counts.skip_reasons, reason);
    }

    fn fail(
        &mut self,
        result: &mut InputResult,
        name: &str,
        lineno: u64,
        column: Option<u32>,
        reason: &str,
        bytes: &[u8],
    ) {
        result.counts.failed += 1;
        let n = bump(&mut result.counts.fail_reasons, reason);
        if n <= self.options.samples_per_reason as u64 {
            result.samples.push(BadLine {
                file: name.to_owned(),
                line: lineno,
                column,
                reason: reason.to_owned(),
                text: sample_text(bytes),
            });
        }
    }

    /// The client of a record: the peer, or when the peer is a trusted
    /// proxy, the right-most forwarded address that is not one. An
    /// IPv4-mapped IPv6 address is its IPv4 address.
    fn client<'r>(&self, record: &Record<'r>) -> Client<'r> {
        let Client::Addr(peer) = record.remote else {
            return record.remote;
        };
        let peer = normalize(peer);
        let proxies = &self.options.trusted_proxies;
        if proxies.is_empty() || !proxies.iter().any(|c| c.contains(peer)) {
            return Client::Addr(peer);
        }
        let Some(xff) = record.forwarded_for else {
            return Client::Addr(peer);
        };
        let mut client = peer;
        for part in xff.rsplit(',') {
            let Some(ip) = forwarded_address(part.trim()) else {
                break;
            };
            client = normalize(ip);
            if !proxies.iter().any(|c| c.contains(client)) {
                break;
            }
        }
        Client::Addr(client)
    }

    /// The class of a User-Agent, and the shared copy of it that pairs keep.
    fn classify(&mut self, ua: &str) -> (UaClass, Arc<str>) {
        if let Some((text, &c)) = self.ua_cache.get_key_value(ua) {
            return (c, text.clone());
        }
        self.agg.ua_hashes.insert(self.hasher.hash_one(ua));
        let class = match Claim::of(&self.shared.classifier, ua) {
            Claim::Bot { name, category } => {
                UaClass::Claim(self.shared.claim(&name, category.as_deref(), true))
            }
            Claim::Unregistered { name, category } => {
                let id = self.shared.claim(&name, Some(&category), false);
                self.unregistered.insert(id);
                UaClass::Claim(id)
            }
            Claim::NotABot => UaClass::Human,
        };
        let text: Arc<str> = ua.into();
        if self.ua_cache.len() < UA_CACHE {
            self.ua_cache.insert(text.clone(), class);
        }
        (class, text)
    }

    fn record(&mut self, record: &Record<'_>) {
        let client = self.client(record);
        let agg = &mut self.agg;
        agg.requests += 1;
        agg.bytes += record.bytes;
        if let Some(code) = record.status {
            *agg.status_codes.entry(code).or_default() += 1;
        }
        let time = record.time.map(|t| t.unix);
        if let Some(t) = time {
            agg.first = agg.first.min(t);
            agg.last = agg.last.max(t);
        }
        match client {
            Client::Name(_) => agg.named_requests += 1,
            Client::Unknown => agg.unknown_client_requests += 1,
            Client::Addr(_) => {}
        }
        let (class, ua) = match record.user_agent {
            Some(ua) => self.classify(ua),
            None => (UaClass::Human, Arc::from("")),
        };
        let UaClass::Claim(claim) = class else {
            let h = &mut self.agg.humans;
            h.requests += 1;
            h.bytes += record.bytes;
            if let Some(t) = time {
                h.hist.add(t, 1);
            }
            match client {
                Client::Addr(ip) => {
                    h.ips.insert(ip);
                }
                Client::Name(name) => {
                    if !h.names.contains(name) {
                        h.names.insert(name.into());
                    }
                }
                Client::Unknown => {}
            }
            return;
        };
        let standing = self.usage_standing(claim, record);
        let hit = self.join_hit(claim, record);
        if record.signature.is_signed() {
            let info = self.shared.claim_info(claim);
            if let Some(verdict) =
                super::signed::check(self.shared, &info, record, &mut self.agg.signed)
            {
                // The signature decides: counted under its verdict, the
                // address not asked.
                let row = self
                    .agg
                    .rows
                    .entry((claim, kind_index(&verdict)))
                    .or_default();
                row.counts.add(record, time, standing);
                if let Some(path) = record.path {
                    row.paths.add(path, 1);
                }
                if let (Some(join), Some(hit)) = (&mut self.agg.join, hit) {
                    join.add(kind_index(&verdict), claim, client.ip(), &hit);
                }
                return;
            }
        }
        match client {
            Client::Addr(ip) => self.claimed(ip, claim, ua, record, time, (standing, hit)),
            Client::Name(name) => self.named(name, claim, ua, record, time, (standing, hit)),
            // Nothing to verify: unverifiable, and no client to count.
            Client::Unknown => {
                if let (Some(join), Some(hit)) = (&mut self.agg.join, hit) {
                    join.add(UNVERIFIABLE, claim, None, &hit);
                }
                let row = self.agg.rows.entry((claim, UNVERIFIABLE)).or_default();
                row.counts.add(record, time, standing);
                if let Some(path) = record.path {
                    row.paths.add(path, 1);
                }
            }
        }
    }

    /// The usage standing of a request of `claim` (0 when the run does not
    /// measure preferences, or the request has no path).
    fn usage_standing(&mut self, claim: u32, record: &Record<'_>) -> u8 {
        let (Some(cache), Some(path)) = (&mut self.usage, record.path) else {
            return 0;
        };
        let shared = self.shared;
        cache.standing(
            claim,
            || {
                let info = shared.claim_info(claim);
                let tokens = shared
                    .verifier
                    .registry()
                    .find(&info.name)
                    .map(|b| b.robots_tokens.clone())
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| vec![info.name.to_string()]);
                (tokens, info.category)
            },
            path,
        )
    }

    /// A registered bot's request as the join with a crawl keeps it
    /// (`None` when the run joins none, or for an unregistered crawler).
    fn join_hit(&mut self, claim: u32, record: &Record<'_>) -> Option<Hit> {
        let join = self.join.as_mut()?;
        if self.unregistered.contains(&claim) {
            return None;
        }
        let shared = self.shared;
        Some(join.hit(claim, record, || {
            let info = shared.claim_info(claim);
            let bot = shared.verifier.registry().find(&info.name);
            let tokens = bot
                .map(|b| b.robots_tokens.clone())
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| vec![info.name.to_string()]);
            (tokens, bot.and_then(|b| b.operator.clone()))
        }))
    }

    /// Waits for the verdict of one pair whose pending requests for the
    /// join are full, and settles it (or returns when the run is stopped).
    fn wait_for_pair(&mut self, ip: IpAddr, claim: u32) {
        self.shared.submit(&mut self.batch);
        loop {
            if let Some(kind) = self.shared.verdict(ip, claim) {
                if let Some(pair) = self.agg.pairs.get_mut(&(ip, claim)) {
                    settle(
                        pair,
                        kind,
                        &mut self.agg.rows,
                        self.agg.join.as_mut(),
                        (ip, claim),
                    );
                }
                return;
            }
            if self.options.stop.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// A request from an address that claims a bot.
    fn claimed(
        &mut self,
        ip: IpAddr,
        claim: u32,
        ua: Arc<str>,
        record: &Record<'_>,
        time: Option<i64>,
        (standing, hit): (u8, Option<Hit>),
    ) {
        if self.pending.len() >= PENDING_PAIRS {
            self.wait_for_verdicts();
        }
        let shared = self.shared;
        let pair = match self.agg.pairs.entry((ip, claim)) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                if self.unregistered.contains(&claim) {
                    // Known at once: an unregistered crawler cannot be
                    // verified.
                    if shared.verdict(ip, claim).is_none() {
                        let name = shared.claim_info(claim);
                        shared.publish(ip, claim, &unregistered_verdict(&name));
                    }
                    v.insert(Pair::new(ua, UNVERIFIABLE))
                } else {
                    self.batch.push(Job {
                        ip,
                        claim,
                        as_of: time,
                    });
                    if self.batch.len() >= 64 {
                        shared.submit(&mut self.batch);
                    }
                    self.pending.push((ip, claim));
                    v.insert(Pair::new(ua, PENDING))
                }
            }
        };
        pair.add(time);
        if pair.kind == PENDING
            && let Some(pending) = &mut pair.pending
        {
            let published = shared.progress.verdicts.load(Ordering::Relaxed);
            if pending.looked_at != published {
                pending.looked_at = published;
                if let Some(kind) = shared.verdict(ip, claim) {
                    settle(
                        pair,
                        kind,
                        &mut self.agg.rows,
                        self.agg.join.as_mut(),
                        (ip, claim),
                    );
                }
            }
        }
        let full = hit.is_some()
            && pair.kind == PENDING
            && pair
                .pending
                .as_ref()
                .is_some_and(|p| p.hits.len() >= PENDING_HITS);
        if full {
            self.wait_for_pair(ip, claim);
        }
        let Some(pair) = self.agg.pairs.get_mut(&(ip, claim)) else {
            return;
        };
        match &mut pair.pending {
            Some(pending) if pair.kind == PENDING => {
                pending.counts.add(record, time, standing);
                if let Some(path) = record.path {
                    add_path(pending, path, 1);
                }
                if let Some(hit) = hit {
                    if pending.hits.is_empty() {
                        pending.hits.reserve_exact(1);
                    }
                    pending.hits.push(hit);
                }
            }
            _ => {
                let row = self.agg.rows.entry((claim, pair.kind)).or_default();
                row.counts.add(record, time, standing);
                if let Some(path) = record.path {
                    row.paths.add(path, 1);
                }
                if let (Some(join), Some(hit)) = (&mut self.agg.join, hit) {
                    join.add(pair.kind, claim, Some(ip), &hit);
                }
            }
        }
    }

    /// Waits until at most half of [`PENDING_PAIRS`] pairs of this worker
    /// wait for their verdict (or the run is stopped): what a pending pair
    /// keeps aside is bounded by this, however fast lines come and however
    /// slow DNS answers.
    fn wait_for_verdicts(&mut self) {
        self.shared.submit(&mut self.batch);
        loop {
            self.sweep();
            if self.pending.len() <= PENDING_PAIRS / 2 || self.options.stop.load(Ordering::Relaxed)
            {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// A request from a client the log names by host name, claiming a bot:
    /// unverifiable, counted at once.
    fn named(
        &mut self,
        name: &str,
        claim: u32,
        ua: Arc<str>,
        record: &Record<'_>,
        time: Option<i64>,
        (standing, hit): (u8, Option<Hit>),
    ) {
        if let (Some(join), Some(hit)) = (&mut self.agg.join, hit) {
            join.add(UNVERIFIABLE, claim, None, &hit);
        }
        let pairs = match self.agg.named.get_mut(name) {
            Some(pairs) => pairs,
            None => self.agg.named.entry(Arc::from(name)).or_default(),
        };
        let at = match pairs.iter().position(|p| p.claim == claim) {
            Some(at) => at,
            None => {
                pairs.push(NamedPair {
                    claim,
                    requests: 0,
                    first: i64::MAX,
                    last: i64::MIN,
                    ua,
                    kind: UNVERIFIABLE,
                });
                pairs.len() - 1
            }
        };
        let pair = &mut pairs[at];
        pair.requests += 1;
        if let Some(t) = time {
            pair.first = pair.first.min(t);
            pair.last = pair.last.max(t);
        }
        let row = self.agg.rows.entry((claim, pair.kind)).or_default();
        row.counts.add(record, time, standing);
        if let Some(path) = record.path {
            row.paths.add(path, 1);
        }
    }
}

/// The index of `unverifiable` in [`KINDS`].
pub(crate) const UNVERIFIABLE: u8 = 3;

/// The verdict on any address claiming an unregistered crawler.
pub(crate) fn unregistered_verdict(claim: &ClaimInfo) -> Verdict {
    Verdict::unregistered(&claim.name, claim.category.as_deref())
}

/// Gives a pending pair its verdict's kind and moves what it kept aside
/// into that bot and verdict's row.
pub(crate) fn settle(
    pair: &mut Pair,
    kind: u8,
    rows: &mut HashMap<(u32, u8), Row>,
    join: Option<&mut JoinAgg>,
    (ip, claim): (IpAddr, u32),
) {
    pair.kind = kind;
    if let Some(mut pending) = pair.pending.take() {
        rows.entry((claim, kind)).or_default().absorb(&pending);
        if let Some(join) = join {
            for hit in pending.hits.drain(..) {
                join.add(kind, claim, Some(ip), &hit);
            }
        }
    }
}

/// An address in an `X-Forwarded-For` list, read as the client address
/// fields are (a port, brackets or a zone allowed).
fn forwarded_address(text: &str) -> Option<IpAddr> {
    crate::format::client_address(text)
}

fn bump(map: &mut BTreeMap<String, u64>, reason: &str) -> u64 {
    match map.get_mut(reason) {
        Some(n) => {
            *n += 1;
            *n
        }
        None => {
            map.insert(reason.to_owned(), 1);
            1
        }
    }
}

/// A bad line as a sample: at most 300 bytes, invalid UTF-8 replaced.
fn sample_text(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(300)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if s.ends_with('\r') {
        s.pop();
    }
    s
}

/// A file's inode and length, to notice rotation while following.
fn file_identity(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.ino(), m.len()))
}
