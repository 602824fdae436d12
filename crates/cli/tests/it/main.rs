//! Integration tests of the `botwarden` binary.

mod audit;
mod bots_check_agent;
mod bots_registry;
mod bots_signature;
mod bots_verify;
mod crawl;
mod crawl_render;
mod crawl_shared;
mod crawl_signed;
mod exports_follow;
mod input;
mod logs;
mod logs_crawl;
mod logs_nats;
mod robots_check;
mod robots_fetch;
mod robots_fix;
mod robots_test;
mod secrets;
mod serve;
mod serve_redis;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Runs `botwarden` with `args`, feeding `stdin`.
pub(crate) fn botwarden(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start botwarden");
    // The input is written from another thread while this one reads the
    // output: a large input and a large output would otherwise each wait
    // for the other to drain a full pipe.
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&stdin));
    let output = child.wait_with_output().expect("wait for botwarden");
    // A binary that stops early (a usage error) may close its input before
    // reading it: a broken pipe is not a failure of the test.
    if let Err(e) = writer.join().expect("stdin writer") {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    output
}

/// A file in a fresh temporary folder, removed with the folder on drop.
pub(crate) struct TempFile {
    dir: PathBuf,
    pub(crate) path: PathBuf,
}

impl TempFile {
    pub(crate) fn new(name: &str, body: &[u8]) -> TempFile {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("botwarden-cli-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        let path = dir.join(name);
        std::fs::write(&path, body).expect("write temp file");
        TempFile { dir, path }
    }

    pub(crate) fn arg(&self) -> &str {
        self.path.to_str().expect("UTF-8 temp path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
