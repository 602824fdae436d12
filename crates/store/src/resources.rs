//! What `crawl --resources` and the crawl's TLS add to a store (schema
//! 11): the images, scripts and style sheets each page uses
//! (`page_resources`), what each of them answered once (`resources`), and
//! the expiry of each HTTPS origin's certificate (`tls_certificates`).

use rusqlite::params;

use crate::error::Error;
use crate::store::Store;

/// From version 10 to 11: the pages' resources and what they answered,
/// the external checks' bot walls, the origins' certificates.
pub(crate) const MIGRATE_10_TO_11: &str = "
CREATE TABLE page_resources (
    source_id INTEGER NOT NULL REFERENCES urls (id),
    position  INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    url       TEXT NOT NULL,
    PRIMARY KEY (source_id, position)
);
CREATE INDEX page_resources_url ON page_resources (url);
CREATE TABLE resources (
    url          TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,
    checked_at   TEXT NOT NULL,
    method       TEXT,
    status       INTEGER,
    content_type TEXT,
    size         INTEGER,
    size_capped  INTEGER NOT NULL DEFAULT 0,
    blocked      TEXT,
    error        TEXT,
    elapsed_ms   REAL
);
ALTER TABLE external_checks ADD COLUMN wall TEXT;
CREATE TABLE tls_certificates (
    origin     TEXT PRIMARY KEY,
    checked_at TEXT NOT NULL,
    not_after  TEXT,
    error      TEXT
);
";

/// What a page uses: an image, a script or a style sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// `<img src>` (`image`).
    Image,
    /// `<script src>` (`script`).
    Script,
    /// `<link rel=stylesheet href>` (`style`).
    Style,
}

impl ResourceKind {
    /// The kind as the store writes it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ResourceKind::Image => "image",
            ResourceKind::Script => "script",
            ResourceKind::Style => "style",
        }
    }

    /// The kind the store wrote as `text`.
    #[must_use]
    pub fn of_store(text: &str) -> Option<ResourceKind> {
        [
            ResourceKind::Image,
            ResourceKind::Script,
            ResourceKind::Style,
        ]
        .into_iter()
        .find(|k| k.as_str() == text)
    }
}

/// One resource a page uses, in the page's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageResourceRecord {
    /// The page's URL id.
    pub source: u64,
    /// Its place among the page's resources (from 0).
    pub position: u32,
    /// What it is.
    pub kind: ResourceKind,
    /// Its URL, absolute and in its normal form.
    pub url: String,
}

/// What a resource answered (`crawl --resources`), or why it was not
/// asked.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceRecord {
    /// Its URL.
    pub url: String,
    /// What the first page that uses it uses it as.
    pub kind: ResourceKind,
    /// When (RFC 3339).
    pub checked_at: String,
    /// `HEAD`, or `GET` (within the byte cap); `None` when not asked.
    pub method: Option<&'static str>,
    /// The answer's status, if one came.
    pub status: Option<u16>,
    /// Its `Content-Type`.
    pub content_type: Option<String>,
    /// Its size in bytes: the `Content-Length`, or the bytes read.
    pub size: Option<u64>,
    /// Whether the body was longer than the byte cap (`size` is the cap).
    pub size_capped: bool,
    /// The robots.txt rule that disallows it for the crawler (`Disallow:
    /// /assets/ (line 3)`), or why its robots.txt could not be read; it is
    /// not asked then.
    pub blocked: Option<String>,
    /// Why no answer came.
    pub error: Option<String>,
    /// From the first request to the answer.
    pub elapsed_ms: Option<f64>,
}

/// The certificate an HTTPS origin of the crawl presented, or why none
/// was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateRecord {
    /// The origin (`https://host:port`).
    pub origin: String,
    /// When (RFC 3339).
    pub checked_at: String,
    /// The leaf certificate's `notAfter` (RFC 3339).
    pub not_after: Option<String>,
    /// Why it was not read.
    pub error: Option<String>,
}

/// Writes pages' resources inside a batch's transaction.
pub(crate) fn write_page_resources(
    tx: &rusqlite::Transaction<'_>,
    rows: &[PageResourceRecord],
) -> Result<(), rusqlite::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut st = tx.prepare_cached(
        "INSERT OR REPLACE INTO page_resources (source_id, position, kind, url)
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    for r in rows {
        st.execute(params![
            i64::try_from(r.source).unwrap_or(i64::MAX),
            r.position,
            r.kind.as_str(),
            r.url
        ])?;
    }
    Ok(())
}

impl Store {
    /// Stores what resources answered, in one transaction (a resource
    /// checked again replaces its row).
    ///
    /// # Errors
    /// [`Error`] if SQLite fails; nothing is written then.
    pub fn write_resources(&mut self, records: &[ResourceRecord]) -> Result<(), Error> {
        self.write_rows(
            "cannot store a resource's answer",
            "INSERT OR REPLACE INTO resources (url, kind, checked_at, method, status,
             content_type, size, size_capped, blocked, error, elapsed_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            records,
            |st, r| {
                st.execute(params![
                    r.url,
                    r.kind.as_str(),
                    r.checked_at,
                    r.method,
                    r.status,
                    r.content_type,
                    r.size.map(|s| i64::try_from(s).unwrap_or(i64::MAX)),
                    r.size_capped,
                    r.blocked,
                    r.error,
                    r.elapsed_ms,
                ])
            },
        )
    }

    /// Stores the certificates read, in one transaction (an origin read
    /// again replaces its row).
    ///
    /// # Errors
    /// [`Error`] if SQLite fails; nothing is written then.
    pub fn write_certificates(&mut self, records: &[CertificateRecord]) -> Result<(), Error> {
        self.write_rows(
            "cannot store a certificate's expiry",
            "INSERT OR REPLACE INTO tls_certificates (origin, checked_at, not_after, error)
             VALUES (?1, ?2, ?3, ?4)",
            records,
            |st, r| st.execute(params![r.origin, r.checked_at, r.not_after, r.error]),
        )
    }

    /// Writes `rows` with the statement `sql` (each row's values bound by
    /// `bind`) in one transaction; `what` names the failure.
    fn write_rows<T>(
        &mut self,
        what: &str,
        sql: &str,
        rows: &[T],
        bind: impl Fn(&mut rusqlite::CachedStatement<'_>, &T) -> Result<usize, rusqlite::Error>,
    ) -> Result<(), Error> {
        let path = self.path().to_owned();
        let fail = |e: rusqlite::Error| Error {
            path: path.clone(),
            message: format!("{what}: {e}"),
        };
        let tx = self.connection_mut().transaction().map_err(fail)?;
        {
            let mut st = tx.prepare_cached(sql).map_err(fail)?;
            for r in rows {
                bind(&mut st, r).map_err(fail)?;
            }
        }
        tx.commit().map_err(fail)
    }
}
