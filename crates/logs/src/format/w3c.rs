//! The W3C extended log format (IIS, CloudFront, NetScaler, SHOUTcast,
//! Incapsula…): a `#Fields:` directive names the fields, each line gives
//! their values separated by spaces or tabs, a value with spaces quoted.

use super::fields::{self, opt};
use super::time;
use super::{Builder, Error, Fault, Reason};
use crate::record::{Client, Record};

/// What a W3C field means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum W3cField {
    Date,
    Time,
    Remote,
    /// `c-dns`: the client's host name, used when there is no `c-ip`.
    RemoteName,
    Method,
    Path,
    Protocol,
    Status,
    Bytes,
    Referer,
    UserAgent,
    Vhost,
    ForwardedFor,
    Opaque,
}

/// The meaning of a field name (case-insensitive).
fn field(name: &str) -> W3cField {
    let n = name.to_ascii_lowercase();
    match n.as_str() {
        "date" | "date-local" => W3cField::Date,
        "time" | "time-local" => W3cField::Time,
        "c-ip" => W3cField::Remote,
        "c-dns" => W3cField::RemoteName,
        "cs-method" => W3cField::Method,
        "cs-uri-stem" | "cs-uri" => W3cField::Path,
        "cs-version" | "cs-protocol-version" => W3cField::Protocol,
        "sc-status" | "c-status" => W3cField::Status,
        "sc-bytes" => W3cField::Bytes,
        "cs(referer)" | "cs(referrer)" | "c-referrer" => W3cField::Referer,
        "cs(user-agent)" | "c-user-agent" => W3cField::UserAgent,
        "cs-host" | "cs(host)" | "x-host-header" => W3cField::Vhost,
        "x-forwarded-for" | "cs(x-forwarded-for)" => W3cField::ForwardedFor,
        _ => W3cField::Opaque,
    }
}

/// A compiled field list.
#[derive(Debug, Clone)]
pub(crate) struct W3cFormat {
    fields: Vec<W3cField>,
}

impl W3cFormat {
    /// A format that waits for its `#Fields:` directive: every line fails
    /// with [`Reason::NoFields`] until one replaces it.
    pub(crate) fn awaiting() -> W3cFormat {
        W3cFormat { fields: Vec::new() }
    }

    /// The field names of a `#Fields:` directive (the directive itself
    /// optional), separated by blanks.
    pub(crate) fn compile(spec: &str, names: &str) -> Result<W3cFormat, Error> {
        let names = names.trim();
        let names = names
            .strip_prefix("#Fields:")
            .map_or(names, str::trim_start);
        let mut fields: Vec<W3cField> = names.split_ascii_whitespace().map(field).collect();
        // One field per record slot: the first counts.
        let mut seen = Vec::new();
        for f in &mut fields {
            if *f == W3cField::Opaque {
                continue;
            }
            if seen.contains(f) {
                *f = W3cField::Opaque;
            } else {
                seen.push(*f);
            }
        }
        if !seen.contains(&W3cField::Remote) && !seen.contains(&W3cField::RemoteName) {
            return Err(Error::format(
                spec,
                None,
                "no client address field (c-ip or c-dns)",
            ));
        }
        // The client's name counts only without its address.
        if seen.contains(&W3cField::Remote) {
            for f in &mut fields {
                if *f == W3cField::RemoteName {
                    *f = W3cField::Opaque;
                }
            }
        }
        Ok(W3cFormat { fields })
    }

    /// Parses one line (not a `#` directive: those are skipped before).
    pub(crate) fn parse<'a>(&self, line: &'a str) -> Result<Record<'a>, Fault> {
        let b = line.as_bytes();
        let mut rec = Builder::default();
        let mut pos = 0;
        let (mut date, mut time_of_day) = (None, None);
        if self.fields.is_empty() {
            return Err(Fault::at(Reason::NoFields, 0));
        }
        for f in &self.fields {
            while matches!(b.get(pos), Some(b' ' | b'\t')) {
                pos += 1;
            }
            if pos >= b.len() {
                return Err(Fault::at(Reason::Mismatch, pos));
            }
            let start = pos;
            let (value, end) = if b[pos] == b'"' {
                // A quoted value ends at a quote followed by a blank or the
                // end of the line (`""` inside is a quote).
                let mut at = pos + 1;
                loop {
                    let Some(q) = memchr::memchr(b'"', &b[at..]).map(|q| at + q) else {
                        return Err(Fault::at(Reason::Unterminated, pos));
                    };
                    if b.get(q + 1) == Some(&b'"') {
                        at = q + 2;
                        continue;
                    }
                    if matches!(b.get(q + 1), None | Some(b' ' | b'\t')) {
                        break (&line[pos + 1..q], q + 1);
                    }
                    at = q + 1;
                }
            } else {
                let end = b[pos..]
                    .iter()
                    .position(|c| matches!(c, b' ' | b'\t'))
                    .map_or(b.len(), |n| pos + n);
                (&line[pos..end], end)
            };
            pos = end;
            let at = start + usize::from(b[start] == b'"');
            let e = |reason| Fault::at(reason, at);
            match f {
                W3cField::Date => date = opt(value),
                W3cField::Time => time_of_day = Some((value, at)),
                W3cField::Remote | W3cField::RemoteName => {
                    rec.remote = Some(match opt(value) {
                        // Some servers leave the client out (IIS Advanced
                        // Logging behind some proxies): still a request.
                        None => Client::Unknown,
                        Some(v) => fields::client(v).ok_or_else(|| e(Reason::BadAddress))?,
                    });
                }
                W3cField::Method => rec.method = opt(value),
                W3cField::Path => rec.path = opt(value),
                W3cField::Protocol => rec.protocol = opt(value),
                W3cField::Status => {
                    rec.status = fields::status(value).map_err(|()| e(Reason::BadStatus))?;
                }
                W3cField::Bytes => {
                    rec.bytes = fields::bytes(value).ok_or_else(|| e(Reason::BadBytes))?;
                }
                W3cField::Referer => rec.referer = opt(value),
                W3cField::UserAgent => rec.user_agent = opt(value),
                W3cField::Vhost => rec.vhost = opt(value),
                W3cField::ForwardedFor => rec.forwarded_for = opt(value),
                W3cField::Opaque => {}
            }
        }
        if let Some(extra) = b[pos..].iter().position(|c| !matches!(c, b' ' | b'\t')) {
            // More values than fields.
            return Err(Fault::at(Reason::Mismatch, pos + extra));
        }
        if let (Some(date), Some((t, at))) = (date, time_of_day)
            && t != "-"
        {
            rec.time =
                Some(time::parse_date_time(date, t).ok_or_else(|| Fault::at(Reason::BadTime, at))?);
        }
        rec.finish()
    }
}
