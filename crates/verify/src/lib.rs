//! Crawler verification for botwarden: which requests come from the crawlers
//! they claim to be.
//!
//! - [`registry`]: the bots — their names, User-Agent patterns, address
//!   lists, published range feeds and reverse-DNS host rules — read from
//!   registry files with every problem located ([`registry::RegistryBuilder`];
//!   [`registry::Registry::builtin`] is compiled in), and the directory of
//!   fetched range feeds ([`registry::FeedStore`]).
//! - [`classify`]: what a User-Agent claims to be ([`Classifier`]).
//! - IP sets ([`IpSet`]): exact addresses, inclusive ranges and CIDR blocks,
//!   for IPv4 and IPv6, in named lists (one per bot or per published feed),
//!   answering which lists an address is in.
//! - [`dns`]: forward-confirmed reverse DNS ([`FcrdnsChecker`]).
//! - [`Verifier`]: a request's verdict ([`Verdict`]), decided in one place
//!   for every front end ([`Claim`], [`Verifier::check_request`]).
//!
//! I/O: DNS queries, and the feed directory of [`registry::FeedStore`]
//! (read, and written atomically); nothing is printed.
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

pub mod classify;
pub mod dns;
mod error;
mod ipset;
pub mod registry;
mod verdict;
mod verifier;
mod yaml;

pub use classify::{
    BotKind, BotRef, CRAWLER_CATEGORY, Classification, Classifier, ClassifierBot, Explanation,
    LIBRARY_CATEGORY, MAX_CACHED_LEN, Shape, Source, UAP_CORE_REGEXES, UAP_CORE_VERSION, UaPattern,
};
pub use dns::{DnsConfig, Fcrdns, FcrdnsChecker, HostRule};
pub use error::Error;
pub use ipset::{Cidr, IpSet, IpSetBuilder, ListId, normalize};
pub use verdict::{Evidence, Method, Verdict};
pub use verifier::{Claim, VerdictStats, Verifier, VerifierConfig};
