//! `botwarden crawl`: the polite site-audit crawler.

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use botwarden_audit::{Audit, AuditDocument, AuditSettings};
use botwarden_crawl::{
    CHANGES_META, ChangeRule, CrawlConfig, CrawlEnd, CrawlSettings, CrawlerKind, DEFAULT_INFO_URL,
    ExternalConfig, FrontierConfig, Identity, Network, Operator, Platform, SETTINGS_META, Scope,
    Simulation, SiteKey, SiteReport, StopSignal, ThrottleConfig, check_external, crawl,
    ranges_json, registry_entry, robots_lines, verify_site,
};
use botwarden_fetch::{Fetcher, FetcherBuilder};
use botwarden_robots::{Profile, TokenChain};
use botwarden_store::{ExportFormat, ExportTable, Store, Summary};
use botwarden_verify::{AgentForm, Signer};
use clap::parser::ValueSource;
use clap::{ArgGroup, ArgMatches, Args, Subcommand, ValueEnum};
use clap::{CommandFactory, Parser};
use regex::Regex;
use url::Url;

use crate::format::Format;

/// Arguments of `botwarden crawl`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct CrawlArgs {
    #[command(subcommand)]
    command: Option<CrawlCommand>,
    /// Where the crawl starts (its host is the scope); not needed with
    /// --resume.
    #[arg(required_unless_present = "resume")]
    url: Option<String>,
    /// The store: an SQLite file holding everything the crawl learns
    /// (default: botwarden-crawl-HOST.db here).
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// Continue the crawl in --db where it stopped, with the settings it
    /// was started with (kept in the store). Options given again must
    /// equal them, except --parallel, --delay, --max-urls (raised),
    /// --timeout, --nameserver, --ca-cert, --allow-private and
    /// --site-secret-file, which may change (the change is recorded).
    #[arg(long, requires = "db")]
    resume: bool,
    /// With --resume: queue again the URLs skipped for this reason, one
    /// that was not the site's answer (robots-unavailable: its robots.txt
    /// could not be read; refused: a redirect to an address refused);
    /// repeat for several.
    #[arg(long, value_name = "REASON", requires = "resume", value_parser = ["robots-unavailable", "refused"])]
    retry_skipped: Vec<String>,
    /// Queue at most this many URLs.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_urls: u64,
    /// Follow links at most this deep from the start URL.
    #[arg(long, value_name = "D", default_value_t = 50)]
    max_depth: u32,
    /// The device to crawl for: its token comes first
    /// (botwarden-phone → botwarden → *).
    #[arg(long, value_enum, default_value_t = PlatformArg::Web)]
    platform: PlatformArg,
    /// Crawl as the essential crawler (token botwarden-essential → *).
    #[arg(long)]
    essential: bool,
    /// Obey robots.txt as these tokens instead of botwarden's (most
    /// specific first, then *), on a site whose ownership is verified
    /// (see `crawl verify-site`). The User-Agent stays botwarden's.
    #[arg(
        long = "as",
        value_name = "TOKEN[,TOKEN…]",
        conflicts_with = "essential"
    )]
    as_tokens: Option<String>,
    /// Read robots.txt as this robot does instead of by RFC 9309
    /// (rfc9309, google, bing, yandex, strict), on a site whose ownership
    /// is verified.
    #[arg(long, value_name = "P", value_parser = profile_name)]
    profile: Option<&'static Profile>,
    /// Use this file as the site's robots.txt (the site's is not asked
    /// for), on a site whose ownership is verified.
    #[arg(long, value_name = "FILE")]
    robots_file: Option<PathBuf>,
    /// The operator's secret that site tokens are derived from, for
    /// --as, --profile and --robots-file (default: the
    /// BOTWARDEN_SITE_SECRET environment variable).
    #[arg(long, value_name = "FILE")]
    site_secret_file: Option<PathBuf>,
    /// Requests in flight to a host, at most (the throttle lowers it when
    /// the site struggles).
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    parallel: u32,
    /// Milliseconds between two requests to a host, at least (a site's
    /// Crawl-delay raises it).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    delay: u64,
    /// Which URLs belong: the start URL's host, or its registrable domain.
    #[arg(long, value_enum, default_value_t = ScopeArg::Host)]
    scope: ScopeArg,
    /// Only URLs matching this regular expression.
    #[arg(long, value_name = "RE")]
    include: Option<Regex>,
    /// No URL matching this regular expression.
    #[arg(long, value_name = "RE")]
    exclude: Option<Regex>,
    /// Follow links marked nofollow (they are recorded either way).
    #[arg(long)]
    follow_nofollow: bool,
    /// Also crawl the URLs of the sitemaps that the start URL's robots.txt
    /// names (`Sitemap:` lines); URLs no link leads to are counted as
    /// sitemap-only.
    #[arg(long)]
    sitemaps: bool,
    /// Also crawl the URLs of this sitemap (or sitemap index); repeat for
    /// several.
    #[arg(long = "sitemap", value_name = "URL")]
    sitemap: Vec<Url>,
    /// The page that explains the crawler, in its User-Agent.
    #[arg(long, value_name = "URL", default_value = DEFAULT_INFO_URL)]
    info_url: String,
    /// Allow loopback and private addresses (refused by default).
    #[arg(long)]
    allow_private: bool,
    /// Seconds for one request, body included.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// Bytes of a page kept, after decompression.
    #[arg(long, value_name = "N", default_value_t = 10 * 1024 * 1024)]
    max_bytes: usize,
    /// Open a new connection for every request (default: reuse them), so
    /// that the pages' timings compare: each includes the lookup and the
    /// TCP and TLS handshakes.
    #[arg(long)]
    fresh_connections: bool,
    /// Speak HTTP/2 from the first byte to http:// URLs (h2c with prior
    /// knowledge). Over https HTTP/2 is used whenever the server offers it.
    #[arg(long)]
    http2_prior_knowledge: bool,
    /// Also trust the certificate authorities in this PEM file (beside the
    /// built-in ones), e.g. for a staging site signed by an internal
    /// authority; repeat for several.
    #[arg(long = "ca-cert", value_name = "FILE")]
    ca_cert: Vec<PathBuf>,
    /// The name server that resolves the site's names (ADDR:PORT).
    #[arg(long, value_name = "ADDR:PORT")]
    nameserver: Option<SocketAddr>,
    /// Sign every request (robots.txt, pages, sitemaps, redirects) with
    /// this Ed25519 private key (Web Bot Auth: a JWK or PKCS#8 PEM file,
    /// as `botwarden bots keygen` writes).
    #[arg(long, value_name = "FILE")]
    sign_key: Option<PathBuf>,
    /// The signature agent named in the signed requests (`Signature-Agent`):
    /// the origin whose well-known key directory holds the key, or the
    /// directory's URL.
    #[arg(long, value_name = "URL", requires = "sign_key")]
    signature_agent: Option<String>,
    /// Output format of the summary.
    #[arg(long, default_value = "text",
          value_parser = Format::parser("For people", "One JSON object"))]
    format: Format,
    /// After the crawl, audit it (as `botwarden audit DB` does) and print
    /// the audit after the summary; with --format json, one object with
    /// `crawl` (the summary) and `audit`.
    #[arg(long)]
    audit: bool,
    /// After the crawl, check each distinct URL of other sites that the
    /// site's pages link to, once (HEAD, GET when HEAD is refused; never
    /// crawled), for `links/broken-external`: one request at a time per
    /// host, 1 s apart, at most 20 per host and 1,000 in all. Off by
    /// default: it sends requests to hosts the crawl was not asked to visit.
    #[arg(long)]
    check_external: bool,
    /// Crawl with this many workers in this process, each with its own
    /// store beside --db, merged into --db at the end (on --redis, or on
    /// the in-process coordinator).
    #[arg(long, value_name = "N", default_value_t = 1, conflicts_with = "resume",
          value_parser = clap::value_parser!(u64).range(1..=256))]
    workers: u64,
    /// Share the crawl on this Redis (several URLs, comma-separated: a
    /// cluster) with workers elsewhere (`botwarden crawl worker`).
    #[arg(long, value_name = "URL", conflicts_with = "resume")]
    redis: Option<String>,
    #[command(flatten)]
    redis_access: crate::args::RedisAccess,
    /// Seconds to wait out Redis not answering (said on standard error
    /// every 5 s) before giving up with exit code 1.
    #[arg(long, value_name = "SECS", default_value_t = 300, requires = "redis")]
    redis_wait: u64,
    /// The shared crawl's name in Redis (default: the start URL's host).
    #[arg(long = "crawl", value_name = "NAME", requires = "redis")]
    crawl_name: Option<String>,
    /// Seconds a worker holds a URL it does not finish (it died) before
    /// the URL returns to the frontier.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    lease: u64,
}

/// What else `botwarden crawl` does.
#[derive(Debug, Subcommand)]
enum CrawlCommand {
    /// What a site owner needs to address and verify the crawler: the
    /// robots.txt lines for each of its tokens, a registry entry for
    /// `botwarden bots verify`, and the operator's addresses as a
    /// Google-style range list.
    Identity(IdentityArgs),
    /// A table of a crawl's store as CSV or JSON lines, on standard output.
    Export(ExportArgs),
    /// A site's verification token, the file or meta tag its owner places
    /// to let the crawler read its robots.txt another way (--as,
    /// --profile, --robots-file), and whether they are in place (exit 0
    /// when verified, 1 when not).
    VerifySite(VerifySiteArgs),
    /// One worker of a crawl shared on Redis: fetches what the crawl's
    /// frontier leases it, politely across all workers, into its own
    /// store.
    Worker(Box<super::crawl_shared::WorkerArgs>),
    /// Merge the stores of a shared crawl's workers into one store.
    Merge(super::crawl_shared::MergeArgs),
    /// A shared crawl's state in Redis: per host queued, leased, done and
    /// errors; per worker progress.
    Status(super::crawl_shared::StatusArgs),
    /// Seed a shared crawl's frontier again from its workers' stores,
    /// after Redis lost the crawl's state (a node back without its data).
    Reseed(super::crawl_shared::ReseedArgs),
}

/// Arguments of `botwarden crawl verify-site`.
#[derive(Debug, Args)]
struct VerifySiteArgs {
    /// A URL of the site (its scheme, host and port are the site).
    url: String,
    /// The operator's secret (default: the BOTWARDEN_SITE_SECRET
    /// environment variable).
    #[arg(long, value_name = "FILE")]
    site_secret_file: Option<PathBuf>,
    /// Only print the token, the file and the meta tag; ask nothing.
    #[arg(long)]
    offline: bool,
    /// Allow loopback and private addresses (refused by default).
    #[arg(long)]
    allow_private: bool,
    /// Seconds for one request.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// The name server that resolves the site's names (ADDR:PORT).
    #[arg(long, value_name = "ADDR:PORT")]
    nameserver: Option<SocketAddr>,
    /// The page that explains the crawler, in its User-Agent.
    #[arg(long, value_name = "URL", default_value = DEFAULT_INFO_URL)]
    info_url: String,
    /// Output format.
    #[arg(long, default_value = "text",
          value_parser = Format::parser("For people", "One JSON object"))]
    format: Format,
}

/// Arguments of `botwarden crawl identity`.
#[derive(Debug, Args)]
struct IdentityArgs {
    /// A host-name suffix of the crawler's addresses (their reverse DNS
    /// points into it and back); repeat for several.
    #[arg(long = "host", value_name = "NAME")]
    hosts: Vec<String>,
    /// An address or CIDR block the crawler runs from; repeat for several.
    #[arg(long = "network", value_name = "CIDR")]
    networks: Vec<Network>,
    /// The page that explains the crawler.
    #[arg(long, value_name = "URL", default_value = DEFAULT_INFO_URL)]
    info_url: String,
    /// Which part to print (default: all three, one after the other).
    #[arg(long, value_enum)]
    only: Option<IdentityPart>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum IdentityPart {
    /// The robots.txt lines.
    Robots,
    /// The registry entry (YAML).
    Registry,
    /// The range list (JSON).
    Ranges,
}

/// Arguments of `botwarden crawl export`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("table").required(true).args(["pages", "links", "redirects"])))]
struct ExportArgs {
    /// The crawl's store.
    #[arg(long, value_name = "FILE")]
    db: PathBuf,
    /// Every fetched page.
    #[arg(long)]
    pages: bool,
    /// Every link.
    #[arg(long)]
    links: bool,
    /// Every redirect.
    #[arg(long)]
    redirects: bool,
    /// CSV (with a header line) or JSON lines.
    #[arg(long, value_enum, default_value_t = ExportFormatArg::Csv)]
    format: ExportFormatArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ExportFormatArg {
    Csv,
    Jsonl,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PlatformArg {
    Web,
    Phone,
    Tablet,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum ScopeArg {
    Host,
    Domain,
}

impl From<ScopeArg> for Scope {
    fn from(s: ScopeArg) -> Scope {
        match s {
            ScopeArg::Host => Scope::Host,
            ScopeArg::Domain => Scope::Domain,
        }
    }
}

pub(crate) fn run(args: &CrawlArgs, matches: Option<&ArgMatches>) -> Result<ExitCode> {
    match &args.command {
        Some(CrawlCommand::Identity(a)) => identity(a),
        Some(CrawlCommand::Export(a)) => export(a),
        Some(CrawlCommand::VerifySite(a)) => verify_site_command(a),
        Some(CrawlCommand::Worker(a)) => super::crawl_shared::worker(a),
        Some(CrawlCommand::Merge(a)) => super::crawl_shared::merge(a),
        Some(CrawlCommand::Status(a)) => super::crawl_shared::status(a),
        Some(CrawlCommand::Reseed(a)) => super::crawl_shared::reseed(a),
        None => run_crawl(args, matches),
    }
}

fn identity(args: &IdentityArgs) -> Result<ExitCode> {
    let operator = Operator {
        hosts: args
            .hosts
            .iter()
            .map(|h| h.trim().trim_end_matches('.').to_ascii_lowercase())
            .collect(),
        networks: args.networks.clone(),
    };
    let mut out = std::io::stdout().lock();
    let all = args.only.is_none();
    let part = |p| all || args.only == Some(p);
    if part(IdentityPart::Robots) {
        if all {
            writeln!(out, "# robots.txt")?;
        }
        write!(out, "{}", robots_lines())?;
    }
    if part(IdentityPart::Registry) {
        if all {
            writeln!(
                out,
                "\n# registry entry (botwarden bots verify --registry FILE)"
            )?;
        }
        write!(out, "{}", registry_entry(&operator, &args.info_url))?;
    }
    if part(IdentityPart::Ranges) {
        if all {
            writeln!(out, "\n# range list (Google's JSON format)")?;
        }
        let now = jiff::Timestamp::now().to_string();
        write!(out, "{}", ranges_json(&operator, &now))?;
    }
    out.flush().context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}

/// A profile by name, for `--profile`.
fn profile_name(name: &str) -> Result<&'static Profile, String> {
    Profile::by_name(name)
        .ok_or_else(|| format!("no profile '{name}'; the profiles are {}", Profile::names()))
}

/// The environment variable that holds the operator's secret.
const SECRET_VAR: &str = "BOTWARDEN_SITE_SECRET";

/// The operator's secret, from the file given or the environment; the
/// errors name where it was looked for, never what it is.
fn site_key(file: Option<&PathBuf>) -> Result<SiteKey> {
    let (secret, place) = match file {
        Some(path) => (
            std::fs::read(path)
                .with_context(|| format!("cannot read the site secret {}", path.display()))?,
            path.display().to_string(),
        ),
        None => match std::env::var_os(SECRET_VAR) {
            Some(v) => (v.into_encoded_bytes(), format!("${SECRET_VAR}")),
            None => bail!(
                "no site secret: pass --site-secret-file FILE or set {SECRET_VAR} \
                 (the operator's secret, at least 16 bytes, that site tokens are derived from)"
            ),
        },
    };
    SiteKey::new(&secret).map_err(|e| anyhow::anyhow!("{place}: {e}"))
}

/// A fetcher as every crawl command sets it up; the caller adds its own
/// settings and builds it.
pub(crate) fn fetcher_for(
    identity: &Identity,
    allow_private: bool,
    timeout: u64,
    max_bytes: usize,
    nameserver: Option<SocketAddr>,
) -> Result<FetcherBuilder> {
    Ok(Fetcher::builder()
        .user_agent(identity.user_agent())
        .allow_private(allow_private)
        .timeout(Duration::from_secs(timeout.max(1)))
        .max_bytes(max_bytes)
        .nameserver(nameserver))
}

/// The Web Bot Auth signer of `--sign-key FILE` (a JWK, or PKCS#8 PEM)
/// naming `agent`.
fn signer(path: &Path, agent: Option<&str>) -> Result<Signer> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--sign-key: cannot read {}", path.display()))?;
    let what = path.display().to_string();
    let signer = if text.trim_start().starts_with("-----BEGIN") {
        Signer::from_pkcs8_pem(&text, &what)?
    } else {
        Signer::from_jwk(&text, &what)?
    };
    Ok(match agent {
        Some(url) => signer
            .agent(url, AgentForm::Dictionary)
            .context("--signature-agent")?,
        None => signer,
    })
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn verify_site_command(args: &VerifySiteArgs) -> Result<ExitCode> {
    let key = site_key(args.site_secret_file.as_ref())?;
    let url =
        Url::parse(args.url.trim()).with_context(|| format!("'{}' is not a URL", args.url))?;
    let token = key.token(&url)?;
    let verification = if args.offline {
        None
    } else {
        let identity = Identity {
            info_url: args.info_url.clone(),
            ..Identity::default()
        };
        let fetcher = fetcher_for(
            &identity,
            args.allow_private,
            args.timeout,
            1024 * 1024,
            args.nameserver,
        )?
        .build()?;
        let rt = runtime()?;
        let v = rt.block_on(verify_site(&fetcher, &key, &url, true))?;
        rt.shutdown_background();
        Some(v)
    };
    let report = SiteReport::new(&token, verification.as_ref());
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        Format::Text => write!(out, "{report}")?,
    }
    out.flush().context("cannot write to standard output")?;
    Ok(if verification.is_some() && report.verified().is_none() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The flags that read robots.txt another way, as given.
fn simulation_flags(args: &CrawlArgs) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if args.as_tokens.is_some() {
        flags.push("--as");
    }
    if args.profile.is_some() {
        flags.push("--profile");
    }
    if args.robots_file.is_some() {
        flags.push("--robots-file");
    }
    flags
}

/// Verifies the start URL's site and builds the simulation the flags ask
/// for; refuses (exit 2) when the site is not verified.
fn simulation(
    args: &CrawlArgs,
    start: &Url,
    fetcher: &Fetcher,
    rt: &tokio::runtime::Runtime,
) -> Result<Option<Simulation>> {
    let flags = simulation_flags(args);
    if flags.is_empty() {
        return Ok(None);
    }
    let named = flags.join(", ");
    let tokens = match &args.as_tokens {
        Some(list) => {
            let chain = TokenChain::parse(list);
            if chain.tokens().is_empty() {
                bail!("--as '{list}': no token (give TOKEN[,TOKEN…])");
            }
            let bad: Vec<&str> = chain.invalid_tokens().collect();
            if !bad.is_empty() {
                bail!(
                    "--as '{list}': {} not a product token (letters, '-' and '_' only)",
                    bad.iter()
                        .map(|t| format!("'{t}' is"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            Some(chain)
        }
        None => None,
    };
    let robots_file = match &args.robots_file {
        Some(path) => {
            let body = std::fs::read(path)
                .with_context(|| format!("--robots-file: cannot read {}", path.display()))?;
            Some((path.display().to_string(), body))
        }
        None => None,
    };
    let key = site_key(args.site_secret_file.as_ref())
        .with_context(|| format!("{named} need(s) the site's ownership verified"))?;
    let verification = rt.block_on(verify_site(fetcher, &key, start, false))?;
    let Some(verified) = verification.verified() else {
        bail!(
            "{named} refused: the ownership of {} is not verified ({}); \
             `botwarden crawl verify-site {}` shows the file or meta tag to place",
            verification.token.origin(),
            verification.failures(),
            verification.token.home_url()
        );
    };
    let mut sim = Simulation::new(verified);
    sim.tokens = tokens;
    if let Some(p) = args.profile {
        sim.profile = p;
    }
    sim.robots_file = robots_file;
    Ok(Some(sim))
}

#[allow(clippy::print_stderr)]
fn export(args: &ExportArgs) -> Result<ExitCode> {
    let store = Store::open(&args.db)?;
    let table = if args.pages {
        ExportTable::Pages
    } else if args.links {
        ExportTable::Links
    } else {
        ExportTable::Redirects
    };
    let format = match args.format {
        ExportFormatArg::Csv => ExportFormat::Csv,
        ExportFormatArg::Jsonl => ExportFormat::Jsonl,
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let rows = store.export(table, format, &mut out)?;
    eprintln!(
        "botwarden: {rows} row(s) exported from {}",
        args.db.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The options a crawl's store keeps ([`CrawlSettings`]): every one that
/// shapes the crawl, by clap id, as written, and how it may change on
/// resume (`None`: it may not).
const SETTINGS: &[(&str, &str, Option<ChangeRule>)] = &[
    ("url", "URL", None),
    ("max_urls", "--max-urls", Some(ChangeRule::Raise)),
    ("max_depth", "--max-depth", None),
    ("platform", "--platform", None),
    ("essential", "--essential", None),
    ("as_tokens", "--as", None),
    ("profile", "--profile", None),
    ("robots_file", "--robots-file", None),
    (
        "site_secret_file",
        "--site-secret-file",
        Some(ChangeRule::Any),
    ),
    ("parallel", "--parallel", Some(ChangeRule::Any)),
    ("delay", "--delay", Some(ChangeRule::Any)),
    ("scope", "--scope", None),
    ("include", "--include", None),
    ("exclude", "--exclude", None),
    ("follow_nofollow", "--follow-nofollow", None),
    ("sitemaps", "--sitemaps", None),
    ("sitemap", "--sitemap", None),
    ("info_url", "--info-url", None),
    ("allow_private", "--allow-private", Some(ChangeRule::Any)),
    ("timeout", "--timeout", Some(ChangeRule::Any)),
    ("max_bytes", "--max-bytes", None),
    ("fresh_connections", "--fresh-connections", None),
    ("http2_prior_knowledge", "--http2-prior-knowledge", None),
    ("ca_cert", "--ca-cert", Some(ChangeRule::Any)),
    ("nameserver", "--nameserver", Some(ChangeRule::Any)),
    ("sign_key", "--sign-key", None),
    ("signature_agent", "--signature-agent", None),
];

/// Options whose values are files: kept as absolute paths, so that a crawl
/// resumed from another directory reads the same files.
const PATH_OPTIONS: &[&str] = &["robots_file", "site_secret_file", "ca_cert", "sign_key"];

/// The value(s) of an option as given or defaulted, as text.
fn raw_values(matches: &ArgMatches, id: &str) -> Vec<String> {
    let values: Vec<String> = matches
        .get_raw(id)
        .map(|v| v.map(|s| s.to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    if PATH_OPTIONS.contains(&id) {
        values
            .into_iter()
            .map(|v| std::path::absolute(&v).map_or(v, |p| p.display().to_string()))
            .collect()
    } else {
        values
    }
}

/// The settings of a crawl started with `matches`.
fn settings_of(matches: &ArgMatches) -> CrawlSettings {
    CrawlSettings::new(
        SETTINGS
            .iter()
            .map(|(id, option, _)| ((*option).to_owned(), raw_values(matches, id)))
            .collect(),
    )
}

/// The arguments of a crawl resumed from `store`: the stored settings,
/// with the options given again (equal, or changed where they may; each
/// change recorded in the store), and the URLs --retry-skipped names
/// queued again. `None` for a store written before settings were kept:
/// the options given are used.
#[allow(clippy::print_stderr)]
fn resumed_args(
    given: &CrawlArgs,
    matches: Option<&ArgMatches>,
    store: &mut Store,
) -> Result<Option<CrawlArgs>> {
    let path = store.path().display().to_string();
    let stored = match store.meta(SETTINGS_META)? {
        Some(text) => Some(CrawlSettings::from_meta(&text).with_context(|| {
            format!("{path}: the crawl's settings cannot be read (meta '{SETTINGS_META}')")
        })?),
        None => None,
    };
    let now = jiff::Timestamp::now().to_string();
    let resumed = match (stored, matches) {
        (Some(stored), Some(matches)) => {
            let explicit: Vec<(&str, Vec<String>)> = SETTINGS
                .iter()
                .filter(|(id, _, _)| matches.value_source(id) == Some(ValueSource::CommandLine))
                .map(|(id, option, _)| (*option, raw_values(matches, id)))
                .collect();
            let rule = |option: &str| {
                SETTINGS
                    .iter()
                    .find(|(_, o, _)| *o == option)
                    .and_then(|(_, _, r)| *r)
            };
            let (settings, changes) = stored
                .resume(explicit.iter().map(|(o, v)| (*o, v.as_slice())), rule)
                .with_context(|| format!("cannot resume the crawl in {path}"))?;
            for change in &changes {
                store.append_meta(CHANGES_META, &change.line(&now))?;
            }
            store.set_meta(SETTINGS_META, &settings.to_meta())?;
            let raised = changes
                .iter()
                .find(|c| c.option == "--max-urls")
                .and_then(|c| {
                    let n = |v: &[String]| v.first()?.parse::<u64>().ok();
                    Some(n(&c.after)? - n(&c.before)?)
                });
            if let Some(more) = raised.filter(|n| *n > 0) {
                let requeued = store.requeue_skipped("max-urls", Some(more))?;
                if requeued > 0 {
                    eprintln!(
                        "botwarden: --max-urls raised: {requeued} URL(s) skipped at the old limit queued again"
                    );
                }
            }
            Some(args_of(&settings, given, &path, true)?)
        }
        (None, _) => {
            eprintln!(
                "botwarden: warning: {path} keeps no settings (written by an older botwarden): \
                 the crawl resumes with the options given now"
            );
            None
        }
        (Some(_), None) => None,
    };
    for reason in &given.retry_skipped {
        let n = store.requeue_skipped(reason, None)?;
        store.append_meta(
            CHANGES_META,
            &format!("{now}\t--retry-skipped\t{reason}\t{n}\n"),
        )?;
        eprintln!("botwarden: {n} URL(s) skipped as {reason} queued again");
    }
    Ok(resumed)
}

/// The crawl's arguments from its settings, with what is not a setting
/// (the store, the output, the workers) as given: a new crawl runs with
/// them too, so that it and its resumptions read the same values (files
/// by absolute path).
fn args_of(
    settings: &CrawlSettings,
    given: &CrawlArgs,
    path: &str,
    resume: bool,
) -> Result<CrawlArgs> {
    let command = crate::Cli::command();
    let crawl = command
        .find_subcommand("crawl")
        .context("the crawl command")?;
    let mut argv: Vec<String> = vec!["botwarden".into(), "crawl".into()];
    for (id, option, _) in SETTINGS {
        let values = settings.get(option).unwrap_or(&[]);
        let Some(arg) = crawl.get_arguments().find(|a| a.get_id() == id) else {
            continue;
        };
        let Some(long) = arg.get_long() else {
            // The start URL, a positional.
            argv.extend(values.iter().cloned());
            continue;
        };
        if matches!(arg.get_action(), clap::ArgAction::SetTrue) {
            if values.iter().any(|v| v == "true") {
                argv.push(format!("--{long}"));
            }
            continue;
        }
        for v in values {
            argv.push(format!("--{long}={v}"));
        }
    }
    let mut argv: Vec<std::ffi::OsString> = argv.into_iter().map(Into::into).collect();
    if let Some(db) = &given.db {
        argv.push("--db".into());
        argv.push(db.clone().into_os_string());
    }
    if resume {
        argv.push("--resume".into());
    }
    let parsed = crate::Cli::try_parse_from(&argv)
        .with_context(|| format!("{path}: the crawl's stored settings are not valid options"))?;
    let crate::Command::Crawl(mut args) = parsed.command else {
        bail!("{path}: the crawl's stored settings are not a crawl's");
    };
    args.db.clone_from(&given.db);
    args.format = given.format;
    args.audit = given.audit;
    args.check_external = given.check_external;
    args.retry_skipped.clone_from(&given.retry_skipped);
    args.workers = given.workers;
    args.redis.clone_from(&given.redis);
    args.crawl_name.clone_from(&given.crawl_name);
    args.lease = given.lease;
    args.redis_wait = given.redis_wait;
    args.redis_access.clone_from(&given.redis_access);
    Ok(*args)
}

/// Pages a second over the last few seconds.
struct Rate {
    samples: std::collections::VecDeque<(Instant, u64)>,
}

impl Rate {
    /// Seconds the rate is taken over.
    const SPAN: Duration = Duration::from_secs(10);

    fn new() -> Rate {
        Rate {
            samples: std::collections::VecDeque::new(),
        }
    }

    fn update(&mut self, fetched: u64) -> f64 {
        let now = Instant::now();
        self.samples.push_back((now, fetched));
        while self
            .samples
            .front()
            .is_some_and(|(at, _)| now.duration_since(*at) > Rate::SPAN)
        {
            self.samples.pop_front();
        }
        match self.samples.front() {
            Some((at, first)) if now.duration_since(*at) >= Duration::from_millis(500) => {
                (fetched - first) as f64 / now.duration_since(*at).as_secs_f64()
            }
            _ => 0.0,
        }
    }
}

/// A crawl by one worker in this process.
struct Here<'a> {
    start: &'a Url,
    config: &'a CrawlConfig,
    fetcher: &'a Fetcher,
    resume: bool,
    stop: &'a StopSignal,
    /// Standard error is a terminal: show the progress line.
    terminal: bool,
}

impl Here<'_> {
    /// Crawls into `store` until done or stopped (Ctrl-C or SIGTERM raise
    /// the stop signal), with the progress line on a terminal.
    async fn crawl(&self, store: Store) -> Result<(Store, CrawlEnd), botwarden_crawl::Error> {
        let on_signal = self.stop.clone();
        tokio::spawn(async move {
            super::stop_signal().await;
            on_signal.stop();
        });
        let bar = self.terminal.then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        let width = usize::from(terminal_width().unwrap_or(80).saturating_sub(3));
        let mut rate = Rate::new();
        let stop = self.stop;
        let crawled = crawl(
            self.start,
            self.config,
            self.fetcher,
            store,
            self.resume,
            stop,
            |p| {
                if let Some(bar) = &bar {
                    let per_second = rate.update(p.fetched);
                    bar.set_message(p.line(per_second, stop.is_stopped(), width));
                }
            },
        )
        .await;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        crawled
    }
}

#[allow(clippy::print_stderr, clippy::print_stdout)]
fn run_crawl(given: &CrawlArgs, matches: Option<&ArgMatches>) -> Result<ExitCode> {
    let effective;
    let (args, opened) = if given.resume {
        let Some(db) = &given.db else {
            bail!("--resume needs --db FILE, the crawl's store");
        };
        let mut store = Store::open(db)?;
        effective = resumed_args(given, matches, &mut store)?;
        (effective.as_ref().unwrap_or(given), Some(store))
    } else {
        effective = match matches {
            Some(m) => Some(args_of(&settings_of(m), given, "the options", false)?),
            None => None,
        };
        (effective.as_ref().unwrap_or(given), None)
    };
    let identity = Identity {
        kind: if args.essential {
            CrawlerKind::Essential
        } else {
            CrawlerKind::Full
        },
        platform: match args.platform {
            PlatformArg::Web => Platform::Web,
            PlatformArg::Phone => Platform::Phone,
            PlatformArg::Tablet => Platform::Tablet,
        },
        info_url: args.info_url.clone(),
        ..Identity::default()
    };
    let start = match &args.url {
        Some(u) => Some(Url::parse(u.trim()).with_context(|| format!("'{u}' is not a URL"))?),
        None => None,
    };
    let db = match (&args.db, &start) {
        (Some(db), _) => db.clone(),
        (None, Some(start)) => PathBuf::from(format!(
            "botwarden-crawl-{}.db",
            start.host_str().unwrap_or("site").replace(':', "_")
        )),
        (None, None) => bail!("give the URL to crawl, or --db with --resume"),
    };
    // A new store is created only once the crawl may start (after the
    // site's verification, when one is needed).
    if opened.is_none() && db.exists() {
        bail!(
            "{} already exists: pass --resume to continue its crawl, or choose another --db",
            db.display()
        );
    }
    let start = match (start, &opened) {
        (Some(s), _) => s,
        (None, None) => bail!("give the URL to crawl"),
        (None, Some(store)) => {
            let seed = store.meta("seed")?.unwrap_or_default();
            Url::parse(&seed).with_context(|| format!("{}: no start URL recorded", db.display()))?
        }
    };
    let config = CrawlConfig {
        identity: identity.clone(),
        frontier: FrontierConfig {
            scope: args.scope.into(),
            max_urls: args.max_urls,
            max_depth: args.max_depth,
            include: args.include.clone(),
            exclude: args.exclude.clone(),
            ..FrontierConfig::default()
        },
        throttle: ThrottleConfig {
            min_delay: Duration::from_millis(args.delay),
            max_parallel: args.parallel,
            ..ThrottleConfig::default()
        },
        follow_nofollow: args.follow_nofollow,
        robots_sitemaps: args.sitemaps,
        sitemaps: args.sitemap.clone(),
        ..CrawlConfig::default()
    };
    let mut fetcher = fetcher_for(
        &identity,
        args.allow_private,
        args.timeout,
        args.max_bytes,
        args.nameserver,
    )?
    .fresh_connections(args.fresh_connections)
    .http2_prior_knowledge(args.http2_prior_knowledge);
    for path in &args.ca_cert {
        let pem = std::fs::read(path)
            .with_context(|| format!("--ca-cert: cannot read {}", path.display()))?;
        fetcher = fetcher.trust_pem(path.display().to_string(), pem);
    }
    if let Some(path) = &args.sign_key {
        let signer = signer(path, args.signature_agent.as_deref())?;
        fetcher = fetcher.signer(Some(std::sync::Arc::new(signer)));
    }
    let fetcher = fetcher.build()?;
    let runtime = runtime()?;
    let config = CrawlConfig {
        simulation: simulation(args, &start, &fetcher, &runtime)?,
        ..config
    };
    let stop = StopSignal::new();
    let terminal = std::io::stderr().is_terminal();
    let started = Instant::now();
    let shared = (args.workers > 1 || args.redis.is_some()).then(|| super::crawl_shared::Shared {
        redis: args.redis.as_deref(),
        redis_access: &args.redis_access,
        redis_wait: Duration::from_secs(args.redis_wait),
        crawl: args.crawl_name.as_deref(),
        workers: usize::try_from(args.workers).unwrap_or(1),
        concurrency: 8,
        lease: Duration::from_secs(args.lease.max(1)),
    });
    if shared.is_some() && config.simulation.is_some() {
        bail!("--as, --profile and --robots-file are for a crawl by one worker");
    }
    let (mut store, end) = if let Some(shared) = &shared {
        super::crawl_shared::run_workers(shared, &start, &config, &fetcher, &db, &runtime, &stop)?
    } else {
        let store = match opened {
            Some(store) => store,
            None => {
                let store = Store::create(&db)?;
                if let Some(matches) = matches {
                    store.set_meta(SETTINGS_META, &settings_of(matches).to_meta())?;
                }
                store
            }
        };
        let here = Here {
            start: &start,
            config: &config,
            fetcher: &fetcher,
            resume: args.resume,
            stop: &stop,
            terminal,
        };
        runtime.block_on(here.crawl(store))?
    };
    if args.check_external && !end.stopped {
        let checked = runtime.block_on(check_external(
            &mut store,
            &fetcher,
            &ExternalConfig::default(),
        ))?;
        eprintln!("botwarden: {checked}");
    }
    runtime.shutdown_background();
    report(args, &store, &end, started, &db)
}

/// What a crawl says at its end: the summary (and the audit) on standard
/// output, how it ended on standard error; exit 3 when URLs are left.
#[allow(clippy::print_stderr)]
fn report(
    args: &CrawlArgs,
    store: &Store,
    end: &CrawlEnd,
    started: Instant,
    db: &Path,
) -> Result<ExitCode> {
    let summary = Summary::read(store)?;
    let audit = if args.audit {
        let settings = super::audit::settings(AuditSettings::default(), None)?;
        let mut doc = AuditDocument::build(
            &Audit {
                max_depth: settings.max_depth(),
                selection: settings.selection()?,
            },
            store,
            None,
        )?;
        if matches!(args.format, Format::Json) {
            doc.report.limit_evidence(settings.max_evidence());
        }
        Some(doc)
    } else {
        None
    };
    let mut out = std::io::stdout().lock();
    match (args.format, &audit) {
        (Format::Json, None) => {
            serde_json::to_writer_pretty(&mut out, &summary)?;
            writeln!(out)?;
        }
        (Format::Json, Some(audit)) => {
            serde_json::to_writer_pretty(
                &mut out,
                &serde_json::json!({ "crawl": &summary, "audit": audit }),
            )?;
            writeln!(out)?;
        }
        (Format::Text, _) => {
            write!(out, "{summary}")?;
            if let Some(audit) = &audit {
                write!(out, "\n{audit}")?;
            }
        }
    }
    out.flush().context("cannot write to standard output")?;
    eprintln!(
        "botwarden: {} page(s) fetched in {:.1} s; store: {}",
        end.fetched,
        started.elapsed().as_secs_f64(),
        db.display()
    );
    let refused = summary.robots_files.iter().any(|r| {
        r.error
            .as_deref()
            .is_some_and(|e| e.starts_with("refusing to fetch"))
    });
    if refused && !args.allow_private {
        eprintln!(
            "botwarden: note: loopback and private addresses are refused; pass --allow-private to crawl them"
        );
    }
    for line in &end.held {
        eprintln!("botwarden: {line}");
    }
    if end.stopped {
        eprintln!(
            "botwarden: stopped with {} URL(s) left: `botwarden crawl --resume --db {}` continues",
            end.left,
            db.display()
        );
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::SUCCESS)
}

/// The terminal's width in columns, from `COLUMNS` when set.
fn terminal_width() -> Option<u16> {
    std::env::var("COLUMNS").ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_of_the_last_seconds() {
        let mut rate = Rate::new();
        let long_ago = Instant::now() - Duration::from_secs(60);
        rate.samples.push_back((long_ago, 0));
        rate.samples
            .push_back((Instant::now() - Duration::from_secs(2), 1_000));
        let r = rate.update(1_100);
        // 100 pages in about 2 s, not 1,100 in 60 s.
        assert!(r > 30.0 && r < 60.0, "{r}");
    }
}
