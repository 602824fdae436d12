//! Fetching robots.txt: from a site's URL to its `/robots.txt`, the fetch,
//! and what each robot makes of it.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant, SystemTime};

use botwarden_robots::report::{Decisions, EncodingFrom, FetchSummary, HopSummary, ProbeSummary};
use botwarden_robots::{AvailabilityDecision, AvailabilityPolicy, FetchOutcome, FetchResult};
use url::Url;

use crate::body::Encoding;
use crate::error::Error;
use crate::fetch::{FetchReport, Fetcher, FetcherBuilder, parse_url};

/// The `/robots.txt` of the origin (scheme, host, port) of `site`.
///
/// ```
/// use botwarden_fetch::robots_url;
///
/// let url = robots_url("https://example.com:8443/shop/cart?x=1#top").unwrap();
/// assert_eq!(url.as_str(), "https://example.com:8443/robots.txt");
/// ```
pub fn robots_url(site: &str) -> Result<Url, Error> {
    let url = parse_url(site)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::UnsupportedScheme {
            url: url.to_string(),
        });
    }
    if url.host().is_none() {
        return Err(Error::InvalidUrl {
            url: site.to_owned(),
            reason: "no host".to_owned(),
        });
    }
    let mut robots = url;
    robots.set_path("/robots.txt");
    robots.set_query(None);
    robots.set_fragment(None);
    // Credentials belong to one user's session, not to the site's rules.
    let _ = robots.set_username("");
    let _ = robots.set_password(None);
    Ok(robots)
}

/// A probe for a path that does not exist, made when robots.txt answered
/// with a server error: a site that answers 5xx for missing paths too is
/// misconfigured, not down, and Google and Mandelbot then read the 5xx as a
/// 404.
#[derive(Debug, Clone)]
pub struct MissingProbe {
    /// The URL probed.
    pub url: Url,
    /// Its final status, or `None` when no answer came.
    pub status: Option<u16>,
    /// The time it was given: what the robots.txt request left of the
    /// fetch's time limit (zero: not sent).
    pub time_left: Duration,
}

/// A site's robots.txt, fetched.
#[derive(Debug, Clone)]
pub struct RobotsFetch {
    /// The URL the site was named by.
    pub site: String,
    /// Its `/robots.txt`.
    pub robots_url: Url,
    /// The fetch.
    pub report: FetchReport,
    /// The probe for a missing path, made after a 5xx.
    pub missing_probe: Option<MissingProbe>,
}

impl RobotsFetch {
    /// The report model of this fetch (what `robots fetch` and a service
    /// show), with what each of `policies` decides.
    #[must_use]
    pub fn summary(&self, policies: &[&AvailabilityPolicy]) -> FetchSummary {
        let r = &self.report;
        let encoding = r.encoding();
        FetchSummary {
            url: self.site.clone(),
            robots_url: self.robots_url.to_string(),
            hops: r
                .hops
                .iter()
                .map(|h| HopSummary {
                    url: h.url.to_string(),
                    status: h.status,
                    elapsed_ms: h.elapsed.as_millis(),
                    location: h.location.clone(),
                })
                .collect(),
            status: r.status,
            content_type: r.content_type.clone(),
            charset: r.charset.clone(),
            encoding: encoding.label().to_owned(),
            encoding_from: match encoding {
                Encoding::Bom(_) => EncodingFrom::ByteOrderMark,
                Encoding::Declared(_) => EncodingFrom::ContentType,
                Encoding::Assumed => EncodingFrom::Assumed,
            },
            bom: r.bom().map(|b| b.encoding()),
            content_encoding: r.content_encoding.clone(),
            bytes: r.body.len(),
            wire_bytes: r.wire_bytes,
            full_bytes: r.full_length,
            truncated: r.truncated,
            retry_after: r.retry_after.as_ref().map(|x| x.raw.clone()),
            elapsed_ms: r.elapsed.as_millis(),
            warnings: r.warnings.iter().map(ToString::to_string).collect(),
            error: r.error.as_ref().map(ToString::to_string),
            missing_probe: self.missing_probe.as_ref().map(|p| ProbeSummary {
                url: p.url.to_string(),
                status: p.status,
                time_left_ms: p.time_left.as_millis(),
                sent: !p.time_left.is_zero(),
            }),
            availability: Decisions::new(&self.outcome(), policies),
        }
    }

    /// The outcome for the availability machine, knowing nothing of earlier
    /// fetches (no cached copy, no earlier success).
    #[must_use]
    pub fn outcome(&self) -> FetchOutcome {
        FetchOutcome {
            missing_path_status: self.missing_probe.as_ref().and_then(|p| p.status),
            ..self.report.outcome()
        }
    }

    /// What a robot following `policy` does after this fetch.
    #[must_use]
    pub fn decide(&self, policy: &AvailabilityPolicy) -> AvailabilityDecision {
        policy.decide(&self.outcome())
    }
}

impl Fetcher {
    /// Fetches the robots.txt of the site `site` names ([`robots_url`]).
    /// When it answers with a 5xx, also requests a random path that does not
    /// exist ([`MissingProbe`]), in what is left of the same time limit: the
    /// configured timeout bounds both requests together. With no time left
    /// the probe is not sent and its status is `None`.
    ///
    /// Errors as [`Fetcher::fetch`] does: only when nothing could be sent.
    pub async fn fetch_robots(&self, site: &str) -> Result<RobotsFetch, Error> {
        let robots_url = robots_url(site)?;
        let started = Instant::now();
        let report = self.fetch_url(robots_url.clone()).await?;
        let missing_probe = match report.result {
            FetchResult::Status(500..=599) => {
                let left = self.limits().timeout.saturating_sub(started.elapsed());
                Some(self.probe_missing(&robots_url, left).await)
            }
            _ => None,
        };
        Ok(RobotsFetch {
            site: site.to_owned(),
            robots_url,
            report,
            missing_probe,
        })
    }

    async fn probe_missing(&self, robots_url: &Url, left: Duration) -> MissingProbe {
        let mut url = robots_url.clone();
        url.set_path(&format!("/botwarden-missing-{:016x}.txt", random()));
        if left.is_zero() {
            return MissingProbe {
                url,
                status: None,
                time_left: left,
            };
        }
        let status = match self.fetch_within(url.clone(), left).await {
            Ok(report) => match report.result {
                FetchResult::Status(s) => Some(s),
                _ => None,
            },
            Err(_) => None,
        };
        MissingProbe {
            url,
            status,
            time_left: left,
        }
    }
}

/// A number no server can guess ahead: the time, hashed with a per-process
/// random key.
fn random() -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    hasher.write_u128(now.as_nanos());
    hasher.finish()
}

/// Fetches the robots.txt of the site `site` names, from code that is not
/// async (the `check` and `fix` commands): a fetcher set up by `builder`, on
/// a runtime of its own. Not to be called from inside an async runtime.
///
/// Returns when the answer is known: nothing left running on the runtime
/// (a connection being closed, a lookup) delays the return.
///
/// The body is in `report.body` (decoded, at most `max_bytes`);
/// `report.utf8_body()` transcodes a UTF-16 body.
pub fn fetch_robots_txt(site: &str, builder: &FetcherBuilder) -> Result<RobotsFetch, Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Client {
            message: format!("cannot start the async runtime: {e}"),
        })?;
    let answer = runtime.block_on(async {
        let fetcher = builder.build()?;
        fetcher.fetch_robots(site).await
    });
    runtime.shutdown_background();
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_urls() {
        let cases = [
            ("https://example.com/page", "https://example.com/robots.txt"),
            ("https://example.com", "https://example.com/robots.txt"),
            (
                "http://EXAMPLE.com:80/a?b#c",
                "http://example.com/robots.txt",
            ),
            (
                "http://example.com:8080/x",
                "http://example.com:8080/robots.txt",
            ),
            (
                "https://u:p@example.com/x",
                "https://example.com/robots.txt",
            ),
            ("http://[::1]:8080/", "http://[::1]:8080/robots.txt"),
            (
                "https://bücher.example/",
                "https://xn--bcher-kva.example/robots.txt",
            ),
        ];
        for (site, want) in cases {
            assert_eq!(robots_url(site).expect(site).as_str(), want);
        }
        assert!(matches!(
            robots_url("ftp://example.com/"),
            Err(Error::UnsupportedScheme { .. })
        ));
        assert!(matches!(
            robots_url("example.com"),
            Err(Error::InvalidUrl { .. })
        ));
        assert!(matches!(
            robots_url("http://"),
            Err(Error::InvalidUrl { .. })
        ));
    }

    #[test]
    fn random_paths_differ() {
        assert_ne!(random(), random());
    }
}
