//! One page request of a crawl: a single GET that does not follow
//! redirects (the crawler records a redirect as a link and queues its
//! target like any other URL), with the fetcher's address guard, time
//! limit and body limit, and the headers a crawler reads.
//!
//! Only an HTML body is read (or a body whose type is not stated, which
//! may be HTML): for any other `Content-Type` the answer is known by its
//! status and headers, and the body is not kept. Over HTTP/2 the stream is
//! reset, so nothing more is downloaded. Over HTTP/1.1 a body with a
//! `Content-Length` of at most 64 KiB is read and
//! dropped, so that the connection is reused (an image or a small PDF
//! costs the server less than a new connection); a longer body, or one of
//! unknown length, is not read at all, and the client closes the
//! connection, so a site's videos are not downloaded.

use std::time::{Duration, Instant, SystemTime};

use reqwest::header;
use url::Url;

use crate::body::{self, BodyDecoder, Coding, Feed};
use crate::error::Error;
use crate::fetch::{Fetcher, RetryAfter, chain, header_str, send_error};

/// How a request ended, as the throttle sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// An HTTP response with this status.
    Status(u16),
    /// The connection could not be made, or broke (refused, reset, TLS).
    ConnectionFailed,
    /// No answer in time.
    TimedOut,
}

impl Outcome {
    /// How a request that got `status`, or failed with `error`, ended.
    #[must_use]
    pub fn of(status: Option<u16>, error: Option<&Error>) -> Outcome {
        match (status, error) {
            (Some(s), _) => Outcome::Status(s),
            (None, Some(Error::Timeout { .. })) => Outcome::TimedOut,
            (None, _) => Outcome::ConnectionFailed,
        }
    }

    /// Whether this is an indicator of trouble: a connection failure, a
    /// timeout, `403`, `429`, or `500`–`599`.
    #[must_use]
    pub fn is_indicator(self) -> bool {
        match self {
            Outcome::Status(s) => s == 403 || s == 429 || (500..=599).contains(&s),
            Outcome::ConnectionFailed | Outcome::TimedOut => true,
        }
    }
}

/// What one page request gave. Failures are in `error`, never lost.
#[derive(Debug, Clone)]
pub struct PageResponse {
    /// The URL requested.
    pub url: Url,
    /// The status, if an answer came.
    pub status: Option<u16>,
    /// Why the request failed (no answer, or a body that could not be
    /// read).
    pub error: Option<Error>,
    /// The `Location` header, as sent.
    pub location: Option<String>,
    /// The media type of `Content-Type`, in lower case.
    pub media_type: Option<String>,
    /// Its `charset`.
    pub charset: Option<String>,
    /// Every `X-Robots-Tag` header, in order.
    pub x_robots_tag: Vec<String>,
    /// Every `Robots-Tag` header (draft-illyes-repext), in order.
    pub robots_tag: Vec<String>,
    /// Every `Content-Usage` header (IETF aipref), in order.
    pub content_usage: Vec<String>,
    /// The security headers the answer came with.
    pub security: SecurityHeaders,
    /// Every `Content-Signal` header (Cloudflare), in order.
    pub content_signal: Vec<String>,
    /// Every `Link` header, in order.
    pub link: Vec<String>,
    /// The `Refresh` header.
    pub refresh: Option<String>,
    /// The `Retry-After` header.
    pub retry_after: Option<RetryAfter>,
    /// The decoded body, at most the fetcher's `max_bytes`.
    pub body: Vec<u8>,
    /// Whether the body was longer.
    pub truncated: bool,
    /// Whether the body was read: not when the `Content-Type` names
    /// something other than HTML (module docs).
    pub body_read: bool,
    /// The `Content-Length` header, as sent.
    pub content_length: Option<u64>,
    /// The answer's HTTP version (`HTTP/1.1`, `HTTP/2`).
    pub http_version: Option<&'static str>,
    /// Body bytes received, before decoding.
    pub wire_bytes: u64,
    /// The name's lookup, when the request opened a new connection to a
    /// host name.
    pub dns: Option<Duration>,
    /// Opening the connection (lookup, TCP and TLS), when the request
    /// opened a new one; `None` when it reused one.
    pub connect: Option<Duration>,
    /// From the request to the answer's head.
    pub ttfb: Option<Duration>,
    /// From the answer's head to the end of what was read of the body.
    pub download: Option<Duration>,
    /// From the request to the end of the body.
    pub elapsed: Duration,
}

/// The security headers of an answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SecurityHeaders {
    /// `Strict-Transport-Security`.
    pub hsts: bool,
    /// `X-Content-Type-Options: nosniff`.
    pub nosniff: bool,
    /// `Content-Security-Policy` (not `…-Report-Only`).
    pub csp: bool,
}

impl PageResponse {
    /// How the request ended, for the throttle.
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        Outcome::of(self.status, self.error.as_ref())
    }

    /// Whether the status is a redirect (`301`, `302`, `303`, `307`,
    /// `308`).
    #[must_use]
    pub fn is_redirect(&self) -> bool {
        matches!(self.status, Some(301 | 302 | 303 | 307 | 308))
    }

    /// Whether the body is HTML (by its media type, or by its first bytes
    /// when no type was sent).
    #[must_use]
    pub fn is_html(&self) -> bool {
        match self.media_type.as_deref() {
            Some(m) if !m.is_empty() => is_html_type(m),
            _ => body::looks_like_html(&self.body),
        }
    }
}

/// `HTTP/1.1`, `HTTP/2`, as the store writes them.
fn version_name(version: reqwest::Version) -> &'static str {
    match version {
        reqwest::Version::HTTP_09 => "HTTP/0.9",
        reqwest::Version::HTTP_10 => "HTTP/1.0",
        reqwest::Version::HTTP_11 => "HTTP/1.1",
        reqwest::Version::HTTP_2 => "HTTP/2",
        reqwest::Version::HTTP_3 => "HTTP/3",
        _ => "HTTP/?",
    }
}

/// The largest body of another type than HTML that is read (and
/// dropped) to keep an HTTP/1.1 connection: a few round trips' worth on
/// any link, far less than a new connection costs a server.
pub(crate) const DRAIN_LIMIT: u64 = 64 * 1024;

/// Whether a media type (in lower case) is HTML.
fn is_html_type(media_type: &str) -> bool {
    media_type == "text/html" || media_type == "application/xhtml+xml"
}

impl Fetcher {
    /// Requests one page (module docs). Errors only when nothing could be
    /// sent (not an HTTP URL, or a refused address literal); every other
    /// failure is in the response.
    ///
    /// # Errors
    /// [`Error::InvalidUrl`], [`Error::UnsupportedScheme`],
    /// [`Error::Refused`].
    pub async fn fetch_page(&self, url: Url) -> Result<PageResponse, Error> {
        let mut url = url;
        url.set_fragment(None);
        crate::fetch::check_scheme(&url)?;
        self.check_literal(&url)?;
        let started = Instant::now();
        let mut page = PageResponse {
            url: url.clone(),
            status: None,
            error: None,
            location: None,
            media_type: None,
            charset: None,
            x_robots_tag: Vec::new(),
            robots_tag: Vec::new(),
            content_usage: Vec::new(),
            security: SecurityHeaders::default(),
            content_signal: Vec::new(),
            link: Vec::new(),
            refresh: None,
            retry_after: None,
            body: Vec::new(),
            truncated: false,
            body_read: false,
            content_length: None,
            http_version: None,
            wire_bytes: 0,
            dns: None,
            connect: None,
            ttfb: None,
            download: None,
            elapsed: Duration::ZERO,
        };
        let mut decoder = None;
        let limit = self.limits().timeout;
        let run = self.request_page(&url, started, &mut page, &mut decoder);
        let result = match tokio::time::timeout(limit, run).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout {
                url: url.to_string(),
                timeout: limit,
            }),
        };
        if let Some(d) = decoder.as_mut() {
            page.wire_bytes = d.wire_bytes();
            let (body, over) = d.take();
            page.body = body;
            page.truncated = over;
        }
        match result {
            // A refusal by the resolver before anything was sent is the
            // caller's error, as for any fetch.
            Err(e @ Error::Refused { .. }) if page.status.is_none() => return Err(e),
            Err(e) => page.error = Some(e),
            Ok(()) => {}
        }
        page.elapsed = started.elapsed();
        page.download = page.ttfb.map(|t| page.elapsed.saturating_sub(t));
        Ok(page)
    }

    async fn request_page(
        &self,
        url: &Url,
        started: Instant,
        page: &mut PageResponse,
        decoder: &mut Option<BodyDecoder>,
    ) -> Result<(), Error> {
        let request = self
            .get(url)?
            .header(
                header::ACCEPT,
                "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
            )
            .header(header::ACCEPT_ENCODING, "gzip, deflate, br")
            .send();
        let (sent, timing) = crate::timing::measured(request).await;
        page.dns = timing.dns;
        page.connect = timing.connect;
        let mut response = sent.map_err(|e| send_error(url, &e))?;
        page.ttfb = Some(started.elapsed());
        page.status = Some(response.status().as_u16());
        page.http_version = Some(version_name(response.version()));
        let headers = response.headers();
        page.location = header_str(headers, header::LOCATION);
        if let Some(ct) = header_str(headers, header::CONTENT_TYPE) {
            let (media, charset) = body::parse_content_type(&ct);
            page.media_type = Some(media);
            page.charset = charset;
        }
        let all = |name: &str| -> Vec<String> {
            headers
                .get_all(name)
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .collect()
        };
        page.x_robots_tag = all("x-robots-tag");
        page.robots_tag = all("robots-tag");
        page.content_usage = all("content-usage");
        page.security = SecurityHeaders {
            hsts: headers.contains_key("strict-transport-security"),
            nosniff: all("x-content-type-options")
                .iter()
                .any(|v| v.trim().eq_ignore_ascii_case("nosniff")),
            csp: headers.contains_key("content-security-policy"),
        };
        page.content_signal = all("content-signal");
        page.link = all("link");
        page.refresh = all("refresh").into_iter().next();
        page.retry_after = header_str(headers, header::RETRY_AFTER)
            .map(|raw| RetryAfter::parse(&raw, SystemTime::now()));
        page.content_length =
            header_str(headers, header::CONTENT_LENGTH).and_then(|v| v.trim().parse().ok());
        if page
            .media_type
            .as_deref()
            .is_some_and(|m| !m.is_empty() && !is_html_type(m))
        {
            // Not HTML: the headers say all the crawl records. A small body
            // of known length on HTTP/1.x is read and dropped, so that the
            // connection goes back to the pool instead of being closed.
            if response.version() < reqwest::Version::HTTP_2
                && page.content_length.is_some_and(|n| n <= DRAIN_LIMIT)
            {
                while let Ok(Some(chunk)) = response.chunk().await {
                    page.wire_bytes += chunk.len() as u64;
                }
            }
            return Ok(());
        }
        page.body_read = true;
        let coding = Coding::of(header_str(headers, header::CONTENT_ENCODING).as_deref());
        let d = decoder.insert(BodyDecoder::new(
            &coding,
            self.limits().max_bytes,
            page.content_length,
        ));
        read_decoded(&mut response, d, url, &coding).await
    }
}

/// Reads `response`'s body into `d` until it ends or `d` is full.
///
/// # Errors
/// [`Error::Network`] when the body breaks off, [`Error::Decode`] when
/// its coding does not decode.
pub(crate) async fn read_decoded(
    response: &mut reqwest::Response,
    d: &mut BodyDecoder,
    url: &Url,
    coding: &Coding,
) -> Result<(), Error> {
    let decode_error = |message| Error::Decode {
        url: url.to_string(),
        coding: coding.to_string(),
        message,
    };
    loop {
        let chunk = response.chunk().await.map_err(|e| Error::Network {
            url: url.to_string(),
            message: format!("reading the body: {}", chain(&e)),
        })?;
        let Some(chunk) = chunk else {
            return d.finish().map_err(decode_error);
        };
        if d.push(&chunk).map_err(decode_error)? == Feed::Full {
            return Ok(());
        }
    }
}

/// The URLs of `Link` headers with `rel="canonical"` (`<url>; rel=canonical`).
#[must_use]
pub fn link_header_canonicals(values: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for value in values {
        // `<a>; rel="x", <b>; rel=canonical`: split at the `,` that starts
        // a new `<`.
        for part in value.split(", <").map(|p| p.trim_start_matches('<')) {
            let Some((target, params)) = part.split_once('>') else {
                continue;
            };
            let canonical = params.split(';').any(|p| {
                p.trim().split_once('=').is_some_and(|(k, v)| {
                    k.trim().eq_ignore_ascii_case("rel")
                        && v.trim()
                            .trim_matches('"')
                            .split_ascii_whitespace()
                            .any(|w| w.eq_ignore_ascii_case("canonical"))
                })
            });
            if canonical {
                out.push(target.trim().to_owned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddr};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// A server answering every connection with `response`.
    async fn serve(response: &'static str) -> SocketAddr {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = stream.read(&mut buf).await;
                    let _ = stream.write_all(response.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        addr
    }

    fn fetcher() -> Fetcher {
        Fetcher::builder()
            .allow_private(true)
            .timeout(Duration::from_secs(5))
            .build()
            .expect("fetcher")
    }

    #[tokio::test]
    async fn a_redirect_is_not_followed_and_headers_are_kept() {
        let addr = serve(
            "HTTP/1.1 301 Moved\r\nLocation: /next\r\nX-Robots-Tag: noindex\r\n\
             X-Robots-Tag: botwarden: nofollow\r\nLink: </c>; rel=\"canonical\"\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n",
        )
        .await;
        let url = Url::parse(&format!("http://{addr}/start#frag")).expect("url");
        let page = fetcher().fetch_page(url).await.expect("sent");
        assert_eq!(page.status, Some(301));
        assert!(page.is_redirect());
        assert_eq!(page.location.as_deref(), Some("/next"));
        assert_eq!(page.x_robots_tag, ["noindex", "botwarden: nofollow"]);
        assert_eq!(link_header_canonicals(&page.link), ["/c"]);
        assert_eq!(page.url.fragment(), None);
        assert_eq!(page.outcome(), Outcome::Status(301));
    }

    #[tokio::test]
    async fn html_body_type_and_charset() {
        let addr = serve(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=ISO-8859-1\r\n\
             Content-Length: 22\r\nConnection: close\r\n\r\n<a href=\"/x\">x</a>\n\n\n\n",
        )
        .await;
        let page = fetcher()
            .fetch_page(Url::parse(&format!("http://{addr}/")).expect("url"))
            .await
            .expect("sent");
        assert_eq!(page.status, Some(200));
        assert!(page.is_html());
        assert_eq!(page.charset.as_deref(), Some("ISO-8859-1"));
        assert_eq!(page.body.len(), 22);
        assert!(page.ttfb.is_some());
    }

    #[tokio::test]
    async fn no_answer_is_a_connection_failure_not_a_lost_page() {
        // A port nothing listens on.
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
        let addr = listener.local_addr().expect("address");
        drop(listener);
        let page = fetcher()
            .fetch_page(Url::parse(&format!("http://{addr}/")).expect("url"))
            .await
            .expect("sent");
        assert_eq!(page.status, None);
        assert!(page.error.is_some());
        assert_eq!(page.outcome(), Outcome::ConnectionFailed);
    }

    #[tokio::test]
    async fn private_addresses_are_refused_unless_allowed() {
        let strict = Fetcher::builder().build().expect("fetcher");
        let err = strict
            .fetch_page(Url::parse("http://127.0.0.1:9/").expect("url"))
            .await
            .expect_err("refused");
        assert!(matches!(err, Error::Refused { .. }), "{err}");
    }

    #[test]
    fn canonical_link_headers() {
        let values = vec![
            "<https://a.example/x>; rel=\"alternate\", <https://a.example/c>; rel=canonical"
                .to_owned(),
            "</d>; rel=\"canonical nofollow\"".to_owned(),
            "garbage".to_owned(),
        ];
        assert_eq!(
            link_header_canonicals(&values),
            ["https://a.example/c", "/d"]
        );
    }
}
