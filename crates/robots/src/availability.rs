//! Availability: what a robot does with what fetching robots.txt gave it.
//!
//! A pure state machine, no I/O. A [`FetchOutcome`] says what happened when
//! robots.txt was fetched (the final status or the failure, redirects,
//! `Retry-After`, the body's size, the time since the last successful fetch,
//! the cached copy); an [`AvailabilityPolicy`] says how one robot reads that;
//! [`AvailabilityPolicy::decide`] gives an [`AvailabilityDecision`]: one of
//! the five [`Availability`] answers, why, and when to fetch again.
//!
//! Policies are data: [`AvailabilityPolicy::RFC9309`],
//! [`AvailabilityPolicy::GOOGLE`], [`AvailabilityPolicy::BING`],
//! [`AvailabilityPolicy::YANDEX`], [`AvailabilityPolicy::STRICT`] (one per
//! built-in [`Profile`], see [`AvailabilityPolicy::for_profile`]) and
//! [`AvailabilityPolicy::MANDELBOT`]; [`AvailabilityPolicy::ALL`] lists them.
//!
//! ```
//! use botwarden_robots::{Availability, AvailabilityPolicy, FetchOutcome, FetchResult};
//!
//! let outcome = FetchOutcome::new(FetchResult::Status(503));
//! let rfc = AvailabilityPolicy::RFC9309.decide(&outcome);
//! assert_eq!(rfc.availability, Availability::FullDisallow);
//! let strict = AvailabilityPolicy::STRICT.decide(&outcome);
//! assert!(matches!(strict.availability, Availability::RetryLater(_)));
//! ```

use std::fmt;
use std::time::Duration;

use crate::profile::{Beyond, Profile, SizeLimit};

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(24 * 3600);

/// How long a robot whose policy says nothing waits before fetching again
/// after a failure, when the server sends no `Retry-After`.
const DEFAULT_RETRY: Duration = HOUR;

/// How the fetch of a robots.txt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FetchResult {
    /// The server answered with this status: the answer to the last request,
    /// after the redirects that were followed. A redirect status here is one
    /// that could not be followed (no usable `Location`).
    Status(u16),
    /// The fetch took longer than its time limit.
    Timeout,
    /// No complete HTTP answer: the name did not resolve, the connection was
    /// refused, reset or interrupted, TLS failed, or the response or its body
    /// was malformed.
    NetworkError,
    /// The server kept redirecting past the fetcher's limit.
    TooManyRedirects,
    /// A redirect led back to a URL already requested.
    RedirectLoop,
}

/// Everything the availability machine needs to know about one fetch of
/// robots.txt, and about the robot's memory of earlier ones.
///
/// Build one with [`FetchOutcome::new`] and struct update syntax:
///
/// ```
/// use std::time::Duration;
/// use botwarden_robots::{FetchOutcome, FetchResult};
///
/// let outcome = FetchOutcome {
///     redirects: 2,
///     retry_after: Some(Duration::from_secs(120)),
///     ..FetchOutcome::new(FetchResult::Status(503))
/// };
/// assert_eq!(outcome.cached, None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchOutcome {
    /// How the fetch ended.
    pub result: FetchResult,
    /// Redirects followed before that.
    pub redirects: u32,
    /// The server's `Retry-After`, as a delay from now.
    pub retry_after: Option<Duration>,
    /// Bytes of body kept, after decompression.
    pub body_bytes: u64,
    /// Whether the body was longer than what was kept.
    pub truncated: bool,
    /// The body's full length, when known (the `Content-Length` of a body
    /// sent without compression).
    pub full_length: Option<u64>,
    /// Time since the last successful fetch of this robots.txt; `None` when
    /// there was none or it is not known, and an outage then begins with this
    /// fetch.
    pub since_success: Option<Duration>,
    /// The age of the copy the robot has cached, if it has one.
    pub cached: Option<Duration>,
    /// The status the same site gave for a path that does not exist, when
    /// such a probe was made.
    pub missing_path_status: Option<u16>,
    /// Whether the rest of the site answers (its pages get answers other than
    /// server errors), when known.
    pub site_available: Option<bool>,
}

impl FetchOutcome {
    /// An outcome with nothing known but how the fetch ended: no redirects,
    /// no `Retry-After`, an empty body, no earlier success, no cached copy.
    #[must_use]
    pub const fn new(result: FetchResult) -> FetchOutcome {
        FetchOutcome {
            result,
            redirects: 0,
            retry_after: None,
            body_bytes: 0,
            truncated: false,
            full_length: None,
            since_success: None,
            cached: None,
            missing_path_status: None,
            site_available: None,
        }
    }
}

impl FetchOutcome {
    /// Whether some robot of `policies` parses the body this fetch gave
    /// ([`AvailabilityPolicy::parses`]). A body no robot reads (an error
    /// page, a body cut short by a timeout) holds no rules to check.
    ///
    /// ```
    /// use botwarden_robots::{AvailabilityPolicy, FetchOutcome, FetchResult};
    ///
    /// let ok = FetchOutcome::new(FetchResult::Status(200));
    /// assert!(ok.is_read_by(&AvailabilityPolicy::ALL));
    /// let gone = FetchOutcome::new(FetchResult::Status(404));
    /// assert!(!gone.is_read_by(&AvailabilityPolicy::ALL));
    /// ```
    #[must_use]
    pub fn is_read_by(&self, policies: &[&AvailabilityPolicy]) -> bool {
        policies.iter().any(|p| p.parses(self))
    }
}

/// What a robot does with robots.txt after a fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Availability {
    /// Everything may be crawled, as if there were no robots.txt.
    FullAllow,
    /// Nothing may be crawled.
    FullDisallow,
    /// The body fetched is the robots.txt: parse it and obey its rules.
    Parse,
    /// Crawl nothing for now and fetch robots.txt again after this long.
    RetryLater(Duration),
    /// Keep obeying the copy cached from an earlier fetch.
    UseCached,
}

impl Availability {
    /// A short name: `full-allow`, `full-disallow`, `parse`, `retry-later`,
    /// `use-cached`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Availability::FullAllow => "full-allow",
            Availability::FullDisallow => "full-disallow",
            Availability::Parse => "parse",
            Availability::RetryLater(_) => "retry-later",
            Availability::UseCached => "use-cached",
        }
    }
}

impl fmt::Display for Availability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Availability::RetryLater(after) => {
                write!(f, "retry-later ({})", HumanDuration(*after))
            }
            other => f.write_str(other.name()),
        }
    }
}

/// How a policy reads one kind of outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reading {
    /// As if there were no robots.txt: full allow (RFC 9309's "unavailable").
    Allow,
    /// Access to the whole site is restricted: full disallow, until a later
    /// fetch says otherwise.
    Disallow,
    /// The file exists but cannot be had now (RFC 9309's "unreachable"): the
    /// policy's [`OutageStep`]s decide, by how long this has lasted.
    Unreachable,
    /// Crawl nothing and try again later (`Retry-After`, or the policy's
    /// retry interval).
    RetryLater,
}

/// A [`Reading`] with the source that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Treatment {
    /// What the outcome means.
    pub reading: Reading,
    /// Who says so, in a few words (`RFC 9309 §2.3.1.3`).
    pub source: &'static str,
}

/// What a robot does once robots.txt has been unreachable for some time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutageAction {
    /// Full disallow.
    Disallow,
    /// The cached copy if there is one, else full disallow.
    CachedOrDisallow,
    /// The cached copy if there is one, else full allow.
    CachedOrAllow,
    /// Full allow if the rest of the site answers (taken as so when not
    /// known), else full disallow.
    AllowIfSiteAvailable,
}

/// One step of an outage: from `after` since the last successful fetch on,
/// the robot does `action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OutageStep {
    /// How long after the last successful fetch this step begins.
    pub after: Duration,
    /// What the robot does.
    pub action: OutageAction,
    /// Who says so.
    pub source: &'static str,
}

/// Which statuses mean the body is the robots.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SuccessStatus {
    /// Any 2xx status.
    Any2xx,
    /// 200 only; other 2xx statuses are read as `other_status`.
    Only200,
}

/// Limits on how a robot fetches robots.txt that do not depend on the robot:
/// what botwarden's checker does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FetchLimits {
    /// Redirects followed; one more is "too many redirects".
    pub max_redirects: u32,
    /// A warning when more redirects than this were followed.
    pub warn_redirects: u32,
    /// Time for the whole fetch, redirects and body included.
    pub timeout: Duration,
    /// A warning when the fetch took longer than this.
    pub warn_after: Duration,
    /// Bytes of (decompressed) body kept.
    pub max_bytes: usize,
}

impl FetchLimits {
    /// botwarden's checker: follows up to 10 redirects and warns after 5 (RFC
    /// 9309 §2.3.1.2 asks for at least 5, Google follows 5), stops after 10 s
    /// and warns after 5 s, and keeps 500 KiB of body (RFC 9309 §2.5: the
    /// parsing limit must be at least 500 KiB; Google reads 500 KiB).
    pub const CHECKER: FetchLimits = FetchLimits {
        max_redirects: 10,
        warn_redirects: 5,
        timeout: Duration::from_secs(10),
        warn_after: Duration::from_secs(5),
        max_bytes: 500 * 1024,
    };
}

impl Default for FetchLimits {
    fn default() -> Self {
        FetchLimits::CHECKER
    }
}

/// How one robot reads the outcome of fetching robots.txt, as plain data.
///
/// [`AvailabilityPolicy::decide`] applies it in this order: redirects beyond
/// `max_redirects` (or too many, or a loop) → `redirects_exceeded`; success →
/// parse, unless the body is over `size_limit` and the robot ignores such
/// files; `304` with a cached copy → the cached copy; 401 and 403 →
/// `auth_error`; 429 → `too_many_requests`; other 4xx → `client_error`; 5xx →
/// `server_error`, or `missing_5xx` when a probe for a missing path got a
/// 5xx too; timeouts and network errors →
/// `network_error`; anything else (1xx, a redirect without a usable
/// `Location`, 2xx under [`SuccessStatus::Only200`], 600 and above) →
/// `other_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AvailabilityPolicy {
    /// Short name (`rfc9309`, `google`, ..., `mandelbot`).
    pub name: &'static str,
    /// One line saying whose reading this is.
    pub summary: &'static str,
    /// Which statuses mean success.
    pub success: SuccessStatus,
    /// Redirects the robot follows; a fetch that needed more is read as
    /// `redirects_exceeded`.
    pub max_redirects: u32,
    /// More redirects than the robot follows, or a redirect loop.
    pub redirects_exceeded: Treatment,
    /// 401 Unauthorized and 403 Forbidden.
    pub auth_error: Treatment,
    /// 429 Too Many Requests.
    pub too_many_requests: Treatment,
    /// Other 4xx statuses.
    pub client_error: Treatment,
    /// 5xx statuses.
    pub server_error: Treatment,
    /// Timeouts and network errors.
    pub network_error: Treatment,
    /// Any other status.
    pub other_status: Treatment,
    /// How a 5xx is read when the site answers 5xx for a path that does not
    /// exist as well (it is misconfigured, not down); `None`: as any 5xx.
    pub missing_5xx: Option<Treatment>,
    /// How much body the robot reads, and what it does with a larger one.
    pub size_limit: Option<SizeLimit>,
    /// What [`Reading::Unreachable`] becomes, by how long the outage has
    /// lasted; sorted by `after`. Before the first step: full disallow.
    pub outage: &'static [OutageStep],
    /// How long a fetched robots.txt is used before fetching it again.
    pub cache_for: Duration,
    /// How long to wait after a failure when the server sends no
    /// `Retry-After`.
    pub retry_interval: Duration,
}

const RFC_REDIRECTS: Treatment = Treatment {
    reading: Reading::Allow,
    source: "RFC 9309 §2.3.1.2: after more than 5 redirects the file may be taken as unavailable",
};
const RFC_4XX: Treatment = Treatment {
    reading: Reading::Allow,
    source: "RFC 9309 §2.3.1.3: a 4xx means unavailable, so any resource may be accessed",
};
const RFC_5XX: Treatment = Treatment {
    reading: Reading::Unreachable,
    source: "RFC 9309 §2.3.1.4: a server error means unreachable, so complete disallow",
};
const RFC_NETWORK: Treatment = Treatment {
    reading: Reading::Unreachable,
    source: "RFC 9309 §2.3.1.4: a network error means unreachable, so complete disallow",
};
const RFC_OTHER: Treatment = Treatment {
    reading: Reading::Unreachable,
    source: "RFC 9309 §2.3.1.4 (our reading): no usable answer leaves the file undefined, so complete disallow",
};
const RFC_OUTAGE: &[OutageStep] = &[
    OutageStep {
        after: Duration::ZERO,
        action: OutageAction::Disallow,
        source: "RFC 9309 §2.3.1.4: complete disallow while unreachable",
    },
    OutageStep {
        after: Duration::from_secs(30 * 24 * 3600),
        action: OutageAction::CachedOrAllow,
        source: "RFC 9309 §2.3.1.4: after a long outage (30 days) the cached copy, or as unavailable",
    },
];

const GOOGLE_OUTAGE: &[OutageStep] = &[
    OutageStep {
        after: Duration::ZERO,
        action: OutageAction::Disallow,
        source: "Google: server errors are read as a full disallow",
    },
    OutageStep {
        after: Duration::from_secs(12 * 3600),
        action: OutageAction::CachedOrDisallow,
        source: "Google: after 12 hours, the last good copy for up to 30 days",
    },
    OutageStep {
        after: Duration::from_secs(30 * 24 * 3600),
        action: OutageAction::AllowIfSiteAvailable,
        source: "Google: after 30 days, as if there were no robots.txt if the rest of the site answers",
    },
];

const YANDEX_NOT_200: Treatment = Treatment {
    reading: Reading::Allow,
    source: "Yandex: a robots.txt that does not answer 200 OK leaves the site open",
};

const STRICT_ALLOW: Treatment = Treatment {
    reading: Reading::Allow,
    source: "1997 draft §3.1: a missing file means no restrictions",
};
const STRICT_TEMPORARY: Treatment = Treatment {
    reading: Reading::RetryLater,
    source: "1997 draft §3.1: after a temporary failure, defer visits to the site",
};

const MANDELBOT_4XX: Treatment = Treatment {
    reading: Reading::Allow,
    source: "Mandelbot: any 4xx, 401 and 403 included, means no robots.txt",
};
const MANDELBOT_5XX: Treatment = Treatment {
    reading: Reading::RetryLater,
    source: "Mandelbot: a 5xx stops the crawl until later",
};

impl AvailabilityPolicy {
    /// RFC 9309, the Robots Exclusion Protocol (2022), §2.3.1 and §2.4.
    ///
    /// - §2.3.1.1: a 2xx is a successful download; its rules are obeyed.
    /// - §2.3.1.2: "crawlers SHOULD follow at least five consecutive
    ///   redirects"; after more "crawlers MAY assume that the robots.txt file
    ///   is unavailable". A loop is read the same way.
    /// - §2.3.1.3: 4xx (400–499, so 401, 403 and 429 too) is "unavailable":
    ///   "the crawler MAY access any resources on the server" (full allow).
    /// - §2.3.1.4: 5xx and network errors are "unreachable": "the crawler
    ///   MUST assume complete disallow"; after "a reasonably long period of
    ///   time (for example, 30 days)" the file may be taken as unavailable or
    ///   a cached copy used (here: the cached copy if there is one, else full
    ///   allow).
    /// - §2.4: "Crawlers SHOULD NOT use the cached version for more than 24
    ///   hours, unless the robots.txt file is unreachable."
    /// - §2.5: the parsing limit must be at least 500 KiB, so a truncated body
    ///   is parsed as far as it was kept.
    ///
    /// Where the RFC is silent (our reading): other statuses (1xx, a redirect
    /// without a usable `Location`, 600 and above) leave the file undefined
    /// and are read as unreachable; a failure is retried after an hour unless
    /// the server says when.
    pub const RFC9309: AvailabilityPolicy = AvailabilityPolicy {
        name: "rfc9309",
        summary: "RFC 9309 §2.3.1: 4xx full allow, 5xx and network errors full disallow",
        success: SuccessStatus::Any2xx,
        max_redirects: 5,
        redirects_exceeded: RFC_REDIRECTS,
        auth_error: RFC_4XX,
        too_many_requests: RFC_4XX,
        client_error: RFC_4XX,
        server_error: RFC_5XX,
        network_error: RFC_NETWORK,
        other_status: RFC_OTHER,
        missing_5xx: None,
        size_limit: None,
        outage: RFC_OUTAGE,
        cache_for: DAY,
        retry_interval: DEFAULT_RETRY,
    };

    /// Googlebot.
    ///
    /// Sources: Google Search Central, "How Google interprets the robots.txt
    /// specification" (section "Handling of errors and HTTP status codes"
    /// and "Caching"), and Search Console Help, "robots.txt report" (what
    /// happens when robots.txt cannot be fetched):
    ///
    /// - 2xx: the content is used; content after the first 500 KiB is
    ///   ignored, so a truncated body is parsed.
    /// - 3xx: "Google follows at least five redirect hops ... and then stops
    ///   and treats it as a 404"; a redirect that cannot be followed is read
    ///   the same way.
    /// - 4xx except 429: "as if a valid robots.txt file didn't exist" (full
    ///   allow), 401 and 403 included.
    /// - 5xx and 429: "as if the site is fully disallowed"; "a robots.txt
    ///   file which cannot be fetched due to DNS or networking issues, such
    ///   as timeouts, invalid responses, reset or interrupted connections ...
    ///   is treated as a server error".
    /// - "If we are able to determine that a site is incorrectly configured
    ///   to return 5xx instead of a 404 status code for missing pages, we
    ///   treat the 5xx error from that site as a 404."
    /// - An outage: full disallow for 12 hours, then the last good copy for
    ///   30 days (full disallow without one), then, "if the site is generally
    ///   available", as if there were no robots.txt (full disallow if the
    ///   rest of the site fails too).
    /// - "Google generally caches the contents of robots.txt file for up to
    ///   24 hours."
    ///
    /// Our reading: a failure is retried after an hour unless the server says
    /// when (Google retries a 503 "fairly frequently").
    pub const GOOGLE: AvailabilityPolicy = AvailabilityPolicy {
        name: "google",
        summary: "Googlebot: 4xx but 429 full allow; 5xx, 429, network errors full disallow, then cache",
        success: SuccessStatus::Any2xx,
        max_redirects: 5,
        redirects_exceeded: Treatment {
            reading: Reading::Allow,
            source: "Google: after 5 redirect hops the file is read as a 404",
        },
        auth_error: Treatment {
            reading: Reading::Allow,
            source: "Google: every 4xx but 429 means no robots.txt, no crawl restrictions",
        },
        too_many_requests: Treatment {
            reading: Reading::Unreachable,
            source: "Google: 429 is read as a server error",
        },
        client_error: Treatment {
            reading: Reading::Allow,
            source: "Google: every 4xx but 429 means no robots.txt, no crawl restrictions",
        },
        server_error: Treatment {
            reading: Reading::Unreachable,
            source: "Google: a server error is read as a full disallow",
        },
        network_error: Treatment {
            reading: Reading::Unreachable,
            source: "Google: DNS and network errors and timeouts are read as server errors",
        },
        other_status: Treatment {
            reading: Reading::Allow,
            source: "Google: a redirect that cannot be followed is read as a 404",
        },
        missing_5xx: Some(Treatment {
            reading: Reading::Allow,
            source: "Google: a site that answers 5xx for missing pages has its 5xx read as a 404",
        }),
        size_limit: Profile::GOOGLE.size_limit,
        outage: GOOGLE_OUTAGE,
        cache_for: DAY,
        retry_interval: DEFAULT_RETRY,
    };

    /// Bingbot: [`AvailabilityPolicy::RFC9309`].
    ///
    /// Bing's webmaster guidelines and blog say how bingbot reads the rules of
    /// robots.txt but nothing about redirects, error statuses, outages or
    /// caching of the file itself, so this policy is RFC 9309's throughout.
    pub const BING: AvailabilityPolicy = AvailabilityPolicy {
        name: "bing",
        summary: "Bingbot: as RFC 9309 (Bing documents nothing else)",
        ..AvailabilityPolicy::RFC9309
    };

    /// Yandex's robots.
    ///
    /// Source: Yandex Webmaster help, "Using robots.txt": robots.txt is read
    /// when the file is at most 500 KB and "the server responds with HTTP
    /// code 200 OK"; "if the file doesn't meet the requirements, the site is
    /// considered open for indexing". So any status other than 200 (204 and
    /// 5xx included), any network error and a file over 500 KB mean full
    /// allow. "Yandex supports redirection from a robots.txt file located on
    /// one site to a file located on another site": redirects are followed;
    /// how many is not said, so 5 as RFC 9309. Caching is not documented:
    /// 24 hours as RFC 9309.
    pub const YANDEX: AvailabilityPolicy = AvailabilityPolicy {
        name: "yandex",
        summary: "Yandex robots: anything but 200 OK, or over 500 KB, is full allow",
        success: SuccessStatus::Only200,
        max_redirects: 5,
        redirects_exceeded: YANDEX_NOT_200,
        auth_error: YANDEX_NOT_200,
        too_many_requests: YANDEX_NOT_200,
        client_error: YANDEX_NOT_200,
        server_error: YANDEX_NOT_200,
        network_error: Treatment {
            reading: Reading::Allow,
            source: "Yandex: a robots.txt the robot cannot load leaves the site open",
        },
        other_status: YANDEX_NOT_200,
        missing_5xx: None,
        size_limit: Profile::YANDEX.size_limit,
        outage: &[],
        cache_for: DAY,
        retry_interval: DEFAULT_RETRY,
    };

    /// The 1994 standard and the 1997 draft, read as a checker describes
    /// them (the [`Profile::STRICT`] reading).
    ///
    /// Source: M. Koster, "A Method for Web Robots Control"
    /// (draft-koster-robots-00, 1997), §3.1 and §3.4, which spells out what
    /// the 1994 standard left to robots:
    ///
    /// - 2xx: "the robot should read the content, parse it, and follow any
    ///   instructions".
    /// - 3xx: "a robot should follow the redirects until a resource can be
    ///   found"; a chain beyond the checker's 10 redirects, a loop, or a
    ///   redirect without a `Location` finds none and is read as a missing
    ///   file (our reading).
    /// - 401 and 403: "On server response indicating access restrictions
    ///   (HTTP Status Code 401 or 403) a robot should regard access to the
    ///   site completely restricted."
    /// - 404: "a robot should assume no restrictions"; other 4xx (429
    ///   included) the same (our reading).
    /// - 5xx and network errors: "On the request attempt resulted in
    ///   temporary failure a robot should defer visits to the site until such
    ///   time as the resource can be retrieved" (retry later; no other
    ///   guidance).
    /// - §3.4: without cache-control, "robots should default to an expiry of
    ///   7 days".
    pub const STRICT: AvailabilityPolicy = AvailabilityPolicy {
        name: "strict",
        summary: "1994 standard / 1997 draft: 401/403 full disallow, 404 full allow, 5xx retry later",
        success: SuccessStatus::Any2xx,
        max_redirects: FetchLimits::CHECKER.max_redirects,
        redirects_exceeded: Treatment {
            reading: Reading::Allow,
            source: "1997 draft §3.1 (our reading): redirects that reach no resource mean no file",
        },
        auth_error: Treatment {
            reading: Reading::Disallow,
            source: "1997 draft §3.1: 401 or 403 means access to the site is completely restricted",
        },
        too_many_requests: STRICT_ALLOW,
        client_error: STRICT_ALLOW,
        server_error: STRICT_TEMPORARY,
        network_error: STRICT_TEMPORARY,
        other_status: Treatment {
            reading: Reading::Allow,
            source: "1997 draft §3.1 (our reading): no resource found means no restrictions",
        },
        missing_5xx: None,
        size_limit: None,
        outage: &[],
        cache_for: Duration::from_secs(7 * 24 * 3600),
        retry_interval: DEFAULT_RETRY,
    };

    /// Mandelbot, Fractle's crawler: the seed crawler botwarden's own crawler
    /// follows.
    ///
    /// Source: Fractle, "Support for robots.txt" (the Mandelbot pages): a 2xx
    /// is processed; every 4xx, 401 and 403 included, means there is no
    /// robots.txt (full allow); a 5xx stops the crawl, which resumes later
    /// (retry later), unless the site answers 5xx for files that do not
    /// exist as well, when the 5xx is read as a 404; "we cache the
    /// robots.txt file", "allow at least 48 hours" for changes to be seen.
    ///
    /// Where the pages are silent, as RFC 9309 (5 redirects, then full
    /// allow), and network errors and timeouts are read as a 5xx (our
    /// reading), as are other statuses.
    pub const MANDELBOT: AvailabilityPolicy = AvailabilityPolicy {
        name: "mandelbot",
        summary: "Mandelbot (Fractle): any 4xx full allow, 5xx retry later, cache 48 h",
        success: SuccessStatus::Any2xx,
        max_redirects: 5,
        redirects_exceeded: RFC_REDIRECTS,
        auth_error: MANDELBOT_4XX,
        too_many_requests: MANDELBOT_4XX,
        client_error: MANDELBOT_4XX,
        server_error: MANDELBOT_5XX,
        network_error: Treatment {
            reading: Reading::RetryLater,
            source: "Mandelbot (our reading): a network error is read as a 5xx, retry later",
        },
        other_status: Treatment {
            reading: Reading::RetryLater,
            source: "Mandelbot (our reading): no usable answer is read as a 5xx, retry later",
        },
        missing_5xx: Some(Treatment {
            reading: Reading::Allow,
            source: "Mandelbot: a site that answers 5xx for missing files has its 5xx read as a 404",
        }),
        size_limit: None,
        outage: &[],
        cache_for: Duration::from_secs(48 * 3600),
        retry_interval: DEFAULT_RETRY,
    };

    /// Every built-in policy: one per built-in [`Profile`] in the order of
    /// [`Profile::ALL`], then Mandelbot.
    pub const ALL: [&'static AvailabilityPolicy; 6] = [
        &AvailabilityPolicy::RFC9309,
        &AvailabilityPolicy::GOOGLE,
        &AvailabilityPolicy::BING,
        &AvailabilityPolicy::YANDEX,
        &AvailabilityPolicy::STRICT,
        &AvailabilityPolicy::MANDELBOT,
    ];

    /// The policy of a profile: the built-in policy of the same name, else
    /// (a profile of one's own) [`AvailabilityPolicy::RFC9309`].
    #[must_use]
    pub fn for_profile(profile: &Profile) -> &'static AvailabilityPolicy {
        AvailabilityPolicy::by_name(profile.name).unwrap_or(&AvailabilityPolicy::RFC9309)
    }

    /// The built-in policy with this name (case-insensitive).
    #[must_use]
    pub fn by_name(name: &str) -> Option<&'static AvailabilityPolicy> {
        AvailabilityPolicy::ALL
            .into_iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Whether a cached copy of this age may still be used without fetching
    /// robots.txt again.
    #[must_use]
    pub fn is_fresh(&self, age: Duration) -> bool {
        age < self.cache_for
    }

    /// Whether this robot parses the body fetched with `outcome`: whether
    /// [`decide`](AvailabilityPolicy::decide) says [`Availability::Parse`].
    #[must_use]
    pub fn parses(&self, outcome: &FetchOutcome) -> bool {
        self.decide(outcome).availability == Availability::Parse
    }

    /// What this robot does after `outcome`.
    #[must_use]
    pub fn decide(&self, outcome: &FetchOutcome) -> AvailabilityDecision {
        let (cause, rule) = self.classify(outcome);
        let retry = outcome.retry_after.unwrap_or(self.retry_interval);
        let (availability, source, refetch_after) = match rule {
            Verdict::Parse(source) => (Availability::Parse, source, self.cache_for),
            Verdict::Cached(source) => (Availability::UseCached, source, self.cache_for),
            Verdict::Treatment(rule) => match rule.reading {
                Reading::Allow => (Availability::FullAllow, rule.source, self.cache_for),
                Reading::Disallow => (Availability::FullDisallow, rule.source, self.cache_for),
                Reading::RetryLater => (Availability::RetryLater(retry), rule.source, retry),
                Reading::Unreachable => {
                    let (availability, source) = self.outage(outcome, rule.source);
                    (availability, source, retry)
                }
            },
        };
        AvailabilityDecision {
            availability,
            reason: AvailabilityReason {
                cause,
                rule: source,
            },
            refetch_after,
        }
    }

    /// What happened, and the rule that applies to it.
    fn classify(&self, outcome: &FetchOutcome) -> (Cause, Verdict) {
        let exceeded = |cause| (cause, Verdict::Treatment(self.redirects_exceeded));
        let status = match outcome.result {
            FetchResult::TooManyRedirects => {
                return exceeded(Cause::TooManyRedirects {
                    redirects: outcome.redirects,
                });
            }
            FetchResult::RedirectLoop => return exceeded(Cause::RedirectLoop),
            _ if outcome.redirects > self.max_redirects => {
                return exceeded(Cause::RedirectsBeyond {
                    redirects: outcome.redirects,
                    limit: self.max_redirects,
                });
            }
            FetchResult::Timeout => {
                return (Cause::Timeout, Verdict::Treatment(self.network_error));
            }
            FetchResult::NetworkError => {
                return (Cause::NetworkError, Verdict::Treatment(self.network_error));
            }
            FetchResult::Status(status) => status,
        };
        let success = match self.success {
            SuccessStatus::Any2xx => (200..300).contains(&status),
            SuccessStatus::Only200 => status == 200,
        };
        if success {
            return self.success(status, outcome);
        }
        let rule = match status {
            304 if outcome.cached.is_some() => {
                return (
                    Cause::NotModified,
                    Verdict::Cached("304 Not Modified: the cached copy is current"),
                );
            }
            401 | 403 => self.auth_error,
            429 => self.too_many_requests,
            400..=499 => self.client_error,
            500..=599 => match (outcome.missing_path_status, self.missing_5xx) {
                (Some(probe @ 500..=599), Some(treatment)) => {
                    return (
                        Cause::MissingAlso5xx { status, probe },
                        Verdict::Treatment(treatment),
                    );
                }
                _ => self.server_error,
            },
            _ => self.other_status,
        };
        (Cause::Status(status), Verdict::Treatment(rule))
    }

    fn success(&self, status: u16, outcome: &FetchOutcome) -> (Cause, Verdict) {
        let parse = if outcome.truncated {
            "the body was cut: parse the part kept"
        } else {
            "the body is the robots.txt: parse it"
        };
        let Some(limit) = self.size_limit else {
            return (Cause::Success(status), Verdict::Parse(parse));
        };
        let bytes = limit.bytes as u64;
        let over = outcome.body_bytes > bytes
            || (outcome.truncated
                && (outcome.body_bytes >= bytes || outcome.full_length.is_some_and(|n| n > bytes)));
        match limit.beyond {
            _ if !over => (Cause::Success(status), Verdict::Parse(parse)),
            Beyond::Truncate => (
                Cause::Oversize {
                    status,
                    limit: bytes,
                },
                Verdict::Parse("content after the limit is ignored: parse the rest"),
            ),
            Beyond::IgnoreFile => (
                Cause::Oversize {
                    status,
                    limit: bytes,
                },
                Verdict::Treatment(Treatment {
                    reading: Reading::Allow,
                    source: "a file over the limit is ignored, so the site is open",
                }),
            ),
        }
    }

    /// What an unreachable robots.txt means after the outage so far.
    fn outage(&self, outcome: &FetchOutcome, first: &'static str) -> (Availability, &'static str) {
        let since = outcome.since_success.unwrap_or(Duration::ZERO);
        let Some(step) = self.outage.iter().rev().find(|s| s.after <= since) else {
            return (Availability::FullDisallow, first);
        };
        let cached = outcome.cached.is_some();
        let availability = match step.action {
            OutageAction::Disallow => Availability::FullDisallow,
            OutageAction::CachedOrDisallow if cached => Availability::UseCached,
            OutageAction::CachedOrDisallow => Availability::FullDisallow,
            OutageAction::CachedOrAllow if cached => Availability::UseCached,
            OutageAction::CachedOrAllow => Availability::FullAllow,
            OutageAction::AllowIfSiteAvailable if outcome.site_available == Some(false) => {
                Availability::FullDisallow
            }
            OutageAction::AllowIfSiteAvailable => Availability::FullAllow,
        };
        // The first step restates the rule that led here; its own words are
        // the better reason.
        let source = if step.after.is_zero() {
            first
        } else {
            step.source
        };
        (availability, source)
    }
}

impl Default for AvailabilityPolicy {
    fn default() -> Self {
        AvailabilityPolicy::RFC9309
    }
}

impl fmt::Display for AvailabilityPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A rule found by `classify`, before the outage is applied.
enum Verdict {
    Parse(&'static str),
    Cached(&'static str),
    Treatment(Treatment),
}

/// What a robot does after one fetch of robots.txt, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AvailabilityDecision {
    /// What to do.
    pub availability: Availability,
    /// Why.
    pub reason: AvailabilityReason,
    /// When to fetch robots.txt again: the policy's cache time after an
    /// answer it reads as final, else `Retry-After` or its retry interval.
    pub refetch_after: Duration,
}

/// Why a policy decided as it did: what happened, and the rule that says
/// what that means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AvailabilityReason {
    /// What happened.
    pub cause: Cause,
    /// The rule applied, with its source.
    pub rule: &'static str,
}

impl fmt::Display for AvailabilityReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; {}", self.cause, self.rule)
    }
}

/// What happened, as a policy classified it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cause {
    /// A successful status.
    Success(u16),
    /// A successful status, with a body over the robot's size limit.
    Oversize {
        /// The status.
        status: u16,
        /// The robot's limit in bytes.
        limit: u64,
    },
    /// 304 Not Modified, with a cached copy.
    NotModified,
    /// Another status.
    Status(u16),
    /// A 5xx, and a 5xx for a path that does not exist too.
    MissingAlso5xx {
        /// The robots.txt status.
        status: u16,
        /// The missing path's status.
        probe: u16,
    },
    /// The fetch timed out.
    Timeout,
    /// A network error.
    NetworkError,
    /// More redirects than the robot follows.
    RedirectsBeyond {
        /// Redirects followed.
        redirects: u32,
        /// The robot's limit.
        limit: u32,
    },
    /// More redirects than the fetcher follows.
    TooManyRedirects {
        /// Redirects followed before giving up.
        redirects: u32,
    },
    /// A redirect loop.
    RedirectLoop,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Cause::Success(status) | Cause::Status(status) => write!(f, "{}", StatusLine(status)),
            Cause::Oversize { status, limit } => {
                write!(f, "{} with a body over {limit} bytes", StatusLine(status))
            }
            Cause::NotModified => f.write_str("304 Not Modified"),
            Cause::MissingAlso5xx { status, probe } => write!(
                f,
                "{}, and {probe} for a path that does not exist",
                StatusLine(status)
            ),
            Cause::Timeout => f.write_str("timed out"),
            Cause::NetworkError => f.write_str("network error"),
            Cause::RedirectsBeyond { redirects, limit } => {
                write!(f, "{redirects} redirects, more than {limit}")
            }
            Cause::TooManyRedirects { redirects } => {
                write!(f, "too many redirects (gave up after {redirects})")
            }
            Cause::RedirectLoop => f.write_str("redirect loop"),
        }
    }
}

/// The reason phrase of a common HTTP status, or `""`.
#[must_use]
pub fn status_reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        206 => "Partial Content",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        410 => "Gone",
        418 => "I'm a teapot",
        429 => "Too Many Requests",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// `404 Not Found`, or `599` when the phrase is not known.
struct StatusLine(u16);

impl fmt::Display for StatusLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match status_reason(self.0) {
            "" => write!(f, "{}", self.0),
            phrase => write!(f, "{} {phrase}", self.0),
        }
    }
}

/// `90 s`, `60 min`, `12 h`, `30 d`.
struct HumanDuration(Duration);

impl fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0.as_secs();
        match s {
            0..120 => write!(f, "{s} s"),
            120..7200 => write!(f, "{} min", s / 60),
            7200..172_800 => write!(f, "{} h", s / 3600),
            _ => write!(f, "{} d", s / 86_400),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: [&AvailabilityPolicy; 6] = AvailabilityPolicy::ALL;

    /// Short names for the expected decisions in the tables.
    const A: Availability = Availability::FullAllow;
    const D: Availability = Availability::FullDisallow;
    const PARSE: Availability = Availability::Parse;
    const C: Availability = Availability::UseCached;
    const R: Availability = Availability::RetryLater(DEFAULT_RETRY);

    fn status(code: u16) -> FetchOutcome {
        FetchOutcome::new(FetchResult::Status(code))
    }

    /// Each row: an outcome, then the decision of rfc9309, google, bing,
    /// yandex, strict and mandelbot.
    fn check(rows: &[(&str, FetchOutcome, [Availability; 6])]) {
        let mut wrong = Vec::new();
        for (name, outcome, want) in rows {
            for (policy, want) in P.iter().zip(want) {
                let got = policy.decide(outcome);
                if got.availability != *want {
                    wrong.push(format!(
                        "{name} [{policy}]: want {want}, got {} ({})",
                        got.availability, got.reason
                    ));
                }
            }
        }
        assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
    }

    #[test]
    fn statuses() {
        check(&[
            ("200", status(200), [PARSE; 6]),
            ("204", status(204), [PARSE, PARSE, PARSE, A, PARSE, PARSE]),
            ("401", status(401), [A, A, A, A, D, A]),
            ("403", status(403), [A, A, A, A, D, A]),
            ("404", status(404), [A, A, A, A, A, A]),
            ("410", status(410), [A, A, A, A, A, A]),
            ("429", status(429), [A, D, A, A, A, A]),
            ("451", status(451), [A, A, A, A, A, A]),
            ("500", status(500), [D, D, D, A, R, R]),
            ("503", status(503), [D, D, D, A, R, R]),
            ("599", status(599), [D, D, D, A, R, R]),
            ("302 without Location", status(302), [D, A, D, A, A, R]),
            ("304 without a cached copy", status(304), [D, A, D, A, A, R]),
            ("100", status(100), [D, A, D, A, A, R]),
            ("600", status(600), [D, A, D, A, A, R]),
        ]);
    }

    #[test]
    fn failures() {
        let timeout = FetchOutcome::new(FetchResult::Timeout);
        let network = FetchOutcome::new(FetchResult::NetworkError);
        let too_many = FetchOutcome {
            redirects: 10,
            ..FetchOutcome::new(FetchResult::TooManyRedirects)
        };
        let cycle = FetchOutcome {
            redirects: 2,
            ..FetchOutcome::new(FetchResult::RedirectLoop)
        };
        check(&[
            ("timeout", timeout, [D, D, D, A, R, R]),
            ("network error", network, [D, D, D, A, R, R]),
            ("too many redirects", too_many, [A, A, A, A, A, A]),
            ("redirect loop", cycle, [A, A, A, A, A, A]),
        ]);
    }

    #[test]
    fn redirects() {
        let after = |n, code| FetchOutcome {
            redirects: n,
            ..status(code)
        };
        check(&[
            ("1 then 200", after(1, 200), [PARSE; 6]),
            ("5 then 200", after(5, 200), [PARSE; 6]),
            ("6 then 200", after(6, 200), [A, A, A, A, PARSE, A]),
            ("10 then 200", after(10, 200), [A, A, A, A, PARSE, A]),
            ("5 then 404", after(5, 404), [A; 6]),
            ("5 then 503", after(5, 503), [D, D, D, A, R, R]),
            ("6 then 503", after(6, 503), [A, A, A, A, R, A]),
        ]);
    }

    #[test]
    fn retry_after_sets_when() {
        let minute = Duration::from_secs(60);
        let outcome = FetchOutcome {
            retry_after: Some(minute),
            ..status(503)
        };
        let strict = AvailabilityPolicy::STRICT.decide(&outcome);
        assert_eq!(strict.availability, Availability::RetryLater(minute));
        assert_eq!(strict.refetch_after, minute);
        let rfc = AvailabilityPolicy::RFC9309.decide(&outcome);
        assert_eq!(rfc.availability, Availability::FullDisallow);
        assert_eq!(rfc.refetch_after, minute);
        // A final answer is kept for the cache time, Retry-After or not.
        let gone = AvailabilityPolicy::RFC9309.decide(&FetchOutcome {
            retry_after: Some(minute),
            ..status(404)
        });
        assert_eq!(gone.refetch_after, DAY);
        assert_eq!(
            AvailabilityPolicy::MANDELBOT
                .decide(&status(200))
                .refetch_after,
            Duration::from_secs(48 * 3600)
        );
    }

    #[test]
    fn outages() {
        let hours = |h: u64| Duration::from_secs(h * 3600);
        let days = |d: u64| hours(d * 24);
        let down = |since, cached: Option<Duration>, site| FetchOutcome {
            since_success: Some(since),
            cached,
            site_available: site,
            ..status(503)
        };
        let some = Some(days(1));
        check(&[
            (
                "1 h, cached",
                down(hours(1), some, None),
                [D, D, D, A, R, R],
            ),
            (
                "13 h, cached",
                down(hours(13), some, None),
                [D, C, D, A, R, R],
            ),
            (
                "13 h, no copy",
                down(hours(13), None, None),
                [D, D, D, A, R, R],
            ),
            (
                "29 d, cached",
                down(days(29), some, None),
                [D, C, D, A, R, R],
            ),
            (
                "30 d, cached",
                down(days(30), some, None),
                [C, A, C, A, R, R],
            ),
            (
                "30 d, no copy",
                down(days(30), None, None),
                [A, A, A, A, R, R],
            ),
            (
                "31 d, site down",
                down(days(31), some, Some(false)),
                [C, D, C, A, R, R],
            ),
            (
                "31 d, site up",
                down(days(31), None, Some(true)),
                [A, A, A, A, R, R],
            ),
        ]);
        // Never fetched before: the outage starts now.
        let never = FetchOutcome {
            cached: some,
            ..status(500)
        };
        check(&[("never fetched", never, [D, D, D, A, R, R])]);
        // Network errors and Google's 429 take the same path.
        let net = FetchOutcome {
            since_success: Some(days(40)),
            ..FetchOutcome::new(FetchResult::NetworkError)
        };
        check(&[("network, 40 d", net, [A, A, A, A, R, R])]);
        let slow_down = FetchOutcome {
            since_success: Some(hours(20)),
            cached: some,
            ..status(429)
        };
        check(&[("429, 20 h", slow_down, [A, C, A, A, A, A])]);
    }

    #[test]
    fn missing_paths_answering_5xx_read_as_404() {
        let broken = FetchOutcome {
            missing_path_status: Some(500),
            ..status(503)
        };
        check(&[("5xx everywhere", broken, [D, A, D, A, R, A])]);
        let healthy = FetchOutcome {
            missing_path_status: Some(404),
            ..status(503)
        };
        check(&[("5xx on robots.txt only", healthy, [D, D, D, A, R, R])]);
        let reason = AvailabilityPolicy::MANDELBOT.decide(&broken).reason;
        assert_eq!(
            reason.cause,
            Cause::MissingAlso5xx {
                status: 503,
                probe: 500
            }
        );
        assert_eq!(
            reason.to_string(),
            "503 Service Unavailable, and 500 for a path that does not exist; \
             Mandelbot: a site that answers 5xx for missing files has its 5xx read as a 404"
        );
    }

    #[test]
    fn not_modified_uses_the_cache() {
        let fresh = FetchOutcome {
            cached: Some(Duration::from_secs(60)),
            ..status(304)
        };
        check(&[("304 with a copy", fresh, [C; 6])]);
    }

    #[test]
    fn body_size() {
        let kib500 = 500 * 1024;
        let body = |bytes, truncated, full| FetchOutcome {
            body_bytes: bytes,
            truncated,
            full_length: full,
            ..status(200)
        };
        check(&[
            ("exactly 500 KiB", body(kib500, false, None), [PARSE; 6]),
            (
                "cut at 500 KiB",
                body(kib500, true, None),
                [PARSE, PARSE, PARSE, A, PARSE, PARSE],
            ),
            (
                "cut at 1 KiB of 600 KiB",
                body(1024, true, Some(600 * 1024)),
                [PARSE, PARSE, PARSE, A, PARSE, PARSE],
            ),
            (
                "cut at 1 KiB, length unknown",
                body(1024, true, None),
                [PARSE; 6],
            ),
            (
                "600 KiB kept",
                body(600 * 1024, false, None),
                [PARSE, PARSE, PARSE, A, PARSE, PARSE],
            ),
        ]);
        let google = AvailabilityPolicy::GOOGLE.decide(&body(kib500, true, None));
        assert!(matches!(google.reason.cause, Cause::Oversize { .. }));
    }

    #[test]
    fn every_profile_has_its_policy() {
        for profile in Profile::ALL {
            assert_eq!(AvailabilityPolicy::for_profile(profile).name, profile.name);
        }
        let own = Profile {
            name: "mine",
            ..Profile::GOOGLE
        };
        assert_eq!(
            AvailabilityPolicy::for_profile(&own),
            &AvailabilityPolicy::RFC9309
        );
        assert_eq!(
            AvailabilityPolicy::by_name("MandelBot"),
            Some(&AvailabilityPolicy::MANDELBOT)
        );
        assert_eq!(
            AvailabilityPolicy::BING.outage,
            AvailabilityPolicy::RFC9309.outage
        );
    }

    #[test]
    fn policies_are_well_formed() {
        for policy in P {
            assert!(
                policy.outage.windows(2).all(|w| w[0].after < w[1].after),
                "{policy}: outage steps sorted"
            );
            assert!(policy.max_redirects >= 5, "{policy}: RFC 9309 asks for 5");
            assert!(policy.max_redirects <= FetchLimits::CHECKER.max_redirects);
            assert!(policy.cache_for >= DAY, "{policy}");
        }
        assert!(AvailabilityPolicy::RFC9309.is_fresh(Duration::from_secs(3600)));
        assert!(!AvailabilityPolicy::RFC9309.is_fresh(DAY));
        assert!(AvailabilityPolicy::MANDELBOT.is_fresh(DAY));
    }

    #[test]
    fn reasons_name_the_cause_and_the_rule() {
        let d = AvailabilityPolicy::STRICT.decide(&status(403));
        assert_eq!(
            d.reason.to_string(),
            "403 Forbidden; 1997 draft §3.1: 401 or 403 means access to the site is completely restricted"
        );
        let d = AvailabilityPolicy::GOOGLE.decide(&FetchOutcome {
            since_success: Some(Duration::from_secs(13 * 3600)),
            cached: Some(DAY),
            ..status(500)
        });
        assert_eq!(d.availability, Availability::UseCached);
        assert!(
            d.reason.to_string().contains("after 12 hours"),
            "{}",
            d.reason
        );
        assert_eq!(
            Availability::RetryLater(HOUR).to_string(),
            "retry-later (60 min)"
        );
        assert_eq!(Cause::Status(599).to_string(), "599");
    }

    #[test]
    fn the_body_is_checked_when_some_robot_parses_it() {
        let all = &AvailabilityPolicy::ALL;
        // Only 200 for Yandex; any 2xx for the others.
        assert!(status(204).is_read_by(all));
        assert!(!status(204).is_read_by(&[&AvailabilityPolicy::YANDEX]));
        for code in [301, 404, 429, 500, 503] {
            assert!(!status(code).is_read_by(all), "{code}");
        }
        // A body cut short by a timeout or a broken connection is no
        // robots.txt to anyone, whatever status came before it.
        for result in [FetchResult::Timeout, FetchResult::NetworkError] {
            let cut = FetchOutcome {
                body_bytes: 100,
                truncated: true,
                ..FetchOutcome::new(result)
            };
            assert!(!cut.is_read_by(all), "{result:?}");
        }
        // Over Yandex's limit (which ignores the file), the others parse it.
        let big = FetchOutcome {
            body_bytes: 600 * 1024,
            ..status(200)
        };
        assert!(!AvailabilityPolicy::YANDEX.parses(&big));
        assert!(big.is_read_by(all));
    }
}
