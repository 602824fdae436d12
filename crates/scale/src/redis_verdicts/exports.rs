//! Exports announced on Redis: the node that analyses the logs stores each
//! regenerated export under a new version and adds the version to a
//! stream; every web server follows the stream and swaps its lists when a
//! version is announced.
//!
//! - `botwarden:v1:export:VERSION:NAME` — an export's bytes, kept a day;
//! - `botwarden:v1:exports` — the stream of announcements (`version`,
//!   `names`: the file names, comma-separated), the last 100 kept.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use botwarden_verify::WIRE_VERSION;

use super::link::{Link, RedisTarget, Timeouts};

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
    /// Names announced whose bytes Redis no longer holds (older than a
    /// day): not in `files`.
    pub missing: Vec<String>,
}

/// Exports on Redis.
#[derive(Debug)]
pub struct RedisExports {
    link: Arc<Link>,
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
        }
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

    /// Stores `files` under a new version and announces it; the version,
    /// or `None` when Redis did not take it (nothing is announced then).
    /// Names that are not plain file names are left out.
    pub async fn announce(&self, files: &[ExportFile]) -> Option<String> {
        let millis = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let version = format!("{millis}-{}", std::process::id());
        let timeout = self.link.timeouts().write;
        let mut names = Vec::new();
        for file in files.iter().filter(|f| is_plain_name(&f.name)) {
            let set = redis::cmd("SET")
                .arg(Self::file_key(&version, &file.name))
                .arg(&file.body)
                .arg("EX")
                .arg(KEEP_SECS)
                .clone();
            self.link.cmd::<()>("SET export", timeout, &set).await?;
            names.push(file.name.as_str());
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
            .clone();
        self.link
            .cmd::<String>("XADD exports", timeout, &add)
            .await?;
        Some(version)
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
        let names = field("names");
        let timeout = self.link.timeouts().write;
        let mut files = Vec::new();
        let mut missing = Vec::new();
        for name in names.split(',').filter(|n| is_plain_name(n)) {
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
        Some(Announcement {
            id,
            version,
            files,
            missing,
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
