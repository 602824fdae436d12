//! The page pipeline: what becomes of one URL the crawl may fetch, from
//! the moment it leaves the frontier to the batch written to the store.
//! The crawl ([`crate::crawl`]) and a shared crawl's worker
//! ([`crate::crawl_worker`]) run every URL through it; they differ in how
//! they get their URLs, keep politeness and robots.txt, and where the new
//! URLs a page leads to go.
//!
//! 1. [`claimed_url`]: a URL that is not one is skipped.
//! 2. [`RobotsState::verdict`] (module `robots`, which also reads an
//!    origin's robots.txt): a URL its robots.txt disallows, or whose
//!    robots.txt could not be read, is skipped with why; one whose
//!    robots.txt is being read or waited for is put off.
//! 3. [`InFlight::fetch`]: the request, its body read beside it
//!    ([`Reading`]: hash, HTML facts), a task that panics recorded
//!    ([`record_lost`]).
//! 4. [`Answer::of`]: a request refused before it was sent is skipped; an
//!    answer gives the throttle its outcome and a `429`/`503` its pause
//!    ([`Answer::retry`]: whether it is asked again).
//! 5. [`Answer::take`] (module `page`): the page's record, its directives,
//!    and its links recorded, their targets admitted.

mod page;
mod robots;

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use botwarden_fetch::{Error as FetchError, Fetcher, PageResponse};
use botwarden_robots::TokenChain;
use botwarden_store::{
    Batch, BodyHash, PageRecord, Skip, TextReading, ThrottleRecord, UrlState, normalize_url,
};
use tokio::task::{self, JoinSet};
use url::Url;

pub(crate) use page::{Admission, record_new};
pub use robots::RobotsRead;
pub(crate) use robots::{RobotsState, Verdict, read_robots, robots_state};

use crate::crawler::CrawlConfig;
use crate::error::Error;
use crate::frontier::Queued;
use crate::html::{self, HtmlFacts};
use crate::render::{RenderJob, RenderedPage};
use crate::throttle::{Adjustment, Direction, Outcome};

/// How a crawl reads its pages' bodies: the hash of each body and the
/// text its SimHash is taken from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Readings {
    /// The body's hash.
    pub(crate) hash: BodyHash,
    /// The SimHash's text.
    pub(crate) text: TextReading,
}

/// A crawl's start URL in normal form.
pub(crate) fn start_url(start: &Url) -> Result<Url, Error> {
    normalize_url(start.clone()).map_err(|e| {
        Error::Fetch(FetchError::InvalidUrl {
            url: start.to_string(),
            reason: e.to_string(),
        })
    })
}

/// What the store's `meta` says of a new crawl: its seed, start, identity
/// and readings.
pub(crate) fn start_meta(
    start: &Url,
    config: &CrawlConfig,
    readings: Readings,
) -> Vec<(String, String)> {
    vec![
        ("seed".into(), start.to_string()),
        ("started_at".into(), now_text()),
        ("user_agent".into(), config.identity.user_agent()),
        ("tokens".into(), config.identity.tokens().join(" ")),
        (BodyHash::META.into(), readings.hash.name().into()),
        (TextReading::META.into(), readings.text.name().into()),
    ]
}

/// Records the URL `id` as skipped, for `reason`.
pub(crate) fn skip(batch: &mut Batch, id: u64, reason: &'static str, detail: String) {
    batch
        .states
        .push((id, UrlState::Skipped, Some(Skip { reason, detail })));
}

/// The URL of a queued or leased one (`url`, of id `id`); one that is not
/// a URL is recorded as skipped.
pub(crate) fn claimed_url(id: u64, url: &str, batch: &mut Batch) -> Option<Url> {
    let parsed = Url::parse(url).ok();
    if parsed.is_none() {
        skip(batch, id, "invalid", "not a URL".into());
    }
    parsed
}

/// An answered request, before its page is taken in: from its outcome and
/// pause the loop counts it against its host and decides whether it is
/// asked again.
pub(crate) struct Answer {
    /// The URL asked.
    pub(crate) q: Queued,
    page: PageResponse,
    reading: Reading,
    /// What the answer tells the throttle.
    pub(crate) outcome: Outcome,
    /// How long a `429` or `503` pauses the host.
    pub(crate) pause: Option<Duration>,
}

impl Answer {
    /// The answer of a request that ended; `None` when nothing was sent
    /// (a refused address, a redirect into a private network say), which
    /// is recorded as skipped.
    pub(crate) fn of(done: Done, batch: &mut Batch, config: &CrawlConfig) -> Option<Answer> {
        let Done { q, result } = done;
        match result {
            Ok((page, reading)) => Some(Answer {
                outcome: page.outcome(),
                pause: pause_of(&page, config),
                q,
                page,
                reading,
            }),
            Err(e) => {
                skip(batch, q.id, "refused", e.to_string());
                None
            }
        }
    }

    /// Whether it is asked again: a `429` or `503` asked again `attempts`
    /// times so far, fewer than [`CrawlConfig::retries`].
    pub(crate) fn retry(&self, attempts: u32, config: &CrawlConfig) -> bool {
        self.pause.is_some() && attempts < config.retries
    }

    /// The host that answered, as its throttle's records name it.
    pub(crate) fn host(&self) -> &str {
        self.page.url.host_str().unwrap_or_default()
    }

    /// Takes the page in: its record, its links (their targets admitted
    /// to `frontier`), its directives.
    pub(crate) fn take<A: Admission>(
        self,
        frontier: &mut A,
        batch: &mut Batch,
        chain: &TokenChain,
        config: &CrawlConfig,
    ) {
        let fetched = page::Fetched {
            q: &self.q,
            page: &self.page,
            reading: self.reading,
            rendered: None,
        };
        page::take_page(fetched, frontier, batch, chain, config);
    }

    /// Takes the page in with its render (`--render`).
    pub(crate) fn take_rendered<A: Admission>(
        self,
        rendered: &RenderedPage,
        frontier: &mut A,
        batch: &mut Batch,
        chain: &TokenChain,
        config: &CrawlConfig,
    ) {
        let fetched = page::Fetched {
            q: &self.q,
            page: &self.page,
            reading: self.reading,
            rendered: Some(rendered),
        };
        page::take_page(fetched, frontier, batch, chain, config);
    }

    /// Whether the page is one to render: an HTML page read with success.
    pub(crate) fn is_renderable(&self) -> bool {
        matches!(self.reading.html, Some(Ok(_)))
    }

    /// The page as the browser is given it: its status, the headers that
    /// describe its body (`Content-Type`, `Link`, `Refresh`), its body.
    pub(crate) fn render_job(&self) -> RenderJob {
        let page = &self.page;
        let mut headers = Vec::new();
        if let Some(media) = &page.media_type {
            let value = match &page.charset {
                Some(c) => format!("{media}; charset={c}"),
                None => media.clone(),
            };
            headers.push(("Content-Type".to_owned(), value));
        }
        headers.extend(page.link.iter().map(|l| ("Link".to_owned(), l.clone())));
        if let Some(r) = &page.refresh {
            headers.push(("Refresh".to_owned(), r.clone()));
        }
        RenderJob::of(
            page.url.clone(),
            page.status.unwrap_or(200),
            headers,
            page.body.clone(),
        )
    }
}

/// A request that ended: its URL, and its answer or why none came.
pub(crate) struct Done {
    pub(crate) q: Queued,
    pub(crate) result: Result<(PageResponse, Reading), FetchError>,
}

/// What the fetch task reads of a page beside fetching it, off the
/// scheduler's thread: the body's hash and, for a successful HTML answer,
/// its links and directives.
pub(crate) struct Reading {
    hash: Option<u64>,
    html: Option<Result<HtmlFacts, Error>>,
    /// The SimHash of a not-found page's text (an HTML answer of 404 or
    /// 410): what `content/soft-404` compares the site's pages with.
    not_found_simhash: Option<u64>,
}

impl Reading {
    /// Reads `page` as `readings` say.
    pub(crate) fn of(page: &PageResponse, readings: Readings) -> Reading {
        let Readings { hash, text } = readings;
        let html = (!page.is_redirect()
            && page.status.is_some_and(|s| (200..300).contains(&s))
            && page.is_html())
        .then(|| html::extract_with(&page.body, page.charset.as_deref(), text));
        let not_found_simhash = (matches!(page.status, Some(404 | 410)) && page.is_html())
            .then(|| html::text_simhash(&page.body, page.charset.as_deref()))
            .flatten();
        Reading {
            hash: (!page.body.is_empty()).then(|| hash_body(hash, &page.body)),
            html,
            not_found_simhash,
        }
    }
}

/// The page requests in flight, each task with its URL, so that a task
/// that panics does not take its URL with it.
#[derive(Default)]
pub(crate) struct InFlight {
    tasks: JoinSet<Done>,
    urls: HashMap<task::Id, Queued>,
}

/// How a request's task ended.
pub(crate) enum Joined {
    /// It answered (a failed request is an answer too).
    Answer(Box<Done>),
    /// The task itself failed (a panic): the URL and what happened.
    Lost(Queued, String),
}

impl InFlight {
    /// Starts the request of `q` (at `url`), its body read beside it as
    /// `readings` say.
    pub(crate) fn fetch(&mut self, q: Queued, url: Url, fetcher: &Fetcher, readings: Readings) {
        let fetcher = fetcher.clone();
        self.spawn(q, async move {
            fetcher.fetch_page(url).await.map(|page| {
                let reading = Reading::of(&page, readings);
                (page, reading)
            })
        });
    }

    /// Runs `request` as the request of `q`.
    pub(crate) fn spawn(
        &mut self,
        q: Queued,
        request: impl Future<Output = Result<(PageResponse, Reading), FetchError>> + Send + 'static,
    ) {
        let url = q.clone();
        let handle = self.tasks.spawn(async move {
            let result = request.await;
            Done { q, result }
        });
        self.urls.insert(handle.id(), url);
    }

    /// How many requests are in flight.
    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether none is.
    pub(crate) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The next request to end; `None` when none is in flight.
    pub(crate) async fn next(&mut self) -> Option<Joined> {
        loop {
            match self.tasks.join_next_with_id().await? {
                Ok((id, done)) => {
                    self.urls.remove(&id);
                    return Some(Joined::Answer(Box::new(done)));
                }
                Err(e) => {
                    if let Some(q) = self.urls.remove(&e.id()) {
                        return Some(Joined::Lost(q, task_failure(e)));
                    }
                }
            }
        }
    }
}

/// What became of a task that did not return.
pub(crate) fn task_failure(e: task::JoinError) -> String {
    if !e.is_panic() {
        return "its task was cancelled".to_owned();
    }
    let panic = e.into_panic();
    let message = panic
        .downcast_ref::<&str>()
        .map(|m| (*m).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned());
    match message {
        Some(m) => format!("its task panicked: {m}"),
        None => "its task panicked".to_owned(),
    }
}

/// Records a URL whose request was lost inside the crawler: fetched, with
/// the error, so that nothing is lost silently.
pub(crate) fn record_lost(batch: &mut Batch, q: &Queued, why: &str) {
    batch.pages.push(PageRecord {
        url_id: q.id,
        fetched_at: now_text(),
        error: Some(format!("the request failed inside the crawler: {why}")),
        ..PageRecord::default()
    });
    batch.states.push((q.id, UrlState::Fetched, None));
}

/// The record of a throttle adjustment on `host`.
pub(crate) fn throttle_record(host: &str, a: &Adjustment) -> ThrottleRecord {
    ThrottleRecord {
        at: now_text(),
        host: host.to_owned(),
        request: a.request,
        indicators: a.indicators,
        window: a.requests_in_window,
        direction: match a.direction {
            Direction::Slower => "slower",
            Direction::Faster => "faster",
        },
        delay_ms: (millis(a.delay.0), millis(a.delay.1)),
        parallel: a.parallel,
    }
}

/// How long a `429` or `503` pauses its host (`Retry-After`, else 5 s, at
/// most [`CrawlConfig::max_pause`]); `None` for other answers.
pub(crate) fn pause_of(page: &PageResponse, config: &CrawlConfig) -> Option<Duration> {
    matches!(page.status, Some(429 | 503)).then(|| {
        page.retry_after
            .as_ref()
            .and_then(|r| r.delay)
            .unwrap_or(Duration::from_secs(5))
            .min(config.max_pause)
    })
}

/// `scheme://host[:port]`.
pub(crate) fn origin_key(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// `host[:port]` (both schemes share the host's politeness).
pub(crate) fn host_key(url: &Url) -> String {
    match url.port() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    }
}

/// `d` in whole milliseconds.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `bytes`' hash of the kind `hash`.
fn hash_body(hash: BodyHash, bytes: &[u8]) -> u64 {
    match hash {
        BodyHash::Xxh3 => xxhash_rust::xxh3::xxh3_64(bytes),
        BodyHash::Sha256 => {
            let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
            let mut head = [0u8; 8];
            head.copy_from_slice(&digest.as_ref()[..8]);
            u64::from_be_bytes(head)
        }
        BodyHash::Fnv1a => fnv1a(bytes),
    }
}

/// 64-bit FNV-1a: a stable hash of a body, to find duplicate pages.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Now, as the store writes it.
pub(crate) fn now_text() -> String {
    jiff::Timestamp::now().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_hashes_are_the_published_ones() {
        // XXH3-64("") = 2d06800538d394c2, XXH3-64("abc") = 78af5f94892f3950
        // (xxHash's own sanity checks); SHA-256("abc") = ba7816bf 8f01cfea …;
        // FNV-1a 64("a") = af63dc4c8601ec8c.
        assert_eq!(hash_body(BodyHash::Xxh3, b""), 0x2d06_8005_38d3_94c2);
        assert_eq!(hash_body(BodyHash::Xxh3, b"abc"), 0x78af_5f94_892f_3950);
        assert_eq!(hash_body(BodyHash::Sha256, b"abc"), 0xba78_16bf_8f01_cfea);
        assert_eq!(hash_body(BodyHash::Fnv1a, b"a"), 0xaf63_dc4c_8601_ec8c);
        for kind in [BodyHash::Xxh3, BodyHash::Sha256, BodyHash::Fnv1a] {
            assert_eq!(BodyHash::of_store(Some(kind.name())), kind);
        }
        assert_eq!(BodyHash::of_store(None), BodyHash::Fnv1a);
    }

    /// A queued URL of id `id`.
    fn queued(id: u64) -> Queued {
        Queued {
            id,
            url: format!("https://example.com/{id}"),
            depth: 1,
        }
    }

    #[tokio::test]
    async fn a_request_whose_task_panics_is_recorded_not_lost() {
        let mut running = InFlight::default();
        running.spawn(queued(1), async { panic!("broken parser") });
        running.spawn(queued(2), async {
            Err(FetchError::InvalidUrl {
                url: "x".into(),
                reason: "an answer, if a failed one".into(),
            })
        });
        let mut lost = Vec::new();
        let mut answered = Vec::new();
        while let Some(joined) = running.next().await {
            match joined {
                Joined::Lost(q, why) => lost.push((q, why)),
                Joined::Answer(done) => answered.push(done.q.id),
            }
        }
        assert!(running.is_empty() && running.urls.is_empty());
        assert_eq!(answered, [2]);
        assert_eq!(lost.len(), 1);
        let (q, why) = &lost[0];
        assert_eq!(q, &queued(1));
        assert_eq!(why, "its task panicked: broken parser");

        let mut batch = Batch::default();
        record_lost(&mut batch, q, why);
        assert_eq!(batch.pages.len(), 1);
        assert_eq!(batch.pages[0].url_id, 1);
        assert_eq!(batch.pages[0].status, None);
        assert_eq!(
            batch.pages[0].error.as_deref(),
            Some("the request failed inside the crawler: its task panicked: broken parser")
        );
        assert_eq!(batch.states, [(1, UrlState::Fetched, None)]);
    }
}
