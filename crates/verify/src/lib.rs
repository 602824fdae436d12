//! Crawler verification for botwarden: which requests come from the crawlers
//! they claim to be.
//!
//! This first part holds the IP sets: exact addresses, inclusive ranges and
//! CIDR blocks, for IPv4 and IPv6, in named lists (one per bot or per
//! published feed), answering which lists an address is in.
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
//!
//! The [`dns`] module checks addresses by forward-confirmed reverse DNS.

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
pub use verifier::{VerdictStats, Verifier, VerifierConfig};
