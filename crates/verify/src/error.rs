//! The one error type of the crate.

/// What went wrong, naming the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Not an IPv4 or IPv6 address.
    #[error("'{input}' is not an IP address")]
    InvalidIp {
        /// The text given.
        input: String,
    },
    /// Not a CIDR block (`address/length`).
    #[error("'{input}' is not a CIDR block: {reason}")]
    InvalidCidr {
        /// The text given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A range whose ends are of different families or in the wrong order.
    #[error("range {min} – {max}: {reason}")]
    InvalidRange {
        /// The first address, as given.
        min: String,
        /// The last address, as given.
        max: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A host name of a rule that is not a valid host name.
    #[error("'{input}' is not a valid host name: {reason}")]
    InvalidHostName {
        /// The text given.
        input: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A PTR name mask of a rule that is not valid.
    #[error("'{input}' is not a valid host name mask: {reason}")]
    InvalidMask {
        /// The text given.
        input: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A DNS setting out of range.
    #[error("DNS setting '{field}': {reason}")]
    InvalidDnsConfig {
        /// The setting.
        field: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The DNS resolver could not be set up.
    #[error("DNS resolver: {reason}")]
    DnsSetup {
        /// What failed.
        reason: String,
    },
    /// An extra User-Agent pattern (placed before uap-core's parsers) that
    /// does not compile, or whose family cannot be checked.
    #[error("User-Agent pattern [{index}] '{regex}': {reason}")]
    InvalidUaPattern {
        /// Its index among the extras.
        index: usize,
        /// Its regex.
        regex: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An extra User-Agent pattern whose family names no registered bot.
    #[error(
        "User-Agent pattern [{index}] '{regex}' gives the family '{family}', which names no \
         registered bot (compared without ASCII case)"
    )]
    UaPatternNamesNoBot {
        /// Its index among the extras.
        index: usize,
        /// Its regex.
        regex: String,
        /// The family (lower-cased) that names no bot.
        family: String,
    },
    /// A User-Agent classifier that could not be built for another reason
    /// (the embedded uap-core data, or sizes beyond the automata's limits).
    #[error("User-Agent classifier: {reason}")]
    Classifier {
        /// What went wrong.
        reason: String,
    },
}
