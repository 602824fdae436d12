//! The peer of `botwarden robots test` in the whole-process comparison of
//! `scripts/bench-robots-test`: the same job done with the `texting_robots`
//! crate, and the same input and output handling as botwarden's command
//! (standard input read in 256 KiB blocks, lines trimmed, blank lines
//! skipped, `allowed<TAB>url` or `disallowed<TAB>url` through one buffered
//! writer), so that the two processes differ by their robots.txt engine.
//!
//! ```sh
//! cargo run --release -p botwarden-robots --example texting_robots_test -- robots.txt googlebot < urls.txt
//! ```

#![allow(clippy::print_stderr)]

use std::io::{BufWriter, ErrorKind, Read, Write};
use std::process::ExitCode;

const BLOCK: usize = 256 * 1024;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, agent] = args.as_slice() else {
        eprintln!("usage: texting_robots_test ROBOTS_TXT AGENT < urls");
        return ExitCode::from(2);
    };
    match run(file, agent) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("texting_robots_test: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(file: &str, agent: &str) -> Result<(), String> {
    let body = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let robot = texting_robots::Robot::new(agent, &body).map_err(|e| format!("{file}: {e}"))?;
    let mut out = BufWriter::with_capacity(BLOCK, std::io::stdout().lock());
    let mut input = std::io::stdin().lock();
    let mut buf = vec![0u8; BLOCK];
    // Bytes of `buf` before `searched` hold no line break.
    let (mut filled, mut searched) = (0, 0);
    let mut answer = |line: &[u8]| -> Result<(), String> {
        let text = std::str::from_utf8(line).map_err(|e| format!("standard input: {e}"))?;
        let url = text.trim();
        if url.is_empty() {
            return Ok(());
        }
        let verdict: &[u8] = if robot.allowed(url) {
            b"allowed\t"
        } else {
            b"disallowed\t"
        };
        out.write_all(verdict)
            .and_then(|()| out.write_all(url.as_bytes()))
            .and_then(|()| out.write_all(b"\n"))
            .map_err(|e| format!("standard output: {e}"))
    };
    loop {
        let n = match input.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("standard input: {e}")),
        };
        filled += n;
        let mut start = 0;
        while let Some(end) = memchr::memchr(b'\n', &buf[searched..filled]) {
            answer(&buf[start..searched + end])?;
            start = searched + end + 1;
            searched = start;
        }
        if n == 0 {
            if start < filled {
                answer(&buf[start..filled])?;
            }
            break;
        }
        if start > 0 {
            buf.copy_within(start..filled, 0);
            filled -= start;
        }
        searched = filled;
        if filled == buf.len() {
            buf.resize(2 * buf.len(), 0);
        }
    }
    out.flush().map_err(|e| format!("standard output: {e}"))
}
