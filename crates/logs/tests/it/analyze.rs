//! The pipeline end to end: real logs from `../shared/corpus/logs`, the
//! default registry with its published ranges, and a real DNS server on
//! loopback. Every count is checked to add up, and verdicts exactly.

use std::collections::BTreeMap;
use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use botwarden_logs::{
    Analysis, AnalyzeOptions, Analyzer, FormatChoice, Input, Listed, LogFormat, Report, Standing,
    expand_inputs,
};
use botwarden_testdata::dns::{BackgroundDns, Zone};
use botwarden_verify::{Classifier, DnsConfig, RegistryBuilder, Verifier, VerifierConfig};
use hickory_proto::rr::RecordType;

/// A classifier and verifier on the default registry, asking `dns` (or
/// no DNS at all).
struct Setup {
    analyzer: Analyzer,
    _runtime: tokio::runtime::Runtime,
}

fn setup(dns: Option<std::net::SocketAddr>) -> Setup {
    let (registry, problems) = RegistryBuilder::with_defaults().build();
    let registry = Arc::new(registry.unwrap_or_else(|| panic!("{problems:?}")));
    let classifier = Arc::new(Classifier::for_registry(&registry).expect("a classifier"));
    let config = match dns {
        Some(addr) => {
            let mut c = DnsConfig::with_nameserver(addr);
            c.timeout = Duration::from_secs(2);
            VerifierConfig::with_dns(c)
        }
        None => VerifierConfig::offline(),
    };
    let verifier = Arc::new(Verifier::new(registry, config).expect("a verifier"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let analyzer = Analyzer::new(classifier, verifier, runtime.handle().clone());
    Setup {
        analyzer,
        _runtime: runtime,
    }
}

fn corpus() -> Option<PathBuf> {
    botwarden_testdata::shared("logs analyze", "corpus/logs").map(|d| d.join("corpus/logs"))
}

fn corpus_file(dir: &Path, stem: &str) -> Input {
    Input::Path(dir.join(format!("{stem}.log")))
}

const ELASTIC: &str = "elastic__examples__Common_Data_Formats_apache_logs_apache_logs";
const FAKE_GOOGLEBOT: &str = "fail2ban__fail2ban__fail2ban_tests_files_logs_apache-fakegooglebot";
const SHOP: &str = "tstack__lnav__test_logfile_shop_access_log.0";

/// The line counts of SOURCES.tsv, by file name.
fn source_lines(dir: &Path) -> BTreeMap<String, u64> {
    let text = std::fs::read_to_string(dir.join("SOURCES.tsv")).expect("SOURCES.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    let col = header
        .iter()
        .position(|h| *h == "lines")
        .expect("a lines column");
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_owned(), f[col].parse().expect("a line count"))
        })
        .collect()
}

fn assert_adds_up(report: &Report) {
    for input in &report.inputs {
        let l = &input.lines;
        assert_eq!(
            l.read,
            l.parsed + l.skipped + l.failed,
            "{}: {l:?}",
            input.name
        );
        assert_eq!(
            l.skipped,
            l.skip_reasons.values().sum::<u64>(),
            "{}",
            input.name
        );
        assert_eq!(
            l.failed,
            l.fail_reasons.values().sum::<u64>(),
            "{}",
            input.name
        );
    }
    let l = &report.lines;
    assert_eq!(l.read, l.parsed + l.skipped + l.failed);
    assert_eq!(
        l.read,
        report.inputs.iter().map(|i| i.lines.read).sum::<u64>()
    );
    assert_eq!(report.totals.requests, l.parsed);
    let by_verdict: u64 = report.verdicts.values().map(|v| v.requests).sum();
    assert_eq!(by_verdict, report.totals.requests);
    let by_row: u64 = report.bots.iter().map(|b| b.requests).sum();
    assert_eq!(by_row, report.totals.bot_requests);
    for series in &report.timeline.series {
        let row_total = if series.bot == "humans" {
            report.verdicts["not-a-bot"].requests
        } else {
            report
                .bots
                .iter()
                .find(|b| b.bot == series.bot && b.verdict == series.verdict)
                .map(|b| b.requests)
                .expect("a series has its row")
        };
        // Requests without a time are not on the timeline.
        assert!(series.counts.iter().sum::<u64>() <= row_total, "{series:?}");
    }
}

fn listed(analysis: &Analysis, ip: &str) -> Vec<(String, Standing)> {
    let ip: IpAddr = ip.parse().expect("an address");
    analysis
        .listed
        .iter()
        .filter(|l| l.ip == ip)
        .map(|l| (l.bot.clone(), l.standing))
        .collect()
}

#[test]
fn every_line_of_the_real_logs_is_accounted_for() {
    let Some(dir) = corpus() else { return };
    let expected = source_lines(&dir);
    let inputs: Vec<Input> = expected
        .keys()
        .map(|name| Input::Path(dir.join(name)))
        .collect();
    let s = setup(None);
    let analysis = s.analyzer.run(inputs, AnalyzeOptions::default());
    let report = &analysis.report;
    assert_adds_up(report);
    for input in &report.inputs {
        let name = Path::new(&input.name)
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a file name");
        assert_eq!(input.lines.read, expected[name], "{name}");
        assert_eq!(input.error, None, "{name}");
    }
    assert_eq!(report.lines.read, expected.values().sum::<u64>());
    // Every bad line sample points at its file and line.
    for s in &report.samples {
        let text = std::fs::read_to_string(&s.file).expect("the sampled file");
        let line = text
            .lines()
            .nth(s.line as usize - 1)
            .expect("the sampled line");
        assert!(line.starts_with(s.text.trim_end()), "{s:?}");
    }
}

/// fail2ban's fake-Googlebot log: its impostor line has the virtual host
/// first (`%v %h …`), its other lines are in fail2ban's own test layout
/// (a fourth `-` field and a time without a zone), and its comments are
/// skipped.
#[test]
fn an_impostor_in_a_custom_format_is_flagged() {
    let Some(dir) = corpus() else { return };
    // No PTR for the impostor: NXDOMAIN.
    let dns = BackgroundDns::start(Zone::new());
    let s = setup(Some(dns.addr()));
    let format =
        LogFormat::from_spec(r#"%v %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i""#)
            .expect("an Apache LogFormat");
    let analysis = s.analyzer.run(
        vec![corpus_file(&dir, FAKE_GOOGLEBOT)],
        AnalyzeOptions {
            format: FormatChoice::Fixed(format),
            ..AnalyzeOptions::default()
        },
    );
    let report = &analysis.report;
    assert_adds_up(report);
    let l = &report.lines;
    assert_eq!(
        (l.read, l.parsed, l.skipped, l.failed),
        (7, 1, 4, 2),
        "{l:?}"
    );
    assert_eq!(l.skip_reasons.get("comment"), Some(&4));
    assert_eq!(l.fail_reasons.get("bad-address"), Some(&2));
    assert_eq!(
        report.samples.iter().map(|s| s.line).collect::<Vec<_>>(),
        [3, 5]
    );
    assert_eq!(
        listed(&analysis, "192.0.2.222"),
        [("Googlebot".to_owned(), Standing::Spoofed)]
    );
    let spoofed = &report.spoofed;
    assert_eq!(spoofed.len(), 1, "{spoofed:?}");
    assert_eq!(
        (
            spoofed[0].ip.as_str(),
            spoofed[0].claimed.as_str(),
            spoofed[0].requests
        ),
        ("192.0.2.222", "Googlebot", 1)
    );
    assert!(!spoofed[0].reason.is_empty());
    assert_eq!(dns.queries_for("192.0.2.222", RecordType::PTR), 1);
}

/// In auto mode a file that mixes formats loses no line any preset reads.
#[test]
fn mixed_formats_in_one_file() {
    let tmp = tempdir("mixed");
    let path = tmp.join("mixed.log");
    let ua = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    let text = format!(
        "66.249.66.1 - - [31/Jan/2015:14:29:44 +0000] \"GET / HTTP/1.1\" 200 814 \"-\" \"{ua}\"\n\
         66.249.66.2 - - [31/Jan/2015:14:29:45 +0000] \"GET /a HTTP/1.1\" 200 814\n\
         www.example.org:443 66.249.66.3 - - [31/Jan/2015:14:29:46 +0000] \"GET /b HTTP/1.1\" 200 1 \"-\" \"{ua}\"\n\
         {{\"remote_addr\": \"66.249.66.4\", \"status\": 200, \"http_user_agent\": \"{ua}\"}}\n\
         nothing like a log line\n"
    );
    std::fs::write(&path, text).expect("write");
    let s = setup(None);
    let analysis = s
        .analyzer
        .run(vec![Input::Path(path)], AnalyzeOptions::default());
    let report = &analysis.report;
    assert_adds_up(report);
    let l = &report.lines;
    assert_eq!((l.read, l.parsed, l.failed), (5, 4, 1), "{l:?}");
    assert_eq!(report.samples[0].line, 5);
    assert_eq!(analysis.listed.len(), 3, "{:?}", analysis.listed);
}

#[test]
fn crawlers_verified_by_dns_once_per_address() {
    let Some(dir) = corpus() else { return };
    // Two of the log's bingbot addresses have genuine names; the others
    // have none.
    let zone = Zone::new()
        .ptr("157.56.92.151", &["msnbot-157-56-92-151.search.msn.com"])
        .a("msnbot-157-56-92-151.search.msn.com", &["157.56.92.151"])
        .ptr("157.55.32.190", &["msnbot-157-55-32-190.search.msn.com"])
        .a("msnbot-157-55-32-190.search.msn.com", &["157.55.32.190"]);
    let dns = BackgroundDns::start(zone);
    let s = setup(Some(dns.addr()));
    let analysis = s
        .analyzer
        .run(vec![corpus_file(&dir, ELASTIC)], AnalyzeOptions::default());
    assert_adds_up(&analysis.report);
    assert_eq!(
        listed(&analysis, "157.56.92.151"),
        [("bingbot".to_owned(), Standing::Verified)]
    );
    // Five requests from this address, one PTR query.
    assert_eq!(dns.queries_for("157.56.92.151", RecordType::PTR), 1);
    let bing: Vec<_> = analysis
        .report
        .bots
        .iter()
        .filter(|b| b.bot == "bingbot")
        .map(|b| (b.verdict.as_str(), b.ips))
        .collect();
    assert!(bing.contains(&("verified", 2)), "{bing:?}");
    // Three of the log's Googlebot addresses are in Google's ranges; four
    // others, one request each, have no PTR: impostors. (The fourth
    // impostor's line is cut off inside its User-Agent: a request cut
    // short, read as far as it goes.)
    let google: Vec<_> = analysis
        .report
        .bots
        .iter()
        .filter(|b| b.bot == "Googlebot")
        .map(|b| (b.verdict.as_str(), b.requests, b.ips))
        .collect();
    assert_eq!(google, [("verified", 526, 3), ("spoofed", 4, 4)]);
    assert_eq!(analysis.report.lines.truncated, 1);
    for ip in [
        "200.141.109.74",
        "188.35.22.24",
        "177.37.188.215",
        "46.118.127.106",
    ] {
        assert!(
            listed(&analysis, ip).contains(&("Googlebot".to_owned(), Standing::Spoofed)),
            "{ip}: {:?}",
            listed(&analysis, ip)
        );
    }
    let verification = &analysis.report.verification;
    assert!(verification.pairs > 100, "{verification:?}");
    assert!(verification.dns_lookups > 0);
}

/// A log with every kind of bad line, and the reasons it must give.
#[test]
fn garbage_binary_and_truncated_lines_are_counted_with_their_place() {
    let dir = tempdir("garbage");
    let path = dir.join("mixed.log");
    let good = r#"66.249.66.1 - - [31/Jan/2015:14:29:44 +0000] "GET / HTTP/1.1" 200 814 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)""#;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(good.as_bytes());
    bytes.extend_from_slice(b"\r\n");
    bytes.extend_from_slice(b"\n"); // blank
    bytes.extend_from_slice(b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\n"); // binary
    bytes.extend_from_slice(b"203.0.113.9 - - [31/Jan/2015:14:29:44 +0000] \"GET /tru\n"); // cut short: a request
    bytes.extend_from_slice(good.as_bytes());
    bytes.push(b'\n');
    bytes.extend(std::iter::repeat_n(b'x', 2 << 20)); // too long
    bytes.push(b'\n');
    bytes.extend_from_slice(good.as_bytes()); // last line, no newline
    std::fs::write(&path, &bytes).expect("write");

    let s = setup(None);
    let options = AnalyzeOptions {
        format: FormatChoice::Fixed(LogFormat::from_spec("combined").expect("a preset")),
        ..AnalyzeOptions::default()
    };
    let analysis = s.analyzer.run(vec![Input::Path(path.clone())], options);
    let report = &analysis.report;
    assert_adds_up(report);
    let l = &report.lines;
    assert_eq!(
        (l.read, l.parsed, l.skipped, l.failed, l.truncated),
        (7, 4, 1, 2, 1),
        "{l:?}"
    );
    assert_eq!(l.fail_reasons.get("line-too-long"), Some(&1), "{l:?}");
    let places: Vec<(u64, &str)> = report
        .samples
        .iter()
        .map(|s| (s.line, s.reason.as_str()))
        .collect();
    assert_eq!(places, [(3, "bad-address"), (6, "line-too-long")]);
    assert!(
        report
            .samples
            .iter()
            .all(|s| s.file == path.display().to_string())
    );
}

/// gzip (found by its magic bytes), globs, and several files at once give
/// the same counts as the plain files one by one.
#[test]
fn gzip_and_globs_and_parallel_files() {
    let Some(dir) = corpus() else { return };
    let tmp = tempdir("gzip");
    let elastic = std::fs::read(dir.join(format!("{ELASTIC}.log"))).expect("read");
    let shop = std::fs::read(dir.join(format!("{SHOP}.log"))).expect("read");
    std::fs::write(tmp.join("a.log"), &elastic).expect("write");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&shop).expect("gzip");
    std::fs::write(tmp.join("b.log.1"), gz.finish().expect("gzip")).expect("write");

    let pattern = format!("{}/*.log*", tmp.display());
    let inputs = expand_inputs(&[pattern]).expect("the glob matches");
    assert_eq!(inputs.len(), 2);
    let s = setup(None);
    let both = s.analyzer.run(
        inputs,
        AnalyzeOptions {
            threads: 2,
            ..AnalyzeOptions::default()
        },
    );
    assert_adds_up(&both.report);
    assert_eq!(
        both.report
            .inputs
            .iter()
            .map(|i| i.gzip)
            .collect::<Vec<_>>(),
        [false, true]
    );
    let one = |name: &str| {
        s.analyzer
            .run(vec![corpus_file(&dir, name)], AnalyzeOptions::default())
            .report
    };
    let (a, b) = (one(ELASTIC), one(SHOP));
    assert_eq!(both.report.inputs[0].lines, a.inputs[0].lines);
    assert_eq!(both.report.inputs[1].lines, b.inputs[0].lines);
    assert_eq!(
        both.report.totals.requests,
        a.totals.requests + b.totals.requests
    );
    assert_eq!(
        both.report.totals.bot_requests,
        a.totals.bot_requests + b.totals.bot_requests
    );
}

#[test]
fn missing_file_does_not_stop_the_others() {
    let Some(dir) = corpus() else { return };
    let s = setup(None);
    let analysis = s.analyzer.run(
        vec![
            Input::Path(dir.join("no-such-file.log")),
            corpus_file(&dir, FAKE_GOOGLEBOT),
        ],
        AnalyzeOptions::default(),
    );
    let inputs = &analysis.report.inputs;
    assert!(
        inputs[0]
            .error
            .as_deref()
            .is_some_and(|e| e.contains("cannot open"))
    );
    assert_eq!(inputs[1].error, None);
    assert_eq!(inputs[1].lines.read, 7);
}

/// Follow mode reads lines as they are appended, and carries on in a new
/// file after rotation (rename and re-create).
#[test]
fn follow_survives_rotation() {
    let tmp = tempdir("follow");
    let path = tmp.join("access.log");
    let line = |ip: &str| {
        format!(
            "{ip} - - [31/Jan/2015:14:29:44 +0000] \"GET / HTTP/1.1\" 200 814 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"\n"
        )
    };
    std::fs::write(&path, line("66.249.66.1")).expect("write");
    let s = setup(None);
    let options = AnalyzeOptions {
        follow: true,
        poll: Duration::from_millis(20),
        format: FormatChoice::Fixed(LogFormat::from_spec("combined").expect("a preset")),
        ..AnalyzeOptions::default()
    };
    let stop = options.stop.clone();
    let run = s.analyzer.start(vec![Input::Path(path.clone())], options);
    let wait_for = |lines: u64| {
        for _ in 0..500 {
            if run.progress().lines.load(Ordering::Relaxed) >= lines {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("never read {lines} lines");
    };
    wait_for(1);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    f.write_all(line("66.249.66.2").as_bytes()).expect("append");
    // A line written in two pieces is read once, whole.
    let second = line("66.249.66.3");
    f.write_all(&second.as_bytes()[..20]).expect("append");
    f.flush().expect("flush");
    std::thread::sleep(Duration::from_millis(100));
    f.write_all(&second.as_bytes()[20..]).expect("append");
    wait_for(3);
    std::fs::rename(&path, tmp.join("access.log.1")).expect("rotate");
    f.write_all(line("66.249.66.4").as_bytes())
        .expect("a late line in the old file");
    drop(f);
    std::fs::write(&path, line("66.249.66.5") + &line("66.249.66.6")).expect("new file");
    wait_for(6);
    // The verdicts arrive while following.
    for _ in 0..500 {
        if run.listed().len() == 6 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(run.listed().len(), 6, "{:?}", run.listed());
    stop.store(true, Ordering::Relaxed);
    let analysis = run.finish();
    let l = &analysis.report.lines;
    assert_eq!((l.read, l.parsed, l.failed), (6, 6, 0), "{l:?}");
    assert!(
        analysis
            .listed
            .iter()
            .all(|Listed { bot, standing, .. }| bot == "Googlebot"
                && *standing == Standing::Verified)
    );
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "botwarden-logs-{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// Behind a trusted proxy the client is the right-most forwarded address
/// that is not a proxy; an untrusted peer's header is ignored.
#[test]
fn forwarded_for_is_used_only_from_trusted_proxies() {
    let tmp = tempdir("xff");
    let path = tmp.join("proxied.log");
    let ua = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    let text = format!(
        "10.0.0.5 - - [31/Jan/2015:14:29:44 +0000] \"GET / HTTP/1.1\" 200 814 \"-\" \"{ua}\" \"203.0.113.7, 66.249.66.1, 10.0.0.9\"\n\
         192.0.2.50 - - [31/Jan/2015:14:29:45 +0000] \"GET / HTTP/1.1\" 200 814 \"-\" \"{ua}\" \"66.249.66.2\"\n"
    );
    std::fs::write(&path, text).expect("write");
    let format = LogFormat::from_spec(
        r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for""#,
    )
    .expect("an nginx log_format");
    let s = setup(None);
    let analysis = s.analyzer.run(
        vec![Input::Path(path)],
        AnalyzeOptions {
            format: FormatChoice::Fixed(format),
            trusted_proxies: vec![botwarden_verify::Cidr::parse("10.0.0.0/8").expect("a CIDR")],
            ..AnalyzeOptions::default()
        },
    );
    assert_adds_up(&analysis.report);
    assert_eq!(
        listed(&analysis, "66.249.66.1"),
        [("Googlebot".to_owned(), Standing::Verified)]
    );
    // Not from a trusted proxy: its own address counts, not the header's.
    assert!(listed(&analysis, "66.249.66.2").is_empty());
    assert!(listed(&analysis, "10.0.0.5").is_empty());
    assert_eq!(analysis.report.totals.ips, 2);
}

/// A line longer than 1 MiB fails as `line-too-long` with its line number,
/// whichever way the format is chosen and whether or not the file is
/// compressed, and a file that is one endless line is one such failure.
#[test]
fn over_long_lines_fail_with_their_line_number() {
    let tmp = tempdir("too-long");
    let good = "66.249.66.1 - - [31/Jan/2015:14:29:44 +0000] \"GET / HTTP/1.1\" 200 814 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"\n";
    let mut plain = good.as_bytes().to_vec();
    plain.extend(std::iter::repeat_n(b'a', 2 << 20));
    plain.push(b'\n');
    plain.extend_from_slice(good.as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).expect("gzip");
    std::fs::write(tmp.join("long.log"), &plain).expect("write");
    std::fs::write(tmp.join("long.log.gz"), gz.finish().expect("gzip")).expect("write");
    // 3 MiB and no newline at all.
    std::fs::write(tmp.join("endless.log"), vec![b'z'; 3 << 20]).expect("write");

    let s = setup(None);
    let combined = || FormatChoice::Fixed(LogFormat::from_spec("combined").expect("a preset"));
    for (file, format) in [
        ("long.log", FormatChoice::Auto),
        ("long.log.gz", FormatChoice::Auto),
        ("long.log", combined()),
        ("long.log.gz", combined()),
    ] {
        let path = tmp.join(file);
        let analysis = s.analyzer.run(
            vec![Input::Path(path.clone())],
            AnalyzeOptions {
                format,
                ..AnalyzeOptions::default()
            },
        );
        let report = &analysis.report;
        assert_adds_up(report);
        let l = &report.lines;
        assert_eq!(
            (l.read, l.parsed, l.skipped, l.failed),
            (3, 2, 0, 1),
            "{file}: {l:?}"
        );
        assert_eq!(l.fail_reasons.get("line-too-long"), Some(&1), "{file}");
        let s = &report.samples;
        assert_eq!(s.len(), 1, "{file}: {s:?}");
        assert_eq!(
            (s[0].file.as_str(), s[0].line, s[0].reason.as_str()),
            (path.to_str().expect("UTF-8"), 2, "line-too-long")
        );
    }
    for format in [FormatChoice::Auto, combined()] {
        let analysis = s.analyzer.run(
            vec![Input::Path(tmp.join("endless.log"))],
            AnalyzeOptions {
                format,
                ..AnalyzeOptions::default()
            },
        );
        let l = &analysis.report.lines;
        assert_eq!(
            (l.read, l.parsed, l.skipped, l.failed),
            (1, 0, 0, 1),
            "{l:?}"
        );
        assert_eq!(l.fail_reasons.get("line-too-long"), Some(&1));
        assert_eq!(analysis.report.samples[0].line, 1);
    }
}

/// The elastic log is from May 2015; the compiled-in ranges are from
/// 2026. AhrefsBot, verified by its published ranges alone, came from
/// addresses outside today's list: those requests are `unknown` (the list
/// cannot speak for 2015), not `spoofed`, and no export blocks them.
#[test]
fn old_logs_are_not_judged_by_todays_ranges() {
    let Some(dir) = corpus() else { return };
    let s = setup(None);
    let analysis = s
        .analyzer
        .run(vec![corpus_file(&dir, ELASTIC)], AnalyzeOptions::default());
    let report = &analysis.report;
    assert_adds_up(report);
    let ahrefs: Vec<_> = report
        .bots
        .iter()
        .filter(|b| b.bot == "AhrefsBot")
        .map(|b| (b.verdict.as_str(), b.requests, b.ips))
        .collect();
    assert_eq!(ahrefs, [("unknown", 34, 11)]);
    assert!(report.spoofed.iter().all(|s| s.claimed != "AhrefsBot"));
    for ip in ["5.10.83.105", "5.10.83.91"] {
        assert!(listed(&analysis, ip).is_empty(), "{ip}");
    }
    let ahrefs_feed = report
        .newer_feeds
        .iter()
        .find(|f| f.url == "https://api.ahrefs.com/v3/public/crawler-ip-ranges")
        .expect("the Ahrefs list is newer than the log");
    assert_eq!(ahrefs_feed.bots, ["AhrefsBot"]);
    assert!(
        ahrefs_feed.version.starts_with("2026-09-02"),
        "{ahrefs_feed:?}"
    );
    // Googlebot's list is newer too (its verdicts come from its ranges and,
    // with DNS, reverse DNS).
    assert!(
        report
            .newer_feeds
            .iter()
            .any(|f| f.bots.iter().any(|b| b == "Googlebot")),
        "{:?}",
        report.newer_feeds
    );
    // Today, the same addresses are spoofed.
    let today = "5.10.83.105 - - [20/Nov/2026:13:05:27 +0000] \"GET / HTTP/1.1\" 200 950 \"-\" \"Mozilla/5.0 (compatible; AhrefsBot/5.0; +http://ahrefs.com/robot/)\"\n";
    let tmp = tempdir("today");
    std::fs::write(tmp.join("today.log"), today).expect("write");
    let analysis = s.analyzer.run(
        vec![Input::Path(tmp.join("today.log"))],
        AnalyzeOptions::default(),
    );
    assert_eq!(
        listed(&analysis, "5.10.83.105"),
        [("AhrefsBot".to_owned(), Standing::Spoofed)]
    );
    assert!(analysis.report.newer_feeds.is_empty());
    assert!(
        analysis.report.spoofed[0]
            .reason
            .starts_with("5.10.83.105 is not in its published ranges"),
        "{:?}",
        analysis.report.spoofed
    );
}

/// Real logs in the shapes servers write them, each line a request unless
/// it plainly is not: host names in `%h` (Apache's `HostnameLookups On`),
/// Apache's own `vhost_common` and `vhost_combined` (`%v` without a port),
/// Debian's `%v:%p` forms, trailing fields, and what attack logs hold.
#[test]
fn real_log_shapes_are_read_as_requests() {
    let tmp = tempdir("shapes");
    let write = |name: &str, lines: &[&str]| {
        let path = tmp.join(name);
        let mut text = lines.join("\n").into_bytes();
        text.push(b'\n');
        std::fs::write(&path, text).expect("write");
        Input::Path(path)
    };
    const GOOGLEBOT: &str =
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";
    // A month of a 1990s server: the common format, mostly host names.
    let clf = write(
        "clf.log",
        &[
            r#"192.0.2.14 - - [03/Mar/1996:10:00:01 -0500] "GET /missions/ HTTP/1.0" 200 6245"#,
            r#"dialup-12.isp.example.net - - [03/Mar/1996:10:00:06 -0500] "GET /countdown/ HTTP/1.0" 200 3985"#,
            r#"gw1.example.com - - [03/Mar/1996:10:00:09 -0500] "GET /images/logo.gif HTTP/1.0" 304 0"#,
            r#"gw1.example.com - - [03/Mar/1996:10:00:11 -0500] "GET /images/gone.gif HTTP/1.0" 404 -"#,
            r#"PROXY.EXAMPLE.ORG. - - [03/Mar/1996:10:00:12 -0500] "GET /old-page.html" 200 1204"#,
            r#"ws-7_lab.example.edu - - [03/Mar/1996:10:00:15 -0500] "GET /cgi-bin/find?q=a b c HTTP/1.0" 200 212"#,
            r#"192.0.2.99 - - [03/Mar/1996:10:00:16 -0500] "GET /x.html HTTP/1.0" 200 -"#,
            r#"localhost - - [03/Mar/1996:10:00:17 -0500] "-" 400 -"#,
        ],
    );
    // Combined, with host names, and crawlers claimed from them.
    let named = write(
        "named.log",
        &[
            &format!(
                r#"crawl-66-249-66-1.googlebot.com - - [20/Nov/2026:10:00:00 +0000] "GET /robots.txt HTTP/1.1" 200 68 "-" "{GOOGLEBOT}""#
            ),
            &format!(
                r#"crawl-66-249-66-1.googlebot.com - - [20/Nov/2026:10:00:05 +0000] "GET / HTTP/1.1" 200 5120 "-" "{GOOGLEBOT}""#
            ),
            r#"msnbot-157-55-39-1.search.msn.com - - [20/Nov/2026:10:00:07 +0000] "GET / HTTP/1.1" 200 5120 "-" "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)""#,
            &format!(
                r#"203.0.113.50 - - [20/Nov/2026:10:00:09 +0000] "GET / HTTP/1.1" 200 5120 "-" "{GOOGLEBOT}""#
            ),
            &format!(
                r#"host-7.example.net - - [20/Nov/2026:10:00:11 +0000] "GET /a HTTP/1.1" 200 100 "https://example.org/" "{FIREFOX}""#
            ),
        ],
    );
    // Apache's own vhost_common and vhost_combined: `%v` without a port.
    let vhost_common = write(
        "vhost-common.log",
        &[
            r#"www.example.org 192.0.2.10 - - [20/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 512"#,
            r#"shop.example.org 2001:db8::7 - - [20/Nov/2026:10:00:01 +0000] "GET /cart HTTP/1.1" 302 -"#,
            r#"www.example.org gw1.example.com - alice [20/Nov/2026:10:00:02 +0000] "POST /login HTTP/1.1" 200 33"#,
        ],
    );
    let vhost_combined = write(
        "vhost-combined.log",
        &[
            &format!(
                r#"www.example.org 66.249.66.1 - - [20/Nov/2026:10:00:03 +0000] "GET /robots.txt HTTP/1.1" 200 68 "-" "{GOOGLEBOT}""#
            ),
            &format!(
                r#"www.example.org 192.0.2.11 - - [20/Nov/2026:10:00:04 +0000] "GET / HTTP/1.1" 200 512 "https://example.org/" "{FIREFOX}" 1234 "-""#
            ),
        ],
    );
    // Debian's `%v:%p` forms, with and without Referer and User-Agent.
    let debian = write(
        "debian.log",
        &[
            &format!(
                r#"www.example.org:443 192.0.2.12 - - [20/Nov/2026:10:00:05 +0000] "GET / HTTP/1.1" 200 512 "-" "{FIREFOX}""#
            ),
            &format!(
                r#"www.example.org:80 192.0.2.12 - - [20/Nov/2026:10:00:06 +0000] "GET / HTTP/1.1" 301 230 "-" "{FIREFOX}""#
            ),
            r#"www.example.org:80 192.0.2.13 - - [20/Nov/2026:10:00:07 +0000] "GET / HTTP/1.1" 301 230"#,
        ],
    );
    // What an attack log holds, and one line that is no request.
    let attack_lines: Vec<Vec<u8>> = vec![
        br#"2001:db8::bad - - [20/Nov/2026:11:00:00 +0000] "GET /wp-login.php HTTP/1.1" 404 153 "-" "Mozilla/5.0""#.to_vec(),
        br#"::ffff:198.51.100.23 - - [20/Nov/2026:11:00:01 +0000] "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" 400 0 "-" "-""#.to_vec(),
        br#"198.51.100.23 - - [20/Nov/2026:11:00:02 +0000] "-" 408 0 "-" "-""#.to_vec(),
        br#"198.51.100.24 - - [20/Nov/2026:11:00:03 +0000] "" 400 0 "-" "-""#.to_vec(),
        br#"[2001:db8::5]:51234 - - [20/Nov/2026:11:00:04 +0000] "GET /?q=\"><script>alert(1)</script> HTTP/1.1" 403 0 "-" "Mozilla/5.0 \"quoted\" agent""#.to_vec(),
        br#"198.51.100.25:4431 - - [20/Nov/2026:11:00:05 +0000] "GET /a"b HTTP/1.1" 200 10 "-" "x""#.to_vec(),
        br#"198.51.100.26 - - [20/Nov/2026:11:00:06 +0000] "GET /../../etc/passwd HTTP/1.1" - - "-" "-""#.to_vec(),
        br#"198.51.100.27 - - [20/Nov/2026:11:00:07 +0000] "GET / HTTP/1.1" 000 0 "-" "-""#.to_vec(),
        br#"198.51.100.28 - - [20/Nov/2026:11:00:08.123 +0000] "GET / HTTP/1.1" 200 10 "-" "x""#.to_vec(),
        br#"198.51.100.29 - - [20/Nov/2026:11:00:09] "GET / HTTP/1.1" 200 10 "-" "x""#.to_vec(),
        b"198.51.100.30 - - [20/Nov/2026:11:00:10 +0000] \"GET / HTTP/1.1\" 200 10 \"-\" \"x\"\t0.002\tupstream=10.0.0.1:80".to_vec(),
        b"198.51.100.31 - - [20/Nov/2026:11:00:11 +0000] \"\x16\x03\x01\x00\xa5\x01\" 400 0 \"-\" \"-\"".to_vec(),
        br#"198.51.100.32 - - [20/Nov/2026:11:00:12 +0000] "GET /very/long/path?x=AAAAAAAA"#.to_vec(),
        br#"fe80::1%eth0 - - [20/Nov/2026:11:00:13 +0000] "GET / HTTP/1.1" 200 10 "-" "x""#.to_vec(),
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03 not a request".to_vec(),
    ];
    let attack_path = tmp.join("attack.log");
    std::fs::write(&attack_path, attack_lines.join(&b'\n')).expect("write");
    let attack = Input::Path(attack_path);

    let s = setup(None);
    let analysis = s.analyzer.run(
        vec![clf, named, vhost_common, vhost_combined, debian, attack],
        AnalyzeOptions::default(),
    );
    let report = &analysis.report;
    assert_adds_up(report);
    let per_input: Vec<(&str, u64, u64, u64, u64)> = report
        .inputs
        .iter()
        .map(|i| {
            (
                i.format.as_str(),
                i.lines.read,
                i.lines.parsed,
                i.lines.failed,
                i.lines.truncated,
            )
        })
        .collect();
    assert_eq!(
        per_input,
        [
            ("common", 8, 8, 0, 0),
            ("combined", 5, 5, 0, 0),
            ("vhost_common", 3, 3, 0, 0),
            ("vhost_combined", 2, 2, 0, 0),
            // Two lines of three have a User-Agent: the poorer preset is
            // picked, and the richer one read first on every line.
            ("vhost_common", 3, 3, 0, 0),
            ("combined", 15, 14, 1, 1),
        ]
    );
    assert_eq!(report.lines.fail_reasons.get("bad-address"), Some(&1));
    assert_eq!(report.samples.len(), 1);
    assert_eq!(report.samples[0].line, 15);
    // Host names: counted as clients, their requests as requests.
    let t = &report.totals;
    // Five names in the old log, three in the combined one, and one of
    // the first again behind a virtual host.
    assert_eq!((t.host_names, t.host_name_requests), (8, 11));
    // 2 + 1 + 2 + 2 + 2 + 13 addresses (`::ffff:198.51.100.23` is
    // 198.51.100.23), and the 8 names.
    assert_eq!(t.ips, 22 + 8);
    // A crawler claimed from a host name is unverifiable, with the reason;
    // never failed, never spoofed.
    let named_rows: Vec<_> = report
        .bots
        .iter()
        .map(|b| (b.bot.as_str(), b.verdict.as_str(), b.requests, b.ips))
        .collect();
    assert!(
        named_rows.contains(&("Googlebot", "unverifiable", 2, 1)),
        "{named_rows:?}"
    );
    assert!(
        named_rows.contains(&("bingbot", "unverifiable", 1, 1)),
        "{named_rows:?}"
    );
    assert!(
        named_rows.contains(&("Googlebot", "unknown", 1, 1)),
        "{named_rows:?}"
    );
    assert!(
        named_rows.contains(&("Googlebot", "verified", 1, 1)),
        "{named_rows:?}"
    );
    assert!(report.spoofed.is_empty(), "{:?}", report.spoofed);
    let hosts: Vec<(&str, &str, u64)> = report
        .host_names
        .iter()
        .map(|h| (h.name.as_str(), h.claimed.as_str(), h.requests))
        .collect();
    assert_eq!(
        hosts,
        [
            ("crawl-66-249-66-1.googlebot.com", "Googlebot", 2),
            ("msnbot-157-55-39-1.search.msn.com", "bingbot", 1),
        ]
    );
    for h in &report.host_names {
        assert!(h.reason.contains("HostnameLookups"), "{h:?}");
        assert!(h.reason.contains(&h.name), "{h:?}");
    }
    // The three claims from host names, and seven requests whose
    // User-Agent has no browser's shape (`Mozilla/5.0`, `x` five times,
    // `Mozilla/5.0 "quoted" agent`): unregistered bots.
    assert_eq!(report.verdicts["unverifiable"].requests, 10);
    // Exports are by address: the names are not listed; the verified
    // address is.
    assert_eq!(
        listed(&analysis, "66.249.66.1"),
        [("Googlebot".to_owned(), Standing::Verified)]
    );
    // Besides it, only the addresses of the unregistered bots, as others.
    let verified: Vec<_> = analysis
        .listed
        .iter()
        .filter(|l| l.standing != Standing::Other)
        .collect();
    assert_eq!(verified.len(), 1, "{:?}", analysis.listed);
    assert_eq!(analysis.listed.len(), 8, "{:?}", analysis.listed);
    // Odd statuses are kept as they were written.
    assert_eq!(report.status_codes.get(&0), Some(&1));
    assert_eq!(report.status_codes.get(&408), Some(&1));
}

/// The formats log importers know besides Apache's and nginx's, detected
/// per file in auto mode: W3C extended logs by their `#Fields:` directive
/// (IIS, restarting with other fields mid-file; CloudFront with tabs), AWS
/// load balancers and S3, Traefik's and Caddy's JSON.
#[test]
fn other_servers_logs_are_detected_and_read() {
    let tmp = tempdir("servers");
    let write = |name: &str, text: &str| {
        let path = tmp.join(name);
        std::fs::write(&path, text).expect("write");
        Input::Path(path)
    };
    let iis = write(
        "u_ex261120.log",
        "#Software: Microsoft Internet Information Services 10.0\n\
         #Version: 1.0\n\
         #Date: 2026-11-20 10:00:00\n\
         #Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken\n\
         2026-11-20 10:00:05 10.0.0.4 GET /default.aspx - 443 - 66.249.66.1 Mozilla/5.0+(compatible;+Googlebot/2.1;++http://www.google.com/bot.html) - 200 0 0 31\n\
         2026-11-20 10:00:06 10.0.0.4 GET /default.aspx - 443 - 192.0.2.60 Mozilla/5.0+(Windows+NT+10.0;+Win64;+x64) - 200 0 0 15\n\
         #Software: Microsoft Internet Information Services 10.0\n\
         #Version: 1.0\n\
         #Date: 2026-11-20 11:00:00\n\
         #Fields: date time c-ip cs-method cs-uri-stem sc-status sc-bytes cs(User-Agent)\n\
         2026-11-20 11:00:01 192.0.2.61 POST /login.aspx 302 120 Mozilla/5.0+(X11;+Linux+x86_64)\n\
         2026-11-20 11:00:02 - GET /robots.txt 200 68 Mozilla/5.0+(compatible;+bingbot/2.0;++http://www.bing.com/bingbot.htm)\n",
    );
    let cloudfront = write(
        "E2EXAMPLE.2026-11-20-10.log",
        "#Version: 1.0\n\
         #Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query\n\
         2026-11-20\t10:00:07\tFRA56-P1\t5120\t2001:db8::9\tGET\td1.cloudfront.example\t/index.html\t200\t-\tMozilla/5.0%20(X11;%20Linux)\t-\n\
         2026-11-20\t10:00:08\tFRA56-P1\t0\t192.0.2.62\tGET\td1.cloudfront.example\t/gone\t000\t-\t-\t-\n",
    );
    let elb = write(
        "elb.log",
        "2026-11-20T10:00:09.123456Z my-lb 198.51.100.7:40111 10.0.0.1:80 0.000051 0.00112 0.000022 200 200 0 5120 \"GET https://www.example.org:443/ HTTP/1.1\" \"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)\" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2\n\
         2026-11-20T10:00:10.000001Z my-lb 198.51.100.8:2817 10.0.0.1:80 0.001 0.0001 0.00004 - - 82 305 \"- - - \" \"-\" - -\n",
    );
    let s3 = write(
        "s3.log",
        "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be www-example-org [20/Nov/2026:10:00:12 +0000] 192.0.2.3 - 3E57427F3EXAMPLE REST.GET.OBJECT index.html \"GET /www-example-org/index.html HTTP/1.1\" 200 - 2662 2662 70 10 \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\" - Ke1b1uMkXxs= SigV4\n",
    );
    let traefik = write(
        "traefik.json",
        "{\"ClientAddr\":\"192.0.2.40:52458\",\"ClientHost\":\"192.0.2.40\",\"DownstreamContentSize\":15,\"DownstreamStatus\":200,\"RequestMethod\":\"GET\",\"RequestPath\":\"/metrics\",\"StartUTC\":\"2026-11-20T10:00:13.114Z\",\"request_User-Agent\":\"Prometheus/2.48.0\"}\n",
    );
    let caddy = write(
        "caddy.json",
        "{\"level\":\"info\",\"ts\":1795168814.5,\"msg\":\"handled request\",\"request\":{\"remote_ip\":\"192.0.2.41\",\"client_ip\":\"192.0.2.41\",\"proto\":\"HTTP/2.0\",\"method\":\"GET\",\"host\":\"www.example.org\",\"uri\":\"/\",\"headers\":{\"User-Agent\":[\"Mozilla/5.0 (X11; Linux x86_64)\"]}},\"size\":5120,\"status\":200}\n",
    );
    let haproxy = write(
        "haproxy.log",
        "Nov 20 10:00:01 lb1 haproxy[6801]: 198.51.100.20:55008 [20/Nov/2026:10:00:01.584] ft_https~ bk_https/web1 0/0/0/72/72 200 7456 - - ---- 5/4/0/1/0 0/0 \"POST /user/ HTTP/1.1\"\n\
         Nov  2 10:00:02 lb1 haproxy[6801]: 198.51.100.21:55009 [02/Nov/2026:10:00:02.001] ft_https~ bk_https/web1 0/0/0/5/5 404 120 - - ---- 1/1/0/0/0 0/0 \"GET /missing HTTP/1.1\"\n",
    );
    let syslog = write(
        "nginx-syslog.log",
        "<190>Nov 20 10:00:03 web1 nginx: 192.0.2.70 - - [20/Nov/2026:10:00:03 +0000] \"GET / HTTP/1.1\" 200 612 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"\n",
    );
    let s = setup(None);
    let analysis = s.analyzer.run(
        vec![iis, cloudfront, elb, s3, traefik, caddy, haproxy, syslog],
        AnalyzeOptions::default(),
    );
    let report = &analysis.report;
    assert_adds_up(report);
    let per_input: Vec<(&str, u64, u64, u64, u64)> = report
        .inputs
        .iter()
        .map(|i| {
            let format = i.format.split(' ').next().unwrap_or("");
            (
                format,
                i.lines.read,
                i.lines.parsed,
                i.lines.skipped,
                i.lines.failed,
            )
        })
        .collect();
    assert_eq!(
        per_input,
        [
            ("w3c:date", 12, 4, 8, 0),
            ("w3c:date", 4, 2, 2, 0),
            ("elb", 2, 2, 0, 0),
            ("s3", 1, 1, 0, 0),
            ("json", 1, 1, 0, 0),
            ("json", 1, 1, 0, 0),
            ("haproxy", 2, 2, 0, 0),
            ("combined", 1, 1, 0, 0),
        ]
    );
    assert_eq!(
        listed(&analysis, "66.249.66.1"),
        [("Googlebot".to_owned(), Standing::Verified)]
    );
    assert_eq!(report.status_codes.get(&302), Some(&1));
    assert_eq!(report.status_codes.get(&0), Some(&1));
    assert_eq!(report.totals.ips, 13);
    // No client: counted, not verified.
    assert_eq!(report.totals.requests_without_client, 1);
    assert!(
        report
            .bots
            .iter()
            .any(|b| b.bot == "bingbot" && b.verdict == "unverifiable" && b.ips == 0),
        "{:?}",
        report.bots
    );
    // Googlebot through syslog, from an address outside its ranges,
    // without DNS: inconclusive.
    assert!(
        report
            .bots
            .iter()
            .any(|b| b.bot == "Googlebot" && b.verdict == "unknown" && b.requests == 1),
        "{:?}",
        report.bots
    );
}
