//! `--nats` for `logs analyze` (pairs to central verifiers, exports from
//! the verdict bucket) and `botwarden logs verifier`.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, Result};
use botwarden_scale::stream::{
    NatsLogs, StreamConfig, VerifierOptions, VerifierStats, run_verifier,
};
use botwarden_verify::Verifier;
use clap::Args;

use crate::args::{DnsArgs, RegistryArgs, positive_seconds};

/// Connects to NATS, creating the stream and the bucket if missing.
pub(crate) fn connect(
    runtime: &tokio::runtime::Runtime,
    url: &str,
    config: StreamConfig,
) -> Result<NatsLogs> {
    // The error names the URL and what was being done.
    Ok(runtime.block_on(NatsLogs::connect(url, config))?)
}

/// Options of `logs verifier`.
#[derive(Debug, Args)]
pub(crate) struct VerifierArgs {
    /// The NATS server (`nats://host:4222`; several comma-separated).
    #[arg(long, value_name = "URL")]
    nats: String,
    #[command(flatten)]
    registry: RegistryArgs,
    #[command(flatten)]
    dns: DnsArgs,
    /// Pairs verified at once.
    #[arg(long, value_name = "N", default_value_t = 64,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    in_flight: u32,
    /// How long a verified, spoofed or unverifiable verdict stands in the
    /// bucket.
    #[arg(long, value_name = "SECS", default_value = "86400", value_parser = positive_seconds)]
    verdict_ttl: Duration,
    /// How long an `unknown` verdict (DNS failed) stands.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = positive_seconds)]
    unknown_ttl: Duration,
    /// How long a verifier may hold a pair unacknowledged before it goes
    /// to another (set when the verifiers' consumer is created).
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = positive_seconds)]
    ack_wait: Duration,
}

/// Runs `logs verifier` until interrupted.
pub(crate) fn verifier(args: &VerifierArgs) -> Result<ExitCode> {
    let registry = Arc::new(args.registry.load()?);
    let verifier =
        Arc::new(Verifier::new(registry, args.dns.config()).context("cannot set up verification")?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let config = StreamConfig {
        verdict_ttl: args.verdict_ttl,
        unknown_ttl: args.unknown_ttl,
        ack_wait: args.ack_wait,
        ..StreamConfig::default()
    };
    let logs = connect(&runtime, &args.nats, config)?;
    let stats = Arc::new(VerifierStats::default());
    let options = VerifierOptions {
        in_flight: args.in_flight as usize,
        ..VerifierOptions::default()
    };
    say(&format!("verifying pairs from {}", args.nats));
    runtime.block_on(run_verifier(
        &logs,
        verifier,
        &options,
        stats.clone(),
        shutdown(),
    ))?;
    let n = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    say(&format!(
        "{} pairs received: {} verified, {} answered already, {} refused, {} left for redelivery",
        n(&stats.received),
        n(&stats.verified),
        n(&stats.already_answered),
        n(&stats.rejected),
        n(&stats.failed),
    ));
    Ok(ExitCode::SUCCESS)
}

/// Ctrl-C or SIGTERM.
async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

fn say(text: &str) {
    #[allow(clippy::print_stderr)]
    {
        eprintln!("botwarden: {text}");
    }
}
