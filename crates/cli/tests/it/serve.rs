//! `botwarden serve`: the API's answers are the command's JSON, byte for
//! byte, for the testdata cases; SIGTERM stops it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};

use botwarden_testdata::dns::{BackgroundDns, Zone};
use serde_json::Value;

use crate::{TempFile, botwarden};

const REGISTRY: &str = "\
bots:
  - name: Searchbot
    category: search
    robots_tokens: [Searchbot]
    fcrdns_hosts: [searchbot.example]
";

/// `botwarden serve` on a free port, killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_botwarden"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start botwarden serve");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("serve says where it listens")
                .expect("stderr line");
            if let Some(rest) = line.strip_prefix("botwarden: listening on http://") {
                break rest.trim_end_matches('/').parse().expect("an address");
            }
        };
        // Keep draining the logs so the server never blocks on them.
        std::thread::spawn(move || for _ in lines {});
        Server { child, addr }
    }

    /// One request; the status and body.
    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.addr).expect("connect");
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("send");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("read");
        let text = String::from_utf8(answer).expect("UTF-8");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head");
        let status = head[9..12].parse().expect("status");
        (status, body.to_owned())
    }

    fn post(&self, path: &str, body: &Value) -> String {
        let (status, text) = self.request("POST", path, &body.to_string());
        assert_eq!(status, 200, "{path}: {text}");
        text
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run(args: &[&str]) -> (String, String) {
    let out = botwarden(args, b"");
    (
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

#[test]
fn the_api_answers_as_the_command_does() {
    let registry = TempFile::new("registry.yaml", REGISTRY.as_bytes());
    let ranges = TempFile::new("none", b"");
    let ranges_dir = ranges.path.with_file_name("ranges");
    let ranges_dir = ranges_dir.to_str().expect("UTF-8");
    let server = Server::start(&[
        "--no-default-registry",
        "--registry",
        registry.arg(),
        "--ranges-dir",
        ranges_dir,
        "--no-dns",
    ]);
    let cases = botwarden_testdata::robots_cases();
    assert!(cases.len() > 20, "the testdata cases");
    for case in &cases {
        let file = TempFile::new("robots.txt", &case.robots);
        let b64 = base64_of(&case.robots);
        // check
        let (cli, _) = run(&["robots", "check", file.arg(), "--format", "json"]);
        let api = server.post(
            "/api/v1/check",
            &serde_json::json!({"robots_txt_base64": b64, "name": file.arg()}),
        );
        assert_eq!(api, cli, "check of case {}", case.id);
        // fix: the file on standard output, the summary on standard error
        let (fixed, summary) = run(&["robots", "fix", file.arg()]);
        let api: Value = serde_json::from_str(&server.post(
            "/api/v1/fix",
            &serde_json::json!({"robots_txt_base64": b64, "name": file.arg()}),
        ))
        .expect("JSON");
        assert_eq!(api["fixed"], fixed, "fix of case {}", case.id);
        assert_eq!(api["summary"], summary, "fix summary of case {}", case.id);
        // test
        let urls: Vec<&str> = case.checks.iter().map(|c| c.url.as_str()).collect();
        if urls.is_empty() || case.agent.trim().is_empty() {
            continue;
        }
        for profile in ["rfc9309", "google", "strict"] {
            let mut args = vec![
                "robots",
                "test",
                file.arg(),
                "--agent",
                &case.agent,
                "--profile",
                profile,
                "--format",
                "json",
            ];
            args.extend(&urls);
            let (cli, _) = run(&args);
            let api: Value = serde_json::from_str(&server.post(
                "/api/v1/test",
                &serde_json::json!({"robots_txt_base64": b64, "agent": case.agent,
                                    "profile": profile, "urls": urls}),
            ))
            .expect("JSON");
            let cli: Vec<Value> = cli
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect();
            assert_eq!(
                api["answers"],
                Value::Array(cli),
                "test of case {}",
                case.id
            );
        }
    }
}

fn base64_of(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn verify_and_classify_answer_as_the_command_does() {
    let dns = BackgroundDns::start(
        Zone::new()
            .ptr("192.0.2.200", &["crawl-1.searchbot.example"])
            .a("crawl-1.searchbot.example", &["192.0.2.200"])
            .ptr("192.0.2.201", &["crawl-1.searchbot.example.evil.example"])
            .a("crawl-1.searchbot.example.evil.example", &["192.0.2.201"])
            .servfail("192.0.2.203"),
    );
    let registry = TempFile::new("registry.yaml", REGISTRY.as_bytes());
    let ns = dns.addr().to_string();
    let ranges_dir = registry.path.with_file_name("ranges");
    let ranges_dir = ranges_dir.to_str().expect("UTF-8");
    let common = [
        "--no-default-registry",
        "--registry",
        registry.arg(),
        "--ranges-dir",
        ranges_dir,
    ];
    let mut serve_args = common.to_vec();
    serve_args.extend(["--nameserver", &ns]);
    let server = Server::start(&serve_args);
    let uas = [
        "Mozilla/5.0 (compatible; Searchbot/2.1)",
        "curl/8.0",
        "OddCrawler/0.1 (+https://odd.example/crawler)",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
    ];
    for ip in [
        "192.0.2.200",
        "192.0.2.201",
        "192.0.2.203",
        "::ffff:192.0.2.200",
    ] {
        for ua in uas {
            let mut args = vec!["bots", "verify", ip, "--ua", ua, "--format", "json"];
            args.extend(common);
            args.extend(["--nameserver", &ns]);
            let (cli, err) = run(&args);
            let query: String = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("ip", ip)
                .append_pair("ua", ua)
                .finish();
            let (status, api) = server.request("GET", &format!("/api/v1/verify?{query}"), "");
            assert_eq!(status, 200, "{api}");
            assert_eq!(api, cli, "verify {ip} {ua}: {err}");
        }
    }
    let mut args = vec!["bots", "classify", "--format", "json", "--explain"];
    args.extend(common);
    args.extend(uas);
    let (cli, _) = run(&args);
    let api: Value = serde_json::from_str(&server.post(
        "/api/v1/classify",
        &serde_json::json!({"user_agents": uas, "explain": true}),
    ))
    .expect("JSON");
    let cli: Vec<Value> = cli
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(api["results"], Value::Array(cli));
}

#[test]
fn sigterm_stops_it() {
    let server = Server::start(&["--no-dns"]);
    let (status, body) = server.request("GET", "/healthz", "");
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    let pid = server.child.id().to_string();
    let mut server = server;
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill")
            .success()
    );
    let status = server.child.wait().expect("exits");
    assert!(status.success(), "{status}");
}

#[test]
fn bad_configuration_is_named() {
    let config = TempFile::new("serve.toml", b"listen = \"nowhere\"\n");
    let out = botwarden(&["serve", "--config", config.arg()], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("configuration {}", config.arg())),
        "{err}"
    );
    assert!(err.contains("line 1"), "{err}");
}
