//! The memory and connection bounds under attack, measured on a service
//! of its own: this test binary run again as a child process (under
//! `prlimit`, with a small open-file limit), whose resident memory is read
//! from `/proc` while loopback clients attack it. Every attack is bounded
//! in count and time.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::{TempDir, config};

/// Set in the child's environment: the child serves instead of testing.
const CHILD: &str = "BOTWARDEN_SERVE_TEST_CHILD";
/// The child's open-file limit.
const OPEN_FILES: usize = 256;
const MAX_JOBS: usize = 4;
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
const STREAMS: u32 = 16;

/// The service of the child process: serves on a free port until its
/// standard input closes. A no-op unless run as the child.
#[test]
fn child_service() {
    let Ok(dir) = std::env::var(CHILD) else {
        return;
    };
    let dir = TempDir(dir.into());
    let mut cfg = config(&dir);
    cfg.no_dns = true;
    cfg.max_jobs = MAX_JOBS;
    cfg.workers = 2;
    cfg.max_body_bytes = MAX_BODY_BYTES;
    cfg.http2_max_streams = STREAMS;
    cfg.header_timeout = 60.0;
    cfg.body_timeout = 60.0;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(cfg.listen)
            .await
            .expect("bind");
        let service = botwarden_serve::Service::new(cfg).expect("starts");
        // The parent reads where the child listens from its output.
        let mut out = std::io::stdout();
        writeln!(
            out,
            "child-listening {} {}",
            listener.local_addr().expect("bound"),
            service.config().max_connections
        )
        .expect("stdout");
        out.flush().expect("stdout");
        let stdin_closed = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {}
        });
        service
            .run(listener, async {
                let _ = stdin_closed.await;
            })
            .await
            .expect("serves");
    });
    std::mem::forget(dir);
}

/// The child, stopped when dropped.
struct ChildService {
    child: Child,
    addr: SocketAddr,
    max_connections: usize,
    _dir: TempDir,
}

impl Drop for ChildService {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ChildService {
    fn start(tag: &str) -> ChildService {
        let dir = TempDir::new(tag);
        let exe = std::env::current_exe().expect("the test binary");
        let mut child = Command::new("prlimit")
            .arg(format!("--nofile={OPEN_FILES}:{OPEN_FILES}"))
            .arg("--")
            .arg(exe)
            .args(["memory::child_service", "--exact", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(CHILD, &dir.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("prlimit (util-linux) runs the child");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let (addr, max_connections) = loop {
            let line = lines
                .next()
                .expect("the child says where it listens")
                .expect("a line");
            // libtest writes the test's name first, on the same line.
            if let Some((_, rest)) = line.split_once("child-listening ") {
                let (addr, max) = rest.split_once(' ').expect("two fields");
                break (
                    addr.parse().expect("address"),
                    max.parse().expect("a count"),
                );
            }
        };
        ChildService {
            child,
            addr,
            max_connections,
            _dir: dir,
        }
    }

    /// Kibibytes of `VmRSS` or `VmHWM` (the peak) of the child, read
    /// from `/proc`.
    fn memory(&self, field: &str) -> usize {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the child's status");
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("a field of kB")
    }
}

/// An HTTP/2 frame.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).expect("small");
    let mut out = len.to_be_bytes()[1..].to_vec();
    out.extend([kind, flags]);
    out.extend(stream.to_be_bytes());
    out.extend(payload);
    out
}

/// A header field as HPACK writes one literally, without indexing.
fn literal(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(0);
    for text in [name, value] {
        let len = u8::try_from(text.len()).expect("short");
        assert!(len < 127);
        out.push(len);
        out.extend(text.as_bytes());
    }
}

/// An HTTP/2 connection (prior knowledge) that opens `streams` requests
/// `POST /api/v1/check` and never sends a byte of their bodies; what the
/// service sends back is read and thrown away.
async fn silent_streams(addr: SocketAddr, streams: u32) -> Option<TcpStream> {
    let mut tcp = TcpStream::connect(addr).await.ok()?;
    let mut out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    out.extend(frame(0x4, 0, 0, &[]));
    for i in 0..streams {
        let mut block = Vec::new();
        literal(&mut block, ":method", "POST");
        literal(&mut block, ":scheme", "http");
        literal(&mut block, ":path", "/api/v1/check");
        literal(&mut block, ":authority", "x");
        literal(&mut block, "content-type", "application/json");
        literal(&mut block, "content-length", "1000000");
        // END_HEADERS, not END_STREAM: the body is to come.
        out.extend(frame(0x1, 0x4, 2 * i + 1, &block));
    }
    tcp.write_all(&out).await.ok()?;
    Some(tcp)
}

/// An HTTP/1.1 `POST /api/v1/check` declaring a 10.9 MiB body and sending
/// all of it but one byte (for at most `within`).
async fn held_body(addr: SocketAddr, within: Duration) -> Option<TcpStream> {
    const LEN: usize = 10_900 * 1024;
    let mut tcp = TcpStream::connect(addr).await.ok()?;
    let head = format!(
        "POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {LEN}\r\n\r\n{{\"robots_txt\": \""
    );
    let chunk = vec![b'a'; 64 * 1024];
    let send = async {
        tcp.write_all(head.as_bytes()).await?;
        let mut left = LEN - head.len() - 1;
        while left > 0 {
            let n = left.min(chunk.len());
            tcp.write_all(&chunk[..n]).await?;
            left -= n;
        }
        Ok::<_, std::io::Error>(())
    };
    let _ = tokio::time::timeout(within, send).await;
    Some(tcp)
}

/// Whether `GET /verify` is answered on a new connection within `within`.
async fn verify_answers(addr: SocketAddr, within: Duration) -> bool {
    let ask = async {
        let mut tcp = TcpStream::connect(addr).await.ok()?;
        tcp.write_all(
            b"GET /verify HTTP/1.1\r\nHost: x\r\nUser-Agent: probe\r\nConnection: close\r\n\r\n",
        )
        .await
        .ok()?;
        let mut got = Vec::new();
        tcp.read_to_end(&mut got).await.ok()?;
        Some(got.starts_with(b"HTTP/1.1 200"))
    };
    matches!(tokio::time::timeout(within, ask).await, Ok(Some(true)))
}

/// The documented bound on what an attack adds to the memory of a service
/// at rest (docs/serve.md, "Memory"), in KiB, for the child's settings.
fn documented_bound_kib(max_connections: usize) -> usize {
    let per_connection = 288;
    let per_stream = 20;
    let bodies = 2 * MAX_BODY_BYTES / 1024;
    let per_job = 4 * 11 * 1024;
    max_connections * per_connection
        + max_connections * usize::try_from(STREAMS).expect("small") * per_stream
        + bodies
        + MAX_JOBS * per_job
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_stays_under_the_documented_bound_under_slow_clients_and_streams() {
    let child = ChildService::start("memory");
    let addr = child.addr;
    let at_rest = child.memory("VmRSS:");
    let bound = documented_bound_kib(child.max_connections);

    // HTTP/2: 120 connections of 64 streams each whose bodies never come.
    let mut held = Vec::new();
    for _ in 0..120 {
        held.extend(silent_streams(addr, 64).await);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after_streams = child.memory("VmHWM:");
    // Their bodies never came: the streams held the jobs admitted.
    held.clear();
    tokio::time::sleep(Duration::from_millis(500)).await;
    // HTTP/1.1: 40 bodies of 10.9 MiB held one byte short.
    let sends: Vec<_> = (0..40)
        .map(|_| tokio::spawn(held_body(addr, Duration::from_secs(5))))
        .collect();
    for send in sends {
        held.extend(send.await.expect("sent"));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let peak = child.memory("VmHWM:");
    assert!(
        peak.saturating_sub(at_rest) <= bound,
        "at rest {at_rest} KiB, peak {peak} KiB (after the streams {after_streams} KiB): \
         more than the documented {bound} KiB over rest"
    );
    // The service still answers.
    assert!(verify_answers(addr, Duration::from_secs(10)).await);
    drop(held);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_past_the_descriptor_limit_leave_verify_answering() {
    let child = ChildService::start("connections");
    let addr = child.addr;
    assert!(
        child.max_connections < OPEN_FILES,
        "{}",
        child.max_connections
    );
    // Three times the open-file limit of idle connections.
    let mut idle = Vec::new();
    for _ in 0..3 * OPEN_FILES {
        let connect = tokio::time::timeout(Duration::from_secs(2), TcpStream::connect(addr));
        if let Ok(Ok(tcp)) = connect.await {
            idle.push(tcp);
        }
    }
    let mut answered = 0;
    for _ in 0..10 {
        if verify_answers(addr, Duration::from_secs(10)).await {
            answered += 1;
        }
    }
    assert_eq!(
        answered, 10,
        "of 10 /verify probes, {answered} were answered"
    );
    drop(idle);
}
