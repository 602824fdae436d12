//! Following the announced exports on a web server: each version written
//! into one directory (every file atomically, every tree swapped in
//! whole), then the web server told to read them again.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use botwarden_logs::{AcapOptions, write_acap_dirs, write_atomic};

use super::exports::{Announcement, RedisExports, is_plain_name};
use super::tree::Refused;
use crate::Error;

/// The bytes of a reload command's standard error kept (its end).
const STDERR_KEPT: usize = 4096;

/// What [`write_announcement`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// The files written.
    pub files: usize,
    /// The trees swapped in: each one's name and its files.
    pub trees: Vec<(String, usize)>,
}

impl Written {
    /// Whether nothing was written.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files == 0 && self.trees.is_empty()
    }
}

/// Writes an announcement's files and trees into `dir` (created if
/// missing), by their names: each file atomically
/// ([`write_atomic`]: a temporary file synced and renamed over the old
/// one), each tree as a new generation swapped in whole
/// ([`write_acap_dirs`]: readers see the old tree or the new one; old
/// generations go a few seconds later). Files first, then trees; the
/// first failure stops the writing.
///
/// # Errors
/// [`Error::Invalid`] for a name that is not a
/// [plain name](is_plain_name) (nothing is written outside `dir`);
/// [`Error::Io`] or [`Error::Export`] naming the path that could not be
/// written.
pub fn write_announcement(dir: &Path, a: &Announcement) -> Result<Written, Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        operation: "create the directory".into(),
        source,
    })?;
    let check = |name: &str| {
        if is_plain_name(name) {
            Ok(())
        } else {
            Err(Error::Invalid {
                what: format!("export {name:?} of version {}", a.version),
                message: "not a plain file name; nothing written outside the directory".into(),
            })
        }
    };
    let mut written = Written::default();
    for file in &a.files {
        check(&file.name)?;
        write_atomic(&dir.join(&file.name), &file.body).map_err(Error::Export)?;
        written.files += 1;
    }
    for tree in &a.trees {
        check(&tree.name)?;
        write_acap_dirs(&dir.join(&tree.name), &tree.dirs, &AcapOptions::default())
            .map_err(Error::Export)?;
        written.trees.push((tree.name.clone(), tree.files()));
    }
    Ok(written)
}

/// A command that makes the web server read its lists again
/// (`nginx -s reload`, `systemctl reload haproxy`), run by `sh -c`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReloadCommand {
    /// The command line.
    pub command: String,
    /// How long it may run before it is killed.
    pub timeout: Duration,
}

impl ReloadCommand {
    /// `command`, allowed a minute.
    #[must_use]
    pub fn new(command: impl Into<String>) -> ReloadCommand {
        ReloadCommand {
            command: command.into(),
            timeout: Duration::from_secs(60),
        }
    }

    /// Runs the command (blocking) with no input and its standard output
    /// discarded; its exit and the end of its standard error are returned.
    #[must_use]
    pub fn run(&self) -> Reloaded {
        let reloaded = |status, stderr: Vec<u8>| Reloaded {
            command: self.command.clone(),
            status,
            stderr: String::from_utf8_lossy(&stderr).trim_end().to_owned(),
        };
        let mut child = match Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => return reloaded(ReloadStatus::NotStarted(e.to_string()), Vec::new()),
        };
        // Standard error is read on a thread, so that a command writing
        // much never blocks on a full pipe; only its end is kept.
        let (tx, rx) = mpsc::channel();
        if let Some(mut pipe) = child.stderr.take() {
            std::thread::spawn(move || {
                let mut kept = Vec::new();
                let mut chunk = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    kept.extend_from_slice(&chunk[..n]);
                    if kept.len() > 2 * STDERR_KEPT {
                        kept.drain(..kept.len() - STDERR_KEPT);
                    }
                }
                if kept.len() > STDERR_KEPT {
                    kept.drain(..kept.len() - STDERR_KEPT);
                }
                let _ = tx.send(kept);
            });
        }
        let deadline = Instant::now() + self.timeout;
        let mut pause = Duration::from_millis(1);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break exit_status(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break ReloadStatus::TimedOut(self.timeout);
                }
                Ok(None) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(e) => break ReloadStatus::NotStarted(e.to_string()),
            }
        };
        // A process the command left running may hold standard error
        // open: what came so far is not waited for past a second.
        let stderr = rx.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
        reloaded(status, stderr)
    }
}

fn exit_status(status: std::process::ExitStatus) -> ReloadStatus {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => ReloadStatus::Exited(code),
        (None, Some(signal)) => ReloadStatus::Signalled(signal),
        (None, None) => ReloadStatus::NotStarted(status.to_string()),
    }
}

/// How a reload command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReloadStatus {
    /// It exited with this code (0: success).
    Exited(i32),
    /// A signal ended it.
    Signalled(i32),
    /// It ran past its timeout and was killed.
    TimedOut(Duration),
    /// It could not be started (the system's error).
    NotStarted(String),
}

/// A reload command's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reloaded {
    /// The command line.
    pub command: String,
    /// How it ended.
    pub status: ReloadStatus,
    /// The end of its standard error (at most 4 kB), trailing blanks cut.
    pub stderr: String,
}

impl Reloaded {
    /// Whether it exited with 0.
    #[must_use]
    pub fn succeeded(&self) -> bool {
        self.status == ReloadStatus::Exited(0)
    }
}

impl std::fmt::Display for ReloadStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReloadStatus::Exited(code) => write!(f, "exit status {code}"),
            ReloadStatus::Signalled(signal) => write!(f, "killed by signal {signal}"),
            ReloadStatus::TimedOut(after) => write!(f, "still running after {after:?}; killed"),
            ReloadStatus::NotStarted(why) => write!(f, "could not be run: {why}"),
        }
    }
}

/// A version the follower wrote.
#[derive(Debug)]
pub struct Applied {
    /// The version.
    pub version: String,
    /// What was written.
    pub written: Written,
    /// Names whose bytes Redis no longer held: their old copies stay.
    pub missing: Vec<String>,
    /// What the announcement named that was not taken.
    pub refused: Vec<Refused>,
    /// The reload command's outcome; `None` without one, or when nothing
    /// was written.
    pub reload: Option<Reloaded>,
}

/// One step of [`ExportsFollower::step`].
#[derive(Debug)]
#[non_exhaustive]
pub enum FollowStep {
    /// A version was written (and the reload command run).
    Applied(Applied),
    /// A version could not be written: no reload was run; the next version
    /// is waited for.
    NotWritten {
        /// The version.
        version: String,
        /// What was not taken from it before writing.
        refused: Vec<Refused>,
        /// Why it was not written.
        error: Error,
    },
    /// Nothing was ever announced (the first step only); the follower
    /// waits for the first version from now on.
    NothingYet,
    /// No new version came within the wait.
    Quiet,
    /// Redis did not answer; the caller pauses and steps again.
    RedisDown,
}

/// A web server's follower of the announced exports: catches up with the
/// newest version, then writes each new one into its directory
/// ([`write_announcement`]) and runs the reload command after each version
/// written.
#[derive(Debug)]
pub struct ExportsFollower {
    exports: RedisExports,
    dir: PathBuf,
    reload: Option<ReloadCommand>,
    wait: Duration,
    last: Option<String>,
}

impl ExportsFollower {
    /// Follows `exports` into `dir`, running `reload` after each version
    /// written; each step waits at most 5 s for a new version.
    #[must_use]
    pub fn new(exports: RedisExports, dir: PathBuf, reload: Option<ReloadCommand>) -> Self {
        ExportsFollower {
            exports,
            dir,
            reload,
            wait: Duration::from_secs(5),
            last: None,
        }
    }

    /// The same, waiting at most `wait` in each step.
    #[must_use]
    pub fn with_wait(self, wait: Duration) -> Self {
        ExportsFollower { wait, ..self }
    }

    /// The exports followed.
    #[must_use]
    pub fn exports(&self) -> &RedisExports {
        &self.exports
    }

    /// The first step writes the newest version; each later one waits for
    /// the next (the newest of those that came at once).
    pub async fn step(&mut self) -> FollowStep {
        let got = match &self.last {
            None => self.exports.newest().await,
            Some(id) => self.exports.next_after(id, self.wait).await,
        };
        let a = match got {
            None => return FollowStep::RedisDown,
            Some(None) if self.last.is_none() => {
                self.last = Some("0-0".to_owned());
                return FollowStep::NothingYet;
            }
            Some(None) => return FollowStep::Quiet,
            Some(Some(a)) => a,
        };
        self.last = Some(a.id.clone());
        let dir = self.dir.clone();
        let (a, written) = blocking(move || {
            let written = write_announcement(&dir, &a);
            (a, written)
        })
        .await;
        let written = match written {
            Ok(written) => written,
            Err(error) => {
                return FollowStep::NotWritten {
                    version: a.version,
                    refused: a.refused,
                    error,
                };
            }
        };
        let reload = match &self.reload {
            Some(command) if !written.is_empty() => {
                let command = command.clone();
                Some(blocking(move || command.run()).await)
            }
            _ => None,
        };
        FollowStep::Applied(Applied {
            version: a.version,
            written,
            missing: a.missing,
            refused: a.refused,
            reload,
        })
    }
}

/// Runs `work` off the async threads.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}
