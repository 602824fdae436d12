//! Loader for the data-driven test cases in `testdata/`.
//!
//! Every layer runs the same cases: the library through its API, the
//! command line through the `botwarden` binary, and later the web service
//! through its API. A case file is TOML:
//!
//! ```toml
//! [[case]]
//! name = "longest match wins"
//! design = "2.2"                 # the DESIGN.md section it pins down
//! robots = '''
//! User-agent: *
//! Disallow: /a
//! Allow: /a/b
//! '''
//! agent = "examplebot"           # a token chain, most specific first
//! checks = [
//!   { url = "/a/b/c", allowed = ["rfc9309", "google", "bing", "yandex"] },
//!   { url = "/a/x", allowed = "none" },
//! ]
//! ```
//!
//! `allowed` is `"all"`, `"none"`, or the list of profiles that allow the
//! URL; every other profile must disallow it. `robots_base64` replaces
//! `robots` for bodies that are not UTF-8.

pub mod chromium;
pub mod dns;
pub mod loggen;
pub mod nats;
mod process;
pub mod redis;
pub mod secured;
mod xorshift;
pub use process::{TempDir, free_port, program};
use std::path::{Path, PathBuf};
pub use xorshift::Xorshift;

use base64::Engine as _;
use serde::Deserialize;

/// The names of the built-in profiles, in the order cases are checked.
pub const PROFILES: [&str; 5] = ["rfc9309", "google", "bing", "yandex", "strict"];

/// One robots.txt case.
#[derive(Debug, Clone)]
pub struct RobotsCase {
    /// `file.toml: name`.
    pub id: String,
    /// The DESIGN.md section the case pins down.
    pub design: String,
    /// The body.
    pub robots: Vec<u8>,
    /// The token chain, comma-separated.
    pub agent: String,
    /// The URLs and their expected verdicts.
    pub checks: Vec<Check>,
}

/// One URL of a case.
#[derive(Debug, Clone)]
pub struct Check {
    /// A full URL or a path.
    pub url: String,
    /// The profiles under which the URL is allowed.
    pub allowed: Vec<&'static str>,
}

impl Check {
    /// Whether `profile` must allow the URL.
    #[must_use]
    pub fn allowed_under(&self, profile: &str) -> bool {
        self.allowed.contains(&profile)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    case: Vec<RawCase>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    name: String,
    design: String,
    robots: Option<String>,
    robots_base64: Option<String>,
    agent: String,
    checks: Vec<RawCheck>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    url: String,
    allowed: Allowed,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Allowed {
    Word(String),
    List(Vec<String>),
}

/// The `testdata/` folder at the workspace root.
#[must_use]
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// Every case of `testdata/robots/*.toml`, in file order.
///
/// # Panics
/// On an unreadable or malformed file, naming it: test data must be right.
#[must_use]
pub fn robots_cases() -> Vec<RobotsCase> {
    let folder = dir().join("robots");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let file: File = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for raw in file.case {
            let id = format!("{name}: {}", raw.name);
            let robots = match (raw.robots, raw.robots_base64) {
                (Some(text), None) => text.into_bytes(),
                (None, Some(b)) => base64::engine::general_purpose::STANDARD
                    .decode(b.trim())
                    .unwrap_or_else(|e| panic!("{id}: robots_base64: {e}")),
                _ => panic!("{id}: give exactly one of robots and robots_base64"),
            };
            let checks = raw
                .checks
                .into_iter()
                .map(|c| Check {
                    allowed: profiles(&id, &c.url, c.allowed),
                    url: c.url,
                })
                .collect();
            out.push(RobotsCase {
                id,
                design: raw.design,
                robots,
                agent: raw.agent,
                checks,
            });
        }
    }
    out
}

fn profiles(id: &str, url: &str, allowed: Allowed) -> Vec<&'static str> {
    match allowed {
        Allowed::Word(w) if w == "all" => PROFILES.to_vec(),
        Allowed::Word(w) if w == "none" => Vec::new(),
        Allowed::Word(w) => {
            panic!("{id}: {url}: allowed must be \"all\", \"none\" or a list, not {w:?}")
        }
        Allowed::List(list) => list
            .iter()
            .map(|p| {
                PROFILES
                    .iter()
                    .copied()
                    .find(|k| k == p)
                    .unwrap_or_else(|| panic!("{id}: {url}: unknown profile {p:?}"))
            })
            .collect(),
    }
}

/// The workspace root.
#[must_use]
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `../shared` beside the project (or `$BOTWARDEN_SHARED`), when its
/// `needs` folder is there. When it is absent the calling suite is skipped
/// loudly, and fails under CI.
///
/// # Panics
/// Under CI (`CI=true`) when the folder is absent.
#[must_use]
pub fn shared(suite: &str, needs: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("BOTWARDEN_SHARED")
        .map_or_else(|| workspace().join("../shared"), PathBuf::from);
    if dir.join(needs).is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "\n!!! {suite}: shared data not found at {} — this suite did NOT run.\n\
         !!! Put the project's shared/ folder beside the repository or set BOTWARDEN_SHARED.\n",
        dir.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{msg}");
    }
    None
}

/// Whether generated files should be rewritten instead of compared
/// (`BOTWARDEN_BLESS` set).
#[must_use]
pub fn bless() -> bool {
    std::env::var_os("BOTWARDEN_BLESS").is_some()
}

/// Compares `got` with the file at `path` (relative to the workspace), or
/// rewrites the file when blessing.
///
/// # Panics
/// When they differ, naming the file and the first differing line.
pub fn snapshot(path: &str, got: &str) {
    let file = workspace().join(path);
    if bless() {
        std::fs::write(&file, got).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        return;
    }
    let want = std::fs::read_to_string(&file).unwrap_or_default();
    if want != got {
        let first = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(got.lines().count()));
        panic!(
            "{path} is out of date (first difference at line {}); \
             rerun with BOTWARDEN_BLESS=1 and review the diff",
            first + 1
        );
    }
}
