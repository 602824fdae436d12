//! The frontier: which URLs the crawl has met, which it will fetch, in
//! what order, and why it will not fetch the others.
//!
//! Every URL is admitted once ([`Frontier::admit`]), normalised before
//! (see [`crate::normalize`]); the first admission decides:
//!
//! - **scope** ([`Scope`]): `host` keeps URLs on the start URL's host and
//!   port, by `http` or `https` (a site that moves to HTTPS stays in
//!   scope); `domain` keeps every host of its registrable domain
//!   (`www.example.co.uk` and `shop.example.co.uk`, by the Public Suffix
//!   List). The start URL's path does not narrow the scope: a deep start
//!   URL is where the crawl begins, not a fence (`--include` fences);
//! - `--include` / `--exclude` regular expressions over the whole URL;
//! - **depth**: links from the start URL, at most `max_depth`;
//! - **traps**: a path with one segment repeated [`MAX_REPEATS`] times or
//!   more (`/a/b/a/b/a/b/`), more than [`MAX_SEGMENTS`] segments, or more
//!   than `max_queries_per_path` distinct queries on one path (calendars,
//!   faceted search, session ids);
//! - **the URL limit**: at most `max_urls` URLs are queued in all.
//!
//! Queued URLs come out in the order they were met (breadth first). Ids
//! are given in that order, from 1; skipped URLs get ids too, so that the
//! store can say why each URL was not fetched.

use std::collections::VecDeque;

// foldhash, seeded per process: the keys are read from crawled pages.
use foldhash::{HashMap, HashMapExt as _};

use regex::Regex;
use url::Url;

use botwarden_store::Skip;

/// A path segment repeated this many times marks a trap.
pub const MAX_REPEATS: usize = 3;
/// Paths with more segments than this are traps.
pub const MAX_SEGMENTS: usize = 32;

/// Which URLs belong to the crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The start URL's host and port (either scheme).
    Host,
    /// Every host of the start URL's registrable domain.
    Domain,
}

/// The frontier's limits.
#[derive(Debug, Clone)]
pub struct FrontierConfig {
    /// Which URLs belong.
    pub scope: Scope,
    /// Queue at most this many URLs.
    pub max_urls: u64,
    /// Follow links at most this deep.
    pub max_depth: u32,
    /// Only URLs matching this.
    pub include: Option<Regex>,
    /// No URL matching this.
    pub exclude: Option<Regex>,
    /// Distinct queries kept per path.
    pub max_queries_per_path: u32,
}

impl Default for FrontierConfig {
    fn default() -> Self {
        FrontierConfig {
            scope: Scope::Host,
            max_urls: 1_000_000,
            max_depth: 100,
            include: None,
            exclude: None,
            max_queries_per_path: 500,
        }
    }
}

/// What admitting a URL did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admitted {
    /// New, and queued.
    Queued(u64),
    /// New, and not to be fetched, for this reason.
    Skipped(u64, Skip),
    /// Met before only through links not followed; now queued.
    Promoted(u64),
    /// Met before (with this id).
    Known(u64),
}

impl Admitted {
    /// The URL's id.
    #[must_use]
    pub fn id(&self) -> u64 {
        match self {
            Admitted::Queued(id)
            | Admitted::Skipped(id, _)
            | Admitted::Promoted(id)
            | Admitted::Known(id) => *id,
        }
    }
}

/// A URL waiting to be fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// Its id.
    pub id: u64,
    /// The URL.
    pub url: String,
    /// Its depth.
    pub depth: u32,
}

/// The frontier of one crawl.
#[derive(Debug)]
pub struct Frontier {
    config: FrontierConfig,
    /// The start URL's host (lower case) and port.
    host: String,
    port: Option<u16>,
    /// Its registrable domain, for [`Scope::Domain`].
    domain: Option<String>,
    seen: HashMap<Box<str>, u64>,
    queue: VecDeque<Queued>,
    next_id: u64,
    queued_total: u64,
    queries: HashMap<Box<str>, u32>,
    /// URLs met only through links not followed (nofollow): known, not
    /// queued, promoted if a followed link leads to them.
    unfollowed: HashMap<Box<str>, u32>,
}

impl Frontier {
    /// A frontier for a crawl starting at `start` (already normalised).
    #[must_use]
    pub fn new(start: &Url, config: FrontierConfig) -> Frontier {
        let host = start.host_str().unwrap_or_default().to_ascii_lowercase();
        let domain = psl::domain_str(&host).map(str::to_owned);
        Frontier {
            config,
            port: start.port(),
            domain,
            host,
            seen: HashMap::new(),
            queue: VecDeque::new(),
            next_id: 1,
            queued_total: 0,
            queries: HashMap::new(),
            unfollowed: HashMap::new(),
        }
    }

    /// The limits.
    #[must_use]
    pub fn config(&self) -> &FrontierConfig {
        &self.config
    }

    /// URLs met so far.
    #[must_use]
    pub fn known(&self) -> usize {
        self.seen.len()
    }

    /// URLs waiting.
    #[must_use]
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// The id `url` has, if it was met.
    #[must_use]
    pub fn id_of(&self, url: &str) -> Option<u64> {
        self.seen.get(url).copied()
    }

    /// Whether `url` is in scope (the scope alone, not the other limits).
    #[must_use]
    pub fn in_scope(&self, url: &Url) -> bool {
        let host = url.host_str().unwrap_or_default();
        match self.config.scope {
            Scope::Host => host.eq_ignore_ascii_case(&self.host) && url.port() == self.port,
            Scope::Domain => match &self.domain {
                Some(d) => {
                    let host = host.to_ascii_lowercase();
                    host == *d
                        || host
                            .strip_suffix(d.as_str())
                            .is_some_and(|h| h.ends_with('.'))
                }
                None => host.eq_ignore_ascii_case(&self.host),
            },
        }
    }

    /// The id of `url` (in normal form) when it was met before and
    /// [`Frontier::admit`] (`followed`) or [`Frontier::admit_unfollowed`]
    /// would change nothing: `None` for a new URL, and for one met only
    /// through nofollow that a followed link now promotes.
    #[must_use]
    pub fn known_id(&self, url: &str, followed: bool) -> Option<u64> {
        let id = *self.seen.get(url)?;
        (!followed || !self.unfollowed.contains_key(url)).then_some(id)
    }

    /// Admits a URL met at `depth` (module docs): queues it, or says why
    /// not, or gives the id it already has.
    pub fn admit(&mut self, url: &Url, depth: u32) -> Admitted {
        if let Some(&id) = self.seen.get(url.as_str()) {
            if self.unfollowed.remove(url.as_str()).is_some() {
                return match self.refusal(url, depth) {
                    Some(skip) => Admitted::Skipped(id, skip),
                    None => {
                        self.enqueue(id, url, depth);
                        Admitted::Promoted(id)
                    }
                };
            }
            return Admitted::Known(id);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.seen.insert(url.as_str().into(), id);
        match self.refusal(url, depth) {
            Some(skip) => Admitted::Skipped(id, skip),
            None => {
                self.enqueue(id, url, depth);
                Admitted::Queued(id)
            }
        }
    }

    fn enqueue(&mut self, id: u64, url: &Url, depth: u32) {
        self.queued_total += 1;
        self.queue.push_back(Queued {
            id,
            url: url.as_str().to_owned(),
            depth,
        });
    }

    /// Notes a URL met through a link that is not followed (nofollow): a
    /// new URL in scope gets an id and `skip`, and stays promotable; one
    /// out of scope is skipped for its scope, as a followed link's would
    /// be (scope comes first: it is another site's page, which
    /// `--check-external` checks); a known one is left as it is.
    pub fn admit_unfollowed(&mut self, url: &Url, depth: u32, skip: Skip) -> Admitted {
        if let Some(&id) = self.seen.get(url.as_str()) {
            return Admitted::Known(id);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.seen.insert(url.as_str().into(), id);
        if let Some(out) = self.out_of_scope(url) {
            return Admitted::Skipped(id, out);
        }
        self.unfollowed.insert(url.as_str().into(), depth);
        Admitted::Skipped(id, skip)
    }

    /// The reasons [`Frontier::admit`] gives for a URL it does not queue.
    pub const REFUSALS: &'static [&'static str] =
        &["scope", "include", "exclude", "depth", "trap", "max-urls"];

    /// The `scope` refusal of a URL out of scope.
    fn out_of_scope(&self, url: &Url) -> Option<Skip> {
        (!self.in_scope(url)).then(|| Skip {
            reason: "scope",
            detail: format!(
                "{} is not on {}",
                url.host_str().unwrap_or_default(),
                match self.config.scope {
                    Scope::Host => self.host.clone(),
                    Scope::Domain => self.domain.clone().unwrap_or(self.host.clone()),
                }
            ),
        })
    }

    fn refusal(&mut self, url: &Url, depth: u32) -> Option<Skip> {
        let skip = |reason, detail: String| Some(Skip { reason, detail });
        if let Some(out) = self.out_of_scope(url) {
            return Some(out);
        }
        if let Some(re) = &self.config.include
            && !re.is_match(url.as_str())
        {
            return skip(
                "include",
                format!("does not match --include {}", re.as_str()),
            );
        }
        if let Some(re) = &self.config.exclude
            && re.is_match(url.as_str())
        {
            return skip("exclude", format!("matches --exclude {}", re.as_str()));
        }
        if depth > self.config.max_depth {
            return skip(
                "depth",
                format!(
                    "depth {depth} is past --max-depth {}",
                    self.config.max_depth
                ),
            );
        }
        if let Some(detail) = path_trap(url.path()) {
            return skip("trap", detail);
        }
        if url.query().is_some() {
            let n = self.queries.entry(url.path().into()).or_insert(0);
            if *n >= self.config.max_queries_per_path {
                return skip(
                    "trap",
                    format!(
                        "more than {} distinct queries on {}",
                        self.config.max_queries_per_path,
                        url.path()
                    ),
                );
            }
            *n += 1;
        }
        if self.queued_total >= self.config.max_urls {
            return skip(
                "max-urls",
                format!("{} URLs queued already (--max-urls)", self.config.max_urls),
            );
        }
        None
    }

    /// The next URL to fetch, first met first.
    pub fn pop(&mut self) -> Option<Queued> {
        self.queue.pop_front()
    }

    /// The id of a URL that another worker queued and this one was given
    /// to fetch: its own if known here, else a new one (`true`), without
    /// queueing it here.
    pub fn adopt(&mut self, url: &str) -> (u64, bool) {
        if let Some(&id) = self.seen.get(url) {
            self.unfollowed.remove(url);
            return (id, false);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.seen.insert(url.into(), id);
        (id, true)
    }

    /// Puts a URL back at the front (its host is paused, or the crawl
    /// stopped before fetching it).
    pub fn put_back(&mut self, q: Queued) {
        self.queue.push_front(q);
    }

    /// Restores a URL that was met only through links not followed.
    pub fn restore_unfollowed(&mut self, id: u64, url: &str, depth: u32) {
        self.seen.insert(url.into(), id);
        self.next_id = self.next_id.max(id + 1);
        self.unfollowed.insert(url.into(), depth);
    }

    /// Restores a URL read back from the store on resume: known under its
    /// id, queued again if it was. `refused` is the reason the frontier
    /// itself gave when it did not queue the URL (scope, limits, traps),
    /// if that is why it was skipped: such a URL was never counted against
    /// `max_urls` nor the queries of its path, and is not now.
    pub fn restore(&mut self, id: u64, url: &str, depth: u32, queued: bool, refused: bool) {
        self.seen.insert(url.into(), id);
        self.next_id = self.next_id.max(id + 1);
        if refused {
            return;
        }
        self.queued_total += 1;
        if queued {
            self.queue.push_back(Queued {
                id,
                url: url.to_owned(),
                depth,
            });
        }
        if let Ok(u) = Url::parse(url)
            && u.query().is_some()
        {
            *self.queries.entry(u.path().into()).or_insert(0) += 1;
        }
    }
}

/// Why a path looks like a trap, if it does.
fn path_trap(path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if segments.len() > MAX_SEGMENTS {
        return Some(format!(
            "{} path segments (more than {MAX_SEGMENTS})",
            segments.len()
        ));
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for s in &segments {
        let n = counts.entry(s).or_insert(0);
        *n += 1;
        if *n >= MAX_REPEATS {
            return Some(format!("the segment '{s}' repeats {MAX_REPEATS} times"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).expect("url")
    }

    fn reason(a: &Admitted) -> Option<&'static str> {
        match a {
            Admitted::Skipped(_, s) => Some(s.reason),
            _ => None,
        }
    }

    #[test]
    fn host_scope_takes_either_scheme_not_other_hosts_or_ports() {
        let mut f = Frontier::new(
            &u("https://www.example.com/blog/post"),
            FrontierConfig::default(),
        );
        assert_eq!(
            f.admit(&u("https://www.example.com/blog/post"), 0),
            Admitted::Queued(1)
        );
        assert_eq!(
            f.admit(&u("http://www.example.com/"), 1),
            Admitted::Queued(2)
        );
        assert_eq!(
            f.admit(&u("https://www.example.com/other/"), 1),
            Admitted::Queued(3)
        );
        assert_eq!(
            reason(&f.admit(&u("https://shop.example.com/"), 1)),
            Some("scope")
        );
        assert_eq!(
            reason(&f.admit(&u("https://www.example.com:8443/"), 1)),
            Some("scope")
        );
        assert_eq!(
            f.admit(&u("http://www.example.com/"), 2),
            Admitted::Known(2)
        );
        let order: Vec<u64> = std::iter::from_fn(|| f.pop()).map(|q| q.id).collect();
        assert_eq!(order, [1, 2, 3]);
    }

    #[test]
    fn a_known_id_is_given_only_when_admitting_again_changes_nothing() {
        let mut f = Frontier::new(&u("https://example.com/"), FrontierConfig::default());
        assert_eq!(f.known_id("https://example.com/", true), None, "new");
        assert_eq!(f.admit(&u("https://example.com/"), 0), Admitted::Queued(1));
        assert_eq!(f.known_id("https://example.com/", true), Some(1));
        assert_eq!(f.known_id("https://example.com/", false), Some(1));
        let skip = Skip {
            reason: "nofollow",
            detail: "rel".into(),
        };
        assert_eq!(
            f.admit_unfollowed(&u("https://example.com/n"), 1, skip),
            Admitted::Skipped(
                2,
                Skip {
                    reason: "nofollow",
                    detail: "rel".into(),
                }
            )
        );
        // Met only through nofollow: another nofollow link changes nothing,
        // a followed one promotes it.
        assert_eq!(f.known_id("https://example.com/n", false), Some(2));
        assert_eq!(f.known_id("https://example.com/n", true), None);
        assert_eq!(
            f.admit(&u("https://example.com/n"), 1),
            Admitted::Promoted(2)
        );
        assert_eq!(f.known_id("https://example.com/n", true), Some(2));
    }

    #[test]
    fn a_nofollow_link_to_another_site_is_out_of_scope_first() {
        let mut f = Frontier::new(&u("https://example.com/"), FrontierConfig::default());
        let skip = Skip {
            reason: "nofollow",
            detail: "rel=\"sponsored\" on https://example.com/".into(),
        };
        let Admitted::Skipped(id, why) =
            f.admit_unfollowed(&u("https://ads.example.net/offer"), 1, skip)
        else {
            panic!("skipped");
        };
        assert_eq!(why.reason, "scope");
        assert_eq!(why.detail, "ads.example.net is not on example.com");
        // Not promotable: a followed link to it changes nothing.
        assert_eq!(f.known_id("https://ads.example.net/offer", true), Some(id));
        assert_eq!(
            f.admit(&u("https://ads.example.net/offer"), 1),
            Admitted::Known(id)
        );
        assert_eq!(f.waiting(), 0);
    }

    #[test]
    fn domain_scope_takes_the_registrable_domain() {
        let cfg = FrontierConfig {
            scope: Scope::Domain,
            ..FrontierConfig::default()
        };
        let f = Frontier::new(&u("https://www.example.co.uk/"), cfg);
        assert!(f.in_scope(&u("https://shop.example.co.uk/")));
        assert!(f.in_scope(&u("http://example.co.uk/")));
        assert!(!f.in_scope(&u("https://other.co.uk/")));
        assert!(!f.in_scope(&u("https://badexample.co.uk/")));
    }

    #[test]
    fn depth_include_exclude_and_the_url_limit() {
        let cfg = FrontierConfig {
            max_depth: 2,
            max_urls: 3,
            include: Some(Regex::new("/docs/").expect("re")),
            exclude: Some(Regex::new(r"\.pdf$").expect("re")),
            ..FrontierConfig::default()
        };
        let mut f = Frontier::new(&u("https://example.com/docs/"), cfg);
        assert_eq!(
            f.admit(&u("https://example.com/docs/"), 0),
            Admitted::Queued(1)
        );
        assert_eq!(
            reason(&f.admit(&u("https://example.com/blog/"), 1)),
            Some("include")
        );
        assert_eq!(
            reason(&f.admit(&u("https://example.com/docs/a.pdf"), 1)),
            Some("exclude")
        );
        assert_eq!(
            reason(&f.admit(&u("https://example.com/docs/deep"), 3)),
            Some("depth")
        );
        assert!(matches!(
            f.admit(&u("https://example.com/docs/a"), 2),
            Admitted::Queued(_)
        ));
        assert!(matches!(
            f.admit(&u("https://example.com/docs/b"), 2),
            Admitted::Queued(_)
        ));
        let over = f.admit(&u("https://example.com/docs/c"), 2);
        assert_eq!(reason(&over), Some("max-urls"));
        // Skipped URLs are known: they are not judged again.
        assert!(matches!(
            f.admit(&u("https://example.com/docs/c"), 1),
            Admitted::Known(_)
        ));
    }

    #[test]
    fn traps() {
        let cfg = FrontierConfig {
            max_queries_per_path: 3,
            ..FrontierConfig::default()
        };
        let mut f = Frontier::new(&u("https://example.com/"), cfg);
        assert_eq!(
            reason(&f.admit(&u("https://example.com/a/b/a/b/a/"), 1)),
            Some("trap")
        );
        let deep = format!(
            "https://example.com/{}",
            (0..40).map(|i| format!("s{i}/")).collect::<String>()
        );
        assert_eq!(reason(&f.admit(&u(&deep), 1)), Some("trap"));
        for day in 1..=3 {
            let url = format!("https://example.com/calendar?day={day}");
            assert!(matches!(f.admit(&u(&url), 1), Admitted::Queued(_)), "{url}");
        }
        let fourth = f.admit(&u("https://example.com/calendar?day=4"), 1);
        match fourth {
            Admitted::Skipped(_, s) => {
                assert_eq!(s.reason, "trap");
                assert!(s.detail.contains("/calendar"), "{}", s.detail);
            }
            other => panic!("{other:?}"),
        }
        // The same path without a query is not limited.
        assert!(matches!(
            f.admit(&u("https://example.com/calendar"), 1),
            Admitted::Queued(_)
        ));
    }

    #[test]
    fn a_url_met_through_nofollow_is_promoted_by_a_followed_link() {
        let mut f = Frontier::new(&u("https://example.com/"), FrontierConfig::default());
        let skip = Skip {
            reason: "nofollow",
            detail: "rel=nofollow on https://example.com/".into(),
        };
        let a = u("https://example.com/a");
        assert_eq!(
            reason(&f.admit_unfollowed(&a, 1, skip.clone())),
            Some("nofollow")
        );
        assert_eq!(f.waiting(), 0);
        // Another nofollow link: nothing new.
        assert_eq!(f.admit_unfollowed(&a, 1, skip), Admitted::Known(1));
        assert_eq!(f.admit(&a, 2), Admitted::Promoted(1));
        assert_eq!(f.admit(&a, 2), Admitted::Known(1));
        assert_eq!(f.pop().map(|q| q.id), Some(1));
    }

    #[test]
    fn restore_continues_ids_and_queue() {
        let mut f = Frontier::new(&u("https://example.com/"), FrontierConfig::default());
        f.restore(1, "https://example.com/", 0, false, false);
        f.restore(2, "https://example.com/a", 1, true, false);
        f.restore(5, "https://example.com/b", 1, false, false);
        assert_eq!(f.admit(&u("https://example.com/a"), 2), Admitted::Known(2));
        assert_eq!(f.admit(&u("https://example.com/c"), 2), Admitted::Queued(6));
        let order: Vec<u64> = std::iter::from_fn(|| f.pop()).map(|q| q.id).collect();
        assert_eq!(order, [2, 6]);
    }

    #[test]
    fn urls_the_frontier_refused_do_not_count_against_max_urls_on_restore() {
        let config = FrontierConfig {
            max_urls: 3,
            ..FrontierConfig::default()
        };
        let mut f = Frontier::new(&u("https://example.com/"), config);
        f.restore(1, "https://example.com/", 0, false, false);
        f.restore(2, "https://other.example/", 1, false, true);
        f.restore(3, "https://example.com/x?q=1", 1, false, true);
        f.restore(4, "https://example.com/a", 1, true, false);
        // Two counted (1 and 4): a third is queued, a fourth is over.
        assert_eq!(f.admit(&u("https://example.com/b"), 1), Admitted::Queued(5));
        assert!(matches!(
            f.admit(&u("https://example.com/c"), 1),
            Admitted::Skipped(
                6,
                Skip {
                    reason: "max-urls",
                    ..
                }
            )
        ));
    }
}
