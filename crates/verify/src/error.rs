//! The one error type of the crate.

use std::path::PathBuf;

/// What went wrong, naming the input: an address, range or host rule, a
/// DNS setting, a User-Agent pattern, a range feed (by URL or file) or the
/// feed directory (by path). When the system gave a cause, the message
/// names what was being done and where, and the cause is the error's
/// [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
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
    /// A range feed that could not be read: not JSON, not in the Google
    /// format, or with bad prefixes; every problem is listed.
    #[error("range feed {url}: {}", problems.join("; "))]
    Feed {
        /// The feed: its URL, or the stored file and its URL.
        url: String,
        /// Every problem found, each naming its place
        /// (`prefixes[3].ipv4Prefix: …`).
        problems: Vec<String>,
    },
    /// A fetched feed body that was not stored because it is not a feed;
    /// every problem is listed. The message leaves the URL to the caller,
    /// which names the feed it fetched.
    #[error("{}", problems.join("; "))]
    FeedRejected {
        /// The feed's URL.
        url: String,
        /// Every problem found.
        problems: Vec<String>,
    },
    /// A fetched feed that lists no prefixes: storing it would drop the
    /// copy kept. The message leaves the URL to the caller.
    #[error("the feed lists no prefixes")]
    NoPrefixes {
        /// The feed's URL.
        url: String,
    },
    /// The feed directory cannot be created.
    #[error("cannot create {}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A feed's file cannot be written.
    #[error("cannot write {}", path.display())]
    WriteFeed {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file could not be replaced whole ([`write_atomic`](crate::write_atomic)),
    /// or a directory flushed ([`sync_dir`](crate::sync_dir)).
    #[error("{}: cannot {op}", path.display())]
    File {
        /// The path the operation was about (the temporary file beside
        /// the file, the file, or its directory).
        path: PathBuf,
        /// What was being done, e.g. `create the temporary file`.
        op: &'static str,
        /// What the system said.
        source: std::io::Error,
    },
    /// A path [`write_atomic`](crate::write_atomic) does not replace: a
    /// directory, or a path that names no file.
    #[error("{}: {reason}", path.display())]
    NotAFile {
        /// The path, left alone.
        path: PathBuf,
        /// Why.
        reason: &'static str,
    },
    /// The feed directory's path names something else.
    #[error("{} is not a directory", path.display())]
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// The feed directory cannot be listed.
    #[error("cannot list {}", path.display())]
    ListDir {
        /// The directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A key that cannot be read or used: a JWK, a PEM file, a signer's
    /// setting.
    #[error("key {input}: {reason}")]
    InvalidKey {
        /// The key: its file, its place in a set, or what was given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A key directory, JWK Set or signature agent card that cannot be
    /// read; every problem is listed.
    #[error("key directory {url}: {}", problems.join("; "))]
    KeyDirectory {
        /// Where it came from (its URL or file).
        url: String,
        /// Every problem found.
        problems: Vec<String>,
    },
    /// A request that could not be signed.
    #[error("cannot sign the request: {reason}")]
    Signing {
        /// Why.
        reason: String,
    },
}
