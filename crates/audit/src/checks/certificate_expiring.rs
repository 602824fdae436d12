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
    /// gives its `notAfter` and the days left. An expired certificate
    /// fails the handshake: its `notAfter` is read from the refusal when
    /// it names it, and the refusal is reported either way. A
    /// certificate that expires in 30 days and a second or more is not
    /// reported. An origin whose certificate could not be read otherwise
    /// is not judged (the crawl's pages there failed already, and
    /// `links/broken-internal` says so).
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
             WHERE (julianday(not_after) - julianday(checked_at) <= {DAYS})
                OR (not_after IS NULL AND {REFUSED_EXPIRED})
             ORDER BY origin"
        ),
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, Option<f64>>(2)?,
            ))
        },
    )?;
    Ok(rows
        .into_iter()
        .map(|(origin, not_after, left)| {
            let message = match (not_after, left) {
                (Some(at), Some(left)) if left >= 0.0 => format!(
                    "the certificate expires on {at}, in {} day(s)",
                    left.floor()
                ),
                (Some(at), _) => format!("the certificate has expired, on {at}"),
                (None, _) => "the certificate has expired (the TLS handshake refused it)".to_owned(),
            };
            Finding::new(format!("{origin}/"), message)
        })
        .collect())
}

/// A handshake refused because the certificate has expired, without its
/// date (rustls: `invalid peer certificate: Expired`).
const REFUSED_EXPIRED: &str = "error LIKE '%invalid peer certificate: Expired%'";
