//! `--nats` for `logs analyze` (pairs to central verifiers, exports from
//! the verdict bucket) and `botwarden logs verifier`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, Result};
use botwarden_scale::stream::{
    NatsLogs, StreamConfig, VerifierOptions, VerifierStats, run_verifier,
};
use botwarden_scale::{NatsTarget, Secret};
use botwarden_verify::Verifier;
use clap::Args;

use crate::args::{DnsArgs, RegistryArgs, positive_seconds};

/// Connects to NATS, creating the stream and the bucket if missing.
pub(crate) fn connect(
    runtime: &tokio::runtime::Runtime,
    url: &str,
    access: &NatsAccess,
    config: StreamConfig,
) -> Result<NatsLogs> {
    let target = access.target(url)?;
    // The error names the URL (its secrets hidden) and what was being done.
    Ok(runtime.block_on(NatsLogs::open(&target, config))?)
}

/// How to reach NATS beyond its URL: credentials kept out of the command
/// line, and TLS.
#[derive(Debug, Clone, Args)]
pub(crate) struct NatsAccess {
    /// Log in to NATS with this credentials file (`.creds`: a user JWT and
    /// its NKey seed, as `nsc` writes it).
    #[arg(long, value_name = "FILE", env = "BOTWARDEN_NATS_CREDS",
          conflicts_with_all = ["nats_nkey", "nats_user", "nats_token_file"])]
    nats_creds: Option<PathBuf>,
    /// Log in to NATS with the NKey whose user seed (`SU…`) this file holds.
    #[arg(long, value_name = "FILE", env = "BOTWARDEN_NATS_NKEY",
          conflicts_with_all = ["nats_user", "nats_token_file"])]
    nats_nkey: Option<PathBuf>,
    /// Log in to NATS as this user, with the password of
    /// --nats-password-file, else of $BOTWARDEN_NATS_PASSWORD.
    #[arg(
        long,
        value_name = "NAME",
        env = "BOTWARDEN_NATS_USER",
        conflicts_with = "nats_token_file"
    )]
    nats_user: Option<String>,
    /// Read the NATS password (with --nats-user) from this file.
    #[arg(
        long,
        value_name = "FILE",
        env = "BOTWARDEN_NATS_PASSWORD_FILE",
        requires = "nats_user"
    )]
    nats_password_file: Option<PathBuf>,
    /// Log in to NATS with the token this file holds (else the token of
    /// $BOTWARDEN_NATS_TOKEN, else the URL's, `nats://TOKEN@host`).
    #[arg(long, value_name = "FILE", env = "BOTWARDEN_NATS_TOKEN_FILE")]
    nats_token_file: Option<PathBuf>,
    /// Trust the CA certificates of this PEM file for TLS (`tls://`, or a
    /// server that requires TLS), besides the system's.
    #[arg(long, value_name = "FILE", env = "BOTWARDEN_NATS_CA")]
    nats_ca: Option<PathBuf>,
    /// Present this client certificate (PEM) to NATS, with --nats-key.
    #[arg(
        long,
        value_name = "FILE",
        env = "BOTWARDEN_NATS_CERT",
        requires = "nats_key"
    )]
    nats_cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(
        long,
        value_name = "FILE",
        env = "BOTWARDEN_NATS_KEY",
        requires = "nats_cert"
    )]
    nats_key: Option<PathBuf>,
}

/// The environment variables that may hold a NATS password or token.
const NATS_PASSWORD_ENV: &str = "BOTWARDEN_NATS_PASSWORD";
const NATS_TOKEN_ENV: &str = "BOTWARDEN_NATS_TOKEN";

impl NatsAccess {
    /// `url` as a target, with the credentials and TLS settings these
    /// options give.
    ///
    /// # Errors
    /// A URL that does not parse, a file that cannot be read or is not
    /// what it should be; each names the option, never a secret.
    pub(crate) fn target(&self, url: &str) -> Result<NatsTarget> {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let mut target = NatsTarget::parse(url).context("--nats")?;
        if let Some(path) = &self.nats_creds {
            target = target.with_credentials_file(path).context("--nats-creds")?;
        } else if let Some(path) = &self.nats_nkey {
            target = target.with_nkey_file(path).context("--nats-nkey")?;
        } else if let Some(user) = &self.nats_user {
            let password = match &self.nats_password_file {
                Some(path) => Secret::from_file(path).context("--nats-password-file")?,
                None => env(NATS_PASSWORD_ENV).map(Secret::new).with_context(|| {
                    format!("--nats-user: no password: give --nats-password-file or set ${NATS_PASSWORD_ENV}")
                })?,
            };
            target = target.with_user_password(user, password);
        } else if let Some(path) = &self.nats_token_file {
            target = target.with_token(Secret::from_file(path).context("--nats-token-file")?);
        } else if let Some(token) = env(NATS_TOKEN_ENV) {
            target = target.with_token(Secret::new(token));
        }
        if let Some(ca) = &self.nats_ca {
            target = target.with_ca_file(ca).context("--nats-ca")?;
        }
        if let (Some(cert), Some(key)) = (&self.nats_cert, &self.nats_key) {
            target = target
                .with_client_cert(cert, key)
                .context("--nats-cert, --nats-key")?;
        }
        Ok(target)
    }
}

/// Options of `logs verifier`.
#[derive(Debug, Args)]
pub(crate) struct VerifierArgs {
    /// The NATS server (`nats://host:4222`; several comma-separated).
    #[arg(long, value_name = "URL")]
    nats: String,
    #[command(flatten)]
    nats_access: NatsAccess,
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
    let logs = connect(&runtime, &args.nats, &args.nats_access, config)?;
    let stats = Arc::new(VerifierStats::default());
    let options = VerifierOptions {
        in_flight: args.in_flight as usize,
        ..VerifierOptions::default()
    };
    say(&format!("verifying pairs from {}", logs.url()));
    runtime.block_on(run_verifier(
        &logs,
        verifier,
        &options,
        stats.clone(),
        crate::cmd::stop_signal(),
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

fn say(text: &str) {
    #[allow(clippy::print_stderr)]
    {
        eprintln!("botwarden: {text}");
    }
}
