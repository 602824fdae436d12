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

use botwarden_robots::{Profile, Robots, RobotsTxt, TokenChain};

mod support;

use support::{Doc, fmt_time, load_corpus, path_from_pattern, percentile, workspace};

const AGENT: &str = "googlebot";
const HOST: &str = "https://www.example.com";
/// Rules of a file made into queries (at most this many, spread over it).
const RULE_QUERIES: usize = 64;
/// Paths asked of every file.
const GENERIC_PATHS: &[&str] = &[
    "/",
    "/search?q=x",
    "/a/b/c.html",
    "/index.html",
    "/wp-admin/admin-ajax.php",
    "/robots.txt",
];
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

/// Runs `f` `passes` times, prints each pass as the C++ driver does, and
/// returns the times in nanoseconds.
fn measure(name: &str, unit: Unit, passes: usize, mut f: impl FnMut() -> usize) -> Vec<f64> {
    let mut times = Vec::with_capacity(passes);
    for p in 0..passes {
        let t = Instant::now();
        let sink = black_box(f());
        let ns = t.elapsed().as_nanos() as f64;
        times.push(ns);
        let per = match unit {
            Unit::Bytes(n) => format!(
                "per_byte_ns {:.4} mb_per_s {:.1}",
                ns / n as f64,
                n as f64 / ns * 1e3
            ),
            Unit::Queries(n) => format!("per_query_ns {:.1}", ns / n as f64),
        };
        println!("botwarden {name} pass {p} ns {ns:.0} {per} sink {sink}");
    }
    times
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
    let mut summary = Vec::new();
    let mut record = |name: &str, unit: Unit, times: Vec<f64>| {
        summary.push(summary_line(name, unit, &times));
    };

    let t = measure("parse_only", Unit::Bytes(bytes), passes, || {
        bodies
            .iter()
            .map(|b| RobotsTxt::parse(black_box(&b[..])).lines().len())
            .sum()
    });
    record("parse_only (lossless)", Unit::Bytes(bytes), t);

    let t = measure("parse_compile_full", Unit::Bytes(bytes), passes, || {
        bodies
            .iter()
            .map(|b| Robots::parse(black_box(&b[..]), PROFILE).rule_count())
            .sum()
    });
    record("parse_compile_full", Unit::Bytes(bytes), t);

    let mut verdicts = vec![b'?'; n];
    let t = measure("reparse_answer_full", Unit::Queries(n), passes, || {
        let mut allowed = 0;
        for (k, (i, url)) in queries.iter().enumerate() {
            let ok = Robots::parse(black_box(&bodies[*i][..]), PROFILE).is_allowed(&chain, url);
            verdicts[k] = if ok { b'1' } else { b'0' };
            allowed += usize::from(ok);
        }
        allowed
    });
    record("reparse_answer_full", Unit::Queries(n), t);

    let full: Vec<Robots> = bodies
        .iter()
        .map(|b| Robots::parse(&b[..], PROFILE))
        .collect();
    let matchers: Vec<_> = full.iter().map(|r| r.matcher(&chain)).collect();
    let t = measure("answer_reused_full", Unit::Queries(n), passes, || {
        queries
            .iter()
            .filter(|(i, url)| matchers[*i].is_allowed(black_box(url)))
            .count()
    });
    record("answer_reused_full", Unit::Queries(n), t);
    for (k, (i, url)) in queries.iter().enumerate() {
        let ok = matchers[*i].is_allowed(url);
        assert_eq!(
            verdicts[k] == b'1',
            ok,
            "re-parsed and reused answers differ on {url}"
        );
    }

    println!("botwarden summary over {passes} passes:");
    for line in &summary {
        println!("{line}");
    }
    let out = dir.join("botwarden-verdicts.txt");
    std::fs::write(&out, &verdicts).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
    compare(dir, &input, &verdicts);
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
    // xorshift: the same URLs on every run.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..count {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let path = &paths[(x % paths.len() as u64) as usize];
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
