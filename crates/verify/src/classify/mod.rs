//! User-Agent classification: which registered bot a User-Agent claims to
//! be, and what kind of client it is. The steps and the prefilter are
//! described in `classify.md`, the documentation of [`Classifier`].

mod explain;
mod frame;
mod json;
mod kind;
mod literals;
mod name;
mod prefilter;
mod public;
mod rules;
mod shape;
mod template;
mod tokens;
mod uap;
mod vocab;

use std::borrow::Cow;
use std::collections::HashMap;

use regex_syntax::hir::Hir;
use ua_parser::device;

use crate::Error;
use frame::{Frame, FrameKind, Marks};
use literals::Set;
use prefilter::{Prefilter, PrefilterBuilder};
use rules::Rules;
use template::{Mode, Reach};
use tokens::Tokens;
use uap::{FamilyKind, FamilyParsers, FamilySource};

pub use explain::Explanation;
pub use json::ClassificationJson;
pub use kind::BotKind;
use public::PublicList;
pub use shape::Shape;
pub use uap::{UAP_CORE_REGEXES, UAP_CORE_VERSION};
use vocab::Vocabulary;

/// The category of an unregistered crawler.
pub const CRAWLER_CATEGORY: &str = "crawler";

/// The category of an HTTP library or command-line tool.
pub const LIBRARY_CATEGORY: &str = "library";

/// The category of a security scanner, fuzzer or attack tool, and of a
/// User-Agent that carries injected code (kind [`BotKind::Security`]):
/// automated clients, but not crawlers.
pub const SCANNER_CATEGORY: &str = "scanner";

/// The device family uap-core gives crawlers.
const SPIDER: &str = "Spider";

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
    /// The name of an HTTP library or automation tool that uap-core does
    /// not know (botwarden's own list) is in the User-Agent.
    KnownClient,
    /// The User-Agent holds a URL (`http://`, `https://`, `www.`), as
    /// crawlers' do to say who runs them, and browsers' almost never do.
    ContactUrl,
    /// A word of botwarden's vocabulary of automated clients (`bot`,
    /// `crawl`, `monitor`, `preview`, `feed`, `scan`, `sqlmap`, `python`,
    /// …) stands in the User-Agent where its boundary allows.
    Vocabulary,
    /// The User-Agent holds an e-mail address, as crawlers' do to say who
    /// runs them.
    ContactEmail,
    /// The User-Agent holds a domain name without a scheme
    /// (`(example.com)`, `+example.com`, `bit.ly/x`).
    ContactDomain,
    /// The User-Agent has no browser's or app's shape (empty, one word,
    /// one `name/version`, `Mozilla/5.0 (compatible; Foo/1.0)`, …).
    Structure(Shape),
    /// A pattern of the public crawler-user-agents list (the index of the
    /// pattern among those botwarden uses) is in a User-Agent that no other
    /// step took for a bot's.
    PublicList(usize),
}

/// How a classification was reached, as `bots classify` and `POST
/// /api/v1/classify` report it: the step's name in lower case, its index
/// or shape in brackets (`uapfamily(50)`, `robotstoken`,
/// `structure(singleword)`).
impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Extra(i) => write!(f, "extra({i})"),
            Source::UapFamily(i) => write!(f, "uapfamily({i})"),
            Source::RobotsToken => f.write_str("robotstoken"),
            Source::UapLibrary(i) => write!(f, "uaplibrary({i})"),
            Source::UapCrawler(i) => write!(f, "uapcrawler({i})"),
            Source::SpiderDevice => f.write_str("spiderdevice"),
            Source::KnownClient => f.write_str("knownclient"),
            Source::ContactUrl => f.write_str("contacturl"),
            Source::Vocabulary => f.write_str("vocabulary"),
            Source::ContactEmail => f.write_str("contactemail"),
            Source::ContactDomain => f.write_str("contactdomain"),
            Source::Structure(shape) => write!(f, "structure({})", shape.name()),
            Source::PublicList(i) => write!(f, "publiclist({i})"),
        }
    }
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
    /// The registered bot's category, or [`CRAWLER_CATEGORY`],
    /// [`LIBRARY_CATEGORY`] or [`SCANNER_CATEGORY`] for an unregistered
    /// client, or `None` for a browser or app (or a registered bot without a
    /// category).
    pub category: Option<&'c str>,
    /// How it was recognised; `None` when it is not a bot.
    pub source: Option<Source>,
    /// The kind of an unregistered bot (always set for one, `None` for a
    /// registered bot and for a browser or app). Its category is
    /// [`LIBRARY_CATEGORY`] for [`BotKind::Library`], [`SCANNER_CATEGORY`]
    /// for [`BotKind::Security`] and [`CRAWLER_CATEGORY`] for every other
    /// kind.
    pub kind: Option<BotKind>,
}

impl Classification<'_> {
    /// A browser or app: no bot, no category.
    pub const NOT_A_BOT: Classification<'static> = Classification {
        bot: None,
        category: None,
        source: None,
        kind: None,
    };

    /// Whether the User-Agent is a bot's, registered or not (a crawler, a
    /// library or a scanner).
    pub fn is_bot(&self) -> bool {
        self.source.is_some()
    }
}

/// A classification without borrowed names, as cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Answer {
    bot: Option<u32>,
    kind: Option<BotKind>,
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
}

impl From<FamilyKind> for BotKind {
    fn from(kind: FamilyKind) -> Self {
        match kind {
            FamilyKind::Library => BotKind::Library,
            FamilyKind::Crawler => BotKind::Crawler,
        }
    }
}

#[doc = include_str!("classify.md")]
///
/// Built once, then shared: every method takes `&self` and the type is
/// `Send + Sync`.
pub struct Classifier {
    bots: Vec<ClassifierBot>,
    /// Bot names, exact, to indexes (the first bot of a name wins).
    by_name: HashMap<String, u32>,
    /// Bot names, ASCII-lower-cased, to indexes.
    by_lower_name: HashMap<String, u32>,
    extras: Option<FamilyParsers>,
    uap: FamilyParsers,
    tokens: Tokens,
    rules: Rules,
    vocab: Vocabulary,
    public: PublicList,
    /// Platforms, engines and phones' marks, for frames.
    marks: Marks,
    /// The extras' regexes, for explanations.
    extra_regexes: Vec<String>,
    /// The literals of the device parsers that give `Spider`; `None`
    /// when some has none (then every User-Agent is a candidate).
    spider_prefilter: Option<Prefilter>,
    /// The indexes of the device parsers that give `Spider`, in order.
    spider_parsers: Vec<usize>,
    /// uap-core's device parsers, each answering its own index as family.
    devices: device::Extractor<'static>,
    /// `None` when some step has no required literal.
    prefilter: Option<Prefilter>,
    cache: Option<quick_cache::sync::Cache<String, Answer>>,
}

impl std::fmt::Debug for Classifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Classifier")
            .field("bots", &self.bots.len())
            .field(
                "prefilter_literals",
                &self.prefilter.as_ref().map(Prefilter::literals),
            )
            .field("cache", &self.cache.as_ref().map(|c| c.capacity()))
            .finish_non_exhaustive()
    }
}

/// Parses a regex for the analysis, as `ua-parser` runs it.
///
/// `ua-parser` rewrites `\d` to `[0-9]` (and `\w`, `\D`, `\W` to ASCII
/// classes, and large bounded repetitions to unbounded ones) before
/// compiling. The analysis does the first too, where it is sure to agree (a
/// `d` after an odd run of backslashes), so that digits after a name count
/// (`Java/1.`); the others never give literals either way.
fn parse(regex: &str, case_insensitive: bool) -> Result<Hir, String> {
    regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .build()
        .parse(&ascii_digits(regex))
        .map_err(|e| e.to_string())
}

/// `regex` with each `\d` escape as `[0-9]`.
fn ascii_digits(regex: &str) -> Cow<'_, str> {
    if !regex.contains("\\d") {
        return Cow::Borrowed(regex);
    }
    let mut out = String::with_capacity(regex.len() + 8);
    let mut backslashes = 0;
    for c in regex.chars() {
        if c == 'd' && backslashes % 2 == 1 {
            out.pop();
            out.push_str("[0-9]");
        } else {
            out.push(c);
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
    }
    Cow::Owned(out)
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

/// Whether a family that uap-core read from `ua` is only a phone's model
/// (`Mozilla/5.0 (Linux; Android 7.0; M bot 60 Build/NRD90M) …`).
fn in_device(ua: &str, frame: &Frame, family: &str) -> bool {
    let Some(device) = &frame.device else {
        return false;
    };
    let family = family.trim().to_ascii_lowercase();
    !family.is_empty() && ua[device.clone()].to_ascii_lowercase().contains(&family)
}

/// Bots by name, as indices into the classifier's bots.
type ByName = HashMap<String, u32>;

/// The bots by name and by lower-case name (the first of each, nameless
/// bots left out), as indices into `bots`.
fn bot_names(bots: &[ClassifierBot]) -> Result<(ByName, ByName), Error> {
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
    Ok((by_name, by_lower_name))
}

/// An error in uap-core's regexes.
fn uap_error(reason: &str) -> Error {
    Error::Classifier {
        reason: format!("uap-core {UAP_CORE_VERSION}: {reason}"),
    }
}

/// The parsers of the extra User-Agent patterns (`None` without any), each
/// checked to name only registered bots (`by_lower_name`); what each needs
/// of a User-Agent goes to `prefilter`.
fn extra_parsers(
    extras: &[UaPattern],
    by_lower_name: &HashMap<String, u32>,
    prefilter: &mut PrefilterBuilder,
) -> Result<Option<FamilyParsers>, Error> {
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
        Some(FamilyParsers::new(extra_sources).map_err(
            |(index, reason)| match extras.get(index) {
                Some(e) => Error::InvalidUaPattern {
                    index,
                    regex: e.regex.clone(),
                    reason,
                },
                None => Error::Classifier {
                    reason: format!("extra User-Agent patterns: {reason}"),
                },
            },
        )?)
    };
    Ok(extras_parsers)
}

/// The parsers of uap-core; what each needs of a User-Agent to give a
/// family that answers (a registered bot of `by_lower_name`, a library, a
/// crawler) goes to `prefilter`.
fn uap_parsers(
    parsers: &[ua_parser::user_agent::Parser<'_>],
    by_lower_name: &HashMap<String, u32>,
    prefilter: &mut PrefilterBuilder,
) -> Result<FamilyParsers, Error> {
    let answers = |family: &[u8]| {
        let family = String::from_utf8_lossy(family);
        !family.is_empty()
            && (by_lower_name.contains_key(family.as_ref()) || uap::family_kind(&family).is_some())
    };
    // What a family must equal (registered bots, libraries, listed
    // crawlers) or contain (crawler words) to answer.
    let mut equal: Set = by_lower_name
        .keys()
        .map(|n| n.clone().into_bytes())
        .collect();
    for list in [uap::LIBRARY_FAMILIES, uap::CRAWLER_FAMILIES] {
        equal.extend(list.iter().map(|n| n.as_bytes().to_vec()));
    }
    let words: Vec<(&[u8], Mode)> = equal
        .iter()
        .map(|n| (n.as_slice(), Mode::Equal))
        .chain(
            uap::CRAWLER_WORDS
                .iter()
                .map(|w| (w.as_bytes(), Mode::Contains)),
        )
        .collect();
    let mut uap_sources = Vec::new();
    for (i, p) in parsers.iter().enumerate() {
        let hir = parse(&p.regex, false).map_err(|e| uap_error(&format!("parser {i}: {e}")))?;
        let groups = hir.properties().explicit_captures_len();
        let replacement = p.family_replacement.as_deref();
        let possible = families(&hir, replacement, groups)
            .map_err(|e| uap_error(&format!("parser {i}: {e}")))?;
        match possible {
            Some(set) => {
                let answering: Set = set.into_iter().filter(|f| answers(f)).collect();
                if answering.is_empty() {
                    // This parser never answers.
                } else if family_is_group(replacement, groups) {
                    // The family is the group's text, so in the
                    // User-Agent, beside what the regex needs.
                    let mut requirement = literals::required(&hir);
                    requirement.insert(0, answering);
                    prefilter.require(requirement);
                } else {
                    prefilter.require(literals::required(&hir));
                }
            }
            None => require_reached(&hir, replacement, &words, prefilter),
        }
        uap_sources.push(FamilySource {
            regex: &p.regex,
            replacement,
            groups,
        });
    }
    FamilyParsers::new(uap_sources).map_err(|(i, e)| uap_error(&format!("parser {i}: {e}")))
}

/// For a parser whose families cannot be listed: what it needs of a
/// User-Agent to give a family that equals or contains one of `words`,
/// added to `prefilter`.
fn require_reached(
    hir: &Hir,
    replacement: Option<&str>,
    words: &[(&[u8], Mode)],
    prefilter: &mut PrefilterBuilder,
) {
    let template = replacement.filter(|r| !r.is_empty()).unwrap_or("$1");
    let pieces = template::pieces(template, hir);
    let mut in_group = Set::new();
    let mut other = false;
    for &(word, mode) in words {
        match template::reach(&pieces, word, mode) {
            Reach::Never => {}
            Reach::InGroup => {
                in_group.insert(word.to_vec());
            }
            Reach::Other => other = true,
        }
    }
    if other {
        prefilter.require(literals::required(hir));
    } else if !in_group.is_empty() {
        let mut requirement = literals::required(hir);
        requirement.insert(0, in_group);
        prefilter.require(requirement);
    }
}

/// The device parsers: a prefilter of those that give `Spider` (what they
/// need also goes to `prefilter`), their indices, and an extractor that
/// answers the index of the first parser that matches.
fn spider_devices(
    parsers: Vec<device::Parser<'static>>,
    prefilter: &mut PrefilterBuilder,
) -> Result<(PrefilterBuilder, Vec<usize>, device::Extractor<'static>), Error> {
    let mut spider = PrefilterBuilder::new();
    let mut spider_parsers = Vec::new();
    let mut devices = device::Builder::new();
    for (i, p) in parsers.into_iter().enumerate() {
        let ci = p.regex_flag == Some(device::Flag::IgnoreCase);
        if p.device_replacement.as_deref() == Some(SPIDER) {
            let hir =
                parse(&p.regex, ci).map_err(|e| uap_error(&format!("device parser {i}: {e}")))?;
            let requirement = literals::required(&hir);
            spider.require(requirement.clone());
            prefilter.require(requirement);
            spider_parsers.push(i);
        }
        devices = devices
            .push(device::Parser {
                regex: p.regex,
                regex_flag: ci.then_some(device::Flag::IgnoreCase),
                device_replacement: Some(Cow::Owned(i.to_string())),
                ..Default::default()
            })
            .map_err(|e| uap_error(&format!("device parser {i}: {e}")))?;
    }
    let devices = devices
        .build()
        .map_err(|e| uap_error(&format!("device parsers: {e}")))?;
    Ok((spider, spider_parsers, devices))
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
        Self::build(bots, extras)
    }

    /// A classifier for a registry's bots and User-Agent extras.
    ///
    /// # Errors
    /// As [`Classifier::new`].
    pub fn for_registry(registry: &crate::registry::Registry) -> Result<Self, Error> {
        let bots: Vec<ClassifierBot> = registry
            .bots()
            .iter()
            .map(|b| ClassifierBot {
                name: b.name.clone(),
                category: b.category.map(|c| c.as_str().to_owned()),
                robots_tokens: b.robots_tokens.clone(),
            })
            .collect();
        let extras: Vec<UaPattern> = registry
            .extras()
            .iter()
            .map(|e| UaPattern {
                regex: e.regex.clone(),
                family_replacement: e.family_replacement.clone(),
            })
            .collect();
        Self::build(&bots, &extras)
    }

    fn build(bots: &[ClassifierBot], extras: &[UaPattern]) -> Result<Self, Error> {
        let bots = bots.to_vec();
        let (by_name, by_lower_name) = bot_names(&bots)?;
        let tokens = Tokens::new(bots.iter().enumerate().flat_map(|(i, b)| {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            b.robots_tokens.iter().map(move |t| (i, t.as_str()))
        }))
        .map_err(|e| Error::Classifier {
            reason: format!("robots tokens: {e}"),
        })?;
        let mut prefilter = PrefilterBuilder::new();
        let token_literals: Set = bots
            .iter()
            .flat_map(|b| &b.robots_tokens)
            .filter(|t| !t.is_empty())
            .map(|t| t.to_ascii_lowercase().into_bytes())
            .collect();
        if !token_literals.is_empty() {
            prefilter.require_one_of(token_literals);
        }
        prefilter.require_one_of(Rules::literals());
        prefilter.require_one_of(Vocabulary::literals());
        prefilter.require_one_of(PublicList::literals());

        // Extras.
        let extras_parsers = extra_parsers(extras, &by_lower_name, &mut prefilter)?;

        // uap-core.
        let regexes = uap::regexes().map_err(|e| uap_error(&e))?;
        let uap_parsers = uap_parsers(&regexes.user_agent_parsers, &by_lower_name, &mut prefilter)?;

        // Device parsers that give `Spider`; the device extractor answers
        // the index of the first parser that matches.
        let (spider, spider_parsers, devices) =
            spider_devices(regexes.device_parsers, &mut prefilter)?;
        let automaton = |e: aho_corasick::BuildError| Error::Classifier {
            reason: format!("prefilter: {e}"),
        };

        Ok(Self {
            by_name,
            by_lower_name,
            extras: extras_parsers,
            uap: uap_parsers,
            tokens,
            rules: Rules::new().map_err(automaton)?,
            vocab: Vocabulary::new().map_err(automaton)?,
            public: PublicList::new().map_err(automaton)?,
            marks: Marks::new().map_err(automaton)?,
            extra_regexes: extras.iter().map(|e| e.regex.clone()).collect(),
            spider_prefilter: spider.build().map_err(automaton)?,
            spider_parsers,
            devices,
            prefilter: prefilter.build().map_err(automaton)?,
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

    /// Whether the prefilter is on: `false` when some step has no literal
    /// (then every User-Agent runs every step).
    pub fn has_prefilter(&self) -> bool {
        self.prefilter.is_some()
    }

    /// Whether `ua` passes the prefilter, so that the classification runs
    /// its regexes (always `true` without a prefilter). A User-Agent that
    /// does not pass is not a bot.
    pub fn passes_prefilter(&self, ua: &str) -> bool {
        self.prefilter.as_ref().is_none_or(|p| p.is_match(ua))
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

    /// The name of the client a User-Agent speaks for, for one the
    /// registry does not know: the product token that carries its identity
    /// (the first product unless it is a browser's or a library's; else a
    /// product or comment entry holding a crawler word, after
    /// `compatible;`, or before a contact URL; else the contact URL's
    /// host), or else uap-core's family, or else the whole User-Agent when
    /// it is only words (`Chrome Privacy Preserving Prefetch Proxy`) or has
    /// no browser's shape (`Mozilla/4.0 (compatible;)`).
    /// `None` when none names anything. The rules are in `classify.md`.
    pub fn client_name<'s>(&'s self, ua: &'s str) -> Option<Cow<'s, str>> {
        if let Some(name) = name::product_name(ua) {
            return Some(Cow::Borrowed(name));
        }
        self.uap_family(ua)
            .filter(|f| !f.trim().is_empty())
            .or_else(|| name::whole_name(ua).map(Cow::Borrowed))
            .or_else(|| {
                // A User-Agent too bare for a browser is its own name.
                let bare = ua.trim();
                (bare.len() <= 64
                    && bare.bytes().any(|b| b.is_ascii_alphabetic())
                    && shape::not_a_browser(bare).is_some())
                .then_some(Cow::Borrowed(bare))
            })
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
        if prefilter && !self.passes_prefilter(ua) {
            // No step but the structure can answer.
            return self.structure(ua);
        }
        if let Some((i, family)) = self.extras.as_ref().and_then(|e| e.extract(ua)) {
            // Checked when built; a group that did not take part gives an
            // empty family, which names none.
            if let Some(bot) = self.registered(&family) {
                return Answer::bot(bot, Source::Extra(i));
            }
        }
        // The model first; the frame's kind only for the steps that weigh it.
        let mut frame = Frame::device_only(ua);
        let uap = self
            .uap
            .extract(ua)
            .filter(|(_, family)| !in_device(ua, &frame, family));
        if let Some((i, family)) = &uap
            && let Some(bot) = self.registered(family)
        {
            return Answer::bot(bot, Source::UapFamily(*i));
        }
        if let Some(bot) = self.token(ua, &frame) {
            return Answer::bot(bot, Source::RobotsToken);
        }
        if let Some((i, family)) = &uap {
            match uap::family_kind(family) {
                Some(FamilyKind::Library) => {
                    return self.unregistered(ua, &frame, BotKind::Library, Source::UapLibrary(*i));
                }
                Some(FamilyKind::Crawler) => {
                    return self.unregistered(ua, &frame, BotKind::Crawler, Source::UapCrawler(*i));
                }
                None => {}
            }
        }
        self.read_kind(ua, &mut frame);
        let framed = frame.kind.is_some();
        if !framed && self.spider_device(ua) {
            return self.unregistered(ua, &frame, BotKind::Crawler, Source::SpiderDevice);
        }
        if let Some((kind, at)) = self.rules.name_at(ua)
            && !frame.in_device(&at)
            && !(framed && kind == FamilyKind::Library)
        {
            return self.unregistered(ua, &frame, kind.into(), Source::KnownClient);
        }
        if self.vocab.marking(ua, &frame).is_some() {
            return self.unregistered(ua, &frame, BotKind::UnknownBot, Source::Vocabulary);
        }
        if self.rules.url_at(ua, &frame).is_some() {
            return self.unregistered(ua, &frame, BotKind::UnknownBot, Source::ContactUrl);
        }
        if rules::email(ua).is_some_and(|at| !frame.in_device(&at)) {
            return self.unregistered(ua, &frame, BotKind::UnknownBot, Source::ContactEmail);
        }
        if rules::domain(ua).is_some_and(|at| !frame.in_device(&at)) {
            return self.unregistered(ua, &frame, BotKind::UnknownBot, Source::ContactDomain);
        }
        let answer = self.structure(ua);
        if answer.source.is_some() || framed {
            // The public list's patterns name apps too (`Viber`, `Fluid`):
            // only a User-Agent without a browser's or app's frame counts.
            return answer;
        }
        match self.public.find(ua) {
            Some(i) => self.unregistered(ua, &frame, BotKind::UnknownBot, Source::PublicList(i)),
            None => Answer::NOT_A_BOT,
        }
    }

    /// The frame of `ua` ([`Frame`]); an app's frame only when its first
    /// product's name is not a bot's or a library's.
    fn frame(&self, ua: &str) -> Frame {
        let mut frame = Frame::device_only(ua);
        self.read_kind(ua, &mut frame);
        frame
    }

    /// Reads the kind of `ua`'s frame into `frame` ([`Classifier::frame`]).
    fn read_kind(&self, ua: &str, frame: &mut Frame) {
        self.marks.read_kind(ua, frame);
        if frame.kind == Some(FrameKind::App)
            && frame
                .first_name
                .as_ref()
                .is_some_and(|name| self.vocab.names_a_bot(&ua[name.clone()]))
        {
            frame.kind = None;
        }
    }

    /// The registered bot whose robots token `ua` holds, but in a phone's
    /// model.
    fn token(&self, ua: &str, frame: &Frame) -> Option<u32> {
        self.tokens
            .find_at(ua)
            .filter(|(_, at)| !frame.in_device(at))
            .map(|(bot, _)| bot)
    }

    /// The answer of the last step: a User-Agent without a browser's shape
    /// is an unregistered bot's.
    fn structure(&self, ua: &str) -> Answer {
        match shape::not_a_browser(ua) {
            Some(s) => self.unregistered(
                ua,
                &Frame::default(),
                BotKind::UnknownBot,
                Source::Structure(s),
            ),
            None => Answer::NOT_A_BOT,
        }
    }

    /// An unregistered bot found by `source`: a library stays one, any
    /// other takes the kind its words tell, or else `default`.
    fn unregistered(&self, ua: &str, frame: &Frame, default: BotKind, source: Source) -> Answer {
        let kind = match default {
            BotKind::Library => BotKind::Library,
            _ => self.vocab.kind(ua, frame).map_or(default, |(k, _)| k),
        };
        Answer {
            bot: None,
            kind: Some(kind),
            source: Some(source),
        }
    }

    /// Whether the first of uap-core's device parsers that matches `ua` is
    /// one that gives the family `Spider`.
    fn spider_device(&self, ua: &str) -> bool {
        if self
            .spider_prefilter
            .as_ref()
            .is_some_and(|p| !p.is_match(ua))
        {
            return false;
        }
        self.devices
            .extract(ua)
            .and_then(|d| d.device.parse::<usize>().ok())
            .is_some_and(|i| self.spider_parsers.binary_search(&i).is_ok())
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
                (None, Some(BotKind::Library)) => Some(LIBRARY_CATEGORY),
                (None, Some(BotKind::Security)) => Some(SCANNER_CATEGORY),
                (None, Some(_)) => Some(CRAWLER_CATEGORY),
                (None, None) => None,
            },
            source: answer.source,
            kind: if bot.is_some() { None } else { answer.kind },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_read_as_their_debug_names_in_lower_case() {
        let mut sources = vec![
            Source::Extra(1),
            Source::UapFamily(50),
            Source::RobotsToken,
            Source::UapLibrary(320),
            Source::UapCrawler(59),
            Source::SpiderDevice,
            Source::KnownClient,
            Source::ContactUrl,
            Source::Vocabulary,
            Source::ContactEmail,
            Source::ContactDomain,
            Source::PublicList(7),
        ];
        sources.extend(
            [
                Shape::Empty,
                Shape::NoLetter,
                Shape::SingleWord,
                Shape::LoneProduct,
                Shape::NoProduct,
                Shape::MozillaWithoutComment,
                Shape::EmptyComment,
                Shape::CompatibleNotBrowser,
                Shape::BareMozilla,
            ]
            .map(Source::Structure),
        );
        for source in sources {
            assert_eq!(source.to_string(), format!("{source:?}").to_lowercase());
        }
    }

    #[test]
    fn digit_escapes_become_ascii_classes() {
        assert_eq!(ascii_digits(r"Java/\d\.(\d+)"), r"Java/[0-9]\.([0-9]+)");
        assert_eq!(ascii_digits(r"[\d.]"), r"[[0-9].]");
        // An escaped backslash before `d` is not an escape of `d`.
        assert_eq!(ascii_digits(r"a\\d"), r"a\\d");
        assert_eq!(ascii_digits(r"a\\\d"), r"a\\[0-9]");
        assert!(matches!(ascii_digits("plain"), Cow::Borrowed("plain")));
    }

    /// The strings of the finite branches of an alternation.
    fn branches(hir: &Hir) -> Set {
        if let Some(set) = literals::exact(hir, FAMILY_LIMIT) {
            return set;
        }
        match hir.kind() {
            regex_syntax::hir::HirKind::Alternation(subs) => {
                subs.iter().flat_map(branches).collect()
            }
            regex_syntax::hir::HirKind::Capture(c) => branches(&c.sub),
            _ => Set::new(),
        }
    }

    /// Every family of the lists is one that the embedded uap-core can give,
    /// so that the lists do not go stale when the data changes.
    #[test]
    fn listed_families_are_uap_core_families() {
        let regexes = uap::regexes().unwrap();
        let mut known = Set::new();
        for p in &regexes.user_agent_parsers {
            let hir = parse(&p.regex, false).unwrap();
            let groups = hir.properties().explicit_captures_len();
            let replacement = p.family_replacement.as_deref();
            match families(&hir, replacement, groups) {
                Ok(Some(set)) => known.extend(set),
                _ if family_is_group(replacement, groups) => {
                    known.extend(branches(literals::capture(&hir, 1).unwrap()));
                }
                _ => {}
            }
        }
        // Names from branches too wide to list (`NewsGator[^/]{0,30}`):
        // the parsers, without case, give the name for `name/1.0`.
        let without_case = regexes
            .user_agent_parsers
            .iter()
            .try_fold(ua_parser::user_agent::Builder::new(), |b, p| {
                b.push(ua_parser::user_agent::Parser {
                    regex: format!("(?i){}", p.regex).into(),
                    family_replacement: p.family_replacement.clone(),
                    ..Default::default()
                })
            })
            .unwrap()
            .build()
            .unwrap();
        let missing: Vec<&str> = uap::CRAWLER_FAMILIES
            .iter()
            .chain(uap::LIBRARY_FAMILIES)
            .filter(|f| !known.contains(f.as_bytes()))
            .filter(|f| {
                let ua = format!("{f}/1.0");
                without_case
                    .extract(&ua)
                    .is_none_or(|v| !v.family.eq_ignore_ascii_case(f))
            })
            .copied()
            .collect();
        assert!(missing.is_empty(), "{missing:?}");
    }

    #[test]
    fn a_step_without_literals_turns_the_prefilter_off() {
        let bots = [ClassifierBot {
            name: "Anybot".into(),
            ..Default::default()
        }];
        let extras = [UaPattern {
            regex: r"^\w+$".into(),
            family_replacement: Some("Anybot".into()),
        }];
        let c = Classifier::new(&bots, &extras).unwrap();
        assert!(!c.has_prefilter());
        assert!(c.passes_prefilter("anything"));
        assert_eq!(c.classify("Hello").bot.map(|b| b.name), Some("Anybot"));
        assert!(Classifier::new(&bots, &[]).unwrap().has_prefilter());
    }
}
