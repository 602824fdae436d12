//! The fetcher: one GET with every redirect hop recorded, a size limit on
//! the decoded body, a time limit on the whole, and no private addresses.

use std::collections::HashSet;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use botwarden_robots::{FetchLimits, FetchOutcome, FetchResult};
use botwarden_verify::{RequestParts, Signer};
use hickory_resolver::TokioResolver;
use hickory_resolver::config::{
    ConnectionConfig, NameServerConfig, ResolveHosts, ResolverConfig, ResolverOpts,
};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{self, HeaderMap};
use url::Url;

use crate::address::{AddressKind, restricted_kind};
use crate::body::{self, BodyDecoder, Bom, Coding, Encoding, Feed};
use crate::error::Error;

/// The `User-Agent` sent unless another is set.
pub const USER_AGENT: &str = concat!("botwarden/", env!("CARGO_PKG_VERSION"));

/// Sets up a [`Fetcher`].
///
/// The defaults are [`FetchLimits::CHECKER`] (10 redirects, a warning after
/// 5; 10 s, a warning after 5 s; 500 KiB of body), [`USER_AGENT`], and no
/// private addresses.
#[derive(Debug, Clone)]
pub struct FetcherBuilder {
    limits: FetchLimits,
    allow_private: bool,
    user_agent: String,
    nameserver: Option<SocketAddr>,
    connections: Connections,
    /// Certificate authorities trusted beside the built-in ones: where
    /// each bundle came from (for messages), and its PEM text.
    roots: Vec<(String, Vec<u8>)>,
    /// Signs every request (Web Bot Auth) when set.
    signer: Option<Arc<Signer>>,
}

/// How the fetcher uses connections.
#[derive(Debug, Clone, Copy, Default)]
struct Connections {
    /// A new connection for every request (none kept for reuse).
    fresh: bool,
    /// HTTP/2 without negotiation on `http` URLs (h2c with prior knowledge).
    h2c: bool,
}

impl Default for FetcherBuilder {
    fn default() -> Self {
        FetcherBuilder::new()
    }
}

impl FetcherBuilder {
    /// The defaults.
    #[must_use]
    pub fn new() -> FetcherBuilder {
        FetcherBuilder {
            limits: FetchLimits::CHECKER,
            allow_private: false,
            user_agent: USER_AGENT.to_owned(),
            nameserver: None,
            connections: Connections::default(),
            roots: Vec::new(),
            signer: None,
        }
    }

    /// Signs every request with this Web Bot Auth signer (HTTP Message
    /// Signatures over `@authority`, and `Signature-Agent` when the signer
    /// names its agent): robots.txt, pages, sitemaps and every redirect
    /// hop, each with a fresh nonce and the time of sending.
    #[must_use]
    pub fn signer(mut self, signer: Option<Arc<Signer>>) -> FetcherBuilder {
        self.signer = signer;
        self
    }

    /// All limits at once.
    #[must_use]
    pub fn limits(mut self, limits: FetchLimits) -> FetcherBuilder {
        self.limits = limits;
        self
    }

    /// Redirects followed; one more ends the fetch as too many redirects.
    #[must_use]
    pub fn max_redirects(mut self, n: u32) -> FetcherBuilder {
        self.limits.max_redirects = n;
        self
    }

    /// A warning when more redirects than this were followed.
    #[must_use]
    pub fn warn_redirects(mut self, n: u32) -> FetcherBuilder {
        self.limits.warn_redirects = n;
        self
    }

    /// Bytes of decoded body kept; the rest is not read.
    #[must_use]
    pub fn max_bytes(mut self, n: usize) -> FetcherBuilder {
        self.limits.max_bytes = n;
        self
    }

    /// Time for the whole fetch, redirects and body included.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> FetcherBuilder {
        self.limits.timeout = timeout;
        self
    }

    /// A warning when the fetch took longer than this.
    #[must_use]
    pub fn warn_after(mut self, after: Duration) -> FetcherBuilder {
        self.limits.warn_after = after;
        self
    }

    /// Whether loopback, private and other restricted addresses
    /// ([`restricted_kind`]) may be fetched. Off by default: a URL a user
    /// names must not reach the machine or its network.
    #[must_use]
    pub fn allow_private(mut self, allow: bool) -> FetcherBuilder {
        self.allow_private = allow;
        self
    }

    /// The `User-Agent` header.
    #[must_use]
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> FetcherBuilder {
        self.user_agent = user_agent.into();
        self
    }

    /// The name server that resolves host names (UDP, then TCP), instead of
    /// the system's (`/etc/resolv.conf` and `/etc/hosts`).
    #[must_use]
    pub fn nameserver(mut self, addr: Option<SocketAddr>) -> FetcherBuilder {
        self.nameserver = addr;
        self
    }

    /// Whether every request opens a new connection (none is kept for
    /// reuse), so that the timings of requests compare: each includes the
    /// lookup and the TCP and TLS handshakes. Off by default: connections
    /// are reused.
    #[must_use]
    pub fn fresh_connections(mut self, fresh: bool) -> FetcherBuilder {
        self.connections.fresh = fresh;
        self
    }

    /// Whether to speak HTTP/2 from the first byte, without negotiation
    /// (h2c with prior knowledge): for servers known to take it on plain
    /// `http`; a server that does not cannot answer. Off by default: HTTP/2
    /// is used when a TLS server offers it (ALPN), HTTP/1.1 otherwise.
    #[must_use]
    pub fn http2_prior_knowledge(mut self, on: bool) -> FetcherBuilder {
        self.connections.h2c = on;
        self
    }

    /// Also trusts the certificate authorities of a PEM bundle, beside the
    /// built-in roots (Mozilla's, through `webpki-roots`): for a site
    /// whose certificate an internal authority signed, such as a staging
    /// server. `input` names the bundle in messages (its path).
    ///
    /// [`build`](FetcherBuilder::build) fails when the bundle holds no
    /// certificate or one that cannot be read.
    #[must_use]
    pub fn trust_pem(mut self, input: impl Into<String>, pem: Vec<u8>) -> FetcherBuilder {
        self.roots.push((input.into(), pem));
        self
    }

    /// The fetcher.
    ///
    /// Must be called inside a Tokio runtime when a name server is set.
    pub fn build(&self) -> Result<Fetcher, Error> {
        let guard = Guard {
            allow_private: self.allow_private,
            #[cfg(test)]
            only: None,
        };
        let lookup = Lookup::new(self.nameserver, self.limits.timeout)?;
        let mut roots = Vec::new();
        for (input, pem) in &self.roots {
            let bundle =
                reqwest::Certificate::from_pem_bundle(pem).map_err(|e| Error::Certificates {
                    input: input.clone(),
                    message: chain(&e),
                })?;
            if bundle.is_empty() {
                return Err(Error::Certificates {
                    input: input.clone(),
                    message: "no PEM certificate in it".to_owned(),
                });
            }
            roots.extend(bundle);
        }
        Fetcher::with_guard(
            self.limits,
            guard,
            lookup,
            &self.user_agent,
            self.connections,
            roots,
        )
        .map(|mut f| {
            f.signer.clone_from(&self.signer);
            f
        })
    }
}

/// Which addresses may be connected to.
#[derive(Debug, Clone, Copy)]
struct Guard {
    allow_private: bool,
    /// Tests: this one restricted address is allowed, no other.
    #[cfg(test)]
    only: Option<IpAddr>,
}

impl Guard {
    fn refuses(self, ip: IpAddr) -> Option<AddressKind> {
        #[cfg(test)]
        if self.only == Some(ip) {
            return None;
        }
        if self.allow_private {
            return None;
        }
        restricted_kind(ip)
    }
}

/// How host names become addresses.
///
/// hickory's asynchronous resolver, so that a lookup ends when the fetch's
/// time is up and leaves no thread behind (the system's `getaddrinfo` runs
/// on a blocking thread that nothing can stop, and a process waits for it
/// at exit). The system's resolver only when its configuration cannot be
/// read.
#[derive(Clone)]
enum Lookup {
    Hickory(Arc<TokioResolver>),
    System,
}

impl fmt::Debug for Lookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lookup::Hickory(_) => "Lookup::Hickory",
            Lookup::System => "Lookup::System",
        })
    }
}

impl Lookup {
    fn new(nameserver: Option<SocketAddr>, timeout: Duration) -> Result<Lookup, Error> {
        let (config, mut opts) = match nameserver {
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
            None => match hickory_resolver::system_conf::read_system_conf() {
                Ok((config, mut opts)) => {
                    opts.use_hosts_file = ResolveHosts::Always;
                    (config, opts)
                }
                Err(_) => return Ok(Lookup::System),
            },
        };
        opts.timeout = opts.timeout.min(timeout).max(Duration::from_millis(1));
        let resolver = TokioResolver::builder_with_config(config, TokioRuntimeProvider::default())
            .with_options(opts)
            .build()
            .map_err(|e| Error::Client {
                message: format!("cannot set up name resolution: {e}"),
            })?;
        Ok(Lookup::Hickory(Arc::new(resolver)))
    }

    async fn addresses(&self, host: &str) -> Result<Vec<SocketAddr>, BoxError> {
        match self {
            Lookup::Hickory(resolver) => {
                let lookup = resolver.lookup_ip(host).await?;
                Ok(lookup.iter().map(|ip| SocketAddr::new(ip, 0)).collect())
            }
            Lookup::System => Ok(tokio::net::lookup_host((host, 0)).await?.collect()),
        }
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Resolves names, refuses restricted addresses, and hands the addresses it
/// checked to the connection: what was checked is what is connected to, so
/// a second DNS answer cannot switch the address.
#[derive(Debug)]
pub(crate) struct GuardedResolver {
    guard: Guard,
    lookup: Lookup,
}

/// The resolver's refusal, found again in the client's error chain.
#[derive(Debug)]
struct RefusedAddress {
    host: String,
    addr: IpAddr,
    kind: AddressKind,
}

impl fmt::Display for RefusedAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is {}, {} {} address",
            self.host,
            self.addr,
            self.kind.article(),
            self.kind
        )
    }
}

impl std::error::Error for RefusedAddress {}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.guard;
        let lookup = self.lookup.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs = crate::timing::lookup(lookup.addresses(&host)).await?;
            let refused = addrs
                .iter()
                .find_map(|a| guard.refuses(a.ip()).map(|kind| (a.ip(), kind)));
            if let Some((addr, kind)) = refused {
                return Err(RefusedAddress { host, addr, kind }.into());
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// Fetches URLs: one GET per hop, redirects followed by hand so that each is
/// recorded and checked.
///
/// Cheap to clone; clones share connections.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    limits: FetchLimits,
    guard: Guard,
    signer: Option<Arc<Signer>>,
    /// The client that reads servers' certificates, made when first asked.
    certs: Arc<crate::certificate::CertClient>,
}

impl Fetcher {
    /// The client that reads servers' certificates.
    pub(crate) fn certs(&self) -> &crate::certificate::CertClient {
        &self.certs
    }

    /// A [`FetcherBuilder`] with the defaults.
    #[must_use]
    pub fn builder() -> FetcherBuilder {
        FetcherBuilder::new()
    }

    fn with_guard(
        limits: FetchLimits,
        guard: Guard,
        lookup: Lookup,
        user_agent: &str,
        connections: Connections,
        roots: Vec<reqwest::Certificate>,
    ) -> Result<Fetcher, Error> {
        let lookup_for_certs = lookup.clone();
        let mut builder = reqwest::Client::builder()
            .user_agent(user_agent)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .use_rustls_tls()
            .dns_resolver(Arc::new(GuardedResolver { guard, lookup }))
            .pool_idle_timeout(Duration::from_secs(30))
            .connector_layer(crate::timing::TimeConnect);
        if connections.fresh {
            // No idle connection is kept: each request opens its own.
            builder = builder.pool_max_idle_per_host(0);
        }
        if connections.h2c {
            builder = builder.http2_prior_knowledge();
        }
        let certs = crate::certificate::CertClient::new(
            user_agent,
            roots.clone(),
            GuardedResolver {
                guard,
                lookup: lookup_for_certs,
            },
            limits.timeout,
        );
        for root in roots {
            builder = builder.add_root_certificate(root);
        }
        let client = builder
            .build()
            .map_err(|e| Error::Client { message: chain(&e) })?;
        Ok(Fetcher {
            client,
            limits,
            guard,
            signer: None,
            certs: Arc::new(certs),
        })
    }

    /// Whether loopback and private addresses may be fetched (tests,
    /// staging networks).
    #[must_use]
    pub fn allows_private(&self) -> bool {
        self.guard.allow_private
    }

    /// The limits this fetcher applies.
    #[must_use]
    pub fn limits(&self) -> &FetchLimits {
        &self.limits
    }

    /// The HTTP client, with the address guard in its resolver.
    #[must_use]
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Whether requests are signed, and with which key (its `keyid`).
    #[must_use]
    pub fn signing_keyid(&self) -> Option<&str> {
        self.signer.as_deref().map(Signer::keyid)
    }

    /// A GET of `url`, signed when the fetcher has a signer.
    pub(crate) fn get(&self, url: &Url) -> Result<reqwest::RequestBuilder, Error> {
        self.request(reqwest::Method::GET, url)
    }

    /// A request of `url` with `method` (redirects not followed), signed
    /// (Web Bot Auth) when the fetcher has a signer: what the crawler's
    /// checks of other URLs send (external links, resources).
    ///
    /// # Errors
    /// [`Error::Signing`] when the signer cannot sign it.
    pub fn request(
        &self,
        method: reqwest::Method,
        url: &Url,
    ) -> Result<reqwest::RequestBuilder, Error> {
        self.signed(method, url, &self.client)
    }

    /// A request of `url` with `method` on `client`, signed when the
    /// fetcher has a signer.
    pub(crate) fn signed(
        &self,
        method: reqwest::Method,
        url: &Url,
        client: &reqwest::Client,
    ) -> Result<reqwest::RequestBuilder, Error> {
        let name = method.as_str().to_owned();
        let request = client.request(method, url.clone());
        let Some(signer) = &self.signer else {
            return Ok(request);
        };
        let host = url.host_str().unwrap_or_default();
        let authority = match url.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_owned(),
        };
        let target = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_owned(),
        };
        let parts = RequestParts::new(&name, &authority, &target).scheme(url.scheme());
        let headers = signer
            .sign(&parts, SystemTime::now())
            .map_err(|e| Error::Signing {
                url: url.to_string(),
                message: e.to_string(),
            })?;
        Ok(headers
            .fields()
            .into_iter()
            .fold(request, |r, (name, value)| r.header(name, value)))
    }

    /// Fetches `url` (absolute, `http` or `https`).
    ///
    /// Errors only when nothing could be sent: the URL is not one, its scheme
    /// is not HTTP, or its host is a refused address. Everything that
    /// happens once a request is on its way, failures included, is in the
    /// [`FetchReport`].
    pub async fn fetch(&self, url: &str) -> Result<FetchReport, Error> {
        let url = parse_url(url)?;
        self.fetch_url(url).await
    }

    /// [`Fetcher::fetch`] for a parsed URL.
    pub async fn fetch_url(&self, url: Url) -> Result<FetchReport, Error> {
        self.fetch_within(url, self.limits.timeout).await
    }

    /// [`Fetcher::fetch_url`] in `limit` instead of the configured time: what
    /// is left of a budget shared with earlier requests.
    pub(crate) async fn fetch_within(
        &self,
        url: Url,
        limit: Duration,
    ) -> Result<FetchReport, Error> {
        let url = without_fragment(url);
        check_scheme(&url)?;
        self.check_literal(&url)?;
        let mut run = Run::new(url);
        match tokio::time::timeout(limit, self.run(&mut run)).await {
            Ok(Ok(())) => {}
            // A refusal before anything was sent is the caller's error.
            Ok(Err((_, error @ Error::Refused { .. })))
                if run.hops.len() == 1 && run.hops[0].status.is_none() =>
            {
                return Err(error);
            }
            Ok(Err((result, error))) => run.fail(result, error),
            Err(_) => {
                let url = run.current().to_string();
                run.fail(
                    FetchResult::Timeout,
                    Error::Timeout {
                        url,
                        timeout: limit,
                    },
                );
            }
        }
        Ok(run.finish(&self.limits))
    }

    /// Refuses a URL whose host is a restricted IP address literal (names
    /// are checked by the resolver).
    /// [`Error::Refused`] names the address and why.
    pub fn check_literal(&self, url: &Url) -> Result<(), Error> {
        let ip = match url.host() {
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip),
            _ => return Ok(()),
        };
        match self.guard.refuses(ip) {
            Some(kind) => Err(Error::Refused {
                url: url.to_string(),
                host: url.host_str().unwrap_or_default().to_owned(),
                addr: ip,
                kind,
            }),
            None => Ok(()),
        }
    }

    /// Requests hop after hop; leaves what it learnt in `run`.
    async fn run(&self, run: &mut Run) -> Result<(), (FetchResult, Error)> {
        loop {
            let url = run.current().clone();
            run.start_hop(url.clone());
            self.check_literal(&url)
                .map_err(|e| (FetchResult::NetworkError, e))?;
            let response = self
                .get(&url)
                .map_err(|e| (FetchResult::NetworkError, e))?
                .header(header::ACCEPT, "text/plain, */*;q=0.5")
                .header(header::ACCEPT_ENCODING, "gzip, deflate, br")
                .send()
                .await
                .map_err(|e| (FetchResult::NetworkError, send_error(&url, &e)))?;
            let status = response.status().as_u16();
            let location = header_str(response.headers(), header::LOCATION);
            run.end_hop(status, location.clone());
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                match location.as_deref().and_then(|l| url.join(l).ok()) {
                    Some(next) if matches!(next.scheme(), "http" | "https") => {
                        let next = without_fragment(next);
                        if url.scheme() == "https" && next.scheme() == "http" {
                            run.warnings.push(Warning::InsecureRedirect {
                                to: next.to_string(),
                            });
                        }
                        if run.redirects >= self.limits.max_redirects {
                            return Err((
                                FetchResult::TooManyRedirects,
                                Error::TooManyRedirects {
                                    url: url.to_string(),
                                    max: self.limits.max_redirects,
                                },
                            ));
                        }
                        if !run.visited.insert(next.to_string()) {
                            return Err((
                                FetchResult::RedirectLoop,
                                Error::RedirectLoop {
                                    url: url.to_string(),
                                    to: next.to_string(),
                                },
                            ));
                        }
                        run.redirects += 1;
                        run.next = Some(next);
                        continue;
                    }
                    _ => run
                        .warnings
                        .push(Warning::RedirectWithoutLocation { status }),
                }
            }
            return self.read(run, response).await;
        }
    }

    /// Reads the final response: headers, then the body up to the limit.
    async fn read(
        &self,
        run: &mut Run,
        mut response: reqwest::Response,
    ) -> Result<(), (FetchResult, Error)> {
        let headers = response.headers();
        run.status = Some(response.status().as_u16());
        run.content_type = header_str(headers, header::CONTENT_TYPE);
        run.content_encoding = header_str(headers, header::CONTENT_ENCODING);
        run.content_length =
            header_str(headers, header::CONTENT_LENGTH).and_then(|v| v.trim().parse().ok());
        run.retry_after = header_str(headers, header::RETRY_AFTER)
            .map(|raw| RetryAfter::parse(&raw, SystemTime::now()));
        run.caching = CacheHeaders {
            cache_control: header_str(headers, header::CACHE_CONTROL),
            expires: header_str(headers, header::EXPIRES),
            date: header_str(headers, header::DATE),
            age: header_str(headers, header::AGE),
        };
        let coding = Coding::of(run.content_encoding.as_deref());
        if let Coding::Unsupported(coding) = &coding {
            run.warnings.push(Warning::UnsupportedEncoding {
                coding: coding.clone(),
            });
        }
        let url = run.current().to_string();
        let decoder = run
            .body
            .insert(BodyDecoder::new(&coding, self.limits.max_bytes, None));
        let decode_error = |message| {
            (
                FetchResult::NetworkError,
                Error::Decode {
                    url: url.clone(),
                    coding: coding.to_string(),
                    message,
                },
            )
        };
        loop {
            let chunk = response.chunk().await.map_err(|e| {
                (
                    FetchResult::NetworkError,
                    Error::Network {
                        url: url.clone(),
                        message: format!("reading the body: {}", chain(&e)),
                    },
                )
            })?;
            let Some(chunk) = chunk else {
                return decoder.finish().map_err(decode_error);
            };
            if decoder.push(&chunk).map_err(decode_error)? == Feed::Full {
                return Ok(());
            }
        }
    }
}

/// What a fetch is learning as it goes; what is left when time runs out.
#[derive(Debug)]
struct Run {
    started: Instant,
    hop_started: Instant,
    url: Url,
    next: Option<Url>,
    hops: Vec<Hop>,
    redirects: u32,
    visited: HashSet<String>,
    status: Option<u16>,
    content_type: Option<String>,
    content_encoding: Option<String>,
    content_length: Option<u64>,
    retry_after: Option<RetryAfter>,
    caching: CacheHeaders,
    body: Option<BodyDecoder>,
    result: Option<FetchResult>,
    error: Option<Error>,
    warnings: Vec<Warning>,
}

impl Run {
    fn new(url: Url) -> Run {
        let now = Instant::now();
        Run {
            started: now,
            hop_started: now,
            visited: HashSet::from([url.to_string()]),
            url,
            next: None,
            hops: Vec::new(),
            redirects: 0,
            status: None,
            content_type: None,
            content_encoding: None,
            content_length: None,
            retry_after: None,
            caching: CacheHeaders::default(),
            body: None,
            result: None,
            error: None,
            warnings: Vec::new(),
        }
    }

    /// The URL being requested (or last requested).
    fn current(&self) -> &Url {
        self.next.as_ref().unwrap_or(&self.url)
    }

    fn start_hop(&mut self, url: Url) {
        self.hop_started = Instant::now();
        self.hops.push(Hop {
            url,
            status: None,
            elapsed: Duration::ZERO,
            location: None,
        });
    }

    fn end_hop(&mut self, status: u16, location: Option<String>) {
        let elapsed = self.hop_started.elapsed();
        if let Some(hop) = self.hops.last_mut() {
            hop.status = Some(status);
            hop.elapsed = elapsed;
            hop.location = location;
        }
    }

    fn fail(&mut self, result: FetchResult, error: Error) {
        if let Some(hop) = self.hops.last_mut().filter(|h| h.status.is_none()) {
            hop.elapsed = self.hop_started.elapsed();
        }
        self.result = Some(result);
        self.error = Some(error);
    }

    fn finish(mut self, limits: &FetchLimits) -> FetchReport {
        let elapsed = self.started.elapsed();
        let (body, truncated, wire) = match self.body.as_mut() {
            Some(d) => {
                let wire = d.wire_bytes();
                let (body, over) = d.take();
                (body, over, wire)
            }
            None => (Vec::new(), false, 0),
        };
        let result = self
            .result
            .or(self.status.map(FetchResult::Status))
            .unwrap_or(FetchResult::NetworkError);
        let (media, charset) = self
            .content_type
            .as_deref()
            .map(body::parse_content_type)
            .unzip();
        let charset = charset.flatten();
        let identity = matches!(
            Coding::of(self.content_encoding.as_deref()),
            Coding::Identity
        );
        let mut report = FetchReport {
            url: self.url,
            hops: self.hops,
            result,
            error: self.error,
            status: self.status,
            content_type: self.content_type,
            charset,
            content_encoding: self.content_encoding,
            content_length: self.content_length,
            full_length: if identity { self.content_length } else { None },
            retry_after: self.retry_after,
            caching: self.caching,
            body,
            truncated,
            wire_bytes: wire,
            elapsed,
            warnings: Vec::new(),
        };
        let mut warnings = Vec::new();
        if self.redirects > limits.warn_redirects {
            warnings.push(Warning::ManyRedirects {
                redirects: self.redirects,
                warn_after: limits.warn_redirects,
            });
        }
        warnings.append(&mut self.warnings);
        if elapsed > limits.warn_after && report.result != FetchResult::Timeout {
            warnings.push(Warning::Slow {
                elapsed,
                warn_after: limits.warn_after,
            });
        }
        if truncated {
            warnings.push(Warning::Truncated {
                kept: report.body.len(),
                full_length: report.full_length,
            });
        }
        if report.status.is_some_and(|s| (200..300).contains(&s)) {
            if let Some(media) = media.filter(|m| m != "text/plain") {
                warnings.push(Warning::NotPlainText { media_type: media });
            }
            if body::looks_like_html(&report.body) {
                warnings.push(Warning::LooksLikeHtml);
            }
            let encoding = report.encoding();
            if !encoding.is_utf8() {
                warnings.push(Warning::NotUtf8 { encoding });
            }
        }
        report.warnings = warnings;
        report
    }
}

/// One request of a fetch: the URL asked for, and what came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// The URL requested.
    pub url: Url,
    /// The status, or `None` when no answer came.
    pub status: Option<u16>,
    /// From sending the request to the response's headers (or to the
    /// failure).
    pub elapsed: Duration,
    /// The `Location` header, as sent.
    pub location: Option<String>,
}

/// A `Retry-After` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryAfter {
    /// The value as sent.
    pub raw: String,
    /// The delay it asks for, from when it was read; `None` when it is
    /// neither a number of seconds nor an HTTP date.
    pub delay: Option<Duration>,
}

impl RetryAfter {
    /// Reads a `Retry-After` value (seconds, or an HTTP date) at `now`. A
    /// date in the past is no delay.
    #[must_use]
    pub fn parse(raw: &str, now: SystemTime) -> RetryAfter {
        let value = raw.trim();
        let delay = if let Ok(secs) = value.parse::<u64>() {
            Some(Duration::from_secs(secs))
        } else {
            httpdate::parse_http_date(value)
                .ok()
                .map(|at| at.duration_since(now).unwrap_or(Duration::ZERO))
        };
        RetryAfter {
            raw: raw.to_owned(),
            delay,
        }
    }
}

/// Something worth knowing about a fetch that did not stop it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// More redirects than robots need follow.
    ManyRedirects {
        /// Redirects followed.
        redirects: u32,
        /// The threshold.
        warn_after: u32,
    },
    /// The fetch was slow.
    Slow {
        /// How long it took.
        elapsed: Duration,
        /// The threshold.
        warn_after: Duration,
    },
    /// The body was longer than the limit and was cut.
    Truncated {
        /// Bytes kept.
        kept: usize,
        /// The full length, when known.
        full_length: Option<u64>,
    },
    /// A redirect status without a usable `Location`: it ended the fetch.
    RedirectWithoutLocation {
        /// The status.
        status: u16,
    },
    /// A redirect from `https` to `http`.
    InsecureRedirect {
        /// Where it led.
        to: String,
    },
    /// A `Content-Encoding` the fetcher does not decode; the body is kept as
    /// it came.
    UnsupportedEncoding {
        /// The coding.
        coding: String,
    },
    /// A successful answer whose media type is not `text/plain`.
    NotPlainText {
        /// The media type.
        media_type: String,
    },
    /// A successful answer whose body looks like an HTML page.
    LooksLikeHtml,
    /// A body that is not UTF-8.
    NotUtf8 {
        /// Its encoding.
        encoding: Encoding,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::ManyRedirects {
                redirects,
                warn_after,
            } => write!(
                f,
                "{redirects} redirects, more than {warn_after}: RFC 9309 asks robots to follow only 5, \
                 and Google reads the file as missing after 5"
            ),
            Warning::Slow {
                elapsed,
                warn_after,
            } => write!(
                f,
                "took {} ms, more than {} ms: robots may give up",
                elapsed.as_millis(),
                warn_after.as_millis()
            ),
            Warning::Truncated { kept, full_length } => match full_length {
                Some(full) => write!(f, "body cut after {kept} of {full} bytes"),
                None => write!(f, "body cut after {kept} bytes (full length unknown)"),
            },
            Warning::RedirectWithoutLocation { status } => {
                write!(f, "{status} redirect without a usable Location header")
            }
            Warning::InsecureRedirect { to } => write!(f, "redirect from https to {to}"),
            Warning::UnsupportedEncoding { coding } => {
                write!(
                    f,
                    "Content-Encoding '{coding}' is not decoded; body kept as sent"
                )
            }
            Warning::NotPlainText { media_type } => write!(
                f,
                "served as {media_type}, not text/plain; robots read it as robots.txt anyway"
            ),
            Warning::LooksLikeHtml => f.write_str(
                "the body looks like an HTML page, not a robots.txt: robots find no rules in it",
            ),
            Warning::NotUtf8 { encoding } => write!(
                f,
                "encoded as {encoding}: robots.txt must be UTF-8 (RFC 9309 §2.3), \
                 robots read other encodings as garbage"
            ),
        }
    }
}

/// The headers that say how long an answer may be cached (RFC 9111), as
/// sent; reading them is the cache's business.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheHeaders {
    /// `Cache-Control`.
    pub cache_control: Option<String>,
    /// `Expires`.
    pub expires: Option<String>,
    /// `Date`.
    pub date: Option<String>,
    /// `Age`.
    pub age: Option<String>,
}

/// What one fetch gave.
#[derive(Debug, Clone)]
pub struct FetchReport {
    /// The URL asked for.
    pub url: Url,
    /// Every request made, in order; the first is `url`.
    pub hops: Vec<Hop>,
    /// How the fetch ended.
    pub result: FetchResult,
    /// What went wrong, when the fetch failed.
    pub error: Option<Error>,
    /// The status of the last answer, if one came.
    pub status: Option<u16>,
    /// The last answer's `Content-Type`, as sent.
    pub content_type: Option<String>,
    /// The `charset` of the `Content-Type`.
    pub charset: Option<String>,
    /// The `Content-Encoding`, as sent.
    pub content_encoding: Option<String>,
    /// The `Content-Length`, as sent (compressed bytes when compressed).
    pub content_length: Option<u64>,
    /// The full length of the decoded body when known: the `Content-Length`
    /// of a body sent without compression.
    pub full_length: Option<u64>,
    /// The `Retry-After` of the last answer.
    pub retry_after: Option<RetryAfter>,
    /// The caching headers of the last answer, as sent.
    pub caching: CacheHeaders,
    /// The decoded body, at most the fetcher's `max_bytes`.
    pub body: Vec<u8>,
    /// Whether the body was longer than `body`.
    pub truncated: bool,
    /// Bytes of body received, before decoding.
    pub wire_bytes: u64,
    /// Time of the whole fetch.
    pub elapsed: Duration,
    /// What is worth knowing.
    pub warnings: Vec<Warning>,
}

impl FetchReport {
    /// The last URL requested.
    #[must_use]
    pub fn final_url(&self) -> &Url {
        self.hops.last().map_or(&self.url, |h| &h.url)
    }

    /// Where the URL asked for has moved for good: the URL that the run of
    /// permanent redirects (`301`, `308`) it starts with leads to, and the
    /// first of their statuses; `None` when the first answer is no
    /// permanent redirect. A temporary redirect (`302`, `303`, `307`) ends
    /// the run: what follows it may move back.
    #[must_use]
    pub fn moved_permanently(&self) -> Option<(u16, &Url)> {
        let permanent = self
            .hops
            .iter()
            .take_while(|h| matches!(h.status, Some(301 | 308)))
            .count();
        let first = self.hops.first()?.status?;
        // The hop after the last permanent redirect was requested at its
        // target.
        self.hops
            .get(permanent)
            .filter(|_| permanent > 0)
            .map(|h| (first, &h.url))
    }

    /// Redirects followed.
    #[must_use]
    pub fn redirects(&self) -> u32 {
        let followed = self.hops.len().saturating_sub(1);
        u32::try_from(followed).unwrap_or(u32::MAX)
    }

    /// The byte-order mark at the start of the body, if any.
    #[must_use]
    pub fn bom(&self) -> Option<Bom> {
        Bom::sniff(&self.body)
    }

    /// The body's text encoding.
    #[must_use]
    pub fn encoding(&self) -> Encoding {
        Encoding::detect(&self.body, self.charset.as_deref())
    }

    /// The body as UTF-8 ([`crate::utf8_body`]).
    #[must_use]
    pub fn utf8_body(&self) -> std::borrow::Cow<'_, [u8]> {
        body::utf8_body(&self.body)
    }

    /// The outcome for the availability machine, knowing nothing of earlier
    /// fetches.
    #[must_use]
    pub fn outcome(&self) -> FetchOutcome {
        FetchOutcome {
            redirects: self.redirects(),
            retry_after: self.retry_after.as_ref().and_then(|r| r.delay),
            body_bytes: self.body.len() as u64,
            truncated: self.truncated,
            full_length: self.full_length,
            ..FetchOutcome::new(self.result)
        }
    }
}

/// Parses an absolute URL.
pub(crate) fn parse_url(text: &str) -> Result<Url, Error> {
    Url::parse(text.trim()).map_err(|e| Error::InvalidUrl {
        url: text.to_owned(),
        reason: match e {
            url::ParseError::RelativeUrlWithoutBase => {
                "give a full URL, such as https://example.com/".to_owned()
            }
            e => e.to_string(),
        },
    })
}

pub(crate) fn check_scheme(url: &Url) -> Result<(), Error> {
    match url.scheme() {
        "http" | "https" if url.host().is_some() => Ok(()),
        "http" | "https" => Err(Error::InvalidUrl {
            url: url.to_string(),
            reason: "no host".to_owned(),
        }),
        _ => Err(Error::UnsupportedScheme {
            url: url.to_string(),
        }),
    }
}

fn without_fragment(mut url: Url) -> Url {
    url.set_fragment(None);
    url
}

pub(crate) fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// An error and its causes, one after the other.
#[must_use]
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let more = e.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = e.source();
    }
    text
}

/// The error of a request that got no answer: the resolver's refusal if that
/// was it, else a network error.
pub(crate) fn send_error(url: &Url, error: &reqwest::Error) -> Error {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        let refused = e.downcast_ref::<RefusedAddress>();
        if let Some(refused) = refused {
            return Error::Refused {
                url: url.to_string(),
                host: refused.host.clone(),
                addr: refused.addr,
                kind: refused.kind,
            };
        }
        source = e.source();
    }
    Error::Network {
        url: url.to_string(),
        message: chain(error),
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// A server that answers every request with `response`, counting them.
    async fn serve(response: String) -> (SocketAddr, Arc<std::sync::atomic::AtomicUsize>) {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = Arc::clone(&count);
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let response = response.clone();
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = stream.read(&mut buf).await;
                    let _ = stream.write_all(response.as_bytes()).await;
                });
            }
        });
        (addr, count)
    }

    fn only_loopback_one() -> Fetcher {
        let guard = Guard {
            allow_private: false,
            only: Some(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        };
        Fetcher::with_guard(
            FetchLimits::CHECKER,
            guard,
            Lookup::System,
            USER_AGENT,
            Connections::default(),
            Vec::new(),
        )
        .expect("client")
    }

    #[tokio::test]
    async fn every_redirect_hop_is_checked() {
        // 127.0.0.1 is allowed here; the redirects lead to other loopback
        // addresses, which are not.
        let (other, other_count) =
            serve("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_owned()).await;
        // (Names go through the same resolver on every hop; the integration
        // tests refuse `localhost`.)
        for target in [
            format!("http://127.0.0.2:{}/robots.txt", other.port()),
            format!("http://[::1]:{}/robots.txt", other.port()),
        ] {
            let (addr, _) = serve(format!(
                "HTTP/1.1 301 Moved\r\nLocation: {target}\r\nContent-Length: 0\r\n\r\n"
            ))
            .await;
            let report = only_loopback_one()
                .fetch(&format!("http://{addr}/robots.txt"))
                .await
                .expect("first hop allowed");
            assert_eq!(report.result, FetchResult::NetworkError, "{target}");
            assert!(
                matches!(report.error, Some(Error::Refused { .. })),
                "{target}: {:?}",
                report.error
            );
            assert_eq!(report.hops.len(), 2);
            assert_eq!(report.hops[0].status, Some(301));
            assert_eq!(report.hops[1].status, None);
        }
        assert_eq!(
            other_count.load(std::sync::atomic::Ordering::SeqCst),
            0,
            "no connection to the refused address"
        );
    }

    #[test]
    fn retry_after_values() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            RetryAfter::parse("120", now).delay,
            Some(Duration::from_secs(120))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(3600));
        assert_eq!(
            RetryAfter::parse(&later, now).delay,
            Some(Duration::from_secs(3600))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(3600));
        assert_eq!(RetryAfter::parse(&earlier, now).delay, Some(Duration::ZERO));
        assert_eq!(RetryAfter::parse("soon", now).delay, None);
    }
}
