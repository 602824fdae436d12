//! `security/certificate-expiring`: HTTPS origins whose certificate
//! expires within 30 days of the crawl, or has expired.

use crate::{Context, Finding};

/// A certificate that expires within this many days of the crawl is
/// reported.
pub(crate) const DAYS: u32 = 30;

declare_check! {
    /// ## What it finds
    /// Every HTTPS origin of the crawl whose certificate (the leaf the
    /// server presented, read once per origin at the end of the crawl)
    /// expires within 30 days of that reading, or has expired; the finding
    /// gives its `notAfter` and the days left. A certificate that expires
    /// in 30 days and a second or more is not reported. An origin whose
    /// certificate could not be read is not judged (the crawl's pages
    /// there failed already, and `links/broken-internal` says so).
    ///
    /// ## Why it matters
    /// Once it has expired, browsers stop visitors with a warning and
    /// crawlers cannot fetch the site; renewals that should be automatic
    /// fail silently more often than they should.
    ///
    /// ## Fix
    /// Renew the certificate (and check that the automatic renewal runs),
    /// then reload the server so that it presents the new one.
    "security/certificate-expiring", Warning, "HTTPS certificates that expire within 30 days, or have"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        &format!(
            "SELECT origin, not_after,
                    julianday(not_after) - julianday(checked_at) AS left
             FROM tls_certificates
             WHERE not_after IS NOT NULL AND julianday(not_after) IS NOT NULL
               AND julianday(not_after) - julianday(checked_at) <= {DAYS}
             ORDER BY origin"
        ),
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, f64>(2)?,
            ))
        },
    )?;
    Ok(rows
        .into_iter()
        .map(|(origin, not_after, left)| {
            let message = if left < 0.0 {
                format!("the certificate expired on {not_after}")
            } else {
                format!(
                    "the certificate expires on {not_after}, in {} day(s)",
                    left.floor()
                )
            };
            Finding::new(format!("{origin}/"), message)
        })
        .collect())
}
