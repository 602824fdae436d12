//! What the benchmarks share: the corpus they read, URLs made from rules,
//! and how times are printed.

use std::path::{Path, PathBuf};

/// The robot every bench asks about.
pub(crate) const AGENT: &str = "googlebot";
/// The site the benches' paths are asked on.
pub(crate) const HOST: &str = "https://www.example.com";
/// Paths asked of every file, besides those made from its own rules.
pub(crate) const GENERIC_PATHS: &[&str] = &[
    "/",
    "/search?q=x",
    "/a/b/c.html",
    "/index.html",
    "/wp-admin/admin-ajax.php",
    "/robots.txt",
];

/// One robots.txt file of the corpus. Each bench reads the fields it needs.
#[allow(dead_code)]
pub(crate) struct Doc {
    pub(crate) corpus: &'static str,
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) bytes: Vec<u8>,
    /// The bytes as text (lossy), for robotstxt, which takes `&str`.
    pub(crate) text: String,
}

pub(crate) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn env_dir(var: &str, default: PathBuf) -> PathBuf {
    std::env::var_os(var).map_or(default, PathBuf::from)
}

fn read_dir_files(dir: &Path, corpus: &'static str, skip: &[&str], out: &mut Vec<Doc>) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_none_or(|n| !skip.contains(&n))
        })
        .collect();
    paths.sort();
    for p in paths {
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
        let text = String::from_utf8_lossy(&bytes).into_owned();
        out.push(Doc {
            corpus,
            name: p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: p.canonicalize().unwrap_or(p),
            bytes,
            text,
        });
    }
    true
}

/// Every file of `shared/corpus/robots`, `shared/corpus/robots-tricky` and
/// Protego's `tests/test_data`, in that order and by name within each;
/// prints what was found.
pub(crate) fn load_corpus() -> Vec<Doc> {
    let shared = env_dir("BOTWARDEN_SHARED", workspace().join("../shared"));
    let protego = env_dir(
        "BOTWARDEN_PROTEGO_CORPUS",
        workspace().join("target/protego-corpus/protego-0.7.0/tests/test_data"),
    );
    let skip = ["SOURCES.tsv", "FEATURES.tsv"];
    let sources: [(&'static str, PathBuf); 3] = [
        ("robots", shared.join("corpus/robots")),
        ("robots-tricky", shared.join("corpus/robots-tricky")),
        ("protego", protego),
    ];
    let mut docs = Vec::new();
    eprintln!("==> corpus");
    for (corpus, dir) in sources {
        let before = docs.len();
        if read_dir_files(&dir, corpus, &skip, &mut docs) {
            let files = &docs[before..];
            let bytes: usize = files.iter().map(|d| d.bytes.len()).sum();
            eprintln!(
                "    FOUND {corpus:<14} {:>5} files {:>11} bytes  {}",
                files.len(),
                bytes,
                dir.display()
            );
        } else {
            eprintln!(
                "    MISSING {corpus:<12} {} (run scripts/protego-corpus, or set {})",
                dir.display(),
                if corpus == "protego" {
                    "BOTWARDEN_PROTEGO_CORPUS"
                } else {
                    "BOTWARDEN_SHARED"
                }
            );
        }
    }
    let total: usize = docs.iter().map(|d| d.bytes.len()).sum();
    eprintln!(
        "    TOTAL {} files, {total} bytes ({:.1} MB)",
        docs.len(),
        total as f64 / 1e6
    );
    assert!(!docs.is_empty(), "no corpus found: nothing to benchmark");
    docs
}

/// A concrete path that a rule's pattern matches (or nearly): `*` becomes
/// a short word, a final `$` is dropped; every other rule also gets a
/// deeper path or a query.
pub(crate) fn path_from_pattern(pattern: &str, k: usize) -> String {
    let anchored = pattern.ends_with('$');
    let body = pattern.strip_suffix('$').unwrap_or(pattern);
    let mut path = String::with_capacity(body.len() + 16);
    if !body.starts_with('/') {
        path.push('/');
    }
    path.push_str(&body.replace('*', "x1"));
    if !anchored {
        match k % 3 {
            1 => path.push_str(if path.ends_with('/') {
                "page.html"
            } else {
                "/page.html"
            }),
            2 => path.push_str("?id=7&ref=home"),
            _ => {}
        }
    }
    path
}

pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

pub(crate) fn fmt_time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}
