//! One parsed access-log line.

use std::net::IpAddr;

/// A point in time as a log wrote it: seconds since the Unix epoch (UTC)
/// and the UTC offset the log used, in seconds east of UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub unix: i64,
    /// The zone offset of the written time, in seconds east of UTC.
    pub offset: i32,
}

/// Who made a request, as the log names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Client<'a> {
    /// An IPv4 or IPv6 address (a port or zone written with it dropped).
    Addr(IpAddr),
    /// A host name written where the address belongs: Apache's `%h` with
    /// `HostnameLookups On`. Published ranges and reverse DNS need the
    /// address, so such a client cannot be verified.
    Name(&'a str),
    /// No client given: a W3C log's `c-ip` written `-`.
    Unknown,
}

impl Client<'_> {
    /// The address, when the log gave one.
    #[must_use]
    pub fn ip(&self) -> Option<IpAddr> {
        match self {
            Client::Addr(ip) => Some(*ip),
            Client::Name(_) | Client::Unknown => None,
        }
    }
}

impl From<IpAddr> for Client<'_> {
    fn from(ip: IpAddr) -> Self {
        Client::Addr(ip)
    }
}

/// The signature fields of a logged request (all `None` when the log does
/// not record them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SignatureFields<'a> {
    /// `Signature-Input`.
    pub input: Option<&'a str>,
    /// `Signature`.
    pub signature: Option<&'a str>,
    /// `Signature-Agent`.
    pub agent: Option<&'a str>,
}

impl SignatureFields<'_> {
    /// Whether the request carried a signature field.
    #[must_use]
    pub fn is_signed(&self) -> bool {
        self.input.is_some() || self.signature.is_some()
    }
}

/// The fields of one request, borrowed from the line they were parsed from.
///
/// Quoted fields are kept as written (with the server's `\"` and `\xHH`
/// escapes); a field the format does not have, or that the log wrote as
/// `-`, is `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    /// The connection's peer (`%h`/`%a`, `$remote_addr`): its address, or
    /// the host name the server wrote instead.
    pub remote: Client<'a>,
    /// The `X-Forwarded-For` header (or nginx `$http_x_forwarded_for`), as
    /// written.
    pub forwarded_for: Option<&'a str>,
    /// The request time.
    pub time: Option<Timestamp>,
    /// The request method (`GET`).
    pub method: Option<&'a str>,
    /// The request target (`/robots.txt`), query included.
    pub path: Option<&'a str>,
    /// The protocol (`HTTP/1.1`).
    pub protocol: Option<&'a str>,
    /// The final status code.
    pub status: Option<u16>,
    /// Response bytes (`%b`, `%B`, `%O`, `$body_bytes_sent`,
    /// `$bytes_sent`); `-` is 0.
    pub bytes: u64,
    /// The `Referer` header.
    pub referer: Option<&'a str>,
    /// The `User-Agent` header.
    pub user_agent: Option<&'a str>,
    /// The virtual host (`%v`, `$host`, `$server_name`).
    pub vhost: Option<&'a str>,
    /// The request's Web Bot Auth fields, as written (with the server's
    /// escapes): `Signature-Input` (`%{Signature-Input}i`,
    /// `$http_signature_input`), `Signature` and `Signature-Agent`.
    pub signature: SignatureFields<'a>,
    /// The line was cut short (presets only): it ends inside a quoted field
    /// (the request or a later one), as lines cut by a length limit on the
    /// way do. That field runs to the end of the line; the fields after it
    /// are absent.
    pub truncated: bool,
}
