//! From what the reading threads counted to the report's section.

use std::collections::BTreeMap;
use std::net::IpAddr;

use botwarden_verify::Registry;
use foldhash::{HashMap, HashMapExt, HashSet};
use jiff::Timestamp;

use super::collect::{BotHits, JoinAgg, StatusSeen, UrlBot};
use super::site::{CrawlSite, PageFacts, RobotsSource, profile_for};
use crate::analyze::ClaimInfo;
use crate::report::{
    CrawlJoin, CrawlPage, DelayKept, JoinAccounting, JoinBot, JoinCategory, JoinDirectory, JoinUrl,
    NeverCrawled, Orphan, Orphans, RobotsCopy, ScaleRow, StatusChange, UrlBotRow, UrlChange, Waste,
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
    let mut build = Build::new(site, &agg.urls, claims, registry, max_listed);
    build.account(&agg.bots, agg.times_capped);
    build.go_through_urls();
    build.list_disallowed_examples();
    build.count_disallowed_ips(&agg.offenders);
    build.measure_crawl_delays(&mut agg.times);
    build.finish()
}

/// Where a requested URL stands in the crawl.
#[derive(Clone, Copy)]
enum Place<'a> {
    /// A URL the crawl found, with its index among the crawl's URLs.
    InCrawl { index: u32, page: &'a PageFacts },
    /// An origin's robots.txt: no page, its fetches are counted apart.
    RobotsTxt,
    /// A URL the crawl did not find.
    NotInCrawl,
}

/// The section while it is being summed up: the bots' rows and the sums
/// per category and directory, and the lists of URLs worth showing.
struct Build<'a> {
    site: &'a CrawlSite,
    /// Per URL, each verified bot's requests.
    urls: &'a HashMap<Box<str>, Vec<(u32, UrlBot)>>,
    claims: &'a [ClaimInfo],
    registry: &'a Registry,
    max_listed: usize,
    accounting: JoinAccounting,
    /// Per claim, the bot's row.
    rows: HashMap<u32, JoinBot>,
    search_requests: SearchRequests<'a>,
    /// Per claim, its disallowed URLs with their requests.
    examples: HashMap<u32, Vec<(u64, &'a str)>>,
    categories: BTreeMap<&'static str, CategorySums>,
    directories: HashMap<String, JoinDirectory>,
    orphans: Orphans,
    orphan_list: Vec<Orphan>,
    waste_list: Vec<WastedUrl>,
    changes: Vec<UrlChange>,
    /// Each URL with its requests.
    top: Vec<(u64, &'a str)>,
}

impl<'a> Build<'a> {
    fn new(
        site: &'a CrawlSite,
        urls: &'a HashMap<Box<str>, Vec<(u32, UrlBot)>>,
        claims: &'a [ClaimInfo],
        registry: &'a Registry,
        max_listed: usize,
    ) -> Build<'a> {
        Build {
            site,
            urls,
            claims,
            registry,
            max_listed,
            accounting: JoinAccounting::default(),
            rows: HashMap::new(),
            search_requests: SearchRequests {
                site,
                search: vec![0; site.pages().list.len()],
            },
            examples: HashMap::new(),
            categories: BTreeMap::new(),
            directories: HashMap::new(),
            orphans: Orphans::default(),
            orphan_list: Vec::new(),
            waste_list: Vec::new(),
            changes: Vec::new(),
            top: Vec::with_capacity(urls.len()),
        }
    }

    /// The operator the registry names for a claim's bot.
    fn operator(&self, claim: u32) -> Option<String> {
        self.registry
            .find(&self.claims[claim as usize].name)
            .and_then(|b| b.operator.clone())
    }

    /// The robots.txt tokens of a claim's bot: the registry's, or its name.
    fn tokens(&self, claim: u32) -> Vec<String> {
        let info = &self.claims[claim as usize];
        self.registry
            .find(&info.name)
            .map(|b| b.robots_tokens.clone())
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| vec![info.name.to_string()])
    }

    /// Adds each bot's requests to the accounting and gives the bot its
    /// row.
    fn account(&mut self, bots: &HashMap<u32, BotHits>, times_capped: u64) {
        for (&claim, hits) in bots {
            let info = &self.claims[claim as usize];
            let a = &mut self.accounting;
            a.requests += hits.verified + hits.spoofed + hits.unconfirmed;
            a.verified += hits.verified;
            a.spoofed += hits.spoofed;
            a.unconfirmed += hits.unconfirmed;
            a.other_host += hits.other_host;
            a.no_url += hits.no_url;
            a.capped += hits.capped;
            let profile = profile_for(self.operator(claim).as_deref()).name.to_owned();
            let row = JoinBot {
                bot: info.name.to_string(),
                category: info.category.clone(),
                profile,
                requests: hits.verified,
                disallowed: hits.disallowed,
                spoofed: hits.spoofed,
                spoofed_disallowed: hits.spoofed_disallowed,
                unconfirmed: hits.unconfirmed,
                ..JoinBot::default()
            };
            self.rows.insert(claim, row);
        }
        let a = &mut self.accounting;
        a.joined = a.verified - a.other_host - a.no_url - a.capped;
        a.distinct_urls = self.urls.len() as u64;
        a.times_capped = times_capped;
    }

    /// Goes through the URLs the verified bots requested.
    fn go_through_urls(&mut self) {
        let urls = self.urls;
        for (url, bots) in urls {
            self.count_url(url, bots);
        }
    }

    /// Counts one URL's requests, bot by bot, into the bots' rows, its
    /// categories and its directory, and lists it if it is waste or an
    /// orphan.
    fn count_url(&mut self, url: &'a str, bots: &[(u32, UrlBot)]) {
        let site = self.site;
        let pages = site.pages();
        let origin = origin_of(site, url);
        let place = match pages.index.get(url) {
            Some(&index) => Place::InCrawl {
                index,
                page: &pages.list[index as usize],
            },
            None if url.get(origin.len()..) == Some("/robots.txt") => Place::RobotsTxt,
            None => Place::NotInCrawl,
        };
        let total: u64 = bots.iter().map(|(_, b)| b.requests).sum();
        self.top.push((total, url));
        // This URL's requests per category.
        let mut per_category: BTreeMap<&'static str, u64> = BTreeMap::new();
        for (claim, ub) in bots {
            self.count_bot_on_url(url, place, *claim, ub, &mut per_category);
        }
        let dir = self
            .directories
            .entry(directory_of(url, origin))
            .or_default();
        dir.requests += total;
        dir.urls += 1;
        for (category, requests) in per_category {
            *dir.categories.entry(category.to_owned()).or_default() += requests;
        }
        match place {
            Place::InCrawl { page, .. } => self.list_waste(url, page, total, bots),
            Place::RobotsTxt => {}
            Place::NotInCrawl => self.list_orphan(url, total, bots),
        }
    }

    /// Counts one bot's requests for one URL into its row and its
    /// category, and notes the URL's status change to it.
    fn count_bot_on_url(
        &mut self,
        url: &'a str,
        place: Place<'_>,
        claim: u32,
        ub: &UrlBot,
        per_category: &mut BTreeMap<&'static str, u64>,
    ) {
        let info = &self.claims[claim as usize];
        let cat = category_of(info);
        let Some(row) = self.rows.get_mut(&claim) else {
            return;
        };
        row.urls += 1;
        match place {
            Place::InCrawl { index, page } => {
                row.requests_in_crawl += ub.requests;
                row.urls_in_crawl += 1;
                if count_waste(&mut row.waste, page, ub.requests) {
                    self.categories.entry(cat).or_default().waste += ub.requests;
                }
                if cat == "search" {
                    self.search_requests.search[index as usize] += ub.requests;
                }
            }
            Place::RobotsTxt => row.robots_fetches += ub.requests,
            Place::NotInCrawl => row.requests_not_in_crawl += ub.requests,
        }
        if ub.statuses.len() > 1 {
            row.status_changes += 1;
            if let (last_status, Some(change)) = statuses(ub) {
                self.changes.push(UrlChange {
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
            self.examples
                .entry(claim)
                .or_default()
                .push((ub.requests, url));
            self.categories.entry(cat).or_default().disallowed += ub.requests;
        }
        let c = self.categories.entry(cat).or_default();
        c.bots.insert(claim);
        c.requests += ub.requests;
        if !per_category.contains_key(cat) {
            c.urls += 1;
        }
        *per_category.entry(cat).or_default() += ub.requests;
    }

    /// Lists a page of the crawl that is waste, with the kinds it is.
    fn list_waste(&mut self, url: &str, page: &PageFacts, total: u64, bots: &[(u32, UrlBot)]) {
        let kinds: Vec<String> = [
            (page.is_redirect(), "redirect"),
            (page.is_error(), "error"),
            (page.non_canonical, "non-canonical"),
            (page.noindex, "noindex"),
        ]
        .into_iter()
        .filter(|(is, _)| *is)
        .map(|(_, kind)| kind.to_owned())
        .collect();
        if !kinds.is_empty() {
            self.waste_list.push(WastedUrl {
                url: url.to_string(),
                kinds,
                crawl_status: page.status,
                requests: total,
                bots: bot_names(bots, self.claims),
            });
        }
    }

    /// Counts and lists a URL the crawl did not find.
    fn list_orphan(&mut self, url: &str, total: u64, bots: &[(u32, UrlBot)]) {
        self.orphans.urls += 1;
        self.orphans.requests += total;
        let kind = orphan_kind(self.site, url, bots);
        *self.orphans.kinds.entry(kind.to_owned()).or_default() += 1;
        self.orphan_list.push(Orphan {
            url: url.to_string(),
            kind: kind.to_owned(),
            requests: total,
            bots: bot_names(bots, self.claims),
            last_status: last_status(bots),
        });
    }

    /// Gives each bot the disallowed URLs it requested most.
    fn list_disallowed_examples(&mut self) {
        for (claim, mut list) in std::mem::take(&mut self.examples) {
            if let Some(row) = self.rows.get_mut(&claim) {
                list.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
                row.disallowed_examples = list
                    .iter()
                    .take(DISALLOWED_EXAMPLES)
                    .map(|(_, u)| (*u).to_owned())
                    .collect();
            }
        }
    }

    /// Counts each bot's addresses that requested a disallowed URL.
    fn count_disallowed_ips(&mut self, offenders: &HashSet<(IpAddr, u32)>) {
        for &(_, claim) in offenders {
            if let Some(row) = self.rows.get_mut(&claim) {
                row.disallowed_ips += 1;
            }
        }
    }

    /// Measures how each bot spaced its requests against the
    /// `Crawl-delay` of each copy of robots.txt in force.
    fn measure_crawl_delays(&mut self, times: &mut HashMap<(u32, u16, u16), Vec<i64>>) {
        let site = self.site;
        let mut keys: Vec<(u32, u16, u16)> = times.keys().copied().collect();
        keys.sort_unstable();
        for (claim, origin, version) in keys {
            let Some(list) = times.get_mut(&(claim, origin, version)) else {
                continue;
            };
            let m = site.matcher(
                (origin, version),
                &self.tokens(claim),
                profile_for(self.operator(claim).as_deref()),
            );
            let (Some(delay), Some(row)) = (CrawlSite::crawl_delay(&m), self.rows.get_mut(&claim))
            else {
                continue;
            };
            let o = &site.origins[origin as usize].text;
            let mut kept = spacing(o, delay, list);
            kept.robots = site.version_name(origin, version);
            row.crawl_delay.push(kept);
        }
    }

    /// The bots' rows, most verified requests first.
    fn bots(&mut self) -> Vec<JoinBot> {
        let mut bots: Vec<JoinBot> = std::mem::take(&mut self.rows).into_values().collect();
        bots.sort_by(|a, b| {
            b.requests
                .cmp(&a.requests)
                .then(b.spoofed.cmp(&a.spoofed))
                .then_with(|| a.bot.cmp(&b.bot))
        });
        bots
    }

    /// The sums per category, in report order.
    fn categories(&mut self) -> Vec<JoinCategory> {
        CATEGORIES
            .iter()
            .filter_map(|c| {
                let sums = self.categories.remove(c)?;
                Some(JoinCategory {
                    category: (*c).to_owned(),
                    bots: sums.bots.len() as u64,
                    requests: sums.requests,
                    urls: sums.urls,
                    disallowed: sums.disallowed,
                    waste: sums.waste,
                })
            })
            .collect()
    }

    /// The URLs with the most requests, and how many more there are.
    fn top_urls(&mut self) -> (Vec<JoinUrl>, u64) {
        let (site, urls, claims, max_listed) = (self.site, self.urls, self.claims, self.max_listed);
        let top = &mut self.top;
        top.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let omitted = top.len().saturating_sub(max_listed) as u64;
        let rows = top
            .iter()
            .take(max_listed)
            .map(|&(requests, url)| url_row(site, url, requests, &urls[url], claims))
            .collect();
        (rows, omitted)
    }

    /// The directories with the most requests, with the pages of the
    /// crawl under each and how many of them search bots requested.
    fn directories(&mut self) -> Vec<JoinDirectory> {
        let site = self.site;
        let pages = site.pages();
        let mut dirs = std::mem::take(&mut self.directories);
        for p in &pages.list {
            if !p.html {
                continue;
            }
            let dir = dirs
                .entry(directory_of(&p.url, origin_of(site, &p.url)))
                .or_default();
            dir.pages += 1;
            let i = pages.index[&p.url];
            dir.pages_requested += u64::from(self.search_requests.search[i as usize] > 0);
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
        directories.truncate(self.max_listed);
        directories
    }

    /// The status changes, the latest first (what answered one thing and
    /// another now), and how many more there are.
    fn status_changes(&mut self) -> (Vec<UrlChange>, u64) {
        let mut changes = std::mem::take(&mut self.changes);
        changes.sort_by(|a, b| {
            b.change
                .since
                .cmp(&a.change.since)
                .then_with(|| a.url.cmp(&b.url))
                .then_with(|| a.bot.cmp(&b.bot))
        });
        let omitted = changes.len().saturating_sub(self.max_listed) as u64;
        changes.truncate(self.max_listed);
        (changes, omitted)
    }

    /// The wasted URLs with the most requests, and how many more there
    /// are.
    fn waste_urls(&mut self) -> (Vec<WastedUrl>, u64) {
        let mut list = std::mem::take(&mut self.waste_list);
        list.sort_by(|a, b| b.requests.cmp(&a.requests).then_with(|| a.url.cmp(&b.url)));
        let omitted = list.len().saturating_sub(self.max_listed) as u64;
        list.truncate(self.max_listed);
        (list, omitted)
    }

    /// The orphans' sums, with those with the most requests listed.
    fn orphans(&mut self) -> Orphans {
        let mut list = std::mem::take(&mut self.orphan_list);
        list.sort_by(|a, b| b.requests.cmp(&a.requests).then_with(|| a.url.cmp(&b.url)));
        list.truncate(self.max_listed);
        Orphans {
            list,
            ..std::mem::take(&mut self.orphans)
        }
    }

    /// The section.
    fn finish(mut self) -> CrawlJoin {
        let bots = self.bots();
        let categories = self.categories();
        let (top_urls, top_urls_omitted) = self.top_urls();
        let directories = self.directories();
        let (status_changes, status_changes_omitted) = self.status_changes();
        let (waste_urls, waste_urls_omitted) = self.waste_urls();
        let orphans = self.orphans();
        let (never_crawled, depths, scores) = self.search_requests.pages(self.max_listed);
        let site = self.site;
        CrawlJoin {
            store: site.name.clone(),
            origins: site.origins.iter().map(|o| o.text.clone()).collect(),
            robots: robots_copies(site),
            urls: site.pages().list.len() as u64,
            pages: site.pages().list.iter().filter(|p| p.html).count() as u64,
            accounting: self.accounting,
            bots,
            categories,
            top_urls,
            top_urls_omitted,
            directories,
            never_crawled,
            status_changes,
            status_changes_omitted,
            waste_urls,
            waste_urls_omitted,
            orphans,
            depths,
            scores,
        }
    }
}

/// The origin a URL is of, or "" for none.
fn origin_of<'s>(site: &'s CrawlSite, url: &str) -> &'s str {
    site.origins
        .iter()
        .find(|o| url.starts_with(o.text.as_str()))
        .map_or("", |o| o.text.as_str())
}

/// Counts a bot's requests for a page under each kind of waste the page
/// is; whether it is any.
fn count_waste(waste: &mut Waste, page: &PageFacts, requests: u64) -> bool {
    let mut wasted = false;
    for (is, n) in [
        (page.is_redirect(), &mut waste.redirect),
        (page.is_error(), &mut waste.error),
        (page.non_canonical, &mut waste.non_canonical),
        (page.noindex, &mut waste.noindex),
    ] {
        if is {
            *n += requests;
            wasted = true;
        }
    }
    wasted
}

/// The copies of robots.txt the join read: each origin's, then the
/// history's.
fn robots_copies(site: &CrawlSite) -> Vec<RobotsCopy> {
    site.origins
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
        .collect()
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
