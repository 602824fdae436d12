//! JSON lines: one object per line, scanned in place.
//!
//! Only the top-level object's members are looked at; nested objects and
//! arrays are skipped. String values are kept as the raw text between their
//! quotes, escapes as written (`Mozilla\/5.0` stays so).

use memchr::memchr2;

use super::fields::{self, opt};
use super::time;
use super::{Builder, Error, Fault, Reason};
use crate::record::Record;

/// A record field a JSON member can fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Remote,
    ForwardedFor,
    Time,
    Method,
    Path,
    Protocol,
    Request,
    Status,
    Bytes,
    Referer,
    UserAgent,
    Vhost,
}

const SLOTS: usize = 12;

/// Spec names of the slots, in `Slot` order.
const SLOT_NAMES: [&str; SLOTS] = [
    "remote",
    "forwarded_for",
    "time",
    "method",
    "path",
    "protocol",
    "request",
    "status",
    "bytes",
    "referer",
    "user_agent",
    "vhost",
];

const ALL_SLOTS: [Slot; SLOTS] = [
    Slot::Remote,
    Slot::ForwardedFor,
    Slot::Time,
    Slot::Method,
    Slot::Path,
    Slot::Protocol,
    Slot::Request,
    Slot::Status,
    Slot::Bytes,
    Slot::Referer,
    Slot::UserAgent,
    Slot::Vhost,
];

/// The member names each slot recognises by default, most wanted first:
/// nginx's and common names, then Traefik's (`ClientHost`,
/// `request_User-Agent`, …) and Caddy's (`request.remote_ip`,
/// `request.headers.User-Agent`, … inside its `request` object).
const DEFAULTS: [&[&str]; SLOTS] = [
    &[
        "remote_addr",
        "remote_ip",
        "client_ip",
        "clientip",
        "ip",
        "client",
        "ClientHost",
        "ClientAddr",
        "request.client_ip",
        "request.remote_ip",
    ],
    &["http_x_forwarded_for", "x_forwarded_for"],
    &[
        "time",
        "timestamp",
        "@timestamp",
        "time_local",
        "time_iso8601",
        "msec",
        "StartUTC",
        "ts",
        "date",
    ],
    &[
        "method",
        "request_method",
        "RequestMethod",
        "request.method",
    ],
    &[
        "request_uri",
        "uri",
        "path",
        "url",
        "RequestPath",
        "request.uri",
    ],
    &[
        "protocol",
        "server_protocol",
        "RequestProtocol",
        "request.proto",
    ],
    &["request"],
    &["status", "status_code", "DownstreamStatus"],
    &[
        "body_bytes_sent",
        "bytes_sent",
        "bytes",
        "size",
        "DownstreamContentSize",
        "length",
    ],
    &[
        "http_referer",
        "referer",
        "referrer",
        "request_Referer",
        "request.headers.Referer",
    ],
    &[
        "http_user_agent",
        "user_agent",
        "agent",
        "ua",
        "request_User-Agent",
        "request.headers.User-Agent",
    ],
    &[
        "host",
        "vhost",
        "server_name",
        "RequestHost",
        "request.host",
    ],
];

/// A compiled JSON-lines spec: member name → slot and priority. A name
/// with dots (`request.remote_ip`) is a member of a nested object.
#[derive(Debug, Clone)]
pub(crate) struct JsonFormat {
    keys: Vec<(Box<str>, Slot, u8)>,
    /// The objects that hold named members (`request`,
    /// `request.headers`): only those are looked into.
    nested: Vec<Box<str>>,
}

impl JsonFormat {
    /// `json` or `json:field=name,field=name`; naming a field replaces its
    /// default names, naming it twice gives it two names.
    pub(crate) fn compile(spec: &str) -> Result<JsonFormat, Error> {
        let mut names: [Vec<Box<str>>; SLOTS] =
            DEFAULTS.map(|d| d.iter().map(|&n| n.into()).collect());
        if let Some(list) = spec.strip_prefix("json:") {
            let mut replaced = [false; SLOTS];
            let mut at = 5;
            for entry in list.split(',') {
                let (field, name) = entry
                    .split_once('=')
                    .ok_or_else(|| Error::format(spec, Some(at), "expected field=name"))?;
                let Some(i) = SLOT_NAMES.iter().position(|n| *n == field.trim()) else {
                    return Err(Error::format(spec, Some(at), "unknown record field"));
                };
                let name = name.trim();
                if name.is_empty() {
                    return Err(Error::format(spec, Some(at), "empty member name"));
                }
                if !replaced[i] {
                    names[i].clear();
                    replaced[i] = true;
                }
                names[i].push(name.into());
                at += entry.len() + 1;
            }
        } else if spec != "json" {
            return Err(Error::format(
                spec,
                Some(0),
                "expected json or json:field=name,...",
            ));
        }
        let mut keys = Vec::new();
        let mut nested: Vec<Box<str>> = Vec::new();
        for (slot, list) in ALL_SLOTS.iter().zip(names) {
            for (prio, name) in list.into_iter().enumerate() {
                let mut at = 0;
                while let Some(dot) = name[at..].find('.') {
                    let object: Box<str> = name[..at + dot].into();
                    if !nested.contains(&object) {
                        nested.push(object);
                    }
                    at += dot + 1;
                }
                keys.push((name, *slot, u8::try_from(prio).unwrap_or(u8::MAX)));
            }
        }
        Ok(JsonFormat { keys, nested })
    }

    fn lookup(&self, key: &[u8]) -> Option<(Slot, u8)> {
        self.keys
            .iter()
            .find(|(k, _, _)| k.as_bytes() == key)
            .map(|(_, s, p)| (*s, *p))
    }

    /// Parses one line.
    pub(crate) fn parse<'a>(&self, line: &'a str) -> Result<Record<'a>, Fault> {
        let mut sc = Scanner {
            b: line.as_bytes(),
            pos: 0,
        };
        // The value chosen for each slot: (priority, value, where).
        let mut got: [Option<(u8, Value<'a>, usize)>; SLOTS] = [None; SLOTS];
        sc.ws();
        self.members(&mut sc, line, None, &mut got)?;
        sc.ws();
        if sc.pos != sc.b.len() {
            return Err(sc.fail(Reason::NotJson));
        }
        fill(&got, line.len())
    }
}

impl JsonFormat {
    /// The members of the object at the scanner (its `{`), and of the
    /// nested objects some name looks into; `path` is the object's own
    /// (`None` at the top).
    fn members<'a>(
        &self,
        sc: &mut Scanner<'_>,
        line: &'a str,
        path: Option<&str>,
        got: &mut [Option<(u8, Value<'a>, usize)>; SLOTS],
    ) -> Result<(), Fault> {
        sc.expect(b'{')?;
        sc.ws();
        if sc.peek() == Some(b'}') {
            sc.pos += 1;
            return Ok(());
        }
        loop {
            sc.ws();
            if sc.peek() != Some(b'"') {
                return Err(sc.fail(Reason::NotJson));
            }
            let (ks, ke) = sc.string()?;
            sc.ws();
            sc.expect(b':')?;
            sc.ws();
            let nested_name;
            let name = match path {
                None => &line[ks..ke],
                Some(p) => {
                    nested_name = format!("{p}.{}", &line[ks..ke]);
                    nested_name.as_str()
                }
            };
            let found = self.lookup(name.as_bytes());
            match sc.peek() {
                Some(b'{') if self.nested.iter().any(|n| &**n == name) => {
                    self.members(sc, line, Some(name), got)?;
                }
                Some(b'[') if found.is_some() => {
                    // A list of values (Caddy's headers): the first string.
                    let open = sc.pos;
                    sc.pos += 1;
                    sc.ws();
                    let first = if sc.peek() == Some(b'"') {
                        let (s, e) = sc.string()?;
                        Some((Value::Text(&line[s..e]), s))
                    } else {
                        None
                    };
                    sc.pos = open;
                    sc.skip_nested()?;
                    if let (Some((slot, prio)), Some((value, at))) = (found, first) {
                        keep(got, slot, prio, value, at);
                    }
                }
                _ => {
                    let (value, at) = sc.value(line)?;
                    if let Some((slot, prio)) = found {
                        keep(got, slot, prio, value, at);
                    }
                }
            }
            sc.ws();
            match sc.peek() {
                Some(b',') => sc.pos += 1,
                Some(b'}') => {
                    sc.pos += 1;
                    return Ok(());
                }
                _ => return Err(sc.fail(Reason::NotJson)),
            }
        }
    }
}

/// Keeps a member's value for its slot unless a preferred name filled it.
fn keep<'a>(
    got: &mut [Option<(u8, Value<'a>, usize)>; SLOTS],
    slot: Slot,
    prio: u8,
    value: Value<'a>,
    at: usize,
) {
    let cell = &mut got[slot as usize];
    if cell.is_none_or(|(p, _, _)| prio < p) {
        *cell = Some((prio, value, at));
    }
}

/// Turns the chosen members into a record.
fn fill<'a>(
    got: &[Option<(u8, Value<'a>, usize)>; SLOTS],
    len: usize,
) -> Result<Record<'a>, Fault> {
    let mut rec = Builder::default();
    for (slot, cell) in ALL_SLOTS.iter().zip(got) {
        let Some((_, value, at)) = *cell else {
            continue;
        };
        let Some(v) = value.text() else { continue };
        let e = |reason| Fault::at(reason, at);
        match slot {
            Slot::Remote => {
                rec.remote = Some(fields::client(v).ok_or_else(|| e(Reason::BadAddress))?);
            }
            Slot::ForwardedFor => rec.forwarded_for = opt(v),
            Slot::Time => {
                if v != "-" && !v.is_empty() {
                    rec.time = Some(time::parse_any(v).ok_or_else(|| e(Reason::BadTime))?);
                }
            }
            Slot::Method => rec.method = opt(v),
            Slot::Path => rec.path = opt(v),
            Slot::Protocol => rec.protocol = opt(v),
            Slot::Request => {}
            Slot::Status => rec.status = fields::status(v).map_err(|()| e(Reason::BadStatus))?,
            Slot::Bytes => rec.bytes = fields::bytes(v).ok_or_else(|| e(Reason::BadBytes))?,
            Slot::Referer => rec.referer = opt(v),
            Slot::UserAgent => rec.user_agent = opt(v),
            Slot::Vhost => rec.vhost = opt(v),
        }
    }
    // A whole request line fills what separate members did not.
    if let Some((_, value, _)) = got[Slot::Request as usize]
        && let Some(v) = value.text()
    {
        let r = fields::request_line(v);
        rec.method = rec.method.or(r.method);
        rec.path = rec.path.or(r.path);
        rec.protocol = rec.protocol.or(r.protocol);
    }
    if rec.remote.is_none() {
        return Err(Fault::at(Reason::MissingField, len));
    }
    rec.finish()
}

/// A member's value.
#[derive(Debug, Clone, Copy)]
enum Value<'a> {
    /// A string's raw contents, or a number's or literal's text.
    Text(&'a str),
    /// `null`, an object or an array: nothing usable.
    Nothing,
}

impl<'a> Value<'a> {
    fn text(self) -> Option<&'a str> {
        match self {
            Value::Text(t) => Some(t),
            Value::Nothing => None,
        }
    }
}

struct Scanner<'b> {
    b: &'b [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn fail(&self, reason: Reason) -> Fault {
        Fault::at(reason, self.pos)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), Fault> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.fail(Reason::NotJson))
        }
    }

    /// A string starting at the current quote: the span of its contents.
    fn string(&mut self) -> Result<(usize, usize), Fault> {
        let open = self.pos;
        let start = open + 1;
        let mut at = start;
        loop {
            let Some(i) = memchr2(b'"', b'\\', &self.b[at..]) else {
                return Err(Fault::at(Reason::Unterminated, open));
            };
            let p = at + i;
            if self.b[p] == b'"' {
                self.pos = p + 1;
                return Ok((start, p));
            }
            // A backslash escapes the next byte (a `\uXXXX`'s digits need
            // no special care).
            if p + 1 >= self.b.len() {
                return Err(Fault::at(Reason::Unterminated, open));
            }
            at = p + 2;
        }
    }

    /// Skips a nested object or array starting at the current bracket.
    fn skip_nested(&mut self) -> Result<(), Fault> {
        let mut depth: usize = 0;
        loop {
            match self.peek() {
                None => return Err(self.fail(Reason::Unterminated)),
                Some(b'"') => {
                    self.string()?;
                    continue;
                }
                Some(b'{' | b'[') => depth += 1,
                Some(b'}' | b']') => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                Some(_) => {}
            }
            self.pos += 1;
        }
    }

    /// A value and where it starts (inside the quotes of a string).
    fn value<'a>(&mut self, line: &'a str) -> Result<(Value<'a>, usize), Fault> {
        let at = self.pos;
        let v = match self.peek() {
            Some(b'"') => {
                let (s, e) = self.string()?;
                return Ok((Value::Text(&line[s..e]), s));
            }
            Some(b'{' | b'[') => {
                self.skip_nested()?;
                Ok(Value::Nothing)
            }
            Some(b't') => self.word(line, "true").map(Value::Text),
            Some(b'f') => self.word(line, "false").map(Value::Text),
            Some(b'n') => self.word(line, "null").map(|_| Value::Nothing),
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                while matches!(
                    self.peek(),
                    Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                ) {
                    self.pos += 1;
                }
                Ok(Value::Text(&line[start..self.pos]))
            }
            _ => Err(self.fail(Reason::NotJson)),
        };
        v.map(|v| (v, at))
    }

    fn word<'a>(&mut self, line: &'a str, w: &str) -> Result<&'a str, Fault> {
        if self.b[self.pos..].starts_with(w.as_bytes()) {
            let s = &line[self.pos..self.pos + w.len()];
            self.pos += w.len();
            Ok(s)
        } else {
            Err(self.fail(Reason::NotJson))
        }
    }
}
