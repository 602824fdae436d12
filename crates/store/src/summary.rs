//! The summary of a crawl, read from its store (so a resumed crawl's
//! summary covers every run), as text or JSON.

use std::collections::BTreeMap;
use std::fmt;

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
        let r = Reader { store };
        let (queued, fetched, skipped) = store.counts()?;
        let mut s = Summary {
            seed: r.meta("seed")?,
            state: r.meta("state")?,
            user_agent: r.meta("user_agent")?,
            tokens: r.meta("tokens")?,
            urls: UrlCounts {
                known: queued + fetched + skipped,
                fetched,
                queued,
                skipped,
            },
            ..Summary::default()
        };
        s.statuses = r
            .pairs("SELECT coalesce(CAST(status AS TEXT), 'none'), count(*) FROM pages GROUP BY 1")?
            .into_iter()
            .collect();
        s.skipped = r
            .pairs("SELECT skip_reason, count(*) FROM urls WHERE state = 'skipped' GROUP BY 1")?
            .into_iter()
            .collect();
        s.blocked_by = r.blocking_rules()?;
        s.strict_differences = r.differences()?;
        s.reading = r.reading()?;
        s.verifications = r.verifications()?;
        r.page_counts(&mut s)?;
        s.sitemaps = r.meta("sitemaps")?;
        s.robots_files = r.robots_files()?;
        s.throttle_changes = r.count("SELECT count(*) FROM throttle_events")?;
        s.throttle = r.throttle()?;
        Ok(s)
    }
}

/// Reads the parts of a [`Summary`] from a store, each a method.
struct Reader<'a> {
    store: &'a Store,
}

impl Reader<'_> {
    /// A failure of SQLite, naming the store.
    fn fail(&self, e: &rusqlite::Error) -> Error {
        Error {
            path: self.store.path().to_owned(),
            message: format!("cannot read the summary: {e}"),
        }
    }

    /// A meta value, empty when the store has none.
    fn meta(&self, key: &str) -> Result<String, Error> {
        self.store.meta(key).map(Option::unwrap_or_default)
    }

    /// The count a query returns.
    fn count(&self, sql: &str) -> Result<u64, Error> {
        let n = self
            .store
            .connection()
            .query_row(sql, [], |r| r.get::<_, i64>(0))
            .map_err(|e| self.fail(&e))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Every row of a query, each read by `row`.
    fn rows<T>(
        &self,
        sql: &str,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, Error> {
        let rows = || -> rusqlite::Result<Vec<T>> {
            self.store
                .connection()
                .prepare(sql)?
                .query_map([], row)?
                .collect()
        };
        rows().map_err(|e| self.fail(&e))
    }

    /// `(text, count)` rows, in the query's order (no text: empty).
    fn pairs(&self, sql: &str) -> Result<Vec<(String, u64)>, Error> {
        self.rows(sql, |r| {
            Ok((
                r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                u64::try_from(r.get::<_, i64>(1)?).unwrap_or(0),
            ))
        })
    }

    /// The rules that blocked most URLs.
    fn blocking_rules(&self) -> Result<Vec<BlockingRule>, Error> {
        Ok(self
            .pairs(&format!(
                "SELECT skip_detail, count(*) AS n FROM urls WHERE skip_reason = 'robots'
                 GROUP BY 1 ORDER BY n DESC, 1 LIMIT {SHOWN}"
            ))?
            .into_iter()
            .map(|(rule, urls)| BlockingRule { rule, urls })
            .collect())
    }

    /// The URLs the relaxed and strict readings decide differently: how
    /// many, and the first.
    fn differences(&self) -> Result<Differences, Error> {
        let reading = |allowed: bool, rule: Option<String>, line: Option<u32>| {
            let verdict = if allowed { "allowed" } else { "disallowed" };
            match (rule, line) {
                (Some(rule), Some(line)) => format!("{verdict} by {rule} (line {line})"),
                _ => format!("{verdict} (no rule)"),
            }
        };
        Ok(Differences {
            count: self.count(
                "SELECT count(*) FROM robots_decisions WHERE relaxed_allowed != strict_allowed",
            )?,
            examples: self.rows(
                &format!(
                    "SELECT u.url, d.relaxed_allowed, d.relaxed_rule, d.relaxed_line,
                            d.strict_allowed, d.strict_rule, d.strict_line
                     FROM robots_decisions d JOIN urls u ON u.id = d.url_id
                     WHERE d.relaxed_allowed != d.strict_allowed ORDER BY u.id LIMIT {SHOWN}"
                ),
                |r| {
                    Ok(Difference {
                        url: r.get(0)?,
                        relaxed: reading(r.get(1)?, r.get(2)?, r.get(3)?),
                        strict: reading(r.get(4)?, r.get(5)?, r.get(6)?),
                    })
                },
            )?,
        })
    }

    /// How the verified site's robots.txt was read, if not as botwarden's.
    fn reading(&self) -> Result<Option<Reading>, Error> {
        let Some(origin) = self.store.meta("robots_origin")? else {
            return Ok(None);
        };
        Ok(Some(Reading {
            origin,
            tokens: self.meta("robots_tokens")?,
            profile: self.meta("robots_profile")?,
            source: self.meta("robots_source")?,
        }))
    }

    /// The site verifications, in order.
    fn verifications(&self) -> Result<Vec<SiteVerification>, Error> {
        self.rows(
            "SELECT origin, method, url, verified_at, token_fingerprint
             FROM site_verifications ORDER BY id",
            |r| {
                Ok(SiteVerification {
                    origin: r.get(0)?,
                    method: r.get(1)?,
                    url: r.get(2)?,
                    verified_at: r.get(3)?,
                    token_fingerprint: r.get(4)?,
                })
            },
        )
    }

    /// The counts of pages and links: directives, links, redirects,
    /// errors, URLs only in sitemaps.
    fn page_counts(&self, s: &mut Summary) -> Result<(), Error> {
        s.noindex_pages = self.count("SELECT count(*) FROM pages WHERE noindex IS NOT NULL")?;
        s.nofollow_pages = self.count("SELECT count(*) FROM pages WHERE nofollow IS NOT NULL")?;
        // Links to the page they stand on (`#top`) are not the site's.
        s.links = self.count("SELECT count(*) FROM links WHERE same_page = 0")?;
        s.links_not_followed =
            self.count("SELECT count(*) FROM links WHERE followed = 0 AND same_page = 0")?;
        s.redirects = self.count(
            "SELECT count(*) FROM pages
             WHERE status BETWEEN 300 AND 399 OR (status = 200 AND refresh_delay <= 1)",
        )?;
        s.errors = self.count("SELECT count(*) FROM pages WHERE status IS NULL")?;
        s.sitemap_only = self.count(
            "SELECT count(*) FROM urls WHERE found_by = 'sitemap' AND id NOT IN
             (SELECT target_id FROM links WHERE target_id IS NOT NULL AND same_page = 0)",
        )?;
        Ok(())
    }

    /// Each origin's robots.txt.
    fn robots_files(&self) -> Result<Vec<RobotsFile>, Error> {
        self.rows(
            "SELECT origin, status, availability, error, source FROM robots_files ORDER BY origin",
            |r| {
                Ok(RobotsFile {
                    origin: r.get(0)?,
                    status: r.get(1)?,
                    availability: r.get(2)?,
                    error: r.get(3)?,
                    source: r.get(4)?,
                })
            },
        )
    }

    /// The first changes of delay or parallelism.
    fn throttle(&self) -> Result<Vec<ThrottleChange>, Error> {
        self.rows(
            &format!(
                "SELECT at, host, request, indicators, window, direction, delay_ms_before,
                        delay_ms_after, parallel_before, parallel_after
                 FROM throttle_events ORDER BY id LIMIT {}",
                SHOWN * 5
            ),
            |r| {
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
            },
        )
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_crawler(f)?;
        self.fmt_urls(f)?;
        self.fmt_robots(f)?;
        self.fmt_pages(f)?;
        self.fmt_throttle(f)
    }
}

impl Summary {
    /// Who crawled what, as which robot: the first lines.
    fn fmt_crawler(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "crawl of {} ({})", self.seed, self.state)?;
        writeln!(f, "  as: {}", self.user_agent)?;
        writeln!(
            f,
            "  robots.txt tokens: {} → *",
            self.tokens.replace(' ', " → ")
        )?;
        if let Some(r) = &self.reading {
            writeln!(
                f,
                "  robots.txt of {} read as {} → * under {}, rules from {} (User-Agent unchanged)",
                r.origin,
                r.tokens.replace(' ', " → "),
                r.profile,
                if r.source == "site" {
                    "the site"
                } else {
                    &r.source
                }
            )?;
        }
        for v in &self.verifications {
            writeln!(
                f,
                "  ownership of {} verified by {} ({}) at {}, token {}",
                v.origin, v.method, v.url, v.verified_at, v.token_fingerprint
            )?;
        }
        Ok(())
    }

    /// The URLs by state, status and reason not fetched.
    fn fmt_urls(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let u = &self.urls;
        writeln!(
            f,
            "URLs: {} met, {} fetched, {} not fetched, {} still queued",
            u.known, u.fetched, u.skipped, u.queued
        )?;
        let list = |counts: &BTreeMap<String, u64>| {
            let list: Vec<String> = counts.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            list.join(", ")
        };
        if !self.statuses.is_empty() {
            writeln!(f, "  by status: {}", list(&self.statuses))?;
        }
        if !self.skipped.is_empty() {
            writeln!(f, "  not fetched: {}", list(&self.skipped))?;
        }
        Ok(())
    }

    /// Each robots.txt, the rules that blocked URLs and where the strict
    /// reading differs.
    fn fmt_robots(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.robots_files {
            writeln!(f, "{r}")?;
        }
        if !self.blocked_by.is_empty() {
            writeln!(f, "blocked by robots.txt:")?;
            for b in &self.blocked_by {
                writeln!(f, "  {:>6}  {}", b.urls, b.rule)?;
            }
        }
        let d = &self.strict_differences;
        let obeyed = match &self.reading {
            Some(r) if r.profile != "rfc9309" => r.profile.as_str(),
            _ => "RFC 9309",
        };
        writeln!(
            f,
            "strict (1994/1997, first match) reading differs on {} URL(s)",
            d.count
        )?;
        for e in &d.examples {
            writeln!(
                f,
                "  {}: {obeyed} {}; strict {}",
                e.url, e.relaxed, e.strict
            )?;
        }
        Ok(())
    }

    /// The pages' and links' counts, and the sitemaps.
    fn fmt_pages(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "pages: {} noindex, {} nofollow; links: {} ({} not followed); {} redirects; {} without an answer",
            self.noindex_pages,
            self.nofollow_pages,
            self.links,
            self.links_not_followed,
            self.redirects,
            self.errors
        )?;
        for line in self.sitemaps.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            if let [url, kind, urls, over, error] = fields.as_slice() {
                write!(f, "sitemap {url}: {kind}, {urls} URL(s)")?;
                if *over != "0" {
                    write!(f, ", {over} over the limit")?;
                }
                if !error.is_empty() {
                    write!(f, " ({error})")?;
                }
                writeln!(f)?;
            }
        }
        if self.sitemap_only > 0 {
            writeln!(
                f,
                "{} URL(s) only in sitemaps (no link leads to them)",
                self.sitemap_only
            )?;
        }
        Ok(())
    }

    /// The throttle's changes.
    fn fmt_throttle(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.throttle_changes == 0 {
            return writeln!(f, "throttle: no change");
        }
        writeln!(f, "throttle: {} change(s)", self.throttle_changes)?;
        for t in &self.throttle {
            writeln!(f, "  {t}")?;
        }
        Ok(())
    }
}

impl fmt::Display for RobotsFile {
    /// `robots.txt of ORIGIN: STATUS, AVAILABILITY (ERROR)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "robots.txt of {}: ", self.origin)?;
        match (self.source.as_str(), self.status) {
            ("file", _) => f.write_str("the operator's file")?,
            (_, Some(status)) => write!(f, "{status}")?,
            (_, None) => f.write_str("no answer")?,
        }
        write!(f, ", {}", self.availability)?;
        if let Some(e) = &self.error {
            write!(f, " ({e})")?;
        }
        Ok(())
    }
}

impl fmt::Display for ThrottleChange {
    /// `AT HOST request N: I/W indicators, DIRECTION — delay A → B ms,
    /// parallel C → D`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} request {}: {}/{} indicators, {} — delay {} → {} ms, parallel {} → {}",
            self.at,
            self.host,
            self.request,
            self.indicators,
            self.window,
            self.direction,
            self.delay_ms.0,
            self.delay_ms.1,
            self.parallel.0,
            self.parallel.1
        )
    }
}
