//! botwarden side by side with Google's robots.txt library
//! (google/robotstxt), on the same files and the same queries.
//!
//! `scripts/bench-google-robotstxt CHECKOUT` drives it: it exports the
//! corpus and the queries, builds `google_driver.cc` (beside this file)
//! against the checkout, then runs the two drivers in turn, several rounds,
//! and keeps the best pass of each measure. Run alone
//! (`cargo bench -p botwarden-robots --bench side_by_side`), it exports to
//! `<target>/side-by-side` and measures botwarden only.
//!
//! Modes (the first argument):
//! - `export DIR`: writes `DIR/files.txt` (one path per line) and
//!   `DIR/queries.tsv` (`FILE-INDEX<TAB>URL`, grouped by file).
//! - `run DIR PASSES`: measures botwarden on them, PASSES times each, prints
//!   every pass, writes `DIR/botwarden-verdicts.txt` (one byte per query,
//!   `1` allowed) and, if `DIR/google-verdicts.txt` is there, compares.
//! - `urls FILE COUNT HOST`: prints COUNT URLs for one robots.txt file (its
//!   own rules made concrete, and generic paths, in a fixed pseudo-random
//!   order), for the whole-process comparison of `scripts/bench-robots-test`.
//!
//! The queries: for each file, up to [`RULE_QUERIES`] of its distinct rule
//! patterns as the google profile reads them (spread over the file), each
//! made a concrete path, and [`GENERIC_PATHS`]; agent `googlebot`.

#![allow(clippy::print_stderr, clippy::print_stdout, missing_docs)]

use std::collections::HashSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use botwarden_robots::{Matcher, Profile, RobotMatcher, Robots, RobotsTxt, TokenChain};
use botwarden_testdata::Xorshift;

mod support;

use support::{
    AGENT, Doc, GENERIC_PATHS, HOST, fmt_time, load_corpus, path_from_pattern, percentile,
    workspace,
};

/// Rules of a file made into queries (at most this many, spread over it).
const RULE_QUERIES: usize = 64;
const PROFILE: &Profile = &Profile::GOOGLE;

// ---------------------------------------------------------------- queries

/// The distinct rule patterns of a file, in file order.
fn patterns(robots: &Robots) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for g in robots.groups() {
        for r in g.rules() {
            if !r.derived && !r.pattern.is_empty() && seen.insert(r.pattern.to_string()) {
                out.push(r.pattern.into_owned());
            }
        }
    }
    out
}

/// A URL as one line of `queries.tsv`: no tab or line break in it.
fn clean(url: String) -> String {
    if url.contains(['\t', '\n', '\r']) {
        url.replace('\t', "%09")
            .replace('\n', "%0A")
            .replace('\r', "%0D")
    } else {
        url
    }
}

fn queries_of(bytes: &[u8]) -> Vec<String> {
    let patterns = patterns(&Robots::parse(bytes, PROFILE));
    let step = patterns.len().div_ceil(RULE_QUERIES).max(1);
    let mut urls: Vec<String> = patterns
        .iter()
        .step_by(step)
        .enumerate()
        .map(|(k, p)| clean(format!("{HOST}{}", path_from_pattern(p, k))))
        .collect();
    urls.extend(GENERIC_PATHS.iter().map(|p| format!("{HOST}{p}")));
    urls
}

fn export(dir: &Path, docs: &[Doc]) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
    let mut files = String::new();
    let mut queries = String::new();
    let mut count = 0usize;
    for (i, d) in docs.iter().enumerate() {
        let path = d
            .path
            .to_str()
            .unwrap_or_else(|| panic!("{}: the C++ driver needs UTF-8 paths", d.path.display()));
        assert!(!path.contains('\n'), "{path}: a line break in a path");
        let _ = writeln!(files, "{path}");
        for url in queries_of(&d.bytes) {
            let _ = writeln!(queries, "{i}\t{url}");
            count += 1;
        }
    }
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap_or_else(|e| panic!("writing {}: {e}", p.display()));
    };
    write("files.txt", &files);
    write("queries.tsv", &queries);
    eprintln!(
        "==> exported {} files and {count} queries to {}",
        docs.len(),
        dir.display()
    );
}

/// Files and queries read back from an export.
struct Input {
    bodies: Vec<Vec<u8>>,
    /// (file index, URL), grouped by file.
    queries: Vec<(usize, String)>,
}

fn read_export(dir: &Path) -> Input {
    let read = |name: &str| {
        let p = dir.join(name);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
    };
    let bodies: Vec<Vec<u8>> = read("files.txt")
        .lines()
        .map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("reading {p}: {e}")))
        .collect();
    let queries = read("queries.tsv")
        .lines()
        .map(|l| {
            let (i, url) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("queries.tsv: no tab in {l:?}"));
            let i: usize = i
                .parse()
                .unwrap_or_else(|e| panic!("queries.tsv: {i:?}: {e}"));
            assert!(i < bodies.len(), "queries.tsv: file {i} out of range");
            (i, url.to_owned())
        })
        .collect();
    Input { bodies, queries }
}

// ---------------------------------------------------------------- measures

#[derive(Clone, Copy)]
enum Unit {
    /// The pass reads this many bytes.
    Bytes(usize),
    /// The pass answers this many queries.
    Queries(usize),
}

/// Nanoseconds this thread has run on a CPU (`CLOCK_THREAD_CPUTIME_ID`,
/// which the C++ driver reads too). On a shared machine this leaves out the
/// time other processes held the core; wall time is printed beside it.
fn thread_cpu_ns() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}

/// The least CPU time one pass of a measure takes.
const MIN_PASS_NS: f64 = 500e6;

/// A measure: its name, what one pass does, and the pass.
struct Measure<'a> {
    name: &'static str,
    unit: Unit,
    pass: Box<dyn FnMut() -> usize + 'a>,
    times: Vec<f64>,
}

fn measure<'a>(
    name: &'static str,
    unit: Unit,
    pass: Box<dyn FnMut() -> usize + 'a>,
) -> Measure<'a> {
    Measure {
        name,
        unit,
        pass,
        times: Vec::new(),
    }
}

/// Runs every measure `passes` times, taking turns (pass 1 of each, then
/// pass 2 of each, ...) so that a busy moment on a shared machine does not
/// fall on one measure only; prints each pass as the C++ driver does.
/// `SIDE_BY_SIDE_ONLY=name,name` keeps only those measures (for profiling).
fn run_measures(measures: &mut Vec<Measure<'_>>, passes: usize) {
    if let Ok(only) = std::env::var("SIDE_BY_SIDE_ONLY") {
        measures.retain(|m| only.split(',').any(|o| o == m.name));
    }
    for p in 0..passes {
        for m in measures.iter_mut() {
            // The CPU clock may only move at each scheduler tick (4 ms on
            // some kernels): a pass repeats the work for at least
            // `MIN_PASS_NS` so that the tick is under 1 % of it.
            let cpu = thread_cpu_ns();
            let t = Instant::now();
            let mut reps = 0u32;
            let mut sink = 0;
            let ns = loop {
                sink = black_box((m.pass)()).wrapping_add(sink);
                reps += 1;
                let ns = thread_cpu_ns() - cpu;
                if ns >= MIN_PASS_NS {
                    break ns / f64::from(reps);
                }
            };
            let wall = t.elapsed().as_nanos() as f64 / f64::from(reps);
            m.times.push(ns);
            let per = match m.unit {
                Unit::Bytes(n) => format!(
                    "per_byte_ns {:.4} mb_per_s {:.1}",
                    ns / n as f64,
                    n as f64 / ns * 1e3
                ),
                Unit::Queries(n) => format!("per_query_ns {:.1}", ns / n as f64),
            };
            println!(
                "botwarden {} pass {p} reps {reps} cpu_ns {ns:.0} wall_ns {wall:.0} {per} sink {sink}",
                m.name
            );
        }
    }
}

/// One line of the summary: best, median and worst pass.
fn summary_line(name: &str, unit: Unit, times: &[f64]) -> String {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let show = |ns: f64| match unit {
        Unit::Bytes(n) => format!("{:.0} MB/s", n as f64 / ns * 1e3),
        Unit::Queries(n) => fmt_time(ns / n as f64),
    };
    format!(
        "    {name:<28} best {:>12}  median {:>12}  worst {:>12}",
        show(sorted[0]),
        show(percentile(&sorted, 0.5)),
        show(sorted[sorted.len() - 1]),
    )
}

fn run(dir: &Path, passes: usize) {
    let input = read_export(dir);
    let bodies = &input.bodies;
    let queries = &input.queries;
    let bytes: usize = bodies.iter().map(Vec::len).sum();
    let n = queries.len();
    let chain = TokenChain::parse(AGENT);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "botwarden files {} bytes {bytes} queries {n} load {}",
        bodies.len(),
        load.trim()
    );
    let lazy: Vec<RobotMatcher> = bodies
        .iter()
        .map(|b| RobotMatcher::parse(&b[..], PROFILE, &chain))
        .collect();
    let full: Vec<Robots> = bodies
        .iter()
        .map(|b| Robots::parse(&b[..], PROFILE))
        .collect();
    let matchers: Vec<_> = full.iter().map(|r| r.matcher(&chain)).collect();
    let mut verdicts = vec![b'?'; n];
    {
        let mut measures = measures(bodies, queries, &chain, &lazy, &matchers, &mut verdicts);
        run_measures(&mut measures, passes);
        println!("botwarden summary over {passes} passes (time on CPU):");
        for m in &measures {
            println!("{}", summary_line(m.name, m.unit, &m.times));
        }
    }
    // The median answer: each file's answers are timed together (wall
    // clock, so that the timer costs little per answer), and every answer
    // counts its file's mean; the median of those over the corpus.
    median_measure("answer_reused", passes, queries, |i, url| {
        lazy[i].is_allowed(url)
    });
    median_measure("answer_reused_full", passes, queries, |i, url| {
        matchers[i].is_allowed(url)
    });
    agree(queries, &lazy, &matchers, &mut verdicts);

    let out = dir.join("botwarden-verdicts.txt");
    std::fs::write(&out, &verdicts).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
    compare(dir, &input, &verdicts);
}

/// The measures of a run: parsing, compiling, and answering from the bytes
/// or from a compiled file; the re-parsed answers are written to
/// `verdicts`.
fn measures<'a>(
    bodies: &'a [Vec<u8>],
    queries: &'a [(usize, String)],
    chain: &'a TokenChain,
    lazy: &'a [RobotMatcher],
    matchers: &'a [Matcher<'_>],
    verdicts: &'a mut [u8],
) -> Vec<Measure<'a>> {
    let bytes: usize = bodies.iter().map(Vec::len).sum();
    let per_bytes = Unit::Bytes(bytes);
    let per_query = Unit::Queries(queries.len());
    let mut measures = vec![
        measure(
            "parse_only",
            per_bytes,
            Box::new(move || {
                bodies
                    .iter()
                    .map(|b| RobotsTxt::parse(black_box(&b[..])).lines().len())
                    .sum()
            }),
        ),
        measure(
            "parse_compile_full",
            per_bytes,
            Box::new(move || {
                bodies
                    .iter()
                    .map(|b| Robots::parse(black_box(&b[..]), PROFILE).rule_count())
                    .sum()
            }),
        ),
        measure(
            "parse_compile_one_robot",
            per_bytes,
            Box::new(move || {
                bodies
                    .iter()
                    .map(|b| {
                        let m = RobotMatcher::parse(black_box(&b[..]), PROFILE, chain);
                        m.group_lines().len()
                    })
                    .sum()
            }),
        ),
        measure(
            "reparse_answer",
            per_query,
            Box::new(move || {
                let mut allowed = 0;
                for (k, (i, url)) in queries.iter().enumerate() {
                    let m = RobotMatcher::parse(black_box(&bodies[*i][..]), PROFILE, chain);
                    let ok = m.is_allowed(url);
                    verdicts[k] = if ok { b'1' } else { b'0' };
                    allowed += usize::from(ok);
                }
                allowed
            }),
        ),
        measure(
            "answer_reused",
            per_query,
            Box::new(move || {
                queries
                    .iter()
                    .filter(|(i, url)| lazy[*i].is_allowed(black_box(url)))
                    .count()
            }),
        ),
        measure(
            "answer_reused_full",
            per_query,
            Box::new(move || {
                queries
                    .iter()
                    .filter(|(i, url)| matchers[*i].is_allowed(black_box(url)))
                    .count()
            }),
        ),
    ];
    if std::env::var_os("SIDE_BY_SIDE_REPARSE_FULL").is_some() {
        measures.push(measure(
            "reparse_answer_full",
            per_query,
            Box::new(move || {
                queries
                    .iter()
                    .filter(|(i, url)| {
                        Robots::parse(black_box(&bodies[*i][..]), PROFILE).is_allowed(chain, url)
                    })
                    .count()
            }),
        ));
    }
    measures
}

/// Every way of answering agrees with every other; the answers the measures
/// did not give (`?` in `verdicts`) are filled in.
fn agree(
    queries: &[(usize, String)],
    lazy: &[RobotMatcher],
    matchers: &[Matcher<'_>],
    verdicts: &mut [u8],
) {
    for (k, (i, url)) in queries.iter().enumerate() {
        let d = matchers[*i].check(url);
        if verdicts[k] == b'?' {
            verdicts[k] = if d.allowed { b'1' } else { b'0' };
        }
        assert_eq!(
            verdicts[k] == b'1',
            d.allowed,
            "re-parsed and reused answers differ on {url}"
        );
        assert_eq!(
            lazy[*i].check(url),
            d,
            "one robot's and the full compile differ on {url}"
        );
    }
}

/// Runs [`median_by_file`] `passes` times and prints each pass, with the
/// pass's CPU time over its wall time (under 100 % when other processes
/// held the core: the files timed then count more than their work).
fn median_measure(
    name: &str,
    passes: usize,
    queries: &[(usize, String)],
    answer: impl Fn(usize, &str) -> bool,
) {
    if let Ok(only) = std::env::var("SIDE_BY_SIDE_ONLY")
        && !only.split(',').any(|o| o == name)
    {
        return;
    }
    let mut medians = Vec::new();
    for p in 0..passes {
        let cpu = thread_cpu_ns();
        let wall = Instant::now();
        let (median, timer) = median_by_file(queries, &answer);
        let share = (thread_cpu_ns() - cpu) / wall.elapsed().as_nanos() as f64;
        println!(
            "botwarden {name}_median pass {p} per_query_ns {median:.1} timer_ns {timer:.1} \
             cpu_share {:.0}%",
            share * 100.0
        );
        medians.push(median);
    }
    println!(
        "{}",
        summary_line(&format!("{name} (median)"), Unit::Queries(1), &medians)
    );
}

/// What reading the clock twice costs, the least of many tries: taken
/// off each file's time, so that the timer is not counted as answering.
fn timer_cost() -> f64 {
    (0..1000)
        .map(|_| {
            let t = Instant::now();
            black_box(t.elapsed()).as_nanos() as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// The median time per answer over the corpus, each answer counting the
/// mean of its file's answers (timed together, less the timer's cost),
/// and that cost.
fn median_by_file(
    queries: &[(usize, String)],
    answer: &impl Fn(usize, &str) -> bool,
) -> (f64, f64) {
    let timer = timer_cost();
    let mut means: Vec<(f64, usize)> = Vec::new();
    let mut at = 0;
    while at < queries.len() {
        let file = queries[at].0;
        let n = queries[at..].iter().take_while(|q| q.0 == file).count();
        let group = &queries[at..at + n];
        let t = Instant::now();
        let mut allowed = 0;
        for (i, url) in group {
            allowed += usize::from(answer(*i, black_box(url)));
        }
        black_box(allowed);
        let ns = (t.elapsed().as_nanos() as f64 - timer).max(0.0);
        means.push((ns / n as f64, n));
        at += n;
    }
    means.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = queries.len() / 2;
    let mut seen = 0;
    for (mean, n) in &means {
        seen += n;
        if seen > half {
            return (*mean, timer);
        }
    }
    (f64::NAN, timer)
}

/// Compares botwarden's verdicts with Google's, if the C++ driver left them.
fn compare(dir: &Path, input: &Input, ours: &[u8]) {
    let Ok(google) = std::fs::read(dir.join("google-verdicts.txt")) else {
        println!(
            "botwarden compare: no google-verdicts.txt in {}",
            dir.display()
        );
        return;
    };
    assert_eq!(
        google.len(),
        ours.len(),
        "google-verdicts.txt is for another export"
    );
    let differ: Vec<usize> = (0..ours.len()).filter(|&k| ours[k] != google[k]).collect();
    println!(
        "botwarden compare: {} of {} answers identical to Google's ({} differ)",
        ours.len() - differ.len(),
        ours.len(),
        differ.len()
    );
    let files = std::fs::read_to_string(dir.join("files.txt")).unwrap_or_default();
    let names: Vec<&str> = files.lines().collect();
    for &k in differ.iter().take(20) {
        let (i, url) = &input.queries[k];
        println!(
            "    differs: botwarden {} google {} {} {url}",
            char::from(ours[k]),
            char::from(google[k]),
            names.get(*i).unwrap_or(&"?")
        );
    }
}

// ---------------------------------------------------------------- URLs

/// `count` URLs for one file: its rules made concrete (each in three
/// forms) and generic paths, drawn in a fixed pseudo-random order.
fn urls(file: &Path, count: usize, host: &str) {
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
    let mut paths: Vec<String> = Vec::new();
    for p in patterns(&Robots::parse(&bytes[..], PROFILE)) {
        for k in 0..3 {
            paths.push(path_from_pattern(&p, k));
        }
    }
    paths.extend(GENERIC_PATHS.iter().map(|p| (*p).to_owned()));
    for seg in ["about", "jobs", "in", "company", "wiki", "blog", "static"] {
        paths.push(format!("/{seg}/"));
        paths.push(format!("/{seg}/page-17.html?utm_source=feed"));
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    // The same URLs on every run.
    let mut rng = Xorshift::new(Xorshift::SEED);
    for _ in 0..count {
        let path = &paths[(rng.next_u64() % paths.len() as u64) as usize];
        let _ = writeln!(out, "{host}{}", clean(path.clone()));
    }
    let _ = out.flush();
}

// ---------------------------------------------------------------- main

fn default_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace().join("target"), PathBuf::from)
        .join("side-by-side")
}

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] => {
            let dir = default_dir();
            export(&dir, &load_corpus());
            run(&dir, 3);
        }
        ["export", dir] => export(Path::new(dir), &load_corpus()),
        ["run", dir, passes] => run(
            Path::new(dir),
            passes
                .parse()
                .unwrap_or_else(|e| panic!("PASSES {passes:?}: {e}")),
        ),
        ["urls", file, count, host] => urls(
            Path::new(file),
            count
                .parse()
                .unwrap_or_else(|e| panic!("COUNT {count:?}: {e}")),
            host,
        ),
        _ => {
            eprintln!("usage: side_by_side [export DIR | run DIR PASSES | urls FILE COUNT HOST]");
            std::process::exit(2);
        }
    }
}
