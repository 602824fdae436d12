//! Apache `LogFormat` and nginx `log_format` strings, compiled into a list
//! of literals and fields, and the line parser that walks that list.

use memchr::{memchr, memchr2};

use super::fields::{self, has_control, opt};
use super::time;
use super::{Builder, Error, Fault, Reason};
use crate::record::Record;

/// How a time field is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TimeForm {
    /// `[10/Oct/2000:13:55:36 -0700]`, brackets optional.
    Clf,
    /// ISO 8601.
    Iso,
    /// Epoch in units of `1 / n` seconds, with an optional fraction.
    Epoch(i64),
    /// A `strftime` format (through jiff).
    Strftime(Box<str>),
}

/// What a field means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    Remote,
    ForwardedFor,
    Time(TimeForm),
    Request,
    Method,
    Path,
    /// Apache `%q`: `?query` or nothing, joined to an adjacent `%U`.
    Query,
    Protocol,
    /// A final status (`%>s`, `$status`).
    Status,
    /// An original status (`%s`, `%<s`), the status only when there is no
    /// final one.
    OriginalStatus,
    Bytes,
    Referer,
    UserAgent,
    Vhost,
    /// A virtual host optionally followed by `:port` (dropped): the vhost
    /// presets, which read Apache's `%v` and Debian's `%v:%p` alike.
    VhostPort,
    /// Web Bot Auth: `Signature-Input`, `Signature`, `Signature-Agent`.
    SignatureInput,
    Signature,
    SignatureAgent,
    Opaque,
}

impl Kind {
    /// The record slot a kind fills; two fields for the same slot keep the
    /// first (the rest become opaque).
    fn slot(&self) -> Option<u8> {
        Some(match self {
            Kind::Remote => 0,
            Kind::ForwardedFor => 1,
            Kind::Time(_) => 2,
            Kind::Method => 3,
            Kind::Path => 4,
            Kind::Query => 5,
            Kind::Protocol => 6,
            Kind::Status | Kind::OriginalStatus => 7,
            Kind::Bytes => 8,
            Kind::Referer => 9,
            Kind::UserAgent => 10,
            Kind::Vhost | Kind::VhostPort => 11,
            Kind::Request => 12,
            Kind::SignatureInput => 13,
            Kind::Signature => 14,
            Kind::SignatureAgent => 15,
            Kind::Opaque => return None,
        })
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Field {
    kind: Kind,
    /// Between a literal ending in `"` and one starting with `"`: the
    /// value ends at the first unescaped quote that the next literal
    /// follows.
    quoted: bool,
}

#[derive(Debug, Clone)]
pub(crate) enum Item {
    Lit(Box<str>),
    Field(Field),
}

/// A compiled Apache or nginx format.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    items: Vec<Item>,
    /// Accept anything after the last item when it starts with a space
    /// (presets: sites append fields).
    lenient_tail: bool,
    /// Presets: the index of the request field. A line that ends inside a
    /// quoted field from there on (its closing quote never comes) is a
    /// request cut short, as a line-length limit on the way (syslog's)
    /// leaves it: the open field takes the rest of the line and the fields
    /// after it are absent.
    truncate_from: Option<usize>,
}

/// Collects literal text and fields into items.
struct ItemsBuilder {
    items: Vec<Item>,
    lit: String,
}

impl ItemsBuilder {
    fn new() -> Self {
        ItemsBuilder {
            items: Vec::new(),
            lit: String::new(),
        }
    }

    fn field(&mut self, kind: Kind) {
        if !self.lit.is_empty() {
            self.items
                .push(Item::Lit(std::mem::take(&mut self.lit).into()));
        }
        self.items.push(Item::Field(Field {
            kind,
            quoted: false,
        }));
    }

    fn finish(mut self, spec: &str, lenient_tail: bool) -> Result<Pattern, Error> {
        if !self.lit.is_empty() {
            self.items
                .push(Item::Lit(std::mem::take(&mut self.lit).into()));
        }
        let mut items = self.items;
        // One field per record slot; a final status beats an original one.
        let has_final = items.iter().any(|i| {
            matches!(
                i,
                Item::Field(Field {
                    kind: Kind::Status,
                    ..
                })
            )
        });
        let mut seen = [false; 16];
        for item in &mut items {
            if let Item::Field(f) = item {
                if f.kind == Kind::OriginalStatus && has_final {
                    f.kind = Kind::Opaque;
                }
                if let Some(slot) = f.kind.slot() {
                    if seen[usize::from(slot)] {
                        f.kind = Kind::Opaque;
                    }
                    seen[usize::from(slot)] = true;
                }
            }
        }
        if !seen[0] {
            return Err(Error::format(spec, None, "no client address field"));
        }
        for i in 0..items.len() {
            let before = i
                .checked_sub(1)
                .and_then(|j| items.get(j))
                .is_some_and(|it| matches!(it, Item::Lit(l) if l.ends_with('"')));
            let after = matches!(items.get(i + 1), Some(Item::Lit(l)) if l.starts_with('"'));
            if let Item::Field(f) = &mut items[i] {
                f.quoted = before && after;
            }
        }
        let truncate_from = if lenient_tail {
            items.iter().position(|i| {
                matches!(
                    i,
                    Item::Field(Field {
                        kind: Kind::Request,
                        ..
                    })
                )
            })
        } else {
            None
        };
        Ok(Pattern {
            items,
            lenient_tail,
            truncate_from,
        })
    }
}

impl Pattern {
    /// Reads the first `%v` field as a virtual host with an optional
    /// `:port` (for the vhost presets).
    pub(crate) fn with_vhost_port(mut self) -> Pattern {
        if let Some(f) = self.items.iter_mut().find_map(|i| match i {
            Item::Field(f) if f.kind == Kind::Vhost => Some(f),
            _ => None,
        }) {
            f.kind = Kind::VhostPort;
        }
        self
    }
}

/// The field an Apache directive letter (with its `{argument}`) writes.
fn apache_kind(letter: u8, arg: Option<&str>, final_status: bool) -> Kind {
    match (letter, arg) {
        (b'h' | b'a', _) => Kind::Remote,
        (b't', None) => Kind::Time(TimeForm::Clf),
        (b't', Some(arg)) => {
            let arg = arg
                .strip_prefix("begin:")
                .or_else(|| arg.strip_prefix("end:"))
                .unwrap_or(arg);
            match arg {
                "" => Kind::Time(TimeForm::Clf),
                "sec" => Kind::Time(TimeForm::Epoch(1)),
                "msec" => Kind::Time(TimeForm::Epoch(1_000)),
                "usec" => Kind::Time(TimeForm::Epoch(1_000_000)),
                "msec_frac" | "usec_frac" => Kind::Opaque,
                fmt => Kind::Time(TimeForm::Strftime(fmt.into())),
            }
        }
        (b'r', _) => Kind::Request,
        (b'm', _) => Kind::Method,
        (b'U', _) => Kind::Path,
        (b'q', _) => Kind::Query,
        (b'H', _) => Kind::Protocol,
        (b's', _) if final_status => Kind::Status,
        (b's', _) => Kind::OriginalStatus,
        (b'b' | b'B' | b'O', _) => Kind::Bytes,
        (b'v' | b'V', _) => Kind::Vhost,
        (b'i', Some(h)) if h.eq_ignore_ascii_case("referer") => Kind::Referer,
        (b'i', Some(h)) if h.eq_ignore_ascii_case("user-agent") => Kind::UserAgent,
        (b'i', Some(h)) if h.eq_ignore_ascii_case("x-forwarded-for") => Kind::ForwardedFor,
        (b'i', Some(h)) if h.eq_ignore_ascii_case("host") => Kind::Vhost,
        (b'i', Some(h)) if h.eq_ignore_ascii_case("signature-input") => Kind::SignatureInput,
        (b'i', Some(h)) if h.eq_ignore_ascii_case("signature") => Kind::Signature,
        (b'i', Some(h)) if h.eq_ignore_ascii_case("signature-agent") => Kind::SignatureAgent,
        _ => Kind::Opaque,
    }
}

/// Unwraps what users paste from httpd.conf: `LogFormat "..." nickname`
/// with `\"` inside. A bare format is returned as it is.
fn apache_body(spec: &str) -> std::borrow::Cow<'_, str> {
    let mut s = spec.trim();
    if let Some(rest) = s.strip_prefix("LogFormat") {
        s = rest.trim_start();
    } else if let Some(rest) = s.strip_prefix("CustomLog") {
        // `CustomLog path "format"`
        s = rest.trim_start();
        if !s.starts_with('"') {
            s = s
                .split_once(char::is_whitespace)
                .map_or("", |(_, r)| r.trim_start());
        }
    }
    let Some(body) = s.strip_prefix('"') else {
        return s.into();
    };
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            },
            c => out.push(c),
        }
    }
    out.into()
}

/// Compiles an Apache `LogFormat` string.
pub(crate) fn compile_apache(spec: &str, lenient_tail: bool) -> Result<Pattern, Error> {
    let body = apache_body(spec);
    let s = body.as_ref();
    let b = s.as_bytes();
    let mut out = ItemsBuilder::new();
    let mut i = 0;
    while i < b.len() {
        let Some(pct) = memchr(b'%', &b[i..]) else {
            out.lit.push_str(&s[i..]);
            break;
        };
        out.lit.push_str(&s[i..i + pct]);
        let start = i + pct;
        let mut j = start + 1;
        if b.get(j) == Some(&b'%') {
            out.lit.push('%');
            i = j + 1;
            continue;
        }
        let mut final_status = false;
        while let Some(&c) = b.get(j) {
            match c {
                b'>' => final_status = true,
                b'<' | b'!' | b',' | b'0'..=b'9' => {}
                _ => break,
            }
            j += 1;
        }
        let mut arg = None;
        if b.get(j) == Some(&b'{') {
            let Some(close) = memchr(b'}', &b[j + 1..]) else {
                return Err(Error::format(spec, Some(start), "unterminated %{"));
            };
            arg = Some(&s[j + 1..j + 1 + close]);
            j += close + 2;
        }
        let Some(&letter) = b.get(j) else {
            return Err(Error::format(spec, Some(start), "incomplete directive"));
        };
        if !letter.is_ascii_alphabetic() {
            return Err(Error::format(
                spec,
                Some(start),
                "a directive without its letter",
            ));
        }
        out.field(apache_kind(letter, arg, final_status));
        i = j + 1;
    }
    out.finish(spec, lenient_tail)
}

/// The field an nginx variable writes.
fn nginx_kind(name: &str) -> Kind {
    match name {
        "remote_addr" | "realip_remote_addr" => Kind::Remote,
        "time_local" => Kind::Time(TimeForm::Clf),
        "time_iso8601" => Kind::Time(TimeForm::Iso),
        "msec" => Kind::Time(TimeForm::Epoch(1)),
        "request" => Kind::Request,
        "request_method" => Kind::Method,
        "request_uri" | "uri" | "document_uri" => Kind::Path,
        "server_protocol" => Kind::Protocol,
        "status" => Kind::Status,
        "body_bytes_sent" | "bytes_sent" => Kind::Bytes,
        "http_referer" => Kind::Referer,
        "http_user_agent" => Kind::UserAgent,
        "http_x_forwarded_for" => Kind::ForwardedFor,
        "http_signature_input" => Kind::SignatureInput,
        "http_signature" => Kind::Signature,
        "http_signature_agent" => Kind::SignatureAgent,
        "host" | "server_name" | "http_host" => Kind::Vhost,
        _ => Kind::Opaque,
    }
}

/// Unwraps what users paste from nginx.conf: `log_format name
/// [escape=...] 'piece' "piece" ...;`. Returns the format text.
fn nginx_body(spec: &str) -> Result<String, Error> {
    let mut s = spec.trim();
    s = s.strip_suffix(';').unwrap_or(s).trim_end();
    if let Some(rest) = s.strip_prefix("log_format") {
        // The name follows the keyword.
        let rest = rest.trim_start();
        s = rest
            .split_once(char::is_whitespace)
            .map_or("", |(_, r)| r.trim_start());
    }
    if let Some(rest) = s.strip_prefix("escape=") {
        let (mode, rest) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if !matches!(mode, "default" | "json" | "none") {
            let at = spec.find("escape=").unwrap_or(0);
            return Err(Error::format(spec, Some(at), "unknown escape= mode"));
        }
        s = rest.trim_start();
    }
    if !s.starts_with(['\'', '"']) {
        return Ok(s.to_owned());
    }
    // Concatenated quoted pieces, with nginx's escapes inside.
    let mut out = String::with_capacity(s.len());
    let mut chars = s.char_indices().peekable();
    while let Some((at, q)) = chars.next() {
        if q.is_whitespace() {
            continue;
        }
        if q != '\'' && q != '"' {
            let pos = spec.len() - s.len() + at;
            return Err(Error::format(
                spec,
                Some(pos),
                "text outside the quoted pieces",
            ));
        }
        let mut closed = false;
        while let Some((_, c)) = chars.next() {
            match c {
                c if c == q => {
                    closed = true;
                    break;
                }
                '\\' => match chars.next().map(|(_, c)| c) {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some(o @ ('"' | '\'' | '\\')) => out.push(o),
                    Some(o) => {
                        out.push('\\');
                        out.push(o);
                    }
                    None => out.push('\\'),
                },
                c => out.push(c),
            }
        }
        if !closed {
            let pos = spec.len() - s.len() + at;
            return Err(Error::format(spec, Some(pos), "unterminated quoted piece"));
        }
    }
    Ok(out)
}

/// Compiles an nginx `log_format` string.
pub(crate) fn compile_nginx(spec: &str, lenient_tail: bool) -> Result<Pattern, Error> {
    let body = nginx_body(spec)?;
    let s = body.as_str();
    let b = s.as_bytes();
    let mut out = ItemsBuilder::new();
    let mut i = 0;
    let name_len = |from: usize| {
        b[from..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count()
    };
    while i < b.len() {
        let Some(d) = memchr(b'$', &b[i..]) else {
            out.lit.push_str(&s[i..]);
            break;
        };
        out.lit.push_str(&s[i..i + d]);
        let start = i + d;
        if b.get(start + 1) == Some(&b'{') {
            let Some(close) = memchr(b'}', &b[start + 2..]) else {
                return Err(Error::format(spec, Some(start), "unterminated ${"));
            };
            let name = &s[start + 2..start + 2 + close];
            if name.is_empty() || name_len(start + 2) != close {
                return Err(Error::format(spec, Some(start), "bad variable name in ${}"));
            }
            out.field(nginx_kind(name));
            i = start + 3 + close;
            continue;
        }
        let n = name_len(start + 1);
        if n == 0 {
            out.lit.push('$');
            i = start + 1;
            continue;
        }
        out.field(nginx_kind(&s[start + 1..start + 1 + n]));
        i = start + 1 + n;
    }
    out.finish(spec, lenient_tail)
}

/// `hay.starts_with(lit)` for the short literals of formats, without a
/// call to `memcmp`.
#[inline]
fn starts_with(hay: &[u8], lit: &[u8]) -> bool {
    hay.len() >= lit.len() && hay.iter().zip(lit).all(|(a, b)| a == b)
}

/// Finds `lit` in `b` at or after `from`.
fn find_lit(b: &[u8], from: usize, lit: &[u8]) -> Option<usize> {
    let (&first, rest) = lit.split_first()?;
    if rest.is_empty() {
        // Most fields before a one-byte literal are short (`-`, an
        // address, a status): look at their first bytes by hand.
        let near = (from + 16).min(b.len());
        if let Some(i) = b[from..near].iter().position(|&c| c == first) {
            return Some(from + i);
        }
        return memchr(first, &b[near..]).map(|i| near + i);
    }
    let mut at = from;
    while let Some(i) = memchr(first, &b[at..]) {
        let p = at + i;
        if starts_with(&b[p + 1..], rest) {
            return Some(p);
        }
        at = p + 1;
    }
    None
}

fn err(reason: Reason, at: usize) -> Fault {
    Fault::at(reason, at)
}

impl Pattern {
    /// Whether what is left after the last item is acceptable.
    fn tail_ok(&self, b: &[u8], at: usize) -> bool {
        match b.get(at) {
            None => true,
            Some(b' ' | b'\t') if self.lenient_tail => true,
            Some(_) => b[at..].iter().all(|c| *c == b' ' || *c == b'\t'),
        }
    }

    /// Where the field starting at `pos` ends.
    fn extent(&self, b: &[u8], pos: usize, idx: usize, f: &Field) -> Result<usize, Fault> {
        let next = self.items.get(idx + 1);
        if f.quoted {
            let Some(Item::Lit(l)) = next else {
                unreachable_quoted();
                return Err(err(Reason::Mismatch, pos));
            };
            let l = l.as_bytes();
            let last = idx + 2 == self.items.len();
            let mut from = pos;
            let mut first_quote = None;
            while let Some(i) = memchr(b'"', &b[from..]) {
                let q = from + i;
                from = q + 1;
                let slashes = b[pos..q].iter().rev().take_while(|c| **c == b'\\').count();
                if slashes % 2 == 1 {
                    continue;
                }
                first_quote.get_or_insert(q);
                if starts_with(&b[q..], l) && (!last || self.tail_ok(b, q + l.len())) {
                    return Ok(q);
                }
            }
            return Err(match first_quote {
                Some(q) => {
                    let same = b[q..].iter().zip(l).take_while(|(a, b)| a == b).count();
                    err(Reason::Mismatch, q + same)
                }
                None => err(Reason::Unterminated, pos.saturating_sub(1)),
            });
        }
        if let Kind::Time(form) = &f.kind {
            match form {
                TimeForm::Clf if b.get(pos) == Some(&b'[') => {
                    return match memchr(b']', &b[pos..]) {
                        Some(i) => Ok(pos + i + 1),
                        None => Err(err(Reason::Unterminated, pos)),
                    };
                }
                TimeForm::Clf if !matches!(next, Some(Item::Lit(l)) if l.starts_with(']')) => {
                    // Unbracketed: the fixed width, space included.
                    // (A time is ASCII: a longer character there is junk.)
                    return if b.get(pos..pos + 26).is_some_and(|t| t.is_ascii()) {
                        Ok(pos + 26)
                    } else {
                        Err(err(Reason::BadTime, pos))
                    };
                }
                TimeForm::Strftime(_) => return Ok(b.len()), // measured while parsing
                _ => {}
            }
        }
        match next {
            // Without the literal, the field ends where the literal's first
            // byte is (or the line ends): the field's value is checked, then
            // the literal fails to match.
            Some(Item::Lit(l)) => Ok(find_lit(b, pos, l.as_bytes())
                .or_else(|| memchr(l.as_bytes()[0], &b[pos..]).map(|i| pos + i))
                .unwrap_or(b.len())),
            None if self.lenient_tail => {
                Ok(memchr2(b' ', b'\t', &b[pos..]).map_or(b.len(), |i| pos + i))
            }
            None => {
                let trail = b[pos..]
                    .iter()
                    .rev()
                    .take_while(|c| **c == b' ' || **c == b'\t')
                    .count();
                Ok(b.len() - trail)
            }
            Some(Item::Field(_)) => {
                // Two fields side by side: the first takes its natural
                // extent.
                let rest = &b[pos..];
                let n = match f.kind {
                    Kind::Status | Kind::OriginalStatus | Kind::Bytes => {
                        if rest.first() == Some(&b'-') {
                            1
                        } else {
                            rest.iter().take_while(|c| c.is_ascii_digit()).count()
                        }
                    }
                    Kind::Path => rest
                        .iter()
                        .take_while(|c| !matches!(c, b'?' | b' '))
                        .count(),
                    _ => rest.iter().take_while(|c| **c != b' ').count(),
                };
                Ok(pos + n)
            }
        }
    }

    /// Parses one line (already stripped of its terminator).
    pub(crate) fn parse<'a>(&self, line: &'a str) -> Result<Record<'a>, Fault> {
        let b = line.as_bytes();
        let mut rec = Builder::default();
        let mut pos = 0;
        // Where the last path field ended, for `%U%q`.
        let mut path_span: Option<(usize, usize)> = None;
        for (idx, item) in self.items.iter().enumerate() {
            let f = match item {
                Item::Lit(l) => {
                    if !starts_with(&b[pos..], l.as_bytes()) {
                        return Err(err(Reason::Mismatch, pos));
                    }
                    pos += l.len();
                    continue;
                }
                Item::Field(f) => f,
            };
            let mut end = match self.extent(b, pos, idx, f) {
                Ok(end) => end,
                // A quoted field with no closing quote at all: the line was
                // cut inside it; it runs to the end.
                Err(e)
                    if f.quoted
                        && e.reason == Reason::Unterminated
                        && self.truncate_from.is_some_and(|from| idx >= from) =>
                {
                    rec.truncated = true;
                    b.len()
                }
                Err(e) => return Err(e),
            };
            store(&mut rec, f, line, pos, &mut end, &mut path_span)?;
            pos = end;
            if rec.truncated {
                return rec.finish();
            }
        }
        if !self.tail_ok(b, pos) {
            return Err(err(Reason::Mismatch, pos));
        }
        rec.finish()
    }
}

/// Stores the value of field `f`, `line[pos..*end]`, in `rec`; a time read
/// by a strftime form moves `*end` to where it stops, and a path field
/// notes its span in `path_span` (for `%U%q`).
fn store<'a>(
    rec: &mut Builder<'a>,
    f: &Field,
    line: &'a str,
    pos: usize,
    end: &mut usize,
    path_span: &mut Option<(usize, usize)>,
) -> Result<(), Fault> {
    // Fixed-width and measured extents may fall inside a character.
    let v = line
        .get(pos..*end)
        .ok_or_else(|| err(Reason::Mismatch, pos))?;
    match &f.kind {
        Kind::Remote => {
            rec.remote = Some(fields::client(v).ok_or_else(|| err(Reason::BadAddress, pos))?);
        }
        Kind::Time(form) => {
            if v != "-" || matches!(form, TimeForm::Strftime(_)) {
                let t = match form {
                    TimeForm::Clf => time::parse_clf(v),
                    TimeForm::Iso => time::parse_iso(v),
                    TimeForm::Epoch(n) => time::parse_epoch(v, *n),
                    TimeForm::Strftime(fmt) => time::parse_strftime(fmt, v).map(|(t, used)| {
                        *end = pos + used;
                        t
                    }),
                };
                rec.time = Some(t.ok_or_else(|| err(Reason::BadTime, pos))?);
            }
        }
        Kind::Request => {
            let r = fields::request_line(v);
            rec.method = rec.method.or(r.method);
            rec.path = rec.path.or(r.path);
            rec.protocol = rec.protocol.or(r.protocol);
        }
        // Raw control bytes: servers escape them, so the field is
        // mangled; the request still happened.
        Kind::Method | Kind::Path if has_control(v) => {}
        Kind::Method | Kind::Path => {
            if f.kind == Kind::Method {
                rec.method = opt(v).or(rec.method);
            } else {
                rec.path = opt(v).or(rec.path);
                *path_span = Some((pos, *end));
            }
        }
        Kind::Query => {
            if let Some((start, path_end)) = *path_span
                && path_end == pos
                && !v.is_empty()
            {
                rec.path = line.get(start..*end).or(rec.path);
            }
        }
        Kind::Protocol => rec.protocol = opt(v).or(rec.protocol),
        Kind::Status | Kind::OriginalStatus => {
            rec.status = fields::status(v).map_err(|()| err(Reason::BadStatus, pos))?;
        }
        Kind::Bytes => {
            rec.bytes = fields::bytes(v).ok_or_else(|| err(Reason::BadBytes, pos))?;
        }
        Kind::Referer => rec.referer = opt(v),
        Kind::UserAgent => rec.user_agent = opt(v),
        Kind::ForwardedFor => rec.forwarded_for = opt(v),
        Kind::Vhost => rec.vhost = opt(v),
        Kind::SignatureInput => rec.signature.input = opt(v),
        Kind::Signature => rec.signature.signature = opt(v),
        Kind::SignatureAgent => rec.signature.agent = opt(v),
        Kind::VhostPort => {
            let host = match v.rsplit_once(':') {
                Some((h, p)) if !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()) => h,
                _ => v,
            };
            rec.vhost = opt(host);
        }
        Kind::Opaque => {}
    }
    Ok(())
}

/// Quoted fields are always followed by a literal (that is how they are
/// recognised); this marks the impossible branch without panicking.
fn unreachable_quoted() {
    debug_assert!(false, "a quoted field without a following literal");
}
