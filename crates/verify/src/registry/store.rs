//! The directory of fetched range feeds: which directory, how a fetched
//! feed is checked and written, and how the stored feeds are read back.

use std::path::{Path, PathBuf};

use super::ranges::{Feed, PublishedRanges};
use crate::Error;
use crate::atomic::write_atomic;

/// The directory where `bots update` keeps the range feeds it fetched, one
/// JSON file per feed ([`PublishedRanges::file_name`]), each holding the
/// feed's body as fetched with its URL and fetch time ([`Feed::stored`]).
///
/// Its only file I/O: [`FeedStore::store`] writes a temporary file beside
/// the feed's file, syncs it and renames it over the file, so a reader sees
/// the old copy or the new one, never half a file; [`FeedStore::read_into`]
/// reads every `*.json` file of the directory back.
///
/// ```
/// use botwarden_verify::{FeedStore, PublishedRanges};
///
/// let dir = std::env::temp_dir().join(format!("feed-store-doc-{}", std::process::id()));
/// let store = FeedStore::new(&dir);
/// store.create().unwrap();
/// let url = "https://feeds.example/bot.json";
/// let body = br#"{"creationTime": "2026-11-01T00:00:00", "prefixes": [{"ipv4Prefix": "192.0.2.0/28"}]}"#;
/// let feed = store.store(url, body, "2026-11-02T00:00:00Z").unwrap();
/// assert_eq!(feed.prefixes.len(), 1);
/// let mut ranges = PublishedRanges::new();
/// assert!(store.read_into(&mut ranges).unwrap().is_empty());
/// assert_eq!(ranges.get(url).unwrap().fetched.as_deref(), Some("2026-11-02T00:00:00Z"));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedStore {
    dir: PathBuf,
}

/// The most of a feed's body `bots update` reads: 16 MiB.
pub const MAX_FEED_BYTES: usize = 16 << 20;

impl FeedStore {
    /// The store in `dir`.
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> FeedStore {
        FeedStore { dir: dir.into() }
    }

    /// The store in the default directory: `$BOTWARDEN_RANGES_DIR`, else
    /// `$XDG_CACHE_HOME/botwarden/ranges`, else
    /// `$HOME/.cache/botwarden/ranges`; `None` when none of these is set.
    #[must_use]
    pub fn default_location() -> Option<FeedStore> {
        if let Some(dir) = std::env::var_os("BOTWARDEN_RANGES_DIR") {
            return Some(FeedStore::new(dir));
        }
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(FeedStore::new(cache.join("botwarden").join("ranges")))
    }

    /// The directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds the feed of `url`.
    #[must_use]
    pub fn path_of(&self, url: &str) -> PathBuf {
        self.dir.join(PublishedRanges::file_name(url))
    }

    /// Creates the directory (and its parents) if it does not exist.
    ///
    /// # Errors
    /// [`Error::CreateDir`].
    pub fn create(&self) -> Result<(), Error> {
        std::fs::create_dir_all(&self.dir).map_err(|source| Error::CreateDir {
            path: self.dir.clone(),
            source,
        })
    }

    /// Checks a fetched feed body (the Google format, at least one prefix)
    /// and stores it with its URL and fetch time (RFC 3339), replacing the
    /// copy kept only once the new one is whole on disk. Returns the feed
    /// as stored.
    ///
    /// # Errors
    /// [`Error::FeedRejected`], [`Error::NoPrefixes`] (nothing is written
    /// then), or [`Error::WriteFeed`].
    pub fn store(&self, url: &str, body: &[u8], fetched: &str) -> Result<Feed, Error> {
        let rejected = |problems| Error::FeedRejected {
            url: url.to_owned(),
            problems,
        };
        let mut feed = Feed::parse_google_json(url, body).map_err(|e| match e {
            Error::Feed { problems, .. } => rejected(problems),
            other => other,
        })?;
        if feed.prefixes.is_empty() {
            return Err(Error::NoPrefixes {
                url: url.to_owned(),
            });
        }
        // The body parsed as JSON above.
        let body: serde_json::Value =
            serde_json::from_slice(body).map_err(|e| rejected(vec![e.to_string()]))?;
        let path = self.path_of(url);
        let not_written = |source| Error::WriteFeed {
            path: path.clone(),
            source,
        };
        let mut text = serde_json::to_vec_pretty(&Feed::stored(url, fetched, &body))
            .map_err(|e| not_written(e.into()))?;
        text.push(b'\n');
        write_atomic(&path, &text).map_err(|e| match e {
            Error::File { source, .. } => not_written(source),
            other => not_written(std::io::Error::other(other.to_string())),
        })?;
        feed.fetched = Some(fetched.to_owned());
        Ok(feed)
    }

    /// Lays the stored feeds over `ranges` (the newer copy of a feed wins,
    /// see [`PublishedRanges::insert`]). A directory that does not exist
    /// holds no feeds. A file that cannot be read is returned as an
    /// [`Error::Feed`] and skipped; the others are still read.
    ///
    /// # Errors
    /// [`Error::NotADirectory`] or [`Error::ListDir`].
    pub fn read_into(&self, ranges: &mut PublishedRanges) -> Result<Vec<Error>, Error> {
        if !self.dir.exists() {
            return Ok(Vec::new());
        }
        if !self.dir.is_dir() {
            return Err(Error::NotADirectory {
                path: self.dir.clone(),
            });
        }
        ranges.load_dir(&self.dir).map_err(|source| Error::ListDir {
            path: self.dir.clone(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("botwarden-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    const URL: &str = "https://feeds.example/bot.json";

    #[test]
    fn a_bad_or_empty_feed_keeps_the_copy_stored() {
        let dir = temp("keep");
        let store = FeedStore::new(&dir);
        store.create().expect("a directory");
        let good = br#"{"prefixes": [{"ipv4Prefix": "192.0.2.0/28"}]}"#;
        store
            .store(URL, good, "2026-11-01T00:00:00Z")
            .expect("stored");
        let before = std::fs::read(store.path_of(URL)).expect("the stored file");
        let empty = store.store(URL, br#"{"prefixes": []}"#, "2026-11-02T00:00:00Z");
        assert!(
            matches!(&empty, Err(Error::NoPrefixes { url }) if url == URL),
            "{empty:?}"
        );
        let bad = store
            .store(
                URL,
                br#"{"prefixes": [{"ipv4Prefix": "nope"}]}"#,
                "2026-11-02T00:00:00Z",
            )
            .expect_err("a bad prefix");
        assert!(
            bad.to_string().starts_with("prefixes[0].ipv4Prefix: "),
            "{bad}"
        );
        assert_eq!(
            std::fs::read(store.path_of(URL)).expect("still there"),
            before
        );
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .expect("listed")
            .map(|e| e.expect("an entry").file_name())
            .collect();
        assert_eq!(
            names,
            [std::ffi::OsString::from(PublishedRanges::file_name(URL))]
        );
        std::fs::remove_dir_all(&dir).expect("cleaned up");
    }

    #[test]
    fn reading_back_names_what_it_skips() {
        let dir = temp("read");
        let store = FeedStore::new(&dir);
        let mut ranges = PublishedRanges::new();
        // Not there yet: no feeds, no error.
        assert!(store.read_into(&mut ranges).expect("nothing").is_empty());
        store.create().expect("a directory");
        store
            .store(
                URL,
                br#"{"prefixes": [{"ipv6Prefix": "2001:db8::/64"}]}"#,
                "t",
            )
            .expect("stored");
        std::fs::write(dir.join("broken.json"), b"{").expect("written");
        let bad = store.read_into(&mut ranges).expect("read");
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(
            matches!(&bad[0], Error::Feed { url, .. } if url.ends_with("broken.json")),
            "{bad:?}"
        );
        assert_eq!(ranges.get(URL).map(|f| f.prefixes.len()), Some(1));
        std::fs::remove_dir_all(&dir).expect("cleaned up");
        // A file where the directory should be.
        std::fs::write(&dir, b"").expect("a file");
        let err = store.read_into(&mut ranges).expect_err("not a directory");
        assert_eq!(
            err.to_string(),
            format!("{} is not a directory", dir.display())
        );
        std::fs::remove_file(&dir).expect("cleaned up");
    }

    #[test]
    fn the_system_error_is_the_source_not_the_message() {
        let file = temp("source");
        std::fs::write(&file, b"").expect("a file");
        let store = FeedStore::new(file.join("ranges"));
        let err = store.create().expect_err("a directory under a file");
        assert!(matches!(err, Error::CreateDir { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("cannot create {}", file.join("ranges").display())
        );
        let cause = std::error::Error::source(&err).expect("the system's error");
        assert!(!cause.to_string().is_empty());
        std::fs::remove_file(&file).expect("cleaned up");
    }
}
