//! Forward-confirmed reverse DNS: the checker, its configuration, its
//! cache and its outcomes (documented on [`FcrdnsChecker`]).

mod cache;
mod outcome;
mod rule;

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hickory_resolver::TokioResolver;
use hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig, ResolverOpts,
};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::{DnsError, NetError};
use hickory_resolver::proto::op::ResponseCode;
use hickory_resolver::proto::rr::{Name, RData, RecordType};
use tokio::sync::Semaphore;

pub use cache::{CacheStats, Clock, ManualClock, SystemClock};
pub use outcome::{DnsFailure, FailReason, Fcrdns, ForwardAnswer, Negative, Query, UnknownReason};
pub use rule::HostRule;

use crate::{Error, normalize};
use cache::TtlCache;

/// At most this many acceptable PTR names of one address are forward
/// checked (their A and AAAA lookups sent at once, within
/// [`DnsConfig::concurrency`]). A PTR answer holds one or two names in
/// practice; the bound keeps an address whose owner publishes thousands from
/// costing thousands of lookups. When more are left and none of those
/// checked confirms, the outcome is [`Fcrdns::Unknown`].
pub const MAX_CANDIDATES: usize = 32;

/// Settings of an [`FcrdnsChecker`].
///
/// Start from [`DnsConfig::default`] (system name servers) or
/// [`DnsConfig::with_nameserver`] and change fields.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DnsConfig {
    /// The name server to ask (UDP, and TCP on the same port for truncated
    /// answers); `None` for the system's (`/etc/resolv.conf`).
    pub nameserver: Option<SocketAddr>,
    /// The longest one lookup (one name, one record type) may take once
    /// sent, retries included. Default 2 s.
    pub timeout: Duration,
    /// How many times a lookup is sent before giving up (network errors,
    /// SERVFAIL, no answer in `timeout / attempts`). Default 2.
    pub attempts: usize,
    /// Most lookups in flight at once. Default 64.
    pub concurrency: usize,
    /// Longest time an answer with records is cached, whatever its TTL.
    /// Default 1 day.
    pub max_ttl: Duration,
    /// Longest time an NXDOMAIN or NODATA answer is cached. Default 5 min.
    pub negative_ttl: Duration,
    /// Time a failed lookup (SERVFAIL, REFUSED, timeout, network error) is
    /// cached; zero for not at all. Default 5 s.
    pub unknown_ttl: Duration,
    /// Most entries in each of the PTR and forward caches (expired ones,
    /// then those closest to expiry, are dropped past it). Default 100,000.
    pub max_entries: usize,
    /// Where cache expiry reads the time. Default [`SystemClock`].
    pub clock: Arc<dyn Clock>,
}

impl Default for DnsConfig {
    fn default() -> Self {
        Self {
            nameserver: None,
            timeout: Duration::from_secs(2),
            attempts: 2,
            concurrency: 64,
            max_ttl: Duration::from_secs(24 * 3600),
            negative_ttl: Duration::from_secs(300),
            unknown_ttl: Duration::from_secs(5),
            max_entries: 100_000,
            clock: Arc::new(SystemClock),
        }
    }
}

impl DnsConfig {
    /// The defaults, asking the given name server.
    pub fn with_nameserver(nameserver: SocketAddr) -> Self {
        Self {
            nameserver: Some(nameserver),
            ..Self::default()
        }
    }
}

/// Checks addresses by forward-confirmed reverse DNS (FCrDNS): does an
/// address belong to the host names a crawler's operator documents? Keeps
/// a cache shared by all its clones. Needs a Tokio runtime (with the time
/// driver) to check.
///
/// The check of an address against a [`HostRule`]:
///
/// 1. PTR lookup of the address (IPv4-mapped IPv6 addresses are looked up as
///    IPv4), keeping all names;
/// 2. the candidate names are those ending with an allowed suffix on a label
///    boundary and, when masks are given, matching a mask;
/// 3. A and AAAA lookups of each candidate, all at once (within the
///    concurrency bound), for at most [`MAX_CANDIDATES`] candidates;
/// 4. confirmed when the address is among the answers.
///
/// A definitive negative answer (NXDOMAIN, NODATA, no acceptable name,
/// forward addresses elsewhere) gives [`Fcrdns::Failed`]; a failed lookup
/// (SERVFAIL, REFUSED, timeout, network error) gives [`Fcrdns::Unknown`],
/// which is never to be read as a failure. When several candidates are
/// checked, one confirmation wins, and otherwise one failed lookup makes the
/// outcome unknown. An address with more candidates than are checked, none
/// of those checked confirming it, is unknown too
/// ([`UnknownReason::Unchecked`]), never failed: a name left unchecked might
/// have confirmed it.
///
/// # Resolver
///
/// Lookups go through `hickory-resolver` over UDP (TCP when the answer is
/// truncated) to the configured name server, or to the system's
/// (`/etc/resolv.conf`), with hickory's own cache and hosts-file lookup off.
/// Hickory answers PTR lookups of `127.0.0.0/8` and `::1` itself
/// (`localhost`) without asking a server.
///
/// # Cache
///
/// One cache serves every caller of a checker (and of its clones): PTR
/// answers keyed by address, A and AAAA answers keyed by name. Each answer is
/// kept for:
///
/// * records: the smallest TTL of the answer, at most
///   [`DnsConfig::max_ttl`] (default one day);
/// * NXDOMAIN and NODATA: the SOA's negative TTL when the server gives one,
///   at most [`DnsConfig::negative_ttl`] (default 5 minutes);
/// * failures (SERVFAIL, REFUSED, timeout, network error):
///   [`DnsConfig::unknown_ttl`] (default 5 seconds, zero for not at all) —
///   long enough that a burst of requests from one address does not hammer
///   a failing resolver, short enough that a recovered one is asked again
///   at once.
///
/// While a lookup is in flight, identical lookups wait for its answer
/// instead of sending their own. At most [`DnsConfig::concurrency`] lookups
/// are in flight at once (others wait for a slot); each may take at most
/// [`DnsConfig::timeout`] once sent, retries included. [`FcrdnsChecker::stats`]
/// counts hits, misses and joins.
///
/// ```no_run
/// # async fn demo() -> Result<(), botwarden_verify::Error> {
/// use botwarden_verify::{DnsConfig, FcrdnsChecker, HostRule};
///
/// let checker = FcrdnsChecker::new(DnsConfig::with_nameserver("127.0.0.1:5353".parse().unwrap()))?;
/// let googlebot = HostRule::new(["googlebot.com", "google.com"], [""; 0])?;
/// let outcome = checker.check("66.249.66.1".parse().unwrap(), &googlebot).await;
/// if !outcome.is_confirmed() {
///     println!("{outcome}");
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct FcrdnsChecker {
    inner: Arc<Inner>,
}

struct Inner {
    resolver: TokioResolver,
    config: DnsConfig,
    slots: Semaphore,
    ptr: TtlCache<IpAddr, Answer<Arc<[PtrName]>>>,
    forward: TtlCache<ForwardKey, Answer<Arc<[IpAddr]>>>,
}

impl fmt::Debug for FcrdnsChecker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FcrdnsChecker")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

/// Counters of the PTR and forward caches of a checker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DnsStats {
    /// PTR lookups, keyed by address.
    pub ptr: CacheStats,
    /// A and AAAA lookups, keyed by name and type.
    pub forward: CacheStats,
}

/// A lookup's answer as cached.
#[derive(Debug, Clone)]
enum Answer<T> {
    Records(T),
    Negative(Negative),
    Failed(DnsFailure),
}

/// A PTR name: its display form, and its lowercase dotted form when it is
/// a plain host name (labels free of dots and non-printable bytes).
#[derive(Debug, Clone)]
struct PtrName {
    name: Name,
    shown: String,
    plain: Option<Arc<str>>,
}

impl PtrName {
    fn new(mut name: Name) -> Self {
        name.set_fqdn(true);
        let plain = name
            .iter()
            .map(|label| {
                let ok = label
                    .iter()
                    .all(|b| b.is_ascii_graphic() && *b != b'.' && *b != b'\\');
                ok.then(|| String::from_utf8_lossy(label).to_ascii_lowercase())
            })
            .collect::<Option<Vec<_>>>()
            .map(|labels| labels.join("."));
        let shown = plain.clone().unwrap_or_else(|| {
            let ascii = name.to_lowercase().to_ascii();
            ascii.strip_suffix('.').map(str::to_owned).unwrap_or(ascii)
        });
        Self {
            name,
            shown,
            plain: plain.map(Arc::from),
        }
    }
}

/// A forward lookup: the plain name and the address family.
type ForwardKey = (Arc<str>, Family);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Family {
    V4,
    V6,
}

impl FcrdnsChecker {
    /// A checker with its own resolver and an empty cache.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidDnsConfig`] for a zero timeout, attempts or
    /// concurrency; [`Error::DnsSetup`] when the system configuration cannot
    /// be read or the resolver cannot be built.
    pub fn new(config: DnsConfig) -> Result<Self, Error> {
        for (field, zero) in [
            ("timeout", config.timeout.is_zero()),
            ("attempts", config.attempts == 0),
            ("concurrency", config.concurrency == 0),
        ] {
            if zero {
                return Err(Error::InvalidDnsConfig {
                    field,
                    reason: "must be greater than zero",
                });
            }
        }
        if config.concurrency > Semaphore::MAX_PERMITS {
            return Err(Error::InvalidDnsConfig {
                field: "concurrency",
                reason: "too large",
            });
        }
        let resolver = build_resolver(&config)?;
        Ok(Self {
            inner: Arc::new(Inner {
                resolver,
                slots: Semaphore::new(config.concurrency),
                ptr: TtlCache::new(config.max_entries),
                forward: TtlCache::new(config.max_entries),
                config,
            }),
        })
    }

    /// The settings.
    pub fn config(&self) -> &DnsConfig {
        &self.inner.config
    }

    /// The cache counters.
    pub fn stats(&self) -> DnsStats {
        DnsStats {
            ptr: self.inner.ptr.stats(),
            forward: self.inner.forward.stats(),
        }
    }

    /// Checks an address (IPv4, IPv6 or IPv4-mapped IPv6) against a rule.
    pub async fn check(&self, ip: IpAddr, rule: &HostRule) -> Fcrdns {
        let ip = normalize(ip);
        let inner = &*self.inner;
        let ptr = inner
            .ptr
            .get_or_fetch(ip, &*inner.config.clock, || {
                inner.fetch(Name::from(ip), RecordType::PTR, |rdata| match rdata {
                    RData::PTR(ptr) => Some(PtrName::new(ptr.0.clone())),
                    _ => None,
                })
            })
            .await;
        let names = match ptr {
            Answer::Records(names) => names,
            Answer::Negative(negative) => {
                return Fcrdns::Failed {
                    reason: FailReason::NoPtr { ip, negative },
                    ptr_names: Vec::new(),
                };
            }
            Answer::Failed(failure) => {
                return Fcrdns::Unknown {
                    reason: UnknownReason::Lookup {
                        query: Query::Ptr(ip),
                        failure,
                    },
                    ptr_names: Vec::new(),
                };
            }
        };
        let ptr_names: Vec<String> = names.iter().map(|n| n.shown.clone()).collect();
        match candidates(&names, rule, &ptr_names) {
            Ok(candidates) => inner.confirm(ip, &candidates, ptr_names).await,
            Err(reason) => Fcrdns::Failed { reason, ptr_names },
        }
    }
}

/// The PTR names to look up forward: those under a suffix `rule` allows
/// that match its masks, each once; or why there is none.
fn candidates<'n>(
    names: &'n [PtrName],
    rule: &HostRule,
    ptr_names: &[String],
) -> Result<Vec<&'n PtrName>, FailReason> {
    let allowed: Vec<&PtrName> = names
        .iter()
        .filter(|n| n.plain.as_deref().is_some_and(|p| rule.allows_suffix(p)))
        .collect();
    if allowed.is_empty() {
        return Err(FailReason::NoAllowedHost {
            names: ptr_names.to_vec(),
            allowed: rule.suffixes().map(str::to_owned).collect(),
        });
    }
    let mut candidates: Vec<&PtrName> = Vec::new();
    for n in &allowed {
        let plain = n.plain.as_deref().unwrap_or_default();
        if rule.matches_mask(plain) && !candidates.iter().any(|c| c.plain == n.plain) {
            candidates.push(n);
        }
    }
    if candidates.is_empty() {
        return Err(FailReason::NoMaskMatch {
            names: allowed.iter().map(|n| n.shown.clone()).collect(),
            masks: rule.masks().map(str::to_owned).collect(),
        });
    }
    Ok(candidates)
}

/// The addresses of `candidate` in both families' answers, and why they
/// are not known in full if a lookup failed (the first failure).
fn forward_addresses(
    candidate: &PtrName,
    v4: Answer<Arc<[IpAddr]>>,
    v6: Answer<Arc<[IpAddr]>>,
) -> (Vec<IpAddr>, Option<UnknownReason>) {
    let mut addresses = Vec::new();
    let mut failed = None;
    for (answer, family) in [(v4, Family::V4), (v6, Family::V6)] {
        match answer {
            Answer::Records(list) => addresses.extend(list.iter().copied()),
            Answer::Negative(_) => {}
            Answer::Failed(failure) => {
                failed.get_or_insert_with(|| UnknownReason::Lookup {
                    query: match family {
                        Family::V4 => Query::A(candidate.shown.clone()),
                        Family::V6 => Query::Aaaa(candidate.shown.clone()),
                    },
                    failure,
                });
            }
        }
    }
    (addresses, failed)
}

impl Inner {
    /// Looks up the addresses of the first [`MAX_CANDIDATES`] candidates:
    /// confirmed when one of them has `ip`, unknown when a lookup failed or
    /// candidates were left unchecked, failed otherwise.
    async fn confirm(&self, ip: IpAddr, candidates: &[&PtrName], ptr_names: Vec<String>) -> Fcrdns {
        let unchecked: Vec<String> = candidates
            .iter()
            .skip(MAX_CANDIDATES)
            .map(|c| c.shown.clone())
            .collect();
        let lookups = candidates.iter().take(MAX_CANDIDATES).map(|&c| async move {
            let (v4, v6) =
                tokio::join!(self.addresses(c, Family::V4), self.addresses(c, Family::V6));
            (c, v4, v6)
        });
        let answers = futures_util::future::join_all(lookups).await;
        let checked = answers.len();
        let mut unknown = None;
        let mut forward = Vec::new();
        for (candidate, v4, v6) in answers {
            let (addresses, failed) = forward_addresses(candidate, v4, v6);
            if addresses.contains(&ip) {
                return Fcrdns::Confirmed {
                    name: candidate.shown.clone(),
                    ptr_names,
                    forward: addresses,
                };
            }
            match failed {
                Some(reason) => {
                    unknown.get_or_insert(reason);
                }
                None => forward.push(ForwardAnswer {
                    name: candidate.shown.clone(),
                    addresses,
                }),
            }
        }
        if unknown.is_none() && !unchecked.is_empty() {
            unknown = Some(UnknownReason::Unchecked {
                checked,
                names: unchecked,
            });
        }
        match unknown {
            Some(reason) => Fcrdns::Unknown { reason, ptr_names },
            None => Fcrdns::Failed {
                reason: FailReason::NotConfirmed { ip, forward },
                ptr_names,
            },
        }
    }

    /// The A or AAAA addresses of a name, cached.
    async fn addresses(&self, name: &PtrName, family: Family) -> Answer<Arc<[IpAddr]>> {
        let key = (name.plain.clone().unwrap_or_else(|| Arc::from("")), family);
        self.forward
            .get_or_fetch(key, &*self.config.clock, || {
                let rtype = match family {
                    Family::V4 => RecordType::A,
                    Family::V6 => RecordType::AAAA,
                };
                self.fetch(name.name.clone(), rtype, move |rdata| {
                    match (rdata, family) {
                        (RData::A(a), Family::V4) => Some(IpAddr::V4(a.0)),
                        (RData::AAAA(aaaa), Family::V6) => Some(normalize(IpAddr::V6(aaaa.0))),
                        _ => None,
                    }
                })
            })
            .await
    }

    /// One lookup, within a concurrency slot and the timeout: the records
    /// `pick` keeps, and how long the answer may be cached.
    async fn fetch<T>(
        &self,
        name: Name,
        rtype: RecordType,
        pick: impl Fn(&RData) -> Option<T>,
    ) -> (Answer<Arc<[T]>>, Duration) {
        let config = &self.config;
        let failed = |failure| (Answer::Failed(failure), config.unknown_ttl);
        let Ok(_slot) = self.slots.acquire().await else {
            return failed(DnsFailure::Other("the checker is shut down".to_owned()));
        };
        let lookup =
            match tokio::time::timeout(config.timeout, self.resolver.lookup(name, rtype)).await {
                Err(_) => return failed(DnsFailure::Timeout(config.timeout)),
                Ok(Err(e)) => return self.classify(e),
                Ok(Ok(lookup)) => lookup,
            };
        let records: Arc<[T]> = lookup
            .answers()
            .iter()
            .filter(|r| r.record_type() == rtype)
            .filter_map(|r| pick(&r.data))
            .collect();
        if records.is_empty() {
            return (Answer::Negative(Negative::NoData), config.negative_ttl);
        }
        let ttl = lookup
            .answers()
            .iter()
            .filter(|r| r.record_type() == rtype || r.record_type() == RecordType::CNAME)
            .map(|r| r.ttl)
            .min()
            .unwrap_or(0);
        (
            Answer::Records(records),
            Duration::from_secs(ttl.into()).min(config.max_ttl),
        )
    }

    /// The cached form of a resolver error.
    fn classify<T>(&self, error: NetError) -> (Answer<T>, Duration) {
        let config = &self.config;
        let failure = match error {
            NetError::Dns(DnsError::NoRecordsFound(no)) => {
                let negative = match no.response_code {
                    ResponseCode::NXDomain => Some(Negative::NxDomain),
                    ResponseCode::NoError => Some(Negative::NoData),
                    _ => None,
                };
                if let Some(negative) = negative {
                    let ttl = no
                        .negative_ttl
                        .map_or(config.negative_ttl, |s| Duration::from_secs(s.into()))
                        .min(config.negative_ttl);
                    return (Answer::Negative(negative), ttl);
                }
                DnsFailure::ResponseCode(no.response_code.to_string())
            }
            NetError::Dns(DnsError::ResponseCode(ResponseCode::ServFail)) => DnsFailure::ServFail,
            NetError::Dns(DnsError::ResponseCode(ResponseCode::Refused)) => DnsFailure::Refused,
            NetError::Dns(DnsError::ResponseCode(code)) => {
                DnsFailure::ResponseCode(code.to_string())
            }
            NetError::Timeout => DnsFailure::Timeout(config.timeout),
            NetError::Io(e) => DnsFailure::Io(e.to_string()),
            other => DnsFailure::Other(other.to_string()),
        };
        (Answer::Failed(failure), config.unknown_ttl)
    }
}

/// A hickory resolver for the configured or system name servers, its cache
/// and hosts file off, one attempt taking `timeout / attempts`.
fn build_resolver(config: &DnsConfig) -> Result<TokioResolver, Error> {
    let (servers, mut opts) = match config.nameserver {
        Some(addr) => {
            let mut udp = ConnectionConfig::udp();
            udp.port = addr.port();
            let mut tcp = ConnectionConfig::tcp();
            tcp.port = addr.port();
            let server = NameServerConfig::new(addr.ip(), true, vec![udp, tcp]);
            (
                ResolverConfig::from_name_servers(vec![server]),
                ResolverOpts::default(),
            )
        }
        None => hickory_resolver::system_conf::read_system_conf().map_err(|e| Error::DnsSetup {
            reason: format!("reading the system DNS configuration: {e}"),
        })?,
    };
    opts.cache_size = 0;
    opts.use_hosts_file = ResolveHosts::Never;
    opts.attempts = config.attempts - 1;
    let attempts = u32::try_from(config.attempts).unwrap_or(u32::MAX);
    opts.timeout = (config.timeout / attempts).max(Duration::from_millis(1));
    opts.max_active_requests = opts.max_active_requests.max(config.concurrency);
    opts.preserve_intermediates = true;
    TokioResolver::builder_with_config(servers, TokioRuntimeProvider::default())
        .with_options(opts)
        .build()
        .map_err(|e| Error::DnsSetup {
            reason: format!("building the resolver: {e}"),
        })
}
