//! Benchmarks of the robots.txt engine, side by side with two peer crates
//! from crates.io on identical input: `texting_robots` and `robotstxt` (a
//! port of Google's C++ library).
//!
//! Run it with `scripts/bench-robots` (which fetches the Protego corpus
//! first); BENCHMARKS.md at the repository root has the figures and how to
//! read them.
//!
//! Inputs, from environment variables with defaults beside the workspace:
//! - `BOTWARDEN_SHARED`: the shared folder (default `<workspace>/../shared`);
//!   every file of `corpus/robots/` and `corpus/robots-tricky/` is read.
//! - `BOTWARDEN_PROTEGO_CORPUS`: the `tests/test_data` folder of Protego's
//!   source archive (default
//!   `<workspace>/target/protego-corpus/protego-0.7.0/tests/test_data`).
//!
//! Groups:
//! 1. `parse`: the whole corpus per iteration, bytes per second.
//! 2. `answer`: one allow/deny answer on a compiled file, over a fixed set
//!    of (file, URL) pairs; time per answer.
//! 3. memory of a compiled file: measured once at start with a counting
//!    global allocator and printed (not a criterion measurement).
//! 4. `hostile_answer` and `synthetic_parse`: 2,000-wildcard rules against
//!    a 6 KB URL, and 1 MB / 10 MB synthetic files.
//!
//! At the end a table of medians is printed and written to
//! `target/bench-robots-summary.md`.

#![allow(clippy::print_stderr, clippy::print_stdout, missing_docs)]

use std::alloc::System;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use botwarden_robots::{Matcher, Profile, Reason, Robots, RobotsTxt, TokenChain};
use criterion::{Criterion, SamplingMode, Throughput};
use robotstxt::DefaultMatcher;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

mod support;

use support::{
    AGENT, Doc, GENERIC_PATHS, HOST, fmt_time, load_corpus, path_from_pattern, percentile,
    workspace,
};

/// Counts every allocation, so the memory of a compiled file is measured,
/// not estimated. The counters are atomic adds: every contender pays them.
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// URLs built from each file's own rules (at most this many per file).
const URLS_FROM_RULES: usize = 8;
/// robotstxt re-parses the file for every answer: it answers one pair in
/// this many, so that it does not dominate the run.
const ROBOTSTXT_SUBSET: usize = 16;

// ---------------------------------------------------------------- peers

/// robotstxt's answer, or `None` if it panicked.
fn robotstxt_allowed(text: &str, url: &str) -> Option<bool> {
    catch_unwind(AssertUnwindSafe(|| {
        DefaultMatcher::default().one_agent_allowed_by_robots(text, AGENT, url)
    }))
    .ok()
}

fn quiet_panics<T>(f: impl FnOnce() -> T) -> T {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = f();
    std::panic::set_hook(hook);
    out
}

// ---------------------------------------------------------------- URLs

/// The URLs asked of one file: paths from up to [`URLS_FROM_RULES`] of its
/// rules (spread over the file) and the generic ones.
fn urls_for(robots: &Robots) -> Vec<String> {
    let mut patterns: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for g in robots.groups() {
        for r in g.rules() {
            if !r.derived && !r.pattern.is_empty() && seen.insert(r.pattern.to_string()) {
                patterns.push(r.pattern.into_owned());
            }
        }
    }
    let step = patterns.len().div_ceil(URLS_FROM_RULES).max(1);
    let mut urls: Vec<String> = patterns
        .iter()
        .step_by(step)
        .enumerate()
        .map(|(k, p)| format!("{HOST}{}", path_from_pattern(p, k)))
        .collect();
    urls.extend(GENERIC_PATHS.iter().map(|p| format!("{HOST}{p}")));
    urls.dedup();
    urls
}

// ---------------------------------------------------------------- memory

/// Net bytes allocated (and not freed) while `f` ran, with its result.
fn live_bytes<T>(f: impl FnOnce() -> T) -> (T, i64) {
    let region = Region::new(GLOBAL);
    let out = f();
    let c = region.change();
    (out, c.bytes_allocated as i64 - c.bytes_deallocated as i64)
}

/// Ratios of heap bytes to file bytes, per file and in total, printed as
/// one line.
struct RatioStats {
    label: String,
    heap: i64,
    bytes: usize,
    ratios: Vec<f64>,
    /// (heap, bytes) per size class: < 1 KB, 1–10 KB, 10–100 KB, ≥ 100 KB.
    classes: [(i64, usize, usize); 4],
}

impl RatioStats {
    fn new(label: &str) -> Self {
        RatioStats {
            label: label.to_owned(),
            heap: 0,
            bytes: 0,
            ratios: Vec::new(),
            classes: [(0, 0, 0); 4],
        }
    }

    fn add(&mut self, heap: i64, bytes: usize) {
        self.heap += heap;
        self.bytes += bytes;
        if bytes > 0 {
            self.ratios.push(heap as f64 / bytes as f64);
        }
        let class = match bytes {
            0..1_000 => 0,
            1_000..10_000 => 1,
            10_000..100_000 => 2,
            _ => 3,
        };
        let c = &mut self.classes[class];
        c.0 += heap;
        c.1 += bytes;
        c.2 += 1;
    }

    fn report(&mut self) -> String {
        self.ratios.sort_by(f64::total_cmp);
        let r = &self.ratios;
        let mut s = format!(
            "    {:<44} total {:>11} B heap / {:>10} B files = {:5.2}x | per file: p10 {:5.2}x  median {:5.2}x  p90 {:5.2}x  max {:7.2}x",
            self.label,
            self.heap,
            self.bytes,
            self.heap as f64 / self.bytes as f64,
            percentile(r, 0.1),
            percentile(r, 0.5),
            percentile(r, 0.9),
            r.last().copied().unwrap_or(f64::NAN),
        );
        s.push_str("\n        by size: ");
        for (name, (heap, bytes, n)) in ["<1KB", "1-10KB", "10-100KB", ">=100KB"]
            .iter()
            .zip(self.classes)
        {
            let _ = write!(
                s,
                "{name}: {:.2}x ({n} files)  ",
                heap as f64 / bytes.max(1) as f64
            );
        }
        s
    }
}

fn memory_report(docs: &[Doc]) -> String {
    // Warm up one-time statics (texting_robots' lazy regex, hash seeds)
    // so that they are not charged to the first file.
    let warm = b"User-agent: *\nDisallow: /a*b\nDisallow: /c$\n";
    drop(Robots::parse(&warm[..], &Profile::GOOGLE));
    if let Ok(r) = texting_robots::Robot::new(AGENT, warm) {
        black_box(r.allowed("/a/b"));
    }
    let mut lossless = RatioStats::new("RobotsTxt (lossless parse, keeps the bytes)");
    let mut google = RatioStats::new("Robots, google profile (measured)");
    let mut google_est = RatioStats::new("Robots, google profile (heap_size())");
    let mut rfc = RatioStats::new("Robots, rfc9309 profile (measured)");
    let mut rfc_est = RatioStats::new("Robots, rfc9309 profile (heap_size())");
    let mut google_used = RatioStats::new("Robots, google, after its answers x3 (measured)");
    let mut texting = RatioStats::new("texting_robots Robot (after new)");
    let mut texting_used = RatioStats::new("texting_robots Robot (after its answers)");
    let mut texting_failed = 0;
    for d in docs {
        let n = d.bytes.len();
        let (txt, heap) = live_bytes(|| RobotsTxt::parse(&d.bytes[..]));
        lossless.add(heap, n);
        for (profile, measured, estimated) in [
            (&Profile::GOOGLE, &mut google, &mut google_est),
            (&Profile::RFC9309, &mut rfc, &mut rfc_est),
        ] {
            let (robots, heap) = live_bytes(|| Robots::new(&txt, profile));
            measured.add(heap, n);
            estimated.add(robots.heap_size() as i64, n);
            drop(robots);
        }
        let urls = {
            let robots = Robots::parse(&d.bytes[..], &Profile::GOOGLE);
            urls_for(&robots)
        };
        // Rule sets build what answers quickly when they are asked: asking
        // every URL three times makes every set the robot obeys build its
        // block (a scan at the second question, an index after sixteen).
        let chain = TokenChain::parse(AGENT);
        let (robots, heap) = live_bytes(|| {
            let robots = Robots::new(&txt, &Profile::GOOGLE);
            let matcher = robots.matcher(&chain);
            for _ in 0..3 {
                for u in &urls {
                    black_box(matcher.is_allowed(u));
                }
            }
            robots
        });
        google_used.add(heap, n);
        drop(robots);
        drop(txt);
        let region = Region::new(GLOBAL);
        match texting_robots::Robot::new(AGENT, &d.bytes) {
            Ok(robot) => {
                let c = region.change();
                texting.add(c.bytes_allocated as i64 - c.bytes_deallocated as i64, n);
                for u in &urls {
                    black_box(robot.allowed(u));
                }
                let c = region.change();
                texting_used.add(c.bytes_allocated as i64 - c.bytes_deallocated as i64, n);
                drop(robot);
            }
            Err(_) => texting_failed += 1,
        }
    }
    let mut out = String::from(
        "==> memory of a compiled file (counting allocator; heap bytes / file bytes)\n",
    );
    for s in [
        &mut lossless,
        &mut google,
        &mut google_est,
        &mut rfc,
        &mut rfc_est,
        &mut google_used,
        &mut texting,
        &mut texting_used,
    ] {
        out.push_str(&s.report());
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "    texting_robots rejected {texting_failed} files (Robot::new returned an error); they are left out of its lines\n    size_of: Robots {} B inline (not counted above)",
        size_of::<Robots>(),
    );
    out
}

/// Times every (file, URL) pair alone, 32 answers in a row (so caches and
/// branch predictors are warm), and prints the distribution of the time
/// per answer.
fn per_pair_distribution(label: &str, pairs: &[(usize, String)], f: impl Fn(usize, &str) -> bool) {
    const REPS: u32 = 32;
    let mut times: Vec<f64> = Vec::with_capacity(pairs.len());
    let mut allowed = 0usize;
    for (k, url) in pairs {
        let t = Instant::now();
        for _ in 0..REPS {
            allowed += usize::from(f(*k, black_box(url)));
        }
        times.push(t.elapsed().as_nanos() as f64 / f64::from(REPS));
    }
    black_box(allowed);
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    eprintln!(
        "==> per answer, hot ({label}, {} pairs × {REPS}): p10 {}  median {}  p90 {}  p99 {}  max {}  mean {}",
        times.len(),
        fmt_time(percentile(&times, 0.1)),
        fmt_time(percentile(&times, 0.5)),
        fmt_time(percentile(&times, 0.9)),
        fmt_time(percentile(&times, 0.99)),
        fmt_time(percentile(&times, 1.0)),
        fmt_time(mean),
    );
}

// ---------------------------------------------------------------- hostile input

/// A synthetic file of about `target` bytes: many groups (agent tokens
/// repeat, so groups merge), prefix and wildcard rules, comments and
/// non-group lines.
fn synthetic(target: usize) -> String {
    let mut s = String::with_capacity(target + 1024);
    let mut i = 0usize;
    while s.len() < target {
        let _ = writeln!(s, "# group {i}");
        let _ = writeln!(s, "User-agent: bot{}", i % 5000);
        if i.is_multiple_of(3) {
            let _ = writeln!(s, "User-agent: crawler-{i}");
        }
        for j in 0..16 {
            let _ = match j % 4 {
                0 => writeln!(s, "Disallow: /d{i}/{j}/"),
                1 => writeln!(s, "Allow: /d{i}/{j}/pub/*.html$"),
                2 => writeln!(s, "Disallow: /*?sid={i}{j}*"),
                _ => writeln!(s, "Disallow: /p{i}/{j} # old"),
            };
        }
        if i.is_multiple_of(10) {
            let _ = writeln!(
                s,
                "Crawl-delay: 5\nSitemap: https://www.example.com/s{i}.xml"
            );
        }
        s.push('\n');
        i += 1;
    }
    s.push_str("User-agent: *\nDisallow: /private/\nAllow: /private/open*.html$\n");
    s
}

// ---------------------------------------------------------------- summary

/// What a benchmark's iteration does, to turn its median into a rate.
#[derive(Clone, Copy)]
enum Per {
    Bytes(u64),
    Answers(u64),
}

struct Registered {
    group: &'static str,
    id: String,
    per: Per,
}

/// Where criterion writes, as criterion decides it: `CRITERION_HOME`, else
/// the target directory (`CARGO_TARGET_DIR`, the workspace's under cargo),
/// else `target` in the current directory.
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None if std::env::var_os("CARGO").is_some() => workspace().join("target"),
        None => PathBuf::from("target"),
    };
    target.join("criterion")
}

/// The medians criterion wrote in this run, as a Markdown table.
fn summary(registered: &[Registered], started: SystemTime) -> String {
    let dir = criterion_dir();
    let mut out = String::from(
        "| group | benchmark | median per iteration | median per unit | throughput |\n|---|---|---:|---:|---:|\n",
    );
    for r in registered {
        // Criterion cuts directory names to 64 bytes.
        let id_dir = r.id.get(..64).unwrap_or(&r.id);
        let path = dir.join(r.group).join(id_dir).join("new/estimates.json");
        let fresh = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .is_ok_and(|m| m >= started);
        let median = fresh
            .then(|| std::fs::read_to_string(&path).ok())
            .flatten()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .and_then(|v| v["median"]["point_estimate"].as_f64());
        let Some(ns) = median else {
            let _ = writeln!(out, "| {} | {} | (not run) | | |", r.group, r.id);
            continue;
        };
        let (unit, rate) = match r.per {
            Per::Bytes(b) => (
                fmt_time(ns),
                format!("{:.1} MB/s", b as f64 / (ns / 1e9) / 1e6),
            ),
            Per::Answers(n) => (
                format!("{} / answer", fmt_time(ns / n as f64)),
                format!("{:.2} M answers/s", n as f64 / (ns / 1e9) / 1e6),
            ),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {unit} | {rate} |",
            r.group,
            r.id,
            fmt_time(ns)
        );
    }
    out
}

// ---------------------------------------------------------------- benches

fn main() {
    let started = SystemTime::now();
    let mut c = Criterion::default().configure_from_args();
    let mut registered: Vec<Registered> = Vec::new();

    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    eprintln!("==> load average at start: {}", load.trim());
    let docs = load_corpus();
    let (robotstxt_ok, texting_ok) = accepted(&docs);

    // 3. Memory, once.
    let memory = memory_report(&docs);
    eprint!("{memory}");

    bench_parse(&mut c, &mut registered, &docs, &robotstxt_ok);
    bench_answer(&mut c, &mut registered, &docs, &robotstxt_ok, &texting_ok);
    bench_hostile(&mut c, &mut registered);
    bench_synthetic(&mut c, &mut registered);

    c.final_summary();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    eprintln!("==> load average at end: {}", load.trim());
    let table = summary(&registered, started);
    let report = format!("{memory}\n{table}");
    eprintln!("==> summary (medians)\n{table}");
    let path = criterion_dir().join("../bench-robots-summary.md");
    if let Err(e) = std::fs::write(&path, report) {
        eprintln!("    could not write {}: {e}", path.display());
    } else {
        eprintln!("    written to {}", path.display());
    }
}

/// Notes a benchmark for the summary.
fn reg(registered: &mut Vec<Registered>, group: &'static str, id: &str, per: Per) {
    registered.push(Registered {
        group,
        id: id.to_owned(),
        per,
    });
}

/// Which files each peer accepts (robotstxt: those it does not panic on),
/// printed with the files that are not UTF-8.
fn accepted(docs: &[Doc]) -> (Vec<bool>, Vec<bool>) {
    let robotstxt_ok: Vec<bool> = quiet_panics(|| {
        docs.iter()
            .map(|d| robotstxt_allowed(&d.text, &format!("{HOST}/")).is_some())
            .collect()
    });
    let texting_ok: Vec<bool> = docs
        .iter()
        .map(|d| texting_robots::Robot::new(AGENT, &d.bytes).is_ok())
        .collect();
    let non_utf8 = docs
        .iter()
        .filter(|d| std::str::from_utf8(&d.bytes).is_err())
        .count();
    eprintln!(
        "    robotstxt panicked on {} files; texting_robots rejected {} files; {non_utf8} files are not UTF-8 (robotstxt gets them lossily decoded, converted before timing)",
        robotstxt_ok.iter().filter(|&&ok| !ok).count(),
        texting_ok.iter().filter(|&&ok| !ok).count(),
    );
    for (d, _) in docs.iter().zip(&robotstxt_ok).filter(|(_, ok)| !**ok) {
        eprintln!("      robotstxt panics on {}", d.path.display());
    }
    for (d, _) in docs.iter().zip(&texting_ok).filter(|(_, ok)| !**ok) {
        eprintln!("      texting_robots rejects {}/{}", d.corpus, d.name);
    }
    (robotstxt_ok, texting_ok)
}

/// 1. Parse throughput over the whole corpus.
fn bench_parse(
    c: &mut Criterion,
    registered: &mut Vec<Registered>,
    docs: &[Doc],
    robotstxt_ok: &[bool],
) {
    let total_bytes: usize = docs.iter().map(|d| d.bytes.len()).sum();
    let mut g = c.benchmark_group("parse");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Bytes(total_bytes as u64));
    let per = Per::Bytes(total_bytes as u64);
    g.bench_function("botwarden_lossless_parse", |b| {
        b.iter(|| {
            let mut lines = 0;
            for d in docs {
                lines += RobotsTxt::parse(black_box(&d.bytes[..])).lines().len();
            }
            lines
        });
    });
    reg(registered, "parse", "botwarden_lossless_parse", per);
    for (id, profile) in [
        ("botwarden_parse_compile_rfc9309", &Profile::RFC9309),
        ("botwarden_parse_compile_google", &Profile::GOOGLE),
    ] {
        g.bench_function(id, |b| {
            b.iter(|| {
                let mut rules = 0;
                for d in docs {
                    rules += Robots::parse(black_box(&d.bytes[..]), profile).rule_count();
                }
                rules
            });
        });
        reg(registered, "parse", id, per);
    }
    g.bench_function("texting_robots_new_one_agent", |b| {
        b.iter(|| {
            let mut ok = 0;
            for d in docs {
                ok += usize::from(texting_robots::Robot::new(AGENT, black_box(&d.bytes)).is_ok());
            }
            ok
        });
    });
    reg(registered, "parse", "texting_robots_new_one_agent", per);
    // robotstxt parses on every question: parse + one answer. Files it
    // panics on (if any) are left out, and its rate counts only the rest.
    let url = format!("{HOST}/a/b/c.html");
    let robotstxt_bytes: usize = docs
        .iter()
        .zip(robotstxt_ok)
        .filter(|(_, ok)| **ok)
        .map(|(d, _)| d.bytes.len())
        .sum();
    g.throughput(Throughput::Bytes(robotstxt_bytes as u64));
    g.bench_function("robotstxt_parse_plus_one_answer", |b| {
        b.iter(|| {
            let mut allowed = 0;
            for (d, _) in docs.iter().zip(robotstxt_ok).filter(|(_, ok)| **ok) {
                allowed += usize::from(DefaultMatcher::default().one_agent_allowed_by_robots(
                    black_box(&d.text),
                    AGENT,
                    &url,
                ));
            }
            allowed
        });
    });
    reg(
        registered,
        "parse",
        "robotstxt_parse_plus_one_answer",
        Per::Bytes(robotstxt_bytes as u64),
    );
    g.finish();
}

/// The files every contender accepts, compiled by each, and the (file,
/// URL) pairs they answer.
struct AnswerSet<'a> {
    docs: &'a [Doc],
    /// Indexes into `docs`.
    usable: &'a [usize],
    google: &'a [Robots],
    google_m: Vec<Matcher<'a>>,
    rfc_m: Vec<Matcher<'a>>,
    texting: Vec<texting_robots::Robot>,
    /// (index into `usable`, url)
    pairs: Vec<(usize, String)>,
}

/// 2. One answer on a compiled file.
fn bench_answer(
    c: &mut Criterion,
    registered: &mut Vec<Registered>,
    docs: &[Doc],
    robotstxt_ok: &[bool],
    texting_ok: &[bool],
) {
    // Files every contender accepts, so all answer identical pairs.
    let usable: Vec<usize> = (0..docs.len())
        .filter(|&i| robotstxt_ok[i] && texting_ok[i])
        .collect();
    let google: Vec<Robots> = usable
        .iter()
        .map(|&i| Robots::parse(&docs[i].bytes[..], &Profile::GOOGLE))
        .collect();
    let rfc: Vec<Robots> = usable
        .iter()
        .map(|&i| Robots::parse(&docs[i].bytes[..], &Profile::RFC9309))
        .collect();
    let texting: Vec<texting_robots::Robot> = usable
        .iter()
        .filter_map(|&i| texting_robots::Robot::new(AGENT, &docs[i].bytes).ok())
        .collect();
    let chain = TokenChain::parse(AGENT);
    let set = AnswerSet {
        docs,
        usable: &usable,
        google: &google,
        google_m: google.iter().map(|r| r.matcher(&chain)).collect(),
        rfc_m: rfc.iter().map(|r| r.matcher(&chain)).collect(),
        texting,
        pairs: google
            .iter()
            .enumerate()
            .flat_map(|(k, r)| urls_for(r).into_iter().map(move |u| (k, u)))
            .collect(),
    };
    let subset: Vec<&(usize, String)> = set.pairs.iter().step_by(ROBOTSTXT_SUBSET).collect();
    eprintln!(
        "==> answers: {} (file, URL) pairs over {} files ({} for robotstxt, one in {ROBOTSTXT_SUBSET}); agent {AGENT}",
        set.pairs.len(),
        usable.len(),
        subset.len()
    );
    agreement(&set);

    // Per-answer distribution, hot: each pair asked 32 times in a row.
    let pairs = &set.pairs;
    per_pair_distribution("botwarden google", pairs, |k, u| {
        set.google_m[k].is_allowed(u)
    });
    per_pair_distribution("botwarden rfc9309", pairs, |k, u| {
        set.rfc_m[k].is_allowed(u)
    });
    per_pair_distribution("texting_robots", pairs, |k, u| set.texting[k].allowed(u));

    answer_group(c, registered, &set, &subset);
}

/// Sanity check: how often the contenders agree, on every pair; the
/// disagreements with robotstxt sorted by what botwarden's deciding rule
/// looks like.
fn agreement(set: &AnswerSet<'_>) {
    let mut agree = [0usize; 4];
    let mut robotstxt_panics = 0;
    let mut shown = 0;
    let mut kinds: Vec<(String, usize)> = Vec::new();
    quiet_panics(|| {
        for (k, url) in &set.pairs {
            let decision = set.google_m[*k].check(url);
            let bw = decision.allowed;
            let bw_rfc = set.rfc_m[*k].is_allowed(url);
            let tr = set.texting[*k].allowed(url);
            let d = &set.docs[set.usable[*k]];
            let Some(rt) = robotstxt_allowed(&d.text, url) else {
                robotstxt_panics += 1;
                continue;
            };
            agree[0] += usize::from(bw == rt);
            agree[1] += usize::from(tr == rt);
            agree[2] += usize::from(bw == tr);
            agree[3] += usize::from(bw == bw_rfc);
            if bw == rt {
                continue;
            }
            let rule = match decision.reason {
                Reason::Rule { index, .. } => Some(set.google[*k].rule(index)),
                _ => None,
            };
            let kind = match &rule {
                _ if d.bytes.starts_with(b"\xEF\xBB\xBF") => {
                    "file starts with a UTF-8 BOM (robotstxt does not skip it)"
                }
                _ if d.bytes.len() > 500 * 1024 => "file over 500 KiB (google profile stops there)",
                Some(r) if r.pattern.starts_with('*') => {
                    "botwarden's deciding rule starts with `*`"
                }
                Some(r) if r.pattern.contains('*') || r.pattern.ends_with('$') => {
                    "botwarden's deciding rule has another wildcard"
                }
                Some(_) => "botwarden's deciding rule is a plain prefix",
                None => "no rule matched in botwarden",
            };
            let kind = format!("botwarden {bw}, robotstxt {rt}: {kind}");
            match kinds.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => kinds.push((kind, 1)),
            }
            let explained = d.bytes.starts_with(b"\xEF\xBB\xBF")
                || rule.as_ref().is_some_and(|r| r.pattern.starts_with('*'));
            if shown < 8 && !explained {
                shown += 1;
                eprintln!(
                    "    differs: botwarden google {bw} ({}), robotstxt {rt}: {}/{} {url}",
                    rule.map_or_else(|| "no rule".to_owned(), |r| format!("line {}: {r}", r.line)),
                    d.corpus,
                    d.name
                );
            }
        }
    });
    kinds.sort_by_key(|k| std::cmp::Reverse(k.1));
    for (kind, n) in &kinds {
        eprintln!("    differs {n:>5}×  {kind}");
    }
    let asked = set.pairs.len() - robotstxt_panics;
    eprintln!(
        "    agreement on {asked} pairs (robotstxt panicked on {robotstxt_panics}):\n      botwarden google vs robotstxt: {} ({:.3}%)\n      texting_robots vs robotstxt: {} ({:.3}%)\n      botwarden google vs texting_robots: {} ({:.3}%)\n      botwarden google vs botwarden rfc9309: {} ({:.3}%)",
        agree[0],
        100.0 * agree[0] as f64 / asked as f64,
        agree[1],
        100.0 * agree[1] as f64 / asked as f64,
        agree[2],
        100.0 * agree[2] as f64 / asked as f64,
        agree[3],
        100.0 * agree[3] as f64 / asked as f64,
    );
}

/// The `answer` group: every pair per iteration, robotstxt on `subset`.
fn answer_group(
    c: &mut Criterion,
    registered: &mut Vec<Registered>,
    set: &AnswerSet<'_>,
    subset: &[&(usize, String)],
) {
    let pairs = &set.pairs;
    let mut g = c.benchmark_group("answer");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(pairs.len() as u64));
    let per = Per::Answers(pairs.len() as u64);
    for (id, matchers) in [
        ("botwarden_google", &set.google_m),
        ("botwarden_rfc9309", &set.rfc_m),
    ] {
        g.bench_function(id, |b| {
            b.iter(|| {
                let mut allowed = 0;
                for (k, url) in pairs {
                    allowed += usize::from(matchers[*k].is_allowed(black_box(url)));
                }
                allowed
            });
        });
        reg(registered, "answer", id, per);
    }
    g.bench_function("texting_robots", |b| {
        b.iter(|| {
            let mut allowed = 0;
            for (k, url) in pairs {
                allowed += usize::from(set.texting[*k].allowed(black_box(url)));
            }
            allowed
        });
    });
    reg(registered, "answer", "texting_robots", per);
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .throughput(Throughput::Elements(subset.len() as u64));
    g.bench_function("robotstxt_reparse_per_answer_subset", |b| {
        b.iter(|| {
            let mut allowed = 0;
            for (k, url) in subset {
                allowed += usize::from(DefaultMatcher::default().one_agent_allowed_by_robots(
                    black_box(&set.docs[set.usable[*k]].text),
                    AGENT,
                    url,
                ));
            }
            allowed
        });
    });
    reg(
        registered,
        "answer",
        "robotstxt_reparse_per_answer_subset",
        Per::Answers(subset.len() as u64),
    );
    g.finish();
}

/// A hostile case: its name, the `Disallow` pattern, two URLs (one that
/// matches, one that does not) and whether robotstxt runs it.
type HostileCase = (&'static str, String, [(&'static str, String); 2], bool);

/// The hostile cases: robotstxt's matcher is polynomial of high degree on
/// these (see the scaling `bench_hostile` prints), so it only gets the
/// scaled-down case, which everyone also runs.
fn hostile_cases() -> [HostileCase; 4] {
    let big = |n: usize, tail: &str| format!("{HOST}/{}{tail}", "a".repeat(n));
    let six_k = || {
        [
            ("url_6k_match", big(6000, "")),
            ("url_6k_nomatch", big(6000, "b")),
        ]
    };
    [
        (
            "star_a_x1000_dollar",
            format!("/{}$", "*a".repeat(1000)),
            six_k(),
            false,
        ),
        (
            "star_x2000",
            format!("/{}", "*".repeat(2000)),
            six_k(),
            false,
        ),
        (
            "star_x2000_dollar",
            format!("/{}$", "*".repeat(2000)),
            six_k(),
            false,
        ),
        (
            "star_a_x50_dollar",
            format!("/{}$", "*a".repeat(50)),
            [
                ("url_300_match", big(300, "")),
                ("url_300_nomatch", big(300, "b")),
            ],
            true,
        ),
    ]
}

/// 4a. Hostile wildcard rules against a 6 KB URL.
fn bench_hostile(c: &mut Criterion, registered: &mut Vec<Registered>) {
    eprintln!(
        "==> robotstxt on `/(*a)×n$` against an all-`a` URL path of 6n bytes (one answer each):"
    );
    for n in [25usize, 50, 100] {
        let body = format!("User-agent: *\nAllow: /\nDisallow: /{}$\n", "*a".repeat(n));
        let url = format!("{HOST}/{}", "a".repeat(6 * n));
        let t = Instant::now();
        let rt = quiet_panics(|| robotstxt_allowed(&body, &url));
        eprintln!(
            "    n = {n:>4}: {:>10}  (answer {rt:?})",
            fmt_time(t.elapsed().as_nanos() as f64)
        );
    }
    let cases = hostile_cases();
    let mut g = c.benchmark_group("hostile_answer");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .throughput(Throughput::Elements(1));
    for (case, pattern, urls, with_robotstxt) in &cases {
        let body = format!("User-agent: *\nAllow: /\nDisallow: {pattern}\n");
        let google = Robots::parse(body.as_bytes(), &Profile::GOOGLE);
        let rfc = Robots::parse(body.as_bytes(), &Profile::RFC9309);
        let chain = TokenChain::parse(AGENT);
        let gm = google.matcher(&chain);
        let rm = rfc.matcher(&chain);
        let texting = texting_robots::Robot::new(AGENT, body.as_bytes());
        if let Err(e) = &texting {
            let e = format!("{e:#}");
            let e = if e.len() > 120 {
                format!("{}…{}", &e[..60], &e[e.len() - 60..])
            } else {
                e
            };
            eprintln!("    texting_robots rejects the {case} file: {e}");
        }
        for (uname, url) in urls {
            let rt = with_robotstxt
                .then(|| quiet_panics(|| robotstxt_allowed(&body, url)))
                .flatten();
            eprintln!(
                "    {case} × {uname}: botwarden google {}, rfc9309 {}, texting_robots {:?}, robotstxt {rt:?}",
                gm.is_allowed(url),
                rm.is_allowed(url),
                texting.as_ref().ok().map(|t| t.allowed(url)),
            );
            let id = format!("botwarden_google_{case}_{uname}");
            g.bench_function(&id, |b| b.iter(|| gm.is_allowed(black_box(url))));
            reg(registered, "hostile_answer", &id, Per::Answers(1));
            let id = format!("botwarden_rfc9309_{case}_{uname}");
            g.bench_function(&id, |b| b.iter(|| rm.is_allowed(black_box(url))));
            reg(registered, "hostile_answer", &id, Per::Answers(1));
            if let Ok(t) = &texting {
                let id = format!("texting_robots_{case}_{uname}");
                g.bench_function(&id, |b| b.iter(|| t.allowed(black_box(url))));
                reg(registered, "hostile_answer", &id, Per::Answers(1));
            }
            if rt.is_some() {
                let id = format!("robotstxt_parse_plus_answer_{case}_{uname}");
                g.bench_function(&id, |b| {
                    b.iter(|| {
                        DefaultMatcher::default().one_agent_allowed_by_robots(
                            black_box(&body),
                            AGENT,
                            url,
                        )
                    });
                });
                reg(registered, "hostile_answer", &id, Per::Answers(1));
            }
        }
    }
    g.finish();
}

/// 4b. Synthetic large files: the rate must not fall with size.
fn bench_synthetic(c: &mut Criterion, registered: &mut Vec<Registered>) {
    let mut g = c.benchmark_group("synthetic_parse");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (size_name, size) in [("1mb", 1_000_000), ("10mb", 10_000_000)] {
        let body = synthetic(size);
        let bytes = body.as_bytes();
        let n = bytes.len() as u64;
        let per = Per::Bytes(n);
        let robots = Robots::parse(bytes, &Profile::RFC9309);
        eprintln!(
            "==> synthetic {size_name}: {n} bytes, {} groups, {} rules",
            robots.groups().len(),
            robots.rule_count()
        );
        drop(robots);
        g.throughput(Throughput::Bytes(n));
        let id = format!("botwarden_lossless_parse_{size_name}");
        g.bench_function(&id, |b| {
            b.iter(|| RobotsTxt::parse(black_box(bytes)).lines().len());
        });
        reg(registered, "synthetic_parse", &id, per);
        let id = format!("botwarden_parse_compile_rfc9309_{size_name}");
        g.bench_function(&id, |b| {
            b.iter(|| Robots::parse(black_box(bytes), &Profile::RFC9309).rule_count());
        });
        reg(registered, "synthetic_parse", &id, per);
        let id = format!("texting_robots_new_one_agent_{size_name}");
        g.bench_function(&id, |b| {
            b.iter(|| texting_robots::Robot::new(AGENT, black_box(bytes)).is_ok());
        });
        reg(registered, "synthetic_parse", &id, per);
        let url = format!("{HOST}/private/x");
        let id = format!("robotstxt_parse_plus_one_answer_{size_name}");
        g.bench_function(&id, |b| {
            b.iter(|| {
                DefaultMatcher::default().one_agent_allowed_by_robots(black_box(&body), AGENT, &url)
            });
        });
        reg(registered, "synthetic_parse", &id, per);
    }
    g.finish();
}
