//! From what the reading threads counted to the report's section.

use std::collections::BTreeMap;

use botwarden_verify::Registry;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use jiff::Timestamp;

use super::collect::{JoinAgg, StatusSeen, UrlBot};
use super::site::{CrawlSite, RobotsSource, profile_for};
use crate::analyze::ClaimInfo;
use crate::report::{
    CrawlJoin, CrawlPage, DelayKept, JoinAccounting, JoinBot, JoinCategory, JoinDirectory, JoinUrl,
    NeverCrawled, Orphan, Orphans, RobotsCopy, ScaleRow, StatusChange, UrlBotRow, UrlChange,
    WastedUrl,
};

/// The categories the join sums up by, in report order.
const CATEGORIES: [&str; 5] = ["search", "ai-search", "ai-user", "ai-training", "other"];

/// URLs listed as examples of a bot's disallowed requests.
const DISALLOWED_EXAMPLES: usize = 10;

/// Bands of link score.
const SCORE_BANDS: usize = 5;

/// The share of gaps that must keep a `Crawl-delay` for the bot to keep it.
const KEPT_SHARE: u64 = 95;

fn category_of(info: &ClaimInfo) -> &'static str {
    let c = info.category.as_deref().unwrap_or("");
    CATEGORIES[..4]
        .iter()
        .find(|k| **k == c)
        .copied()
        .unwrap_or("other")
}

fn time(t: i64) -> Option<Timestamp> {
    Timestamp::from_second(t).ok()
}

fn day_text(day: i64) -> String {
    time(day * 86_400).map_or_else(String::new, |t| t.strftime("%Y-%m-%d").to_string())
}

/// The status of a URL's last request to a bot, and the change that led
/// to it: the other status whose last request is the latest.
fn statuses(ub: &UrlBot) -> (u16, Option<StatusChange>) {
    let latest = |a: &&StatusSeen, b: &&StatusSeen| {
        a.last
            .cmp(&b.last)
            .then(a.requests.cmp(&b.requests))
            .then(b.code.cmp(&a.code))
    };
    let Some(now) = ub.statuses.iter().max_by(latest) else {
        return (0, None);
    };
    let before = ub
        .statuses
        .iter()
        .filter(|s| s.code != now.code)
        .max_by(latest);
    let change = before.map(|b| StatusChange {
        from: b.code,
        until: time(b.last),
        to: now.code,
        since: time(now.first),
    });
    (now.code, change)
}

/// The directory of a URL: its origin and first path segment.
fn directory_of(url: &str, origin: &str) -> String {
    let rest = url.get(origin.len()..).unwrap_or("");
    let path = rest.split(['?', '#']).next().unwrap_or("");
    let path = path.strip_prefix('/').unwrap_or(path);
    match path.split_once('/') {
        Some((first, _)) => format!("{origin}/{first}/"),
        None => format!("{origin}/"),
    }
}

/// The spacing of sorted request times against a delay.
fn spacing(origin: &str, delay: f64, times: &mut [i64]) -> DelayKept {
    times.sort_unstable();
    let mut gaps: Vec<u64> = times
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]).unsigned_abs())
        .collect();
    let floor = delay.floor().max(0.0) as u64;
    let kept = gaps.iter().filter(|&&g| g >= floor).count() as u64;
    gaps.sort_unstable();
    let n = gaps.len() as u64;
    DelayKept {
        origin: origin.to_owned(),
        robots: String::new(),
        delay,
        gaps: n,
        kept,
        min: gaps.first().copied(),
        median: (n > 0).then(|| gaps[(gaps.len() - 1) / 2]),
        keeps: kept * 100 >= KEPT_SHARE * n,
    }
}

/// Per page of the crawl: verified search bots' requests.
struct SearchRequests<'a> {
    site: &'a CrawlSite,
    search: Vec<u64>,
}

/// A category's sums while the URLs are gone through.
#[derive(Default)]
struct CategorySums {
    bots: HashSet<u32>,
    requests: u64,
    urls: u64,
    disallowed: u64,
    waste: u64,
}

/// The report's section.
pub(crate) fn report(
    site: &CrawlSite,
    agg: Option<&mut JoinAgg>,
    claims: &[ClaimInfo],
    registry: &Registry,
    max_listed: usize,
) -> CrawlJoin {
    let mut empty;
    let agg = match agg {
        Some(a) => a,
        None => {
            empty = JoinAgg::new(std::sync::Arc::new(super::collect::JoinCaps::new(0)));
            &mut empty
        }
    };
    let operator = |claim: u32| {
        registry
            .find(&claims[claim as usize].name)
            .and_then(|b| b.operator.clone())
    };
    let tokens = |claim: u32| {
        let info = &claims[claim as usize];
        registry
            .find(&info.name)
            .map(|b| b.robots_tokens.clone())
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| vec![info.name.to_string()])
    };
    let mut acc = SearchRequests {
        site,
        search: vec![0; site.pages().list.len()],
    };
    let mut rows: HashMap<u32, JoinBot> = HashMap::new();
    let mut accounting = JoinAccounting::default();
    for (&claim, hits) in &agg.bots {
        let info = &claims[claim as usize];
        accounting.requests += hits.verified + hits.spoofed + hits.unconfirmed;
        accounting.verified += hits.verified;
        accounting.spoofed += hits.spoofed;
        accounting.unconfirmed += hits.unconfirmed;
        accounting.other_host += hits.other_host;
        accounting.no_url += hits.no_url;
        accounting.capped += hits.capped;
        rows.insert(
            claim,
            JoinBot {
                bot: info.name.to_string(),
                category: info.category.clone(),
                profile: profile_for(operator(claim).as_deref()).name.to_owned(),
                requests: hits.verified,
                disallowed: hits.disallowed,
                spoofed: hits.spoofed,
                spoofed_disallowed: hits.spoofed_disallowed,
                unconfirmed: hits.unconfirmed,
                ..JoinBot::default()
            },
        );
    }
    accounting.joined =
        accounting.verified - accounting.other_host - accounting.no_url - accounting.capped;
    accounting.distinct_urls = agg.urls.len() as u64;
    accounting.times_capped = agg.times_capped;

    let mut examples: HashMap<u32, Vec<(u64, &str)>> = HashMap::new();
    let mut cats: BTreeMap<&str, CategorySums> = BTreeMap::new();
    let mut dirs: HashMap<String, JoinDirectory> = HashMap::new();
    let mut orphans = Orphans::default();
    let mut orphan_list: Vec<Orphan> = Vec::new();
    let mut waste_list: Vec<WastedUrl> = Vec::new();
    let mut changes: Vec<UrlChange> = Vec::new();
    let mut top: Vec<(u64, &str)> = Vec::with_capacity(agg.urls.len());
    for (url, bots) in &agg.urls {
        let index = site.pages().index.get(&**url).copied();
        let page = index.map(|i| &site.pages().list[i as usize]);
        let total: u64 = bots.iter().map(|(_, b)| b.requests).sum();
        top.push((total, url));
        let mut url_cats: HashSet<&str> = HashSet::new();
        let origin = site
            .origins
            .iter()
            .find(|o| url.starts_with(o.text.as_str()))
            .map_or("", |o| o.text.as_str());
        // robots.txt is no page: its fetches are counted apart.
        let robots_txt = url.get(origin.len()..) == Some("/robots.txt");
        let dir = dirs.entry(directory_of(url, origin)).or_default();
        dir.requests += total;
        dir.urls += 1;
        for (claim, ub) in bots {
            let info = &claims[*claim as usize];
            let cat = category_of(info);
            let Some(row) = rows.get_mut(claim) else {
                continue;
            };
            row.urls += 1;
            match page {
                Some(p) => {
                    row.requests_in_crawl += ub.requests;
                    row.urls_in_crawl += 1;
                    let w = &mut row.waste;
                    let mut wasted = false;
                    for (is, n) in [
                        (p.is_redirect(), &mut w.redirect),
                        (p.is_error(), &mut w.error),
                        (p.non_canonical, &mut w.non_canonical),
                        (p.noindex, &mut w.noindex),
                    ] {
                        if is {
                            *n += ub.requests;
                            wasted = true;
                        }
                    }
                    if wasted {
                        cats.entry(cat).or_default().waste += ub.requests;
                    }
                    if cat == "search"
                        && let Some(i) = index
                    {
                        acc.search[i as usize] += ub.requests;
                    }
                }
                None if robots_txt => row.robots_fetches += ub.requests,
                None => row.requests_not_in_crawl += ub.requests,
            }
            if ub.statuses.len() > 1 {
                row.status_changes += 1;
                if let (last_status, Some(change)) = statuses(ub) {
                    changes.push(UrlChange {
                        url: url.to_string(),
                        bot: info.name.to_string(),
                        requests: ub.requests,
                        last_status,
                        change,
                    });
                }
            }
            if ub.disallowed {
                row.disallowed_urls += 1;
                examples.entry(*claim).or_default().push((ub.requests, url));
                cats.entry(cat).or_default().disallowed += ub.requests;
            }
            let c = cats.entry(cat).or_default();
            c.bots.insert(*claim);
            c.requests += ub.requests;
            if url_cats.insert(cat) {
                c.urls += 1;
            }
            *dir.categories.entry(cat.to_owned()).or_default() += ub.requests;
        }
        if let Some(p) = page {
            let kinds: Vec<String> = [
                (p.is_redirect(), "redirect"),
                (p.is_error(), "error"),
                (p.non_canonical, "non-canonical"),
                (p.noindex, "noindex"),
            ]
            .into_iter()
            .filter(|(is, _)| *is)
            .map(|(_, kind)| kind.to_owned())
            .collect();
            if !kinds.is_empty() {
                waste_list.push(WastedUrl {
                    url: url.to_string(),
                    kinds,
                    crawl_status: p.status,
                    requests: total,
                    bots: bot_names(bots, claims),
                });
            }
        }
        if page.is_none() && !robots_txt {
            orphans.urls += 1;
            orphans.requests += total;
            let kind = orphan_kind(site, url, bots);
            *orphans.kinds.entry(kind.to_owned()).or_default() += 1;
            orphan_list.push(Orphan {
                url: url.to_string(),
                kind: kind.to_owned(),
                requests: total,
                bots: bot_names(bots, claims),
                last_status: last_status(bots),
            });
        }
    }
    for (claim, mut list) in examples {
        if let Some(row) = rows.get_mut(&claim) {
            list.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            row.disallowed_examples = list
                .iter()
                .take(DISALLOWED_EXAMPLES)
                .map(|(_, u)| (*u).to_owned())
                .collect();
        }
    }
    for &(_, claim) in &agg.offenders {
        if let Some(row) = rows.get_mut(&claim) {
            row.disallowed_ips += 1;
        }
    }
    let mut keys: Vec<(u32, u16, u16)> = agg.times.keys().copied().collect();
    keys.sort_unstable();
    for (claim, origin, version) in keys {
        let Some(list) = agg.times.get_mut(&(claim, origin, version)) else {
            continue;
        };
        let m = site.matcher(
            (origin, version),
            &tokens(claim),
            profile_for(operator(claim).as_deref()),
        );
        let (Some(delay), Some(row)) = (CrawlSite::crawl_delay(&m), rows.get_mut(&claim)) else {
            continue;
        };
        let o = &site.origins[origin as usize].text;
        let mut kept = spacing(o, delay, list);
        kept.robots = site.version_name(origin, version);
        row.crawl_delay.push(kept);
    }

    let mut bots: Vec<JoinBot> = rows.into_values().collect();
    bots.sort_by(|a, b| {
        b.requests
            .cmp(&a.requests)
            .then(b.spoofed.cmp(&a.spoofed))
            .then_with(|| a.bot.cmp(&b.bot))
    });
    let categories = CATEGORIES
        .iter()
        .filter_map(|c| {
            let sums = cats.remove(c)?;
            Some(JoinCategory {
                category: (*c).to_owned(),
                bots: sums.bots.len() as u64,
                requests: sums.requests,
                urls: sums.urls,
                disallowed: sums.disallowed,
                waste: sums.waste,
            })
        })
        .collect();

    top.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let top_urls_omitted = top.len().saturating_sub(max_listed) as u64;
    let top_urls = top
        .iter()
        .take(max_listed)
        .map(|&(requests, url)| url_row(site, url, requests, &agg.urls[url], claims))
        .collect();

    for p in &site.pages().list {
        if !p.html {
            continue;
        }
        let origin = site
            .origins
            .iter()
            .find(|o| p.url.starts_with(o.text.as_str()))
            .map_or("", |o| o.text.as_str());
        let dir = dirs.entry(directory_of(&p.url, origin)).or_default();
        dir.pages += 1;
        let i = site.pages().index[&p.url];
        dir.pages_requested += u64::from(acc.search[i as usize] > 0);
    }
    let mut directories: Vec<JoinDirectory> = dirs
        .into_iter()
        .map(|(directory, mut d)| {
            d.directory = directory;
            d
        })
        .collect();
    directories.sort_by(|a, b| {
        b.requests
            .cmp(&a.requests)
            .then(b.pages.cmp(&a.pages))
            .then_with(|| a.directory.cmp(&b.directory))
    });
    directories.truncate(max_listed);

    // The latest changes first: what answered one thing and another now.
    changes.sort_by(|a, b| {
        b.change
            .since
            .cmp(&a.change.since)
            .then_with(|| a.url.cmp(&b.url))
            .then_with(|| a.bot.cmp(&b.bot))
    });
    let status_changes_omitted = changes.len().saturating_sub(max_listed) as u64;
    changes.truncate(max_listed);
    waste_list.sort_by(|a, b| b.requests.cmp(&a.requests).then_with(|| a.url.cmp(&b.url)));
    let waste_urls_omitted = waste_list.len().saturating_sub(max_listed) as u64;
    waste_list.truncate(max_listed);
    orphan_list.sort_by(|a, b| b.requests.cmp(&a.requests).then_with(|| a.url.cmp(&b.url)));
    orphan_list.truncate(max_listed);
    orphans.list = orphan_list;

    let (never_crawled, depths, scores) = acc.pages(max_listed);
    CrawlJoin {
        store: site.name.clone(),
        origins: site.origins.iter().map(|o| o.text.clone()).collect(),
        robots: site
            .origins
            .iter()
            .map(|o| match &o.robots_source {
                RobotsSource::Crawl {
                    fetched_at,
                    availability,
                } => RobotsCopy {
                    origin: o.text.clone(),
                    source: "crawl".to_owned(),
                    name: fetched_at.clone(),
                    availability: Some(availability.clone()),
                    from: None,
                },
                RobotsSource::Given(name) => RobotsCopy {
                    origin: o.text.clone(),
                    source: "given".to_owned(),
                    name: name.clone(),
                    availability: None,
                    from: None,
                },
                RobotsSource::None => RobotsCopy {
                    origin: o.text.clone(),
                    source: "none".to_owned(),
                    name: String::new(),
                    availability: None,
                    from: None,
                },
            })
            .chain(site.history.iter().map(|h| RobotsCopy {
                origin: "*".to_owned(),
                source: "history".to_owned(),
                name: h.name.clone(),
                availability: None,
                from: Some(h.day.clone()),
            }))
            .collect(),
        urls: site.pages().list.len() as u64,
        pages: site.pages().list.iter().filter(|p| p.html).count() as u64,
        accounting,
        bots,
        categories,
        top_urls,
        top_urls_omitted,
        directories,
        never_crawled,
        status_changes: changes,
        status_changes_omitted,
        waste_urls: waste_list,
        waste_urls_omitted,
        orphans,
        depths,
        scores,
    }
}

impl SearchRequests<'_> {
    /// The pages no verified search bot requested, and the requests by
    /// depth and by link score.
    fn pages(&self, max_listed: usize) -> (NeverCrawled, Vec<ScaleRow>, Vec<ScaleRow>) {
        let pages: Vec<(usize, &super::site::PageFacts)> = self
            .site
            .pages()
            .list
            .iter()
            .enumerate()
            .filter(|(_, p)| p.html)
            .collect();
        let mut never = NeverCrawled {
            pages: pages.len() as u64,
            ..NeverCrawled::default()
        };
        let mut list: Vec<&super::site::PageFacts> = Vec::new();
        let mut depths: BTreeMap<u32, ScaleRow> = BTreeMap::new();
        for &(i, p) in &pages {
            let n = self.search[i];
            let d = depths.entry(p.depth).or_insert_with(|| ScaleRow {
                band: p.depth.to_string(),
                ..ScaleRow::default()
            });
            d.pages += 1;
            d.requests += n;
            if n > 0 {
                never.requested += 1;
                d.requested += 1;
            } else {
                list.push(p);
            }
        }
        never.not_requested = never.pages - never.requested;
        list.sort_by(|a, b| {
            b.score
                .unwrap_or(0.0)
                .total_cmp(&a.score.unwrap_or(0.0))
                .then_with(|| a.url.cmp(&b.url))
        });
        never.list = list
            .iter()
            .take(max_listed)
            .map(|p| CrawlPage {
                url: p.url.to_string(),
                depth: p.depth,
                link_score: p.score,
            })
            .collect();
        let mut scored: Vec<(f64, u64)> = pages
            .iter()
            .filter_map(|&(i, p)| Some((p.score?, self.search[i])))
            .collect();
        scored.sort_by(|a, b| a.0.total_cmp(&b.0));
        let bands = SCORE_BANDS.min(scored.len());
        let mut scores = Vec::new();
        let mut start = 0;
        for band in 0..bands {
            let end = scored.len() * (band + 1) / bands;
            let part = &scored[start..end];
            start = end;
            let (Some(lo), Some(hi)) = (part.first(), part.last()) else {
                continue;
            };
            scores.push(ScaleRow {
                band: format!("{:.2}–{:.2}", lo.0, hi.0),
                pages: part.len() as u64,
                requested: part.iter().filter(|(_, n)| *n > 0).count() as u64,
                requests: part.iter().map(|(_, n)| n).sum(),
            });
        }
        (never, depths.into_values().collect(), scores)
    }
}

/// The status of the latest request for a URL, over its bots.
fn last_status(bots: &[(u32, UrlBot)]) -> u16 {
    bots.iter()
        .flat_map(|(_, b)| b.statuses.iter())
        .max_by(|a, b| a.last.cmp(&b.last).then(b.code.cmp(&a.code)))
        .map_or(0, |s| s.code)
}

/// What a URL the crawl did not find is likely to be.
fn orphan_kind(site: &CrawlSite, url: &str, bots: &[(u32, UrlBot)]) -> &'static str {
    if let Some((bare, _)) = url.split_once('?')
        && site.pages().index.contains_key(bare)
    {
        return "parameter";
    }
    match last_status(bots) {
        404 | 410 => "gone",
        300..=399 => "redirect",
        _ => "orphan",
    }
}

fn bot_names(bots: &[(u32, UrlBot)], claims: &[ClaimInfo]) -> Vec<String> {
    let mut list: Vec<(u64, &str)> = bots
        .iter()
        .map(|(c, b)| (b.requests, &*claims[*c as usize].name))
        .collect();
    list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    list.into_iter().map(|(_, n)| n.to_owned()).collect()
}

fn url_row(
    site: &CrawlSite,
    url: &str,
    requests: u64,
    bots: &[(u32, UrlBot)],
    claims: &[ClaimInfo],
) -> JoinUrl {
    let page = site.page(url);
    let row = |name: &str, ub: &UrlBot| {
        let (last_status, status_change) = statuses(ub);
        UrlBotRow {
            bot: name.to_owned(),
            requests: ub.requests,
            bytes: ub.bytes,
            last_seen: ub.last.and_then(time),
            days: ub.days.iter().map(|&(d, n)| (day_text(d), n)).collect(),
            statuses: ub.statuses.iter().map(|s| (s.code, s.requests)).collect(),
            last_status,
            status_change,
            disallowed: ub.disallowed,
        }
    };
    let mut rows: Vec<UrlBotRow> = bots
        .iter()
        .map(|(claim, ub)| row(&claims[*claim as usize].name, ub))
        .collect();
    let mut by_category: BTreeMap<&str, UrlBot> = BTreeMap::new();
    for (claim, ub) in bots {
        by_category
            .entry(category_of(&claims[*claim as usize]))
            .or_default()
            .merge(ub);
    }
    let categories = CATEGORIES
        .iter()
        .filter_map(|c| Some(row(c, by_category.get(c)?)))
        .collect();
    rows.sort_by(|a, b| b.requests.cmp(&a.requests).then_with(|| a.bot.cmp(&b.bot)));
    JoinUrl {
        url: url.to_owned(),
        in_crawl: page.is_some(),
        depth: page.map(|p| p.depth),
        link_score: page.and_then(|p| p.score),
        crawl_status: page.and_then(|p| p.status),
        requests,
        bots: rows,
        categories,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_the_first_segment() {
        let o = "https://example.com";
        assert_eq!(
            directory_of("https://example.com/", o),
            "https://example.com/"
        );
        assert_eq!(
            directory_of("https://example.com/about", o),
            "https://example.com/"
        );
        assert_eq!(
            directory_of("https://example.com/blog/a/b", o),
            "https://example.com/blog/"
        );
        assert_eq!(
            directory_of("https://example.com/blog?x=/y/", o),
            "https://example.com/"
        );
    }

    #[test]
    fn spacing_against_a_delay() {
        // Sorted, gaps 0, 4, 10, 10, 6 against 9.5 s (9 whole seconds):
        // 2 of 5 kept; the lower median of 0, 4, 6, 10, 10 is 6.
        let mut times = vec![130, 100, 100, 104, 114, 124];
        let d = spacing("https://example.com", 9.5, &mut times);
        assert_eq!((d.gaps, d.kept, d.min, d.median), (5, 2, Some(0), Some(6)));
        assert!(!d.keeps);
        // 20 gaps of 10 s and one of 2: 20 of 21 kept, 95.2 %.
        let mut times: Vec<i64> = (0..21).map(|i| i * 10).collect();
        times.push(202);
        let d = spacing("https://example.com", 10.0, &mut times);
        assert_eq!((d.gaps, d.kept), (21, 20));
        assert!(d.keeps);
        // One request: no gap, nothing broken.
        let d = spacing("https://example.com", 10.0, &mut [5]);
        assert_eq!((d.gaps, d.min, d.median, d.keeps), (0, None, None, true));
    }
}
