//! HTTP fetching for botwarden, with robots.txt semantics.
//!
//! The robots.txt fetcher: [`Fetcher`] makes one GET and follows
//! redirects itself, recording every hop (URL, status, time, `Location`),
//! detecting loops and counting them against a limit; it keeps at most
//! `max_bytes` of body, decoding `gzip`, `br` and `deflate` and counting the
//! decoded bytes; it stops after a time limit for the whole fetch; it reports
//! status, content type, charset, byte-order mark, `Content-Encoding`,
//! `Retry-After`, sizes and timings ([`FetchReport`]); and it maps the result
//! to the [`FetchOutcome`](botwarden_robots::FetchOutcome) of
//! `botwarden-robots`, so that each robot's
//! [`AvailabilityPolicy`](botwarden_robots::AvailabilityPolicy) can decide.
//!
//! Fetching a URL on a user's behalf refuses loopback, private and other
//! restricted addresses ([`restricted_kind`]) for the first URL and every
//! redirect, after resolving the name; the addresses checked are the ones
//! connected to. [`FetcherBuilder::allow_private`] lifts that (tests do).
//!
//! ```no_run
//! use botwarden_fetch::Fetcher;
//! use botwarden_robots::AvailabilityPolicy;
//!
//! # async fn example() -> Result<(), botwarden_fetch::Error> {
//! let fetcher = Fetcher::builder().build()?;
//! let robots = fetcher.fetch_robots("https://example.com/some/page").await?;
//! for hop in &robots.report.hops {
//!     println!("{:?} {} ({} ms)", hop.status, hop.url, hop.elapsed.as_millis());
//! }
//! for policy in AvailabilityPolicy::ALL {
//!     println!("{policy}: {}", robots.decide(policy).availability);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! One page of a crawl: [`Fetcher::fetch_page`] makes a single GET that does not
//! follow redirects and gives a [`PageResponse`], with the
//! [`Outcome`] a crawl's throttle counts. A resource a rendered page
//! asks for: [`Fetcher::fetch_subresource`] keeps the whole answer
//! ([`SubresourceResponse`]) for the browser.
//!
//! Web Bot Auth: [`KeyDirectories`] fetches and caches the key
//! directories signed requests name, for `botwarden-verify` to check them
//! with (`docs/keydir.md`); [`FetcherBuilder::signer`] signs every request
//! of a fetcher (and so of a crawl) with a `botwarden_verify::Signer`.

mod address;
mod body;
mod certificate;
mod error;
mod fetch;
mod keydir;
mod page;
mod robots_fetch;
mod subresource;
mod timing;

pub use address::{AddressKind, restricted_kind};
pub use body::{Bom, Encoding, parse_content_type, utf8_body};
pub use certificate::not_after;
pub use error::Error;
pub use fetch::{
    CacheHeaders, FetchReport, Fetcher, FetcherBuilder, Hop, RetryAfter, USER_AGENT, Warning, chain,
};
pub use keydir::{
    AllowedAgents, DirectoryFetch, KeyDirConfig, KeyDirStats, KeyDirectories, freshness,
    observe_directory,
};
pub use page::{Outcome, PageResponse, SecurityHeaders, link_header_canonicals};
pub use robots_fetch::{MissingProbe, RobotsFetch, fetch_robots_txt, robots_url};
pub use subresource::SubresourceResponse;
