//! What a forward-confirmed reverse DNS check found, with its evidence.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

/// The outcome of a forward-confirmed reverse DNS check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fcrdns {
    /// A PTR name of the address is acceptable and resolves back to the
    /// address.
    Confirmed {
        /// The PTR name that was confirmed (lowercase, no trailing dot).
        name: String,
        /// Every PTR name of the address, in the order answered.
        ptr_names: Vec<String>,
        /// The A and AAAA addresses of `name` (A first), among them the
        /// checked address.
        forward: Vec<IpAddr>,
    },
    /// DNS answered, and the answers do not confirm the address.
    Failed {
        /// Why, with the evidence.
        reason: FailReason,
        /// Every PTR name of the address (empty without PTR records).
        ptr_names: Vec<String>,
    },
    /// A lookup failed (SERVFAIL, REFUSED, timeout, network error): nothing
    /// can be concluded, and this is never to be taken as a failure.
    Unknown {
        /// Which lookup failed and how.
        reason: UnknownReason,
        /// The PTR names known so far (empty when the PTR lookup failed).
        ptr_names: Vec<String>,
    },
}

impl Fcrdns {
    /// Whether the address was confirmed.
    pub fn is_confirmed(&self) -> bool {
        matches!(self, Self::Confirmed { .. })
    }

    /// The PTR names of the address, whatever the outcome.
    pub fn ptr_names(&self) -> &[String] {
        match self {
            Self::Confirmed { ptr_names, .. }
            | Self::Failed { ptr_names, .. }
            | Self::Unknown { ptr_names, .. } => ptr_names,
        }
    }
}

impl fmt::Display for Fcrdns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Confirmed { name, forward, .. } => {
                write!(f, "confirmed: PTR {name} resolves to ")?;
                write_list(f, forward)
            }
            Self::Failed { reason, .. } => write!(f, "failed: {reason}"),
            Self::Unknown { reason, .. } => write!(f, "unknown: {reason}"),
        }
    }
}

/// Why DNS does not confirm an address.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailReason {
    /// The address has no PTR record.
    NoPtr {
        /// The address looked up (IPv4-mapped IPv6 as IPv4).
        ip: IpAddr,
        /// Whether the reverse name does not exist or has no PTR record.
        negative: Negative,
    },
    /// No PTR name ends with an allowed host.
    NoAllowedHost {
        /// The PTR names.
        names: Vec<String>,
        /// The allowed hosts.
        allowed: Vec<String>,
    },
    /// PTR names end with an allowed host, but none matches a mask.
    NoMaskMatch {
        /// The PTR names that end with an allowed host.
        names: Vec<String>,
        /// The masks.
        masks: Vec<String>,
    },
    /// No acceptable PTR name resolves back to the address.
    NotConfirmed {
        /// The address checked.
        ip: IpAddr,
        /// Each acceptable PTR name with its A and AAAA addresses (empty when
        /// it has none).
        forward: Vec<ForwardAnswer>,
    },
}

impl fmt::Display for FailReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoPtr { ip, negative } => write!(f, "no PTR record for {ip} ({negative})"),
            Self::NoAllowedHost { names, allowed } => {
                write_names(f, names)?;
                let verb = if names.len() == 1 { "does" } else { "do" };
                write!(f, " {verb} not end with an allowed host (")?;
                write_list(f, allowed)?;
                f.write_str(")")
            }
            Self::NoMaskMatch { names, masks } => {
                write_names(f, names)?;
                let verb = if names.len() == 1 { "matches" } else { "match" };
                write!(f, " {verb} no allowed pattern (")?;
                write_list(f, masks)?;
                f.write_str(")")
            }
            Self::NotConfirmed { ip, forward } => {
                for (i, answer) in forward.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    if answer.addresses.is_empty() {
                        write!(f, "{} has no A or AAAA record", answer.name)?;
                    } else {
                        write!(f, "{} resolves to ", answer.name)?;
                        write_list(f, &answer.addresses)?;
                        write!(f, ", not to {ip}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// `PTR a` or `PTR names a, b`.
fn write_names(f: &mut fmt::Formatter<'_>, names: &[String]) -> fmt::Result {
    f.write_str(if names.len() == 1 {
        "PTR "
    } else {
        "PTR names "
    })?;
    write_list(f, names)
}

fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// The forward (A and AAAA) addresses of one PTR name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardAnswer {
    /// The PTR name (lowercase, no trailing dot).
    pub name: String,
    /// Its A then AAAA addresses; empty for NXDOMAIN or no address records.
    pub addresses: Vec<IpAddr>,
}

/// A definitive "no such record" answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Negative {
    /// The name does not exist (NXDOMAIN).
    NxDomain,
    /// The name exists but has no record of the type asked (NODATA).
    NoData,
}

impl fmt::Display for Negative {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NxDomain => "NXDOMAIN",
            Self::NoData => "NODATA",
        })
    }
}

/// Why nothing can be concluded, for an [`Fcrdns::Unknown`] outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnknownReason {
    /// A lookup failed.
    Lookup {
        /// The lookup.
        query: Query,
        /// How it failed.
        failure: DnsFailure,
    },
    /// The address has more acceptable PTR names than are checked
    /// ([`MAX_CANDIDATES`](super::MAX_CANDIDATES)), and none of those
    /// checked resolves back to it: one left unchecked might.
    Unchecked {
        /// How many names were checked.
        checked: usize,
        /// The names left unchecked, in the order answered.
        names: Vec<String>,
    },
}

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Lookup {
                query,
                failure: DnsFailure::Timeout(after),
            } => write!(f, "the {query} timed out after {after:?}"),
            Self::Lookup { query, failure } => write!(f, "the {query} failed: {failure}"),
            Self::Unchecked { checked, names } => {
                let total = checked + names.len();
                write!(
                    f,
                    "{total} PTR names end with an allowed host; the first {checked} do not resolve back to the address, and the other {} ({}",
                    names.len(),
                    names[0]
                )?;
                if names.len() > 1 {
                    f.write_str(", …")?;
                }
                write!(f, ") were left unchecked (at most {checked} are checked)")
            }
        }
    }
}

/// One DNS lookup of the check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// The PTR lookup of an address.
    Ptr(IpAddr),
    /// The A lookup of a name.
    A(String),
    /// The AAAA lookup of a name.
    Aaaa(String),
}

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ptr(ip) => write!(f, "PTR lookup of {ip}"),
            Self::A(name) => write!(f, "A lookup of {name}"),
            Self::Aaaa(name) => write!(f, "AAAA lookup of {name}"),
        }
    }
}

/// How a lookup failed without a definitive answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DnsFailure {
    /// The server answered SERVFAIL.
    ServFail,
    /// The server answered REFUSED.
    Refused,
    /// The server answered another error code (named).
    ResponseCode(String),
    /// No answer within the time allowed (the configured timeout).
    Timeout(Duration),
    /// A network error (as described by the system).
    Io(String),
    /// Any other resolver error (as described by the resolver).
    Other(String),
}

impl fmt::Display for DnsFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ServFail => f.write_str("the server answered SERVFAIL"),
            Self::Refused => f.write_str("the server answered REFUSED"),
            Self::ResponseCode(code) => write!(f, "the server answered {code}"),
            Self::Timeout(after) => write!(f, "no answer within {after:?}"),
            Self::Io(e) => write!(f, "network error: {e}"),
            Self::Other(e) => write!(f, "resolver error: {e}"),
        }
    }
}
