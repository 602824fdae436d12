//! Turns what the workers counted into the report.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use foldhash::HashMap;
use jiff::Timestamp;

use super::hist::report_level;
use super::worker::{Agg, InputResult, KINDS, NamedPair, Pair, Row, settle, unregistered_verdict};
use super::{Analysis, AnalyzeOptions, ClaimInfo, PENDING, Shared};
use crate::input::Input;
use crate::report::{
    BadLine, BotRow, InputSummary, LineCounts, NamedClient, NewerFeed, PathCount, Period,
    REPORT_SCHEMA, Report, RobotsFetches, Series, SpoofedIp, StatusClasses, Timeline, Totals,
    UnknownCrawler, UsageCounts, VerdictCount, VerificationStats,
};

/// The indexes of `spoofed` and `unknown` in [`KINDS`].
const SPOOFED: u8 = 1;
const UNKNOWN: u8 = 2;

/// The time of Unix seconds; `None` past what a timestamp holds.
pub(crate) fn timestamp(unix: i64) -> Option<Timestamp> {
    Timestamp::from_second(unix).ok()
}

fn seen(t: i64) -> Option<Timestamp> {
    if t == i64::MAX || t == i64::MIN {
        None
    } else {
        timestamp(t)
    }
}

fn add_counts(into: &mut LineCounts, from: &LineCounts) {
    into.read += from.read;
    into.parsed += from.parsed;
    into.skipped += from.skipped;
    into.failed += from.failed;
    into.truncated += from.truncated;
    for (k, v) in &from.skip_reasons {
        *into.skip_reasons.entry(k.clone()).or_default() += v;
    }
    for (k, v) in &from.fail_reasons {
        *into.fail_reasons.entry(k.clone()).or_default() += v;
    }
}

pub(super) fn report(
    shared: &Shared,
    inputs: &[Input],
    (results, mut agg): (Vec<InputResult>, Agg),
    options: &AnalyzeOptions,
    dns: bool,
    wait: Duration,
    lookups: u64,
) -> Analysis {
    settle_pending(shared, &mut agg);
    let claims = shared.claims();
    let Clients {
        row_ips,
        kind_clients,
        distinct_ips,
        distinct_names,
        spoofed_pairs,
        named_pairs,
        unknown,
    } = clients(&agg, &claims);
    let (spoofed, spoofed_omitted) = spoofed_list(shared, &claims, spoofed_pairs, options);
    let (host_names, host_names_omitted) = host_name_list(shared, &claims, named_pairs, options);
    let unknown_crawlers = unknown_crawlers(unknown, &claims, &agg);
    let (bots, kind_requests) = bot_rows(&agg, &claims, &row_ips, options);
    let bot_requests: u64 = kind_requests.iter().sum();
    let period = (agg.first <= agg.last).then(|| Period {
        first: timestamp(agg.first).unwrap_or_default(),
        last: timestamp(agg.last).unwrap_or_default(),
    });
    let timeline = timeline(&agg, &bots);
    let verdict_counts = verdict_counts(&agg, &kind_requests, &kind_clients);
    let (lines, samples, summaries) = input_lines(inputs, results, options);
    let ignoring = ignoring_robots(&agg, &claims);

    let report = Report {
        schema: REPORT_SCHEMA,
        generated: {
            let now = Timestamp::now();
            now.round(jiff::Unit::Second).unwrap_or(now)
        },
        dns,
        inputs: summaries,
        lines,
        samples,
        newer_feeds: newer_feeds(shared, &claims, &agg, period.is_some().then_some(agg.first)),
        period,
        totals: Totals {
            requests: agg.requests,
            bytes: agg.bytes,
            ips: distinct_ips + distinct_names,
            bot_requests,
            user_agents: agg.ua_hashes.len() as u64,
            host_names: distinct_names,
            host_name_requests: agg.named_requests,
            requests_without_client: agg.unknown_client_requests,
        },
        verdicts: verdict_counts,
        bots: bots.into_iter().map(|(row, _)| row).collect(),
        spoofed,
        spoofed_omitted,
        host_names,
        host_names_omitted,
        unknown_crawlers,
        timeline,
        status_codes: agg.status_codes,
        verification: VerificationStats {
            pairs: shared.progress.pairs.load(Ordering::Relaxed),
            dns_lookups: lookups,
            wait_seconds: (wait.as_secs_f64() * 1000.0).round() / 1000.0,
            web_bot_auth: agg.signed.clone(),
        },
        usage_policy: options.usage.as_ref().map(|u| u.name.clone()),
        crawl: options.crawl.as_ref().map(|site| {
            super::join::report(
                site,
                agg.join.as_mut(),
                &claims,
                shared.verifier.registry(),
                options.max_listed,
            )
        }),
    };
    Analysis {
        report,
        listed: shared.listed(),
        ignoring_robots: ignoring,
    }
}

/// The verified addresses of bots that requested what robots.txt
/// disallowed to them, sorted.
fn ignoring_robots(agg: &Agg, claims: &[ClaimInfo]) -> Vec<crate::export::Listed> {
    let Some(join) = &agg.join else {
        return Vec::new();
    };
    let mut out: Vec<crate::export::Listed> = join
        .offenders
        .iter()
        .map(|&(ip, claim)| crate::export::Listed {
            ip,
            bot: claims[claim as usize].name.to_string(),
            standing: crate::export::Standing::Verified,
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every verdict is in: folds the pending requests into their rows.
fn settle_pending(shared: &Shared, agg: &mut Agg) {
    for (&(ip, claim), pair) in agg.pairs.iter_mut() {
        let kind = match pair.kind {
            PENDING => match shared.verdict(ip, claim) {
                Some(k) => k,
                // Not reached: every pair handed out is answered before
                // the report is made. Count it as inconclusive rather than
                // lose it.
                None => UNKNOWN,
            },
            k => k,
        };
        settle(pair, kind, &mut agg.rows, agg.join.as_mut(), (ip, claim));
    }
}

/// Distinct clients per row, per verdict kind and in all, and the clients
/// the report lists.
struct Clients<'a> {
    row_ips: HashMap<(u32, u8), u64>,
    kind_clients: [u64; 5],
    distinct_ips: u64,
    distinct_names: u64,
    spoofed_pairs: Vec<(IpAddr, u32, &'a Pair)>,
    named_pairs: Vec<(&'a str, &'a NamedPair)>,
    /// Per unregistered claim: addresses, and the User-Agent of its
    /// busiest client (ties: the smallest), so that the report does not
    /// depend on the order pairs are visited in.
    unknown: HashMap<u32, (u64, (u64, &'a str))>,
}

/// Counts the clients of every row and verdict kind; addresses and host
/// names are counted apart (sorted lists rather than hash sets, which
/// would take three times the room).
fn clients<'a>(agg: &'a Agg, claims: &[ClaimInfo]) -> Clients<'a> {
    let mut row_ips: HashMap<(u32, u8), u64> = HashMap::default();
    let mut kind_ips: Vec<(u8, IpAddr)> = Vec::with_capacity(agg.pairs.len());
    let mut spoofed_pairs: Vec<(IpAddr, u32, &Pair)> = Vec::new();
    let mut unknown: HashMap<u32, (u64, (u64, &str))> = HashMap::default();
    for (&(ip, claim), pair) in &agg.pairs {
        *row_ips.entry((claim, pair.kind)).or_default() += 1;
        kind_ips.push((pair.kind, ip));
        if pair.kind == SPOOFED {
            spoofed_pairs.push((ip, claim, pair));
        }
        if !claims[claim as usize].registered {
            busiest(&mut unknown, claim, pair.requests, &pair.ua);
        }
    }
    let mut kind_names: Vec<(u8, &str)> = Vec::new();
    let mut named_pairs: Vec<(&str, &NamedPair)> = Vec::new();
    for (name, pairs) in &agg.named {
        for pair in pairs {
            *row_ips.entry((pair.claim, pair.kind)).or_default() += 1;
            kind_names.push((pair.kind, name));
            named_pairs.push((name, pair));
            if !claims[pair.claim as usize].registered {
                busiest(&mut unknown, pair.claim, pair.requests, &pair.ua);
            }
        }
    }
    let mut all_ips: Vec<IpAddr> = kind_ips.iter().map(|&(_, ip)| ip).collect();
    all_ips.extend(agg.humans.ips.iter().copied());
    let distinct_ips = count_distinct(&mut all_ips);
    drop(all_ips);
    let mut all_names: Vec<&str> = kind_names.iter().map(|&(_, n)| n).collect();
    all_names.extend(agg.humans.names.iter().map(|n| &**n));
    let distinct_names = count_distinct(&mut all_names);
    drop(all_names);
    kind_ips.sort_unstable();
    kind_ips.dedup();
    kind_names.sort_unstable();
    kind_names.dedup();
    let mut kind_clients = [0u64; 5];
    for &(kind, _) in &kind_ips {
        kind_clients[usize::from(kind).min(4)] += 1;
    }
    for &(kind, _) in &kind_names {
        kind_clients[usize::from(kind).min(4)] += 1;
    }
    Clients {
        row_ips,
        kind_clients,
        distinct_ips,
        distinct_names,
        spoofed_pairs,
        named_pairs,
        unknown,
    }
}

/// The busiest spoofed addresses, and how many more there are.
fn spoofed_list(
    shared: &Shared,
    claims: &[ClaimInfo],
    mut spoofed_pairs: Vec<(IpAddr, u32, &Pair)>,
    options: &AnalyzeOptions,
) -> (Vec<SpoofedIp>, u64) {
    spoofed_pairs.sort_unstable_by(|a, b| {
        b.2.requests
            .cmp(&a.2.requests)
            .then_with(|| claims[a.1 as usize].name.cmp(&claims[b.1 as usize].name))
            .then_with(|| a.0.cmp(&b.0))
    });
    let spoofed_omitted = spoofed_pairs.len().saturating_sub(options.max_listed) as u64;
    spoofed_pairs.truncate(options.max_listed);
    let spoofed = spoofed_pairs
        .iter()
        .map(|&(ip, claim, pair)| SpoofedIp {
            ip: ip.to_string(),
            claimed: claims[claim as usize].name.to_string(),
            reason: shared.reason(ip, claim).unwrap_or_default(),
            requests: pair.requests,
            first_seen: seen(pair.first),
            last_seen: seen(pair.last),
            user_agent: pair.ua.to_string(),
        })
        .collect();
    (spoofed, spoofed_omitted)
}

/// The busiest clients given by host name, and how many more there are.
fn host_name_list(
    shared: &Shared,
    claims: &[ClaimInfo],
    mut named_pairs: Vec<(&str, &NamedPair)>,
    options: &AnalyzeOptions,
) -> (Vec<NamedClient>, u64) {
    named_pairs.sort_unstable_by(|a, b| {
        b.1.requests
            .cmp(&a.1.requests)
            .then_with(|| {
                claims[a.1.claim as usize]
                    .name
                    .cmp(&claims[b.1.claim as usize].name)
            })
            .then_with(|| a.0.cmp(b.0))
    });
    let host_names_omitted = named_pairs.len().saturating_sub(options.max_listed) as u64;
    named_pairs.truncate(options.max_listed);
    let host_names = named_pairs
        .iter()
        .map(|&(name, pair)| {
            let info = &claims[pair.claim as usize];
            let verdict = if info.registered {
                shared.verifier.verify_name(name, &info.name)
            } else {
                unregistered_verdict(info)
            };
            NamedClient {
                name: name.to_owned(),
                claimed: info.name.to_string(),
                reason: verdict.reason().unwrap_or_default().to_owned(),
                requests: pair.requests,
                first_seen: seen(pair.first),
                last_seen: seen(pair.last),
                user_agent: pair.ua.to_string(),
            }
        })
        .collect();
    (host_names, host_names_omitted)
}

/// The unregistered crawlers, busiest first.
fn unknown_crawlers(
    unknown: HashMap<u32, (u64, (u64, &str))>,
    claims: &[ClaimInfo],
    agg: &Agg,
) -> Vec<UnknownCrawler> {
    let mut unknown_crawlers: Vec<UnknownCrawler> = unknown
        .into_iter()
        .map(|(claim, (ips, (_, user_agent)))| UnknownCrawler {
            name: claims[claim as usize].name.to_string(),
            requests: agg
                .rows
                .iter()
                .filter(|((c, _), _)| *c == claim)
                .map(|(_, r)| r.counts.requests)
                .sum(),
            ips,
            user_agent: user_agent.to_owned(),
        })
        .collect();
    unknown_crawlers.sort_by(|a, b| {
        b.requests
            .cmp(&a.requests)
            .then_with(|| a.name.cmp(&b.name))
    });
    unknown_crawlers
}

/// A bot's row of the report and the key of the row it was made from
/// (claim, verdict kind).
type KeyedRow = (BotRow, (u32, u8));

/// A row per bot and verdict that saw requests, busiest first, each with
/// its key; and the requests per verdict kind.
fn bot_rows(
    agg: &Agg,
    claims: &[ClaimInfo],
    row_ips: &HashMap<(u32, u8), u64>,
    options: &AnalyzeOptions,
) -> (Vec<KeyedRow>, [u64; 5]) {
    let mut kind_requests = [0u64; 5];
    let mut keyed: Vec<((u32, u8), &Row)> = agg
        .rows
        .iter()
        .filter(|(_, row)| row.counts.requests > 0)
        .map(|(k, r)| (*k, r))
        .collect();
    let mut bots: Vec<KeyedRow> = keyed
        .drain(..)
        .map(|(key, row)| {
            kind_requests[usize::from(key.1).min(4)] += row.counts.requests;
            (
                bot_row(&claims[key.0 as usize], key, row, row_ips, options),
                key,
            )
        })
        .collect();
    bots.sort_by(|a, b| {
        b.0.requests
            .cmp(&a.0.requests)
            .then_with(|| a.0.bot.cmp(&b.0.bot))
            .then_with(|| a.1.1.cmp(&b.1.1))
    });
    (bots, kind_requests)
}

/// The report's row of one bot and verdict.
fn bot_row(
    info: &ClaimInfo,
    key: (u32, u8),
    row: &Row,
    row_ips: &HashMap<(u32, u8), u64>,
    options: &AnalyzeOptions,
) -> BotRow {
    let top_paths = row
        .paths
        .top(options.top_paths)
        .into_iter()
        .map(|(path, requests, approx)| PathCount {
            path,
            requests,
            approximate: approx || row.approximate,
        })
        .collect();
    let c = &row.counts;
    let s = c.status;
    BotRow {
        bot: info.name.to_string(),
        category: info.category.clone(),
        verdict: KINDS[usize::from(key.1).min(4)].to_owned(),
        requests: c.requests,
        ips: row_ips.get(&key).copied().unwrap_or(0),
        bytes: c.bytes,
        status: StatusClasses {
            ok: s[0],
            redirect: s[1],
            client_error: s[2],
            server_error: s[3],
            other: s[4],
        },
        first_seen: seen(c.first),
        last_seen: seen(c.last),
        robots_txt: RobotsFetches {
            requests: c.robots,
            status: c.robots_status.iter().copied().collect(),
        },
        top_paths,
        usage: usage_counts(info, c),
    }
}

/// A row's requests against the usage preferences, for a crawler whose
/// category has a purpose, when the run measured them.
fn usage_counts(info: &ClaimInfo, c: &super::worker::Counts) -> Option<UsageCounts> {
    let purpose = super::usage::purpose_of(info.category.as_deref()?)?;
    (c.usage[0] > 0).then(|| UsageCounts {
        purpose: purpose.as_str().to_owned(),
        requests: c.usage[0],
        refused: c.usage[1],
        refused_file_wide: c.usage[2],
    })
}

/// Requests over time, a series per bot row (in the rows' order) and one
/// for humans.
fn timeline(agg: &Agg, bots: &[KeyedRow]) -> Timeline {
    if agg.first > agg.last {
        return Timeline::default();
    }
    let (level, start, n) = report_level(agg.first, agg.last);
    let width = super::hist::WIDTHS[level];
    let mut series: Vec<Series> = bots
        .iter()
        .filter_map(|(row, key)| {
            let r = agg.rows.get(key)?;
            if r.counts.hist.is_empty() {
                return None;
            }
            Some(Series {
                bot: row.bot.clone(),
                verdict: row.verdict.clone(),
                counts: r.counts.hist.series(level, start, n),
            })
        })
        .collect();
    if !agg.humans.hist.is_empty() {
        series.push(Series {
            bot: "humans".to_owned(),
            verdict: "not-a-bot".to_owned(),
            counts: agg.humans.hist.series(level, start, n),
        });
    }
    Timeline {
        start: timestamp(start * width),
        bucket_seconds: width as u64,
        series,
    }
}

/// Requests and clients per verdict kind that saw requests.
fn verdict_counts(
    agg: &Agg,
    kind_requests: &[u64; 5],
    kind_clients: &[u64; 5],
) -> BTreeMap<String, VerdictCount> {
    let mut verdict_counts = BTreeMap::new();
    for (i, kind) in KINDS.iter().enumerate() {
        let (requests, ips) = if i == 4 {
            (
                agg.humans.requests,
                (agg.humans.ips.len() + agg.humans.names.len()) as u64,
            )
        } else {
            (kind_requests[i], kind_clients[i])
        };
        if requests > 0 {
            verdict_counts.insert((*kind).to_owned(), VerdictCount { requests, ips });
        }
    }
    verdict_counts
}

/// The lines of every input added up, the samples of bad lines (at most
/// `samples_per_reason` per reason), and each input's summary.
fn input_lines(
    inputs: &[Input],
    results: Vec<InputResult>,
    options: &AnalyzeOptions,
) -> (LineCounts, Vec<BadLine>, Vec<InputSummary>) {
    let mut lines = LineCounts::default();
    let mut samples = Vec::new();
    let mut per_reason: BTreeMap<String, usize> = BTreeMap::new();
    let mut summaries = Vec::new();
    for (input, r) in inputs.iter().zip(results) {
        add_counts(&mut lines, &r.counts);
        for s in r.samples {
            let n = per_reason.entry(s.reason.clone()).or_default();
            if *n < options.samples_per_reason {
                *n += 1;
                samples.push(s);
            }
        }
        summaries.push(InputSummary {
            name: input.name(),
            format: r.format,
            gzip: r.gzip,
            lines: r.counts,
            error: r.error,
        });
    }
    (lines, samples, summaries)
}

/// Counts the distinct items of a list (sorting it).
fn count_distinct<T: Ord>(items: &mut Vec<T>) -> u64 {
    items.sort_unstable();
    items.dedup();
    items.len() as u64
}

/// Notes a client of an unregistered crawler: one more client, and its
/// User-Agent if it is the busiest so far.
fn busiest<'a>(
    unknown: &mut HashMap<u32, (u64, (u64, &'a str))>,
    claim: u32,
    requests: u64,
    ua: &'a str,
) {
    let e = unknown.entry(claim).or_insert((0, (requests, ua)));
    e.0 += 1;
    let (top, top_ua) = e.1;
    if requests > top || (requests == top && ua < top_ua) {
        e.1 = (requests, ua);
    }
}

/// The published range lists of the registered bots claimed in the log
/// that are newer than its first request.
fn newer_feeds(
    shared: &Shared,
    claims: &[ClaimInfo],
    agg: &Agg,
    first: Option<i64>,
) -> Vec<NewerFeed> {
    let Some(as_of) = first.and_then(super::unix_time) else {
        return Vec::new();
    };
    let mut by_url: BTreeMap<String, NewerFeed> = BTreeMap::new();
    let mut claimed: Vec<u32> = agg.rows.keys().map(|&(claim, _)| claim).collect();
    claimed.sort_unstable();
    claimed.dedup();
    for claim in claimed {
        let info = &claims[claim as usize];
        if !info.registered {
            continue;
        }
        let Some(feed) = shared.verifier.feed_newer_than(&info.name, as_of) else {
            continue;
        };
        let entry = by_url.entry(feed.url.clone()).or_insert_with(|| NewerFeed {
            url: feed.url.clone(),
            version: feed.version().to_owned(),
            bots: Vec::new(),
        });
        entry.bots.push(info.name.to_string());
    }
    let mut out: Vec<NewerFeed> = by_url.into_values().collect();
    for f in &mut out {
        f.bots.sort();
    }
    out
}
