//! An origin's robots.txt as the crawl reads it: fetched (or taken from
//! the simulation's file), decided through the availability machine of
//! RFC 9309, and the two readings a URL is judged by.

use std::time::Duration;

use botwarden_fetch::{Error as FetchError, Fetcher, RobotsFetch};
use botwarden_robots::prefs::{self, Reading};
use botwarden_robots::{
    Availability, AvailabilityDecision, AvailabilityPolicy, Cause, Profile, Reason, RobotMatcher,
    RobotsTxt, TokenChain,
};
use botwarden_store::{Batch, RobotsFileRecord, RobotsRecord, UsageRecord};
use tokio::time::Instant;
use url::Url;

use super::{now_text, origin_key, skip};
use crate::crawler::CrawlConfig;

/// An origin's robots.txt, as the crawl reads it.
pub(crate) enum RobotsState {
    /// Read: the two readings.
    Ready {
        relaxed: Box<RobotMatcher>,
        strict: Box<RobotMatcher>,
        txt: Box<RobotsTxt>,
        /// `None`: no rules (full allow); `Some(false)`: full disallow.
        blanket: Option<bool>,
        why: String,
        fetched: Instant,
    },
    /// Not readable now: try again at `retry`.
    Waiting { retry: Instant, attempts: u32 },
    /// Not readable after every attempt.
    Failed { why: String },
    /// Not asked because of this crawl's own settings (a refused address,
    /// a certificate authority not trusted): the origin's URLs are held,
    /// still queued, until the crawl is resumed with other settings.
    Held { why: String },
    /// Being fetched, beside the requests: the origin's URLs wait.
    Fetching,
}

/// What a URL's robots.txt makes of it, once judged.
pub(crate) enum Verdict<'a> {
    /// Allowed: it may be fetched.
    Fetch,
    /// Recorded as skipped: disallowed, or its robots.txt could not be
    /// read.
    Skipped,
    /// Its robots.txt is being read.
    Reading,
    /// Its robots.txt is to be asked again at this moment.
    Waiting(Instant),
    /// Held by the crawl's own settings, for this reason.
    Held(&'a str),
}

impl RobotsState {
    /// Judges the URL `id` by this robots.txt ([`RobotsState::judge`]):
    /// a URL of an origin whose robots.txt could not be read is recorded
    /// as skipped, with why.
    pub(crate) fn verdict(&self, id: u64, url: &Url, batch: &mut Batch) -> Verdict<'_> {
        match self {
            RobotsState::Fetching => Verdict::Reading,
            RobotsState::Waiting { retry, .. } => Verdict::Waiting(*retry),
            RobotsState::Failed { why } => {
                skip(batch, id, "robots-unavailable", why.clone());
                Verdict::Skipped
            }
            RobotsState::Held { why } => Verdict::Held(why),
            RobotsState::Ready { .. } => {
                if self.judge(id, url, batch) {
                    Verdict::Fetch
                } else {
                    Verdict::Skipped
                }
            }
        }
    }

    /// Whether this reading stands without asking again: read within
    /// `ttl`, or ended for good (failed, held).
    pub(crate) fn is_fresh(&self, ttl: Duration) -> bool {
        match self {
            RobotsState::Ready { fetched, .. } => fetched.elapsed() < ttl,
            RobotsState::Failed { .. } | RobotsState::Held { .. } => true,
            RobotsState::Waiting { .. } | RobotsState::Fetching => false,
        }
    }

    /// The `Crawl-delay` obeyed (at most [`CrawlConfig::max_crawl_delay`]).
    pub(crate) fn crawl_delay(&self, config: &CrawlConfig) -> Option<Duration> {
        let RobotsState::Ready { relaxed, .. } = self else {
            return None;
        };
        relaxed.crawl_delay().map(|delay| {
            Duration::from_secs_f64(delay.value.clamp(0.0, 86_400.0)).min(config.max_crawl_delay)
        })
    }

    /// Whether a resource a rendered page asks for may be fetched, under
    /// the reading the crawl obeys; when not, the rule that blocks it (as
    /// written, with its line) or why the origin's robots.txt blocks all.
    /// Only for a `Ready` state.
    pub(crate) fn resource_rule(&self, url: &Url) -> Result<(), String> {
        let RobotsState::Ready {
            relaxed,
            txt,
            blanket,
            why,
            ..
        } = self
        else {
            return Err("robots.txt not read".into());
        };
        let r = relaxed.check(&path_and_query(url));
        if r.allowed {
            return Ok(());
        }
        Err(
            match (rule_line(r.reason), rule_text(relaxed, txt, r.reason)) {
                (Some(line), Some(rule)) => format!("{rule} (line {line})"),
                _ if *blanket == Some(false) => why.clone(),
                _ => "disallowed".to_owned(),
            },
        )
    }

    /// Judges a URL under both readings: records the decision when either
    /// blocks it or they differ, and the skip when the obeyed one blocks
    /// it. Whether it may be fetched. Only for a `Ready` state.
    pub(crate) fn judge(&self, id: u64, url: &Url, batch: &mut Batch) -> bool {
        let RobotsState::Ready {
            relaxed,
            strict,
            txt,
            blanket,
            why,
            ..
        } = self
        else {
            return false;
        };
        let target = path_and_query(url);
        let r = relaxed.check(&target);
        let s = strict.check(&target);
        if r.allowed && !relaxed.preference_lines().is_empty() {
            robots_usage(id, relaxed, &target, batch);
        }
        if !r.allowed || !s.allowed || r.allowed != s.allowed {
            batch.robots.push(RobotsRecord {
                url_id: id,
                relaxed_allowed: r.allowed,
                relaxed_line: rule_line(r.reason),
                relaxed_rule: rule_text(relaxed, txt, r.reason),
                strict_allowed: s.allowed,
                strict_line: rule_line(s.reason),
                strict_rule: rule_text(strict, txt, s.reason),
            });
        }
        if !r.allowed {
            let detail = match (rule_line(r.reason), rule_text(relaxed, txt, r.reason)) {
                (Some(line), Some(rule)) => format!("{rule} (line {line})"),
                _ if *blanket == Some(false) => why.clone(),
                _ => "disallowed".to_owned(),
            };
            skip(batch, id, "robots", detail);
        }
        r.allowed
    }
}

/// What robots.txt lets a URL the crawl may fetch be used for, when it
/// states anything for the crawl's robot.
fn robots_usage(id: u64, matcher: &RobotMatcher, target: &str, batch: &mut Batch) {
    let answer = matcher.usage(target);
    if !answer.is_stated() {
        return;
    }
    let group = answer.reading(Reading::Group);
    let wide = answer.reading(Reading::FileWide);
    let mut lines: Vec<u32> = group
        .iter()
        .chain(wide)
        .flat_map(|a| a.lines.clone())
        .collect();
    lines.sort_unstable();
    lines.dedup();
    batch.usage.push(UsageRecord {
        url_id: id,
        robots: Some(prefs::code(prefs::preferences(group))),
        robots_wide: Some(prefs::code(prefs::preferences(wide))),
        robots_lines: Some(
            lines
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(","),
        ),
        ..UsageRecord::default()
    });
}

/// What became of an origin's robots.txt, in a form that can be kept
/// elsewhere (a coordinator shares it between workers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsRead {
    /// Read: the text obeyed (the file, an empty one for full allow, or a
    /// full disallow), whether it is a blanket rule, and why.
    Ready {
        /// The rules obeyed.
        body: Vec<u8>,
        /// `None`: the file's rules; `Some(false)`: full disallow.
        blanket: Option<bool>,
        /// What was fetched and decided.
        why: String,
    },
    /// Not readable now: ask again after `after`; `attempts` made.
    Waiting {
        /// How long to wait.
        after: Duration,
        /// Attempts made so far.
        attempts: u32,
    },
    /// Not readable after every attempt.
    Failed {
        /// Why.
        why: String,
    },
    /// Not asked because of the crawl's own settings ([`crate::Error::is_own_configuration`]):
    /// says nothing about the site, is never shared nor recorded as the
    /// origin's robots.txt, and holds the origin's URLs queued.
    Held {
        /// Why.
        why: String,
    },
}

/// The crawl's reading of an origin's robots.txt from what was read.
pub(crate) fn robots_state(
    url: &Url,
    read: RobotsRead,
    chain: &TokenChain,
    config: &CrawlConfig,
) -> RobotsState {
    let origin = origin_key(url);
    let sim = config
        .simulation
        .as_ref()
        .filter(|s| s.site().origin() == origin);
    let chain = sim.and_then(|s| s.tokens.as_ref()).unwrap_or(chain);
    let profile = sim.map_or(&Profile::RFC9309, |s| s.profile);
    match read {
        RobotsRead::Ready { body, blanket, why } => {
            let txt = RobotsTxt::parse(body);
            RobotsState::Ready {
                relaxed: Box::new(RobotMatcher::new(&txt, profile, chain)),
                strict: Box::new(RobotMatcher::new(&txt, &Profile::STRICT, chain)),
                txt: Box::new(txt),
                blanket,
                why,
                fetched: Instant::now(),
            }
        }
        RobotsRead::Waiting { after, attempts } => RobotsState::Waiting {
            retry: Instant::now() + after,
            attempts,
        },
        RobotsRead::Failed { why } => RobotsState::Failed { why },
        RobotsRead::Held { why } => RobotsState::Held { why },
    }
}

/// Fetches an origin's robots.txt (or takes the simulation's file) and
/// decides what it means; the file's record goes to `batch`.
pub(crate) async fn read_robots(
    url: &Url,
    fetcher: &Fetcher,
    config: &CrawlConfig,
    attempts: u32,
    batch: &mut Batch,
) -> RobotsRead {
    let origin = origin_key(url);
    let sim = config
        .simulation
        .as_ref()
        .filter(|s| s.site().origin() == origin);
    if let Some((label, body)) = sim.and_then(|s| s.robots_file.as_ref()) {
        return from_file(origin, label, body, batch);
    }
    let fetched = match fetcher.fetch_robots(url.as_str()).await {
        Ok(f) => f,
        Err(e) if e.is_own_configuration() => return held(&e),
        Err(e) => return unrequested(origin, &e, batch),
    };
    if let Some(e) = fetched
        .report
        .error
        .as_ref()
        .filter(|e| e.is_own_configuration())
    {
        return held(e);
    }
    let decision = fetched.decide(&AvailabilityPolicy::RFC9309);
    let why = format!(
        "robots.txt {}: {} ({})",
        fetched
            .report
            .status
            .map_or_else(|| "unanswered".to_owned(), |s| format!("answered {s}")),
        decision.availability,
        decision.reason
    );
    batch
        .robots_files
        .push(fetched_record(origin, &fetched, &decision));
    meaning(&fetched, &decision, why, attempts, config)
}

/// A read robots.txt: the rules obeyed, whether they are a blanket rule,
/// and why.
fn ready(body: &[u8], blanket: Option<bool>, why: String) -> RobotsRead {
    RobotsRead::Ready {
        body: body.to_vec(),
        blanket,
        why,
    }
}

/// The operator's file, for a verified site: the site's is not asked for.
fn from_file(origin: String, label: &str, body: &[u8], batch: &mut Batch) -> RobotsRead {
    batch.robots_files.push(RobotsFileRecord {
        origin,
        fetched_at: now_text(),
        status: None,
        availability: Availability::Parse.name().into(),
        error: None,
        body: Some(body.to_vec()),
        source: "file",
        redirects: 0,
        truncated: false,
    });
    ready(
        &botwarden_fetch::utf8_body(body),
        None,
        format!("robots.txt from the file {label}"),
    )
}

/// A robots.txt whose request could not be made: recorded, and failed.
fn unrequested(origin: String, e: &FetchError, batch: &mut Batch) -> RobotsRead {
    batch.robots_files.push(RobotsFileRecord {
        origin,
        fetched_at: now_text(),
        status: None,
        availability: "failed".into(),
        error: Some(e.to_string()),
        body: None,
        source: "site",
        redirects: 0,
        truncated: false,
    });
    RobotsRead::Failed {
        why: format!("robots.txt could not be requested: {e}"),
    }
}

/// The record of a robots.txt fetched from its site.
fn fetched_record(
    origin: String,
    fetched: &RobotsFetch,
    decision: &AvailabilityDecision,
) -> RobotsFileRecord {
    let report = &fetched.report;
    RobotsFileRecord {
        origin,
        fetched_at: now_text(),
        status: report.status,
        availability: decision.availability.name().into(),
        error: report.error.as_ref().map(ToString::to_string),
        body: (!report.body.is_empty()).then(|| report.body.clone()),
        source: "site",
        redirects: u32::try_from(
            report
                .hops
                .iter()
                .filter(|h| h.status.is_some_and(|s| (300..400).contains(&s)))
                .count(),
        )
        .unwrap_or(u32::MAX),
        truncated: report.truncated,
    }
}

/// What a fetched robots.txt means for the crawl, after `attempts`
/// attempts: its rules, or a wait before it is asked again, or a failure.
fn meaning(
    fetched: &RobotsFetch,
    decision: &AvailabilityDecision,
    why: String,
    attempts: u32,
    config: &CrawlConfig,
) -> RobotsRead {
    // A server error or no answer disallows everything only for now: the
    // origin's URLs wait and robots.txt is asked again.
    let unreachable = match decision.reason.cause {
        Cause::Timeout | Cause::NetworkError => true,
        Cause::Status(s) | Cause::MissingAlso5xx { status: s, .. } => s >= 500,
        _ => false,
    };
    match decision.availability {
        Availability::FullDisallow if unreachable && attempts + 1 < config.robots_attempts => {
            RobotsRead::Waiting {
                after: decision.refetch_after.min(config.max_pause),
                attempts: attempts + 1,
            }
        }
        Availability::FullDisallow if unreachable => RobotsRead::Failed {
            why: format!("{why}; gave up after {} attempts", config.robots_attempts),
        },
        Availability::Parse => ready(&fetched.report.utf8_body(), None, why),
        Availability::FullAllow => ready(b"", None, why),
        Availability::FullDisallow => ready(b"User-agent: *\nDisallow: /\n", Some(false), why),
        Availability::RetryLater(_) | Availability::UseCached
            if attempts + 1 < config.robots_attempts =>
        {
            let after = match decision.availability {
                Availability::RetryLater(a) => a,
                _ => decision.refetch_after,
            };
            RobotsRead::Waiting {
                after: after.min(config.max_pause),
                attempts: attempts + 1,
            }
        }
        Availability::RetryLater(_) | Availability::UseCached => RobotsRead::Failed {
            why: format!("{why}; gave up after {} attempts", config.robots_attempts),
        },
    }
}

/// The reading of a robots.txt not asked because of the crawl's own
/// settings: nothing is recorded of the origin (a good record stays).
fn held(e: &FetchError) -> RobotsRead {
    let hint = match e {
        FetchError::Refused { .. } => "; allow it with --allow-private if it is meant",
        FetchError::Network { .. } => "; trust its certificate authority with --ca-cert",
        _ => "",
    };
    RobotsRead::Held {
        why: format!("robots.txt was not asked for: {e}{hint}"),
    }
}

fn rule_line(reason: Reason) -> Option<u32> {
    match reason {
        Reason::Rule { line, .. } => Some(line),
        _ => None,
    }
}

fn rule_text(m: &RobotMatcher, txt: &RobotsTxt, reason: Reason) -> Option<String> {
    match reason {
        Reason::Rule { index, .. } => Some(m.rule_as_written(txt, index)),
        _ => None,
    }
}

/// The path and query, as robots.txt rules see them.
fn path_and_query(url: &Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    }
}
