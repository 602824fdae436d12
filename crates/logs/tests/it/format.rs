//! Log formats (`LogFormat`): presets, Apache and nginx format strings, JSON
//! lines, timestamps, and the shared log corpus.

use std::net::IpAddr;

use botwarden_logs::{Client, Error, LogFormat, Reason, Record, Timestamp};
use proptest::prelude::*;

fn fmt(spec: &str) -> LogFormat {
    LogFormat::from_spec(spec).unwrap_or_else(|e| panic!("{e}"))
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn fail(format: &LogFormat, line: &str) -> (Reason, u32) {
    match format.parse(line) {
        Ok(r) => panic!("parsed {line:?} as {r:?}"),
        Err(e) => place(e),
    }
}

/// The reason and column of a line's error.
fn place(e: Error) -> (Reason, u32) {
    match e {
        Error::Parse { reason, column } => (reason, column),
        other => panic!("not a line's error: {other}"),
    }
}

/// Unix seconds of a civil UTC time, by jiff (an independent reference).
fn utc(s: &str) -> i64 {
    s.parse::<jiff::Timestamp>().unwrap().as_second()
}

// ---------------------------------------------------------------- corpus

/// One corpus file: the format used, lines parsed, lines skipped, and every
/// failed line as (line number, reason, column).
struct Expect {
    file: &'static str,
    format: Option<&'static str>,
    parsed: usize,
    skipped: usize,
    failed: &'static [(usize, &'static str, u32)],
}

const ERROR_LOG_2_2: &str = "bad-address";

const CORPUS: &[Expect] = &[
    // 10,000 combined lines; one Googlebot line whose User-Agent was cut
    // off before its closing quote is a request cut short.
    Expect {
        file: "elastic__examples__Common_Data_Formats_apache_logs_apache_logs.log",
        format: Some("combined"),
        parsed: 10_000,
        skipped: 0,
        failed: &[],
    },
    // "# failJSON" annotations and blank lines are skipped; the last line
    // puts a virtual host name before the address (`vhost_combined` reads
    // it; under `combined` the name is a client named by host name, and
    // the address is `%l`, so that the time is not where expected).
    Expect {
        file: "fail2ban__fail2ban__fail2ban_tests_files_logs_apache-badbots.log",
        format: Some("combined"),
        parsed: 3,
        skipped: 7,
        failed: &[(11, "bad-time", 32)],
    },
    // Apache error logs, not access logs: nothing parses, detect says so.
    Expect {
        file: "fail2ban__fail2ban__fail2ban_tests_files_logs_apache-botsearch.log",
        format: None,
        parsed: 0,
        skipped: 24,
        failed: &[
            (2, ERROR_LOG_2_2, 1),
            (5, ERROR_LOG_2_2, 1),
            (7, ERROR_LOG_2_2, 1),
            (9, ERROR_LOG_2_2, 1),
            (11, ERROR_LOG_2_2, 1),
            (14, ERROR_LOG_2_2, 1),
            (17, ERROR_LOG_2_2, 1),
            (19, ERROR_LOG_2_2, 1),
            (21, ERROR_LOG_2_2, 1),
            (23, ERROR_LOG_2_2, 1),
            (25, ERROR_LOG_2_2, 1),
            (27, ERROR_LOG_2_2, 1),
            (29, ERROR_LOG_2_2, 1),
            (31, ERROR_LOG_2_2, 1),
            (33, ERROR_LOG_2_2, 1),
            (35, ERROR_LOG_2_2, 1),
            (37, ERROR_LOG_2_2, 1),
            (40, ERROR_LOG_2_2, 1),
            (43, ERROR_LOG_2_2, 1),
        ],
    },
    // A custom format with an extra field and a time without offset
    // (`[31/Jan/2015:14:29:44 ]`), and a virtual host before the address:
    // Apache's `vhost_combined` (no port) reads that last line.
    Expect {
        file: "fail2ban__fail2ban__fail2ban_tests_files_logs_apache-fakegooglebot.log",
        format: Some("vhost_combined"),
        parsed: 1,
        skipped: 4,
        failed: &[(3, "bad-address", 13), (5, "bad-address", 15)],
    },
    Expect {
        file: "fail2ban__fail2ban__fail2ban_tests_files_logs_apache-noscript.log",
        format: None,
        parsed: 0,
        skipped: 18,
        failed: &[
            (2, ERROR_LOG_2_2, 1),
            (4, ERROR_LOG_2_2, 1),
            (7, ERROR_LOG_2_2, 1),
            (9, ERROR_LOG_2_2, 1),
            (11, ERROR_LOG_2_2, 1),
            (13, ERROR_LOG_2_2, 1),
            (15, ERROR_LOG_2_2, 1),
            (18, ERROR_LOG_2_2, 1),
            (20, ERROR_LOG_2_2, 1),
            (22, ERROR_LOG_2_2, 1),
            (25, ERROR_LOG_2_2, 1),
            (28, ERROR_LOG_2_2, 1),
            (31, ERROR_LOG_2_2, 1),
        ],
    },
    Expect {
        file: "fail2ban__fail2ban__fail2ban_tests_files_logs_apache-overflows.log",
        format: None,
        parsed: 0,
        skipped: 24,
        failed: &[
            (3, ERROR_LOG_2_2, 1),
            (5, ERROR_LOG_2_2, 1),
            (7, ERROR_LOG_2_2, 1),
            (11, ERROR_LOG_2_2, 1),
            (13, ERROR_LOG_2_2, 1),
            (19, ERROR_LOG_2_2, 1),
            (23, ERROR_LOG_2_2, 1),
            (27, ERROR_LOG_2_2, 1),
            (30, ERROR_LOG_2_2, 1),
            (33, ERROR_LOG_2_2, 1),
            (35, ERROR_LOG_2_2, 1),
        ],
    },
    // Empty requests (`""`), an RDP probe, `HELP`: all still requests.
    Expect {
        file: "fail2ban__fail2ban__fail2ban_tests_files_logs_nginx-bad-request.log",
        format: Some("combined"),
        parsed: 8,
        skipped: 15,
        failed: &[],
    },
    // Access lines parse; nginx error-log lines (plain and through the
    // journal) do not.
    Expect {
        file: "fail2ban__fail2ban__fail2ban_tests_files_logs_nginx-botsearch.log",
        format: Some("combined"),
        parsed: 8,
        skipped: 29,
        failed: &[
            (26, "bad-address", 1),
            (29, "bad-address", 1),
            (32, "bad-address", 1),
            (35, "bad-address", 1),
            (40, "bad-address", 1),
            (43, "bad-address", 1),
        ],
    },
    // nginx combined plus "$http_x_forwarded_for": a preset takes the
    // trailing field in its stride.
    Expect {
        file: "tstack__lnav__test_logfile_shop_access_log.0.log",
        format: Some("combined"),
        parsed: 1000,
        skipped: 0,
        failed: &[],
    },
];

#[test]
fn shared_corpus_parses_with_exact_counts() {
    let Some(shared) = botwarden_testdata::shared("format corpus", "corpus/logs") else {
        return;
    };
    let dir = shared.join("corpus/logs");
    let sources = std::fs::read_to_string(dir.join("SOURCES.tsv")).unwrap();
    let listed: Vec<&str> = sources
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert_eq!(
        listed.len(),
        CORPUS.len(),
        "every file of SOURCES.tsv has its expectations"
    );
    for e in CORPUS {
        assert!(listed.contains(&e.file), "{} is not in SOURCES.tsv", e.file);
        let bytes = std::fs::read(dir.join(e.file)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        let detected = LogFormat::detect(&lines);
        assert_eq!(
            detected.as_ref().map(LogFormat::name),
            e.format,
            "{}: detect",
            e.file
        );
        let format = detected.unwrap_or_else(|| fmt("combined"));
        let (mut parsed, mut skipped, mut failed) = (0, 0, Vec::new());
        for (i, line) in lines.iter().enumerate() {
            match format.parse(line) {
                Ok(_) => parsed += 1,
                Err(Error::Parse { reason, .. }) if reason.skipped() => skipped += 1,
                Err(Error::Parse { reason, column }) => {
                    failed.push((i + 1, reason.as_str(), column));
                }
                Err(other) => panic!("{}:{}: {other}", e.file, i + 1),
            }
        }
        assert_eq!((parsed, skipped), (e.parsed, e.skipped), "{}", e.file);
        assert_eq!(failed, e.failed, "{}", e.file);
    }
}

#[test]
fn corpus_fields_are_read() {
    let Some(shared) = botwarden_testdata::shared("format corpus", "corpus/logs") else {
        return;
    };
    let path = shared.join("corpus/logs/tstack__lnav__test_logfile_shop_access_log.0.log");
    let text = std::fs::read_to_string(path).unwrap();
    let first = text.lines().next().unwrap();
    let r = fmt("nginx").parse(first).unwrap();
    assert_eq!(r.remote, Client::Addr(ip("54.36.149.41")));
    // 22/Jan/2019:03:56:14 +0330
    assert_eq!(
        r.time,
        Some(Timestamp {
            unix: utc("2019-01-22T00:26:14Z"),
            offset: 12_600
        })
    );
    assert_eq!(r.method, Some("GET"));
    assert!(r.path.unwrap().starts_with("/filter/27|13%20"));
    assert_eq!(r.status, Some(200));
    assert_eq!(r.bytes, 30_577);
    assert_eq!(r.referer, None);
    assert_eq!(
        r.user_agent,
        Some("Mozilla/5.0 (compatible; AhrefsBot/6.1; +http://ahrefs.com/robot/)")
    );
    // The preset does not know the trailing field is X-Forwarded-For.
    assert_eq!(r.forwarded_for, None);
    let with_xff = fmt(
        r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for""#,
    );
    for line in text.lines() {
        with_xff.parse(line).unwrap();
    }
}

// ---------------------------------------------------------------- Apache

const APACHE_DOC_LINE: &str =
    r#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326"#;

#[test]
fn apache_common_from_the_docs() {
    let r = fmt("common").parse(APACHE_DOC_LINE).unwrap();
    assert_eq!(
        r,
        Record {
            remote: Client::Addr(ip("127.0.0.1")),
            forwarded_for: None,
            time: Some(Timestamp {
                unix: 971_211_336,
                offset: -25_200
            }),
            method: Some("GET"),
            path: Some("/apache_pb.gif"),
            protocol: Some("HTTP/1.0"),
            status: Some(200),
            bytes: 2326,
            referer: None,
            user_agent: None,
            vhost: None,
            signature: botwarden_logs::SignatureFields::default(),
            truncated: false,
        }
    );
    // The same format written out, and pasted from httpd.conf.
    assert_eq!(
        fmt(r#"%h %l %u %t "%r" %>s %b"#)
            .parse(APACHE_DOC_LINE)
            .map_err(place),
        Ok(r.clone())
    );
    let pasted = fmt(r#"LogFormat "%h %l %u %t \"%r\" %>s %b" common"#);
    assert_eq!(pasted.parse(APACHE_DOC_LINE).map_err(place), Ok(r));
}

#[test]
fn apache_combined_from_the_docs() {
    let line = format!(
        "{APACHE_DOC_LINE} \"http://www.example.com/start.html\" \"Mozilla/4.08 [en] (Win98; I ;Nav)\""
    );
    let r = fmt("combined").parse(&line).unwrap();
    assert_eq!(r.referer, Some("http://www.example.com/start.html"));
    assert_eq!(r.user_agent, Some("Mozilla/4.08 [en] (Win98; I ;Nav)"));
    assert_eq!(r.bytes, 2326);
    // Sites append fields; the presets let them.
    let longer = format!("{line} \"-\" 0.123 rt=0.004");
    assert_eq!(fmt("combined").parse(&longer).map_err(place), Ok(r.clone()));
    // A format given as a string does not.
    let exact = fmt(r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#);
    assert_eq!(exact.parse(&line).map_err(place), Ok(r));
    assert_eq!(
        fail(&exact, &longer),
        (Reason::Mismatch, u32::try_from(line.len()).unwrap() + 1)
    );
    // Trailing blanks and a CR are tolerated.
    assert!(exact.parse(&format!("{line}  \r")).is_ok());
}

#[test]
fn apache_vhost_presets() {
    let line = r#"www.example.com:443 192.0.2.7 - - [01/Feb/2024:00:00:00 +0000] "GET / HTTP/2.0" 200 512 "-" "curl/8.5.0""#;
    let r = fmt("vhost_combined").parse(line).unwrap();
    assert_eq!(r.vhost, Some("www.example.com"));
    assert_eq!(r.remote, Client::Addr(ip("192.0.2.7")));
    assert_eq!(r.user_agent, Some("curl/8.5.0"));
    assert_eq!(r.bytes, 512);
    let r = fmt("vhost_common").parse(line).unwrap();
    assert_eq!((r.vhost, r.user_agent), (Some("www.example.com"), None));
    assert_eq!(LogFormat::detect(&[line]).unwrap().name(), "vhost_combined");
}

#[test]
fn apache_directives() {
    // %a, %{c}a, %v, %D, %{msec}t, %m %U%q %H, %s, %B, headers with
    // conditions, an opaque cookie.
    let f = fmt(
        r#"%a %{c}a %v [%{msec}t] "%m %U%q %H" %s %B %D "%400,501{User-Agent}i" "%{x-forwarded-for}i" %{sid}C"#,
    );
    let line = r#"2001:db8::1 10.0.0.1 shop.example [1700000000123] "POST /cart?id=7 HTTP/1.1" 302 - 1234 "-" "203.0.113.9, 10.0.0.2" abc"#;
    let r = f.parse(line).unwrap();
    assert_eq!(r.remote, Client::Addr(ip("2001:db8::1")));
    assert_eq!(r.vhost, Some("shop.example"));
    assert_eq!(
        r.time,
        Some(Timestamp {
            unix: 1_700_000_000,
            offset: 0
        })
    );
    assert_eq!(
        (r.method, r.path, r.protocol),
        (Some("POST"), Some("/cart?id=7"), Some("HTTP/1.1"))
    );
    assert_eq!((r.status, r.bytes), (Some(302), 0));
    assert_eq!(r.user_agent, None);
    assert_eq!(r.forwarded_for, Some("203.0.113.9, 10.0.0.2"));

    // %U without a query.
    let plain = line.replace("/cart?id=7", "/cart");
    let r = f.parse(&plain).unwrap();
    assert_eq!(r.path, Some("/cart"));

    // A final status wins over the original one wherever it is.
    let f = fmt("%h %s %>s");
    assert_eq!(f.parse("192.0.2.1 200 404").unwrap().status, Some(404));
    // %% is a literal percent sign.
    let f = fmt("%h 100%% %b");
    assert_eq!(f.parse("192.0.2.1 100% 5").unwrap().bytes, 5);
    assert_eq!(fail(&f, "192.0.2.1 100 5"), (Reason::Mismatch, 10));
}

#[test]
fn apache_time_formats() {
    let f = fmt("%h %{sec}t %{usec}t");
    let r = f.parse("192.0.2.1 1700000000 1700000000123456").unwrap();
    assert_eq!(r.time.unwrap().unix, 1_700_000_000);

    // strftime formats, spaces included, with begin:/end:.
    let f = fmt(r#"%h [%{%Y-%m-%d %H:%M:%S %z}t] "%r""#);
    let r = f
        .parse(r#"192.0.2.1 [2024-02-29 23:59:59 +0100] "GET / HTTP/1.1""#)
        .unwrap();
    assert_eq!(
        r.time,
        Some(Timestamp {
            unix: utc("2024-02-29T22:59:59Z"),
            offset: 3600
        })
    );
    assert_eq!(r.path, Some("/"));
    let f = fmt("%h %{end:%d/%b/%Y:%H:%M:%S}t %>s");
    let r = f.parse("192.0.2.1 01/mar/2023:01:02:03 204").unwrap();
    assert_eq!(
        r.time,
        Some(Timestamp {
            unix: utc("2023-03-01T01:02:03Z"),
            offset: 0
        })
    );
    assert_eq!(r.status, Some(204));
    assert_eq!(
        fail(&f, "192.0.2.1 31/Feb/2023:01:02:03 204"),
        (Reason::BadTime, 11)
    );
}

#[test]
fn apache_escapes_in_quoted_fields() {
    let f = fmt("combined");
    let line = r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a\"b\\ HTTP/1.1" 200 1 "-" "say \"hi\" \\""#;
    let r = f.parse(line).unwrap();
    assert_eq!(r.path, Some(r#"/a\"b\\"#));
    assert_eq!(r.user_agent, Some(r#"say \"hi\" \\"#));
    // Old servers wrote quotes unescaped: the field ends at the quote the
    // format's next literal follows.
    let line =
        r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a"b HTTP/1.1" 200 1 "x "y" z" "ua""#;
    let r = f.parse(line).unwrap();
    assert_eq!(r.path, Some(r#"/a"b"#));
    assert_eq!(r.referer, Some(r#"x "y" z"#));
    assert_eq!(r.user_agent, Some("ua"));
}

#[test]
fn request_lines_that_are_not_http() {
    let f = fmt("common");
    type Pieces = (
        Option<&'static str>,
        Option<&'static str>,
        Option<&'static str>,
    );
    let cases: &[(&str, Pieces)] = &[
        ("-", (None, None, None)),
        ("", (None, None, None)),
        ("HELP", (None, None, None)),
        (r"\x16\x03\x01\x02", (None, None, None)),
        (r"\x16\x03\x01 \x02", (None, None, None)),
        ("GET /old", (Some("GET"), Some("/old"), None)),
        (
            "GET /a b c HTTP/1.1",
            (Some("GET"), Some("/a b c"), Some("HTTP/1.1")),
        ),
        (
            "CONNECT 123.123.123.123:443 HTTP/1.1",
            (
                Some("CONNECT"),
                Some("123.123.123.123:443"),
                Some("HTTP/1.1"),
            ),
        ),
    ];
    for (req, pieces) in cases {
        let line = format!(r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "{req}" 400 0"#);
        let r = f.parse(&line).unwrap_or_else(|e| panic!("{req:?}: {e}"));
        assert_eq!((r.method, r.path, r.protocol), *pieces, "{req:?}");
    }
    // Raw control bytes: servers escape them, so the request field is
    // mangled; the request still happened, with no readable pieces.
    let line = "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /\u{0}x HTTP/1.1\" 400 0";
    let r = f.parse(line).expect("still a request");
    assert_eq!((r.method, r.path, r.protocol), (None, None, None));
    assert_eq!(r.status, Some(400));
}

// ---------------------------------------------------------------- nginx

const NGINX_MAIN: &str = r#"log_format main '$remote_addr - $remote_user [$time_local] "$request" '
                  '$status $body_bytes_sent "$http_referer" '
                  '"$http_user_agent" "$http_x_forwarded_for"';"#;

#[test]
fn nginx_main_from_the_docs() {
    let f = fmt(NGINX_MAIN);
    assert_eq!(f.name(), NGINX_MAIN);
    let line = r#"203.0.113.5 - alice [05/Mar/2024:08:09:10 +0000] "GET /index.html?q=1 HTTP/1.1" 200 612 "https://example.org/" "Mozilla/5.0 (X11; Linux x86_64)" "198.51.100.2""#;
    let r = f.parse(line).unwrap();
    assert_eq!(
        r,
        Record {
            remote: Client::Addr(ip("203.0.113.5")),
            forwarded_for: Some("198.51.100.2"),
            time: Some(Timestamp {
                unix: utc("2024-03-05T08:09:10Z"),
                offset: 0
            }),
            method: Some("GET"),
            path: Some("/index.html?q=1"),
            protocol: Some("HTTP/1.1"),
            status: Some(200),
            bytes: 612,
            referer: Some("https://example.org/"),
            user_agent: Some("Mozilla/5.0 (X11; Linux x86_64)"),
            vhost: None,
            signature: botwarden_logs::SignatureFields::default(),
            truncated: false,
        }
    );
    // nginx's default escaping writes a quote as \x22.
    let line = r#"203.0.113.5 - - [05/Mar/2024:08:09:10 +0000] "GET /\x22 HTTP/1.1" 400 0 "-" "a\x22b" "-""#;
    let r = f.parse(line).unwrap();
    assert_eq!(
        (r.path, r.user_agent, r.forwarded_for),
        (Some(r"/\x22"), Some(r"a\x22b"), None)
    );
    // The preset `nginx` is the default combined format.
    let combined =
        r#"203.0.113.5 - - [05/Mar/2024:08:09:10 +0000] "GET / HTTP/1.1" 200 612 "-" "curl/8""#;
    assert_eq!(
        fmt("nginx").parse(combined).map_err(place),
        fmt("combined").parse(combined).map_err(place)
    );
}

#[test]
fn nginx_variables_and_syntax() {
    let f = fmt(
        r#"${remote_addr}|$time_iso8601|$msec|$host|$request_method|$request_uri|$server_protocol|$status|$bytes_sent|$request_time|$upstream_addr|$http_user_agent"#,
    );
    let line = "::ffff:192.0.2.1|2024-01-02T03:04:05+05:30|1704144845.123|example.com|GET|/x?y|HTTP/2.0|499|0|0.001|10.0.0.1:8080|-";
    let r = f.parse(line).unwrap();
    assert_eq!(r.remote, Client::Addr(ip("::ffff:192.0.2.1")));
    assert_eq!(
        r.time,
        Some(Timestamp {
            unix: utc("2024-01-01T21:34:05Z"),
            offset: 19_800
        })
    );
    assert_eq!(r.vhost, Some("example.com"));
    assert_eq!(
        (r.method, r.path, r.protocol),
        (Some("GET"), Some("/x?y"), Some("HTTP/2.0"))
    );
    assert_eq!((r.status, r.bytes, r.user_agent), (Some(499), 0, None));

    let f = fmt("$msec $remote_addr");
    assert_eq!(
        f.parse("1704144845.123 192.0.2.1")
            .unwrap()
            .time
            .unwrap()
            .unix,
        1_704_144_845
    );

    // escape=json and double-quoted pieces.
    let f = fmt(r#"log_format j escape=json "$remote_addr \"$http_user_agent\" $status";"#);
    let r = f.parse(r#"192.0.2.1 "a \"quoted\" \\ agent" 200"#).unwrap();
    assert_eq!(r.user_agent, Some(r#"a \"quoted\" \\ agent"#));
    // A lone `$` is text.
    let f = fmt("$remote_addr $ $status");
    assert_eq!(f.parse("192.0.2.1 $ 201").unwrap().status, Some(201));
}

// ---------------------------------------------------------------- JSON

#[test]
fn json_lines_default_names() {
    let f = fmt("json");
    let line = r#"{"time_iso8601":"2024-01-02T03:04:05+00:00","remote_addr":"192.0.2.1","request":"GET /robots.txt HTTP/1.1","status":"200","body_bytes_sent":123,"http_referer":"","http_user_agent":"Mozilla\/5.0 (compatible; Bingbot\/2.0)","nested":{"a":[1,{"b":"}"}]},"host":"example.com","http_x_forwarded_for":"-"}"#;
    let r = f.parse(line).unwrap();
    assert_eq!(
        r,
        Record {
            remote: Client::Addr(ip("192.0.2.1")),
            forwarded_for: None,
            time: Some(Timestamp {
                unix: utc("2024-01-02T03:04:05Z"),
                offset: 0
            }),
            method: Some("GET"),
            path: Some("/robots.txt"),
            protocol: Some("HTTP/1.1"),
            status: Some(200),
            bytes: 123,
            referer: None,
            user_agent: Some(r"Mozilla\/5.0 (compatible; Bingbot\/2.0)"),
            vhost: Some("example.com"),
            signature: botwarden_logs::SignatureFields::default(),
            truncated: false,
        }
    );
    // Other names, numbers, epoch milliseconds, separate method and path
    // that beat the request line, the preferred name winning.
    let line = r#" { "@timestamp": 1700000000123, "client_ip": "2001:db8::2", "ip": "192.0.2.9", "method": "HEAD", "request": "GET / HTTP/1.0", "url": "/x", "status_code": 404, "size": "-", "ua": null, "ok": true } "#;
    let r = f.parse(line).unwrap();
    assert_eq!(r.remote, Client::Addr(ip("2001:db8::2")));
    assert_eq!(r.time.unwrap().unix, 1_700_000_000);
    assert_eq!(
        (r.method, r.path, r.protocol),
        (Some("HEAD"), Some("/x"), Some("HTTP/1.0"))
    );
    assert_eq!((r.status, r.bytes, r.user_agent), (Some(404), 0, None));
}

#[test]
fn json_spec_names() {
    let f = fmt("json:remote=peer,time=when,user_agent=agent_string");
    let r = f.parse(r#"{"peer":"192.0.2.1","when":"10/Oct/2000:13:55:36 -0700","agent_string":"x","remote_addr":"192.0.2.2"}"#).unwrap();
    assert_eq!(r.remote, Client::Addr(ip("192.0.2.1")));
    assert_eq!(r.time.unwrap().unix, 971_211_336);
    assert_eq!(r.user_agent, Some("x"));
    assert_eq!(
        f.name(),
        "json:remote=peer,time=when,user_agent=agent_string"
    );
    // Without the renamed member, the default name no longer counts.
    assert_eq!(
        fail(&f, r#"{"remote_addr":"192.0.2.2"}"#),
        (Reason::MissingField, 28)
    );
}

#[test]
fn json_failures() {
    let f = fmt("json");
    let cases: &[(&str, Reason, u32)] = &[
        ("192.0.2.1 - - [x]", Reason::NotJson, 1),
        (r#"{"remote_addr":"192.0.2.1""#, Reason::NotJson, 27),
        (r#"{"remote_addr":"192.0.2.1"#, Reason::Unterminated, 16),
        (r#"{"remote_addr":"192.0.2.1",}"#, Reason::NotJson, 28),
        (r#"{"remote_addr":"192.0.2.1"} x"#, Reason::NotJson, 29),
        (
            r#"{"remote_addr":"192.0.2.1","a":[1,2"#,
            Reason::Unterminated,
            36,
        ),
        (
            r#"{"remote_addr":"192.0.2.1","a":tru}"#,
            Reason::NotJson,
            32,
        ),
        (
            r#"{"remote_addr":"not an address"}"#,
            Reason::BadAddress,
            17,
        ),
        (
            r#"{"remote_addr":"192.0.2.1","status":"20x"}"#,
            Reason::BadStatus,
            38,
        ),
        (
            r#"{"remote_addr":"192.0.2.1","bytes":1.5}"#,
            Reason::BadBytes,
            36,
        ),
        (
            r#"{"remote_addr":"192.0.2.1","time":"yesterday"}"#,
            Reason::BadTime,
            36,
        ),
        (r#"{"status":200}"#, Reason::MissingField, 15),
        ("{}", Reason::MissingField, 3),
        (r#"{"a":"\"#, Reason::Unterminated, 6),
    ];
    for (line, reason, column) in cases {
        assert_eq!(fail(&f, line), (*reason, *column), "{line}");
    }
}

// ---------------------------------------------------------------- failures

/// A preset's line that ends inside a quoted field, from the request on,
/// was cut on its way (syslog's line-length limits): it is still a request.
#[test]
fn lines_cut_short_are_requests() {
    let f = fmt("combined");
    let head = "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] ";
    for (tail, (method, path, status, referer, ua)) in [
        (
            "\"GET /a-long-pa",
            (Some("GET"), Some("/a-long-pa"), None, None, None),
        ),
        ("\"", (None, None, None, None, None)),
        (
            "\"GET / HTTP/1.1\" 200 5 \"https://ref",
            (Some("GET"), Some("/"), Some(200), Some("https://ref"), None),
        ),
        (
            "\"GET / HTTP/1.1\" 404 5 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.goo",
            (
                Some("GET"),
                Some("/"),
                Some(404),
                None,
                Some("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.goo"),
            ),
        ),
    ] {
        let line = format!("{head}{tail}");
        let r = f.parse(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(r.truncated, "{line}");
        assert_eq!(
            (r.method, r.path, r.status, r.referer, r.user_agent),
            (method, path, status, referer, ua),
            "{line}"
        );
        assert_eq!(r.time.map(|t| t.unix), Some(971_211_336));
        // The same under `common`: cut inside its request.
        if !tail.contains(" 200 ") && !tail.contains(" 404 ") {
            assert!(fmt("common").parse(&line).expect("common").truncated);
        }
    }
    let whole = format!("{head}\"GET / HTTP/1.1\" 200 5 \"-\" \"x\"");
    assert!(!f.parse(&whole).expect("a whole line").truncated);
    // Cut before the request, inside a literal, or in a format given as a
    // string: not a request that can be read.
    assert_eq!(
        fail(&f, "192.0.2.1 - - [10/Oct/2000:13:5"),
        (Reason::Unterminated, 15)
    );
    assert_eq!(
        fail(&f, &format!("{head}\"GET / HTTP/1.1\" 200 5 \"-\"")),
        (Reason::Mismatch, 70)
    );
    assert_eq!(
        fail(
            &fmt(r#"%h %l %u %t "%r" %>s %b"#),
            &format!("{head}\"GET /a")
        ),
        (Reason::Unterminated, 44)
    );
}

#[test]
fn skipped_and_failed_lines() {
    let f = fmt("combined");
    let good = r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "x""#;
    let cases: &[(&str, Reason, u32)] = &[
        ("", Reason::Blank, 1),
        ("  \t", Reason::Blank, 1),
        ("\r", Reason::Blank, 1),
        ("#Fields: date time", Reason::Comment, 1),
        ("   # note", Reason::Comment, 1),
        ("\0\0\0", Reason::BadAddress, 1),
        ("192.0.2.1", Reason::Mismatch, 10),
        ("192.0.2.1 - -", Reason::Mismatch, 14),
        (
            "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700",
            Reason::Unterminated,
            15,
        ),
        (
            "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200",
            Reason::Mismatch,
            64,
        ),
        (
            "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\"",
            Reason::Mismatch,
            70,
        ),
        (
            "300.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \"x\"",
            Reason::BadAddress,
            1,
        ),
        (
            "fe80::1% - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \"x\"",
            Reason::BadAddress,
            1,
        ),
        (
            "192.0.2.1:99999 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \"x\"",
            Reason::BadAddress,
            1,
        ),
        (
            "192.0.2.1 - - [10/Foo/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \"x\"",
            Reason::BadTime,
            15,
        ),
        (
            "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 20 5 \"-\" \"x\"",
            Reason::BadStatus,
            61,
        ),
        (
            "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5k \"-\" \"x\"",
            Reason::BadBytes,
            65,
        ),
        (
            "192.0.2.1 - - 10/Oct/2000:13:55:36 -0700\"GET / HTTP/1.1\" 200 5 \"-\" \"x\"",
            Reason::Mismatch,
            41,
        ),
        (
            "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] GET / HTTP/1.1 200 5 \"-\" \"x\"",
            Reason::Mismatch,
            43,
        ),
        // A JSON line where an access line was expected.
        (r#"{"remote_addr":"192.0.2.1"}"#, Reason::BadAddress, 1),
    ];
    for (line, reason, column) in cases {
        let got = fail(&f, line);
        assert_eq!(got, (*reason, *column), "{line:?}");
    }
    assert!(f.parse(good).is_ok());
    // `%t` without its brackets is read too (the fixed-width form).
    let bare = good.replace(['[', ']'], "");
    assert_eq!(f.parse(&bare).unwrap().time.unwrap().unix, 971_211_336);
    assert!(Reason::Comment.skipped());
    assert!(!Reason::Mismatch.skipped());
    assert_eq!(
        Error::Parse {
            reason: Reason::BadAddress,
            column: 17
        }
        .to_string(),
        "column 17: bad-address"
    );
    let names: Vec<&str> = Reason::ALL.iter().map(Reason::as_str).collect();
    assert_eq!(
        names,
        [
            "blank",
            "comment",
            "mismatch",
            "bad-address",
            "bad-time",
            "bad-status",
            "bad-bytes",
            "unterminated",
            "not-json",
            "missing-field",
            "no-fields"
        ]
    );
}

#[test]
fn long_and_odd_lines() {
    let f = fmt("combined");
    let ua = "A".repeat(1 << 20);
    let line = format!(
        r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET /{} HTTP/1.1" 200 5 "-" "{ua}""#,
        "p".repeat(100_000)
    );
    let r = f.parse(&line).unwrap();
    assert_eq!(r.user_agent.map(str::len), Some(1 << 20));
    // Cut inside the User-Agent: a request cut short; the User-Agent runs
    // to the end of the line.
    let open =
        format!(r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "{ua}"#);
    let r = f.parse(&open).expect("a request cut short");
    assert!(r.truncated);
    assert_eq!(r.user_agent.map(str::len), Some(1 << 20));
    // A format given as a string is exact: there, that is a failure.
    let exact = fmt(r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i""#);
    assert_eq!(fail(&exact, &open), (Reason::Unterminated, 71));
    // Two lines glued together (a lost newline): the first one's last
    // quote is followed by more text, which the preset takes as extra
    // fields.
    let glued = format!("{line}{line}");
    assert!(f.parse(&glued).is_ok());
    // Non-ASCII text and U+FFFD from lossy conversion in quoted fields.
    let line = "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /\u{fffd}é HTTP/1.1\" 200 5 \"-\" \"Ünïcode\"";
    assert_eq!(f.parse(line).unwrap().path, Some("/\u{fffd}é"));
    // A NUL inside a header is kept as written.
    let line = "192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \"a\0b\"";
    assert_eq!(f.parse(line).unwrap().user_agent, Some("a\0b"));
}

#[test]
fn mixed_formats_and_detect() {
    let combined = r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "x""#;
    let common = r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5"#;
    let json = r#"{"remote_addr":"192.0.2.1","status":200}"#;
    // One common line in 60 combined ones: a near tie, the richer wins.
    let mut sample = vec![combined; 60];
    sample.push(common);
    assert_eq!(LogFormat::detect(&sample).unwrap().name(), "combined");
    // In a small sample, a strict majority.
    assert_eq!(
        LogFormat::detect(&[combined, combined, common])
            .unwrap()
            .name(),
        "common"
    );
    assert_eq!(
        LogFormat::detect(&[combined, combined]).unwrap().name(),
        "combined"
    );
    assert_eq!(
        LogFormat::detect(&[json, json, combined]).unwrap().name(),
        "json"
    );
    assert_eq!(
        LogFormat::detect(&["# only a comment", ""]).map(|f| f.name().to_owned()),
        None
    );
    assert!(LogFormat::detect(&[]).is_none());
    let f = fmt("json");
    assert_eq!(fail(&f, combined), (Reason::NotJson, 1));
}

// ---------------------------------------------------------------- time

#[test]
fn clf_timestamps() {
    let f = fmt("%h %t");
    let t = |s: &str| {
        f.parse(&format!("192.0.2.1 [{s}]"))
            .map(|r| r.time.unwrap())
    };
    let ok: &[(&str, &str, i32)] = &[
        ("29/Feb/2024:00:00:00 +0000", "2024-02-29T00:00:00Z", 0),
        ("29/Feb/2000:12:00:00 +0000", "2000-02-29T12:00:00Z", 0),
        ("01/jan/1970:00:00:00 +0000", "1970-01-01T00:00:00Z", 0),
        ("31/DEC/1969:23:59:59 +0000", "1969-12-31T23:59:59Z", 0),
        ("01/Mar/2024:00:30:00 +0100", "2024-02-29T23:30:00Z", 3600),
        ("28/Feb/2023:23:00:00 -0130", "2023-03-01T00:30:00Z", -5400),
        ("30/Dec/9999:12:00:00 +1400", "9999-12-29T22:00:00Z", 50_400),
        ("30/Jun/2015:23:59:60 +0000", "2015-07-01T00:00:00Z", 0),
        // What servers write besides the exact form: no zone (UTC),
        // fractional seconds, other zone spellings, a one-digit day.
        ("10/Oct/2000:13:55:36", "2000-10-10T13:55:36Z", 0),
        ("10/Oct/2000:13:55:36 ", "2000-10-10T13:55:36Z", 0),
        ("10/Oct/2000:13:55:36.584", "2000-10-10T13:55:36Z", 0),
        (
            "10/Oct/2000:13:55:36.123 +0200",
            "2000-10-10T11:55:36Z",
            7200,
        ),
        (
            "10/Oct/2000:13:55:36 +05:30",
            "2000-10-10T08:25:36Z",
            19_800,
        ),
        ("10/Oct/2000:13:55:36 UTC", "2000-10-10T13:55:36Z", 0),
        ("10/Oct/2000:13:55:36 GMT", "2000-10-10T13:55:36Z", 0),
        ("1/Oct/2000:13:55:36 +0000", "2000-10-01T13:55:36Z", 0),
        ("10/Oct/2000:13:55:36 +0000 ", "2000-10-10T13:55:36Z", 0),
    ];
    for (s, want, offset) in ok {
        assert_eq!(
            t(s).map_err(place),
            Ok(Timestamp {
                unix: utc(want),
                offset: *offset
            }),
            "{s}"
        );
    }
    for bad in [
        "29/Feb/2023:00:00:00 +0000",
        "29/Feb/1900:00:00:00 +0000",
        "30/Feb/2024:00:00:00 +0000",
        "31/Apr/2024:00:00:00 +0000",
        "00/Jan/2024:00:00:00 +0000",
        "10/Oct/2000:25:00:00 +0000",
        "10/Oct/2000:13:60:00 +0000",
        "10/Oct/2000:13:55:61 +0000",
        "10/Oct/2000:13:55:36 +2400",
        "10/Oct/2000:13:55:36 0700",
        "10/Oct/2000:13:55:36 CEST",
        "10/Oct/2000:13:55:36+0000",
        "10/Oct/2000:13:55:36.",
        "100/Oct/2000:13:55:36 +0000",
        "10/Oct/2000:13:55:36 +0000 x",
        "10/Octo/2000:13:55:36 +0000",
        "１0/Oct/2000:13:55:36 +000",
    ] {
        assert_eq!(t(bad).map_err(place), Err((Reason::BadTime, 11)), "{bad}");
    }
}

#[test]
fn iso_and_epoch_timestamps() {
    let f = fmt("$remote_addr $time_iso8601");
    let t = |s: &str| f.parse(&format!("192.0.2.1 {s}")).map(|r| r.time.unwrap());
    let ok: &[(&str, &str, i32)] = &[
        ("2024-02-29T23:59:59+00:00", "2024-02-29T23:59:59Z", 0),
        ("2024-02-29T23:59:59Z", "2024-02-29T23:59:59Z", 0),
        ("2024-02-29t23:59:59.123456789z", "2024-02-29T23:59:59Z", 0),
        (
            "2024-02-29T23:59:59,5-0500",
            "2024-03-01T04:59:59Z",
            -18_000,
        ),
        ("2024-02-29T23:59:59+05", "2024-02-29T18:59:59Z", 18_000),
        ("2024-02-29T23:59:59", "2024-02-29T23:59:59Z", 0),
        ("1600-03-01T00:00:00Z", "1600-03-01T00:00:00Z", 0),
    ];
    for (s, want, offset) in ok {
        assert_eq!(
            t(s).map_err(place),
            Ok(Timestamp {
                unix: utc(want),
                offset: *offset
            }),
            "{s}"
        );
    }
    for bad in [
        "2023-02-29T00:00:00Z",
        "2024-13-01T00:00:00Z",
        "2024-01-01T24:00:00Z",
        "2024-01-01T00:00:00.Z",
        "2024-01-01T00:00:00+1",
        "2024-01-01",
        "24-01-01T00:00:00Z",
    ] {
        assert_eq!(
            t(bad).map_err(|e| place(e).0),
            Err(Reason::BadTime),
            "{bad}"
        );
    }
    let f = fmt("$remote_addr $msec");
    let t = |s: &str| {
        f.parse(&format!("192.0.2.1 {s}"))
            .map(|r| r.time.unwrap().unix)
    };
    assert_eq!(t("1700000000.999").map_err(place), Ok(1_700_000_000));
    assert_eq!(t("0").map_err(place), Ok(0));
    for bad in ["1700000000.", ".5", "17e9", "-1", "1234567890123456789"] {
        assert_eq!(
            t(bad).map_err(|e| place(e).0),
            Err(Reason::BadTime),
            "{bad}"
        );
    }
}

// ---------------------------------------------------------------- spec errors

#[test]
fn format_errors() {
    let cases: &[(&str, Option<usize>)] = &[
        ("%h %{User-Agent", Some(3)),
        ("%h %", Some(3)),
        ("%h %>", Some(3)),
        ("%h %{x}", Some(3)),
        ("%u %t", None),
        ("$remote_addr ${status", Some(13)),
        ("$status $request", None),
        ("log_format x escape=xml '$remote_addr'", Some(13)),
        ("log_format x '$remote_addr", Some(13)),
        ("json:agent=ua", Some(5)),
        ("json:remote", Some(5)),
        ("json:remote=", Some(5)),
        ("jsonish", None),
        ("plain text", None),
        ("", None),
    ];
    for (spec, pos) in cases {
        let err = LogFormat::from_spec(spec).expect_err(spec);
        match &err {
            Error::Format {
                spec: given,
                position,
                ..
            } => {
                assert_eq!(position, pos, "{spec}: {err}");
                assert_eq!(given, spec);
            }
            other => panic!("{spec}: not a format error: {other}"),
        }
        assert!(err.to_string().contains(&format!("{spec:?}")), "{err}");
    }
    let err = LogFormat::from_spec("%h %{User-Agent").unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"log format "%h %{User-Agent": unterminated %{ at byte 3"#
    );
    // Unknown directives and variables are opaque fields, not errors.
    let f = fmt("%h %Z %{foo}x $bar");
    assert!(f.parse("192.0.2.1 a b $bar").is_ok());
    let f = fmt("$remote_addr $foo ${bar}");
    assert!(f.parse("192.0.2.1 a b").is_ok());
    for preset in LogFormat::presets() {
        assert_eq!(fmt(preset).name(), preset);
    }
}

#[test]
fn formats_are_shared_across_threads() {
    fn check<T: Send + Sync + Clone>() {}
    check::<LogFormat>();
    let f = fmt("combined");
    let line = r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "x""#;
    std::thread::scope(|s| {
        for _ in 0..2 {
            let f = f.clone();
            s.spawn(move || assert!(f.parse(line).is_ok()));
        }
    });
}

// ---------------------------------------------------------------- proptest

/// Text Apache could write inside a quoted field: printable ASCII with
/// `"` and `\` escaped, or `-`.
fn quoted_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-".to_owned()),
        "[ -~]{1,40}".prop_map(|s| s.replace('\\', "\\\\").replace('"', "\\\"")),
    ]
}

prop_compose! {
    fn arb_line()(
        v4 in any::<[u8; 4]>(),
        v6 in any::<[u16; 8]>(),
        use_v6 in any::<bool>(),
        unix in 0i64..253_402_300_799,
        offset_min in -(14 * 60i32)..=(14 * 60),
        method in "[A-Z]{1,7}",
        path in "/[!-~]{0,30}",
        protocol in prop_oneof![Just("HTTP/1.0"), Just("HTTP/1.1"), Just("HTTP/2.0")],
        status in 100u16..=999,
        bytes in prop_oneof![Just(None), (0u64..u64::MAX / 2).prop_map(Some)],
        referer in quoted_text(),
        ua in quoted_text(),
    ) -> (String, IpAddr, Timestamp, String, String, &'static str, u16, u64, String, String) {
        let remote = if use_v6 {
            IpAddr::from(std::net::Ipv6Addr::from(v6))
        } else {
            IpAddr::from(v4)
        };
        let offset = offset_min * 60;
        let path = path.replace('\\', "%5C").replace('"', "\\\"");
        let local = jiff::Timestamp::from_second(unix).unwrap()
            .to_zoned(jiff::tz::TimeZone::fixed(jiff::tz::Offset::from_seconds(offset).unwrap()));
        let when = local.strftime("%d/%b/%Y:%H:%M:%S %z").to_string();
        let bytes_text = bytes.map_or("-".to_owned(), |b| b.to_string());
        let line = format!(r#"{remote} - - [{when}] "{method} {path} {protocol}" {status} {bytes_text} "{referer}" "{ua}""#);
        (line, remote, Timestamp { unix, offset }, method, path, protocol, status, bytes.unwrap_or(0), referer, ua)
    }
}

proptest! {
    #[test]
    fn combined_lines_round_trip(
        (line, remote, time, method, path, protocol, status, bytes, referer, ua) in arb_line()
    ) {
        let r = fmt("combined").parse(&line).map_err(|e| TestCaseError::fail(format!("{line}: {e}")))?;
        let none_if_dash = |s: &str| (s != "-").then(|| s.to_owned());
        prop_assert_eq!(r.remote, Client::Addr(remote));
        prop_assert_eq!(r.time, Some(time));
        prop_assert_eq!(r.method, Some(method.as_str()));
        prop_assert_eq!(r.path, Some(path.as_str()));
        prop_assert_eq!(r.protocol, Some(protocol));
        prop_assert_eq!(r.status, Some(status));
        prop_assert_eq!(r.bytes, bytes);
        prop_assert_eq!(r.referer.map(str::to_owned), none_if_dash(&referer));
        prop_assert_eq!(r.user_agent.map(str::to_owned), none_if_dash(&ua));
    }

    #[test]
    fn any_text_gives_a_record_or_an_error(line in "\\PC{0,200}") {
        for spec in ["combined", "common", "vhost_combined", "json"] {
            if let Err(e) = fmt(spec).parse(&line) {
                let (_, column) = place(e);
                prop_assert!(column >= 1 && column as usize <= line.len() + 1);
            }
        }
    }
}

// ---------------------------------------------------------------- speed

#[test]
fn fixed_width_times_never_split_a_character() {
    let f = fmt("$remote_addr $time_local $status");
    assert!(f.parse("192.0.2.1 10/Oct/2000:13:55:36 -0700 200").is_ok());
    for line in [
        "192.0.2.1 10/Oct/2000:13:55:36 -070é 200",
        "192.0.2.1 ééééééééééééé",
        "192.0.2.1 é",
    ] {
        assert_eq!(fail(&f, line), (Reason::BadTime, 11), "{line}");
    }
}

// ---------------------------------------------------------------- other servers

/// The W3C extended format: IIS (spaces, `+` for spaces in values),
/// CloudFront (tabs), quoted values, a `#Fields:` directive naming them.
#[test]
fn w3c_extended_lines() {
    let iis = LogFormat::w3c_fields(
        "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken",
    )
    .expect("a directive")
    .expect("a format");
    assert!(iis.is_w3c());
    assert!(iis.name().starts_with("w3c:date time s-ip"));
    let line = "2026-11-20 10:00:05 10.0.0.4 GET /products/list.aspx cat=7 443 - 66.249.66.1 Mozilla/5.0+(compatible;+Googlebot/2.1;++http://www.google.com/bot.html) - 200 0 0 31";
    let r = iis.parse(line).expect("an IIS line");
    assert_eq!(r.remote, Client::Addr(ip("66.249.66.1")));
    assert_eq!(r.time.map(|t| t.unix), Some(utc("2026-11-20T10:00:05Z")));
    assert_eq!(
        (r.method, r.path, r.status),
        (Some("GET"), Some("/products/list.aspx"), Some(200))
    );
    assert_eq!(
        r.user_agent,
        Some("Mozilla/5.0+(compatible;+Googlebot/2.1;++http://www.google.com/bot.html)")
    );
    // A value with an unencoded space is one field too many.
    assert_eq!(
        fail(&iis, &line.replace(";++http", "; +http")),
        (Reason::Mismatch, 161)
    );
    let cloudfront = LogFormat::from_spec(
        "w3c:date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query",
    )
    .expect("a w3c spec");
    let line = "2026-11-20\t10:00:06.123\tFRA56-P1\t5120\t2001:db8::9\tGET\td1234.cloudfront.example\t/index.html\t304\t-\tMozilla/5.0%20(X11;%20Linux)\t-";
    let r = cloudfront.parse(line).expect("a CloudFront line");
    assert_eq!(r.remote, Client::Addr(ip("2001:db8::9")));
    assert_eq!(
        (r.bytes, r.status, r.vhost),
        (5120, Some(304), Some("d1234.cloudfront.example"))
    );
    assert_eq!(r.referer, None);
    // Quoted values (IIS Advanced Logging, Incapsula), `""` inside.
    let quoted =
        LogFormat::from_spec("w3c:date time c-ip cs(User-Agent) sc-status").expect("a spec");
    let r = quoted
        .parse(r#""2026-11-20" "10:00:07" "192.0.2.5" "Mozilla/5.0 (X11; ""quoted"")" "404""#)
        .expect("quoted values");
    assert_eq!(r.user_agent, Some(r#"Mozilla/5.0 (X11; ""quoted"")"#));
    assert_eq!(r.status, Some(404));
    // No client given: still a request.
    assert_eq!(
        quoted
            .parse("2026-11-20 10:00:07 - x 200")
            .expect("a line")
            .remote,
        Client::Unknown
    );
    // A client by name only (c-dns), when there is no c-ip.
    let dns = LogFormat::from_spec("w3c:c-dns date time cs-uri-stem").expect("a spec");
    assert_eq!(
        dns.parse("host-9.example.net 2026-11-20 10:00:08 /")
            .expect("a line")
            .remote,
        Client::Name("host-9.example.net")
    );
    // Failures name the place.
    assert_eq!(
        fail(&quoted, "2026-11-20 10:00:07 192.0.2.5"),
        (Reason::Mismatch, 30)
    );
    assert_eq!(
        fail(&quoted, "2026-11-20 10:00:07 192.0.2.5 x 200 extra"),
        (Reason::Mismatch, 37)
    );
    assert_eq!(
        fail(&quoted, "2026-11-20 25:00:07 192.0.2.5 x 200"),
        (Reason::BadTime, 12)
    );
    assert_eq!(
        fail(&quoted, "2026-11-20 10:00:07 192.0.2.5 \"x 200"),
        (Reason::Unterminated, 31)
    );
    assert_eq!(
        fail(&fmt("w3c"), "2026-11-20 10:00:07 192.0.2.5 x 200"),
        (Reason::NoFields, 1)
    );
    assert!(LogFormat::from_spec("w3c:date time cs-method").is_err());
    assert!(LogFormat::w3c_fields("#Software: IIS").is_none());
}

/// AWS load balancers and S3, as presets (their trailing fields ignored).
#[test]
fn aws_presets() {
    let elb = fmt("elb");
    let r = elb
        .parse(r#"2026-11-20T10:00:09.123456Z my-lb 198.51.100.7:40111 10.0.0.1:80 0.000051 0.00112 0.000022 200 200 0 5120 "GET https://www.example.org:443/a?b=1 HTTP/1.1" "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2"#)
        .expect("an ELB line");
    assert_eq!(r.remote, Client::Addr(ip("198.51.100.7")));
    assert_eq!(r.time.map(|t| t.unix), Some(utc("2026-11-20T10:00:09Z")));
    assert_eq!((r.status, r.bytes), (Some(200), 5120));
    assert_eq!(r.path, Some("https://www.example.org:443/a?b=1"));
    // A TCP connection with no HTTP request: still a connection, no pieces.
    let r = elb
        .parse(r#"2026-11-20T10:00:10.000001Z my-lb 198.51.100.8:2817 10.0.0.1:80 0.001 0.0001 0.00004 - - 82 305 "- - - " "-" - -"#)
        .expect("a TCP line");
    assert_eq!((r.method, r.path, r.status), (None, None, None));
    let alb = fmt("alb");
    let r = alb
        .parse(r#"h2 2026-11-20T10:00:11.654321Z app/my-alb/50dc6c495c0c9188 [2001:db8::77]:51234 10.0.0.2:80 0.000 0.001 0.000 404 404 34 366 "GET https://www.example.org:443/missing HTTP/2.0" "curl/8.5.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:eu-west-1:111:targetgroup/t/1 "Root=1-abc" "www.example.org" "-" 0 2026-11-20T10:00:11.653000Z "forward" "-" "-""#)
        .expect("an ALB line");
    assert_eq!(r.remote, Client::Addr(ip("2001:db8::77")));
    assert_eq!((r.status, r.user_agent), (Some(404), Some("curl/8.5.0")));
    let gandi = fmt("gandi");
    let r = gandi
        .parse(r#"www.example.org 192.0.2.90 - - [20/Nov/2026:10:00:14 +0100] (0 s) "GET / HTTP/1.1" 200 1124 "https://www.example.org/" "Mozilla/5.0 (X11; Linux x86_64)""#)
        .expect("a Gandi line");
    assert_eq!(
        (r.remote, r.vhost, r.status),
        (
            Client::Addr(ip("192.0.2.90")),
            Some("www.example.org"),
            Some(200)
        )
    );
    let s3 = fmt("s3");
    let r = s3
        .parse(r#"79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be www-example-org [20/Nov/2026:10:00:12 +0000] 192.0.2.3 - 3E57427F3EXAMPLE REST.GET.OBJECT index.html "GET /www-example-org/index.html HTTP/1.1" 200 - 2662 2662 70 10 "-" "Mozilla/5.0 (X11; Linux x86_64)" - Ke1b1uMkXxs= SigV4 ECDHE-RSA-AES128-GCM-SHA256 AuthHeader www-example-org.s3.amazonaws.com TLSV1.2"#)
        .expect("an S3 line");
    assert_eq!(r.remote, Client::Addr(ip("192.0.2.3")));
    assert_eq!(
        (r.vhost, r.status, r.bytes),
        (Some("www-example-org"), Some(200), 2662)
    );
    for (preset, line) in [
        (
            "elb",
            r#"198.51.100.7 - - [20/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "x""#,
        ),
        (
            "s3",
            r#"2026-11-20T10:00:09.123456Z my-lb 198.51.100.7:40111 10.0.0.1:80 0.1 0.1 0.1 200 200 0 5120 "GET / HTTP/1.1" "x""#,
        ),
    ] {
        assert!(fmt(preset).parse(line).is_err(), "{preset}: {line}");
    }
}

/// Traefik's and Caddy's JSON access logs, by their own member names
/// (Caddy's inside its nested `request` object, headers as lists).
#[test]
fn traefik_and_caddy_json() {
    let f = fmt("json");
    let r = f
        .parse(r#"{"ClientAddr":"192.0.2.40:52458","ClientHost":"192.0.2.40","ClientPort":"52458","DownstreamContentSize":15,"DownstreamStatus":200,"RequestHost":"www.example.org","RequestMethod":"GET","RequestPath":"/metrics","RequestProtocol":"HTTP/1.1","StartUTC":"2026-11-20T10:00:13.114Z","request_User-Agent":"Prometheus/2.48.0","request_Referer":"-"}"#)
        .expect("a Traefik line");
    assert_eq!(r.remote, Client::Addr(ip("192.0.2.40")));
    assert_eq!(
        (r.method, r.path, r.protocol),
        (Some("GET"), Some("/metrics"), Some("HTTP/1.1"))
    );
    assert_eq!(
        (r.status, r.bytes, r.vhost),
        (Some(200), 15, Some("www.example.org"))
    );
    assert_eq!(r.user_agent, Some("Prometheus/2.48.0"));
    assert_eq!(r.referer, None);
    assert_eq!(r.time.map(|t| t.unix), Some(utc("2026-11-20T10:00:13Z")));
    let r = f
        .parse(r#"{"level":"info","ts":1795168814.5,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"2001:db8::40","remote_port":"64985","client_ip":"2001:db8::41","proto":"HTTP/2.0","method":"GET","host":"www.example.org","uri":"/blog/","headers":{"Accept":["text/html"],"User-Agent":["Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"],"Referer":["https://www.example.org/"]}},"bytes_read":0,"duration":0.0012,"size":5120,"status":200,"resp_headers":{"Server":["Caddy"]}}"#)
        .expect("a Caddy line");
    assert_eq!(r.remote, Client::Addr(ip("2001:db8::41")));
    assert_eq!(
        (r.method, r.path, r.protocol),
        (Some("GET"), Some("/blog/"), Some("HTTP/2.0"))
    );
    assert_eq!(
        (r.status, r.bytes, r.vhost),
        (Some(200), 5120, Some("www.example.org"))
    );
    assert_eq!(
        r.user_agent,
        Some("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
    );
    assert_eq!(r.referer, Some("https://www.example.org/"));
    assert_eq!(r.time.map(|t| t.unix), Some(1_795_168_814));
    // A spec can name nested members too.
    let g = fmt("json:remote=peer.addr,user_agent=peer.agent");
    let r = g
        .parse(r#"{"peer":{"addr":"192.0.2.50","agent":["a","b"]},"x":{"addr":"192.0.2.51"}}"#)
        .expect("nested members");
    assert_eq!(
        (r.remote, r.user_agent),
        (Client::Addr(ip("192.0.2.50")), Some("a"))
    );
}

/// Lines sent through syslog carry its header before the log line: the
/// presets read past it. HAProxy's HTTP log is one such.
#[test]
fn syslog_headers_and_haproxy() {
    let combined = fmt("combined");
    let line = r#"192.0.2.1 - - [20/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "x""#;
    for header in [
        "Nov 20 10:00:00 web1 nginx: ",
        "<190>Nov 20 10:00:00 web1 nginx: ",
        "Nov  5 10:00:00 web1.example.org apache2[4121]: ",
    ] {
        let text = format!("{header}{line}");
        let r = combined
            .parse(&text)
            .unwrap_or_else(|e| panic!("{header}: {e}"));
        assert_eq!(r.remote, Client::Addr(ip("192.0.2.1")), "{header}");
        assert_eq!(r.user_agent, Some("x"));
    }
    // Not a header: the error is the line's own.
    assert_eq!(
        fail(&combined, &format!("Nov 20 10:00:00 web1 {line}")),
        (Reason::BadAddress, 1)
    );
    // A format given as a string must say so itself.
    let exact = fmt(r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i""#);
    assert!(
        exact
            .parse(&format!("Nov 20 10:00:00 web1 nginx: {line}"))
            .is_err()
    );
    let json = fmt("json");
    let r = json
        .parse(r#"Nov 20 10:00:00 web1 nginx: {"remote_addr":"192.0.2.9","status":200}"#)
        .expect("JSON through syslog");
    assert_eq!(r.remote, Client::Addr(ip("192.0.2.9")));

    let haproxy = fmt("haproxy");
    let r = haproxy
        .parse(r#"Nov 20 10:00:01 lb1 haproxy[6801]: 198.51.100.20:55008 [20/Nov/2026:10:00:01.584] ft_https~ bk_https/web1 0/0/0/72/72 200 7456 - - ---- 5/4/0/1/0 0/0 "POST /user/ HTTP/1.1""#)
        .expect("a HAProxy line");
    assert_eq!(r.remote, Client::Addr(ip("198.51.100.20")));
    assert_eq!(r.time.map(|t| t.unix), Some(utc("2026-11-20T10:00:01Z")));
    assert_eq!(
        (r.method, r.path, r.status, r.bytes),
        (Some("POST"), Some("/user/"), Some(200), 7456)
    );
    // Captured headers go with the queues.
    let r = haproxy
        .parse(r#"Nov 20 10:00:02 lb1 haproxy[6801]: 198.51.100.21:55009 [20/Nov/2026:10:00:02.001] ft_https~ bk_https/web1 0/0/0/5/5 404 120 - - ---- 1/1/0/0/0 0/0 {Mozilla/5.0 (X11; Linux)|www.example.org} "GET /missing HTTP/1.1""#)
        .expect("a HAProxy line with captures");
    assert_eq!((r.path, r.status), (Some("/missing"), Some(404)));
}
