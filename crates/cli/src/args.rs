//! Argument groups and value parsers that several commands share.

use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use botwarden_scale::{RedisTarget, RedisVerdicts, Secret, Timeouts};
use botwarden_verify::{
    DEFAULT_EXTRAS_NAME, DEFAULT_REGISTRY_NAME, DnsConfig, FeedStore, Problem, Registry,
    RegistryBuilder, Severity, VerifierConfig,
};
use clap::Args;

/// Which registry to use: the default one, your files over it, and the
/// published ranges fetched by `bots update`.
#[derive(Debug, Clone, Args)]
pub(crate) struct RegistryArgs {
    /// A registry or uap_extras file (told by its content), read after the
    /// default registry; later files replace earlier entries of the same
    /// name. Repeat for several.
    #[arg(long = "registry", value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Start from an empty registry instead of the default one.
    #[arg(long)]
    pub(crate) no_default_registry: bool,
    /// Where `bots update` stores published ranges [default:
    /// $BOTWARDEN_RANGES_DIR, else $XDG_CACHE_HOME/botwarden/ranges, else
    /// ~/.cache/botwarden/ranges].
    #[arg(long, value_name = "DIR")]
    pub(crate) ranges_dir: Option<PathBuf>,
}

impl RegistryArgs {
    /// The store of fetched feeds: in the option's directory, else the
    /// default one.
    pub(crate) fn feed_store(&self) -> Option<FeedStore> {
        match &self.ranges_dir {
            Some(dir) => Some(FeedStore::new(dir)),
            None => FeedStore::default_location(),
        }
    }

    /// Reads every file into a builder (the default registry first unless
    /// told not to) and lays the stored ranges over the snapshot. Problems
    /// in stored feeds are returned as warnings to print.
    pub(crate) fn builder(&self) -> Result<(RegistryBuilder, Vec<String>)> {
        let mut builder = if self.no_default_registry {
            RegistryBuilder::new()
        } else {
            RegistryBuilder::with_defaults()
        };
        for path in &self.files {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let text = String::from_utf8(bytes).map_err(|e| {
                anyhow::anyhow!(
                    "{}: not UTF-8 (byte {})",
                    path.display(),
                    e.utf8_error().valid_up_to()
                )
            })?;
            builder.add_file(&path.display().to_string(), &text);
        }
        let mut notes = Vec::new();
        if let Some(store) = self.feed_store() {
            let bad = store.read_into(builder.ranges_mut())?;
            notes.extend(bad.iter().map(|e| format!("warning: skipped {e}")));
        }
        Ok((builder, notes))
    }

    /// The checked registry; problems go to standard error, and errors
    /// stop the command.
    pub(crate) fn load(&self) -> Result<Registry> {
        let (builder, notes) = self.builder()?;
        let (registry, problems) = builder.build();
        let mut err = std::io::stderr().lock();
        for note in &notes {
            writeln!(err, "botwarden: {note}")?;
        }
        // The default registry's own warnings are for `registry check`.
        for p in problems
            .iter()
            .filter(|p| p.severity == Severity::Warning && !is_builtin(p))
        {
            writeln!(err, "{p}")?;
        }
        match registry {
            Some(r) => Ok(r),
            None => {
                for p in problems.iter().filter(|p| p.severity == Severity::Error) {
                    writeln!(err, "{p}")?;
                }
                bail!("the registry has the errors above; fix them, or leave the file out")
            }
        }
    }
}

/// Whether a problem is in the default registry or extras.
pub(crate) fn is_builtin(p: &Problem) -> bool {
    matches!(&*p.file, DEFAULT_REGISTRY_NAME | DEFAULT_EXTRAS_NAME)
}

/// How to ask DNS, shared by the commands that verify.
#[derive(Debug, Clone, Args)]
pub(crate) struct DnsArgs {
    /// The name server to ask (`ADDR` or `ADDR:PORT`) instead of the
    /// system's.
    #[arg(long, value_name = "ADDR", value_parser = parse_nameserver)]
    pub(crate) nameserver: Option<SocketAddr>,
    /// Verify by addresses and published ranges only; bots that need
    /// reverse DNS come out `unknown`.
    #[arg(long)]
    pub(crate) no_dns: bool,
    /// Seconds one DNS lookup may take.
    #[arg(long, value_name = "SECS", default_value = "2",
          value_parser = |s: &str| seconds_up_to(s, 60))]
    pub(crate) dns_timeout: Duration,
    /// DNS lookups in flight at once.
    #[arg(long, value_name = "N", default_value_t = 64,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub(crate) concurrency: u32,
    #[command(flatten)]
    pub(crate) redis: RedisArgs,
}

/// `--redis`: the verdict cache shared with other processes.
#[derive(Debug, Clone, Args)]
pub(crate) struct RedisArgs {
    /// Share verdicts with other processes through Redis or Valkey: one
    /// URL (`redis://HOST:PORT/`, `rediss://` for TLS) for a server,
    /// several separated by commas (or `redis+cluster://HOST:PORT/`) for a
    /// Redis Cluster.
    #[arg(long, value_name = "URLS")]
    pub(crate) redis: Option<String>,
    /// Milliseconds a read of the shared cache may take before the verdict
    /// is worked out here (and Redis counted down until it answers again).
    #[arg(long, value_name = "MS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub(crate) redis_timeout: u64,
    #[command(flatten)]
    pub(crate) access: RedisAccess,
}

impl RedisArgs {
    /// The target `--redis` names, with its credentials and TLS settings
    /// (`None` without `--redis`).
    pub(crate) fn target(&self) -> Result<Option<RedisTarget>> {
        self.redis
            .as_deref()
            .map(|urls| self.access.target(urls))
            .transpose()
    }

    /// Connects the shared cache (when asked for) on `runtime` and puts it
    /// in `config`. Redis need not answer yet: verification goes on
    /// without it until it does.
    ///
    /// # Errors
    /// A URL that does not parse, a secret or CA file that cannot be read.
    pub(crate) fn attach(
        &self,
        config: &mut VerifierConfig,
        runtime: &tokio::runtime::Runtime,
    ) -> Result<()> {
        let Some(target) = self.target()? else {
            return Ok(());
        };
        let mut timeouts = Timeouts::default();
        timeouts.read = Duration::from_millis(self.redis_timeout);
        timeouts.write = timeouts.write.max(timeouts.read);
        let shared = runtime.block_on(RedisVerdicts::connect(target, timeouts));
        config.shared = Some(shared);
        Ok(())
    }
}

/// The environment variable that may hold the Redis password.
pub(crate) const REDIS_PASSWORD_ENV: &str = "BOTWARDEN_REDIS_PASSWORD";

/// How to reach Redis beyond its URL: credentials kept out of the command
/// line, and a private CA for TLS.
#[derive(Debug, Clone, Args)]
pub(crate) struct RedisAccess {
    /// Log in to Redis as this user (Redis 6 ACLs; in place of the URL's).
    #[arg(long, value_name = "NAME", env = "BOTWARDEN_REDIS_USER")]
    pub(crate) redis_user: Option<String>,
    /// Read the Redis password from this file (its line breaks at the end
    /// left out). Else it is taken from $BOTWARDEN_REDIS_PASSWORD, else
    /// from the URL (where the process list shows it).
    #[arg(long, value_name = "FILE", env = "BOTWARDEN_REDIS_PASSWORD_FILE")]
    pub(crate) redis_password_file: Option<PathBuf>,
    /// Trust the CA certificates of this PEM file for `rediss://` (a
    /// private CA), instead of the system's.
    #[arg(long, value_name = "FILE", env = "BOTWARDEN_REDIS_CA")]
    pub(crate) redis_ca: Option<PathBuf>,
}

impl RedisAccess {
    /// `urls` as a target, with the credentials and CA these options give.
    ///
    /// # Errors
    /// A URL that does not parse, a secret or CA file that cannot be read;
    /// each names the option, never the password.
    pub(crate) fn target(&self, urls: &str) -> Result<RedisTarget> {
        let mut target = RedisTarget::parse(urls).context("--redis")?;
        if let Some(user) = &self.redis_user {
            target = target.with_username(user);
        }
        let password = match &self.redis_password_file {
            Some(path) => Some(Secret::from_file(path).context("--redis-password-file")?),
            None => std::env::var(REDIS_PASSWORD_ENV)
                .ok()
                .filter(|p| !p.is_empty())
                .map(Secret::new),
        };
        if let Some(password) = &password {
            target = target.with_password(password);
        }
        if let Some(ca) = &self.redis_ca {
            target = target.with_ca_file(ca).context("--redis-ca")?;
        }
        Ok(target)
    }
}

impl DnsArgs {
    /// The verifier configuration these options ask for.
    pub(crate) fn config(&self) -> VerifierConfig {
        if self.no_dns {
            return VerifierConfig::offline();
        }
        let mut dns = match self.nameserver {
            Some(addr) => DnsConfig::with_nameserver(addr),
            None => DnsConfig::default(),
        };
        dns.timeout = self.dns_timeout;
        dns.concurrency = self.concurrency as usize;
        VerifierConfig::with_dns(dns)
    }
}

fn parse_nameserver(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    text.trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .map(|ip| SocketAddr::new(ip, 53))
        .map_err(|_| format!("'{text}' is not an address or address:port"))
}

/// A number of seconds above 0 and at most `most`.
pub(crate) fn seconds_up_to(text: &str, most: u32) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= f64::from(most) => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "'{text}' is not a number of seconds between 0 and {most}"
        )),
    }
}

/// A positive number of seconds, as long as a `Duration` holds.
pub(crate) fn positive_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("'{text}' is not a positive number of seconds"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds() {
        assert_eq!(seconds_up_to("1.5", 60), Ok(Duration::from_millis(1500)));
        assert!(seconds_up_to("0", 60).is_err());
        assert!(seconds_up_to("61", 60).is_err());
        assert!(seconds_up_to("NaN", 60).is_err());
        assert_eq!(positive_seconds("5"), Ok(Duration::from_secs(5)));
        // Past what a `Duration` holds: an error, not a panic.
        assert_eq!(
            positive_seconds("1e300"),
            Err("'1e300' is not a positive number of seconds".to_owned())
        );
        assert!(positive_seconds("inf").is_err());
        assert!(positive_seconds("-1").is_err());
    }
}

/// How Web Bot Auth key directories are fetched: `bots verify`, `logs
/// analyze` and `bots check-agent` share these.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct DirectoryFetchArgs {
    /// Allow key directories on loopback and private addresses, and over
    /// plain http (both refused by default: the protocol draft has
    /// directories served over https).
    #[arg(long)]
    pub(crate) allow_private: bool,
    /// A certificate authority (PEM) trusted for https key directories
    /// beside the built-in roots, as for a staging network; repeat for
    /// several.
    #[arg(long = "ca-cert", value_name = "PEM")]
    pub(crate) ca_cert: Vec<PathBuf>,
}

impl DirectoryFetchArgs {
    /// The fetcher of key directories: these settings, and 10 s for a
    /// fetch.
    pub(crate) fn fetcher(&self) -> Result<botwarden_fetch::Fetcher> {
        let mut builder = botwarden_fetch::Fetcher::builder()
            .allow_private(self.allow_private)
            .timeout(Duration::from_secs(10));
        for path in &self.ca_cert {
            let pem = std::fs::read(path)
                .with_context(|| format!("--ca-cert: cannot read {}", path.display()))?;
            builder = builder.trust_pem(path.display().to_string(), pem);
        }
        builder
            .build()
            .context("cannot set up the HTTP client for key directories")
    }

    /// Whether any was given.
    pub(crate) fn any(&self) -> bool {
        self.allow_private || !self.ca_cert.is_empty()
    }
}

/// The form of `Signature-Agent` a signer sends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum AgentFormArg {
    /// `sig1="https://…"`, covered with `;key="sig1"`: the protocol draft's
    /// form.
    #[default]
    Dictionary,
    /// `"https://…"`, covered whole: the form Cloudflare's verifier reads.
    String,
}

impl From<AgentFormArg> for botwarden_verify::AgentForm {
    fn from(form: AgentFormArg) -> botwarden_verify::AgentForm {
        match form {
            AgentFormArg::Dictionary => botwarden_verify::AgentForm::Dictionary,
            AgentFormArg::String => botwarden_verify::AgentForm::String,
        }
    }
}

/// The Web Bot Auth signer of a key file (a JWK, or PKCS#8 PEM as `bots
/// keygen` writes), naming `agent` in `form`; `flag` names the option in
/// errors.
pub(crate) fn load_signer(
    path: &std::path::Path,
    flag: &str,
    agent: Option<&str>,
    form: AgentFormArg,
) -> Result<botwarden_verify::Signer> {
    use botwarden_verify::Signer;
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{flag}: cannot read {}", path.display()))?;
    let what = path.display().to_string();
    let signer = if text.trim_start().starts_with("-----BEGIN") {
        Signer::from_pkcs8_pem(&text, &what)?
    } else {
        Signer::from_jwk(&text, &what)?
    };
    Ok(match agent {
        Some(url) => signer
            .agent(url, form.into())
            .with_context(|| format!("{flag}: the signature agent"))?,
        None => signer,
    })
}
