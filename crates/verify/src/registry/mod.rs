//! The bot registry: which crawlers exist, how each is recognised and how
//! its requests are verified.
//!
//! Files are in the bottica format, read as is (`bots:` with `name`,
//! `fcrdns_hosts`, `ip_list`, `ip_ranges`, `cidr_list`), with optional
//! extensions (`category`, `operator`, `url`, `robots_tokens`, `rdns_masks`,
//! `ranges_url`, `ranges_format`, `ranges_refresh`, `signature_agents`,
//! `signature_keys`, `provenance`).
//! `uap_extras.yaml` files add User-Agent
//! patterns in uap-core's shape. The format is described in
//! `crates/verify/docs/registry.md` and by the JSON schema in
//! `crates/verify/schema/registry.schema.json`.
//!
//! A [`RegistryBuilder`] reads any number of files in order; a later file's
//! entry replaces an earlier entry of the same name. Every problem is kept
//! as a [`Problem`] with the file, the path in it (`bots[3].ip_ranges[0].min`)
//! and the line, so that one run reports them all.

mod describe;
mod emit;
mod load;
mod provenance;
mod ranges;
mod snapshot;
mod store;

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

use crate::ipset::Cidr;
pub use crate::yaml::Position;
pub use describe::BotDescription;
pub use provenance::{Provenance, ProvenanceOf, ProvenanceSource, RefreshPeriod};
pub use ranges::{Feed, PublishedRanges};
pub use store::{FeedStore, MAX_FEED_BYTES};

/// What kind of crawler a bot is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Category {
    /// A search engine's crawler.
    Search,
    /// Collects content to train AI models.
    AiTraining,
    /// Indexes content for an AI search or answer engine.
    AiSearch,
    /// Fetches a page because a user asked an AI assistant to.
    AiUser,
    /// SEO and backlink analysis.
    Seo,
    /// A social network's crawler.
    Social,
    /// Fetches a page to show a link preview.
    Preview,
    /// Uptime and performance monitoring.
    Monitor,
    /// Feed readers and aggregators.
    Feed,
    /// Web archiving.
    Archive,
    /// Advertising: ad quality and landing-page checks.
    Advertising,
    /// Research crawlers.
    Academic,
    /// Site tools run by a person (validators, audit tools).
    Tool,
    /// HTTP libraries and command-line clients.
    Library,
    /// A crawler of any other kind.
    Other,
}

impl Category {
    /// Every category, in the order of the documentation.
    pub const ALL: [Category; 15] = [
        Category::Search,
        Category::AiTraining,
        Category::AiSearch,
        Category::AiUser,
        Category::Seo,
        Category::Social,
        Category::Preview,
        Category::Monitor,
        Category::Feed,
        Category::Archive,
        Category::Advertising,
        Category::Academic,
        Category::Tool,
        Category::Library,
        Category::Other,
    ];

    /// The name used in files and output (`ai-training`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Search => "search",
            Category::AiTraining => "ai-training",
            Category::AiSearch => "ai-search",
            Category::AiUser => "ai-user",
            Category::Seo => "seo",
            Category::Social => "social",
            Category::Preview => "preview",
            Category::Monitor => "monitor",
            Category::Feed => "feed",
            Category::Archive => "archive",
            Category::Advertising => "advertising",
            Category::Academic => "academic",
            Category::Tool => "tool",
            Category::Library => "library",
            Category::Other => "other",
        }
    }

    /// The category of that name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// Where the bots of this category fall in the three kinds of AI
    /// traffic that Cloudflare lets site owners allow or block (Search,
    /// Agent, Training); `None` for the categories Cloudflare files under
    /// its other behaviours (SEO, link previews, feed fetching, monitoring,
    /// ads verification, …). The table, with the reasons, is in
    /// `docs/registry.md`.
    #[must_use]
    pub fn cloudflare_class(self) -> Option<CloudflareClass> {
        match self {
            Category::Search | Category::AiSearch => Some(CloudflareClass::Search),
            Category::AiUser => Some(CloudflareClass::Agent),
            Category::AiTraining => Some(CloudflareClass::Training),
            Category::Seo
            | Category::Social
            | Category::Preview
            | Category::Monitor
            | Category::Feed
            | Category::Archive
            | Category::Advertising
            | Category::Academic
            | Category::Tool
            | Category::Library
            | Category::Other => None,
        }
    }
}

/// The three behaviours of AI-era traffic that Cloudflare's site owners
/// allow or block one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CloudflareClass {
    /// Collects or indexes content to answer questions about it later.
    Search,
    /// Acts in real time on a person's behalf.
    Agent,
    /// Takes content to train or fine-tune a model.
    Training,
}

impl CloudflareClass {
    /// `Search`, `Agent` or `Training`, as Cloudflare writes them.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CloudflareClass::Search => "Search",
            CloudflareClass::Agent => "Agent",
            CloudflareClass::Training => "Training",
        }
    }
}

impl fmt::Display for CloudflareClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The format of a published range feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RangesFormat {
    /// Google's `{"creationTime": …, "prefixes": [{"ipv4Prefix": …} | {"ipv6Prefix": …}]}`,
    /// which Bing, OpenAI, Apple, Perplexity and others use too.
    #[default]
    GoogleJson,
}

impl RangesFormat {
    /// The name used in files (`google-json`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RangesFormat::GoogleJson => "google-json",
        }
    }
}

/// An inclusive range of addresses of one family, `min <= max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpRange {
    /// The first address.
    pub min: IpAddr,
    /// The last address.
    pub max: IpAddr,
}

/// Where an entry was read: the file's name and the line of its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file, as it was named to the builder.
    pub file: Arc<str>,
    /// Where in it.
    pub at: Position,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.at.line, self.at.col)
    }
}

/// One registered bot.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Bot {
    /// Its unique name; the uap-core User-Agent family where there is one.
    pub name: String,
    /// Host names its reverse DNS must end with (on a label boundary), for
    /// forward-confirmed reverse DNS. `Some([])`: FCrDNS with any host name.
    pub fcrdns_hosts: Option<Vec<String>>,
    /// Addresses it may come from.
    pub ip_list: Option<Vec<IpAddr>>,
    /// Inclusive ranges it may come from.
    pub ip_ranges: Option<Vec<IpRange>>,
    /// CIDR blocks it may come from.
    pub cidr_list: Option<Vec<Cidr>>,
    /// What kind of crawler it is.
    pub category: Option<Category>,
    /// Who runs it.
    pub operator: Option<String>,
    /// The operator's page about it.
    pub url: Option<String>,
    /// The product tokens it obeys in robots.txt.
    pub robots_tokens: Vec<String>,
    /// Full-name patterns its reverse DNS names must match (`*` = any run
    /// of characters other than `.`), refining `fcrdns_hosts`.
    pub rdns_masks: Vec<String>,
    /// Where the operator publishes its address ranges.
    pub ranges_url: Option<String>,
    /// The format of that feed.
    pub ranges_format: RangesFormat,
    /// How often the operator says it refreshes that feed; `None` when no
    /// period is stated ([`RefreshPeriod::DEFAULT`] applies).
    pub ranges_refresh: Option<RefreshPeriod>,
    /// Its Web Bot Auth signature agents: origins (whose well-known key
    /// directory holds its keys) or key directory URLs. A request signed
    /// with a key from one of them is this bot's.
    pub signature_agents: Vec<String>,
    /// Ed25519 public keys it signs with (the JWK `x`, base64url), for a
    /// bot whose keys are listed rather than published.
    pub signature_keys: Vec<String>,
    /// Whether it runs the scripts of the pages it fetches (renders them,
    /// as Googlebot does) or reads their HTML only (as GPTBot does):
    /// `None` when no source says. What `audit` shows per robot after
    /// `crawl --render`.
    pub renders: Option<bool>,
    /// Where the entry and each of its verification methods come from,
    /// and when each was last confirmed.
    pub provenance: Vec<Provenance>,
    /// Where the entry was read.
    pub origin: Origin,
}

impl Bot {
    /// A bot with only a name (no verifier), as if read from `origin`.
    #[must_use]
    pub fn new(name: impl Into<String>, origin: Origin) -> Bot {
        Bot {
            name: name.into(),
            fcrdns_hosts: None,
            ip_list: None,
            ip_ranges: None,
            cidr_list: None,
            category: None,
            operator: None,
            url: None,
            robots_tokens: Vec::new(),
            rdns_masks: Vec::new(),
            ranges_url: None,
            ranges_format: RangesFormat::GoogleJson,
            ranges_refresh: None,
            signature_agents: Vec::new(),
            signature_keys: Vec::new(),
            renders: None,
            provenance: Vec::new(),
            origin,
        }
    }

    /// Whether it has any of the bottica verifiers (all of which must pass).
    #[must_use]
    pub fn has_verifier(&self) -> bool {
        self.fcrdns_hosts.is_some()
            || self.ip_list.is_some()
            || self.ip_ranges.is_some()
            || self.cidr_list.is_some()
    }

    /// Whether anything can verify it: a bottica verifier or published ranges.
    #[must_use]
    pub fn is_verifiable(&self) -> bool {
        self.has_verifier() || self.ranges_url.is_some()
    }

    /// The verification methods it has, as the subjects of provenance
    /// records name them, in the format's order (`rdns_masks` refines
    /// `fcrdns_hosts` and is listed with it).
    #[must_use]
    pub fn methods(&self) -> Vec<ProvenanceOf> {
        let mut out = Vec::new();
        let mut has = |yes: bool, of| {
            if yes {
                out.push(of);
            }
        };
        has(self.fcrdns_hosts.is_some(), ProvenanceOf::FcrdnsHosts);
        has(!self.rdns_masks.is_empty(), ProvenanceOf::RdnsMasks);
        has(self.ip_list.is_some(), ProvenanceOf::IpList);
        has(self.ip_ranges.is_some(), ProvenanceOf::IpRanges);
        has(self.cidr_list.is_some(), ProvenanceOf::CidrList);
        has(self.ranges_url.is_some(), ProvenanceOf::RangesUrl);
        has(
            !self.signature_agents.is_empty(),
            ProvenanceOf::SignatureAgents,
        );
        has(!self.signature_keys.is_empty(), ProvenanceOf::SignatureKeys);
        out
    }

    /// The provenance records about `of`.
    pub fn provenance_of(&self, of: ProvenanceOf) -> impl Iterator<Item = &Provenance> {
        self.provenance.iter().filter(move |p| p.of == of)
    }

    /// The refresh period of its feed: the one stated, else
    /// [`RefreshPeriod::DEFAULT`].
    #[must_use]
    pub fn refresh_period(&self) -> RefreshPeriod {
        self.ranges_refresh.unwrap_or(RefreshPeriod::DEFAULT)
    }
}

/// One entry of a `uap_extras.yaml` file: a uap-core `user_agent_parsers`
/// entry, tried before uap-core's own.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UaExtra {
    /// The regular expression.
    pub regex: String,
    /// The family it names (`$1` is capture group 1); when absent, capture
    /// group 1 is the family.
    pub family_replacement: Option<String>,
    /// Where the entry was read.
    pub origin: Origin,
    /// Its place in the file's `user_agent_parsers` list.
    pub index: usize,
}

/// How bad a [`Problem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; the registry is usable.
    Warning,
    /// The entry (or file) cannot be used as written.
    Error,
}

impl Severity {
    /// `error` or `warning`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A problem found in a registry or extras file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// How bad it is.
    pub severity: Severity,
    /// The file, as named to the builder.
    pub file: Arc<str>,
    /// The path in the file (`bots[3].ip_ranges[0].min`); empty for the
    /// whole file.
    pub path: String,
    /// Where in the file.
    pub at: Position,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: ",
            self.file,
            self.at.line,
            self.at.col,
            self.severity.as_str()
        )?;
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

/// The default registry's text, compiled into the binary.
pub const DEFAULT_REGISTRY: &str = include_str!("../../data/registry.yaml");
/// The default User-Agent extras, compiled into the binary.
pub const DEFAULT_EXTRAS: &str = include_str!("../../data/uap_extras.yaml");
/// The name the default registry goes by in messages.
pub const DEFAULT_REGISTRY_NAME: &str = "<default registry>";
/// The name the default extras go by in messages.
pub const DEFAULT_EXTRAS_NAME: &str = "<default uap_extras>";

/// Reads registry and extras files, in order, into a [`Registry`].
///
/// Files are in the bottica format, read as is (`bots:` with `name`,
/// `fcrdns_hosts`, `ip_list`, `ip_ranges`, `cidr_list`), with optional
/// extensions (`category`, `operator`, `url`, `robots_tokens`, `rdns_masks`,
/// `ranges_url`, `ranges_format`, `ranges_refresh`, `signature_agents`,
/// `signature_keys`, `provenance`). `uap_extras.yaml` files add User-Agent
/// patterns in uap-core's shape. The format is described in
/// `crates/verify/docs/registry.md` and by the JSON schema in
/// `crates/verify/schema/registry.schema.json`.
///
/// A later file's entry replaces an earlier entry of the same name. Every
/// problem is kept as a [`Problem`] with the file, the path in it
/// (`bots[3].ip_ranges[0].min`) and the line, so that one run reports them
/// all.
#[derive(Debug, Default)]
pub struct RegistryBuilder {
    bots: Vec<Bot>,
    index: HashMap<String, usize>,
    extras: Vec<Vec<UaExtra>>,
    problems: Vec<Problem>,
    ranges: PublishedRanges,
    files: Vec<Arc<str>>,
}

impl RegistryBuilder {
    /// An empty builder: no bots, no extras, no published ranges.
    #[must_use]
    pub fn new() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// A builder holding the default registry, extras and the published
    /// range snapshot compiled into the binary.
    #[must_use]
    pub fn with_defaults() -> RegistryBuilder {
        let mut b = RegistryBuilder::new();
        b.add_registry(DEFAULT_REGISTRY_NAME, DEFAULT_REGISTRY);
        b.add_extras(DEFAULT_EXTRAS_NAME, DEFAULT_EXTRAS);
        b.ranges = PublishedRanges::snapshot();
        b
    }

    /// Reads a registry file. Its entries replace earlier ones of the same
    /// name; an entry with errors is left out (and its problems kept).
    pub fn add_registry(&mut self, file: &str, text: &str) {
        let file: Arc<str> = Arc::from(file);
        self.files.push(file.clone());
        let (bots, problems) = load::registry(&file, text);
        self.problems.extend(problems);
        for (n, bot) in bots {
            match self.index.get(&bot.name) {
                Some(&i) => {
                    self.problems.push(replacement(n, &self.bots[i], &bot));
                    self.bots[i] = bot;
                }
                None => {
                    self.index.insert(bot.name.clone(), self.bots.len());
                    self.bots.push(bot);
                }
            }
        }
    }

    /// Reads a `uap_extras.yaml` file. Later files' patterns are tried
    /// first, as later files override earlier ones.
    pub fn add_extras(&mut self, file: &str, text: &str) {
        let file: Arc<str> = Arc::from(file);
        self.files.push(file.clone());
        let (extras, problems) = load::extras(&file, text);
        self.problems.extend(problems);
        self.extras.push(extras);
    }

    /// Reads a file of either kind, told by its first top-level key:
    /// `user_agent_parsers:` is an extras file, anything else a registry.
    pub fn add_file(&mut self, file: &str, text: &str) {
        if load::is_extras(text) {
            self.add_extras(file, text);
        } else {
            self.add_registry(file, text);
        }
    }

    /// The published ranges used by the registry (the snapshot, and
    /// whatever was added), to add feeds to.
    pub fn ranges_mut(&mut self) -> &mut PublishedRanges {
        &mut self.ranges
    }

    /// The problems found so far, in the order of the files.
    #[must_use]
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Checks what spans files (extras that name no bot) and makes the
    /// registry. Returns every problem; the registry is `None` when any is
    /// an error.
    #[must_use]
    pub fn build(mut self) -> (Option<Registry>, Vec<Problem>) {
        let mut extras: Vec<UaExtra> = Vec::new();
        for file in self.extras.into_iter().rev() {
            extras.extend(file);
        }
        for extra in &extras {
            load::check_extra_names(extra, &self.index, &mut self.problems);
        }
        // In the order of the files, then of the lines.
        let files = &self.files;
        self.problems.sort_by_key(|p| {
            let rank = files.iter().position(|f| Arc::ptr_eq(f, &p.file));
            (rank, p.at)
        });
        let errors = self.problems.iter().any(|p| p.severity == Severity::Error);
        let registry = (!errors).then_some(Registry {
            bots: self.bots,
            index: self.index,
            extras,
            ranges: self.ranges,
        });
        (registry, self.problems)
    }
}

/// The warning that the entry `new` (the `n`th of its file) replaces `old`
/// of an earlier file as a whole, naming what `old` had that `new` drops.
fn replacement(n: usize, old: &Bot, new: &Bot) -> Problem {
    let mut dropped = Vec::new();
    let mut lost = |field: &'static str, had: bool, has: bool| {
        if had && !has {
            dropped.push(format!("`{field}`"));
        }
    };
    lost(
        "fcrdns_hosts",
        old.fcrdns_hosts.is_some(),
        new.fcrdns_hosts.is_some(),
    );
    lost(
        "rdns_masks",
        !old.rdns_masks.is_empty(),
        !new.rdns_masks.is_empty(),
    );
    lost("ip_list", old.ip_list.is_some(), new.ip_list.is_some());
    lost(
        "ip_ranges",
        old.ip_ranges.is_some(),
        new.ip_ranges.is_some(),
    );
    lost(
        "cidr_list",
        old.cidr_list.is_some(),
        new.cidr_list.is_some(),
    );
    lost(
        "ranges_url",
        old.ranges_url.is_some(),
        new.ranges_url.is_some(),
    );
    lost(
        "ranges_refresh",
        old.ranges_refresh.is_some(),
        new.ranges_refresh.is_some(),
    );
    lost(
        "signature_agents",
        !old.signature_agents.is_empty(),
        !new.signature_agents.is_empty(),
    );
    lost(
        "signature_keys",
        !old.signature_keys.is_empty(),
        !new.signature_keys.is_empty(),
    );
    lost(
        "robots_tokens",
        !old.robots_tokens.is_empty(),
        !new.robots_tokens.is_empty(),
    );
    lost("category", old.category.is_some(), new.category.is_some());
    lost("operator", old.operator.is_some(), new.operator.is_some());
    lost("url", old.url.is_some(), new.url.is_some());
    lost("renders", old.renders.is_some(), new.renders.is_some());
    lost(
        "provenance",
        !old.provenance.is_empty(),
        !new.provenance.is_empty(),
    );
    let what = if old.origin.file.as_ref() == DEFAULT_REGISTRY_NAME {
        format!("the built-in entry ({})", old.origin)
    } else {
        format!("the entry of {}", old.origin)
    };
    let tail = if dropped.is_empty() {
        "; fields are not merged".to_owned()
    } else {
        format!(
            " (fields are not merged): its {} {} dropped",
            dropped.join(", "),
            if dropped.len() == 1 { "is" } else { "are" }
        )
    };
    Problem {
        severity: Severity::Warning,
        file: new.origin.file.clone(),
        path: format!("bots[{n}]"),
        at: new.origin.at,
        message: format!("`{}` replaces {what} as a whole{tail}", new.name),
    }
}

/// A checked registry: bots by name, User-Agent extras, published ranges.
#[derive(Debug, Clone)]
pub struct Registry {
    bots: Vec<Bot>,
    index: HashMap<String, usize>,
    extras: Vec<UaExtra>,
    ranges: PublishedRanges,
}

impl Registry {
    /// The default registry compiled into the binary.
    ///
    /// # Panics
    /// Never: the default registry is checked by the tests.
    #[must_use]
    pub fn builtin() -> Registry {
        let (registry, problems) = RegistryBuilder::with_defaults().build();
        registry.unwrap_or_else(|| panic!("the default registry has errors: {problems:?}"))
    }

    /// Every bot, in the order first read.
    #[must_use]
    pub fn bots(&self) -> &[Bot] {
        &self.bots
    }

    /// The bot of that name.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Bot> {
        self.index.get(name).map(|&i| &self.bots[i])
    }

    /// The bot of that name, ignoring ASCII case when no name matches
    /// exactly.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<&Bot> {
        self.get(name)
            .or_else(|| self.bots.iter().find(|b| b.name.eq_ignore_ascii_case(name)))
    }

    /// A registry of these bots alone, in this order (their published
    /// ranges kept, no extras): to show some bots in the registry's formats.
    #[must_use]
    pub fn subset(&self, bots: &[&Bot]) -> Registry {
        let bots: Vec<Bot> = bots.iter().map(|b| (*b).clone()).collect();
        let index = bots
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.clone(), i))
            .collect();
        Registry {
            bots,
            index,
            extras: Vec::new(),
            ranges: self.ranges.clone(),
        }
    }

    /// The User-Agent extras, in the order they are tried.
    #[must_use]
    pub fn extras(&self) -> &[UaExtra] {
        &self.extras
    }

    /// The published ranges known for the bots' `ranges_url`s.
    #[must_use]
    pub fn ranges(&self) -> &PublishedRanges {
        &self.ranges
    }

    /// The registry as YAML in the registry format (readable by
    /// [`RegistryBuilder::add_registry`]), extensions included.
    #[must_use]
    pub fn to_yaml(&self) -> String {
        emit::yaml(&self.bots)
    }

    /// The registry as JSON (`{"bots": [...]}`), the same shape as the YAML.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        emit::json(&self.bots)
    }

    /// [`Registry::to_json`] as pretty text, fields in the format's order.
    #[must_use]
    pub fn to_json_text(&self) -> String {
        emit::json_text(&self.bots)
    }

    /// The extras as YAML in uap-core's shape.
    #[must_use]
    pub fn extras_to_yaml(&self) -> String {
        emit::extras_yaml(&self.extras)
    }
}
