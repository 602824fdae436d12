//! Apache's `RewriteMap prg:` helper (`botwarden serve --rewrite-map URL`):
//! reads one key per line (`ADDRESS USER-AGENT`), answers one line per key
//! (`STATUS VERDICT METHOD NAME`), asking a running service's `GET /verify`.
//!
//! Apache sends the lookups of all its workers to one helper process, one
//! at a time, under a lock: a slow answer holds every request the server
//! is serving. So the helper never waits long. It asks the service with
//! `?wait=` (default 50 ms): the service answers from its verdict cache at
//! once, or waits that long for DNS and then answers `unknown` while the
//! verification goes on in the background, its verdict cached for the next
//! request. Each ask has a short time limit (default 500 ms, connecting
//! included); when the service cannot be asked the answer is `200 unknown`
//! (the request goes on), and the helper does not try again for a second,
//! answering at once meanwhile. The service keeps the configuration (the
//! registry, enforce mode), the cache and the metrics that nginx's and
//! HAProxy's lookups share.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use axum::http::HeaderValue;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt as _, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _,
};
use url::Url;

use crate::error::Error;

/// How long the helper answers `unknown` without asking after the service
/// could not be asked.
const BACK_OFF: Duration = Duration::from_secs(1);

/// The longest key line read; the rest of a longer line is skipped.
const MAX_LINE: usize = 16 * 1024;

/// The helper's settings.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RewriteMap {
    /// The service's `GET /verify` URL.
    pub verify_url: Url,
    /// How long the service may wait for a verification not in its cache.
    pub wait: Duration,
    /// The time limit of one ask, connecting included.
    pub timeout: Duration,
}

/// What the helper did, for its exit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MapCounts {
    /// Keys answered with the service's verdict.
    pub answered: u64,
    /// Keys answered `unknown` because the service could not be asked.
    pub unreachable: u64,
    /// Keys that were not `ADDRESS USER-AGENT` (answered `unknown`).
    pub bad_keys: u64,
}

/// The answer when the service cannot tell.
const UNKNOWN: &str = "200 unknown - -";

impl RewriteMap {
    /// The helper for the service at `base` (`http://127.0.0.1:8080`), with
    /// the default wait (50 ms) and time limit (500 ms).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `base` is not an `http` URL.
    pub fn new(base: &str) -> Result<RewriteMap, Error> {
        let bad = |message: String| Error::Config {
            path: "--rewrite-map".to_owned(),
            message,
        };
        let base = Url::parse(base.trim()).map_err(|e| bad(format!("'{base}': {e}")))?;
        if base.scheme() != "http" {
            return Err(bad(format!(
                "'{base}': the service is asked over plain http (it listens on loopback)"
            )));
        }
        let verify_url = base
            .join("/verify")
            .map_err(|e| bad(format!("'{base}': {e}")))?;
        Ok(RewriteMap {
            verify_url,
            wait: Duration::from_millis(50),
            timeout: Duration::from_millis(500),
        })
    }

    /// Answers every line of `keys` on `answers` until `keys` ends (Apache
    /// closes it when it stops).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when reading the keys or writing an answer fails;
    /// [`Error::Config`] when the HTTP client cannot be set up.
    pub async fn run(
        &self,
        keys: impl AsyncBufRead + Unpin,
        mut answers: impl AsyncWrite + Unpin,
    ) -> Result<MapCounts, Error> {
        let client = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(self.timeout)
            .timeout(self.timeout)
            .pool_max_idle_per_host(1)
            .http1_only()
            .build()
            .map_err(|e| Error::Config {
                path: "--rewrite-map".to_owned(),
                message: format!("cannot set up the HTTP client: {e}"),
            })?;
        let mut url = self.verify_url.clone();
        url.query_pairs_mut()
            .append_pair("wait", &self.wait.as_secs_f64().to_string());
        let io = |what: &'static str| {
            move |source| Error::Io {
                what,
                addr: "the RewriteMap pipe".to_owned(),
                source,
            }
        };
        let mut counts = MapCounts::default();
        let mut quiet_until: Option<Instant> = None;
        let mut keys = keys;
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = (&mut keys)
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut line)
                .await
                .map_err(io("read keys from"))?;
            if n == 0 {
                break;
            }
            if line.last() != Some(&b'\n') && n == MAX_LINE {
                // Too long: skip to the end of the line.
                let mut rest = Vec::new();
                keys.read_until(b'\n', &mut rest)
                    .await
                    .map_err(io("read keys from"))?;
            }
            let answer = match parse_key(&line) {
                None => {
                    counts.bad_keys += 1;
                    UNKNOWN.to_owned()
                }
                Some(_) if quiet_until.is_some_and(|t| Instant::now() < t) => {
                    counts.unreachable += 1;
                    UNKNOWN.to_owned()
                }
                Some((ip, ua)) => match ask(&client, &url, ip, &ua).await {
                    Ok(answer) => {
                        if quiet_until.take().is_some() {
                            tracing::info!("the service answers again");
                        }
                        counts.answered += 1;
                        answer
                    }
                    Err(e) => {
                        if quiet_until.is_none() {
                            tracing::warn!(
                                error = %e,
                                "cannot ask the service; answering unknown"
                            );
                        }
                        quiet_until = Some(Instant::now() + BACK_OFF);
                        counts.unreachable += 1;
                        UNKNOWN.to_owned()
                    }
                },
            };
            answers
                .write_all(answer.as_bytes())
                .await
                .map_err(io("answer on"))?;
            answers.write_all(b"\n").await.map_err(io("answer on"))?;
            answers.flush().await.map_err(io("answer on"))?;
        }
        Ok(counts)
    }
}

/// A key: the address, a space, the User-Agent (maybe empty).
fn parse_key(line: &[u8]) -> Option<(IpAddr, HeaderValue)> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let (ip, ua) = match line.iter().position(|b| *b == b' ') {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => (line, &b""[..]),
    };
    let ip = std::str::from_utf8(ip).ok()?.parse().ok()?;
    let ua = HeaderValue::from_bytes(ua).ok()?;
    Some((ip, ua))
}

/// One answer line from the service's headers.
async fn ask(
    client: &reqwest::Client,
    url: &Url,
    ip: IpAddr,
    ua: &HeaderValue,
) -> Result<String, reqwest::Error> {
    let mut request = client
        .get(url.clone())
        .header("x-forwarded-for", ip.to_string());
    // Apache gives an empty User-Agent for none.
    if !ua.is_empty() {
        request = request.header("user-agent", ua.clone());
    }
    let response = request.send().await?;
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty())
            .unwrap_or("-")
            .to_owned()
    };
    let word = |v: String| v.replace(char::is_whitespace, "_");
    Ok(format!(
        "{} {} {} {}",
        response.status().as_u16(),
        word(header("x-bot-verdict")),
        word(header("x-bot-method")),
        header("x-bot-name")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        let (ip, ua) =
            parse_key(b"192.0.2.1 Mozilla/5.0 (compatible; Searchbot/2.1)\n").expect("key");
        assert_eq!(ip, "192.0.2.1".parse::<IpAddr>().expect("ip"));
        assert_eq!(ua, "Mozilla/5.0 (compatible; Searchbot/2.1)");
        let (ip, ua) = parse_key(b"2001:db8::1\r\n").expect("no UA");
        assert_eq!(ip, "2001:db8::1".parse::<IpAddr>().expect("ip"));
        assert_eq!(ua, "");
        assert!(parse_key(b"somewhere Searchbot\n").is_none());
        assert!(parse_key(b"192.0.2.1 bad\x01ua\n").is_none());
        assert!(RewriteMap::new("https://example.com").is_err());
        assert!(RewriteMap::new("not a url").is_err());
        assert_eq!(
            RewriteMap::new("http://127.0.0.1:8080/")
                .expect("url")
                .verify_url
                .as_str(),
            "http://127.0.0.1:8080/verify"
        );
    }
}
