//! `botwarden crawl URL`: the options to a crawl, the crawl (by one worker
//! with its progress line, or by several), the certificates read, the
//! resources and external links checked, and what it says at its end.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use botwarden_audit::{Audit, AuditDocument, AuditSettings};
use botwarden_crawl::{
    CrawlConfig, CrawlEnd, CrawlerKind, ExternalConfig, Identity, Platform, ResourceConfig,
    SETTINGS_META, StopSignal, check_certificates, check_external, check_resources,
};
use botwarden_crawl::{RenderSetup, Renderer};
use botwarden_fetch::Fetcher;
use botwarden_render::{Chromium, ChromiumConfig, default_binary};
use botwarden_store::{Store, Summary};
use clap::ArgMatches;
use url::Url;

use super::args::{CrawlArgs, PlatformArg};
use super::options::runtime;
use super::progress::Here;
use super::settings::{args_of, resumed_args, settings_of};
use super::shared::{Shared, run_workers};
use super::simulation::simulation;
use crate::format::Format;

/// `botwarden crawl URL` (or `--resume`): exit 3 when URLs are left.
pub(super) fn run_crawl(given: &CrawlArgs, matches: Option<&ArgMatches>) -> Result<ExitCode> {
    let (effective, opened) = effective_args(given, matches)?;
    let args = effective.as_ref().unwrap_or(given);
    let identity = identity(args);
    let (start, db) = start_and_store(args, opened.as_ref())?;
    let fetcher = fetcher(args, &identity)?;
    let runtime = runtime()?;
    let browser = browser(args, &identity, &runtime)?;
    let config = CrawlConfig {
        resources: args.resources,
        robots_sitemaps: args.sitemaps,
        sitemaps: args.sitemap.clone(),
        simulation: simulation(args, &start, &fetcher, &runtime)?,
        render: browser
            .clone()
            .map(|b| RenderSetup::new(b as Arc<dyn Renderer>)),
        ..args.politeness.config(identity)
    };
    let stop = StopSignal::new();
    let started = Instant::now();
    let (mut store, end) = match shared(args) {
        Some(_) if config.simulation.is_some() => {
            bail!("--as, --profile and --robots-file are for a crawl by one worker")
        }
        Some(_) if config.resources => bail!("--resources is for a crawl by one worker"),
        Some(shared) => run_workers(&shared, &start, &config, &fetcher, &db, &runtime, &stop)?,
        None => {
            let store = match opened {
                Some(store) => store,
                None => new_store(&db, matches)?,
            };
            let here = Here {
                start: &start,
                config: &config,
                fetcher: &fetcher,
                resume: args.resume,
                stop: &stop,
                terminal: std::io::stderr().is_terminal(),
            };
            runtime.block_on(here.crawl(store))?
        }
    };
    if let Some(b) = &browser {
        runtime.block_on(b.close());
    }
    if !end.stopped {
        let after = After {
            fetcher: &fetcher,
            config: &config,
            stop: &stop,
            runtime: &runtime,
        };
        after.crawl(args, &mut store)?;
    }
    runtime.shutdown_background();
    report(args, &store, &end, started, &db)
}

/// The arguments the crawl runs with: a resumed crawl's stored settings
/// with the options given again (its store opened), a new crawl's
/// options as its store will keep them; `None` when the options given
/// are used as they are.
fn effective_args(
    given: &CrawlArgs,
    matches: Option<&ArgMatches>,
) -> Result<(Option<CrawlArgs>, Option<Store>)> {
    if given.resume {
        let Some(db) = &given.db else {
            bail!("--resume needs --db FILE, the crawl's store");
        };
        let mut store = Store::open(db)?;
        let effective = resumed_args(given, matches, &mut store)?;
        return Ok((effective, Some(store)));
    }
    let effective = match matches {
        Some(m) => Some(args_of(&settings_of(m), given, "the options", false)?),
        None => None,
    };
    Ok((effective, None))
}

/// Who crawls: the full or the essential crawler, for a platform.
fn identity(args: &CrawlArgs) -> Identity {
    Identity {
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
        info_url: args.politeness.info_url.clone(),
        ..Identity::default()
    }
}

/// The start URL (given, or the resumed store's seed) and the store's
/// path (given, or named after the start URL's host). A new store is
/// created only once the crawl may start (after the site's verification,
/// when one is needed): here its path must be free.
fn start_and_store(args: &CrawlArgs, opened: Option<&Store>) -> Result<(Url, PathBuf)> {
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
    if opened.is_none() && db.exists() {
        bail!(
            "{} already exists: pass --resume to continue its crawl, or choose another --db",
            db.display()
        );
    }
    let start = match (start, opened) {
        (Some(s), _) => s,
        (None, None) => bail!("give the URL to crawl"),
        (None, Some(store)) => {
            let seed = store.meta("seed")?.unwrap_or_default();
            Url::parse(&seed).with_context(|| format!("{}: no start URL recorded", db.display()))?
        }
    };
    Ok((start, db))
}

/// The crawl's fetcher: the shared options, the connections asked for,
/// the certificate authorities added, the requests signed.
fn fetcher(args: &CrawlArgs, identity: &Identity) -> Result<Fetcher> {
    let mut fetcher = args
        .politeness
        .fetcher(identity)
        .fresh_connections(args.fresh_connections)
        .http2_prior_knowledge(args.http2_prior_knowledge);
    for path in &args.ca_cert {
        let pem = std::fs::read(path)
            .with_context(|| format!("--ca-cert: cannot read {}", path.display()))?;
        fetcher = fetcher.trust_pem(path.display().to_string(), pem);
    }
    if let Some(path) = &args.sign_key {
        let signer = crate::args::load_signer(
            path,
            "--sign-key",
            args.signature_agent.as_deref(),
            args.signature_agent_form,
        )?;
        fetcher = fetcher.signer(Some(Arc::new(signer)));
    }
    Ok(fetcher.build()?)
}

/// The browser of `--render`, started before the crawl so that a missing
/// one is said at once.
fn browser(
    args: &CrawlArgs,
    identity: &Identity,
    runtime: &tokio::runtime::Runtime,
) -> Result<Option<Arc<Chromium>>> {
    if !args.render {
        return Ok(None);
    }
    if shared(args).is_some() {
        bail!("--render is for a crawl by one worker");
    }
    let binary = match &args.chromium {
        Some(path) => path.clone(),
        None => default_binary().context(
            "--render: no `chromium` on the PATH; install the Debian package `chromium` \
             (scripts/setup does), or name the binary with --chromium",
        )?,
    };
    let mut config = ChromiumConfig::new(binary, identity.user_agent());
    config.tabs = usize::try_from(args.render_tabs).unwrap_or(2);
    config.budget = Duration::from_secs(args.render_budget);
    Ok(Some(runtime.block_on(Chromium::start(config))?))
}

/// What `--workers N` and `--redis URL` ask for, if anything: a crawl
/// shared by workers.
fn shared(args: &CrawlArgs) -> Option<Shared<'_>> {
    (args.workers > 1 || args.redis.is_some()).then(|| Shared {
        redis: args.redis.as_deref(),
        redis_access: &args.redis_access,
        redis_wait: Duration::from_secs(args.redis_wait),
        crawl: args.crawl_name.as_deref(),
        workers: usize::try_from(args.workers).unwrap_or(1),
        concurrency: 8,
        lease: Duration::from_secs(args.lease.max(1)),
    })
}

/// A new crawl's store, with the settings it was started with.
fn new_store(db: &Path, matches: Option<&ArgMatches>) -> Result<Store> {
    let store = Store::create(db)?;
    if let Some(matches) = matches {
        store.set_meta(SETTINGS_META, &settings_of(matches).to_meta())?;
    }
    Ok(store)
}

/// What a crawl that ended asks once it is done, each saying on standard
/// error what it did: the certificates of its HTTPS origins (a crawl by
/// one worker), its resources (`--resources`), its external links
/// (`--check-external`).
struct After<'a> {
    fetcher: &'a Fetcher,
    config: &'a CrawlConfig,
    stop: &'a StopSignal,
    runtime: &'a tokio::runtime::Runtime,
}

impl After<'_> {
    /// Each of them in turn, for the crawl in `store`.
    #[allow(clippy::print_stderr)]
    fn crawl(&self, args: &CrawlArgs, store: &mut Store) -> Result<()> {
        if shared(args).is_none() {
            let read = self
                .runtime
                .block_on(check_certificates(store, self.fetcher))?;
            if read.read + read.failed > 0 {
                eprintln!("botwarden: {read}");
            }
        }
        if args.resources {
            let asked = self.runtime.block_on(check_resources(
                store,
                self.fetcher,
                self.config,
                &ResourceConfig::default(),
                self.stop,
            ))?;
            eprintln!("botwarden: {asked}");
        }
        if args.check_external {
            external_links(store, self.fetcher, self.runtime)?;
        }
        Ok(())
    }
}

/// `--check-external`: the links to other sites asked, what was done said
/// on standard error.
#[allow(clippy::print_stderr)]
fn external_links(
    store: &mut Store,
    fetcher: &Fetcher,
    runtime: &tokio::runtime::Runtime,
) -> Result<()> {
    let checked = runtime.block_on(check_external(store, fetcher, &ExternalConfig::default()))?;
    eprintln!("botwarden: {checked}");
    Ok(())
}

/// What a crawl says at its end: the summary (and the audit) on standard
/// output, how it ended on standard error; exit 3 when URLs are left.
fn report(
    args: &CrawlArgs,
    store: &Store,
    end: &CrawlEnd,
    started: Instant,
    db: &Path,
) -> Result<ExitCode> {
    let summary = Summary::read(store)?;
    let audit = if args.audit {
        Some(audit(store, args.format)?)
    } else {
        None
    };
    let mut out = std::io::stdout().lock();
    match (args.format, &audit) {
        (Format::Json, Some(audit)) => Format::Json.write(
            &mut out,
            &serde_json::json!({ "crawl": &summary, "audit": audit }),
        )?,
        (Format::Json, None) => Format::Json.write(&mut out, &summary)?,
        (Format::Text, _) => {
            write!(out, "{summary}")?;
            if let Some(audit) = &audit {
                write!(out, "\n{audit}")?;
            }
        }
    }
    out.flush().context("cannot write to standard output")?;
    tell_end(args, &summary, end, started, db)
}

/// `--audit`: the crawl's audit, as `botwarden audit` makes it.
fn audit(store: &Store, format: Format) -> Result<AuditDocument> {
    let settings = crate::cmd::audit::settings(AuditSettings::default(), None)?;
    let mut doc = AuditDocument::build(
        &Audit {
            max_depth: settings.max_depth(),
            selection: settings.selection()?,
            readers: crate::cmd::audit::readers(),
        },
        store,
        None,
    )?;
    if format == Format::Json {
        doc.report.limit_evidence(settings.max_evidence());
    }
    Ok(doc)
}

/// How the crawl ended, on standard error: its pages and time, the
/// addresses refused, the URLs held, the URLs left (exit 3).
#[allow(clippy::print_stderr)]
fn tell_end(
    args: &CrawlArgs,
    summary: &Summary,
    end: &CrawlEnd,
    started: Instant,
    db: &Path,
) -> Result<ExitCode> {
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
    if refused && !args.politeness.allow_private {
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
