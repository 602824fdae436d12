//! Log formats: presets, Apache `LogFormat` and nginx `log_format` strings,
//! JSON lines, W3C extended; and [`FormatChain`], which decides which
//! format reads a line.

mod fields;
mod json;
mod pattern;
mod time;
mod w3c;

use std::fmt;
use std::sync::Arc;

use crate::Error;
use crate::record::{Client, Record, SignatureFields, Timestamp};
use json::JsonFormat;
use pattern::Pattern;
use w3c::W3cFormat;

/// The Apache common log format.
const COMMON: &str = r#"%h %l %u %t "%r" %>s %b"#;
/// The Apache (and nginx default) combined log format.
const COMBINED: &str = r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i""#;
/// `vhost_combined`: Apache's `%v %h …` and Debian's `%v:%p %h …` alike
/// (the `%v` of a vhost preset takes an optional `:port`).
const VHOST_COMBINED: &str = r#"%v %h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i""#;
/// `vhost_common`: Apache's `%v %h %l %u %t "%r" %>s %b` and Debian's
/// `%v:%p …` alike.
const VHOST_COMMON: &str = r#"%v %h %l %u %t "%r" %>s %O"#;

/// AWS Classic Load Balancer access logs (the SSL fields after the
/// User-Agent are trailing fields).
const ELB: &str = r#"$time_iso8601 $elb $remote_addr $backend_addr $request_processing_time $backend_processing_time $response_processing_time $status $backend_status $received_bytes $body_bytes_sent "$request" "$http_user_agent""#;
/// AWS Application Load Balancer access logs.
const ALB: &str = r#"$type $time_iso8601 $elb $remote_addr $target_addr $request_processing_time $target_processing_time $response_processing_time $status $target_status $received_bytes $body_bytes_sent "$request" "$http_user_agent""#;
/// HAProxy's HTTP log format (`option httplog`), after its syslog header;
/// the captured headers, when there are some, go with the queue field.
const HAPROXY: &str = r#"%h [%t] %{frontend}x %{backend}x %{timers}x %>s %b %{request_cookie}x %{response_cookie}x %{termination}x %{connections}x %{queues}x "%r""#;
/// Gandi's hosting: `vhost_combined` with the time taken, `(0 s)`, after
/// the time.
const GANDI: &str = r#"%v %h %l %u %t (%{seconds}x s) "%r" %>s %b "%{Referer}i" "%{User-Agent}i""#;
/// Amazon S3 server access logs.
const S3: &str = r#"%{owner}x %v %t %a %{requester}x %{request_id}x %{operation}x %{key}x "%r" %>s %{error}x %b %{object_size}x %{total_time}x %{turn_around_time}x "%{Referer}i" "%{User-Agent}i""#;

/// The presets: name, format string (Apache or nginx; `None` for JSON and
/// W3C), richness rank for [`LogFormat::detect`] (higher is richer).
const PRESETS: [(&str, Option<&str>, u8); 12] = [
    ("common", Some(COMMON), 1),
    ("combined", Some(COMBINED), 3),
    ("vhost_common", Some(VHOST_COMMON), 2),
    ("vhost_combined", Some(VHOST_COMBINED), 4),
    ("nginx", Some(COMBINED), 3),
    ("elb", Some(ELB), 3),
    ("alb", Some(ALB), 3),
    ("s3", Some(S3), 3),
    ("haproxy", Some(HAPROXY), 3),
    ("gandi", Some(GANDI), 4),
    ("json", None, 0),
    ("w3c", None, 0),
];

/// A compiled log format. Cheap to clone and to share across threads.
#[derive(Debug, Clone)]
pub struct LogFormat {
    name: Arc<str>,
    inner: Arc<Inner>,
    /// A preset: lines may come with a syslog header.
    preset: bool,
}

#[derive(Debug)]
enum Inner {
    Pattern(Pattern),
    Json(JsonFormat),
    W3c(W3cFormat),
}

impl LogFormat {
    /// A preset name, an Apache `LogFormat` string, an nginx `log_format`
    /// string, or a JSON spec (`json`, `json:field=name,...`).
    ///
    /// A spec with nginx variables (`$remote_addr`) and no Apache
    /// directives, or starting with `log_format`, is an nginx format;
    /// otherwise one with `%` directives is an Apache format. Presets accept
    /// extra fields after their last one; formats given as strings must
    /// match the whole line (trailing blanks aside).
    ///
    /// # Errors
    /// When the spec is none of these, or is malformed: an unterminated
    /// `%{` or `${`, a directive cut short, no client address field, an
    /// unknown JSON record field.
    pub fn from_spec(spec: &str) -> Result<LogFormat, Error> {
        let trimmed = spec.trim();
        if let Some((name, text, _)) = PRESETS.iter().find(|(n, _, _)| *n == trimmed) {
            let inner = match (text, flavour(text.unwrap_or(""))) {
                (Some(f), Some(Flavour::Nginx)) => Inner::Pattern(pattern::compile_nginx(f, true)?),
                (Some(f), _) => Inner::Pattern(pattern::compile_apache(f, true)?.with_vhost_port()),
                (None, _) if *name == "w3c" => Inner::W3c(W3cFormat::awaiting()),
                (None, _) => Inner::Json(JsonFormat::compile("json")?),
            };
            return Ok(LogFormat {
                preset: true,
                ..LogFormat::new(name, inner)
            });
        }
        if trimmed == "json" || trimmed.starts_with("json:") {
            return Ok(LogFormat::new(
                trimmed,
                Inner::Json(JsonFormat::compile(trimmed)?),
            ));
        }
        if let Some(names) = trimmed.strip_prefix("w3c:") {
            return Ok(LogFormat::new(
                trimmed,
                Inner::W3c(W3cFormat::compile(spec, names)?),
            ));
        }
        let inner = match flavour(trimmed) {
            Some(Flavour::Nginx) => Inner::Pattern(pattern::compile_nginx(trimmed, false)?),
            Some(Flavour::Apache) => Inner::Pattern(pattern::compile_apache(trimmed, false)?),
            None => {
                return Err(Error::format(
                    spec,
                    None,
                    "not a preset, an Apache LogFormat, an nginx log_format or a json spec",
                ));
            }
        };
        Ok(LogFormat::new(trimmed, inner))
    }

    fn new(name: &str, inner: Inner) -> LogFormat {
        LogFormat {
            name: name.into(),
            inner: Arc::new(inner),
            preset: false,
        }
    }

    /// The preset name or the string the format was made from (for
    /// reports).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names of the presets [`LogFormat::from_spec`] knows.
    #[must_use]
    pub fn presets() -> Vec<&'static str> {
        PRESETS.iter().map(|(n, _, _)| *n).collect()
    }

    /// Parses one line, given without its line terminator (a trailing `\r`
    /// is tolerated).
    ///
    /// # Errors
    /// [`Error::Parse`] with the [`Reason`] and the column where parsing
    /// stopped: a blank line or a `#` comment is
    /// [skipped](Reason::skipped); any other line the format does not
    /// describe fails.
    pub fn parse<'a>(&self, line: &'a str) -> Result<Record<'a>, Error> {
        self.read(line).map_err(Error::from)
    }

    /// [`LogFormat::parse`], with the small error the analysis counts.
    pub(crate) fn read<'a>(&self, line: &'a str) -> Result<Record<'a>, Fault> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let first = line.bytes().position(|c| !matches!(c, b' ' | b'\t'));
        match first.map(|i| line.as_bytes()[i]) {
            None => return Err(Fault::at(Reason::Blank, 0)),
            Some(b'#') => return Err(Fault::at(Reason::Comment, 0)),
            Some(_) => {}
        }
        let parse = |line| match &*self.inner {
            Inner::Pattern(p) => p.parse(line),
            Inner::Json(j) => j.parse(line),
            Inner::W3c(w) => w.parse(line),
        };
        match parse(line) {
            // Lines sent through syslog (nginx's `access_log syslog:`,
            // HAProxy, a pipe to logger) carry its header first.
            Err(e) if self.preset => match after_syslog_header(line) {
                Some(rest) => parse(rest).map_err(|_| e),
                None => Err(e),
            },
            parsed => parsed,
        }
    }

    /// Whether this is a W3C extended format (`w3c` or `w3c:…`), which a
    /// `#Fields:` directive in the log replaces ([`LogFormat::w3c_fields`]).
    #[must_use]
    pub fn is_w3c(&self) -> bool {
        matches!(&*self.inner, Inner::W3c(_))
    }

    /// The W3C extended format a `#Fields:` directive describes (`#Fields:
    /// date time c-ip cs-method …`), named `w3c:` and its field names; `None`
    /// when the line is no such directive.
    ///
    /// # Errors
    /// A directive without a client field (`c-ip` or `c-dns`).
    pub fn w3c_fields(line: &str) -> Option<Result<LogFormat, Error>> {
        let names = line.trim_start().strip_prefix("#Fields:")?;
        let names: Vec<&str> = names.split_ascii_whitespace().collect();
        let spec = format!("w3c:{}", names.join(" "));
        Some(
            W3cFormat::compile(&spec, &names.join(" "))
                .map(|w| LogFormat::new(&spec, Inner::W3c(w))),
        )
    }

    /// The preset that parses most of these sample lines, or `None` when
    /// none parses any.
    ///
    /// Presets accept extra trailing fields, so a poorer preset parses
    /// whatever a richer one does (`common` parses combined lines): a
    /// richer preset wins when it parses nearly as many lines as the best
    /// (all but 2%), so that one truncated line in a sample of a hundred
    /// does not turn a combined log into a common one.
    #[must_use]
    pub fn detect(sample: &[&str]) -> Option<LogFormat> {
        let candidates: Vec<(LogFormat, usize, u8)> = PRESETS
            .iter()
            .filter(|(name, _, _)| *name != "nginx")
            .filter_map(|(name, _, rank)| {
                let format = LogFormat::from_spec(name).ok()?;
                let parsed = sample.iter().filter(|l| format.read(l).is_ok()).count();
                Some((format, parsed, *rank))
            })
            .collect();
        let best = candidates.iter().map(|c| c.1).max()?;
        if best == 0 {
            return None;
        }
        let slack = best / 50;
        candidates
            .into_iter()
            .filter(|c| c.1 + slack >= best)
            .max_by_key(|c| (c.2, c.1))
            .map(|c| c.0)
    }
}

/// What follows a syslog header (RFC 3164, as syslog daemons and the
/// journal write it): an optional `<PRI>`, `Mmm dd hh:mm:ss` (the day
/// padded with a space), a host and a tag (`nginx:`, `haproxy[6801]:`).
fn after_syslog_header(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let mut at = 0;
    if b.first() == Some(&b'<') {
        let close = b.iter().position(|&c| c == b'>')?;
        if !(2..=4).contains(&close) || !b[1..close].iter().all(u8::is_ascii_digit) {
            return None;
        }
        at = close + 1;
    }
    let head = b.get(at..at + 16)?;
    let month_ok = time::month_number(&head[..3]).is_some();
    let day_ok = matches!(head[4], b' ' | b'0'..=b'3') && head[5].is_ascii_digit();
    let clock_ok = head[9] == b':'
        && head[12] == b':'
        && [7, 8, 10, 11, 13, 14]
            .iter()
            .all(|&i| head[i].is_ascii_digit());
    if !month_ok || head[3] != b' ' || !day_ok || head[6] != b' ' || head[15] != b' ' || !clock_ok {
        return None;
    }
    at += 16;
    // The host, then the tag ending in `:`.
    let host = line[at..].find(' ')?;
    at += host + 1;
    let tag = line[at..].find(": ")?;
    if tag == 0 || line[at..at + tag].contains(' ') {
        return None;
    }
    Some(&line[at + tag + 2..])
}

enum Flavour {
    Apache,
    Nginx,
}

/// Tells an Apache format from an nginx one.
fn flavour(spec: &str) -> Option<Flavour> {
    if spec.starts_with("log_format") {
        return Some(Flavour::Nginx);
    }
    if spec.starts_with("LogFormat") || spec.starts_with("CustomLog") {
        return Some(Flavour::Apache);
    }
    let b = spec.as_bytes();
    let count =
        |sigil: u8, ok: fn(u8) -> bool| b.windows(2).filter(|w| w[0] == sigil && ok(w[1])).count();
    let nginx = count(b'$', |c| c.is_ascii_alphabetic() || c == b'{' || c == b'_');
    let apache = count(b'%', |c| {
        c.is_ascii_alphabetic() || b"{<>!0123456789".contains(&c)
    });
    match (apache, nginx) {
        (0, 0) => None,
        (a, n) if n > a => Some(Flavour::Nginx),
        _ => Some(Flavour::Apache),
    }
}

/// An IPv4 or IPv6 address as logs write client addresses: IPv6 in
/// brackets or not, with a port (`192.0.2.1:51234`, `[2001:db8::1]:443`)
/// or a zone (`fe80::1%eth0`), which are dropped.
#[must_use]
pub fn client_address(text: &str) -> Option<std::net::IpAddr> {
    fields::address(text)
}

/// The record under construction, with the address still optional.
#[derive(Debug, Default)]
struct Builder<'a> {
    remote: Option<Client<'a>>,
    forwarded_for: Option<&'a str>,
    time: Option<Timestamp>,
    method: Option<&'a str>,
    path: Option<&'a str>,
    protocol: Option<&'a str>,
    status: Option<u16>,
    bytes: u64,
    referer: Option<&'a str>,
    user_agent: Option<&'a str>,
    vhost: Option<&'a str>,
    signature: SignatureFields<'a>,
    truncated: bool,
}

impl<'a> Builder<'a> {
    fn finish(self) -> Result<Record<'a>, Fault> {
        let Some(remote) = self.remote else {
            return Err(Fault::at(Reason::MissingField, 0));
        };
        Ok(Record {
            remote,
            forwarded_for: self.forwarded_for,
            time: self.time,
            method: self.method,
            path: self.path,
            protocol: self.protocol,
            status: self.status,
            bytes: self.bytes,
            referer: self.referer,
            user_agent: self.user_agent,
            vhost: self.vhost,
            signature: self.signature,
            truncated: self.truncated,
        })
    }
}

/// Why a line gave no record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Reason {
    /// An empty or all-blank line (skipped, not a failure).
    Blank,
    /// A line starting with `#` (skipped, not a failure).
    Comment,
    /// The format's literal text (a space, a quote, a bracket) was
    /// expected here, or the line went on after the format ended.
    Mismatch,
    /// The client address is not an IPv4 or IPv6 address.
    BadAddress,
    /// The time is malformed or out of range (30 February, hour 25).
    BadTime,
    /// The status is not three digits (100–999) or `-`.
    BadStatus,
    /// The byte count is not digits or `-`.
    BadBytes,
    /// A quoted field, a bracketed time or a JSON string never ends.
    Unterminated,
    /// The line is not one JSON object.
    NotJson,
    /// A JSON line has no client address member.
    MissingField,
    /// A W3C extended log line before any `#Fields:` directive.
    NoFields,
}

impl Reason {
    /// Every reason, in declaration order.
    pub const ALL: [Reason; 11] = [
        Reason::Blank,
        Reason::Comment,
        Reason::Mismatch,
        Reason::BadAddress,
        Reason::BadTime,
        Reason::BadStatus,
        Reason::BadBytes,
        Reason::Unterminated,
        Reason::NotJson,
        Reason::MissingField,
        Reason::NoFields,
    ];

    /// The kebab-case name reports count lines under (`bad-address`).
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Reason::Blank => "blank",
            Reason::Comment => "comment",
            Reason::Mismatch => "mismatch",
            Reason::BadAddress => "bad-address",
            Reason::BadTime => "bad-time",
            Reason::BadStatus => "bad-status",
            Reason::BadBytes => "bad-bytes",
            Reason::Unterminated => "unterminated",
            Reason::NotJson => "not-json",
            Reason::MissingField => "missing-field",
            Reason::NoFields => "no-fields",
        }
    }

    /// Whether lines with this reason are skipped by design rather than
    /// failed.
    #[must_use]
    pub fn skipped(&self) -> bool {
        matches!(self, Reason::Blank | Reason::Comment)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A line that gave no record: why, and where (the 1-based byte column);
/// [`Error::Parse`] outside the crate. Kept small and `Copy`, as every line
/// a format cannot read makes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Fault {
    pub(crate) reason: Reason,
    pub(crate) column: u32,
}

impl Fault {
    /// At a 0-based byte offset.
    pub(crate) fn at(reason: Reason, offset: usize) -> Fault {
        Fault {
            reason,
            column: u32::try_from(offset.saturating_add(1)).unwrap_or(u32::MAX),
        }
    }

    /// Whether the line is not a request by design (blank or a comment),
    /// rather than a failure.
    pub(crate) fn skipped(self) -> bool {
        self.reason.skipped()
    }
}

impl From<Fault> for Error {
    fn from(fault: Fault) -> Error {
        Error::Parse {
            reason: fault.reason,
            column: fault.column,
        }
    }
}

/// The formats one input is read with, in the order they are tried: a
/// richer format (only its records count: a line it cannot read goes on),
/// the input's own format (its error is the line's when no format reads
/// it), then the fallbacks, so that files mixing formats lose nothing. A
/// line the input's format or a fallback skips by design (blank, a
/// comment) is skipped.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FormatChain<'f> {
    /// Tried first; errors ignored.
    pub(crate) richer: Option<&'f LogFormat>,
    /// The input's format.
    pub(crate) primary: Option<&'f LogFormat>,
    /// Tried after the input's format, in order.
    pub(crate) fallbacks: &'f [LogFormat],
}

/// What a [`FormatChain`] made of a line.
///
/// Nearly every line is `Parsed`: the record is returned by value, since
/// boxing it would cost an allocation per line.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum ChainRead<'a> {
    /// A request.
    Parsed(Record<'a>),
    /// Not a request by design ([`Reason::skipped`]).
    Skipped(Fault),
    /// No format read it: the input's format's error, or `None` without
    /// one.
    Failed(Option<Fault>),
}

impl FormatChain<'_> {
    /// Reads one line with the first format that can.
    #[must_use]
    pub(crate) fn read<'a>(&self, line: &'a str) -> ChainRead<'a> {
        if let Some(format) = self.richer
            && let Ok(record) = format.read(line)
        {
            return ChainRead::Parsed(record);
        }
        let first = match self.primary.map(|format| format.read(line)) {
            Some(Ok(record)) => return ChainRead::Parsed(record),
            Some(Err(e)) if e.skipped() => return ChainRead::Skipped(e),
            Some(Err(e)) => Some(e),
            None => None,
        };
        for format in self.fallbacks {
            match format.read(line) {
                Ok(record) => return ChainRead::Parsed(record),
                Err(e) if e.skipped() => return ChainRead::Skipped(e),
                Err(_) => {}
            }
        }
        ChainRead::Failed(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMBINED: &str =
        r#"1.2.3.4 - - [20/Nov/2026:13:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "curl/8""#;
    const JSON: &str = r#"{"remote_addr":"1.2.3.4","time_local":"20/Nov/2026:13:00:00 +0000","request":"GET / HTTP/1.1","status":200}"#;

    #[test]
    fn a_chain_reads_with_the_first_format_that_can() {
        let combined = LogFormat::from_spec("combined").unwrap();
        let common = LogFormat::from_spec("common").unwrap();
        let fallbacks = [LogFormat::from_spec("json").unwrap()];
        let chain = FormatChain {
            richer: Some(&combined),
            primary: Some(&common),
            fallbacks: &fallbacks,
        };
        // The richer format's record, with the User-Agent common lacks.
        match chain.read(COMBINED) {
            ChainRead::Parsed(r) => assert_eq!(r.user_agent, Some("curl/8")),
            other => panic!("{other:?}"),
        }
        // Neither combined nor common: the fallback reads it.
        assert!(matches!(chain.read(JSON), ChainRead::Parsed(_)));
        // Skipped by design, not failed.
        match chain.read("") {
            ChainRead::Skipped(e) => assert_eq!(e.reason, Reason::Blank),
            other => panic!("{other:?}"),
        }
        // Nothing reads it: the input's own format's error is the line's.
        match chain.read("1.2.3.4 garbage") {
            ChainRead::Failed(Some(e)) => {
                assert_eq!(e, common.read("1.2.3.4 garbage").unwrap_err());
            }
            other => panic!("{other:?}"),
        }
        let alone = FormatChain::default();
        assert!(matches!(alone.read(COMBINED), ChainRead::Failed(None)));
    }
}
