//! The crate's one error type.

use std::net::IpAddr;
use std::time::Duration;

use crate::address::AddressKind;

/// What went wrong fetching a URL (every such variant names the URL), or
/// setting up the client that fetches.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text given is not an absolute URL.
    #[error("'{url}' is not a URL: {reason}")]
    InvalidUrl {
        /// The text given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Only `http` and `https` URLs are fetched.
    #[error("{url}: only http and https URLs can be fetched")]
    UnsupportedScheme {
        /// The URL.
        url: String,
    },
    /// The host is, or resolves to, an address that is not fetched on a
    /// user's behalf (loopback, private, ...); nothing was sent to it.
    #[error("refusing to fetch {url}: {}", refusal(host, addr, *kind))]
    Refused {
        /// The URL.
        url: String,
        /// Its host.
        host: String,
        /// The address refused.
        addr: IpAddr,
        /// Why.
        kind: AddressKind,
    },
    /// No complete HTTP answer: the name did not resolve, the connection was
    /// refused or reset, TLS failed, or the response was malformed.
    #[error("{url}: {message}")]
    Network {
        /// The URL.
        url: String,
        /// What happened, with its causes.
        message: String,
    },
    /// The fetch, redirects and body included, took longer than allowed.
    #[error("{url}: no complete answer within {} ms", timeout.as_millis())]
    Timeout {
        /// The URL being fetched when time ran out.
        url: String,
        /// The limit.
        timeout: Duration,
    },
    /// The body could not be decompressed.
    #[error("{url}: cannot decode the {coding} body: {message}")]
    Decode {
        /// The URL.
        url: String,
        /// The content coding (`gzip`, `br`, `deflate`).
        coding: String,
        /// What the decoder said.
        message: String,
    },
    /// The server redirected more often than allowed.
    #[error("{url}: more than {max} redirects")]
    TooManyRedirects {
        /// The URL that redirected once too often.
        url: String,
        /// The limit.
        max: u32,
    },
    /// A redirect led back to a URL already requested.
    #[error("{url}: redirect loop back to {to}")]
    RedirectLoop {
        /// The URL that redirected.
        url: String,
        /// The URL it redirected to, requested before.
        to: String,
    },
    /// The HTTP client could not be set up.
    #[error("cannot set up the HTTP client: {message}")]
    Client {
        /// What failed.
        message: String,
    },
    /// A bundle of certificate authorities to trust could not be read.
    #[error("{input}: cannot read the certificates to trust: {message}")]
    Certificates {
        /// The bundle, as named by the caller (its path).
        input: String,
        /// What was wrong.
        message: String,
    },
    /// A server's certificate could not be read.
    #[error("{url}: {message}")]
    PeerCertificate {
        /// The URL asked.
        url: String,
        /// What was wrong.
        message: String,
    },
    /// A request could not be signed (Web Bot Auth).
    #[error("{url}: cannot sign the request: {message}")]
    Signing {
        /// The URL requested.
        url: String,
        /// Why.
        message: String,
    },
    /// A key directory could not be had or read.
    #[error("key directory {url}: {message}")]
    KeyDirectory {
        /// The directory's URL.
        url: String,
        /// What went wrong.
        message: String,
    },
}

/// `10.0.0.1 is a private address`, or `intranet is 10.0.0.1, a private
/// address` for a name.
fn refusal(host: &str, addr: &IpAddr, kind: AddressKind) -> String {
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    if literal.parse::<IpAddr>().ok() == Some(*addr) {
        format!("{host} is {} {kind} address", kind.article())
    } else {
        format!("{host} is {addr}, {} {kind} address", kind.article())
    }
}

impl Error {
    /// Whether the request failed because of how this botwarden is set
    /// up rather than because of the site: an address it was told to
    /// refuse (loopback and private ones unless allowed), a certificate
    /// authority it was not given to trust, a client it could not set up,
    /// a request it could not sign. Such a failure says nothing about the
    /// site, so a crawl never turns it into a final verdict on a URL.
    #[must_use]
    pub fn is_own_configuration(&self) -> bool {
        match self {
            Error::Refused { .. }
            | Error::Client { .. }
            | Error::Certificates { .. }
            | Error::Signing { .. } => true,
            Error::Network { message, .. } => message.contains("UnknownIssuer"),
            _ => false,
        }
    }

    /// The URL the error is about, if any.
    #[must_use]
    pub fn url(&self) -> Option<&str> {
        match self {
            Error::InvalidUrl { url, .. }
            | Error::UnsupportedScheme { url }
            | Error::Refused { url, .. }
            | Error::Network { url, .. }
            | Error::Timeout { url, .. }
            | Error::Decode { url, .. }
            | Error::TooManyRedirects { url, .. }
            | Error::RedirectLoop { url, .. }
            | Error::Signing { url, .. }
            | Error::PeerCertificate { url, .. }
            | Error::KeyDirectory { url, .. } => Some(url),
            Error::Client { .. } | Error::Certificates { .. } => None,
        }
    }
}
