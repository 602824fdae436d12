//! When a server's certificate expires: the leaf certificate an HTTPS
//! origin presents, read from one connection of its own
//! ([`Fetcher::certificate_expiry`]), and its `notAfter` read from the
//! DER ([`not_after`]).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use url::Url;

use crate::error::Error;
use crate::fetch::{Fetcher, GuardedResolver, chain};

/// A client kept beside the fetcher's that keeps each connection's peer
/// certificate (the fetcher's does not, so that pages pay nothing for
/// it); made when first asked, with the fetcher's User-Agent, trusted
/// authorities and address guard.
pub(crate) struct CertClient {
    user_agent: String,
    roots: Vec<reqwest::Certificate>,
    resolver: Arc<GuardedResolver>,
    timeout: Duration,
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl std::fmt::Debug for CertClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CertClient")
    }
}

impl CertClient {
    pub(crate) fn new(
        user_agent: &str,
        roots: Vec<reqwest::Certificate>,
        resolver: GuardedResolver,
        timeout: Duration,
    ) -> CertClient {
        CertClient {
            user_agent: user_agent.to_owned(),
            roots,
            resolver: Arc::new(resolver),
            timeout,
            client: OnceLock::new(),
        }
    }

    /// The client, made on first use.
    fn client(&self) -> Result<&reqwest::Client, Error> {
        self.client
            .get_or_init(|| {
                let mut builder = reqwest::Client::builder()
                    .user_agent(&self.user_agent)
                    .redirect(reqwest::redirect::Policy::none())
                    .no_proxy()
                    .use_rustls_tls()
                    .tls_info(true)
                    .pool_max_idle_per_host(0)
                    .timeout(self.timeout)
                    .dns_resolver(Arc::clone(&self.resolver));
                for root in &self.roots {
                    builder = builder.add_root_certificate(root.clone());
                }
                builder.build().map_err(|e| chain(&e))
            })
            .as_ref()
            .map_err(|message| Error::Client {
                message: message.clone(),
            })
    }
}

impl Fetcher {
    /// When the certificate of `origin` (an `https` URL) expires: its
    /// `notAfter`, RFC 3339 in UTC. One `HEAD` of the origin's root on a
    /// connection of its own (signed when the fetcher signs); the answer
    /// itself does not matter.
    ///
    /// # Errors
    /// [`Error::UnsupportedScheme`] for a URL that is not `https`, the
    /// request's error when no connection was made (a certificate not
    /// trusted is one), [`Error::PeerCertificate`] when the certificate cannot be
    /// read. An expired certificate, which fails the handshake, gives its
    /// `notAfter` as rustls names it.
    pub async fn certificate_expiry(&self, origin: &Url) -> Result<String, Error> {
        if origin.scheme() != "https" {
            return Err(Error::UnsupportedScheme {
                url: origin.to_string(),
            });
        }
        self.check_literal(origin)?;
        let root = origin.join("/").map_err(|e| Error::InvalidUrl {
            url: origin.to_string(),
            reason: e.to_string(),
        })?;
        let request = self.signed(reqwest::Method::HEAD, &root, self.certs().client()?)?;
        let response = match request.send().await {
            Ok(r) => r,
            // An expired certificate fails the handshake; rustls names
            // its `notAfter`.
            Err(e) => {
                let message = chain(&e);
                return expired_at(&message).ok_or(Error::Network {
                    url: root.to_string(),
                    message,
                });
            }
        };
        let der = response
            .extensions()
            .get::<reqwest::tls::TlsInfo>()
            .and_then(reqwest::tls::TlsInfo::peer_certificate)
            .ok_or_else(|| Error::PeerCertificate {
                url: root.to_string(),
                message: "the server presented no certificate".to_owned(),
            })?;
        not_after(der).ok_or_else(|| Error::PeerCertificate {
            url: root.to_string(),
            message: "the certificate's validity cannot be read".to_owned(),
        })
    }
}

/// The `notAfter` an error of an expired certificate names (rustls:
/// `certificate is not valid after 1700000000`), RFC 3339.
fn expired_at(message: &str) -> Option<String> {
    const MARK: &str = "not valid after ";
    let at = message.find(MARK)? + MARK.len();
    let digits: String = message[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    unix_time(digits.parse().ok()?)
}

/// Seconds since 1970 as RFC 3339 in UTC.
fn unix_time(secs: i64) -> Option<String> {
    jiff::Timestamp::from_second(secs)
        .ok()
        .map(|t| t.to_string())
}

/// One DER element: its tag, its content, and what follows it.
fn element(der: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = der.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// A certificate's `notAfter` (DER, X.509), RFC 3339 in UTC: the
/// validity's second time, `UTCTime` (years 1950 to 2049) or
/// `GeneralizedTime`. `None` when the bytes are not such a certificate.
#[must_use]
pub fn not_after(der: &[u8]) -> Option<String> {
    const SEQUENCE: u8 = 0x30;
    let (SEQUENCE, certificate, _) = element(der)? else {
        return None;
    };
    let (SEQUENCE, tbs, _) = element(certificate)? else {
        return None;
    };
    // version [0] (optional), serialNumber, signature, issuer, validity.
    let (tag, _, after) = element(tbs)?;
    let mut rest = if tag == 0xa0 { after } else { tbs };
    for _ in 0..3 {
        rest = element(rest)?.2;
    }
    let (SEQUENCE, validity, _) = element(rest)? else {
        return None;
    };
    let (_, _, rest) = element(validity)?;
    let (tag, time, _) = element(rest)?;
    asn1_time(tag, time)
}

/// An ASN.1 `UTCTime` (tag 23) or `GeneralizedTime` (tag 24) in its DER
/// form (`YYMMDDHHMMSSZ`, `YYYYMMDDHHMMSSZ`) as RFC 3339.
fn asn1_time(tag: u8, time: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(time).ok()?;
    let digits = text.strip_suffix('Z')?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (year, rest) = match (tag, digits.len()) {
        (23, 12) => {
            let yy: u32 = digits[..2].parse().ok()?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, &digits[2..])
        }
        (24, 14) => (digits[..4].parse().ok()?, &digits[4..]),
        _ => return None,
    };
    let part = |i: usize| rest[i..i + 2].parse::<u32>().ok();
    let (month, day, hour, minute, second) = (part(0)?, part(2)?, part(4)?, part(6)?, part(8)?);
    let valid = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && hour < 24
        && minute < 60
        && second < 61;
    valid.then(|| format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A certificate's frame with these validity times (the content of
    /// the fields before it does not matter to the reading).
    fn certificate(version: bool, not_after: &[u8]) -> Vec<u8> {
        fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
            let mut out = vec![tag];
            if content.len() < 0x80 {
                out.push(u8::try_from(content.len()).unwrap_or(0));
            } else {
                let len = u16::try_from(content.len()).unwrap_or(u16::MAX);
                out.push(0x82);
                out.extend_from_slice(&len.to_be_bytes());
            }
            out.extend_from_slice(content);
            out
        }
        let mut validity = tlv(23, b"250101000000Z");
        validity.extend(tlv(if not_after.len() == 13 { 23 } else { 24 }, not_after));
        let mut tbs = Vec::new();
        if version {
            tbs.extend(tlv(0xa0, &tlv(2, &[2])));
        }
        tbs.extend(tlv(2, &[1, 2, 3]));
        tbs.extend(tlv(0x30, &[0; 200]));
        tbs.extend(tlv(0x30, b"issuer"));
        tbs.extend(tlv(0x30, &validity));
        tbs.extend(tlv(0x30, b"subject"));
        tlv(0x30, &tlv(0x30, &tbs))
    }

    #[test]
    fn not_after_is_read_from_either_time_form_with_or_without_a_version() {
        assert_eq!(
            not_after(&certificate(true, b"261230235959Z")).as_deref(),
            Some("2026-12-30T23:59:59Z")
        );
        assert_eq!(
            not_after(&certificate(false, b"20510102030405Z")).as_deref(),
            Some("2051-01-02T03:04:05Z")
        );
        assert_eq!(
            not_after(&certificate(true, b"991231235959Z")).as_deref(),
            Some("1999-12-31T23:59:59Z")
        );
    }

    #[test]
    fn an_expired_certificates_error_gives_its_not_after() {
        assert_eq!(unix_time(0).as_deref(), Some("1970-01-01T00:00:00Z"));
        assert_eq!(
            unix_time(951_782_400).as_deref(),
            Some("2000-02-29T00:00:00Z")
        );
        assert_eq!(
            unix_time(1_700_000_000).as_deref(),
            Some("2023-11-14T22:13:20Z")
        );
        assert_eq!(unix_time(i64::MAX), None);
        let message = "error sending request: client error (Connect): invalid peer certificate: \
                       certificate expired: verification time 1800000000 (UNIX), but certificate \
                       is not valid after 1700000000 (100000000 seconds ago)";
        assert_eq!(expired_at(message).as_deref(), Some("2023-11-14T22:13:20Z"));
        assert_eq!(expired_at("connection refused"), None);
    }

    #[test]
    fn bad_bytes_are_no_date_and_never_panic() {
        assert_eq!(not_after(&certificate(true, b"261330235959Z")), None);
        assert_eq!(not_after(b""), None);
        assert_eq!(not_after(&[0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), None);
        let good = certificate(true, b"261230235959Z");
        for cut in 0..good.len() {
            let _ = not_after(&good[..cut]);
        }
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..2000 {
            let mut bytes = good.clone();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let i = usize::try_from(state % bytes.len() as u64).unwrap_or(0);
            bytes[i] = (state >> 32) as u8;
            let _ = not_after(&bytes);
        }
    }
}
