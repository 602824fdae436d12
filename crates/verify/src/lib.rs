//! Crawler verification for botwarden: which requests come from the crawlers
//! they claim to be.
//!
//! - The registry ([`Registry`]): the bots — their names, User-Agent
//!   patterns, address lists, published range feeds and reverse-DNS host
//!   rules — read from registry files with every problem located
//!   ([`RegistryBuilder`], [`Problem`]; [`Registry::builtin`] is compiled
//!   in), and the directory of fetched range feeds ([`FeedStore`]).
//! - User-Agent classification ([`Classifier`]): which registered bot a
//!   User-Agent claims to be, and what kind of client it is.
//! - IP sets ([`IpSet`]): exact addresses, inclusive ranges and CIDR blocks,
//!   for IPv4 and IPv6, in named lists (one per bot or per published feed),
//!   answering which lists an address is in.
//! - Forward-confirmed reverse DNS ([`FcrdnsChecker`]), with its cache
//!   and outcomes ([`Fcrdns`]).
//! - [`Verifier`]: a request's verdict ([`Verdict`]), decided in one place
//!   for every front end ([`Claim`], [`Verifier::check_request`]).
//! - Web Bot Auth: requests signed with HTTP Message Signatures
//!   ([`SignatureVerifier`] over a [`KeyRing`] of fetched key directories
//!   and registry keys; [`Verifier::check_signed_request`] for the verdict)
//!   and signing them ([`Signer`]); see `docs/webbotauth.md`.
//! - A seam for a verdict cache shared by many processes
//!   ([`SharedVerdicts`], in [`VerifierConfig::shared`]): asked after the
//!   verifier's own cache and before DNS; implemented elsewhere
//!   (`botwarden-scale`, on Redis).
//!
//! I/O: DNS queries, and the feed directory of [`FeedStore`] (read, and
//! written atomically by [`write_atomic`], botwarden's one atomic file
//! writer, which `botwarden-logs`' exports write with too); nothing is
//! printed. Key directories are not
//! fetched here: the caller fetches and hands them over.
//!
//! Every public type is exported at the crate root; the modules are
//! private. The crate has one error type, [`Error`]: its message names the
//! input (an address, a rule, a pattern, a feed by URL or file, the feed
//! directory) and, when the system gave a cause, that cause is the error's
//! [`source`](std::error::Error::source) rather than part of the message.
//! A registry file's problems are not errors but findings ([`Problem`]),
//! all reported in one run.
//!
//! ```
//! use botwarden_verify::IpSetBuilder;
//!
//! let mut b = IpSetBuilder::new();
//! let google = b.list("googlebot");
//! b.add_cidr(google, "66.249.64.0/27").unwrap();
//! b.add_range(google, "2001:4860:4801:10::", "2001:4860:4801:10::ffff").unwrap();
//! let set = b.build();
//! assert_eq!(set.lookup("66.249.64.7".parse().unwrap()).collect::<Vec<_>>(), ["googlebot"]);
//! // An IPv4-mapped IPv6 address is the IPv4 address.
//! assert!(set.contains("::ffff:66.249.64.7".parse().unwrap()));
//! assert!(!set.contains("66.249.64.32".parse().unwrap()));
//! ```

mod atomic;
mod classify;
mod dns;
mod error;
mod ipset;
mod registry;
mod shared;
mod verdict;
mod verifier;
mod webbotauth;
mod yaml;

pub use atomic::{parent_dir, sync_dir, unique_suffix, write_atomic};
pub use classify::{
    BotKind, BotRef, CRAWLER_CATEGORY, Classification, ClassificationJson, Classifier,
    ClassifierBot, Explanation, LIBRARY_CATEGORY, MAX_CACHED_LEN, SCANNER_CATEGORY, Shape, Source,
    UAP_CORE_REGEXES, UAP_CORE_VERSION, UaPattern,
};
pub use dns::{
    CacheStats, Clock, DnsConfig, DnsFailure, DnsStats, FailReason, Fcrdns, FcrdnsChecker,
    ForwardAnswer, HostRule, MAX_CANDIDATES, ManualClock, Negative, Query, SystemClock,
    UnknownReason,
};
pub use error::Error;
pub use ipset::{Cidr, IpSet, IpSetBuilder, ListId, normalize};
pub use registry::{
    Bot, BotDescription, Category, CloudflareClass, DEFAULT_EXTRAS, DEFAULT_EXTRAS_NAME,
    DEFAULT_REGISTRY, DEFAULT_REGISTRY_NAME, Feed, FeedStore, IpRange, MAX_FEED_BYTES, Origin,
    Position, Problem, Provenance, ProvenanceOf, ProvenanceSource, PublishedRanges, RangesFormat,
    RefreshPeriod, Registry, RegistryBuilder, Severity, UaExtra,
};
pub use shared::{
    READ_BUCKETS, SharedFuture, SharedLock, SharedStats, SharedVerdicts, WIRE_VERSION,
    decode_verdict, encode_verdict,
};
pub use verdict::{Evidence, Method, Verdict, VerdictJson};
pub use verifier::{Claim, VerdictStats, Verifier, VerifierConfig};
pub use webbotauth::{
    Agent, AgentCard, AgentCheck, AgentFinding, AgentForm, AgentKind, AgentReading, AgentSeverity,
    BodyDigest, CardKeys, DIRECTORY_MEDIA_TYPE, DIRECTORY_TAG, DirectoryHttp, DirectoryObservation,
    DirectoryResponse, DirectorySignature, Effect, FormVerdict, KeyAlgorithm, KeyOwner, KeyRing,
    KeySet, KeySummary, MediaType, Outcome, OwnedRequest, PublicKey, Reader, ReaderVerdict,
    RequestParts, SampleSummary, SignatureCheck, SignatureConfig, SignatureEvidence,
    SignatureFailure, SignatureHeaders, SignatureStats, SignatureVerifier, SignedVerdictJson,
    Signer, WEB_BOT_AUTH_TAG, WELL_KNOWN_DIRECTORY, agent_directory_url, check_agent,
    check_content_digest, check_directory_response, content_digest, ed25519_key, header_field,
    keys_url, parse_agent_registry, sample_agent, verify_message_signature,
};
