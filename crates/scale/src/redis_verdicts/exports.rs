//! Exports announced on Redis: the node that analyses the logs stores each
//! regenerated export under a new version and adds the version to a
//! stream; every web server follows the stream and swaps its lists when a
//! version is announced.
//!
//! - `botwarden:v1:export:VERSION:NAME` — an export's bytes, kept a day;
//! - `botwarden:v1:export-tree:VERSION:NAME` — a tree of empty files (the
//!   ACAP tree), its entries in one value ([`ExportTree::encode`]), kept a
//!   day;
//! - `botwarden:v1:exports` — the stream of announcements (`version`,
//!   `names`: the file names, comma-separated; `trees`: the tree names,
//!   likewise), the last 100 kept.
//!
//! A follower writes each file atomically and each tree as a new
//! generation swapped in whole ([`write_announcement`](super::write_announcement)).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use botwarden_verify::WIRE_VERSION;

use super::link::{Link, Timeouts};
use super::tree::{ExportTree, Refused, TreeLimits};
use crate::RedisTarget;

/// How long an announced version's files are kept.
const KEEP_SECS: u64 = 24 * 3600;

/// One export file: its name (no directory) and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportFile {
    /// The file name.
    pub name: String,
    /// The bytes.
    pub body: Vec<u8>,
}

/// An announced version with its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    /// The stream entry's id (to follow on from).
    pub id: String,
    /// The version (`MILLIS-PID` of the announcing process).
    pub version: String,
    /// The files, in the announced order.
    pub files: Vec<ExportFile>,
    /// The trees, in the announced order.
    pub trees: Vec<ExportTree>,
    /// Names announced whose bytes Redis no longer holds (older than a
    /// day): not in `files` or `trees`.
    pub missing: Vec<String>,
    /// What the announcement named that was not taken: names that are
    /// not plain, trees over the limits (left out), entries of a tree
    /// that do not read (the rest of the tree taken).
    pub refused: Vec<Refused>,
}

/// What [`RedisExports::announce`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announced {
    /// The version announced.
    pub version: String,
    /// The files announced.
    pub files: usize,
    /// The trees announced.
    pub trees: usize,
    /// Files and trees left out of it, and why.
    pub refused: Vec<Refused>,
}

/// Exports on Redis.
#[derive(Debug)]
pub struct RedisExports {
    link: Arc<Link>,
    limits: TreeLimits,
}

/// Whether `name` is a plain file name (no directory, not `.` or `..`):
/// the only names announced or written.
#[must_use]
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', ',', '\0'])
}

impl RedisExports {
    /// The exports on `target`. Redis need not answer: calls then give
    /// `None` and [`RedisExports::is_up`] says so.
    pub async fn connect(target: RedisTarget, timeouts: Timeouts) -> RedisExports {
        RedisExports {
            link: Link::open(target, timeouts).await,
            limits: TreeLimits::default(),
        }
    }

    /// The same, with other limits on the trees announced and read.
    #[must_use]
    pub fn with_limits(self, limits: TreeLimits) -> RedisExports {
        RedisExports { limits, ..self }
    }

    /// Whether Redis answers.
    #[must_use]
    pub fn is_up(&self) -> bool {
        self.link.is_up()
    }

    /// Where the exports are.
    #[must_use]
    pub fn target(&self) -> &RedisTarget {
        self.link.target()
    }

    fn stream() -> String {
        format!("botwarden:v{WIRE_VERSION}:exports")
    }

    fn file_key(version: &str, name: &str) -> String {
        format!("botwarden:v{WIRE_VERSION}:export:{version}:{name}")
    }

    /// The bound on moving `bytes` to or from Redis: the write timeout
    /// (at least 2 s) and 1 ms per 10 kB; exports are not on any request
    /// path, and a large one takes a while on a busy machine.
    fn transfer_timeout(&self, bytes: usize) -> Duration {
        let per_size = Duration::from_millis(u64::try_from(bytes / 10_000).unwrap_or(u64::MAX));
        self.link.timeouts().write.max(Duration::from_secs(2)) + per_size
    }

    fn tree_key(version: &str, name: &str) -> String {
        format!("botwarden:v{WIRE_VERSION}:export-tree:{version}:{name}")
    }

    /// Stores `files` and `trees` under a new version and announces it;
    /// `None` when Redis did not take it (nothing is announced then). A
    /// name that is not a plain file name, or a tree over the limits, is
    /// left out and said in [`Announced::refused`].
    pub async fn announce(&self, files: &[ExportFile], trees: &[ExportTree]) -> Option<Announced> {
        let millis = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let version = format!("{millis}-{}", std::process::id());
        let timeout = self.link.timeouts().write;
        let mut refused = Vec::new();
        let not_plain = |name: &str| Refused {
            name: name.to_owned(),
            entries: None,
            reason: "not a plain file name (no directory, `,` or NUL)".into(),
        };
        let mut names = Vec::new();
        for file in files {
            if !is_plain_name(&file.name) {
                refused.push(not_plain(&file.name));
                continue;
            }
            let set = redis::cmd("SET")
                .arg(Self::file_key(&version, &file.name))
                .arg(&file.body)
                .arg("EX")
                .arg(KEEP_SECS)
                .clone();
            let timeout = self.transfer_timeout(file.body.len());
            self.link.cmd::<()>("SET export", timeout, &set).await?;
            names.push(file.name.as_str());
        }
        let mut tree_names = Vec::new();
        for tree in trees {
            if !is_plain_name(&tree.name) {
                refused.push(not_plain(&tree.name));
                continue;
            }
            let value = tree.encode();
            if tree.entries() > self.limits.max_entries || value.len() > self.limits.max_bytes {
                refused.push(Refused {
                    name: tree.name.clone(),
                    entries: None,
                    reason: format!(
                        "{} entries in {} bytes: over the limits ({} entries, {} bytes)",
                        tree.entries(),
                        value.len(),
                        self.limits.max_entries,
                        self.limits.max_bytes
                    ),
                });
                continue;
            }
            let timeout = self.transfer_timeout(value.len());
            let set = redis::cmd("SET")
                .arg(Self::tree_key(&version, &tree.name))
                .arg(value)
                .arg("EX")
                .arg(KEEP_SECS)
                .clone();
            self.link
                .cmd::<()>("SET export tree", timeout, &set)
                .await?;
            tree_names.push(tree.name.as_str());
        }
        let add = redis::cmd("XADD")
            .arg(Self::stream())
            .arg("MAXLEN")
            .arg("~")
            .arg(100)
            .arg("*")
            .arg("version")
            .arg(&version)
            .arg("names")
            .arg(names.join(","))
            .arg("trees")
            .arg(tree_names.join(","))
            .clone();
        self.link
            .cmd::<String>("XADD exports", timeout, &add)
            .await?;
        Some(Announced {
            version,
            files: names.len(),
            trees: tree_names.len(),
            refused,
        })
    }

    /// The newest announcement, if any; `None` when Redis did not answer.
    pub async fn newest(&self) -> Option<Option<Announcement>> {
        let cmd = redis::cmd("XREVRANGE")
            .arg(Self::stream())
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .clone();
        let timeout = self.link.timeouts().write;
        let entries: Vec<(String, Vec<String>)> =
            self.link.cmd("XREVRANGE exports", timeout, &cmd).await?;
        match entries.into_iter().next() {
            Some(entry) => self.load(entry).await.map(Some),
            None => Some(None),
        }
    }

    /// Waits at most `wait` for an announcement after the entry `after`
    /// (an [`Announcement::id`], or `0`), and gives the newest one that
    /// came; `Some(None)` when none came, `None` when Redis did not answer.
    pub async fn next_after(&self, after: &str, wait: Duration) -> Option<Option<Announcement>> {
        let millis = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
        let cmd = redis::cmd("XREAD")
            .arg("BLOCK")
            .arg(millis)
            .arg("STREAMS")
            .arg(Self::stream())
            .arg(after)
            .clone();
        let timeout = wait + self.link.timeouts().write + Duration::from_secs(1);
        type Reply = Option<Vec<(String, Vec<(String, Vec<String>)>)>>;
        let reply: Reply = self.link.cmd("XREAD exports", timeout, &cmd).await?;
        let newest = reply
            .into_iter()
            .flatten()
            .flat_map(|(_, entries)| entries)
            .last();
        match newest {
            Some(entry) => self.load(entry).await.map(Some),
            None => Some(None),
        }
    }

    /// The files of one stream entry.
    async fn load(&self, (id, fields): (String, Vec<String>)) -> Option<Announcement> {
        let field = |name: &str| {
            fields
                .chunks(2)
                .find(|kv| kv.first().map(String::as_str) == Some(name))
                .and_then(|kv| kv.get(1).cloned())
                .unwrap_or_default()
        };
        let version = field("version");
        // The bytes to come are not known: the largest a tree may be.
        let timeout = self.transfer_timeout(self.limits.max_bytes);
        let mut files = Vec::new();
        let mut trees = Vec::new();
        let mut missing = Vec::new();
        let mut refused = Vec::new();
        let not_plain = |name: &str| Refused {
            name: name.to_owned(),
            entries: None,
            reason: "not a plain file name; not written".into(),
        };
        for name in field("names").split(',').filter(|n| !n.is_empty()) {
            if !is_plain_name(name) {
                refused.push(not_plain(name));
                continue;
            }
            let get = redis::cmd("GET")
                .arg(Self::file_key(&version, name))
                .clone();
            match self
                .link
                .cmd::<Option<Vec<u8>>>("GET export", timeout, &get)
                .await?
            {
                Some(body) => files.push(ExportFile {
                    name: name.to_owned(),
                    body,
                }),
                None => missing.push(name.to_owned()),
            }
        }
        for name in field("trees").split(',').filter(|n| !n.is_empty()) {
            if !is_plain_name(name) {
                refused.push(not_plain(name));
                continue;
            }
            let get = redis::cmd("GET")
                .arg(Self::tree_key(&version, name))
                .clone();
            let Some(value) = self
                .link
                .cmd::<Option<Vec<u8>>>("GET export tree", timeout, &get)
                .await?
            else {
                missing.push(name.to_owned());
                continue;
            };
            match ExportTree::decode(name, &value, &self.limits) {
                Ok((tree, left_out)) => {
                    trees.push(tree);
                    refused.extend(left_out);
                }
                Err(e) => refused.push(Refused {
                    name: name.to_owned(),
                    entries: None,
                    reason: e.to_string(),
                }),
            }
        }
        Some(Announcement {
            id,
            version,
            files,
            trees,
            missing,
            refused,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::is_plain_name;

    #[test]
    fn only_plain_file_names_are_announced_or_written() {
        assert!(is_plain_name("verified.txt"));
        for bad in ["", ".", "..", "../etc/passwd", "a/b", "a\\b", "a,b", "a\0b"] {
            assert!(!is_plain_name(bad), "{bad:?}");
        }
    }
}
