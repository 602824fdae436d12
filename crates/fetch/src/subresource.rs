//! A resource a rendered page asks for (a script, a style sheet, an
//! image, an XHR): [`Fetcher::fetch_subresource`] makes one GET for the
//! browser, with the crawler's `User-Agent` and signature and the address
//! guard, does not follow a redirect (the browser asks for its target,
//! which is judged again), and keeps the whole answer the browser is to
//! be given: status, headers and the decoded body, at most a byte cap.

use std::time::{Duration, Instant};

use reqwest::header;
use url::Url;

use crate::body::{BodyDecoder, Coding};
use crate::error::Error;
use crate::fetch::{Fetcher, header_str, send_error};
use crate::page::Outcome;

/// Headers of an answer that describe how it came over the wire, not
/// what it is: dropped, since the browser is given the decoded body.
const WIRE_HEADERS: [&str; 5] = [
    "content-encoding",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
];

/// What a resource request gave. Failures are in `error`.
#[derive(Debug, Clone)]
pub struct SubresourceResponse {
    /// The URL asked.
    pub url: Url,
    /// The status, if an answer came.
    pub status: Option<u16>,
    /// The answer's headers, as sent, without those of the wire
    /// (`Content-Encoding`, `Content-Length`, …).
    pub headers: Vec<(String, String)>,
    /// The decoded body, at most the cap asked for.
    pub body: Vec<u8>,
    /// Whether the body was longer than the cap (it is cut).
    pub truncated: bool,
    /// Why the request failed.
    pub error: Option<Error>,
    /// From the request to the body's end.
    pub elapsed: Duration,
}

impl SubresourceResponse {
    /// How the request ended, for the throttle.
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        Outcome::of(self.status, self.error.as_ref())
    }
}

impl Fetcher {
    /// Requests a resource for a page being rendered (module docs).
    /// `headers` are the browser's own (`Accept`, `Referer`); the
    /// `User-Agent`, the signature and `Accept-Encoding` are the
    /// fetcher's. At most `max_bytes` of decoded body are kept.
    ///
    /// # Errors
    /// [`Error::InvalidUrl`], [`Error::UnsupportedScheme`],
    /// [`Error::Refused`]: nothing was sent. Every other failure is in
    /// the response.
    pub async fn fetch_subresource(
        &self,
        url: Url,
        headers: &[(String, String)],
        max_bytes: usize,
    ) -> Result<SubresourceResponse, Error> {
        let mut url = url;
        url.set_fragment(None);
        crate::fetch::check_scheme(&url)?;
        self.check_literal(&url)?;
        let started = Instant::now();
        let mut answer = SubresourceResponse {
            url: url.clone(),
            status: None,
            headers: Vec::new(),
            body: Vec::new(),
            truncated: false,
            error: None,
            elapsed: Duration::ZERO,
        };
        let mut decoder = None;
        let limit = self.limits().timeout;
        let run = self.request_subresource(&url, headers, max_bytes, &mut answer, &mut decoder);
        let result = match tokio::time::timeout(limit, run).await {
            Ok(r) => r,
            Err(_) => Err(Error::Timeout {
                url: url.to_string(),
                timeout: limit,
            }),
        };
        if let Some(d) = decoder.as_mut() {
            let (body, over) = d.take();
            answer.body = body;
            answer.truncated = over;
        }
        match result {
            Err(e @ Error::Refused { .. }) if answer.status.is_none() => return Err(e),
            Err(e) => answer.error = Some(e),
            Ok(()) => {}
        }
        answer.elapsed = started.elapsed();
        Ok(answer)
    }

    async fn request_subresource(
        &self,
        url: &Url,
        headers: &[(String, String)],
        max_bytes: usize,
        answer: &mut SubresourceResponse,
        decoder: &mut Option<BodyDecoder>,
    ) -> Result<(), Error> {
        let request = headers
            .iter()
            .filter(|(name, _)| is_browser_header(name))
            .fold(self.get(url)?, |r, (name, value)| {
                r.header(name.as_str(), value.as_str())
            })
            .header(header::ACCEPT_ENCODING, "gzip, deflate, br");
        let mut response = request.send().await.map_err(|e| send_error(url, &e))?;
        answer.status = Some(response.status().as_u16());
        let sent = response.headers();
        answer.headers = sent
            .iter()
            .filter(|(name, _)| !WIRE_HEADERS.contains(&name.as_str()))
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect();
        let coding = Coding::of(header_str(sent, header::CONTENT_ENCODING).as_deref());
        let length = header_str(sent, header::CONTENT_LENGTH).and_then(|v| v.trim().parse().ok());
        let d = decoder.insert(BodyDecoder::new(&coding, max_bytes, length));
        crate::page::read_decoded(&mut response, d, url, &coding).await
    }
}

/// Whether a header of the browser's request is passed on: what it says
/// of the request (`Accept`, `Referer`, `Origin`, a script's own
/// headers), not who sends it or how (`User-Agent`, `Accept-Encoding`,
/// `Host`, `Cookie` and the like are the fetcher's or left out).
fn is_browser_header(name: &str) -> bool {
    !matches!(
        name.to_ascii_lowercase().as_str(),
        "user-agent"
            | "accept-encoding"
            | "host"
            | "connection"
            | "content-length"
            | "cookie"
            | "signature"
            | "signature-input"
            | "signature-agent"
    ) && !name.starts_with(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browsers_identity_headers_are_not_passed_on() {
        assert!(is_browser_header("Accept"));
        assert!(is_browser_header("Referer"));
        assert!(is_browser_header("X-Requested-With"));
        for name in [
            "User-Agent",
            "accept-encoding",
            "Cookie",
            "Signature",
            ":authority",
        ] {
            assert!(!is_browser_header(name), "{name}");
        }
    }
}
