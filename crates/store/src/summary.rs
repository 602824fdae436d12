//! The summary of a crawl, read from its store (so a resumed crawl's
//! summary covers every run), as text or JSON.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use rusqlite::Connection;
use serde::Serialize;

use crate::error::Error;
use crate::store::Store;

/// How many of each list the summary shows.
pub const SHOWN: usize = 20;

/// What a crawl found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// The start URL.
    pub seed: String,
    /// `running`, `stopped` or `finished`.
    pub state: String,
    /// The User-Agent sent.
    pub user_agent: String,
    /// The robots.txt tokens obeyed, most specific first.
    pub tokens: String,
    /// How the verified site's robots.txt was read, when not as botwarden
    /// reads it (`--as`, `--profile`, `--robots-file`).
    pub reading: Option<Reading>,
    /// How the site's ownership was shown, each time a crawl run started
    /// with a simulated reading.
    pub verifications: Vec<SiteVerification>,
    /// URLs by state.
    pub urls: UrlCounts,
    /// Fetched URLs by HTTP status (`"200"`, …; `"none"` when no answer
    /// came).
    pub statuses: BTreeMap<String, u64>,
    /// URLs not fetched, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// The robots.txt rules that blocked URLs, most URLs first.
    pub blocked_by: Vec<BlockingRule>,
    /// URLs the relaxed (RFC 9309) and strict readings decide differently.
    pub strict_differences: Differences,
    /// Pages that say `noindex` to the crawler.
    pub noindex_pages: u64,
    /// Pages that say `nofollow` to the crawler.
    pub nofollow_pages: u64,
    /// Links recorded and not followed (links to the page they stand on
    /// left out).
    pub links_not_followed: u64,
    /// Links in all, but those to the page they stand on (`#top`).
    pub links: u64,
    /// Redirects answered, and pages that refresh to a URL at once
    /// (`botwarden_crawl::INSTANT_REFRESH`).
    pub redirects: u64,
    /// Requests that got no answer.
    pub errors: u64,
    /// URLs found in a sitemap that no link of the site leads to.
    pub sitemap_only: u64,
    /// The sitemaps read: `URL<TAB>kind<TAB>URLs<TAB>over the limit<TAB>error`
    /// per line.
    pub sitemaps: String,
    /// Each origin's robots.txt.
    pub robots_files: Vec<RobotsFile>,
    /// Every change of delay or parallelism, in order (the first
    /// [`SHOWN`] × 5).
    pub throttle: Vec<ThrottleChange>,
    /// How many changes there were.
    pub throttle_changes: u64,
}

/// How a verified site's robots.txt was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reading {
    /// The site (`scheme://host[:port]`); other origins are read as usual.
    pub origin: String,
    /// The token chain obeyed, space-separated, most specific first.
    pub tokens: String,
    /// The profile obeyed (`rfc9309`, `google`, …).
    pub profile: String,
    /// `site`, or `file <name>` for the operator's file.
    pub source: String,
}

/// How a site's ownership was shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SiteVerification {
    /// The site.
    pub origin: String,
    /// `file` or `meta`.
    pub method: String,
    /// Where the token was found.
    pub url: String,
    /// When.
    pub verified_at: String,
    /// The token's fingerprint (`sha256:…`), never the token.
    pub token_fingerprint: String,
}

/// URLs by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct UrlCounts {
    /// Met.
    pub known: u64,
    /// Fetched.
    pub fetched: u64,
    /// Still queued.
    pub queued: u64,
    /// Not fetched.
    pub skipped: u64,
}

/// A rule that blocked URLs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockingRule {
    /// The rule and its line (`Disallow: /private (line 5)`), or why the
    /// whole site was blocked.
    pub rule: String,
    /// URLs it blocked.
    pub urls: u64,
}

/// Where the two readings differ.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Differences {
    /// How many URLs.
    pub count: u64,
    /// The first of them.
    pub examples: Vec<Difference>,
}

/// One URL the readings decide differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The URL.
    pub url: String,
    /// RFC 9309's answer and deciding rule.
    pub relaxed: String,
    /// The strict answer and deciding rule.
    pub strict: String,
}

/// An origin's robots.txt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RobotsFile {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// The status, if an answer came.
    pub status: Option<u16>,
    /// What the crawler made of it.
    pub availability: String,
    /// Why it could not be read.
    pub error: Option<String>,
    /// `site` (fetched) or `file` (the operator's `--robots-file`).
    pub source: String,
}

/// A change of delay or parallelism.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThrottleChange {
    /// When.
    pub at: String,
    /// The host.
    pub host: String,
    /// Requests to it so far.
    pub request: u64,
    /// Indicators in the window, and the window's size.
    pub indicators: u32,
    /// Requests in the window.
    pub window: u32,
    /// `slower` or `faster`.
    pub direction: String,
    /// Delay before and after, in milliseconds.
    pub delay_ms: (u64, u64),
    /// Parallelism before and after.
    pub parallel: (u32, u32),
}

impl Summary {
    /// Reads the summary of the crawl in `store`.
    ///
    /// # Errors
    /// [`Error`] if SQLite fails.
    pub fn read(store: &Store) -> Result<Summary, Error> {
        let c = store.connection();
        let fail = |e: rusqlite::Error| Error {
            path: store.path().to_owned(),
            message: format!("cannot read the summary: {e}"),
        };
        let meta = |k: &str| store.meta(k).map(Option::unwrap_or_default);
        let (queued, fetched, skipped) = store.counts()?;
        let mut s = Summary {
            seed: meta("seed")?,
            state: meta("state")?,
            user_agent: meta("user_agent")?,
            tokens: meta("tokens")?,
            urls: UrlCounts {
                known: queued + fetched + skipped,
                fetched,
                queued,
                skipped,
            },
            ..Summary::default()
        };
        s.statuses = pairs(
            c,
            "SELECT coalesce(CAST(status AS TEXT), 'none'), count(*) FROM pages GROUP BY 1",
        )
        .map_err(fail)?;
        s.skipped = pairs(
            c,
            "SELECT skip_reason, count(*) FROM urls WHERE state = 'skipped' GROUP BY 1",
        )
        .map_err(fail)?;
        s.blocked_by = pairs_ordered(
            c,
            &format!(
                "SELECT skip_detail, count(*) AS n FROM urls WHERE skip_reason = 'robots'
                 GROUP BY 1 ORDER BY n DESC, 1 LIMIT {SHOWN}"
            ),
        )
        .map_err(fail)?
        .into_iter()
        .map(|(rule, urls)| BlockingRule { rule, urls })
        .collect();
        let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).map_err(fail);
        let n = |v: i64| u64::try_from(v).unwrap_or(0);
        s.strict_differences.count = n(count(
            "SELECT count(*) FROM robots_decisions WHERE relaxed_allowed != strict_allowed",
        )?);
        let mut st = c
            .prepare(&format!(
                "SELECT u.url, d.relaxed_allowed, d.relaxed_rule, d.relaxed_line,
                        d.strict_allowed, d.strict_rule, d.strict_line
                 FROM robots_decisions d JOIN urls u ON u.id = d.url_id
                 WHERE d.relaxed_allowed != d.strict_allowed ORDER BY u.id LIMIT {SHOWN}"
            ))
            .map_err(fail)?;
        let reading = |allowed: bool, rule: Option<String>, line: Option<u32>| {
            let verdict = if allowed { "allowed" } else { "disallowed" };
            match (rule, line) {
                (Some(rule), Some(line)) => format!("{verdict} by {rule} (line {line})"),
                _ => format!("{verdict} (no rule)"),
            }
        };
        s.strict_differences.examples = st
            .query_map([], |r| {
                Ok(Difference {
                    url: r.get(0)?,
                    relaxed: reading(r.get(1)?, r.get(2)?, r.get(3)?),
                    strict: reading(r.get(4)?, r.get(5)?, r.get(6)?),
                })
            })
            .map_err(fail)?
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        if let Some(origin) = store.meta("robots_origin")? {
            s.reading = Some(Reading {
                origin,
                tokens: meta("robots_tokens")?,
                profile: meta("robots_profile")?,
                source: meta("robots_source")?,
            });
        }
        let mut st = c
            .prepare(
                "SELECT origin, method, url, verified_at, token_fingerprint
                 FROM site_verifications ORDER BY id",
            )
            .map_err(fail)?;
        s.verifications = st
            .query_map([], |r| {
                Ok(SiteVerification {
                    origin: r.get(0)?,
                    method: r.get(1)?,
                    url: r.get(2)?,
                    verified_at: r.get(3)?,
                    token_fingerprint: r.get(4)?,
                })
            })
            .map_err(fail)?
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        s.noindex_pages = n(count(
            "SELECT count(*) FROM pages WHERE noindex IS NOT NULL",
        )?);
        s.nofollow_pages = n(count(
            "SELECT count(*) FROM pages WHERE nofollow IS NOT NULL",
        )?);
        // Links to the page they stand on (`#top`) are not the site's.
        s.links = n(count("SELECT count(*) FROM links WHERE same_page = 0")?);
        s.links_not_followed = n(count(
            "SELECT count(*) FROM links WHERE followed = 0 AND same_page = 0",
        )?);
        s.redirects = n(count(
            "SELECT count(*) FROM pages
             WHERE status BETWEEN 300 AND 399 OR (status = 200 AND refresh_delay <= 1)",
        )?);
        s.errors = n(count("SELECT count(*) FROM pages WHERE status IS NULL")?);
        s.sitemap_only = n(count(
            "SELECT count(*) FROM urls WHERE found_by = 'sitemap' AND id NOT IN
             (SELECT target_id FROM links WHERE target_id IS NOT NULL AND same_page = 0)",
        )?);
        s.sitemaps = meta("sitemaps")?;
        let mut st = c
            .prepare("SELECT origin, status, availability, error, source FROM robots_files ORDER BY origin")
            .map_err(fail)?;
        s.robots_files = st
            .query_map([], |r| {
                Ok(RobotsFile {
                    origin: r.get(0)?,
                    status: r.get(1)?,
                    availability: r.get(2)?,
                    error: r.get(3)?,
                    source: r.get(4)?,
                })
            })
            .map_err(fail)?
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        s.throttle_changes = n(count("SELECT count(*) FROM throttle_events")?);
        let mut st = c
            .prepare(&format!(
                "SELECT at, host, request, indicators, window, direction, delay_ms_before,
                        delay_ms_after, parallel_before, parallel_after
                 FROM throttle_events ORDER BY id LIMIT {}",
                SHOWN * 5
            ))
            .map_err(fail)?;
        s.throttle = st
            .query_map([], |r| {
                Ok(ThrottleChange {
                    at: r.get(0)?,
                    host: r.get(1)?,
                    request: r.get(2)?,
                    indicators: r.get(3)?,
                    window: r.get(4)?,
                    direction: r.get(5)?,
                    delay_ms: (r.get(6)?, r.get(7)?),
                    parallel: (r.get(8)?, r.get(9)?),
                })
            })
            .map_err(fail)?
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        Ok(s)
    }
}

fn pairs(c: &Connection, sql: &str) -> Result<BTreeMap<String, u64>, rusqlite::Error> {
    Ok(pairs_ordered(c, sql)?.into_iter().collect())
}

fn pairs_ordered(c: &Connection, sql: &str) -> Result<Vec<(String, u64)>, rusqlite::Error> {
    let mut st = c.prepare(sql)?;
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, Option<String>>(0)?.unwrap_or_default(),
            u64::try_from(r.get::<_, i64>(1)?).unwrap_or(0),
        ))
    })?;
    rows.collect()
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let u = &self.urls;
        let _ = writeln!(out, "crawl of {} ({})", self.seed, self.state);
        let _ = writeln!(out, "  as: {}", self.user_agent);
        let _ = writeln!(
            out,
            "  robots.txt tokens: {} → *",
            self.tokens.replace(' ', " → ")
        );
        if let Some(r) = &self.reading {
            let _ = writeln!(
                out,
                "  robots.txt of {} read as {} → * under {}, rules from {} (User-Agent unchanged)",
                r.origin,
                r.tokens.replace(' ', " → "),
                r.profile,
                if r.source == "site" {
                    "the site".to_owned()
                } else {
                    r.source.clone()
                }
            );
        }
        for v in &self.verifications {
            let _ = writeln!(
                out,
                "  ownership of {} verified by {} ({}) at {}, token {}",
                v.origin, v.method, v.url, v.verified_at, v.token_fingerprint
            );
        }
        let _ = writeln!(
            out,
            "URLs: {} met, {} fetched, {} not fetched, {} still queued",
            u.known, u.fetched, u.skipped, u.queued
        );
        if !self.statuses.is_empty() {
            let list: Vec<String> = self
                .statuses
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect();
            let _ = writeln!(out, "  by status: {}", list.join(", "));
        }
        if !self.skipped.is_empty() {
            let list: Vec<String> = self
                .skipped
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect();
            let _ = writeln!(out, "  not fetched: {}", list.join(", "));
        }
        for r in &self.robots_files {
            let status = if r.source == "file" {
                "the operator's file".to_owned()
            } else {
                r.status
                    .map_or_else(|| "no answer".to_owned(), |s| s.to_string())
            };
            let _ = write!(
                out,
                "robots.txt of {}: {status}, {}",
                r.origin, r.availability
            );
            if let Some(e) = &r.error {
                let _ = write!(out, " ({e})");
            }
            out.push('\n');
        }
        if !self.blocked_by.is_empty() {
            let _ = writeln!(out, "blocked by robots.txt:");
            for b in &self.blocked_by {
                let _ = writeln!(out, "  {:>6}  {}", b.urls, b.rule);
            }
        }
        let d = &self.strict_differences;
        let obeyed = match &self.reading {
            Some(r) if r.profile != "rfc9309" => r.profile.as_str(),
            _ => "RFC 9309",
        };
        let _ = writeln!(
            out,
            "strict (1994/1997, first match) reading differs on {} URL(s)",
            d.count
        );
        for e in &d.examples {
            let _ = writeln!(
                out,
                "  {}: {obeyed} {}; strict {}",
                e.url, e.relaxed, e.strict
            );
        }
        let _ = writeln!(
            out,
            "pages: {} noindex, {} nofollow; links: {} ({} not followed); {} redirects; {} without an answer",
            self.noindex_pages,
            self.nofollow_pages,
            self.links,
            self.links_not_followed,
            self.redirects,
            self.errors
        );
        for line in self.sitemaps.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            if let [url, kind, urls, over, error] = f.as_slice() {
                let _ = write!(out, "sitemap {url}: {kind}, {urls} URL(s)");
                if *over != "0" {
                    let _ = write!(out, ", {over} over the limit");
                }
                if !error.is_empty() {
                    let _ = write!(out, " ({error})");
                }
                out.push('\n');
            }
        }
        if self.sitemap_only > 0 {
            let _ = writeln!(
                out,
                "{} URL(s) only in sitemaps (no link leads to them)",
                self.sitemap_only
            );
        }
        if self.throttle_changes == 0 {
            let _ = writeln!(out, "throttle: no change");
        } else {
            let _ = writeln!(out, "throttle: {} change(s)", self.throttle_changes);
            for t in &self.throttle {
                let _ = writeln!(
                    out,
                    "  {} {} request {}: {}/{} indicators, {} — delay {} → {} ms, parallel {} → {}",
                    t.at,
                    t.host,
                    t.request,
                    t.indicators,
                    t.window,
                    t.direction,
                    t.delay_ms.0,
                    t.delay_ms.1,
                    t.parallel.0,
                    t.parallel.1
                );
            }
        }
        f.write_str(&out)
    }
}
