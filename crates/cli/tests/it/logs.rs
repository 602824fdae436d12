//! `botwarden logs …` end to end: the binary on real logs, its reports and
//! exports, and a 1 GiB log in bounded memory.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::{TempFile, botwarden};

fn corpus() -> Option<PathBuf> {
    botwarden_testdata::shared("logs cli", "corpus/logs").map(|d| d.join("corpus/logs"))
}

const ELASTIC: &str = "elastic__examples__Common_Data_Formats_apache_logs_apache_logs.log";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn analyze_prints_a_report_that_adds_up() {
    let Some(dir) = corpus() else { return };
    let log = dir.join(ELASTIC);
    let out = botwarden(
        &[
            "logs",
            "analyze",
            "--no-dns",
            "--report",
            "json",
            log.to_str().expect("UTF-8"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let lines = &report["lines"];
    assert_eq!(lines["read"], 10_000);
    assert_eq!(
        lines["read"].as_u64(),
        Some(
            lines["parsed"].as_u64().unwrap_or(0)
                + lines["skipped"].as_u64().unwrap_or(0)
                + lines["failed"].as_u64().unwrap_or(0)
        )
    );
    assert_eq!(report["schema"], 1);
    let googlebot = report["bots"]
        .as_array()
        .expect("bots")
        .iter()
        .find(|b| b["bot"] == "Googlebot" && b["verdict"] == "verified")
        .expect("Googlebot verified by its ranges");
    assert_eq!(googlebot["ips"], 3);

    // The same as text, from standard input.
    let body = std::fs::read(&log).expect("read the log");
    let out = botwarden(&["logs", "analyze", "--no-dns", "-"], &body);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("read 10,000 = parsed"), "{report}");
    assert!(report.contains("Googlebot"), "{report}");
}

/// The same input gives the same report in every process (hash maps are
/// seeded per process, so their order must not reach the report); only the
/// generation time and the time spent waiting differ.
#[test]
fn reports_do_not_depend_on_the_process() {
    let Some(dir) = corpus() else { return };
    let log = dir.join(ELASTIC);
    let run = || {
        let out = botwarden(
            &[
                "logs",
                "analyze",
                "--no-dns",
                "--report",
                "json",
                log.to_str().expect("UTF-8"),
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let mut report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        report["generated"] = serde_json::Value::Null;
        report["verification"]["wait_seconds"] = serde_json::Value::Null;
        report
    };
    let first = run();
    for _ in 0..3 {
        assert_eq!(run(), first);
    }
}

#[test]
fn html_report_goes_to_a_file() {
    let Some(dir) = corpus() else { return };
    let out_file = TempFile::new("report.html", b"");
    let log = dir.join(ELASTIC);
    let out = botwarden(
        &[
            "logs",
            "analyze",
            "--no-dns",
            "--report",
            "html",
            "-o",
            out_file.arg(),
            log.to_str().expect("UTF-8"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let html = std::fs::read_to_string(&out_file.path).expect("the report");
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..100.min(html.len())]
    );
    assert!(html.contains("Googlebot"));
    assert!(html.contains("<svg"));
}

#[test]
fn export_writes_every_list() {
    let Some(dir) = corpus() else { return };
    let tmp = TempFile::new("placeholder", b"");
    let base = tmp.path.parent().expect("a folder").to_path_buf();
    let p = |name: &str| base.join(name).to_str().expect("UTF-8").to_owned();
    let log = dir.join(ELASTIC);
    let out = botwarden(
        &[
            "logs",
            "export",
            "--no-dns",
            "--export-acap",
            &p("acap"),
            "--export-apache-map",
            &p("apache.map"),
            "--export-nginx-geo",
            &p("geo.conf"),
            "--export-haproxy",
            &p("haproxy.map"),
            "--export-verified",
            &p("verified.txt"),
            "--export-spoofed",
            &p("spoofed.txt"),
            "--export-json",
            &p("listed.json"),
            log.to_str().expect("UTF-8"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // No report unless asked for.
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    for ip in ["66.249.73.135", "66.249.73.185", "66.249.74.55"] {
        assert!(base.join("acap/all-ok-bots").join(ip).is_file(), "{ip}");
        assert!(base.join("acap/Googlebot").join(ip).is_file(), "{ip}");
    }
    let verified = std::fs::read_to_string(base.join("verified.txt")).expect("the list");
    assert_eq!(
        verified.lines().collect::<Vec<_>>(),
        ["66.249.73.135", "66.249.73.185", "66.249.74.55"]
    );
    let map = std::fs::read_to_string(base.join("apache.map")).expect("the map");
    assert!(
        map.lines()
            .any(|l| l == "66.249.73.135 Googlebot,Googlebot-Image"),
        "{map}"
    );
    let geo = std::fs::read_to_string(base.join("geo.conf")).expect("the geo include");
    assert!(geo.contains("66.249.73.135"), "{geo}");
    let haproxy = std::fs::read_to_string(base.join("haproxy.map")).expect("the map");
    assert!(
        haproxy
            .lines()
            .any(|l| l == "66.249.73.135 Googlebot,Googlebot-Image"),
        "{haproxy}"
    );
    let json = std::fs::read_to_string(base.join("listed.json")).expect("the JSON");
    let listed: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert!(
        listed
            .as_array()
            .expect("an array")
            .iter()
            .any(|e| e["ip"] == "66.249.74.55"
                && e["bot"] == "Googlebot"
                && e["standing"] == "verified"),
        "{json}"
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("3 verified"), "{stderr}");

    // Without any --export-… there is nothing to do.
    let out = botwarden(
        &["logs", "export", "--no-dns", log.to_str().expect("UTF-8")],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--export"),
        "{}",
        text(&out.stderr)
    );
}

/// An export the system refuses is named with what was being done and the
/// system's error, said once, and the run exits 1.
#[test]
fn a_failed_export_names_the_path_and_the_cause_once() {
    let log = TempFile::new(
        "access.log",
        b"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n",
    );
    // A file where the list's directory should be.
    let target = log.path.join("verified.txt");
    let target = target.to_str().expect("UTF-8");
    let out = botwarden(
        &[
            "logs",
            "export",
            "--no-dns",
            "--export-verified",
            target,
            log.path.to_str().expect("UTF-8"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("botwarden: export failed: "))
        .unwrap_or_else(|| panic!("no failed export in {stderr}"));
    let cause = std::io::Error::from_raw_os_error(20).to_string();
    assert!(
        line.starts_with(&format!("botwarden: export failed: {target}: cannot ")),
        "{line}"
    );
    assert!(line.ends_with(&format!(": {cause}")), "{line}");
    assert_eq!(line.matches(&cause).count(), 1, "{line}");
}

#[test]
fn an_unreadable_input_is_reported_and_the_others_still_count() {
    let Some(dir) = corpus() else { return };
    let log = dir.join(ELASTIC);
    let out = botwarden(
        &[
            "logs",
            "analyze",
            "--no-dns",
            "--report",
            "json",
            "/nonexistent/botwarden/a.log",
            log.to_str().expect("UTF-8"),
        ],
        b"",
    );
    // A path that is not there is refused before anything is read.
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/botwarden/a.log"));

    // A file that cannot be read as gzip fails alone.
    let bad = TempFile::new("bad.log.gz", b"\x1f\x8b\x08\x00garbage");
    let out = botwarden(
        &[
            "logs",
            "analyze",
            "--no-dns",
            "--report",
            "json",
            bad.arg(),
            log.to_str().expect("UTF-8"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(
        report["inputs"][0]["error"].is_string(),
        "{}",
        report["inputs"][0]
    );
    assert_eq!(report["inputs"][1]["lines"]["read"], 10_000);
}

#[test]
fn snippets_name_the_exports() {
    for (server, needle) in [
        ("apache", "/srv/acap/all-ok-bots/%{REMOTE_ADDR}"),
        ("nginx", "/srv/geo.conf"),
        ("haproxy", "/srv/haproxy.map"),
    ] {
        let out = botwarden(
            &[
                "logs",
                "snippet",
                server,
                "--acap-dir",
                "/srv/acap",
                "--nginx-geo",
                "/srv/geo.conf",
                "--haproxy-map",
                "/srv/haproxy.map",
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let snippet = text(&out.stdout);
        assert!(snippet.contains(needle), "{server}: {snippet}");
    }
}

/// An option with a line break would inject configuration: refused, with
/// the option named, and nothing printed.
#[test]
fn snippet_options_with_a_line_break_are_refused() {
    for (server, option, value) in [
        (
            "apache",
            "--auth-path",
            "/private\nRewriteRule ^ - [E=BOTWARDEN_VERIFIED:1]",
        ),
        ("nginx", "--acap-dir", "/srv/acap\n}"),
        ("haproxy", "--auth-realm", "R\r\nhttp-request allow"),
        ("nginx", "--verified-robots", "/srv/$host.txt"),
    ] {
        let out = botwarden(&["logs", "snippet", server, option, value], b"");
        assert_eq!(out.status.code(), Some(2), "{server} {option}");
        assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
        let err = text(&out.stderr);
        assert!(err.contains(option), "{err}");
        assert!(
            err.contains("control character") || err.contains("variable"),
            "{err}"
        );
    }
}

/// A number of seconds too large for a duration is a usage error naming
/// the option, not a crash.
#[test]
fn seconds_past_what_a_duration_holds_are_refused() {
    for value in ["1e300", "inf", "-1", "0"] {
        let option = format!("--export-interval={value}");
        let out = botwarden(&["logs", "analyze", "--no-dns", &option, "-"], b"");
        assert_eq!(out.status.code(), Some(2), "{value}");
        let err = text(&out.stderr);
        assert!(err.contains("--export-interval"), "{err}");
        assert!(err.contains("is not a positive number of seconds"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Trusting every address as a proxy lets any client pick the address it
/// is counted as: said on standard error, and the analysis goes on.
#[test]
fn trusting_every_address_as_a_proxy_is_warned_about() {
    let log = TempFile::new(
        "proxied.log",
        b"10.0.0.5 - - [31/Jan/2015:14:29:44 +0000] \"GET / HTTP/1.1\" 200 814 \"-\" \"x\"\n",
    );
    for (cidr, warned) in [
        ("0.0.0.0/0", true),
        ("::/0", true),
        ("64.0.0.0/2", true),
        ("10.0.0.0/8", false),
        ("fc00::/7", false),
        ("192.0.2.7", false),
    ] {
        let out = botwarden(
            &[
                "logs",
                "analyze",
                "--no-dns",
                "--report",
                "json",
                "--trust-proxy",
                cidr,
                log.arg(),
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        assert_eq!(
            err.contains(&format!("botwarden: warning: --trust-proxy {cidr}")),
            warned,
            "{cidr}: {err}"
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(report["lines"]["parsed"], 1);
    }
}

/// From the command line: a log with host names in `%h` and one in
/// Apache's own `vhost_combined` (no port) are read whole.
#[test]
fn host_names_and_apache_vhost_logs_are_read_whole() {
    let googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    // A person's browser (`Mozilla/5.0` alone is a bot's User-Agent).
    let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
    let named = TempFile::new(
        "named.log",
        format!(
            "crawl-66-249-66-1.googlebot.com - - [20/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"{googlebot}\"\n\
             proxy-3.example.net - - [20/Nov/2026:10:00:01 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"{firefox}\"\n"
        )
        .as_bytes(),
    );
    let vhost = TempFile::new(
        "vhost.log",
        format!(
            "www.example.org 66.249.66.1 - - [20/Nov/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"{googlebot}\"\n\
             www.example.org 192.0.2.1 - - [20/Nov/2026:10:00:01 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"{firefox}\" 17 \"-\"\n"
        )
        .as_bytes(),
    );
    let out = botwarden(
        &[
            "logs",
            "analyze",
            "--no-dns",
            "--report",
            "json",
            named.arg(),
            vhost.arg(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["lines"]["read"], 4);
    assert_eq!(report["lines"]["parsed"], 4);
    assert_eq!(report["inputs"][1]["format"], "vhost_combined");
    assert_eq!(report["totals"]["host_names"], 2);
    assert_eq!(report["totals"]["host_name_requests"], 2);
    assert_eq!(
        report["host_names"][0]["name"],
        "crawl-66-249-66-1.googlebot.com"
    );
    assert_eq!(report["host_names"][0]["claimed"], "Googlebot");
    assert!(
        report["host_names"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("HostnameLookups")),
        "{}",
        report["host_names"]
    );
    let rows: Vec<(String, String)> = report["bots"]
        .as_array()
        .expect("bots")
        .iter()
        .map(|b| (b["bot"].to_string(), b["verdict"].to_string()))
        .collect();
    assert_eq!(
        rows,
        [
            ("\"Googlebot\"".to_owned(), "\"verified\"".to_owned()),
            ("\"Googlebot\"".to_owned(), "\"unverifiable\"".to_owned()),
        ]
    );
    // The text report says it too.
    let out = botwarden(&["logs", "analyze", "--no-dns", named.arg()], b"");
    let report = text(&out.stdout);
    assert!(report.contains("Bots named by host name"), "{report}");
    assert!(
        report.contains("crawl-66-249-66-1.googlebot.com"),
        "{report}"
    );
}

/// Peak resident memory of a running process, in KiB, as the kernel
/// keeps it (`VmHWM`).
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// A 1 GiB log goes through in memory bounded by its distinct addresses
/// and User-Agents, not by its size.
#[test]
fn a_gigabyte_log_in_bounded_memory() {
    let Ok(seeds) = botwarden_testdata::loggen::shared_seeds() else {
        assert!(corpus().is_none(), "the seed logs are there but unreadable");
        return;
    };
    let tmp = TempFile::new("big.log", b"");
    let options = botwarden_testdata::loggen::Options {
        lines: 4_400_000,
        ips: 20_000,
        garbage_every: 100_000,
        ..botwarden_testdata::loggen::Options::default()
    };
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp.path).expect("create"));
        botwarden_testdata::loggen::generate(&seeds, &options, &mut f).expect("generate");
        f.flush().expect("flush");
    }
    let size = std::fs::metadata(&tmp.path).expect("size").len();
    assert!(size >= 1 << 30, "{size} bytes");
    let report_path = tmp.path.with_file_name("report.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["logs", "analyze", "--no-dns", "--report", "json", "-o"])
        .arg(&report_path)
        .arg(&tmp.path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start botwarden");
    let pid = child.id();
    let mut peak = 0;
    loop {
        if let Some(kib) = peak_rss_kib(pid) {
            peak = peak.max(kib);
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report_path).expect("the report")).expect("JSON");
    let lines = &report["lines"];
    assert_eq!(lines["read"], options.lines);
    // The garbage lines: blank ones are skipped, those cut inside their
    // request are requests cut short, the rest fail.
    let truncated = lines["truncated"].as_u64().unwrap_or(0);
    assert!(truncated > 0, "{lines}");
    assert_eq!(
        lines["failed"],
        options.lines / options.garbage_every - lines["skipped"].as_u64().unwrap_or(0) - truncated
    );
    // 1 GiB read; the process never held more than a small part of it.
    assert!(peak > 0, "no memory reading");
    assert!(
        peak < 256 * 1024,
        "peak RSS {peak} KiB for a {size}-byte log"
    );
    let _ = Path::new(&report_path);
}

/// Peak resident memory of `botwarden logs analyze` on a log of `pairs`
/// addresses claiming Googlebot, one request each, with `--no-dns` or
/// asking `nameserver` (which knows none of them: all spoofed). Returns the
/// peak in KiB and the report.
fn peak_for_botnet(
    bin: &Path,
    pairs: u32,
    v6: bool,
    nameserver: Option<std::net::SocketAddr>,
) -> (u64, serde_json::Value) {
    let log = TempFile::new("botnet.log", b"");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&log.path).expect("create"));
        for i in 0..pairs {
            let ip = if v6 {
                format!("2001:db8:{:x}:{:x}::{:x}", i >> 16, (i >> 8) & 255, i & 255)
            } else {
                format!("10.{}.{}.{}", i >> 16, (i >> 8) & 255, i & 255)
            };
            writeln!(
                f,
                "{ip} - - [20/Nov/2026:10:{:02}:{:02} +0000] \"GET /page/{} HTTP/1.1\" 200 1234 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"",
                i / 60 % 60,
                i % 60,
                i % 1000
            )
            .expect("write");
        }
        f.flush().expect("flush");
    }
    let report_path = log.path.with_file_name("report.json");
    let mut cmd = Command::new(bin);
    cmd.args(["logs", "analyze", "--no-progress", "--report", "json", "-o"])
        .arg(&report_path)
        .arg(&log.path);
    match nameserver {
        Some(addr) => cmd.args(["--nameserver", &addr.to_string()]),
        None => cmd.arg("--no-dns"),
    };
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start botwarden");
    let pid = child.id();
    let mut peak = 0;
    loop {
        if let Some(kib) = peak_rss_kib(pid) {
            peak = peak.max(kib);
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report =
        serde_json::from_slice(&std::fs::read(&report_path).expect("the report")).expect("JSON");
    (peak, report)
}

/// Prints the peak resident memory per (address, claimed bot) pair for
/// 200,000 IPv4 and 400,000 IPv6 addresses claiming Googlebot, without DNS
/// and with the loopback DNS server (BENCHMARKS.md). Run with the release
/// binary:
///
/// ```sh
/// cargo build --release -p botwarden
/// BOTWARDEN_BIN=target/release/botwarden cargo test -p botwarden --test it \
///     -- --ignored --nocapture botnet_memory
/// ```
#[test]
#[ignore = "a measurement: minutes, and meant for the release binary"]
#[allow(clippy::print_stdout)]
fn botnet_memory() {
    let bin = std::env::var_os("BOTWARDEN_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_botwarden")),
        PathBuf::from,
    );
    let dns = botwarden_testdata::dns::BackgroundDns::start(botwarden_testdata::dns::Zone::new());
    let (base, _) = peak_for_botnet(&bin, 1, false, None);
    println!("1 pair, --no-dns: peak {base} KiB");
    for (pairs, v6) in [(200_000, false), (400_000, true)] {
        for nameserver in [None, Some(dns.addr())] {
            let (peak, report) = peak_for_botnet(&bin, pairs, v6, nameserver);
            let verdict = if nameserver.is_some() {
                "spoofed"
            } else {
                "unknown"
            };
            assert_eq!(report["verdicts"][verdict]["ips"], pairs);
            println!(
                "{pairs} {} pairs, {}: peak {peak} KiB, {:.0} bytes per pair ({:.0} above one pair's run)",
                if v6 { "IPv6" } else { "IPv4" },
                if nameserver.is_some() {
                    "loopback DNS"
                } else {
                    "--no-dns"
                },
                peak as f64 * 1024.0 / f64::from(pairs),
                (peak - base) as f64 * 1024.0 / f64::from(pairs),
            );
        }
    }
}

/// `--robots`: a verified GPTBot (an address of OpenAI's published
/// ranges) on pages whose preferences refuse training, by group and
/// file-wide; ChatGPT-User (`ai-input`) refused only file-wide; a spoofed
/// GPTBot counted on its own row; a feed reader not counted.
#[test]
fn usage_preferences_count_the_requests_that_ignore_them() {
    let robots = TempFile::new(
        "robots.txt",
        b"Content-Signal: ai-input=no\n\nUser-agent: *\nContent-Usage: /blog/ train-ai=n\nDisallow: /private\n",
    );
    let gpt = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
    let user = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot";
    let line = |ip: &str, path: &str, ua: &str| {
        format!(
            "{ip} - - [20/Nov/2026:10:00:00 +0000] \"GET {path} HTTP/1.1\" 200 512 \"-\" \"{ua}\"\n"
        )
    };
    let mut log = String::new();
    for path in ["/blog/a", "/blog/b", "/about", "/private/x"] {
        log.push_str(&line("20.171.206.10", path, gpt));
    }
    log.push_str(&line("203.0.113.9", "/blog/a", gpt));
    log.push_str(&line("104.210.139.200", "/blog/a", user));
    let out = botwarden(
        &[
            "logs",
            "analyze",
            "--no-dns",
            "--report",
            "json",
            "--robots",
            robots.arg(),
            "-",
        ],
        log.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["usage_policy"], robots.arg());
    let row = |bot: &str, verdict: &str| {
        report["bots"]
            .as_array()
            .expect("bots")
            .iter()
            .find(|b| b["bot"] == bot && b["verdict"] == verdict)
            .unwrap_or_else(|| panic!("{bot} {verdict}: {report}"))
            .clone()
    };
    let verified = row("GPTBot", "verified");
    assert_eq!(verified["usage"]["purpose"], "train-ai");
    assert_eq!(verified["usage"]["requests"], 4);
    // `/blog/a` and `/blog/b`; `/private/x` it may not fetch at all.
    assert_eq!(verified["usage"]["refused"], 2);
    assert_eq!(verified["usage"]["refused_file_wide"], 2);
    let spoofed = row("GPTBot", "spoofed");
    assert_eq!(spoofed["usage"]["refused"], 1);
    let user = row("ChatGPT-User", "verified");
    assert_eq!(user["usage"]["purpose"], "ai-input");
    assert_eq!(user["usage"]["refused"], 0);
    assert_eq!(user["usage"]["refused_file_wide"], 1);

    let out = botwarden(
        &["logs", "analyze", "--no-dns", "--robots", robots.arg(), "-"],
        log.as_bytes(),
    );
    let report = text(&out.stdout);
    assert!(report.contains("Usage preferences"), "{report}");
    assert!(report.contains("train-ai"), "{report}");
}
