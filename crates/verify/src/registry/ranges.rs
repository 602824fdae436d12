//! Published IP range feeds: the operators' lists of the addresses their
//! crawlers use, by feed URL, with the feed's own creation time.
//!
//! A snapshot of every feed the default registry names is compiled in
//! (`crates/verify/data/ranges/`); `botwarden bots update` fetches fresh
//! copies into a [`FeedStore`](super::FeedStore), which lays those over the
//! snapshot (the newer copy of a feed wins).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::Error;
use crate::ipset::{Cidr, Span};

/// One feed: its URL, when it was made and fetched, and its prefixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feed {
    /// The feed's URL (the bots' `ranges_url`).
    pub url: String,
    /// The feed's own creation time (`creationTime`), as it wrote it.
    pub created: Option<String>,
    /// When this copy was fetched (RFC 3339), if known.
    pub fetched: Option<String>,
    /// Where this copy came from: `snapshot` or a file path.
    pub source: String,
    /// The prefixes.
    pub prefixes: Vec<Cidr>,
}

/// A feed's time as operators write it: RFC 3339 (`2026-09-02T14:41:06+00:00`,
/// `…Z`), or without an offset (Google's `2024-11-26T15:46:03.000000`), read
/// as UTC.
fn parse_time(text: &str) -> Option<SystemTime> {
    let text = text.trim();
    let at = text.parse::<jiff::Timestamp>().ok().or_else(|| {
        text.parse::<jiff::civil::DateTime>()
            .ok()
            .and_then(|dt| dt.to_zoned(jiff::tz::TimeZone::UTC).ok())
            .map(|z| z.timestamp())
    })?;
    Some(SystemTime::from(at))
}

impl Feed {
    /// When the operator made this copy (`creationTime`, read as UTC when
    /// it names no offset); `None` when the feed gives no time that reads.
    #[must_use]
    pub fn created_at(&self) -> Option<SystemTime> {
        self.created.as_deref().and_then(parse_time)
    }

    /// When this copy was fetched; `None` for the snapshot's copies.
    #[must_use]
    pub fn fetched_at(&self) -> Option<SystemTime> {
        self.fetched.as_deref().and_then(parse_time)
    }

    /// How old this copy is at `now`: since it was fetched, else since the
    /// operator made it (the snapshot's copies, whose `creationTime` is the
    /// day they were fetched); `None` when neither time reads. A time after
    /// `now` gives zero.
    #[must_use]
    pub fn age(&self, now: SystemTime) -> Option<Duration> {
        let at = self.fetched_at().or_else(|| self.created_at())?;
        Some(now.duration_since(at).unwrap_or(Duration::ZERO))
    }

    /// A version string for evidence: the creation time, else the fetch
    /// time, else `unknown`.
    #[must_use]
    pub fn version(&self) -> &str {
        self.created
            .as_deref()
            .or(self.fetched.as_deref())
            .unwrap_or("unknown")
    }

    /// Reads a feed in the Google format:
    /// `{"creationTime": "…", "prefixes": [{"ipv4Prefix": "…"}, {"ipv6Prefix": "…"}]}`.
    /// Every bad prefix is an error naming its place (`prefixes[3].ipv4Prefix`);
    /// unknown keys are ignored, as feeds add fields (`syncToken`, `service`).
    ///
    /// # Errors
    /// [`Error::Feed`] naming the URL and every problem.
    pub fn parse_google_json(url: &str, body: &[u8]) -> Result<Feed, Error> {
        let fail = |problems: Vec<String>| Error::Feed {
            url: url.to_owned(),
            problems,
        };
        let value: Value =
            serde_json::from_slice(body).map_err(|e| fail(vec![format!("not JSON: {e}")]))?;
        let Some(prefixes) = value.get("prefixes").and_then(Value::as_array) else {
            return Err(fail(vec!["no `prefixes` list".to_owned()]));
        };
        let mut problems = Vec::new();
        let mut out = Vec::with_capacity(prefixes.len());
        for (i, p) in prefixes.iter().enumerate() {
            let key = ["ipv4Prefix", "ipv6Prefix"]
                .into_iter()
                .find(|k| p.get(k).is_some());
            let Some(key) = key else {
                problems.push(format!(
                    "prefixes[{i}]: neither `ipv4Prefix` nor `ipv6Prefix`"
                ));
                continue;
            };
            let Some(text) = p[key].as_str() else {
                problems.push(format!("prefixes[{i}].{key}: not a string"));
                continue;
            };
            match Cidr::parse(text) {
                Ok(c) if c.network.is_ipv4() != (key == "ipv4Prefix") => problems.push(format!(
                    "prefixes[{i}].{key}: `{text}` is of the other address family"
                )),
                Ok(c) if Span::of(c.bounds().0, c.bounds().1).too_wide() => {
                    let span = Span::of(c.bounds().0, c.bounds().1);
                    problems.push(format!(
                        "prefixes[{i}].{key}: `{text}` spans {span}: wider than any operator publishes for its crawlers (a /{} at most)",
                        span.widest()
                    ));
                }
                Ok(c) => out.push(c),
                Err(e) => problems.push(format!("prefixes[{i}].{key}: {e}")),
            }
        }
        if !problems.is_empty() {
            return Err(fail(problems));
        }
        Ok(Feed {
            url: url.to_owned(),
            created: value
                .get("creationTime")
                .and_then(Value::as_str)
                .map(str::to_owned),
            fetched: None,
            source: String::new(),
            prefixes: out,
        })
    }

    /// The stored form of a fetched feed: the feed's body, plus the URL and
    /// the fetch time, as one JSON document.
    #[must_use]
    pub fn stored(url: &str, fetched: &str, body: &Value) -> Value {
        serde_json::json!({ "url": url, "fetched_at": fetched, "feed": body })
    }

    fn from_stored(path: &Path, text: &[u8]) -> Result<Feed, Error> {
        let fail = |p: String| Error::Feed {
            url: path.display().to_string(),
            problems: vec![p],
        };
        let value: Value =
            serde_json::from_slice(text).map_err(|e| fail(format!("not JSON: {e}")))?;
        let url = value
            .get("url")
            .and_then(Value::as_str)
            .ok_or_else(|| fail("no `url`".to_owned()))?;
        let feed = value
            .get("feed")
            .ok_or_else(|| fail("no `feed`".to_owned()))?;
        let body = serde_json::to_vec(feed).map_err(|e| fail(e.to_string()))?;
        let mut parsed = Feed::parse_google_json(url, &body).map_err(|e| match e {
            Error::Feed { problems, .. } => Error::Feed {
                url: format!("{} ({url})", path.display()),
                problems,
            },
            other => other,
        })?;
        parsed.fetched = value
            .get("fetched_at")
            .and_then(Value::as_str)
            .map(str::to_owned);
        parsed.source = path.display().to_string();
        Ok(parsed)
    }
}

/// The feeds known, by URL.
#[derive(Debug, Clone, Default)]
pub struct PublishedRanges {
    feeds: BTreeMap<String, Feed>,
}

impl PublishedRanges {
    /// No feeds.
    #[must_use]
    pub fn new() -> PublishedRanges {
        PublishedRanges::default()
    }

    /// The snapshot compiled into the binary.
    ///
    /// # Panics
    /// Never: every snapshot file is checked by the tests.
    #[must_use]
    pub fn snapshot() -> PublishedRanges {
        let mut out = PublishedRanges::new();
        for (url, body) in super::snapshot::FEEDS {
            let mut feed = Feed::parse_google_json(url, body.as_bytes())
                .unwrap_or_else(|e| panic!("the compiled-in snapshot is broken: {e}"));
            feed.source = "snapshot".to_owned();
            out.insert(feed);
        }
        out
    }

    /// Adds a feed; a copy of the same URL is replaced when this one is not
    /// older (by creation time, then by fetch time).
    pub fn insert(&mut self, feed: Feed) {
        match self.feeds.get(&feed.url) {
            Some(old)
                if (old.created.as_deref(), old.fetched.as_deref())
                    > (feed.created.as_deref(), feed.fetched.as_deref()) => {}
            _ => {
                self.feeds.insert(feed.url.clone(), feed);
            }
        }
    }

    /// Lays the feeds stored in `dir` (by `bots update`) over these. A file
    /// that cannot be read is returned as an [`Error::Feed`] and skipped;
    /// the others are still read.
    ///
    /// # Errors
    /// The directory itself cannot be listed.
    pub fn load_dir(&mut self, dir: &Path) -> std::io::Result<Vec<Error>> {
        let mut bad = Vec::new();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        for path in paths {
            match std::fs::read(&path) {
                Ok(text) => match Feed::from_stored(&path, &text) {
                    Ok(feed) => self.insert(feed),
                    Err(e) => bad.push(e),
                },
                Err(e) => bad.push(Error::Feed {
                    url: path.display().to_string(),
                    problems: vec![e.to_string()],
                }),
            }
        }
        Ok(bad)
    }

    /// The feed of that URL.
    #[must_use]
    pub fn get(&self, url: &str) -> Option<&Feed> {
        self.feeds.get(url)
    }

    /// Every feed, by URL.
    pub fn iter(&self) -> impl Iterator<Item = &Feed> {
        self.feeds.values()
    }

    /// A file name for storing the feed of `url`: its host and path with
    /// every other character replaced, so it is stable and readable.
    #[must_use]
    pub fn file_name(url: &str) -> String {
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let mut name: String = rest
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if let Some(stem) = name.strip_suffix(".json") {
            name = stem.to_owned();
        }
        name.push_str(".json");
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(created: Option<&str>, fetched: Option<&str>) -> Feed {
        Feed {
            url: "https://feeds.example/bot.json".into(),
            created: created.map(str::to_owned),
            fetched: fetched.map(str::to_owned),
            source: String::new(),
            prefixes: Vec::new(),
        }
    }

    #[test]
    fn feed_times_read_with_and_without_an_offset() {
        let noon = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_000_000);
        let day = Duration::from_secs(24 * 3600);
        for created in [
            "2026-11-17T11:06:40Z",
            "2026-11-17T11:06:40+00:00",
            "2026-11-17T12:06:40+01:00",
            // Google writes no offset, and microseconds.
            "2026-11-17T11:06:40.000000",
        ] {
            let f = feed(Some(created), None);
            assert_eq!(f.age(noon), Some(day), "{created}");
        }
        // The fetch time wins when there is one.
        let f = feed(Some("2020-01-01T00:00:00Z"), Some("2026-11-17T11:06:40Z"));
        assert_eq!(f.age(noon), Some(day));
        assert_eq!(feed(Some("yesterday"), None).age(noon), None);
        // A copy from the future is of no age.
        let f = feed(Some("2030-01-01T00:00:00Z"), None);
        assert_eq!(f.age(noon), Some(Duration::ZERO));
    }
}
