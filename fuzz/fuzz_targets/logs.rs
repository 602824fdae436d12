//! Fuzz target `logs`: arbitrary bytes through `botwarden_logs::LogFormat`.
//!
//! The input, converted to UTF-8 lossily as the pipeline does, is
//!
//! - parsed, line by line, with several compiled formats (the presets, an
//!   nginx `log_format`, Apache strings with `%U%q`, `strftime` times and
//!   adjacent fields); every record's text fields must be slices of the
//!   line, every error's column must lie within the line (or just past its
//!   end), and a line that `combined` parses must parse under `common` to
//!   the same leading fields;
//! - compiled as a format spec; when that works, the input's own lines and
//!   a few fixed lines are parsed with it.
//!
//! Nothing may panic.

#![no_main]

use std::sync::OnceLock;

use botwarden_logs::{Client, Error, LogFormat, Record};
use libfuzzer_sys::fuzz_target;

const SPECS: &[&str] = &[
    "combined",
    "common",
    "vhost_combined",
    "json",
    "json:remote=a,time=t,request=r,status=s",
    r#"log_format main '$remote_addr - $remote_user [$time_local] "$request" '
        '$status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for"';"#,
    "$remote_addr|$time_iso8601|$msec|$status$body_bytes_sent|${http_host}",
    r#"%a %{c}a %v [%{msec}t] "%m %U%q %H" %s %>s %B%D "%{User-Agent}i""#,
    r#"%h [%{%Y-%m-%d %H:%M:%S %z}t] %{sec}t "%r" %b"#,
];

const LINES: &[&str] = &[
    r#"192.0.2.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "x""#,
    r#"{"remote_addr":"192.0.2.1","status":200}"#,
    "",
    "# comment",
];

fn formats() -> &'static [LogFormat] {
    static FORMATS: OnceLock<Vec<LogFormat>> = OnceLock::new();
    FORMATS.get_or_init(|| SPECS.iter().map(|s| LogFormat::from_spec(s).unwrap()).collect())
}

/// Whether `part` lies inside `line`.
fn within(line: &str, part: Option<&str>) -> bool {
    part.is_none_or(|p| {
        let (l, p) = (line.as_ptr() as usize, p.as_ptr() as usize);
        p >= l && p + part.map_or(0, str::len) <= l + line.len()
    })
}

fn check<'a>(format: &LogFormat, line: &'a str) -> Option<Record<'a>> {
    match format.parse(line) {
        Ok(r) => {
            for field in [r.forwarded_for, r.method, r.path, r.protocol, r.referer, r.user_agent, r.vhost] {
                assert!(within(line, field), "{}: a field outside the line {line:?}", format.name());
            }
            if let Client::Name(name) = r.remote {
                assert!(within(line, Some(name)), "{}: a host name outside the line {line:?}", format.name());
            }
            if let Some(status) = r.status {
                assert!(status <= 999);
            }
            Some(r)
        }
        Err(Error::Parse { reason, column }) => {
            assert!(column >= 1, "{}: column 0 for {line:?}", format.name());
            assert!(column as usize <= line.len() + 1, "{}: column {column} past the end of {line:?}", format.name());
            assert!(!reason.as_str().is_empty());
            None
        }
        Err(e) => panic!("{}: not a line's error: {e}", format.name()),
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let formats = formats();
    for line in text.split('\n') {
        let mut records = formats.iter().map(|f| check(f, line));
        let combined = records.next().flatten();
        let common = records.next().flatten();
        records.for_each(drop);
        if let Some(c) = combined {
            let Some(m) = common else {
                panic!("combined parses {line:?} but common does not");
            };
            assert_eq!(
                (c.remote, c.time, c.method, c.path, c.protocol, c.status, c.bytes),
                (m.remote, m.time, m.method, m.path, m.protocol, m.status, m.bytes),
                "{line:?}"
            );
        }
    }
    if let Ok(format) = LogFormat::from_spec(&text) {
        let _ = format.name();
        for line in text.split('\n').chain(LINES.iter().copied()) {
            check(&format, line);
        }
    }
    let _ = LogFormat::detect(&text.split('\n').take(20).collect::<Vec<_>>());
});
