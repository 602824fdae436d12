//! `botwarden logs exports-follow`: on each web server, the exports that
//! `logs analyze --redis` announces, written into a directory as they
//! come, and the web server told to read them.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use botwarden_scale::{
    Applied, ExportsFollower, FollowStep, RedisExports, ReloadCommand, Timeouts,
};
use clap::Args;

use crate::args::RedisAccess;

/// Options of `logs exports-follow`.
#[derive(Debug, Args)]
pub(crate) struct FollowArgs {
    /// Redis or Valkey: one URL, or a cluster's several comma-separated
    /// (or `redis+cluster://HOST:PORT/`).
    #[arg(long, value_name = "URLS")]
    redis: String,
    #[command(flatten)]
    redis_access: RedisAccess,
    /// The directory the exports are written into (files and trees by
    /// their names).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// A command run (by `sh -c`) after each version written, so that the
    /// web server reads the new lists: `nginx -s reload`,
    /// `systemctl reload haproxy`. Its exit status and standard error are
    /// reported; a failure does not stop the follower.
    #[arg(long, value_name = "COMMAND")]
    reload: Option<String>,
    /// Write the newest announced version (and reload) and stop.
    #[arg(long)]
    once: bool,
}

pub(crate) fn run(args: &FollowArgs) -> Result<ExitCode> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot create {}", args.dir.display()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(follow(args))
}

async fn follow(args: &FollowArgs) -> Result<ExitCode> {
    let mut timeouts = Timeouts::default();
    timeouts.write = Duration::from_secs(5);
    timeouts.read = Duration::from_secs(5);
    let target = args.redis_access.target(&args.redis)?;
    let exports = RedisExports::connect(target, timeouts).await;
    let mut follower = ExportsFollower::new(
        exports,
        args.dir.clone(),
        args.reload.clone().map(ReloadCommand::new),
    );
    let mut err = std::io::stderr().lock();
    loop {
        match follower.step().await {
            FollowStep::Applied(applied) => {
                let ok = report(&args.dir, &applied, &mut err)?;
                if args.once {
                    return Ok(if ok {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(1)
                    });
                }
            }
            FollowStep::NotWritten {
                version,
                refused,
                error,
            } => {
                for r in &refused {
                    writeln!(err, "botwarden: export {r}")?;
                }
                writeln!(
                    err,
                    "botwarden: exports version {version} not written (no reload): {}",
                    crate::cmd::with_causes(&error)
                )?;
                if args.once {
                    return Ok(ExitCode::from(1));
                }
            }
            FollowStep::NothingYet if args.once => {
                writeln!(err, "botwarden: no exports announced yet")?;
                return Ok(ExitCode::from(1));
            }
            FollowStep::RedisDown => {
                let target = follower.exports().target().describe();
                if args.once {
                    writeln!(err, "botwarden: redis {target} does not answer")?;
                    return Ok(ExitCode::from(1));
                }
                writeln!(
                    err,
                    "botwarden: redis {target} does not answer; trying again"
                )?;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            _ => {}
        }
    }
}

/// Says what a version wrote and how the reload went; false when the
/// reload failed.
fn report(dir: &std::path::Path, a: &Applied, err: &mut impl std::io::Write) -> Result<bool> {
    for r in &a.refused {
        writeln!(err, "botwarden: export {r}")?;
    }
    for name in &a.missing {
        writeln!(
            err,
            "botwarden: export {name} of version {} is no longer in redis; kept the old copy",
            a.version
        )?;
    }
    let trees: Vec<String> = a
        .written
        .trees
        .iter()
        .map(|(name, files)| format!("{name}/ ({files} files)"))
        .collect();
    writeln!(
        err,
        "botwarden: exports version {} written to {} ({} files{}{})",
        a.version,
        dir.display(),
        a.written.files,
        if trees.is_empty() { "" } else { "; trees " },
        trees.join(", ")
    )?;
    let Some(reload) = &a.reload else {
        return Ok(true);
    };
    let stderr = if reload.stderr.is_empty() {
        String::new()
    } else {
        format!(": {}", reload.stderr.replace('\n', "\n    "))
    };
    if reload.succeeded() {
        writeln!(err, "botwarden: reload `{}`: done{stderr}", reload.command)?;
        Ok(true)
    } else {
        writeln!(
            err,
            "botwarden: warning: reload `{}` failed: {}{stderr}",
            reload.command, reload.status
        )?;
        Ok(false)
    }
}
