//! The crawl a log is joined with: its origins, its URLs with what the
//! crawl learnt of each, and the robots.txt in force per origin.

use botwarden_audit::LinkGraph;
use botwarden_robots::{Profile, RobotMatcher, RobotsTxt, TokenChain};
use botwarden_store::Store;
use foldhash::{HashMap, HashMapExt};
use std::path::Path;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;

use url::Url;

use crate::error::Error;

/// What the crawl learnt of one of its URLs.
#[derive(Debug, Clone)]
pub(crate) struct PageFacts {
    /// The URL, in the store's normal form.
    pub(crate) url: Box<str>,
    /// Clicks from the start URL.
    pub(crate) depth: u32,
    /// Whether the crawl fetched it.
    pub(crate) fetched: bool,
    /// The status it answered the crawl with.
    pub(crate) status: Option<u16>,
    /// A page: `200` with an HTML body read (the audit's pages).
    pub(crate) html: bool,
    /// Its link score, for a page.
    pub(crate) score: Option<f64>,
    /// `noindex` by a robots meta tag or `X-Robots-Tag`.
    pub(crate) noindex: bool,
    /// It names a canonical URL other than itself.
    pub(crate) non_canonical: bool,
}

impl PageFacts {
    /// A redirect, as the crawl met it (3xx).
    pub(crate) fn is_redirect(&self) -> bool {
        matches!(self.status, Some(300..=399))
    }

    /// An error: 4xx or 5xx, or no answer, for a URL the crawl fetched.
    pub(crate) fn is_error(&self) -> bool {
        self.fetched && !matches!(self.status, Some(100..=399))
    }
}

/// Where the robots.txt read for an origin comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RobotsSource {
    /// The copy the crawl fetched, when, and what its availability was.
    Crawl {
        fetched_at: String,
        availability: String,
    },
    /// A file or URL given with `--robots`.
    Given(String),
    /// The crawl recorded none for this origin: nothing is disallowed.
    None,
}

/// An origin of the crawl.
#[derive(Debug, Clone)]
pub(crate) struct Origin {
    /// `scheme://host[:port]`.
    pub(crate) text: String,
    /// The host, lower case, without port.
    pub(crate) host: String,
    /// The origin as a base to resolve log paths against.
    pub(crate) base: Url,
    /// The robots.txt read for it.
    pub(crate) robots: RobotsTxt,
    pub(crate) robots_source: RobotsSource,
}

/// A dated copy of robots.txt (`--robots-history DIR`), in force from
/// the start (UTC) of the day its file is named by.
#[derive(Debug)]
pub(crate) struct DatedRobots {
    /// Unix seconds of that day's start.
    pub(crate) from: i64,
    /// The day, `2026-11-19`.
    pub(crate) day: String,
    /// The file's name.
    pub(crate) name: String,
    pub(crate) robots: RobotsTxt,
}

/// The crawl a log is joined with ([`AnalyzeOptions::crawl`](crate::AnalyzeOptions::crawl)):
/// read once from a crawl store with [`CrawlSite::load`].
///
/// Its origins are the start URL's and every origin whose robots.txt the
/// crawl fetched (the start URL's first); its URLs are those of the store
/// on these origins, whatever their state (a URL the crawl met and did
/// not fetch was still found by it), keyed by their normal form
/// ([`botwarden_store::normalize_url`]); a log's paths are put in the same
/// form against their origin before they are looked up.
#[derive(Debug)]
pub struct CrawlSite {
    pub(crate) name: String,
    pub(crate) origins: Vec<Origin>,
    /// The URLs, once read ([`CrawlSite::pages`]).
    pages: OnceLock<Pages>,
    /// The thread reading them, for a site opened with
    /// [`CrawlSite::open`].
    reading: Mutex<Option<JoinHandle<Result<Pages, Error>>>>,
    /// Why they could not be read, until taken.
    failed: Mutex<Option<Error>>,
    /// Dated copies of robots.txt, oldest first.
    pub(crate) history: Vec<DatedRobots>,
}

/// The crawl's URLs on its origins, and an index of them by URL.
#[derive(Debug, Default)]
pub(crate) struct Pages {
    pub(crate) list: Vec<PageFacts>,
    pub(crate) index: HashMap<Box<str>, u32>,
}

/// The robots.txt a crawler that reads a file's availability so reads
/// in its place: `full-allow` (a 4xx) as an empty file, anything but a
/// parsed body (`full-disallow`, `retry-later`, `failed`) as a file
/// that disallows everything, as RFC 9309 § 2.3.1.3–4 has crawlers do.
fn body_for(availability: &str, body: &[u8]) -> Vec<u8> {
    match availability {
        "parse" => body.to_vec(),
        "full-allow" => Vec::new(),
        _ => b"User-agent: *\nDisallow: /\n".to_vec(),
    }
}

impl CrawlSite {
    /// Reads the crawl in `store`: its origins and robots.txt copies, its
    /// URLs with depth, status, page facts and link score (the audit's
    /// [`LinkGraph`], so both give a page the same score).
    ///
    /// # Errors
    /// [`Error::Store`] when the store cannot be read.
    pub fn load(store: &Store) -> Result<CrawlSite, Error> {
        let site = CrawlSite::origins(store)?;
        let texts: Vec<String> = site.origins.iter().map(|o| o.text.clone()).collect();
        let pages = read_pages(store, &texts)?;
        let _ = site.pages.set(pages);
        Ok(site)
    }

    /// Opens the crawl store at `path` and reads its origins and
    /// robots.txt copies at once, and its URLs on a thread of their own
    /// while the log is read (the link score of a large crawl takes a
    /// while); the analysis waits for them when it makes its report.
    /// [`CrawlSite::take_error`] says afterwards whether they could be
    /// read.
    ///
    /// # Errors
    /// [`Error::Store`] when the store cannot be opened or its origins
    /// read.
    pub fn open(path: &Path) -> Result<CrawlSite, Error> {
        let store = Store::open(path)?;
        let site = CrawlSite::origins(&store)?;
        let texts: Vec<String> = site.origins.iter().map(|o| o.text.clone()).collect();
        let handle = std::thread::Builder::new()
            .name("botwarden-crawl-store".to_owned())
            .spawn(move || read_pages(&store, &texts))
            .map_err(|e| Error::io(path, "start a thread to read the store", e))?;
        *site.reading.lock().unwrap_or_else(PoisonError::into_inner) = Some(handle);
        Ok(site)
    }

    /// The crawl's URLs, waiting for the thread reading them if need be
    /// (none when they could not be read: [`CrawlSite::take_error`]).
    pub(crate) fn pages(&self) -> &Pages {
        self.pages.get_or_init(|| {
            let handle = self
                .reading
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            let read = match handle.map(JoinHandle::join) {
                Some(Ok(read)) => read,
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                None => Ok(Pages::default()),
            };
            read.unwrap_or_else(|e| {
                *self.failed.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                Pages::default()
            })
        })
    }

    /// Why the crawl's URLs could not be read, once: a report made without
    /// them is not to be shown.
    pub fn take_error(&self) -> Option<Error> {
        let _ = self.pages();
        self.failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// The origins and robots.txt copies of the crawl in `store`.
    fn origins(store: &Store) -> Result<CrawlSite, Error> {
        let name = store.path().display().to_string();
        let mut origins: Vec<Origin> = Vec::new();
        let seed = store.meta("seed")?.and_then(|s| Url::parse(&s).ok());
        let robots = store.robots_files()?;
        let mut add_origin = |url: &Url, source: RobotsSource, body: Vec<u8>| {
            let text = url.origin().ascii_serialization();
            if origins.iter().any(|o| o.text == text) {
                return;
            }
            let Ok(base) = Url::parse(&format!("{text}/")) else {
                return;
            };
            let host = host_of(&base);
            origins.push(Origin {
                text,
                host,
                base,
                robots: RobotsTxt::parse(body),
                robots_source: source,
            });
        };
        let robots_of = |origin: &str| {
            robots
                .iter()
                .find(|r| r.origin.trim_end_matches('/') == origin)
        };
        let mut seeds: Vec<Url> = seed.into_iter().collect();
        seeds.extend(robots.iter().filter_map(|r| Url::parse(&r.origin).ok()));
        for url in &seeds {
            let text = url.origin().ascii_serialization();
            match robots_of(&text) {
                Some(r) => add_origin(
                    url,
                    RobotsSource::Crawl {
                        fetched_at: r.fetched_at.clone(),
                        availability: r.availability.clone(),
                    },
                    body_for(&r.availability, &r.body),
                ),
                None => add_origin(url, RobotsSource::None, Vec::new()),
            }
        }
        Ok(CrawlSite {
            name,
            origins,
            pages: OnceLock::new(),
            reading: Mutex::new(None),
            failed: Mutex::new(None),
            history: Vec::new(),
        })
    }

    /// Reads `body` (named `name`: the file or URL given) as every
    /// origin's robots.txt in place of the crawl's copies.
    pub fn set_robots(&mut self, name: &str, body: &[u8]) {
        for origin in &mut self.origins {
            origin.robots = RobotsTxt::parse(body.to_vec());
            origin.robots_source = RobotsSource::Given(name.to_owned());
        }
    }

    /// The robots.txt of the start URL's origin as a usage policy, named
    /// for the report by where it came from (`logs analyze --crawl`
    /// without `--robots` measures usage preferences against it).
    #[must_use]
    pub fn usage_policy(&self) -> Option<crate::UsagePolicy> {
        let o = self.origins.first()?;
        let name = match &o.robots_source {
            RobotsSource::Crawl { fetched_at, .. } => {
                format!("the crawl's copy of {}/robots.txt ({fetched_at})", o.text)
            }
            RobotsSource::Given(name) => name.clone(),
            RobotsSource::None => return None,
        };
        Some(crate::UsagePolicy::new(name, o.robots.bytes()))
    }

    /// Reads the dated copies of robots.txt in `dir`: each file is named
    /// with the day it was fetched (`2026-11-19.txt`,
    /// `robots-2026-11-19.txt`) and is in force for every origin from
    /// the start of that day (UTC) until the next copy; a request before
    /// the first copy is judged by the crawl's copy (or `--robots`).
    /// Returns how many copies were read.
    ///
    /// # Errors
    /// [`Error::Io`] when the directory or a file cannot be read,
    /// [`Error::Refused`] for a file whose name has no day, or a second
    /// copy of one day.
    pub fn read_robots_history(&mut self, dir: &Path) -> Result<usize, Error> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| Error::io(dir, "read the directory", e))?;
        let mut history = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(dir, "read the directory", e))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || !path.is_file() {
                continue;
            }
            let Some((day, from)) = day_in(&name) else {
                return Err(Error::refused(
                    &path,
                    "no day in its name: name each copy by the day it was fetched (2026-11-19.txt)",
                ));
            };
            let body = std::fs::read(&path).map_err(|e| Error::io(&path, "read", e))?;
            history.push(DatedRobots {
                from,
                day,
                name,
                robots: RobotsTxt::parse(body),
            });
        }
        history.sort_by(|a, b| a.from.cmp(&b.from).then_with(|| a.name.cmp(&b.name)));
        if let Some(w) = history.windows(2).find(|w| w[0].from == w[1].from) {
            return Err(Error::refused(
                dir.join(&w[1].name),
                format!("a second copy of {} (beside {})", w[1].day, w[0].name),
            ));
        }
        let n = history.len();
        self.history = history;
        Ok(n)
    }

    /// The copy of robots.txt in force at `time` (Unix seconds, or
    /// `i64::MIN` for none): 0 for the origin's own, `k` for the `k`-th
    /// dated copy.
    pub(crate) fn version_at(&self, time: i64) -> u16 {
        if time == i64::MIN {
            return 0;
        }
        u16::try_from(self.history.partition_point(|h| h.from <= time)).unwrap_or(u16::MAX)
    }

    /// The name of a copy in force, for the report.
    pub(crate) fn version_name(&self, origin: u16, version: u16) -> String {
        match version {
            0 => match &self.origins[origin as usize].robots_source {
                RobotsSource::Crawl { .. } => "crawl".to_owned(),
                RobotsSource::Given(name) => name.clone(),
                RobotsSource::None => "none".to_owned(),
            },
            v => self.history[usize::from(v) - 1].name.clone(),
        }
    }

    /// The store, as named when loaded.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The URLs of the crawl on its origins.
    #[must_use]
    pub fn url_count(&self) -> usize {
        self.pages().list.len()
    }

    /// The origin a request is for: the one whose host the log's virtual
    /// host names (its port left aside; the start URL's origin first when
    /// two schemes share a host), else, when the log names no host, the
    /// start URL's. `None` for a host of no origin of the crawl.
    pub(crate) fn origin_of(&self, vhost: Option<&str>) -> Option<u16> {
        let Some(vhost) = vhost.map(str::trim).filter(|v| !v.is_empty()) else {
            return (!self.origins.is_empty()).then_some(0);
        };
        let host = if let Some(rest) = vhost.strip_prefix('[') {
            rest.split(']').next().unwrap_or(rest)
        } else {
            vhost.rsplit_once(':').map_or(vhost, |(h, port)| {
                if port.bytes().all(|b| b.is_ascii_digit()) {
                    h
                } else {
                    vhost
                }
            })
        };
        let host = host.trim_end_matches('.');
        self.origins
            .iter()
            .position(|o| o.host.eq_ignore_ascii_case(host))
            .map(|i| i as u16)
    }

    /// The page facts of a URL in normal form.
    pub(crate) fn page(&self, url: &str) -> Option<&PageFacts> {
        let pages = self.pages();
        pages.index.get(url).map(|&i| &pages.list[i as usize])
    }

    /// The `Crawl-delay` a robot's matcher gives, unless its profile
    /// ignores the line (Google's, Yandex's).
    pub(crate) fn crawl_delay(matcher: &RobotMatcher) -> Option<f64> {
        if matcher.profile().crawl_delay == botwarden_robots::Usage::Ignored {
            return None;
        }
        matcher.crawl_delay().map(|d| d.value)
    }

    /// The matcher of a robot with `tokens` for an origin under a copy
    /// of robots.txt ([`CrawlSite::version_at`]), read as `profile` does.
    pub(crate) fn matcher(
        &self,
        (origin, version): (u16, u16),
        tokens: &[String],
        profile: &Profile,
    ) -> RobotMatcher {
        let chain = TokenChain::new(tokens.iter().cloned());
        let robots = match version {
            0 => &self.origins[origin as usize].robots,
            v => &self.history[usize::from(v) - 1].robots,
        };
        RobotMatcher::new(robots, profile, &chain)
    }
}

/// The URLs of the crawl in `store` on the `origins`, with depth, status,
/// page facts and the audit's link score.
fn read_pages(store: &Store, origins: &[String]) -> Result<Pages, Error> {
    let graph = LinkGraph::load(store).map_err(|e| match e {
        botwarden_audit::Error::Store(e) => Error::Store(e),
        other => Error::Store(botwarden_store::Error {
            path: store.path().to_owned(),
            message: other.to_string(),
        }),
    })?;
    let mut pages = Vec::with_capacity(graph.nodes.len());
    let mut index = HashMap::with_capacity(graph.nodes.len());
    for node in graph.nodes {
        let on_site = Url::parse(&node.url).is_ok_and(|u| {
            let text = u.origin().ascii_serialization();
            origins.contains(&text)
        });
        if !on_site {
            continue;
        }
        let url: Box<str> = node.url.into();
        index.insert(url.clone(), pages.len() as u32);
        pages.push(PageFacts {
            url,
            depth: node.depth,
            fetched: node.state == "fetched",
            status: node.status,
            html: node.html,
            score: node.score,
            noindex: false,
            non_canonical: false,
        });
    }
    let fail = |e: rusqlite::Error| botwarden_store::Error {
        path: store.path().to_owned(),
        message: format!("cannot read the pages' directives: {e}"),
    };
    let mut st = store
        .connection()
        .prepare(
            "SELECT u.url, p.noindex IS NOT NULL, p.canonical FROM pages p
                 JOIN urls u ON u.id = p.url_id
                 WHERE p.noindex IS NOT NULL OR p.canonical IS NOT NULL",
        )
        .map_err(fail)?;
    let mut rows = st.query([]).map_err(fail)?;
    while let Some(r) = rows.next().map_err(fail)? {
        let url: String = r.get(0).map_err(fail)?;
        let Some(&i) = index.get(url.as_str()) else {
            continue;
        };
        let page = &mut pages[i as usize];
        page.noindex = r.get(1).map_err(fail)?;
        let canonical: Option<String> = r.get(2).map_err(fail)?;
        page.non_canonical = canonical.is_some_and(|c| c != url);
    }
    Ok(Pages { list: pages, index })
}

/// A URL's host as a log's virtual host names it: lower case, an IPv6
/// address without its brackets.
fn host_of(url: &Url) -> String {
    url.host_str()
        .unwrap_or("")
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// The day a file's name holds (`YYYY-MM-DD` anywhere in it), and the
/// Unix seconds of its start.
fn day_in(name: &str) -> Option<(String, i64)> {
    (0..name.len().saturating_sub(9)).find_map(|i| {
        let part = name.get(i..i + 10)?;
        let shape = part.bytes().enumerate().all(|(j, b)| {
            if j == 4 || j == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
        if !shape {
            return None;
        }
        let date: jiff::civil::Date = part.parse().ok()?;
        let start = date
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()?
            .timestamp()
            .as_second();
        Some((part.to_owned(), start))
    })
}

/// The profile a registered bot reads robots.txt with: its operator's
/// crawler where botwarden has a profile of it (Google, Microsoft's Bing,
/// Yandex), else RFC 9309.
pub(crate) fn profile_for(operator: Option<&str>) -> &'static Profile {
    match operator.map(str::trim) {
        Some("Google") => &Profile::GOOGLE,
        Some("Microsoft") => &Profile::BING,
        Some("Yandex") => &Profile::YANDEX,
        _ => &Profile::RFC9309,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(origins: &[&str]) -> CrawlSite {
        CrawlSite {
            name: "test".to_owned(),
            origins: origins
                .iter()
                .map(|o| {
                    let base = Url::parse(&format!("{o}/")).expect("an origin");
                    Origin {
                        text: (*o).to_owned(),
                        host: host_of(&base),
                        base,
                        robots: RobotsTxt::parse(Vec::new()),
                        robots_source: RobotsSource::None,
                    }
                })
                .collect(),
            pages: OnceLock::new(),
            reading: Mutex::new(None),
            failed: Mutex::new(None),
            history: Vec::new(),
        }
    }

    #[test]
    fn a_log_lines_host_names_its_origin() {
        let s = site(&[
            "https://example.com",
            "http://example.com",
            "https://blog.example.com",
            "http://[::1]:8080",
        ]);
        // No host in the log: the start URL's origin.
        assert_eq!(s.origin_of(None), Some(0));
        assert_eq!(s.origin_of(Some("")), Some(0));
        // Case, port and a final dot left aside; two schemes: the first.
        assert_eq!(s.origin_of(Some("EXAMPLE.com:443")), Some(0));
        assert_eq!(s.origin_of(Some("example.com:80")), Some(0));
        assert_eq!(s.origin_of(Some("blog.example.com.")), Some(2));
        assert_eq!(s.origin_of(Some("[::1]:8080")), Some(3));
        assert_eq!(s.origin_of(Some("other.org")), None);
        assert_eq!(s.origin_of(Some("example.com.evil.org")), None);
    }

    #[test]
    fn a_copys_day_is_read_from_its_name() {
        let (day, from) = day_in("robots-2026-11-19.txt").expect("a day");
        assert_eq!(day, "2026-11-19");
        assert_eq!(from, 1_795_046_400);
        assert_eq!(day_in("2026-11-19").map(|d| d.1), Some(1_795_046_400));
        assert_eq!(day_in("robots.txt"), None);
        assert_eq!(day_in("2026-13-01.txt"), None);
        assert_eq!(day_in("x2026-1-019.txt"), None);
    }

    #[test]
    fn a_copy_is_in_force_from_its_day() {
        let mut s = site(&["https://example.com"]);
        for (day, from) in [("2026-11-19", 1_795_046_400), ("2026-11-21", 1_795_219_200)] {
            s.history.push(DatedRobots {
                from,
                day: day.to_owned(),
                name: format!("{day}.txt"),
                robots: RobotsTxt::parse(Vec::new()),
            });
        }
        assert_eq!(s.version_at(i64::MIN), 0);
        assert_eq!(s.version_at(1_795_046_399), 0);
        assert_eq!(s.version_at(1_795_046_400), 1);
        assert_eq!(s.version_at(1_795_219_199), 1);
        assert_eq!(s.version_at(1_795_219_200), 2);
        assert_eq!(s.version_name(0, 0), "none");
        assert_eq!(s.version_name(0, 2), "2026-11-21.txt");
    }

    #[test]
    fn profiles_follow_the_operator() {
        assert_eq!(profile_for(Some("Google")).name, "google");
        assert_eq!(profile_for(Some("Microsoft")).name, "bing");
        assert_eq!(profile_for(Some("Yandex")).name, "yandex");
        assert_eq!(profile_for(Some("OpenAI")).name, "rfc9309");
        assert_eq!(profile_for(None).name, "rfc9309");
    }
}
