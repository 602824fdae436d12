//! `botwarden logs analyze`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use botwarden_fetch::{KeyDirConfig, KeyDirectories};
use botwarden_logs::{
    Analysis, AnalyzeOptions, Analyzer, CrawlSite, FormatChoice, Listed, LogFormat, Progress, Run,
    Targets, TextOptions, UsagePolicy, expand_inputs, render_html, render_text,
    trusted_proxy_warnings, write_join_csv,
};
use botwarden_scale::stream::{PairPublisher, StreamConfig, VerdictView};
use botwarden_scale::{ExportFile, ExportTree, RedisExports, Timeouts, TreeLimits};
use botwarden_verify::{AgentKind, Cidr, Classifier, KeyRing, Verifier};
use clap::{Args, ValueEnum};

use crate::args::{DnsArgs, RegistryArgs, positive_seconds};

/// Options of `logs analyze`.
#[derive(Debug, Args)]
pub(crate) struct AnalyzeArgs {
    /// Log files, quoted glob patterns, or `-` for standard input.
    #[arg(required = true, value_name = "FILE")]
    inputs: Vec<String>,
    /// The log format: `auto` (pick per file), a preset (`common`,
    /// `combined`, `vhost_common`, `vhost_combined`, `nginx`, `elb`, `alb`,
    /// `s3`, `haproxy`, `gandi`, `json`, `w3c`), an Apache `LogFormat` string, an nginx
    /// `log_format` string, `json:field=name,…` or `w3c:field field …`.
    #[arg(long, value_name = "FORMAT", default_value = "auto")]
    format: String,
    #[command(flatten)]
    registry: RegistryArgs,
    #[command(flatten)]
    dns: DnsArgs,
    /// A proxy (address or CIDR) whose `X-Forwarded-For` is trusted;
    /// repeat for more. Requests from them are counted for the right-most
    /// forwarded address that is not a trusted proxy.
    #[arg(long = "trust-proxy", value_name = "CIDR", value_parser = parse_cidr)]
    trusted_proxies: Vec<Cidr>,
    /// The report's form [default: text for `analyze`, none for `export`].
    #[arg(long, value_enum)]
    report: Option<ReportKind>,
    /// Where to write the report (standard output by default).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Paths listed per bot.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top_paths: usize,
    /// Files read at once [default: the number of CPUs].
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Keep reading the files as they grow (and across rotation) until
    /// interrupted; exports are rewritten as new crawlers are verified.
    #[arg(long)]
    follow: bool,
    /// In follow mode, how often exports are rewritten when something
    /// changed.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = positive_seconds)]
    export_interval: Duration,
    /// Hand the pairs to central verifiers over this NATS server
    /// (`nats://host:4222`) instead of asking DNS here, and render the
    /// exports from the verdicts of the whole fleet (the server's bucket);
    /// run `botwarden logs verifier --nats URL` centrally.
    #[arg(long, value_name = "URL")]
    nats: Option<String>,
    #[command(flatten)]
    nats_access: super::nats::NatsAccess,
    /// No progress bar, even on a terminal.
    #[arg(long)]
    no_progress: bool,
    /// Fetch no key directory: signed lines (Web Bot Auth, in formats that
    /// record `Signature-Input`, `Signature` and `Signature-Agent`) are
    /// checked with the registry's `signature_keys` only. By default the
    /// directories of the registry's `signature_agents` are fetched once,
    /// before reading.
    #[arg(long)]
    no_fetch_keys: bool,
    #[command(flatten)]
    key_directories: crate::args::DirectoryFetchArgs,
    /// The site's robots.txt (a file, or a site URL whose `/robots.txt` is
    /// fetched): for each crawler whose category uses content for AI
    /// training, AI input or search, the report counts its requests for
    /// paths whose usage preferences (`Content-Usage`, `Content-Signal`)
    /// refuse that use.
    #[arg(long, value_name = "FILE|URL")]
    robots: Option<String>,
    /// A crawl store (`crawl --db`) of the site the log is from: the
    /// report adds, per URL and per verified bot, requests per day, last
    /// seen, statuses and their changes, bytes; per directory and bot
    /// category; the crawl's pages no verified search bot requested, the
    /// requested URLs the crawl did not find, requests by link depth and
    /// link score and on redirects, errors, non-canonical and noindex
    /// URLs; and robots.txt compliance: requests to URLs the robots.txt in
    /// force disallowed (a dated copy of `--robots-history`, else
    /// `--robots`, else the crawl's copy), Crawl-delay kept or not. Without
    /// `--robots`, usage preferences are measured against the crawl's
    /// copy. See crates/logs/docs/join.md.
    #[arg(long, value_name = "STORE")]
    crawl: Option<PathBuf>,
    /// With `--crawl`: dated copies of the site's robots.txt, each file
    /// named by the day it was fetched (`2026-11-19.txt`); a request is
    /// judged by the copy in force that day (UTC), a request before the
    /// first copy by the crawl's copy or `--robots`.
    #[arg(long, value_name = "DIR", requires = "crawl")]
    robots_history: Option<PathBuf>,
    /// With `--crawl`: write the verified addresses of bots that
    /// requested a URL robots.txt disallowed to them, in every export
    /// format, into DIR: `ignoring-robots.txt` (one per line),
    /// `ignoring-robots.map` (Apache RewriteMap), `ignoring-robots.geo`
    /// (nginx), `ignoring-robots.haproxy`, `ignoring-robots.json` and the
    /// ACAP tree `ignoring-robots/`.
    #[arg(long, value_name = "DIR", requires = "crawl")]
    export_ignoring_robots: Option<PathBuf>,
    /// With `--crawl`: write the join's tables as CSV files into DIR
    /// (created if missing): bots.csv, categories.csv, urls.csv (a row per
    /// URL and bot), directories.csv, never-crawled.csv,
    /// status-changes.csv, waste.csv, orphans.csv, bands.csv,
    /// crawl-delay.csv.
    #[arg(long, value_name = "DIR", requires = "crawl")]
    crawl_csv: Option<PathBuf>,
    #[command(flatten)]
    exports: ExportArgs,
}

/// Where to write the lists web servers read. Each is replaced atomically.
#[derive(Debug, Clone, Args)]
pub(crate) struct ExportArgs {
    /// The ACAP file tree: DIR/all-ok-bots/IP, DIR/BOT/IP,
    /// DIR/other-bots/IP, DIR/suspect-bots/IP (empty files).
    #[arg(long, value_name = "DIR")]
    export_acap: Option<PathBuf>,
    /// An Apache RewriteMap text file (`IP BOT`, `IP spoofed`).
    #[arg(long, value_name = "FILE")]
    export_apache_map: Option<PathBuf>,
    /// An nginx `geo` include.
    #[arg(long, value_name = "FILE")]
    export_nginx_geo: Option<PathBuf>,
    /// A HAProxy map for `map_ip`.
    #[arg(long, value_name = "FILE")]
    export_haproxy: Option<PathBuf>,
    /// Verified crawler addresses, one per line.
    #[arg(long, value_name = "FILE")]
    export_verified: Option<PathBuf>,
    /// Addresses that pretend to be a registered crawler, one per line.
    #[arg(long, value_name = "FILE")]
    export_spoofed: Option<PathBuf>,
    /// Every listed address with its bot and standing, as a JSON array.
    #[arg(long, value_name = "FILE")]
    export_json: Option<PathBuf>,
}

impl ExportArgs {
    fn targets(&self) -> Targets {
        Targets {
            acap: self.export_acap.clone(),
            apache_map: self.export_apache_map.clone(),
            nginx_geo: self.export_nginx_geo.clone(),
            haproxy_map: self.export_haproxy.clone(),
            verified_list: self.export_verified.clone(),
            spoofed_list: self.export_spoofed.clone(),
            json: self.export_json.clone(),
        }
    }
}

/// The report's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportKind {
    /// Tables for a terminal.
    Text,
    /// The documented JSON shape.
    Json,
    /// One self-contained HTML file with charts.
    Html,
    /// No report (for exports only).
    None,
}

fn parse_cidr(text: &str) -> Result<Cidr, String> {
    let text = text.trim();
    let full = if text.contains('/') {
        text.to_owned()
    } else if text.contains(':') {
        format!("{text}/128")
    } else {
        format!("{text}/32")
    };
    Cidr::parse(&full).map_err(|e| e.to_string())
}

/// The keys signed lines are checked with: the registry's, and the
/// directories of its signature agents when `fetch` (one that cannot be
/// had is said on standard error; its lines are `unknown`).
fn signature_keys(
    verifier: &Verifier,
    runtime: &tokio::runtime::Runtime,
    fetch: Option<&crate::args::DirectoryFetchArgs>,
) -> Result<KeyRing> {
    let mut ring = KeyRing::from_registry(verifier.registry());
    let urls = verifier.signature_agent_urls();
    let Some(fetch) = fetch.filter(|_| !urls.is_empty()) else {
        return Ok(ring);
    };
    let fetcher = fetch.fetcher()?;
    let directories = KeyDirectories::new(fetcher, KeyDirConfig::default());
    for url in urls {
        let got = runtime.block_on(directories.get(url, AgentKind::Directory));
        match &got.keys {
            Ok(keys) => ring.insert_directory(url, (**keys).clone()),
            Err(why) => {
                #[allow(clippy::print_stderr)]
                {
                    eprintln!(
                        "botwarden: warning: key directory {url}: {why}; \
                         lines signed by its agent are unknown"
                    );
                }
                ring.insert_unreachable(url, why.clone());
            }
        }
    }
    Ok(ring)
}

/// Runs `logs analyze` (`export_only` false) or `logs export`.
pub(crate) fn run(args: &AnalyzeArgs, export_only: bool) -> Result<ExitCode> {
    let targets = args.exports.targets();
    if export_only && targets.is_empty() {
        anyhow::bail!("logs export needs at least one --export-… option");
    }
    let report = args.report.unwrap_or(if export_only {
        ReportKind::None
    } else {
        ReportKind::Text
    });
    for warning in trusted_proxy_warnings(&args.trusted_proxies) {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("botwarden: warning: --trust-proxy {warning}");
        }
    }
    let inputs = expand_inputs(&args.inputs)?;
    let format = if args.format == "auto" {
        FormatChoice::Auto
    } else {
        FormatChoice::Fixed(LogFormat::from_spec(&args.format).context("--format")?)
    };
    let (classifier, runtime, verifier) = verification(args)?;
    let (options, view) = options(args, format, &verifier, &runtime)?;
    let total_bytes: Option<u64> = inputs.iter().map(|i| i.size()).sum();
    let announcer = match (args.dns.redis.target()?, targets.is_empty()) {
        (Some(target), false) => {
            Some(runtime.block_on(RedisExports::connect(target, Timeouts::default())))
        }
        _ => None,
    };
    let announce_exports = |bar: Option<&indicatif::ProgressBar>| {
        if let Some(announcer) = &announcer {
            announce(&runtime, announcer, &targets, bar);
        }
    };
    let analyzer = Analyzer::new(classifier, verifier, runtime.handle().clone());
    let crawl = options.crawl.clone();
    let run = analyzer.start(inputs, options);
    wait(
        args,
        &run,
        view.as_ref(),
        &targets,
        total_bytes,
        &announce_exports,
    );
    let analysis = run.finish();
    if let Some(e) = crawl.and_then(|site| site.take_error()) {
        return Err(anyhow::Error::new(e).context("--crawl"));
    }
    conclude(
        args,
        report,
        &analysis,
        view.as_ref(),
        &targets,
        &announce_exports,
    )
}

/// The User-Agent classifier, the runtime verification runs on, and the
/// verifier.
fn verification(
    args: &AnalyzeArgs,
) -> Result<(Arc<Classifier>, tokio::runtime::Runtime, Arc<Verifier>)> {
    let registry = Arc::new(args.registry.load()?);
    let classifier = Arc::new(
        Classifier::for_registry(&registry)
            .context("cannot build the User-Agent classifier")?
            .with_cache(100_000),
    );
    // The analysis verifies each (address, bot) pair once: large verdict
    // and DNS caches would only hold memory (DNS answers are shared by the
    // few bots that share addresses, and those are asked close together).
    let mut config = args.dns.config();
    config.cache_capacity = 4_096;
    if let Some(dns) = &mut config.dns {
        dns.max_entries = dns.max_entries.min(16_384);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    args.dns.redis.attach(&mut config, &runtime)?;
    let verifier = Arc::new(Verifier::new(registry, config).context("cannot set up verification")?);
    Ok((classifier, runtime, verifier))
}

/// The analysis' options; with `--nats`, the view of the fleet's verdicts
/// (pairs go to the central verifiers, exports come from the bucket).
fn options(
    args: &AnalyzeArgs,
    format: FormatChoice,
    verifier: &Verifier,
    runtime: &tokio::runtime::Runtime,
) -> Result<(AnalyzeOptions, Option<VerdictView>)> {
    let mut options = AnalyzeOptions {
        format,
        trusted_proxies: args.trusted_proxies.clone(),
        top_paths: args.top_paths,
        follow: args.follow,
        ..AnalyzeOptions::default()
    };
    if let Some(n) = args.threads {
        options.threads = n.max(1);
    }
    let view = match &args.nats {
        Some(url) => {
            let logs =
                super::nats::connect(runtime, url, &args.nats_access, StreamConfig::default())?;
            let _entered = runtime.enter();
            options.pairs = Some(Arc::new(PairPublisher::new(logs.clone())));
            Some(runtime.block_on(VerdictView::start(&logs)))
        }
        None => None,
    };
    if args.follow || view.is_some() {
        let stop = options.stop.clone();
        runtime.spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                stop.store(true, Ordering::Relaxed);
            }
        });
    }
    options.signature_keys = Some(Arc::new(signature_keys(
        verifier,
        runtime,
        (!args.no_fetch_keys).then_some(&args.key_directories),
    )?));
    let robots = args
        .robots
        .as_deref()
        .map(crate::cmd::robots::source::Source::read)
        .transpose()?;
    if let Some(source) = &robots {
        options.usage = Some(Arc::new(UsagePolicy::new(
            source.name.clone(),
            source.body.clone(),
        )));
    }
    if let Some(path) = &args.crawl {
        let mut site = CrawlSite::open(path).context("--crawl")?;
        if let Some(source) = &robots {
            site.set_robots(&source.name, &source.body);
        }
        if let Some(dir) = &args.robots_history {
            site.read_robots_history(dir).context("--robots-history")?;
        }
        if options.usage.is_none() {
            options.usage = site.usage_policy().map(Arc::new);
        }
        options.crawl = Some(Arc::new(site));
    }
    Ok((options, view))
}

/// Waits for the run to end, with a progress bar on a terminal; when
/// following, writes the exports every `--export-interval` if the verdicts
/// changed.
fn wait(
    args: &AnalyzeArgs,
    run: &Run,
    view: Option<&VerdictView>,
    targets: &Targets,
    total_bytes: Option<u64>,
    announce_exports: &dyn Fn(Option<&indicatif::ProgressBar>),
) {
    let bar = (!args.no_progress && std::io::stderr().is_terminal())
        .then(|| progress_bar(total_bytes, args.follow));
    let mut last_export = Instant::now();
    let mut exported_generation = u64::MAX;
    while !run.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
        if let Some(bar) = &bar {
            update_bar(bar, run.progress());
        }
        if args.follow && last_export.elapsed() >= args.export_interval {
            let generation = match view {
                Some(view) => view.generation(),
                None => run.progress().generation.load(Ordering::Relaxed),
            };
            if generation != exported_generation {
                exported_generation = generation;
                if !targets.is_empty() {
                    let listed = view.map_or_else(|| run.listed(), VerdictView::listed);
                    if export(targets, &listed, bar.as_ref()) {
                        announce_exports(bar.as_ref());
                    }
                }
            }
            last_export = Instant::now();
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

/// Writes the exports and the report once the run is over; the exit
/// status is 1 when an export or an input failed.
fn conclude(
    args: &AnalyzeArgs,
    report: ReportKind,
    analysis: &Analysis,
    view: Option<&VerdictView>,
    targets: &Targets,
    announce_exports: &dyn Fn(Option<&indicatif::ProgressBar>),
) -> Result<ExitCode> {
    let mut code = ExitCode::SUCCESS;
    let listed = match view {
        // The fleet's verdicts, and this run's own even if the view has
        // not seen the last of them yet.
        Some(view) => {
            let mut listed = view.listed();
            listed.extend(analysis.listed.iter().cloned());
            listed.sort();
            listed.dedup();
            listed
        }
        None => analysis.listed.clone(),
    };
    if !targets.is_empty() {
        if export(targets, &listed, None) {
            announce_exports(None);
        } else {
            code = ExitCode::from(1);
        }
    }
    if let Some(dir) = &args.export_ignoring_robots {
        let written = std::fs::create_dir_all(dir)
            .with_context(|| format!("--export-ignoring-robots {}", dir.display()))
            .and_then(|()| {
                Ok(Targets::in_dir(dir, "ignoring-robots").write(&analysis.ignoring_robots)?)
            });
        #[allow(clippy::print_stderr)]
        match written {
            Ok(lines) => {
                for l in lines {
                    eprintln!("botwarden: export {l}");
                }
            }
            Err(e) => {
                eprintln!("botwarden: export failed: {e:#}");
                code = ExitCode::from(1);
            }
        }
    }
    if let (Some(dir), Some(join)) = (&args.crawl_csv, &analysis.report.crawl) {
        std::fs::create_dir_all(dir).with_context(|| format!("--crawl-csv {}", dir.display()))?;
        write_join_csv(join, dir).context("--crawl-csv")?;
    }
    write_report(args, report, analysis)?;
    let failed_inputs = analysis
        .report
        .inputs
        .iter()
        .filter(|i| i.error.is_some())
        .count();
    if failed_inputs > 0 {
        code = ExitCode::from(1);
    }
    Ok(code)
}

/// Writes the exports; a failure is reported and the run goes on (in
/// follow mode the next round tries again). True when all were written.
fn export(targets: &Targets, listed: &[Listed], bar: Option<&indicatif::ProgressBar>) -> bool {
    let say = |msg: String| match bar {
        Some(b) => b.println(msg),
        #[allow(clippy::print_stderr)]
        None => eprintln!("{msg}"),
    };
    match targets.write(listed) {
        Ok(lines) => {
            for l in lines {
                say(format!("botwarden: export {l}"));
            }
            true
        }
        Err(e) => {
            say(format!(
                "botwarden: export failed: {}",
                crate::cmd::with_causes(&e)
            ));
            false
        }
    }
}

/// Announces the exports just written (the files, and the ACAP tree as
/// read back) on Redis for `logs exports-follow`.
fn announce(
    runtime: &tokio::runtime::Runtime,
    announcer: &RedisExports,
    targets: &Targets,
    bar: Option<&indicatif::ProgressBar>,
) {
    let say = |msg: String| match bar {
        Some(b) => b.println(msg),
        #[allow(clippy::print_stderr)]
        None => eprintln!("{msg}"),
    };
    let mut files = Vec::new();
    for path in [
        &targets.apache_map,
        &targets.nginx_geo,
        &targets.haproxy_map,
        &targets.verified_list,
        &targets.spoofed_list,
        &targets.json,
    ]
    .into_iter()
    .flatten()
    {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match std::fs::read(path) {
            Ok(body) => files.push(ExportFile { name, body }),
            Err(e) => say(format!(
                "botwarden: export {} not announced: {e}",
                path.display()
            )),
        }
    }
    let mut trees = Vec::new();
    if let Some(dir) = &targets.acap {
        match ExportTree::read(dir, &TreeLimits::default()) {
            Ok((tree, left_out)) => {
                if let Some(r) = left_out {
                    say(format!("botwarden: export {r}"));
                }
                trees.push(tree);
            }
            Err(e) => say(format!(
                "botwarden: export {} not announced: {}",
                dir.display(),
                crate::cmd::with_causes(&e)
            )),
        }
    }
    match runtime.block_on(announcer.announce(&files, &trees)) {
        Some(announced) => {
            for r in &announced.refused {
                say(format!("botwarden: export {r}; not announced"));
            }
            say(format!(
                "botwarden: exports announced on redis {} as version {} ({} files, {} trees)",
                announcer.target().describe(),
                announced.version,
                announced.files,
                announced.trees,
            ));
        }
        None => say(format!(
            "botwarden: warning: exports not announced: redis {} did not answer",
            announcer.target().describe()
        )),
    }
}

fn progress_bar(total: Option<u64>, follow: bool) -> indicatif::ProgressBar {
    let bar = match total {
        Some(t) if !follow => indicatif::ProgressBar::new(t),
        _ => indicatif::ProgressBar::new_spinner(),
    };
    let style = if total.is_some() && !follow {
        "{bar:30} {bytes}/{total_bytes} {msg} [{elapsed}, {eta} left]"
    } else {
        "{spinner} {bytes} {msg} [{elapsed}]"
    };
    if let Ok(s) = indicatif::ProgressStyle::with_template(style) {
        bar.set_style(s);
    }
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr_with_hz(4));
    bar
}

fn update_bar(bar: &indicatif::ProgressBar, p: &Progress) {
    bar.set_position(p.bytes.load(Ordering::Relaxed));
    bar.set_message(format!(
        "{} lines, {}/{} verified",
        p.lines.load(Ordering::Relaxed),
        p.verdicts.load(Ordering::Relaxed),
        p.pairs.load(Ordering::Relaxed),
    ));
}

fn write_report(args: &AnalyzeArgs, report: ReportKind, analysis: &Analysis) -> Result<()> {
    let text = match report {
        ReportKind::None => return Ok(()),
        ReportKind::Json => {
            let mut s = serde_json::to_string_pretty(&analysis.report)?;
            s.push('\n');
            s
        }
        ReportKind::Html => render_html(&analysis.report),
        ReportKind::Text => {
            let color = args.output.is_none() && std::io::stdout().is_terminal();
            render_text(
                &analysis.report,
                &TextOptions {
                    color,
                    top_paths: args.top_paths.min(5),
                    ..TextOptions::default()
                },
            )
        }
    };
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(())
}
