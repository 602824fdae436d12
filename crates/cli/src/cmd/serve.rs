//! `botwarden serve`: the JSON API, the verification endpoint for web
//! servers and the web checker (`botwarden-serve`), with logs on standard
//! error.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use botwarden_serve::{Config, RewriteMap, Service};
use clap::Args;

use crate::args::RedisArgs;
use crate::format::Format;
use tracing_subscriber::filter::LevelFilter;

/// Arguments of `botwarden serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address and port to listen on [default: the file's `listen`, else
    /// 127.0.0.1:8080]; port 0 picks a free one.
    #[arg(long, value_name = "ADDR")]
    listen: Option<SocketAddr>,
    /// The configuration file (TOML; docs/serve.md lists the keys).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Answer 403 on /verify for spoofed crawlers (default: monitor mode,
    /// always 200).
    #[arg(long)]
    enforce: bool,
    /// A proxy whose client-address header is believed (address or CIDR);
    /// repeat for several.
    #[arg(long = "trusted-proxy", value_name = "CIDR")]
    trusted_proxies: Vec<String>,
    /// Fetch robots.txt and key directories from loopback and private
    /// addresses too (and key directories over plain http).
    #[arg(long)]
    allow_private: bool,
    /// A certificate authority (PEM) trusted beside the built-in roots for
    /// what the service fetches (robots.txt, key directories), as on a
    /// staging network; repeat for several.
    #[arg(long = "ca-cert", value_name = "PEM")]
    ca_cert: Vec<PathBuf>,
    /// A registry or uap_extras file read after the default registry.
    #[arg(long = "registry", value_name = "FILE")]
    registry: Vec<PathBuf>,
    /// Start from an empty registry instead of the default one.
    #[arg(long)]
    no_default_registry: bool,
    /// Where `bots update` stores published ranges.
    #[arg(long, value_name = "DIR")]
    ranges_dir: Option<PathBuf>,
    /// The name server verification asks (ADDR:PORT) instead of the
    /// system's.
    #[arg(long, value_name = "ADDR:PORT")]
    nameserver: Option<SocketAddr>,
    /// Verify by address lists and published ranges only.
    #[arg(long)]
    no_dns: bool,
    /// A Web Bot Auth signature agent (an origin, e.g.
    /// `https://crawler.example`) whose well-known key directory may be
    /// fetched, besides the registry's; repeat for several.
    #[arg(long = "signature-agent", value_name = "ORIGIN")]
    signature_agents: Vec<String>,
    #[command(flatten)]
    redis: RedisArgs,
    /// Log format on standard error.
    #[arg(long, default_value = "text", value_parser = Format::parser(
        "One line per event, for people",
        "One JSON object per event, for log collectors",
    ))]
    log_format: Format,
    /// Log every request, `/verify` included (default: `/verify` is not
    /// logged one by one; the metrics count it).
    #[arg(long)]
    debug: bool,
    /// Do not serve: be Apache's `RewriteMap prg:` helper, answering each
    /// `ADDRESS USER-AGENT` line on standard input with `STATUS VERDICT
    /// METHOD NAME` from the service running at URL (e.g.
    /// http://127.0.0.1:8080).
    #[arg(long, value_name = "URL")]
    rewrite_map: Option<String>,
    /// With --rewrite-map: seconds the service may wait for a verification
    /// not in its cache before answering unknown (it goes on in the
    /// background).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 0.05,
        requires = "rewrite_map"
    )]
    map_wait: f64,
    /// With --rewrite-map: seconds one ask may take, connecting included.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 0.5,
        requires = "rewrite_map"
    )]
    map_timeout: f64,
}

/// The file's configuration with the options over it.
fn config(args: &ServeArgs) -> Result<Config> {
    let mut config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the configuration {}", path.display()))?;
            Config::from_toml(path, &text)?
        }
        None => Config::default(),
    };
    if let Some(listen) = args.listen {
        config.listen = listen;
    }
    config.enforce |= args.enforce;
    config
        .trusted_proxies
        .extend(args.trusted_proxies.iter().cloned());
    config.allow_private |= args.allow_private;
    config.ca_cert.extend(args.ca_cert.iter().cloned());
    config.registry.extend(args.registry.iter().cloned());
    config.no_default_registry |= args.no_default_registry;
    if args.ranges_dir.is_some() {
        config.ranges_dir.clone_from(&args.ranges_dir);
    }
    if args.nameserver.is_some() {
        config.nameserver = args.nameserver;
    }
    config.no_dns |= args.no_dns;
    config
        .web_bot_auth
        .agents
        .extend(args.signature_agents.iter().cloned());
    Ok(config)
}

pub(crate) fn run(args: &ServeArgs) -> Result<ExitCode> {
    let level = if args.debug {
        LevelFilter::DEBUG
    } else {
        LevelFilter::INFO
    };
    let logs = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_ansi(false);
    match args.log_format {
        Format::Text => logs.init(),
        Format::Json => logs.json().init(),
    }
    if let Some(url) = &args.rewrite_map {
        return rewrite_map(url, args);
    }
    let mut config = config(args)?;
    let listen = config.listen;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.io_threads)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut verifier = botwarden_verify::VerifierConfig::offline();
    args.redis.attach(&mut verifier, &runtime)?;
    config.shared = verifier.shared;
    let service = Service::new(config)?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("cannot listen on {listen}"))?;
        let bound = listener
            .local_addr()
            .with_context(|| format!("cannot listen on {listen}"))?;
        // The handlers are in place before anyone is told where to connect,
        // so a SIGTERM right after the line above stops the service
        // gracefully rather than by the signal's default action.
        let stop = shutdown();
        #[allow(clippy::print_stderr)]
        {
            eprintln!("botwarden: listening on http://{bound}/");
        }
        service.run(listener, stop).await?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Seconds from an option, checked.
fn seconds(name: &str, value: f64, min: f64) -> Result<Duration> {
    if value.is_finite() && value >= min && value <= 60.0 {
        Ok(Duration::from_secs_f64(value))
    } else {
        anyhow::bail!("{name} {value} is not a number of seconds between {min} and 60")
    }
}

/// `--rewrite-map URL`: Apache's helper on standard input and output until
/// Apache closes standard input.
fn rewrite_map(url: &str, args: &ServeArgs) -> Result<ExitCode> {
    let mut map = RewriteMap::new(url)?;
    map.wait = seconds("--map-wait", args.map_wait, 0.0)?;
    map.timeout = seconds("--map-timeout", args.map_timeout, 0.001)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let counts = runtime.block_on(map.run(
        tokio::io::BufReader::new(tokio::io::stdin()),
        tokio::io::stdout(),
    ))?;
    #[allow(clippy::print_stderr)]
    {
        eprintln!(
            "botwarden: rewrite map: {} answered, {} unknown (service not reachable), {} bad keys",
            counts.answered, counts.unreachable, counts.bad_keys
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Completes on Ctrl-C or SIGTERM. The handlers are installed when this is
/// called (inside the runtime), not when the future is first polled.
fn shutdown() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let signals = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let (interrupt, terminate) = signals;
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {},
                () = wait(terminate) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
