//! When the certificates of the crawl's HTTPS origins expire: for each
//! origin of the crawl (its URLs in scope), one `HEAD` of its robots.txt on a connection
//! of its own (a URL every crawler may ask), whose certificate's
//! `notAfter` is stored (`tls_certificates`) for
//! `security/certificate-expiring`. A run reads every origin again: an
//! expiry is as of the last run.

use botwarden_fetch::Fetcher;
use botwarden_store::{CertificateRecord, Error as StoreError, Store};
use url::Url;

use crate::error::Error;
use crate::pipeline::origin_key;

/// What a run of certificate reads did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CertificateSummary {
    /// Origins whose certificate was read.
    pub read: u64,
    /// Origins whose certificate could not be read (the reason is stored).
    pub failed: u64,
}

impl std::fmt::Display for CertificateSummary {
    /// `N certificate(s) read, N could not be read`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} certificate(s) read, {} could not be read",
            self.read, self.failed
        )
    }
}

/// Reads the certificates of the HTTPS origins of the crawl in `store`
/// (module docs) and stores their expiry.
///
/// # Errors
/// [`Error::Store`] if the store cannot be read or written; a
/// certificate that cannot be read is a result, stored.
pub async fn check_certificates(
    store: &mut Store,
    fetcher: &Fetcher,
) -> Result<CertificateSummary, Error> {
    let mut summary = CertificateSummary::default();
    let mut records = Vec::new();
    for origin in https_origins(store)? {
        let Ok(url) = Url::parse(&origin).and_then(|o| o.join("/robots.txt")) else {
            continue;
        };
        let read = fetcher.certificate_expiry(&url).await;
        if read.is_ok() {
            summary.read += 1;
        } else {
            summary.failed += 1;
        }
        let (not_after, error) = match read {
            Ok(at) => (Some(at), None),
            Err(e) => (None, Some(e.to_string())),
        };
        records.push(CertificateRecord {
            origin,
            checked_at: jiff::Timestamp::now().to_string(),
            not_after,
            error,
        });
    }
    store.write_certificates(&records)?;
    Ok(summary)
}

/// The `https` origins of the crawl, in order: those of its URLs but the
/// ones out of its scope (fetched or not: a certificate that fails the
/// handshake keeps every page of its origin from being fetched).
fn https_origins(store: &Store) -> Result<Vec<String>, Error> {
    let fail = |e: rusqlite::Error| {
        Error::Store(StoreError {
            path: store.path().to_owned(),
            message: format!("cannot read the crawl's origins: {e}"),
        })
    };
    let mut st = store
        .connection()
        .prepare(
            "SELECT url FROM urls WHERE url LIKE 'https:%'
               AND (skip_reason IS NULL OR skip_reason != 'scope') ORDER BY id",
        )
        .map_err(fail)?;
    let mut origins: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut rows = st.query([]).map_err(fail)?;
    while let Some(row) = rows.next().map_err(fail)? {
        let text: String = row.get(0).map_err(fail)?;
        if let Ok(url) = Url::parse(&text) {
            let origin = origin_key(&url);
            if seen.insert(origin.clone()) {
                origins.push(origin);
            }
        }
    }
    Ok(origins)
}
