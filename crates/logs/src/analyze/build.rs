//! Turns what the workers counted into the report.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use foldhash::{HashMap, HashSet};

use super::hist::report_level;
use super::worker::{Agg, InputResult, KINDS, Pair, Row, kind_index};
use super::{Analysis, Options, Shared};
use crate::input::Input;
use crate::report::model::{
    BotRow, InputSummary, LineCounts, PathCount, Period, Report, RobotsFetches, SCHEMA, Series,
    SpoofedIp, StatusClasses, Timeline, Totals, UnknownCrawler, VerdictCount, VerificationStats,
};

/// RFC 3339 in UTC for Unix seconds.
pub(crate) fn rfc3339(unix: i64) -> Option<String> {
    jiff::Timestamp::from_second(unix)
        .ok()
        .map(|t| t.to_string())
}

fn seen(t: i64) -> Option<String> {
    if t == i64::MAX || t == i64::MIN {
        None
    } else {
        rfc3339(t)
    }
}

fn add_counts(into: &mut LineCounts, from: &LineCounts) {
    into.read += from.read;
    into.parsed += from.parsed;
    into.skipped += from.skipped;
    into.failed += from.failed;
    for (k, v) in &from.skip_reasons {
        *into.skip_reasons.entry(k.clone()).or_default() += v;
    }
    for (k, v) in &from.fail_reasons {
        *into.fail_reasons.entry(k.clone()).or_default() += v;
    }
}

/// Sums over the pairs of one bot row.
#[derive(Default)]
struct RowSum {
    requests: u64,
    ips: u64,
    bytes: u64,
    status: [u64; 5],
    first: i64,
    last: i64,
    robots: u64,
    robots_status: BTreeMap<u16, u64>,
}

impl RowSum {
    fn add(&mut self, p: &Pair) {
        if self.requests == 0 {
            self.first = i64::MAX;
            self.last = i64::MIN;
        }
        self.requests += p.requests;
        self.ips += 1;
        self.bytes += p.bytes;
        for i in 0..5 {
            self.status[i] += p.status[i];
        }
        self.first = self.first.min(p.first);
        self.last = self.last.max(p.last);
        self.robots += p.robots;
        for &(code, n) in &p.robots_status {
            *self.robots_status.entry(code).or_default() += n;
        }
    }
}

pub(super) fn report(
    shared: &Shared,
    inputs: &[Input],
    (results, mut agg): (Vec<InputResult>, Agg),
    options: &Options,
    dns: bool,
    wait: Duration,
    lookups: u64,
) -> Analysis {
    // Every verdict is in: fold the pending requests into their rows.
    for (&(ip, claim), pair) in agg.pairs.iter_mut() {
        let kind = match pair.kind {
            Some(k) => k,
            None => match shared.verdict(ip, claim) {
                Some(v) => kind_index(&v),
                // Not reached: every pair handed out is answered before
                // the report is made. Count it as inconclusive rather than
                // lose it.
                None => 2,
            },
        };
        pair.kind = Some(kind);
        if let Some(pending) = pair.pending.take() {
            agg.rows.entry((claim, kind)).or_default().absorb(&pending);
        }
    }
    let claims = shared.claims();

    let mut sums: HashMap<(u32, u8), RowSum> = HashMap::default();
    let mut spoofed = Vec::new();
    // Per unregistered claim: requests, addresses, and the User-Agent of
    // its busiest address (ties: the smallest), so that the report does not
    // depend on the order pairs are visited in.
    let mut unknown: HashMap<u32, (u64, u64, (u64, &str))> = HashMap::default();
    let mut all_ips: HashSet<IpAddr> = agg.humans.ips.iter().copied().collect();
    let mut kind_ips: [HashSet<IpAddr>; 5] = Default::default();
    let mut kind_requests = [0u64; 5];
    let mut bot_requests = 0;
    for (&(ip, claim), pair) in &agg.pairs {
        let kind = pair.kind.unwrap_or(2);
        sums.entry((claim, kind)).or_default().add(pair);
        all_ips.insert(ip);
        kind_ips[kind as usize].insert(ip);
        kind_requests[kind as usize] += pair.requests;
        bot_requests += pair.requests;
        let info = &claims[claim as usize];
        if kind == 1 {
            let reason = shared
                .verdict(ip, claim)
                .and_then(|v| v.reason().map(str::to_owned))
                .unwrap_or_default();
            spoofed.push(SpoofedIp {
                ip: ip.to_string(),
                claimed: info.name.to_string(),
                reason,
                requests: pair.requests,
                first_seen: seen(pair.first),
                last_seen: seen(pair.last),
                user_agent: pair.ua.to_string(),
            });
        }
        if !info.registered {
            let e = unknown
                .entry(claim)
                .or_insert_with(|| (0, 0, (pair.requests, &pair.ua)));
            e.0 += pair.requests;
            e.1 += 1;
            let (top, ua) = e.2;
            if pair.requests > top || (pair.requests == top && *pair.ua < *ua) {
                e.2 = (pair.requests, &pair.ua);
            }
        }
    }
    spoofed.sort_by(|a, b| {
        b.requests
            .cmp(&a.requests)
            .then_with(|| a.claimed.cmp(&b.claimed))
            .then_with(|| a.ip.cmp(&b.ip))
    });
    let mut unknown_crawlers: Vec<UnknownCrawler> = unknown
        .into_iter()
        .map(|(claim, (requests, ips, (_, user_agent)))| UnknownCrawler {
            name: claims[claim as usize].name.to_string(),
            requests,
            ips,
            user_agent: user_agent.to_owned(),
        })
        .collect();
    unknown_crawlers.sort_by(|a, b| {
        b.requests
            .cmp(&a.requests)
            .then_with(|| a.name.cmp(&b.name))
    });

    let empty_row = Row::default();
    let mut keyed: Vec<((u32, u8), RowSum)> = sums.into_iter().collect();
    let mut bots: Vec<(BotRow, (u32, u8))> = keyed
        .drain(..)
        .map(|(key, sum)| {
            let info = &claims[key.0 as usize];
            let row = agg.rows.get(&key).unwrap_or(&empty_row);
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
            let s = sum.status;
            (
                BotRow {
                    bot: info.name.to_string(),
                    category: info.category.clone(),
                    verdict: KINDS[key.1 as usize].to_owned(),
                    requests: sum.requests,
                    ips: sum.ips,
                    bytes: sum.bytes,
                    status: StatusClasses {
                        ok: s[0],
                        redirect: s[1],
                        client_error: s[2],
                        server_error: s[3],
                        other: s[4],
                    },
                    first_seen: seen(sum.first),
                    last_seen: seen(sum.last),
                    robots_txt: RobotsFetches {
                        requests: sum.robots,
                        status: sum.robots_status,
                    },
                    top_paths,
                },
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

    let period = (agg.first <= agg.last).then(|| Period {
        first: rfc3339(agg.first).unwrap_or_default(),
        last: rfc3339(agg.last).unwrap_or_default(),
    });
    let timeline = if agg.first <= agg.last {
        let (level, start, n) = report_level(agg.first, agg.last);
        let width = super::hist::WIDTHS[level];
        let mut series: Vec<Series> = bots
            .iter()
            .filter_map(|(row, key)| {
                let r = agg.rows.get(key)?;
                if r.hist.is_empty() {
                    return None;
                }
                Some(Series {
                    bot: row.bot.clone(),
                    verdict: row.verdict.clone(),
                    counts: r.hist.series(level, start, n),
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
            start: rfc3339(start * width),
            bucket_seconds: width as u64,
            series,
        }
    } else {
        Timeline::default()
    };

    let mut verdict_counts = BTreeMap::new();
    for (i, kind) in KINDS.iter().enumerate() {
        let (requests, ips) = if i == 4 {
            (agg.humans.requests, agg.humans.ips.len() as u64)
        } else {
            (kind_requests[i], kind_ips[i].len() as u64)
        };
        if requests > 0 {
            verdict_counts.insert((*kind).to_owned(), VerdictCount { requests, ips });
        }
    }

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

    let report = Report {
        schema: SCHEMA,
        generated: jiff::Timestamp::now()
            .round(jiff::Unit::Second)
            .map_or_else(|_| String::new(), |t| t.to_string()),
        dns,
        inputs: summaries,
        lines,
        samples,
        period,
        totals: Totals {
            requests: agg.requests,
            bytes: agg.bytes,
            ips: all_ips.len() as u64,
            bot_requests,
            user_agents: agg.ua_hashes.len() as u64,
        },
        verdicts: verdict_counts,
        bots: bots.into_iter().map(|(row, _)| row).collect(),
        spoofed,
        unknown_crawlers,
        timeline,
        status_codes: agg.status_codes,
        verification: VerificationStats {
            pairs: shared.progress.pairs.load(Ordering::Relaxed),
            dns_lookups: lookups,
            wait_seconds: (wait.as_secs_f64() * 1000.0).round() / 1000.0,
        },
    };
    Analysis {
        report,
        listed: shared.listed(),
    }
}
