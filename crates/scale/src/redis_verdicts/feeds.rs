//! Published range feeds shared on Redis: one node's `bots update`
//! fetches a feed and stores it with its version; the others take that
//! copy instead of fetching it again.
//!
//! One hash per feed, `botwarden:v1:feed:URL`, with `body` (the feed as
//! fetched), `fetched` (when, RFC 3339) and `version` (its creation time,
//! else the fetch time). A copy replaces the stored one only when its
//! version is not older.

use std::collections::HashMap;
use std::sync::Arc;

use botwarden_verify::{Feed, WIRE_VERSION};

use super::link::{Link, Timeouts};
use crate::RedisTarget;

/// A feed as Redis holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedFeed {
    /// The body as fetched.
    pub body: Vec<u8>,
    /// When it was fetched (RFC 3339).
    pub fetched: String,
    /// Its version: the creation time, else the fetch time.
    pub version: String,
}

/// The feeds shared on Redis.
#[derive(Debug)]
pub struct RedisFeeds {
    link: Arc<Link>,
}

impl RedisFeeds {
    /// The feeds on `target`. Redis need not answer: the calls then answer
    /// `None` and [`RedisFeeds::is_up`] says so.
    pub async fn connect(target: RedisTarget, timeouts: Timeouts) -> RedisFeeds {
        RedisFeeds {
            link: Link::open(target, timeouts).await,
        }
    }

    /// Whether Redis answers.
    #[must_use]
    pub fn is_up(&self) -> bool {
        self.link.is_up()
    }

    /// Where the feeds are.
    #[must_use]
    pub fn target(&self) -> &RedisTarget {
        self.link.target()
    }

    fn key(url: &str) -> String {
        format!("botwarden:v{WIRE_VERSION}:feed:{url}")
    }

    /// The copy of the feed of `url` Redis holds: `Some(None)` when it has
    /// none, `None` when Redis did not answer.
    pub async fn get(&self, url: &str) -> Option<Option<SharedFeed>> {
        let cmd = redis::cmd("HGETALL").arg(Self::key(url)).clone();
        let timeout = self.link.timeouts().write;
        let mut map: HashMap<String, Vec<u8>> =
            self.link.cmd("HGETALL feed", timeout, &cmd).await?;
        let text = |v: Vec<u8>| String::from_utf8(v).ok();
        let fetched = map.remove("fetched").and_then(text);
        let version = map.remove("version").and_then(text);
        Some(match (map.remove("body"), fetched, version) {
            (Some(body), Some(fetched), Some(version)) => Some(SharedFeed {
                body,
                fetched,
                version,
            }),
            _ => None,
        })
    }

    /// Offers a freshly fetched copy of `feed` (its `body` as fetched):
    /// stored unless Redis holds a newer version. `Some(true)` when
    /// stored, `Some(false)` when Redis keeps its newer copy, `None` when
    /// Redis did not answer.
    pub async fn offer(&self, feed: &Feed, body: &[u8]) -> Option<bool> {
        let fetched = feed.fetched.clone().unwrap_or_default();
        let version = feed.version().to_owned();
        if let Some(Some(held)) = self.get(&feed.url).await
            && held.version > version
        {
            return Some(false);
        }
        let cmd = redis::cmd("HSET")
            .arg(Self::key(&feed.url))
            .arg("body")
            .arg(body)
            .arg("fetched")
            .arg(&fetched)
            .arg("version")
            .arg(&version)
            .clone();
        let timeout = self.link.timeouts().write;
        self.link
            .cmd::<i64>("HSET feed", timeout, &cmd)
            .await
            .map(|_| true)
    }
}
