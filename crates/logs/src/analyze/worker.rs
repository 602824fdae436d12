//! One worker: reads inputs, parses and classifies lines, keeps counters.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use botwarden_verify::Verdict;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::hist::Hist;
use super::topk::TopK;
use super::{FormatChoice, Job, Options, PENDING_PATHS, Shared};
use crate::format::LogFormat;
use crate::input::{Input, Line, LineReader};
use crate::record::Record;
use crate::report::model::{BadLine, LineCounts};

/// Distinct User-Agents remembered per worker with their classification;
/// past this, User-Agents are classified through the classifier's own
/// cache.
const UA_CACHE: usize = 200_000;

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

/// The formats a worker reads an input with.
struct Formats<'f> {
    richer: Option<&'f LogFormat>,
    primary: Option<&'f LogFormat>,
    fallbacks: &'f [LogFormat],
}

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

/// Requests of a pair whose verdict is not known yet.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    pub(crate) hist: Hist,
    pub(crate) paths: Vec<(Box<str>, u64)>,
    pub(crate) overflow: bool,
}

/// Counters of one (address, claim) pair.
#[derive(Debug)]
pub(crate) struct Pair {
    pub(crate) requests: u64,
    pub(crate) bytes: u64,
    pub(crate) status: [u64; 5],
    pub(crate) first: i64,
    pub(crate) last: i64,
    pub(crate) robots: u64,
    pub(crate) robots_status: Vec<(u16, u64)>,
    pub(crate) ua: Box<str>,
    pub(crate) kind: Option<u8>,
    pub(crate) pending: Option<Box<Pending>>,
    /// The count of published verdicts when this pending pair last looked
    /// for its own; it looks again only when that count has moved.
    pub(crate) looked_at: u64,
}

impl Pair {
    fn new(ua: &str) -> Pair {
        Pair {
            requests: 0,
            bytes: 0,
            status: [0; 5],
            first: i64::MAX,
            last: i64::MIN,
            robots: 0,
            robots_status: Vec::new(),
            ua: ua.into(),
            kind: None,
            pending: Some(Box::default()),
            looked_at: u64::MAX,
        }
    }

    pub(crate) fn merge(&mut self, other: Pair) {
        self.requests += other.requests;
        self.bytes += other.bytes;
        for i in 0..5 {
            self.status[i] += other.status[i];
        }
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        self.robots += other.robots;
        for (code, n) in other.robots_status {
            add_code(&mut self.robots_status, code, n);
        }
        if self.kind.is_none() {
            self.kind = other.kind;
        }
        match (&mut self.pending, other.pending) {
            (Some(mine), Some(theirs)) => {
                mine.hist.merge(&theirs.hist);
                for (p, n) in theirs.paths {
                    add_path(mine, &p, n);
                }
                mine.overflow |= theirs.overflow;
            }
            (None, Some(theirs)) => self.pending = Some(theirs),
            _ => {}
        }
    }
}

fn add_code(codes: &mut Vec<(u16, u64)>, code: u16, n: u64) {
    match codes.iter_mut().find(|(c, _)| *c == code) {
        Some(e) => e.1 += n,
        None => codes.push((code, n)),
    }
}

fn add_path(pending: &mut Pending, path: &str, n: u64) {
    if let Some(e) = pending.paths.iter_mut().find(|(p, _)| &**p == path) {
        e.1 += n;
    } else if pending.paths.len() < PENDING_PATHS {
        pending.paths.push((path.into(), n));
    } else {
        pending.overflow = true;
    }
}

/// Totals for one bot under one verdict that do not add up from pairs.
#[derive(Debug, Default)]
pub(crate) struct Row {
    pub(crate) hist: Hist,
    pub(crate) paths: TopK,
    pub(crate) approximate: bool,
}

impl Row {
    pub(crate) fn absorb(&mut self, pending: &Pending) {
        self.hist.merge(&pending.hist);
        for (p, n) in &pending.paths {
            self.paths.add(p, *n);
        }
        self.approximate |= pending.overflow;
    }
}

/// Everything one worker counted.
#[derive(Debug)]
pub(crate) struct Agg {
    pub(crate) pairs: HashMap<(IpAddr, u32), Pair>,
    pub(crate) rows: HashMap<(u32, u8), Row>,
    pub(crate) humans: Humans,
    pub(crate) status_codes: BTreeMap<u16, u64>,
    pub(crate) ua_hashes: HashSet<u64>,
    pub(crate) first: i64,
    pub(crate) last: i64,
    pub(crate) requests: u64,
    pub(crate) bytes: u64,
}

/// Requests that claim no bot.
#[derive(Debug, Default)]
pub(crate) struct Humans {
    pub(crate) requests: u64,
    pub(crate) bytes: u64,
    pub(crate) hist: Hist,
    pub(crate) ips: HashSet<IpAddr>,
}

impl Default for Agg {
    fn default() -> Agg {
        Agg {
            pairs: HashMap::new(),
            rows: HashMap::new(),
            humans: Humans::default(),
            status_codes: BTreeMap::new(),
            ua_hashes: HashSet::new(),
            first: i64::MAX,
            last: i64::MIN,
            requests: 0,
            bytes: 0,
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
        for (key, row) in other.rows {
            let mine = self.rows.entry(key).or_default();
            mine.hist.merge(&row.hist);
            mine.paths.merge(&row.paths);
            mine.approximate |= row.approximate;
        }
        self.humans.requests += other.humans.requests;
        self.humans.bytes += other.humans.bytes;
        self.humans.hist.merge(&other.humans.hist);
        self.humans.ips.extend(other.humans.ips);
        for (code, n) in other.status_codes {
            *self.status_codes.entry(code).or_default() += n;
        }
        self.ua_hashes.extend(other.ua_hashes);
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        self.requests += other.requests;
        self.bytes += other.bytes;
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
    options: &'s Options,
    agg: Agg,
    ua_cache: HashMap<Box<str>, UaClass>,
    hasher: foldhash::fast::FixedState,
    /// The claims of this worker that are unregistered crawlers, by id,
    /// with their ready verdict.
    unregistered: HashMap<u32, Arc<Verdict>>,
    /// Pairs not yet handed to verification.
    batch: Vec<Job>,
    /// Pairs whose verdict this worker has not seen yet.
    pending: Vec<(IpAddr, u32)>,
    /// The count of published verdicts at the last sweep of `pending`.
    swept_at: u64,
    /// Bytes read since the progress counters were last updated.
    unreported_bytes: u64,
}

/// Reads every input on up to `options.threads` threads and merges what
/// they counted. Results are in input order.
pub(crate) fn run_all(
    shared: &Shared,
    inputs: &[Input],
    options: &Options,
) -> (Vec<InputResult>, Agg) {
    let next = AtomicUsize::new(0);
    let threads = options.threads.clamp(1, inputs.len().max(1));
    let mut results: Vec<Option<InputResult>> = (0..inputs.len()).map(|_| None).collect();
    let mut aggs = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .name("botwarden-read".to_owned())
                    .spawn_scoped(scope, || {
                        let mut worker = Worker {
                            shared,
                            options,
                            agg: Agg::default(),
                            ua_cache: HashMap::new(),
                            hasher: foldhash::fast::FixedState::with_seed(0x6c6f6773),
                            unregistered: HashMap::new(),
                            batch: Vec::new(),
                            pending: Vec::new(),
                            swept_at: 0,
                            unreported_bytes: 0,
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

        // Pick the format.
        let mut head: Vec<Vec<u8>> = Vec::new();
        let format = match &self.options.format {
            FormatChoice::Fixed(f) => Some(f.clone()),
            FormatChoice::Auto => {
                loop {
                    if head.len() >= DETECT_LINES {
                        break;
                    }
                    match lines.next_line_with(!follow) {
                        Ok(Some(Line::Text(t))) => head.push(t.to_vec()),
                        Ok(Some(Line::TooLong)) => head.push(Vec::new()),
                        Ok(None) => break,
                        Err(e) => {
                            result.error = Some(format!("read error: {e}"));
                            break;
                        }
                    }
                }
                let texts: Vec<Cow<'_, str>> =
                    head.iter().map(|l| String::from_utf8_lossy(l)).collect();
                let sample: Vec<&str> = texts
                    .iter()
                    .map(|t| t.as_ref())
                    .filter(|t| !t.trim().is_empty())
                    .collect();
                LogFormat::detect(&sample)
            }
        };
        result.format = match &format {
            Some(f) => f.name().to_owned(),
            None => "unknown".to_owned(),
        };
        // In auto mode a line the chosen preset cannot read is tried with
        // the others, so that files mixing formats lose nothing.
        let fallbacks: Vec<LogFormat> = match &self.options.format {
            FormatChoice::Fixed(_) => Vec::new(),
            FormatChoice::Auto => FALLBACKS
                .iter()
                .filter(|n| format.as_ref().is_none_or(|f| f.name() != **n))
                .filter_map(|n| LogFormat::from_spec(n).ok())
                .collect(),
        };
        // Presets read extra trailing fields, so `common` reads a combined
        // line without its User-Agent: a common log tries combined first.
        let richer = match (&self.options.format, format.as_ref().map(LogFormat::name)) {
            (FormatChoice::Auto, Some("common")) => LogFormat::from_spec("combined").ok(),
            (FormatChoice::Auto, Some("vhost_common")) => {
                LogFormat::from_spec("vhost_combined").ok()
            }
            _ => None,
        };
        let formats = Formats {
            richer: richer.as_ref(),
            primary: format.as_ref(),
            fallbacks: &fallbacks,
        };
        for l in std::mem::take(&mut head) {
            lineno += 1;
            self.line(&name, lineno, Some(&l), &formats, &mut result);
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
                    self.line(&name, lineno, text, &formats, &mut result);
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
                    let rotated = match (identity, now) {
                        (Some((ino, _)), Some((new_ino, len))) => {
                            new_ino != ino || len < lines.consumed()
                        }
                        _ => false,
                    };
                    if rotated {
                        // Finish the old file, then start on the new one.
                        while let Ok(Some(l)) = lines.next_line_with(true) {
                            lineno += 1;
                            let text = l.text();
                            self.line(&name, lineno, text, &formats, &mut result);
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
            if pair.kind.is_some() {
                return false;
            }
            let Some(v) = shared.verdict(ip, claim) else {
                return true;
            };
            let kind = kind_index(&v);
            pair.kind = Some(kind);
            if let Some(pending) = pair.pending.take() {
                agg.rows.entry((claim, kind)).or_default().absorb(&pending);
            }
            false
        });
    }

    /// Accounts for one line (`None`: too long to keep).
    fn line(
        &mut self,
        name: &str,
        lineno: u64,
        bytes: Option<&[u8]>,
        formats: &Formats<'_>,
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
        if let Some(format) = formats.richer
            && let Ok(record) = format.parse(&text)
        {
            result.counts.parsed += 1;
            self.record(&record);
            return;
        }
        let first = match formats.primary {
            Some(format) => match format.parse(&text) {
                Ok(record) => {
                    result.counts.parsed += 1;
                    self.record(&record);
                    return;
                }
                Err(e) if e.skipped() => {
                    self.skip(result, e.reason.as_str());
                    return;
                }
                Err(e) => Some(e),
            },
            None => None,
        };
        for format in formats.fallbacks {
            match format.parse(&text) {
                Ok(record) => {
                    result.counts.parsed += 1;
                    self.record(&record);
                    return;
                }
                Err(e) if e.skipped() => {
                    self.skip(result, e.reason.as_str());
                    return;
                }
                Err(_) => {}
            }
        }
        match first {
            Some(e) => self.fail(
                result,
                name,
                lineno,
                Some(e.column),
                e.reason.as_str(),
                bytes,
            ),
            None => self.fail(result, name, lineno, None, "unknown-format", bytes),
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

    /// The client address of a record: the peer, or when the peer is a
    /// trusted proxy, the right-most forwarded address that is not one.
    fn client(&self, record: &Record<'_>) -> IpAddr {
        let proxies = &self.options.trusted_proxies;
        if proxies.is_empty() || !proxies.iter().any(|c| c.contains(record.remote)) {
            return record.remote;
        }
        let Some(xff) = record.forwarded_for else {
            return record.remote;
        };
        let mut client = record.remote;
        for part in xff.rsplit(',') {
            let Ok(ip) = part.trim().parse::<IpAddr>() else {
                break;
            };
            client = ip;
            if !proxies.iter().any(|c| c.contains(ip)) {
                break;
            }
        }
        client
    }

    fn classify(&mut self, ua: &str) -> UaClass {
        if let Some(&c) = self.ua_cache.get(ua) {
            return c;
        }
        self.agg.ua_hashes.insert(self.hasher.hash_one(ua));
        let classifier = &self.shared.classifier;
        let c = classifier.classify(ua);
        let class = if let Some(bot) = c.bot {
            UaClass::Claim(self.shared.claim(bot.name, c.category, true))
        } else if c.is_bot() {
            let category = c.category.unwrap_or("crawler");
            let family = classifier.client_name(ua);
            let name = family.as_deref().unwrap_or(category);
            let id = self.shared.claim(name, Some(category), false);
            self.unregistered.entry(id).or_insert_with(|| {
                Arc::new(Verdict::Unverifiable {
                    bot: name.to_owned(),
                    reason: format!("a {category} the registry does not know"),
                })
            });
            UaClass::Claim(id)
        } else {
            UaClass::Human
        };
        if self.ua_cache.len() < UA_CACHE {
            self.ua_cache.insert(ua.into(), class);
        }
        class
    }

    fn record(&mut self, record: &Record<'_>) {
        let ip = self.client(record);
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
        let class = match record.user_agent {
            Some(ua) => self.classify(ua),
            None => UaClass::Human,
        };
        let UaClass::Claim(claim) = class else {
            let h = &mut self.agg.humans;
            h.requests += 1;
            h.bytes += record.bytes;
            if let Some(t) = time {
                h.hist.add(t, 1);
            }
            h.ips.insert(ip);
            return;
        };
        let shared = self.shared;
        let unregistered = &self.unregistered;
        let pair = match self.agg.pairs.entry((ip, claim)) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                if let Some(verdict) = unregistered.get(&claim) {
                    if shared.verdict(ip, claim).is_none() {
                        shared.publish(ip, claim, verdict.clone());
                    }
                } else {
                    self.batch.push(Job {
                        ip,
                        claim,
                        name: shared.claim_info(claim).name,
                    });
                    if self.batch.len() >= 64 {
                        shared.submit(&mut self.batch);
                    }
                }
                self.pending.push((ip, claim));
                v.insert(Pair::new(record.user_agent.unwrap_or("")))
            }
        };
        pair.requests += 1;
        pair.bytes += record.bytes;
        pair.status[status_class(record.status)] += 1;
        if let Some(t) = time {
            pair.first = pair.first.min(t);
            pair.last = pair.last.max(t);
        }
        let path = record.path.unwrap_or("");
        if path == "/robots.txt" || path.starts_with("/robots.txt?") {
            pair.robots += 1;
            if let Some(code) = record.status {
                add_code(&mut pair.robots_status, code, 1);
            }
        }
        if pair.kind.is_none()
            && pair.looked_at
                != std::mem::replace(
                    &mut pair.looked_at,
                    shared.progress.verdicts.load(Ordering::Relaxed),
                )
            && let Some(v) = shared.verdict(ip, claim)
        {
            let kind = kind_index(&v);
            pair.kind = Some(kind);
            if let Some(pending) = pair.pending.take() {
                self.agg
                    .rows
                    .entry((claim, kind))
                    .or_default()
                    .absorb(&pending);
            }
        }
        match pair.kind {
            Some(kind) => {
                let row = self.agg.rows.entry((claim, kind)).or_default();
                if let Some(t) = time {
                    row.hist.add(t, 1);
                }
                if record.path.is_some() {
                    row.paths.add(path, 1);
                }
            }
            None => {
                let pending = pair.pending.get_or_insert_with(Box::default);
                if let Some(t) = time {
                    pending.hist.add(t, 1);
                }
                if record.path.is_some() {
                    add_path(pending, path, 1);
                }
            }
        }
    }
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
