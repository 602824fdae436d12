//! The arguments of `botwarden crawl` and its subcommands.

use std::path::PathBuf;

use botwarden_robots::Profile;
use clap::{Args, Subcommand, ValueEnum};
use url::Url;

use super::export::ExportArgs;
use super::identity::IdentityArgs;
use super::options::Politeness;
use super::shared::{MergeArgs, ReseedArgs, StatusArgs, WorkerArgs};
use super::site::VerifySiteArgs;
use crate::args::RedisAccess;
use crate::format::Format;

/// Arguments of `botwarden crawl`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct CrawlArgs {
    #[command(subcommand)]
    pub(super) command: Option<CrawlCommand>,
    /// Where the crawl starts (its host is the scope); not needed with
    /// --resume.
    #[arg(required_unless_present = "resume")]
    pub(super) url: Option<String>,
    /// The store: an SQLite file holding everything the crawl learns
    /// (default: botwarden-crawl-HOST.db here).
    #[arg(long, value_name = "FILE")]
    pub(super) db: Option<PathBuf>,
    /// Continue the crawl in --db where it stopped, with the settings it
    /// was started with (kept in the store). Options given again must
    /// equal them, except --parallel, --delay, --max-urls (raised),
    /// --timeout, --nameserver, --ca-cert, --allow-private and
    /// --site-secret-file, which may change (the change is recorded).
    #[arg(long, requires = "db")]
    pub(super) resume: bool,
    /// With --resume: queue again the URLs skipped for this reason, one
    /// that was not the site's answer (robots-unavailable: its robots.txt
    /// could not be read; refused: a redirect to an address refused);
    /// repeat for several.
    #[arg(long, value_name = "REASON", requires = "resume", value_parser = ["robots-unavailable", "refused"])]
    pub(super) retry_skipped: Vec<String>,
    #[command(flatten)]
    pub(super) politeness: Politeness,
    /// The device to crawl for: its token comes first
    /// (botwarden-phone → botwarden → *).
    #[arg(long, value_enum, default_value_t = PlatformArg::Web)]
    pub(super) platform: PlatformArg,
    /// Crawl as the essential crawler (token botwarden-essential → *).
    #[arg(long)]
    pub(super) essential: bool,
    /// Obey robots.txt as these tokens instead of botwarden's (most
    /// specific first, then *), on a site whose ownership is verified
    /// (see `crawl verify-site`). The User-Agent stays botwarden's.
    #[arg(
        long = "as",
        value_name = "TOKEN[,TOKEN…]",
        conflicts_with = "essential"
    )]
    pub(super) as_tokens: Option<String>,
    /// Read robots.txt as this robot does instead of by RFC 9309
    /// (rfc9309, google, bing, yandex, strict), on a site whose ownership
    /// is verified.
    #[arg(long, value_name = "P", value_parser = profile_name)]
    pub(super) profile: Option<&'static Profile>,
    /// Use this file as the site's robots.txt (the site's is not asked
    /// for), on a site whose ownership is verified.
    #[arg(long, value_name = "FILE")]
    pub(super) robots_file: Option<PathBuf>,
    /// The operator's secret that site tokens are derived from, for
    /// --as, --profile and --robots-file (default: the
    /// BOTWARDEN_SITE_SECRET environment variable).
    #[arg(long, value_name = "FILE")]
    pub(super) site_secret_file: Option<PathBuf>,
    /// Also crawl the URLs of the sitemaps that the start URL's robots.txt
    /// names (`Sitemap:` lines); URLs no link leads to are counted as
    /// sitemap-only.
    #[arg(long)]
    pub(super) sitemaps: bool,
    /// Also crawl the URLs of this sitemap (or sitemap index); repeat for
    /// several.
    #[arg(long = "sitemap", value_name = "URL")]
    pub(super) sitemap: Vec<Url>,
    /// Open a new connection for every request (default: reuse them), so
    /// that the pages' timings compare: each includes the lookup and the
    /// TCP and TLS handshakes.
    #[arg(long)]
    pub(super) fresh_connections: bool,
    /// Speak HTTP/2 from the first byte to http:// URLs (h2c with prior
    /// knowledge). Over https HTTP/2 is used whenever the server offers it.
    #[arg(long)]
    pub(super) http2_prior_knowledge: bool,
    /// Also trust the certificate authorities in this PEM file (beside the
    /// built-in ones), e.g. for a staging site signed by an internal
    /// authority; repeat for several.
    #[arg(long = "ca-cert", value_name = "FILE")]
    pub(super) ca_cert: Vec<PathBuf>,
    /// Sign every request (robots.txt, pages, sitemaps, redirects) with
    /// this Ed25519 private key (Web Bot Auth: a JWK or PKCS#8 PEM file,
    /// as `botwarden bots keygen` writes).
    #[arg(long, value_name = "FILE")]
    pub(super) sign_key: Option<PathBuf>,
    /// The signature agent named in the signed requests (`Signature-Agent`):
    /// the origin whose well-known key directory holds the key, or the
    /// directory's URL.
    #[arg(long, value_name = "URL", requires = "sign_key")]
    pub(super) signature_agent: Option<String>,
    /// The form of `Signature-Agent` (with --signature-agent): dictionary,
    /// the protocol draft's (`sig1="https://…"`, covered with `;key`), or
    /// string, the bare string Cloudflare's verifier reads. No form
    /// verifies under both; `botwarden bots check-agent` says which verifier
    /// takes which.
    #[arg(long, value_enum, default_value_t = crate::args::AgentFormArg::Dictionary)]
    pub(super) signature_agent_form: crate::args::AgentFormArg,
    /// Output format of the summary.
    #[arg(long, default_value = "text",
          value_parser = Format::parser("For people", "One JSON object"))]
    pub(super) format: Format,
    /// After the crawl, audit it (as `botwarden audit DB` does) and print
    /// the audit after the summary; with --format json, one object with
    /// `crawl` (the summary) and `audit`.
    #[arg(long)]
    pub(super) audit: bool,
    /// After the crawl, check each distinct URL of other sites that the
    /// site's pages link to, once (HEAD, GET when HEAD is refused; never
    /// crawled), for `links/broken-external`: one request at a time per
    /// host, 1 s apart, at most 20 per host and 1,000 in all. A 403, 429
    /// or 503 with a challenge (header or page) or Retry-After is a bot
    /// wall, not a dead link (`links/external-unverified`); with
    /// --sign-key the checks are signed. Off by default: it sends
    /// requests to hosts the crawl was not asked to visit.
    #[arg(long)]
    pub(super) check_external: bool,
    /// Record the images, scripts and style sheets each page uses, and
    /// after the crawl ask each distinct one once (HEAD, GET within 1 MiB
    /// when HEAD is refused or an image's size is not given), robots.txt
    /// obeyed for each (another host's read for it), the crawl's delay,
    /// throttle and signature per host, at most 10,000 per run; for
    /// `resources/broken`, `resources/blocked` and `images/heavy`. Off by
    /// default. A crawl by one worker only.
    #[arg(long)]
    pub(super) resources: bool,
    /// Render each HTML page in headless Chromium as well (Debian's
    /// `chromium`, which scripts/setup installs) and keep both readings:
    /// what robots that run no JavaScript see (GPTBot, ClaudeBot, CCBot)
    /// beside what a renderer sees (Googlebot). Every request of the
    /// browser is judged by robots.txt, throttled and fetched by the
    /// crawl; links found only in the rendered page are crawled. Off by
    /// default.
    #[arg(long)]
    pub(super) render: bool,
    /// Pages rendered at once (the browser's tabs), with --render.
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u64).range(1..=32))]
    pub(super) render_tabs: u64,
    /// The longest one page may take to render, in seconds, with
    /// --render: the page is read as it is then.
    #[arg(long, value_name = "SECONDS", default_value_t = 20,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub(super) render_budget: u64,
    /// The Chromium binary for --render (default: `chromium` on the PATH).
    #[arg(long, value_name = "FILE", requires = "render")]
    pub(super) chromium: Option<PathBuf>,
    /// Crawl with this many workers in this process, each with its own
    /// store beside --db, merged into --db at the end (on --redis, or on
    /// the in-process coordinator).
    #[arg(long, value_name = "N", default_value_t = 1, conflicts_with = "resume",
          value_parser = clap::value_parser!(u64).range(1..=256))]
    pub(super) workers: u64,
    /// Share the crawl on this Redis (several URLs, comma-separated: a
    /// cluster) with workers elsewhere (`botwarden crawl worker`).
    #[arg(long, value_name = "URL", conflicts_with = "resume")]
    pub(super) redis: Option<String>,
    #[command(flatten)]
    pub(super) redis_access: RedisAccess,
    /// Seconds to wait out Redis not answering (said on standard error
    /// every 5 s) before giving up with exit code 1.
    #[arg(long, value_name = "SECS", default_value_t = 300, requires = "redis")]
    pub(super) redis_wait: u64,
    /// The shared crawl's name in Redis (default: the start URL's host).
    #[arg(long = "crawl", value_name = "NAME", requires = "redis")]
    pub(super) crawl_name: Option<String>,
    /// Seconds a worker holds a URL it does not finish (it died) before
    /// the URL returns to the frontier.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub(super) lease: u64,
}

/// What else `botwarden crawl` does.
#[derive(Debug, Subcommand)]
pub(super) enum CrawlCommand {
    /// What a site owner needs to address and verify the crawler: the
    /// robots.txt lines for each of its tokens, a registry entry for
    /// `botwarden bots verify`, the operator's addresses as a range file in
    /// the JAFAR format (draft-illyes-webbotauth-jafar; printed, or written
    /// with --ranges-file), and how to link that file from the crawler's
    /// page with rel="client-ranges" (an HTML <link> or a Link header).
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
    Worker(Box<WorkerArgs>),
    /// Merge the stores of a shared crawl's workers into one store.
    Merge(MergeArgs),
    /// A shared crawl's state in Redis: per host queued, leased, done and
    /// errors; per worker progress.
    Status(StatusArgs),
    /// Seed a shared crawl's frontier again from its workers' stores,
    /// after Redis lost the crawl's state (a node back without its data).
    Reseed(ReseedArgs),
}

/// `--platform`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum PlatformArg {
    Web,
    Phone,
    Tablet,
}

/// A profile by name, for `--profile`.
fn profile_name(name: &str) -> Result<&'static Profile, String> {
    Profile::by_name(name)
        .ok_or_else(|| format!("no profile '{name}'; the profiles are {}", Profile::names()))
}
