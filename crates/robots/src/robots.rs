//! A robots.txt file compiled for one profile: groups, rules, the typed
//! values, and the matcher that answers URLs.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::directive::DirectiveName;
use crate::parse::{LineKind, RobotsTxt, Separator, Span, split_line};
use crate::path::{normalize_path, normalize_pattern, path_of};
use crate::profile::{AgentMatch, Beyond, Grouping, Profile, RuleChoice, SizeLimit};
use crate::ruleset::{Rule, RuleSet};
use crate::token::{TokenChain, is_token_byte};
use crate::values::{CleanParam, RequestRate, VisitTime, parse_crawl_delay};

/// A value with the line it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// 1-based line number.
    pub line: u32,
}

/// One `user-agent` line of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// The value as written (trimmed).
    pub value: String,
    /// What the profile compares robots' tokens with, in lower case: the
    /// product token (leading `[A-Za-z_-]` run) or, for substring
    /// profiles, the whole value. `None` for `*`.
    pub token: Option<String>,
    /// 1-based line number.
    pub line: u32,
}

/// A group as the profile reads it: user-agent lines and the rules and
/// values that follow them.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Line of the first `user-agent`.
    pub line: u32,
    /// The user-agent lines.
    pub agents: Vec<Agent>,
    /// The first valid `crawl-delay` (seconds).
    pub crawl_delay: Option<Located<f64>>,
    /// The first valid `request-rate`.
    pub request_rate: Option<Located<RequestRate>>,
    /// The first valid `visit-time`.
    pub visit_time: Option<Located<VisitTime>>,
    rules: (u32, u32),
}

impl Group {
    /// Whether one of the agents is `*`.
    #[must_use]
    pub fn is_star(&self) -> bool {
        self.agents.iter().any(|a| a.token.is_none())
    }
}

/// A rule as compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleInfo<'a> {
    /// `allow` (true) or `disallow`.
    pub allow: bool,
    /// The pattern in the profile's normal form.
    pub pattern: Cow<'a, str>,
    /// 1-based line number.
    pub line: u32,
    /// Priority under longest match (the pattern's length).
    pub priority: u32,
    /// Added by the profile (Google's `/index.html` directory rule), not
    /// written in the file.
    pub derived: bool,
}

impl std::fmt::Display for RuleInfo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.allow { "Allow" } else { "Disallow" };
        write!(f, "{kind}: {}", self.pattern)?;
        if self.derived {
            f.write_str(" (derived from /index.html)")?;
        }
        Ok(())
    }
}

/// Why a URL is allowed or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// A rule decided.
    Rule {
        /// Index of the rule; see [`Robots::rule`].
        index: u32,
        /// Its line.
        line: u32,
    },
    /// Groups apply, but none of their rules matched.
    NoRuleMatched,
    /// No group applies to the robot, not even `*`.
    NoGroup,
    /// `/robots.txt` itself is always allowed under this profile.
    RobotsTxt,
}

/// The answer for one URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Whether the robot may fetch the URL.
    pub allowed: bool,
    /// Why.
    pub reason: Reason,
}

/// Which groups a robot obeys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applies {
    /// Groups naming this token (lower case) apply.
    Token(String),
    /// No token is named; the `*` groups apply.
    Star,
    /// No group applies.
    Nothing,
}

#[derive(Debug, Clone)]
struct TokenEntry {
    set: u32,
    groups: Box<[u32]>,
}

/// The rule sets and the lookup from tokens to them.
struct Index {
    sets: Vec<RuleSet>,
    tokens: HashMap<Box<str>, TokenEntry>,
    star: Option<TokenEntry>,
    records: Vec<u32>,
    record_entries: Vec<TokenEntry>,
}

impl Index {
    fn build(profile: &Profile, groups: &[Group], rules: &[Rule], arena: &[u8]) -> Index {
        let compile = |ids: &[u32]| match profile.rule_choice {
            RuleChoice::LongestMatch => RuleSet::longest(ids, rules, arena, profile.wildcards),
            RuleChoice::FirstMatch => RuleSet::first(ids, rules, profile.wildcards),
        };
        // Group `i` owns set `i`; merged sets follow.
        let mut sets: Vec<RuleSet> = groups
            .iter()
            .map(|g| compile(&(g.rules.0..g.rules.1).collect::<Vec<u32>>()))
            .collect();
        let mut entry = |list: Vec<u32>| {
            let set = if let [only] = list[..] {
                only
            } else {
                let ids: Vec<u32> = list
                    .iter()
                    .flat_map(|&g| groups[g as usize].rules.0..groups[g as usize].rules.1)
                    .collect();
                sets.push(compile(&ids));
                (sets.len() - 1) as u32
            };
            TokenEntry {
                set,
                groups: list.into_boxed_slice(),
            }
        };
        let mut star_groups: Vec<u32> = Vec::new();
        if profile.grouping == Grouping::BlankLineRecords {
            // Substring matching cannot be indexed: records are scanned in
            // file order, and only the first `*` record counts.
            let mut records = Vec::new();
            for (i, g) in (0u32..).zip(groups) {
                if !g.is_star() {
                    records.push(i);
                } else if star_groups.is_empty() {
                    star_groups.push(i);
                }
            }
            let record_entries = (0..groups.len() as u32).map(|g| entry(vec![g])).collect();
            let star = (!star_groups.is_empty()).then(|| entry(star_groups));
            return Index {
                sets,
                tokens: HashMap::new(),
                star,
                records,
                record_entries,
            };
        }
        let mut by_token: HashMap<&str, Vec<u32>> = HashMap::new();
        for (i, g) in (0u32..).zip(groups) {
            for a in &g.agents {
                let list = match &a.token {
                    Some(t) => by_token.entry(t.as_str()).or_default(),
                    None => &mut star_groups,
                };
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        let tokens = by_token
            .into_iter()
            .map(|(t, list)| (Box::from(t), entry(list)))
            .collect();
        let star = (!star_groups.is_empty()).then(|| entry(star_groups));
        Index {
            sets,
            tokens,
            star,
            records: Vec::new(),
            record_entries: Vec::new(),
        }
    }
}

/// A robots.txt file compiled for one [`Profile`].
///
/// ```
/// use botwarden_robots::{Profile, Robots, TokenChain};
/// let robots = Robots::parse(
///     "User-agent: *\nDisallow: /private\nAllow: /private/open\n",
///     &Profile::RFC9309,
/// );
/// let bot = TokenChain::parse("examplebot");
/// assert!(!robots.is_allowed(&bot, "https://example.com/private/x"));
/// assert!(robots.is_allowed(&bot, "/private/open/y"));
/// ```
#[derive(Debug, Clone)]
pub struct Robots {
    profile: Profile,
    arena: Vec<u8>,
    rules: Vec<Rule>,
    groups: Vec<Group>,
    sets: Vec<RuleSet>,
    tokens: HashMap<Box<str>, TokenEntry>,
    star: Option<TokenEntry>,
    /// Substring profiles: the non-`*` groups in file order.
    records: Vec<u32>,
    /// Substring profiles: a one-group entry per group.
    record_entries: Vec<TokenEntry>,
    sitemaps: Vec<Located<String>>,
    hosts: Vec<Located<String>>,
    clean_params: Vec<Located<CleanParam>>,
    truncated_at: Option<usize>,
}

/// A directive as one profile sees it.
struct Entry<'a> {
    line: u32,
    name: DirectiveName,
    value: Cow<'a, [u8]>,
}

enum Event<'a> {
    Blank,
    Directive(Entry<'a>),
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// The directives and blank lines of `txt` as `profile` reads them,
/// applying its limits (size, line length, NUL, partial BOM).
fn events<'a>(txt: &'a RobotsTxt, profile: &Profile) -> (Vec<Event<'a>>, Option<usize>) {
    let bytes = txt.bytes();
    let mut out = Vec::with_capacity(txt.lines().len());
    let mut truncated = None;
    if let Some(SizeLimit {
        bytes: limit,
        beyond: Beyond::IgnoreFile,
    }) = profile.size_limit
        && bytes.len() > limit
    {
        return (out, Some(0));
    }
    let truncate_at = profile
        .size_limit
        .filter(|l| l.beyond == Beyond::Truncate)
        .map(|l| l.bytes);
    for line in txt.lines() {
        let mut span = line.span;
        if let Some(limit) = truncate_at {
            if span.start >= limit {
                truncated = Some(limit);
                break;
            }
            if span.end > limit {
                span.end = limit;
                truncated = Some(limit);
            }
        }
        if profile.nul_ends_line
            && let Some(nul) = memchr::memchr(0, &bytes[span.range()])
        {
            span.end = span.start + nul;
        }
        let skip_bom = profile.partial_bom && !txt.has_bom() && span.start < BOM.len();
        let too_long = profile.line_limit.is_some_and(|l| span.len() > l);
        let (kind, view): (LineKind, Option<Vec<u8>>) = if span != line.span || skip_bom || too_long
        {
            let mut own: Vec<u8> = (span.start..span.end)
                .filter(|&i| !(skip_bom && i < BOM.len() && bytes[i] == BOM[i]))
                .map(|i| bytes[i])
                .collect();
            if let Some(limit) = profile.line_limit {
                own.truncate(limit);
            }
            let parts = split_line(&own, Span::new(0, own.len()));
            (parts.kind, Some(own))
        } else {
            (line.kind, None)
        };
        match kind {
            LineKind::Blank => out.push(Event::Blank),
            LineKind::Directive(d) => {
                if !profile.reads(d.name, d.spelling, d.separator == Separator::Colon) {
                    continue;
                }
                let value = match &view {
                    Some(own) => Cow::Owned(own[d.value.range()].to_vec()),
                    None => Cow::Borrowed(&bytes[d.value.range()]),
                };
                out.push(Event::Directive(Entry {
                    line: line.number,
                    name: d.name,
                    value,
                }));
            }
            LineKind::Comment | LineKind::Unparsed => {}
        }
    }
    (out, truncated)
}

fn agent_of(value: &[u8], line: u32, matching: AgentMatch) -> Agent {
    let text = String::from_utf8_lossy(value).into_owned();
    let token = match matching {
        AgentMatch::ProductToken => {
            let star = value.first() == Some(&b'*')
                && value
                    .get(1)
                    .is_none_or(|&b| b.is_ascii_whitespace() || b == 0x0b);
            (!star).then(|| {
                let end = value
                    .iter()
                    .position(|&b| !is_token_byte(b))
                    .unwrap_or(value.len());
                String::from_utf8_lossy(&value[..end]).to_ascii_lowercase()
            })
        }
        AgentMatch::Substring => (text != "*").then(|| text.to_lowercase()),
    };
    Agent {
        value: text,
        token,
        line,
    }
}

/// Reads a profile's directives into groups, rules and file-wide values.
struct Builder<'p> {
    profile: &'p Profile,
    arena: Vec<u8>,
    rules: Vec<Rule>,
    groups: Vec<Group>,
    sitemaps: Vec<Located<String>>,
    hosts: Vec<Located<String>>,
    clean_params: Vec<Located<CleanParam>>,
    /// The group whose user-agent lines or members are being read.
    current: Option<usize>,
    /// Whether the current group has members (so a user-agent line starts
    /// a new group).
    in_body: bool,
    /// Per group: whether it is kept (1994 records without rules are not).
    kept: Vec<bool>,
}

impl<'p> Builder<'p> {
    fn read(profile: &'p Profile, events: Vec<Event<'_>>) -> Builder<'p> {
        let mut b = Builder {
            profile,
            arena: Vec::new(),
            rules: Vec::new(),
            groups: Vec::new(),
            sitemaps: Vec::new(),
            hosts: Vec::new(),
            clean_params: Vec::new(),
            current: None,
            in_body: false,
            kept: Vec::new(),
        };
        for event in events {
            match event {
                Event::Blank => b.blank_line(),
                Event::Directive(e) => b.directive(&e),
            }
        }
        b.end_group();
        if profile.grouping == Grouping::BlankLineRecords {
            b.drop_records_without_rules();
        }
        b
    }

    /// 1994 standard: a blank line ends a record.
    fn blank_line(&mut self) {
        if self.profile.grouping == Grouping::BlankLineRecords {
            self.end_group();
        }
    }

    fn end_group(&mut self) {
        if let Some(g) = self.current.take() {
            self.kept[g] = self.in_body || self.profile.grouping != Grouping::BlankLineRecords;
        }
        self.in_body = false;
    }

    fn directive(&mut self, e: &Entry<'_>) {
        let text = || String::from_utf8_lossy(&e.value).into_owned();
        let line = e.line;
        match e.name {
            DirectiveName::UserAgent => {
                let g = match self.current {
                    Some(g) if !self.in_body => g,
                    _ => {
                        self.end_group();
                        let g = self.open_group(line);
                        self.current = Some(g);
                        g
                    }
                };
                let agent = agent_of(&e.value, line, self.profile.agent_match);
                self.groups[g].agents.push(agent);
            }
            DirectiveName::Allow | DirectiveName::Disallow => {
                if let Some(g) = self.current {
                    self.push_rule(g, e.name == DirectiveName::Allow, &e.value, line);
                    self.in_body = true;
                }
            }
            DirectiveName::CrawlDelay | DirectiveName::RequestRate | DirectiveName::VisitTime => {
                if let Some(g) = self.current {
                    self.set_value(g, e.name, &text(), line);
                    self.in_body |= self.profile.grouping != Grouping::Rules;
                }
            }
            DirectiveName::Sitemap => self.sitemaps.push(Located {
                value: text(),
                line,
            }),
            DirectiveName::Host => self.hosts.push(Located {
                value: text(),
                line,
            }),
            DirectiveName::CleanParam => {
                if let Some(value) = CleanParam::parse(&text()) {
                    self.clean_params.push(Located { value, line });
                }
            }
            DirectiveName::RobotVersion | DirectiveName::Comment | DirectiveName::Unknown => {}
        }
    }

    /// Records of user-agent lines alone are dropped; rules follow their
    /// group's new index.
    fn drop_records_without_rules(&mut self) {
        let mut renumber = Vec::with_capacity(self.kept.len());
        let mut next = 0u32;
        for &k in &self.kept {
            renumber.push(next);
            next += u32::from(k);
        }
        let mut kept = self.kept.iter();
        self.groups.retain(|_| kept.next().copied().unwrap_or(true));
        for r in &mut self.rules {
            r.group = renumber[r.group as usize];
        }
    }

    fn open_group(&mut self, line: u32) -> usize {
        let at = self.rules.len() as u32;
        self.groups.push(Group {
            line,
            agents: Vec::new(),
            crawl_delay: None,
            request_rate: None,
            visit_time: None,
            rules: (at, at),
        });
        self.kept.push(false);
        self.groups.len() - 1
    }

    fn push_rule(&mut self, group: usize, allow: bool, value: &[u8], line: u32) {
        let pattern = normalize_pattern(value, self.profile.path_form);
        let derived = if allow && self.profile.index_html_is_directory {
            let slash = pattern.iter().rposition(|&b| b == b'/');
            slash
                .filter(|&s| pattern[s..].starts_with(b"/index.htm"))
                .map(|s| [&pattern[..=s], b"$"].concat())
        } else {
            None
        };
        self.add(group, allow, &pattern, line, false);
        if let Some(dir) = derived {
            self.add(group, allow, &dir, line, true);
        }
    }

    fn add(&mut self, group: usize, allow: bool, pattern: &[u8], line: u32, derived: bool) {
        let start = self.arena.len() as u32;
        self.arena.extend_from_slice(pattern);
        let len = pattern.len() as u32;
        self.rules.push(Rule {
            start,
            len,
            priority: len,
            line,
            group: group as u32,
            allow,
            derived,
        });
        self.groups[group].rules.1 = self.rules.len() as u32;
    }

    fn set_value(&mut self, group: usize, name: DirectiveName, value: &str, line: u32) {
        let g = &mut self.groups[group];
        match name {
            DirectiveName::CrawlDelay if g.crawl_delay.is_none() => {
                g.crawl_delay = parse_crawl_delay(value).map(|value| Located { value, line });
            }
            DirectiveName::RequestRate if g.request_rate.is_none() => {
                g.request_rate = RequestRate::parse(value).map(|value| Located { value, line });
            }
            DirectiveName::VisitTime if g.visit_time.is_none() => {
                g.visit_time = VisitTime::parse(value).map(|value| Located { value, line });
            }
            _ => {}
        }
    }
}

impl Robots {
    /// Parses and compiles a robots.txt body for `profile`.
    #[must_use]
    pub fn parse(body: impl Into<Vec<u8>>, profile: &Profile) -> Robots {
        Robots::new(&RobotsTxt::parse(body), profile)
    }

    /// Compiles a parsed file for `profile`.
    #[must_use]
    pub fn new(txt: &RobotsTxt, profile: &Profile) -> Robots {
        let (events, truncated_at) = events(txt, profile);
        let read = Builder::read(profile, events);
        let Builder {
            arena,
            rules,
            groups,
            sitemaps,
            hosts,
            clean_params,
            ..
        } = read;
        let index = Index::build(profile, &groups, &rules, &arena);
        Robots {
            profile: *profile,
            arena,
            rules,
            groups,
            sets: index.sets,
            tokens: index.tokens,
            star: index.star,
            records: index.records,
            record_entries: index.record_entries,
            sitemaps,
            hosts,
            clean_params,
            truncated_at,
        }
    }

    /// The profile this file was compiled for.
    #[must_use]
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The groups, in file order.
    #[must_use]
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The rules of a group, in file order.
    pub fn group_rules(&self, group: &Group) -> impl Iterator<Item = RuleInfo<'_>> {
        (group.rules.0..group.rules.1).map(|i| self.rule(i))
    }

    /// The number of rules (including derived ones).
    #[must_use]
    pub fn rule_count(&self) -> usize {
        self.rules.len()
    }

    /// A rule by index (see [`Reason::Rule`]).
    ///
    /// # Panics
    /// If `index` is not below [`Robots::rule_count`].
    #[must_use]
    pub fn rule(&self, index: u32) -> RuleInfo<'_> {
        let r = &self.rules[index as usize];
        RuleInfo {
            allow: r.allow,
            pattern: String::from_utf8_lossy(r.pattern(&self.arena)),
            line: r.line,
            priority: r.priority,
            derived: r.derived,
        }
    }

    /// Every `sitemap` URL, in file order.
    #[must_use]
    pub fn sitemaps(&self) -> &[Located<String>] {
        &self.sitemaps
    }

    /// Every `host` value, in file order (Yandex obeys the first).
    #[must_use]
    pub fn hosts(&self) -> &[Located<String>] {
        &self.hosts
    }

    /// Every valid `clean-param`, in file order.
    #[must_use]
    pub fn clean_params(&self) -> &[Located<CleanParam>] {
        &self.clean_params
    }

    /// Where the profile stopped reading, if the body was longer than its
    /// size limit (0 when the profile ignores an oversize file entirely).
    #[must_use]
    pub fn truncated_at(&self) -> Option<usize> {
        self.truncated_at
    }

    /// Which groups a robot with this token chain obeys.
    #[must_use]
    pub fn matcher(&self, chain: &TokenChain) -> Matcher<'_> {
        let (applies, entry) = self.select(chain);
        Matcher {
            robots: self,
            applies,
            set: entry.map(|e| e.set),
            groups: entry.map_or(&[][..], |e| &e.groups),
        }
    }

    fn select<'s>(&'s self, chain: &TokenChain) -> (Applies, Option<&'s TokenEntry>) {
        if self.profile.grouping == Grouping::BlankLineRecords {
            return self.select_records(chain);
        }
        for token in chain.lower() {
            let fallbacks = self.profile.fallbacks_of(token);
            for t in std::iter::once(token.as_str()).chain(fallbacks.map(|f| -> &str { f })) {
                if let Some(e) = self.tokens.get(t) {
                    return (Applies::Token(t.to_owned()), Some(e));
                }
            }
        }
        match &self.star {
            Some(e) => (Applies::Star, Some(e)),
            None => (Applies::Nothing, None),
        }
    }

    fn select_records<'s>(&'s self, chain: &TokenChain) -> (Applies, Option<&'s TokenEntry>) {
        for token in chain.lower() {
            let name = token.split('/').next().unwrap_or_default();
            for &g in &self.records {
                let group = &self.groups[g as usize];
                if group
                    .agents
                    .iter()
                    .any(|a| a.token.as_deref().is_some_and(|t| name.contains(t)))
                {
                    return (
                        Applies::Token(token.clone()),
                        Some(&self.record_entries[g as usize]),
                    );
                }
            }
        }
        match &self.star {
            Some(e) => (Applies::Star, Some(e)),
            None => (Applies::Nothing, None),
        }
    }

    /// Whether the robot may fetch `url` (a full URL or a path).
    #[must_use]
    pub fn is_allowed(&self, chain: &TokenChain, url: &str) -> bool {
        self.matcher(chain).check(url).allowed
    }

    /// The decision for `url`, with its reason.
    #[must_use]
    pub fn check(&self, chain: &TokenChain, url: &str) -> Decision {
        self.matcher(chain).check(url)
    }

    /// Bytes of heap this compiled file holds (rules, patterns, groups,
    /// index), for memory accounting.
    #[must_use]
    pub fn heap_size(&self) -> usize {
        let groups: usize = self
            .groups
            .iter()
            .map(|g| {
                size_of::<Group>()
                    + g.agents
                        .iter()
                        .map(|a| {
                            size_of::<Agent>()
                                + a.value.capacity()
                                + a.token.as_ref().map_or(0, String::capacity)
                        })
                        .sum::<usize>()
            })
            .sum();
        let tokens: usize = self
            .tokens
            .iter()
            .map(|(k, v)| k.len() + size_of::<(Box<str>, TokenEntry)>() + v.groups.len() * 4)
            .sum();
        self.arena.capacity()
            + self.rules.capacity() * size_of::<Rule>()
            + groups
            + self
                .sets
                .iter()
                .map(|s| size_of::<RuleSet>() + s.heap_size())
                .sum::<usize>()
            + tokens
            + self.records.capacity() * 4
            + self
                .sitemaps
                .iter()
                .map(|s| size_of::<Located<String>>() + s.value.capacity())
                .sum::<usize>()
            + self
                .hosts
                .iter()
                .map(|s| size_of::<Located<String>>() + s.value.capacity())
                .sum::<usize>()
    }
}

/// A robot's view of a compiled file: the groups it obeys, ready to answer
/// URLs. Resolve once per robot, then ask many URLs.
#[derive(Debug, Clone)]
pub struct Matcher<'r> {
    robots: &'r Robots,
    applies: Applies,
    set: Option<u32>,
    groups: &'r [u32],
}

impl<'r> Matcher<'r> {
    /// Which groups apply.
    #[must_use]
    pub fn applies(&self) -> &Applies {
        &self.applies
    }

    /// The groups the robot obeys, in file order.
    pub fn groups(&self) -> impl Iterator<Item = &'r Group> + '_ {
        self.groups.iter().map(|&g| &self.robots.groups[g as usize])
    }

    /// The decision for `url` (a full URL or a path).
    #[must_use]
    pub fn check(&self, url: &str) -> Decision {
        self.check_path(path_of(url).as_bytes())
    }

    /// Whether the robot may fetch `url` (a full URL or a path).
    #[must_use]
    pub fn is_allowed(&self, url: &str) -> bool {
        self.check(url).allowed
    }

    /// The decision for a path that is already the path, parameters and
    /// query of a URL (as [`path_of`] gives), not yet normalised.
    #[must_use]
    pub fn check_path(&self, path: &[u8]) -> Decision {
        let robots = self.robots;
        if robots.profile.robots_txt_allowed && is_robots_txt(path) {
            return Decision {
                allowed: true,
                reason: Reason::RobotsTxt,
            };
        }
        let Some(set) = self.set else {
            return Decision {
                allowed: true,
                reason: Reason::NoGroup,
            };
        };
        let path = normalize_path(path, robots.profile.path_form);
        match robots.sets[set as usize].decide(&path, &robots.rules, &robots.arena) {
            Some(v) => Decision {
                allowed: v.allowed,
                reason: Reason::Rule {
                    index: v.rule,
                    line: robots.rules[v.rule as usize].line,
                },
            },
            None => Decision {
                allowed: true,
                reason: Reason::NoRuleMatched,
            },
        }
    }

    /// The first valid `crawl-delay` among the groups the robot obeys.
    #[must_use]
    pub fn crawl_delay(&self) -> Option<&'r Located<f64>> {
        self.groups().find_map(|g| g.crawl_delay.as_ref())
    }

    /// The first valid `request-rate` among the groups the robot obeys.
    #[must_use]
    pub fn request_rate(&self) -> Option<&'r Located<RequestRate>> {
        self.groups().find_map(|g| g.request_rate.as_ref())
    }

    /// The first valid `visit-time` among the groups the robot obeys.
    #[must_use]
    pub fn visit_time(&self) -> Option<&'r Located<VisitTime>> {
        self.groups().find_map(|g| g.visit_time.as_ref())
    }
}

/// Whether the path (without query) is `/robots.txt`.
fn is_robots_txt(path: &[u8]) -> bool {
    let end = memchr::memchr2(b'?', b';', path).unwrap_or(path.len());
    &path[..end] == b"/robots.txt"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(body: &[u8], profile: &Profile, agent: &str, url: &str) -> bool {
        Robots::parse(body.to_vec(), profile).is_allowed(&TokenChain::parse(agent), url)
    }

    /// A body whose `Disallow: /late` starts just past `at` bytes.
    fn padded(at: usize) -> Vec<u8> {
        let mut body = b"User-agent: *\nDisallow: /early\n".to_vec();
        while body.len() < at {
            body.extend_from_slice(b"# padding padding padding padding padding\n");
        }
        body.extend_from_slice(b"Disallow: /late\n");
        body
    }

    #[test]
    fn google_ignores_content_after_500_kib() {
        let body = padded(500 * 1024);
        let robots = Robots::parse(body.clone(), &Profile::GOOGLE);
        assert_eq!(robots.truncated_at(), Some(500 * 1024));
        assert!(!allowed(&body, &Profile::GOOGLE, "x", "/early"));
        assert!(allowed(&body, &Profile::GOOGLE, "x", "/late"));
        assert!(!allowed(&body, &Profile::RFC9309, "x", "/late"));
    }

    #[test]
    fn google_cuts_a_rule_that_crosses_the_limit() {
        let limit = 500 * 1024;
        let mut body = b"User-agent: *\n".to_vec();
        // A comment line that ends exactly 13 bytes before the limit.
        let fill = limit - 13 - body.len() - 1;
        body.push(b'#');
        body.resize(body.len() + fill - 1, b'x');
        body.push(b'\n');
        assert_eq!(body.len(), limit - 13);
        body.extend_from_slice(b"Disallow: /late/xyz\n");
        // Google keeps `Disallow: /la`: a shorter pattern.
        assert!(!allowed(&body, &Profile::GOOGLE, "x", "/lab"));
        assert!(allowed(&body, &Profile::RFC9309, "x", "/lab"));
        assert!(!allowed(&body, &Profile::RFC9309, "x", "/late/xyz"));
    }

    #[test]
    fn yandex_ignores_an_oversize_file() {
        let body = padded(600 * 1024);
        let robots = Robots::parse(body.clone(), &Profile::YANDEX);
        assert_eq!(robots.truncated_at(), Some(0));
        assert!(allowed(&body, &Profile::YANDEX, "yandexbot", "/early"));
        assert!(!allowed(&body, &Profile::RFC9309, "yandexbot", "/early"));
    }

    #[test]
    fn google_cuts_long_lines() {
        let long = format!("User-agent: *\nDisallow: /{}\n", "a".repeat(20_000));
        let cut = format!("/{}", "a".repeat(16_663 - "Disallow: /".len()));
        // The kept part of the line is a shorter pattern, so it matches a
        // path the full pattern would not.
        assert!(!allowed(
            long.as_bytes(),
            &Profile::GOOGLE,
            "x",
            &format!("{cut}b")
        ));
        assert!(allowed(
            long.as_bytes(),
            &Profile::RFC9309,
            "x",
            &format!("{cut}b")
        ));
    }

    #[test]
    fn partial_bom_and_nul() {
        let body = b"\xEF\xBBUser-agent: *\nDisallow: /a\x00/ignored\n";
        for p in [&Profile::GOOGLE, &Profile::RFC9309] {
            assert!(!allowed(body, p, "x", "/a"), "{p}");
        }
        assert!(
            allowed(body, &Profile::STRICT, "x", "/a"),
            "strict reads no partial BOM"
        );
    }

    #[test]
    fn typed_values() {
        let robots = Robots::parse(
            "Sitemap: https://e.example/s.xml\nHost: e.example\nHost: other.example\n\
             Clean-param: ref /articles/\n\
             User-agent: a\nCrawl-delay: 2.5\nRequest-rate: 1/10s\nVisit-time: 0100-0500\nDisallow: /\n",
            &Profile::RFC9309,
        );
        assert_eq!(robots.sitemaps()[0].value, "https://e.example/s.xml");
        assert_eq!(robots.hosts().len(), 2);
        assert_eq!(robots.clean_params()[0].value.params, ["ref"]);
        let m = robots.matcher(&TokenChain::parse("a"));
        assert_eq!(m.crawl_delay().map(|d| (d.value, d.line)), Some((2.5, 6)));
        assert_eq!(m.request_rate().map(|r| r.value.seconds), Some(10));
        assert_eq!(
            m.visit_time().map(|v| v.value.end.to_string()),
            Some("05:00".into())
        );
        // Crawl-delay ended the user-agent lines: the rule still belongs to a.
        assert!(!m.is_allowed("/x"));
    }

    #[test]
    fn explanations_name_group_rule_and_line() {
        let robots = Robots::parse(
            "User-agent: *\nDisallow: /\n\nUser-agent: a\nAllow: /pub\nDisallow: /\n",
            &Profile::RFC9309,
        );
        let m = robots.matcher(&TokenChain::parse("a"));
        assert_eq!(m.applies(), &Applies::Token("a".into()));
        assert_eq!(m.groups().map(|g| g.line).collect::<Vec<_>>(), [4]);
        let d = m.check("/pub/x");
        assert_eq!(d.reason, Reason::Rule { index: 1, line: 5 });
        assert_eq!(robots.rule(1).to_string(), "Allow: /pub");
        let none = robots.matcher(&TokenChain::parse("b")).check("/x");
        assert!(!none.allowed);
        let empty = Robots::parse("", &Profile::RFC9309);
        assert_eq!(
            empty.check(&TokenChain::parse("a"), "/").reason,
            Reason::NoGroup
        );
    }
}
