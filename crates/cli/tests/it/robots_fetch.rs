//! `botwarden robots fetch`, against HTTP servers on 127.0.0.1.

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::time::Duration;

use serde_json::Value;

use crate::botwarden;

/// A raw HTTP response, closing the connection.
pub(crate) fn reply(status: u16, headers: &[(&str, &str)], body: &str) -> String {
    let mut out = format!("HTTP/1.1 {status} Status\r\nConnection: close\r\n");
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    out
}

/// An HTTP/1.1 server on 127.0.0.1 that answers each request with
/// `route(path)`, one connection at a time, until the test process ends.
pub(crate) fn serve(route: impl Fn(&str) -> String + Send + 'static) -> SocketAddr {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&request);
            let path = head.split(' ').nth(1).unwrap_or("/").to_owned();
            let _ = stream.write_all(route(&path).as_bytes());
        }
    });
    addr
}

const ROBOTS: &str = "User-agent: *\nDisallow: /private\n";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = botwarden(args, b"");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

fn run_json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json", "--allow-private"]);
    let (code, stdout, stderr) = run(&all);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 1, "one JSON object");
    serde_json::from_str(&stdout).expect("JSON")
}

fn decision<'a>(json: &'a Value, policy: &str) -> &'a str {
    json["availability"][policy]["decision"]
        .as_str()
        .unwrap_or_else(|| panic!("no decision for {policy}: {json}"))
}

#[test]
fn text_shows_the_chain_and_every_decision() {
    let addr = serve(|path| match path {
        "/robots.txt" => reply(301, &[("Location", "/real/robots.txt")], ""),
        "/real/robots.txt" => reply(200, &[("Content-Type", "text/plain")], ROBOTS),
        _ => reply(404, &[], ""),
    });
    let site = format!("http://{addr}/some/page");
    let (code, stdout, stderr) = run(&["robots", "fetch", &site, "--allow-private"]);
    assert_eq!(code, 0, "{stderr}");
    let robots = format!("http://{addr}/robots.txt");
    let first = stdout.lines().next().expect("a first line");
    assert_eq!(first, format!("fetch             {robots}  (for {site})"));
    let hops: Vec<&str> = stdout.lines().filter(|l| l.starts_with("hop ")).collect();
    assert_eq!(hops.len(), 2, "{stdout}");
    assert!(
        hops[0].contains(" 301 ") && hops[0].ends_with(&format!("{robots} -> /real/robots.txt"))
    );
    assert!(hops[1].contains(" 200 ") && hops[1].ends_with("/real/robots.txt"));
    for line in [
        "status            200 OK",
        "content type      text/plain",
        "encoding          UTF-8 (assumed)",
        "content encoding  none",
        &format!("size              {} bytes", ROBOTS.len()),
        "cut               no",
        "availability",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no line {line:?} in\n{stdout}"
        );
    }
    let decisions: Vec<&str> = stdout
        .lines()
        .skip_while(|l| *l != "availability")
        .skip(1)
        .collect();
    let names: Vec<&str> = decisions
        .iter()
        .map(|l| l.split_whitespace().next().expect("a name"))
        .collect();
    assert_eq!(
        names,
        ["rfc9309", "google", "bing", "yandex", "strict", "mandelbot"]
    );
    assert!(
        decisions
            .iter()
            .all(|l| l.split_whitespace().nth(1) == Some("parse")),
        "{stdout}"
    );
}

#[test]
fn json_for_a_401() {
    let addr = serve(|_| reply(401, &[("WWW-Authenticate", "Basic")], "no"));
    let json = run_json(&["robots", "fetch", &format!("http://{addr}/")]);
    assert_eq!(json["url"], format!("http://{addr}/"));
    assert_eq!(json["robots_url"], format!("http://{addr}/robots.txt"));
    assert_eq!(json["status"], 401);
    assert_eq!(json["hops"].as_array().expect("hops").len(), 1);
    assert_eq!(json["hops"][0]["status"], 401);
    assert!(json["hops"][0]["elapsed_ms"].is_u64());
    assert_eq!(json["error"], Value::Null);
    assert_eq!(json["truncated"], false);
    let keys: Vec<&String> = json["availability"]
        .as_object()
        .expect("object")
        .keys()
        .collect();
    assert_eq!(keys.len(), 6);
    for (policy, want) in [
        ("rfc9309", "full-allow"),
        ("google", "full-allow"),
        ("bing", "full-allow"),
        ("yandex", "full-allow"),
        ("strict", "full-disallow"),
        ("mandelbot", "full-allow"),
    ] {
        assert_eq!(decision(&json, policy), want, "{policy}");
    }
    let reason = json["availability"]["strict"]["reason"]
        .as_str()
        .expect("reason");
    assert!(
        reason.starts_with("401 Unauthorized; 1997 draft"),
        "{reason}"
    );
}

#[test]
fn json_for_a_503_with_retry_after() {
    let addr = serve(|path| match path {
        "/robots.txt" => reply(503, &[("Retry-After", "120")], "busy"),
        _ => reply(404, &[], ""),
    });
    let json = run_json(&["robots", "fetch", &format!("http://{addr}/x")]);
    assert_eq!(json["status"], 503);
    assert_eq!(json["retry_after"], "120");
    assert_eq!(json["missing_probe"]["status"], 404);
    assert_eq!(decision(&json, "rfc9309"), "full-disallow");
    assert_eq!(decision(&json, "google"), "full-disallow");
    assert_eq!(decision(&json, "yandex"), "full-allow");
    assert_eq!(decision(&json, "strict"), "retry-later");
    assert_eq!(decision(&json, "mandelbot"), "retry-later");
    assert_eq!(json["availability"]["strict"]["retry_after_secs"], 120);
    assert_eq!(json["availability"]["rfc9309"]["refetch_after_secs"], 120);
}

#[test]
fn chosen_profiles_only() {
    let addr = serve(|_| reply(200, &[("Content-Type", "text/plain")], ROBOTS));
    let url = format!("http://{addr}/");
    let json = run_json(&[
        "robots",
        "fetch",
        &url,
        "-p",
        "google,strict",
        "--profile",
        "google",
    ]);
    let keys: Vec<&String> = json["availability"]
        .as_object()
        .expect("object")
        .keys()
        .collect();
    assert_eq!(keys, ["google", "strict"]);
    let (code, stdout, _) = run(&[
        "robots",
        "fetch",
        &url,
        "--allow-private",
        "-p",
        "mandelbot",
    ]);
    assert_eq!(code, 0);
    let tail: Vec<&str> = stdout
        .lines()
        .skip_while(|l| *l != "availability")
        .collect();
    assert_eq!(tail.len(), 2, "{stdout}");
    assert!(
        tail[1].trim_start().starts_with("mandelbot  parse"),
        "{stdout}"
    );
}

#[test]
fn max_bytes_cuts_the_body() {
    let addr = serve(|_| reply(200, &[("Content-Type", "text/plain")], ROBOTS));
    let url = format!("http://{addr}/");
    let json = run_json(&["robots", "fetch", &url, "--max-bytes", "10"]);
    assert_eq!(json["bytes"], 10);
    assert_eq!(json["truncated"], true);
    assert_eq!(json["full_bytes"], ROBOTS.len());
    let warnings = json["warnings"].as_array().expect("warnings");
    assert!(warnings.iter().any(|w| {
        w.as_str()
            .is_some_and(|w| w.starts_with("body cut after 10 of"))
    }));
    let (_, stdout, _) = run(&[
        "robots",
        "fetch",
        &url,
        "--allow-private",
        "--max-bytes",
        "10",
    ]);
    let line = format!("cut               yes: 10 of {} bytes kept", ROBOTS.len());
    assert!(stdout.lines().any(|l| l == line), "{stdout}");
}

#[test]
fn a_network_error_is_a_decision() {
    let port = {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
        listener.local_addr().expect("address").port()
    };
    let json = run_json(&["robots", "fetch", &format!("http://127.0.0.1:{port}/")]);
    assert_eq!(json["status"], Value::Null);
    assert_eq!(json["hops"][0]["status"], Value::Null);
    assert!(json["error"].is_string());
    assert_eq!(decision(&json, "rfc9309"), "full-disallow");
    assert_eq!(decision(&json, "yandex"), "full-allow");
    assert_eq!(decision(&json, "strict"), "retry-later");
}

#[test]
fn a_timeout_is_a_decision() {
    // Never answers within the time limit.
    let addr = serve(|_| {
        std::thread::sleep(Duration::from_secs(3));
        String::new()
    });
    let json = run_json(&[
        "robots",
        "fetch",
        &format!("http://{addr}/"),
        "--timeout",
        "0.3",
    ]);
    let error = json["error"].as_str().expect("an error");
    assert!(
        error.contains("no complete answer within 300 ms"),
        "{error}"
    );
    assert_eq!(decision(&json, "google"), "full-disallow");
    assert_eq!(decision(&json, "mandelbot"), "retry-later");
}

#[test]
fn loopback_is_refused_without_allow_private() {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let port = listener.local_addr().expect("address").port();
    for host in ["127.0.0.1", "localhost"] {
        let (code, stdout, stderr) = run(&["robots", "fetch", &format!("http://{host}:{port}/")]);
        assert_eq!(code, 2, "{stdout}");
        assert!(stdout.is_empty());
        assert!(stderr.contains("refusing to fetch"), "{stderr}");
        assert!(stderr.contains("loopback"), "{stderr}");
        assert!(stderr.contains("--allow-private"), "{stderr}");
    }
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("a connection was made: {other:?}"),
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["robots", "fetch", "example.com"][..],
        &["robots", "fetch", "ftp://example.com/"],
        &[
            "robots",
            "fetch",
            "http://127.0.0.1:9/",
            "--profile",
            "nope",
        ],
        &["robots", "fetch", "http://127.0.0.1:9/", "--max-bytes", "0"],
        &["robots", "fetch", "http://127.0.0.1:9/", "--timeout", "-1"],
        &["robots", "fetch"],
    ] {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stdout}");
        assert!(!stderr.is_empty(), "{args:?}");
    }
    let (_, _, stderr) = run(&["robots", "fetch", "example.com"]);
    assert!(
        stderr.contains("'example.com' is not a URL: give a full URL"),
        "{stderr}"
    );
}

/// Runs `botwarden` and waits for it to exit by itself; a process still
/// running after `patience` is killed and the test fails. (A guard against
/// a hang, far above what the command should take; not a measurement.)
fn run_to_exit(args: &[&str], patience: Duration) -> (i32, String, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start botwarden");
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if started.elapsed() > patience {
            let _ = child.kill();
            let _ = child.wait();
            panic!("botwarden {args:?} was still running after {patience:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

#[test]
fn names_are_resolved_by_the_given_name_server() {
    let site = serve(|path| match path {
        "/robots.txt" => reply(200, &[("Content-Type", "text/plain")], ROBOTS),
        _ => reply(404, &[], ""),
    });
    let dns = botwarden_testdata::dns::BackgroundDns::start(
        botwarden_testdata::dns::Zone::new().a("site.test", &["127.0.0.1"]),
    );
    let nameserver = dns.addr().to_string();
    let json = run_json(&[
        "robots",
        "fetch",
        &format!("http://site.test:{}/", site.port()),
        "--nameserver",
        &nameserver,
    ]);
    assert_eq!(json["status"], 200, "{json}");
    assert_eq!(decision(&json, "rfc9309"), "parse");
}

#[test]
fn a_name_server_that_never_answers_ends_within_the_timeout() {
    // Name resolution is part of the time limit, and nothing left running
    // keeps the process alive once it has answered.
    let silent = botwarden_testdata::dns::BlackHole::start();
    let nameserver = silent.addr().to_string();
    let (code, stdout, stderr) = run_to_exit(
        &[
            "robots",
            "fetch",
            "http://slow.test/",
            "--timeout",
            "1",
            "--nameserver",
            &nameserver,
            "--format",
            "json",
        ],
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).expect("JSON");
    assert!(json["status"].is_null(), "no answer: {json}");
    assert!(json["error"].is_string(), "the failure is named: {json}");
    assert_eq!(decision(&json, "rfc9309"), "full-disallow");
}

#[test]
fn the_missing_path_probe_shares_the_time_limit() {
    // robots.txt answers 500 after 600 ms; the probe for a missing path then
    // gets what is left of the 1 s limit, not a second full second.
    let addr = serve(|path| {
        if path == "/robots.txt" {
            std::thread::sleep(Duration::from_millis(600));
            reply(500, &[], "")
        } else {
            std::thread::sleep(Duration::from_secs(5));
            String::new()
        }
    });
    let json = run_json(&[
        "robots",
        "fetch",
        &format!("http://{addr}/"),
        "--timeout",
        "1",
    ]);
    assert_eq!(json["status"], 500, "{json}");
    let probe = &json["missing_probe"];
    assert!(probe["status"].is_null(), "{probe}");
    let left = probe["time_left_ms"].as_u64().expect("time_left_ms");
    assert!(left <= 400, "the probe had {left} ms, more than was left");
}
