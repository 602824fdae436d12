//! Shared helpers: where the project's shared data lives, and its loaders.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::Deserialize;

pub(crate) use botwarden_testdata::{snapshot, workspace};

/// `../shared` with its conformance vectors (see [`botwarden_testdata::shared`]).
pub(crate) fn shared(suite: &str) -> Option<PathBuf> {
    botwarden_testdata::shared(suite, "vectors")
}

/// One robots.txt conformance vector.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Vector {
    pub(crate) source: String,
    robots: String,
    robots_base64: Option<String>,
    pub(crate) agent: String,
    pub(crate) url: String,
    pub(crate) allowed: bool,
    pub(crate) google_robotstxt_allowed: bool,
    /// `file:line` of the case.
    #[serde(skip)]
    pub(crate) id: String,
}

impl Vector {
    /// The exact body bytes.
    pub(crate) fn body(&self) -> Vec<u8> {
        match &self.robots_base64 {
            Some(b) => base64::engine::general_purpose::STANDARD
                .decode(b)
                .expect("robots_base64 is valid base64"),
            None => self.robots.clone().into_bytes(),
        }
    }
}

/// Reads every `*.jsonl` vector file that is not metadata.
pub(crate) fn vectors(shared: &std::path::Path) -> Vec<Vector> {
    let dir = shared.join("vectors/robots");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("read vectors dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.ends_with(".jsonl") && !name.contains("metadata")
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let text = std::fs::read_to_string(&file).expect("read vector file");
        for (i, line) in text.lines().enumerate() {
            let mut v: Vector =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
            v.id = format!("{name}:{}", i + 1);
            out.push(v);
        }
    }
    out
}

/// One metadata vector (`*-metadata.jsonl`).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct MetaVector {
    pub(crate) source: String,
    pub(crate) robots: String,
    pub(crate) agent: Option<String>,
    pub(crate) query: String,
    pub(crate) expected: serde_json::Value,
}

pub(crate) fn meta_vectors(shared: &std::path::Path, file: &str) -> Vec<(String, MetaVector)> {
    let text =
        std::fs::read_to_string(shared.join("vectors/robots").join(file)).expect("read metadata");
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            let v = serde_json::from_str(l).unwrap_or_else(|e| panic!("{file}:{}: {e}", i + 1));
            (format!("{file}:{}", i + 1), v)
        })
        .collect()
}

/// The files of a corpus folder (not `*.tsv`), sorted.
pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|x| x != "tsv"))
        .collect();
    out.sort();
    out
}

/// Where the Protego corpus is, if it is there.
pub(crate) fn protego(suite: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("BOTWARDEN_PROTEGO_CORPUS").map_or_else(
        || workspace().join("target/protego-corpus/protego-0.7.0/tests/test_data"),
        PathBuf::from,
    );
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "\n!!! {suite}: Protego's corpus not found at {} — this suite did NOT run.\n\
         !!! Run scripts/protego-corpus (it downloads protego 0.7.0 from PyPI) or set \
         BOTWARDEN_PROTEGO_CORPUS.\n",
        dir.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
    eprintln!("{msg}");
    None
}
