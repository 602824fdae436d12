//! Checking the site's links to other sites (`crawl --check-external`):
//! each distinct external URL the site's pages link to (`<a>`, `<area>`,
//! frames) is asked once whether it answers, never crawled.
//!
//! A check is a `HEAD` request; a `GET` follows when the `HEAD` is refused
//! (`405`, `501`) or fails in a way that may be the method's (the
//! connection closed or reset without an answer), and only its head is
//! read. Redirects are not followed: the status and the `Location` are
//! recorded. What counts is stored in `external_checks`
//! ([`ExternalRecord`]), and `links/broken-external` reports the URLs that
//! answered `4xx`, `5xx` or nothing, but for the bot walls ([`wall`]:
//! a `403`, `429` or `503` with a challenge's header or page, or
//! `Retry-After`), which `links/external-unverified` reports as not
//! verified. With `--sign-key` the checks are signed (Web Bot Auth), as
//! the crawl's requests are: some walls let a signed robot through.
//!
//! Politeness, since the hosts did not ask to be visited: one request at a
//! time per host (host and port), [`ExternalConfig::delay`] between two
//! requests to a host, at most [`ExternalConfig::per_host`] URLs per host
//! and [`ExternalConfig::total`] in all (the URLs left over are counted,
//! not stored, so a later run checks them), a few hosts at a time, and the
//! fetcher's address guard (private and loopback addresses refused unless
//! allowed) and `User-Agent`. robots.txt is not read: a check is one
//! request per linked URL, what a visitor's click sends, and reads no
//! content.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use botwarden_fetch::{Fetcher, chain};
use botwarden_store::{Error as StoreError, ExternalRecord, Store};
use botwarden_text::thousands;
use url::Url;

use crate::error::Error;

mod wall;

/// How external links are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExternalConfig {
    /// Between two requests to the same host.
    pub delay: Duration,
    /// How long one request may take to answer.
    pub timeout: Duration,
    /// URLs checked per host at most.
    pub per_host: usize,
    /// URLs checked in all at most.
    pub total: usize,
    /// Hosts checked at the same time.
    pub hosts_at_once: usize,
}

impl Default for ExternalConfig {
    fn default() -> Self {
        ExternalConfig {
            delay: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
            per_host: 20,
            total: 1_000,
            hosts_at_once: 4,
        }
    }
}

/// What a run of checks did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExternalSummary {
    /// URLs checked now.
    pub checked: u64,
    /// Of which answered `4xx`, `5xx` or nothing, and no bot wall.
    pub broken: u64,
    /// Of which answered with a bot wall: not verified.
    pub walled: u64,
    /// URLs not checked because their host had its share.
    pub over_host_cap: u64,
    /// URLs not checked because the total was reached.
    pub over_total_cap: u64,
    /// URLs checked by an earlier run, not asked again.
    pub already_checked: u64,
    /// The URLs checked per host at most ([`ExternalConfig::per_host`]).
    pub per_host: usize,
    /// The URLs checked in all at most ([`ExternalConfig::total`]).
    pub total: usize,
}

impl std::fmt::Display for ExternalSummary {
    /// `N external URL(s) checked, N broken, N behind a bot wall; N left
    /// unchecked (over 20 per host), N (over 1,000 in all); N checked
    /// before`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} external URL(s) checked, {} broken, {} behind a bot wall; {} left unchecked \
             (over {} per host), {} (over {} in all); {} checked before",
            self.checked,
            self.broken,
            self.walled,
            self.over_host_cap,
            thousands(self.per_host as u64),
            self.over_total_cap,
            thousands(self.total as u64),
            self.already_checked
        )
    }
}

/// Checks the external URLs of the crawl in `store` that are not checked
/// yet (module docs), and stores what they answered.
///
/// # Errors
/// [`Error::Store`] if the store cannot be read or written; the failures
/// of the requests are results, stored.
pub async fn check_external(
    store: &mut Store,
    fetcher: &Fetcher,
    config: &ExternalConfig,
) -> Result<ExternalSummary, Error> {
    let (already, rows) = to_check(store)?;
    let mut summary = ExternalSummary {
        already_checked: already,
        per_host: config.per_host,
        total: config.total,
        ..ExternalSummary::default()
    };
    // By host, in the order of discovery; the caps taken in that order.
    let mut hosts: BTreeMap<String, Vec<(i64, Url)>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut taken = 0usize;
    for (id, text) in rows {
        let Ok(url) = Url::parse(&text) else { continue };
        let host = format!(
            "{}:{}",
            url.host_str().unwrap_or_default(),
            url.port_or_known_default().unwrap_or(0)
        );
        let list = hosts.entry(host.clone()).or_insert_with(|| {
            order.push(host);
            Vec::new()
        });
        if list.len() >= config.per_host {
            summary.over_host_cap += 1;
        } else if taken >= config.total {
            summary.over_total_cap += 1;
        } else {
            list.push((id, url));
            taken += 1;
        }
    }
    // A few hosts at a time, each host's URLs one after the other.
    let mut tasks = tokio::task::JoinSet::new();
    let mut records = Vec::new();
    let path = store.path().to_owned();
    let joined = |done: Result<Vec<ExternalRecord>, tokio::task::JoinError>,
                  records: &mut Vec<ExternalRecord>| match done {
        Ok(mut r) => {
            records.append(&mut r);
            Ok(())
        }
        // The task's URLs are unknown here: the run fails rather than
        // drop them silently.
        Err(e) => Err(Error::Store(StoreError {
            path: path.clone(),
            message: format!("an external link check failed inside the crawler: {e}"),
        })),
    };
    for host in order {
        let urls = hosts.remove(&host).unwrap_or_default();
        if urls.is_empty() {
            continue;
        }
        if tasks.len() >= config.hosts_at_once.max(1)
            && let Some(done) = tasks.join_next().await
        {
            joined(done, &mut records)?;
        }
        let fetcher = fetcher.clone();
        let config = *config;
        tasks.spawn(async move {
            let mut out = Vec::with_capacity(urls.len());
            for (n, (id, url)) in urls.into_iter().enumerate() {
                if n > 0 {
                    tokio::time::sleep(config.delay).await;
                }
                out.push(check_one(&fetcher, id, &url, config.timeout).await);
            }
            out
        });
    }
    while let Some(done) = tasks.join_next().await {
        joined(done, &mut records)?;
    }
    records.sort_by_key(|r: &ExternalRecord| r.url_id);
    summary.checked = records.len() as u64;
    summary.broken = records.iter().filter(|r| r.is_broken()).count() as u64;
    summary.walled = records.iter().filter(|r| r.wall.is_some()).count() as u64;
    store.write_external(&records)?;
    Ok(summary)
}

/// How many external URLs an earlier run checked, and those left to
/// check (each id and URL): the out-of-scope targets of the pages' links
/// not checked yet.
fn to_check(store: &Store) -> Result<(u64, Vec<(i64, String)>), Error> {
    let fail = |e: rusqlite::Error| {
        Error::Store(StoreError {
            path: store.path().to_owned(),
            message: format!("cannot read the external links: {e}"),
        })
    };
    let conn = store.connection();
    let already: i64 = conn
        .query_row("SELECT count(*) FROM external_checks", [], |r| r.get(0))
        .map_err(fail)?;
    let mut st = conn
        .prepare(
            "SELECT u.id, u.url FROM urls u
             WHERE u.state = 'skipped' AND u.skip_reason = 'scope'
               AND u.id IN (SELECT target_id FROM links WHERE kind IN ('a', 'area', 'iframe'))
               AND u.id NOT IN (SELECT url_id FROM external_checks)
             ORDER BY u.id",
        )
        .map_err(fail)?;
    let rows: Vec<(i64, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(fail)?
        .collect::<Result<_, _>>()
        .map_err(fail)?;
    drop(st);
    Ok((u64::try_from(already).unwrap_or(0), rows))
}

/// One URL's check: `HEAD`, then `GET` when the `HEAD` is refused or the
/// connection drops without an answer; both signed when the crawl's
/// requests are. An answer that may be a bot wall ([`wall`]) and shows
/// none in its headers has its page read (a `GET` after a `HEAD`).
async fn check_one(fetcher: &Fetcher, id: i64, url: &Url, timeout: Duration) -> ExternalRecord {
    let started = Instant::now();
    let mut record = ExternalRecord {
        url_id: id,
        checked_at: jiff::Timestamp::now().to_string(),
        method: "HEAD",
        status: None,
        error: None,
        location: None,
        elapsed_ms: 0.0,
        wall: None,
    };
    if let Err(e) = fetcher.check_literal(url) {
        record.error = Some(e.to_string());
        return record;
    }
    let head = send(fetcher, reqwest::Method::HEAD, url, timeout).await;
    let retry = match &head {
        Ok(r) => matches!(r.status().as_u16(), 405 | 501),
        Err((_, dropped)) => *dropped,
    };
    let answer = if retry {
        record.method = "GET";
        send(fetcher, reqwest::Method::GET, url, timeout).await
    } else {
        head
    };
    match answer {
        Ok(r) => answered(fetcher, &mut record, url, r, timeout).await,
        Err((why, _)) => record.error = Some(why),
    }
    record.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    record
}

/// Fills `record` from an answer: its status, `Location`, and the bot
/// wall it shows (its page read when its headers show none).
async fn answered(
    fetcher: &Fetcher,
    record: &mut ExternalRecord,
    url: &Url,
    response: reqwest::Response,
    timeout: Duration,
) {
    let status = response.status().as_u16();
    record.status = Some(status);
    record.location = response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|l| l.to_str().ok())
        .and_then(|l| url.join(l).ok())
        .map(|l| l.to_string());
    record.wall = wall::in_headers(status, response.headers());
    if record.wall.is_some() || !wall::may_be_wall(status) {
        // Only the head is read: dropping the answer closes it.
        return;
    }
    let page = if record.method == "GET" {
        Ok(response)
    } else {
        drop(response);
        send(fetcher, reqwest::Method::GET, url, timeout).await
    };
    if let Ok(page) = page {
        let status = page.status().as_u16();
        record.wall = wall::in_headers(status, page.headers());
        if record.wall.is_none() {
            let server = page
                .headers()
                .get(reqwest::header::SERVER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let body = first_bytes(page, wall::PAGE_BYTES).await;
            record.wall = wall::in_page(status, server.as_deref(), &body);
        }
    }
}

/// A request, signed when the fetcher signs; an error's text, and whether
/// the connection dropped without an answer (maybe the method's fault).
async fn send(
    fetcher: &Fetcher,
    method: reqwest::Method,
    url: &Url,
    timeout: Duration,
) -> Result<reqwest::Response, (String, bool)> {
    let request = fetcher
        .request(method, url)
        .map_err(|e| (e.to_string(), false))?;
    request.timeout(timeout).send().await.map_err(|e| {
        let dropped = !e.is_timeout() && !e.is_connect() && !e.is_builder();
        let why = if e.is_timeout() {
            format!("timed out after {} s", timeout.as_secs_f64())
        } else {
            chain(&e)
        };
        (why, dropped)
    })
}

/// At most `cap` bytes of a body (fewer when it fails part-way).
async fn first_bytes(mut response: reqwest::Response, cap: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < cap {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk[..chunk.len().min(cap - body.len())]),
            _ => break,
        }
    }
    body
}
