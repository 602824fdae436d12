//! User-Agent classification: which registered bot a User-Agent claims to
//! be, and what kind of client it is.
//!
//! A [`Classifier`] is built from the registered bots ([`ClassifierBot`])
//! and extra User-Agent patterns ([`UaPattern`], placed before uap-core's
//! own). For one User-Agent it answers a [`Classification`]:
//!
//! - a registered bot: `bot` is set, `category` is that bot's category;
//! - an unregistered crawler: no `bot`, `category` is [`CRAWLER_CATEGORY`];
//! - an HTTP library or tool (curl, python-requests, Go-http-client, …): no
//!   `bot`, `category` is [`LIBRARY_CATEGORY`];
//! - anything else (browsers, apps): neither.
//!
//! The steps, in order, the first that answers winning:
//!
//! 1. the cache of recent User-Agents, when the classifier has one;
//! 2. the prefilter: a User-Agent that contains none of the literal strings
//!    that some later step needs in order to answer is not a bot;
//! 3. the extras: the first that matches gives a family (its
//!    `family_replacement` with `$1` substituted, or else capture group 1),
//!    which names a registered bot;
//! 4. uap-core's User-Agent parsers (release [`UAP_CORE_VERSION`],
//!    embedded): the family of the first that matches, if it is a
//!    registered bot's name — exactly, or else without ASCII case;
//! 5. a registered bot's robots token in the User-Agent, on a word
//!    boundary, the longest first (see below);
//! 6. uap-core's family recognised as an HTTP library or tool, or as a
//!    crawler (it holds `bot`, `spider`, `crawl`, `scrape`, `archiver`,
//!    `indexer` or `slurp`, or is one of the crawlers uap-core lists by
//!    name);
//! 7. uap-core's device family `Spider`;
//! 8. otherwise, not a bot.
//!
//! A robots token is found without regard to ASCII case where the bytes
//! around it are not ASCII letters or digits: `Googlebot` is found in
//! `Googlebot-Image/1.0` (and names Googlebot unless `Googlebot-Image` is
//! a token too: the longest token found wins, then the leftmost, then the
//! bot listed first) but not in `XGooglebot` or `Googlebot2`.
//!
//! # The prefilter
//!
//! Most User-Agents are browsers', and most of those contain nothing a bot
//! answer could come from. When the classifier is built, every step that
//! can answer is reduced to literal strings one of which a User-Agent must
//! contain for the step to answer: the required literals of each extra, of
//! each uap-core parser whose family can be a registered bot, a library or
//! a crawler, and of each device parser whose family can be `Spider`
//! (found by walking the regex's syntax tree), and the robots tokens. A
//! parser whose family is its capture group needs, to answer, that group
//! to hold a registered bot's name, a library's, a crawler's or a crawler
//! word, so those names are its literals. One Aho-Corasick automaton,
//! without ASCII case, searches them all. A User-Agent in which it finds
//! none is not a bot, without running any regex; this is exact by
//! construction (no answer is lost), which the tests check over every
//! User-Agent corpus. Should some step have no literal at all (an extra
//! like `(.+)bot`, say, has `bot`; one like `^(\w+)$` has none), there is
//! no prefilter and every User-Agent takes the full path.
//!
//! ```
//! use botwarden_verify::{Classifier, ClassifierBot, Source, CRAWLER_CATEGORY};
//!
//! let bots = [ClassifierBot {
//!     name: "Googlebot".into(),
//!     category: Some("search".into()),
//!     robots_tokens: vec!["Googlebot".into()],
//! }];
//! let classifier = Classifier::new(&bots, &[]).unwrap().with_cache(10_000);
//!
//! let c = classifier.classify("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)");
//! assert_eq!(c.bot.map(|b| b.name), Some("Googlebot"));
//! assert_eq!(c.category, Some("search"));
//!
//! let c = classifier.classify("Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)");
//! assert_eq!((c.bot, c.category), (None, Some(CRAWLER_CATEGORY)));
//!
//! let c = classifier.classify(
//!     "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
//!      Chrome/120.0.0.0 Safari/537.36",
//! );
//! assert!(!c.is_bot());
//! ```

mod literals;
mod template;
mod tokens;
mod uap;

use std::borrow::Cow;
use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex_syntax::hir::Hir;
use ua_parser::device;

use crate::Error;
use literals::Set;
use template::{Mode, Reach, Syntax};
use tokens::Tokens;
use uap::{FamilyKind, FamilyParsers, FamilySource};

pub use uap::{UAP_CORE_REGEXES, UAP_CORE_VERSION};

/// The category of an unregistered crawler.
pub const CRAWLER_CATEGORY: &str = "crawler";

/// The category of an HTTP library or command-line tool.
pub const LIBRARY_CATEGORY: &str = "library";

/// User-Agents longer than this many bytes are classified but not cached.
pub const MAX_CACHED_LEN: usize = 1024;

/// A registered bot, as far as classification needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassifierBot {
    /// The bot's name, which uap-core's family for it should equal
    /// (`Googlebot`, `bingbot`).
    pub name: String,
    /// The bot's category (`search`, `ai-training`, …), if the registry
    /// gives one.
    pub category: Option<String>,
    /// The product tokens the bot obeys in robots.txt, also looked for in
    /// User-Agents.
    pub robots_tokens: Vec<String>,
}

/// An extra User-Agent parser, in the shape of a uap-core
/// `user_agent_parsers` entry. Its family must name a registered bot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UaPattern {
    /// The regex, searched anywhere in the User-Agent.
    pub regex: String,
    /// The family; `$1` is replaced by capture group 1. Without it, the
    /// family is capture group 1.
    pub family_replacement: Option<String>,
}

/// How a classification was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Source {
    /// The extra User-Agent pattern of this index gave the bot's family.
    Extra(usize),
    /// uap-core's User-Agent parser of this index (in `user_agent_parsers`)
    /// gave the bot's family.
    UapFamily(usize),
    /// The bot's robots token is in the User-Agent.
    RobotsToken,
    /// uap-core's User-Agent parser of this index gave the family of an
    /// HTTP library or tool.
    UapLibrary(usize),
    /// uap-core's User-Agent parser of this index gave a crawler's family.
    UapCrawler(usize),
    /// uap-core's device parsers gave the device family `Spider`.
    SpiderDevice,
}

/// The registered bot a User-Agent claims to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BotRef<'c> {
    /// Its index in the bots given to [`Classifier::new`].
    pub index: usize,
    /// Its name.
    pub name: &'c str,
}

/// What a User-Agent claims to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Classification<'c> {
    /// The registered bot, if it names one.
    pub bot: Option<BotRef<'c>>,
    /// The registered bot's category, or [`CRAWLER_CATEGORY`] or
    /// [`LIBRARY_CATEGORY`] for an unregistered client, or `None` for a
    /// browser or app (or a registered bot without a category).
    pub category: Option<&'c str>,
    /// How it was recognised; `None` when it is not a bot.
    pub source: Option<Source>,
}

impl Classification<'_> {
    /// A browser or app: no bot, no category.
    pub const NOT_A_BOT: Classification<'static> = Classification {
        bot: None,
        category: None,
        source: None,
    };

    /// Whether the User-Agent is a bot's, registered or not (a crawler or a
    /// library).
    pub fn is_bot(&self) -> bool {
        self.source.is_some()
    }
}

/// A classification without borrowed names, as cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Answer {
    bot: Option<u32>,
    kind: Option<FamilyKind>,
    source: Option<Source>,
}

impl Answer {
    const NOT_A_BOT: Self = Self {
        bot: None,
        kind: None,
        source: None,
    };

    fn bot(bot: u32, source: Source) -> Self {
        Self {
            bot: Some(bot),
            kind: None,
            source: Some(source),
        }
    }

    fn unregistered(kind: FamilyKind, source: Source) -> Self {
        Self {
            bot: None,
            kind: Some(kind),
            source: Some(source),
        }
    }
}

/// Classifies User-Agents; see the [module documentation](self) for the
/// steps. Built once, then shared: every method takes `&self` and the type
/// is `Send + Sync`.
pub struct Classifier {
    bots: Vec<ClassifierBot>,
    /// Bot names, exact, to indexes (the first bot of a name wins).
    by_name: HashMap<String, u32>,
    /// Bot names, ASCII-lower-cased, to indexes.
    by_lower_name: HashMap<String, u32>,
    extras: Option<FamilyParsers>,
    uap: FamilyParsers,
    tokens: Tokens,
    /// The literals of the device parsers that can give `Spider`; `None`
    /// when some has none (then every User-Agent is a candidate).
    spider_prefilter: Option<AhoCorasick>,
    devices: device::Extractor<'static>,
    /// `None` when some step has no required literal.
    prefilter: Option<AhoCorasick>,
    cache: Option<quick_cache::sync::Cache<String, Answer>>,
}

impl std::fmt::Debug for Classifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Classifier")
            .field("bots", &self.bots.len())
            .field(
                "prefilter_literals",
                &self.prefilter.as_ref().map(AhoCorasick::patterns_len),
            )
            .field("cache", &self.cache.as_ref().map(|c| c.capacity()))
            .finish_non_exhaustive()
    }
}

/// Literal sets that a step needs; `None` once one step has none.
struct Literals(Option<Vec<Vec<u8>>>);

impl Literals {
    fn new() -> Self {
        Self(Some(Vec::new()))
    }

    fn require(&mut self, set: Option<Set>) {
        match (self.0.as_mut(), set) {
            (Some(all), Some(set)) if !set.is_empty() && !set.contains(&Vec::new()) => {
                all.extend(set);
            }
            _ => self.0 = None,
        }
    }

    /// One automaton for all of them, without literals that contain a
    /// shorter one (`googlebot` once `bot` is there).
    fn build(self) -> Result<Option<AhoCorasick>, Error> {
        let Some(mut all) = self.0 else {
            return Ok(None);
        };
        all.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        all.dedup();
        let mut kept: Vec<Vec<u8>> = Vec::new();
        for lit in all {
            if !kept
                .iter()
                .any(|k| lit.windows(k.len()).any(|w| w == k.as_slice()))
            {
                kept.push(lit);
            }
        }
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&kept)
            .map_err(|e| Error::Classifier {
                reason: format!("prefilter: {e}"),
            })?;
        Ok(Some(ac))
    }
}

/// Parses a regex as `ua-parser` does (before its own rewriting, which
/// keeps what the analysis reads).
fn parse(regex: &str, case_insensitive: bool) -> Result<Hir, String> {
    regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .build()
        .parse(regex)
        .map_err(|e| e.to_string())
}

/// How many strings a capture group may match for its family to be
/// enumerated.
const FAMILY_LIMIT: usize = 4096;

/// The families (lower case) a User-Agent parser can give, or `None` when
/// they are too many to list.
fn families(hir: &Hir, replacement: Option<&str>, groups: usize) -> Result<Option<Set>, String> {
    let group = || literals::capture(hir, 1).and_then(|g| literals::exact(g, FAMILY_LIMIT));
    match replacement.filter(|r| !r.is_empty()) {
        Some(r) if r.contains("$1") => {
            if groups < 1 {
                return Err("family_replacement uses $1 but the regex has no capture group".into());
            }
            let r = r.to_ascii_lowercase();
            Ok(group().map(|set| {
                set.iter()
                    .map(|g| r.replace("$1", &String::from_utf8_lossy(g)).into_bytes())
                    .collect()
            }))
        }
        Some(r) => Ok(Some(Set::from([r.to_ascii_lowercase().into_bytes()]))),
        None if groups >= 1 => Ok(group()),
        None => Ok(Some(Set::from([Vec::new()]))),
    }
}

/// Whether the family of a parser is its capture group 1, as is.
fn family_is_group(replacement: Option<&str>, groups: usize) -> bool {
    match replacement.filter(|r| !r.is_empty()) {
        Some(r) => r == "$1",
        None => groups >= 1,
    }
}

/// Whether a device replacement template substitutes groups (`$1`…`$9`).
fn has_substitution(s: &str) -> bool {
    s.as_bytes()
        .windows(2)
        .any(|w| w[0] == b'$' && w[1].is_ascii_digit())
}

impl Classifier {
    /// Builds a classifier for these bots, with these extra patterns tried
    /// before uap-core's parsers.
    ///
    /// # Errors
    ///
    /// An extra whose regex is invalid ([`Error::InvalidUaPattern`]), or
    /// whose family does not name one of `bots` — or cannot be listed to
    /// check that it does, as with a capture group like `([a-z]+bot)`
    /// ([`Error::UaPatternNamesNoBot`], [`Error::InvalidUaPattern`]).
    pub fn new(bots: &[ClassifierBot], extras: &[UaPattern]) -> Result<Self, Error> {
        let bots = bots.to_vec();
        let mut by_name = HashMap::new();
        let mut by_lower_name = HashMap::new();
        for (i, b) in bots.iter().enumerate() {
            if b.name.is_empty() {
                continue;
            }
            let i = u32::try_from(i).map_err(|_| Error::Classifier {
                reason: "too many bots".into(),
            })?;
            by_name.entry(b.name.clone()).or_insert(i);
            by_lower_name
                .entry(b.name.to_ascii_lowercase())
                .or_insert(i);
        }
        let tokens = Tokens::new(bots.iter().enumerate().flat_map(|(i, b)| {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            b.robots_tokens.iter().map(move |t| (i, t.as_str()))
        }))
        .map_err(|e| Error::Classifier {
            reason: format!("robots tokens: {e}"),
        })?;
        let mut prefilter = Literals::new();
        let token_literals: Set = bots
            .iter()
            .flat_map(|b| &b.robots_tokens)
            .filter(|t| !t.is_empty())
            .map(|t| t.to_ascii_lowercase().into_bytes())
            .collect();
        if !token_literals.is_empty() {
            prefilter.require(Some(token_literals));
        }
        let answers = |family: &[u8]| {
            let family = String::from_utf8_lossy(family);
            !family.is_empty()
                && (by_lower_name.contains_key(family.as_ref())
                    || uap::family_kind(&family).is_some())
        };

        // Extras.
        let mut extra_sources = Vec::new();
        for (index, e) in extras.iter().enumerate() {
            let invalid = |reason: String| Error::InvalidUaPattern {
                index,
                regex: e.regex.clone(),
                reason,
            };
            let hir = parse(&e.regex, false).map_err(invalid)?;
            let groups = hir.properties().explicit_captures_len();
            let replacement = e.family_replacement.as_deref();
            let Some(names) = families(&hir, replacement, groups).map_err(invalid)? else {
                return Err(invalid(
                    "capture group 1 can match too many strings to check that each names a \
                     registered bot; give a family_replacement"
                        .into(),
                ));
            };
            for name in names {
                let name = String::from_utf8_lossy(&name).into_owned();
                if !by_lower_name.contains_key(&name) {
                    return Err(Error::UaPatternNamesNoBot {
                        index,
                        regex: e.regex.clone(),
                        family: name,
                    });
                }
            }
            prefilter.require(literals::required(&hir));
            extra_sources.push(FamilySource {
                regex: &e.regex,
                replacement,
                groups,
            });
        }
        let extras_parsers = if extra_sources.is_empty() {
            None
        } else {
            Some(FamilyParsers::new(extra_sources).map_err(|(index, reason)| {
                match extras.get(index) {
                    Some(e) => Error::InvalidUaPattern {
                        index,
                        regex: e.regex.clone(),
                        reason,
                    },
                    None => Error::Classifier {
                        reason: format!("extra User-Agent patterns: {reason}"),
                    },
                }
            })?)
        };

        // uap-core.
        let uap_error = |reason: String| Error::Classifier {
            reason: format!("uap-core {UAP_CORE_VERSION}: {reason}"),
        };
        let regexes = uap::regexes().map_err(uap_error)?;
        // What a family must equal (registered bots, libraries, listed
        // crawlers) or contain (crawler words) to answer.
        let mut equal: Set = by_lower_name.keys().map(|n| n.clone().into_bytes()).collect();
        for list in [uap::LIBRARY_FAMILIES, uap::CRAWLER_FAMILIES] {
            equal.extend(list.iter().map(|n| n.as_bytes().to_vec()));
        }
        let words: Vec<(&[u8], Mode)> = equal
            .iter()
            .map(|n| (n.as_slice(), Mode::Equal))
            .chain(uap::CRAWLER_WORDS.iter().map(|w| (w.as_bytes(), Mode::Contains)))
            .collect();
        let mut uap_sources = Vec::new();
        for (i, p) in regexes.user_agent_parsers.iter().enumerate() {
            let hir = parse(&p.regex, false).map_err(|e| uap_error(format!("parser {i}: {e}")))?;
            let groups = hir.properties().explicit_captures_len();
            let replacement = p.family_replacement.as_deref();
            let possible = families(&hir, replacement, groups)
                .map_err(|e| uap_error(format!("parser {i}: {e}")))?;
            match possible {
                Some(set) => {
                    let answering: Set = set.into_iter().filter(|f| answers(f)).collect();
                    if answering.is_empty() {
                        // This parser never answers.
                    } else if family_is_group(replacement, groups) {
                        // The family is the group's text, so in the User-Agent.
                        prefilter.require(Some(answering));
                    } else {
                        prefilter.require(literals::required(&hir));
                    }
                }
                None => {
                    let template = replacement.filter(|r| !r.is_empty()).unwrap_or("$1");
                    let pieces = template::pieces(template, &hir, Syntax::FamilyDollarOne);
                    let mut in_group = Set::new();
                    let mut other = false;
                    for &(word, mode) in &words {
                        match template::reach(&pieces, word, mode) {
                            Reach::Never => {}
                            Reach::InGroup => {
                                in_group.insert(word.to_vec());
                            }
                            Reach::Other => other = true,
                        }
                    }
                    if other {
                        prefilter.require(literals::required(&hir));
                    } else if !in_group.is_empty() {
                        prefilter.require(Some(in_group));
                    }
                }
            }
            uap_sources.push(FamilySource {
                regex: &p.regex,
                replacement,
                groups,
            });
        }
        let uap_parsers = FamilyParsers::new(uap_sources)
            .map_err(|(i, e)| uap_error(format!("parser {i}: {e}")))?;

        // Device parsers that can give `Spider`.
        let mut spider = Literals::new();
        for (i, p) in regexes.device_parsers.iter().enumerate() {
            let ci = p.regex_flag == Some(device::Flag::IgnoreCase);
            let hir = parse(&p.regex, ci).map_err(|e| uap_error(format!("device parser {i}: {e}")))?;
            let groups = hir.properties().explicit_captures_len();
            // The family: the replacement (a template when it refers to a
            // group), or else group 1; then trimmed.
            let template = match p.device_replacement.as_deref().filter(|r| !r.trim().is_empty()) {
                Some(r) if !has_substitution(r) => {
                    if r == "Spider" {
                        let set = literals::required(&hir);
                        spider.require(set.clone());
                        prefilter.require(set);
                    }
                    continue;
                }
                Some(r) => r,
                None if groups >= 1 => "$1",
                None => continue,
            };
            let pieces = template::pieces(template, &hir, Syntax::Expand);
            let needs = match template::reach(&pieces, b"spider", Mode::EqualTrimmed) {
                Reach::Never => None,
                Reach::InGroup => Some(Some(Set::from([b"spider".to_vec()]))),
                Reach::Other => Some(literals::required(&hir)),
            };
            if let Some(set) = needs {
                spider.require(set.clone());
                prefilter.require(set);
            }
        }
        let devices = regexes
            .device_parsers
            .into_iter()
            .try_fold(device::Builder::new(), device::Builder::push)
            .map_err(|e| uap_error(format!("device parsers: {e}")))?
            .build()
            .map_err(|e| uap_error(format!("device parsers: {e}")))?;

        Ok(Self {
            by_name,
            by_lower_name,
            extras: extras_parsers,
            uap: uap_parsers,
            tokens,
            spider_prefilter: spider.build()?,
            devices,
            prefilter: prefilter.build()?,
            cache: None,
            bots,
        })
    }

    /// The same classifier with a cache of the last `capacity` distinct
    /// User-Agents (at most [`MAX_CACHED_LEN`] bytes each), shared by all
    /// threads.
    #[must_use]
    pub fn with_cache(mut self, capacity: usize) -> Self {
        self.cache = (capacity > 0).then(|| quick_cache::sync::Cache::new(capacity));
        self
    }

    /// The bots given to [`Classifier::new`].
    pub fn bots(&self) -> &[ClassifierBot] {
        &self.bots
    }

    /// Debugging aid: the prefilter literals found in `ua`.
    pub fn prefilter_hits(&self, ua: &str) -> Vec<String> {
        let Some(p) = &self.prefilter else { return vec![] };
        p.find_overlapping_iter(ua).map(|m| ua[m.start()..m.end()].to_owned()).collect()
    }

    /// Whether the prefilter is on: `false` when some step has no literal
    /// (then every User-Agent runs every step).
    pub fn has_prefilter(&self) -> bool {
        self.prefilter.is_some()
    }

    /// Classifies a User-Agent (through the cache, if there is one).
    pub fn classify(&self, ua: &str) -> Classification<'_> {
        let Some(cache) = &self.cache else {
            return self.resolve(self.decide(ua, true));
        };
        if let Some(answer) = cache.get(ua) {
            return self.resolve(answer);
        }
        let answer = self.decide(ua, true);
        if ua.len() <= MAX_CACHED_LEN {
            cache.insert(ua.to_owned(), answer);
        }
        self.resolve(answer)
    }

    /// Classifies a User-Agent without the cache.
    pub fn classify_uncached(&self, ua: &str) -> Classification<'_> {
        self.resolve(self.decide(ua, true))
    }

    /// Classifies a User-Agent running every step, without the cache or the
    /// prefilter. The answer is always that of [`Classifier::classify`];
    /// this is slower, and there to check that.
    pub fn classify_exhaustively(&self, ua: &str) -> Classification<'_> {
        self.resolve(self.decide(ua, false))
    }

    /// The family uap-core's User-Agent parsers give (without the extras),
    /// or `None` when none matches (uap-core's `Other`).
    pub fn uap_family<'s>(&'s self, ua: &'s str) -> Option<Cow<'s, str>> {
        self.uap.extract(ua).map(|(_, family)| family)
    }

    /// The registered bot of this family: by exact name, or else without
    /// ASCII case.
    fn registered(&self, family: &str) -> Option<u32> {
        if family.is_empty() {
            return None;
        }
        self.by_name
            .get(family)
            .or_else(|| self.by_lower_name.get(&family.to_ascii_lowercase()))
            .copied()
    }

    fn decide(&self, ua: &str, prefilter: bool) -> Answer {
        if prefilter
            && let Some(p) = &self.prefilter
            && !p.is_match(ua)
        {
            return Answer::NOT_A_BOT;
        }
        if let Some((i, family)) = self.extras.as_ref().and_then(|e| e.extract(ua)) {
            // Checked when built; a group that did not take part gives an
            // empty family, which names none.
            if let Some(bot) = self.registered(&family) {
                return Answer::bot(bot, Source::Extra(i));
            }
        }
        let uap = self.uap.extract(ua);
        if let Some((i, family)) = &uap
            && let Some(bot) = self.registered(family)
        {
            return Answer::bot(bot, Source::UapFamily(*i));
        }
        if let Some(bot) = self.tokens.find(ua) {
            return Answer::bot(bot, Source::RobotsToken);
        }
        if let Some((i, family)) = &uap {
            match uap::family_kind(family) {
                Some(FamilyKind::Library) => {
                    return Answer::unregistered(FamilyKind::Library, Source::UapLibrary(*i));
                }
                Some(FamilyKind::Crawler) => {
                    return Answer::unregistered(FamilyKind::Crawler, Source::UapCrawler(*i));
                }
                None => {}
            }
        }
        let candidate = self.spider_prefilter.as_ref().is_none_or(|p| p.is_match(ua));
        if candidate && self.devices.extract(ua).is_some_and(|d| d.device == "Spider") {
            return Answer::unregistered(FamilyKind::Crawler, Source::SpiderDevice);
        }
        Answer::NOT_A_BOT
    }

    fn resolve(&self, answer: Answer) -> Classification<'_> {
        let bot = answer
            .bot
            .and_then(|i| Some((i as usize, self.bots.get(i as usize)?)));
        Classification {
            bot: bot.map(|(index, b)| BotRef {
                index,
                name: &b.name,
            }),
            category: match (bot, answer.kind) {
                (Some((_, b)), _) => b.category.as_deref(),
                (None, Some(FamilyKind::Crawler)) => Some(CRAWLER_CATEGORY),
                (None, Some(FamilyKind::Library)) => Some(LIBRARY_CATEGORY),
                (None, None) => None,
            },
            source: answer.source,
        }
    }
}
