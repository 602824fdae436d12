//! A robots.txt file compiled for one profile: groups, rules, the typed
//! values, and the matcher that answers URLs.

use std::borrow::Cow;

use crate::parse::{LineKind, RobotsTxt};
use crate::path::{normalize_path, path_of};
use crate::prefs::{self, PrefLine, UsageAnswer};
use crate::profile::{AgentMatch, Profile};
use crate::ruleset::{LazySet, Range32, Rule, Tables, order_of};
use crate::token::TokenChain;
use crate::values::{CleanParam, RequestRate, VisitTime};

/// A value with the line it was read from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// 1-based line number.
    pub line: u32,
}

/// One `user-agent` line of a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agent<'r> {
    /// The value as written (trimmed; invalid UTF-8 shown as U+FFFD).
    pub value: &'r str,
    /// What the profile compares robots' tokens with, in lower case: the
    /// product token (leading `[A-Za-z_-]` run) or, for substring
    /// profiles, the whole value. `None` for `*`.
    pub token: Option<&'r str>,
    /// 1-based line number.
    pub line: u32,
}

/// A group as the profile reads it: user-agent lines and the rules and
/// values that follow them. A view into a [`Robots`].
#[derive(Clone, Copy)]
pub struct Group<'r> {
    robots: &'r Robots,
    index: u32,
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

impl Decision {
    /// The words that say why a [`RobotMatcher`] reached this decision:
    /// the group that applied (with its lines), the rule as written in
    /// `txt` (the file the matcher was compiled from) and its line; every
    /// front end says the same. `chain` is the robot the matcher was made
    /// for.
    ///
    /// ```
    /// use botwarden_robots::{Profile, RobotMatcher, RobotsTxt, TokenChain};
    ///
    /// let txt = RobotsTxt::parse("User-agent: botwarden\nDisallow: /search\n");
    /// let chain = TokenChain::parse("botwarden");
    /// let matcher = RobotMatcher::new(&txt, &Profile::RFC9309, &chain);
    /// let d = matcher.check("/search?q=1");
    /// assert_eq!(
    ///     d.explain(&matcher, &txt, &chain).to_string(),
    ///     "group for 'botwarden' (line 1), rule 'Disallow: /search' at line 2",
    /// );
    /// ```
    #[must_use]
    pub fn explain<'a>(
        &self,
        matcher: &'a RobotMatcher,
        txt: &'a RobotsTxt,
        chain: &'a TokenChain,
    ) -> Explained<'a> {
        Explained {
            decision: *self,
            matcher,
            txt,
            chain,
        }
    }
}

/// Why a decision was reached, in words ([`Decision::explain`]); shown
/// with `Display`.
#[derive(Debug, Clone, Copy)]
pub struct Explained<'a> {
    decision: Decision,
    matcher: &'a RobotMatcher,
    txt: &'a RobotsTxt,
    chain: &'a TokenChain,
}

impl Explained<'_> {
    fn group(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = match self.matcher.applies() {
            Applies::Token(t) => t.as_str(),
            Applies::Star => "*",
            Applies::Nothing => return f.write_str("no group"),
        };
        write!(f, "group for '{who}' (line")?;
        if self.matcher.group_lines().len() != 1 {
            f.write_str("s")?;
        }
        for (i, line) in self.matcher.group_lines().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            write!(f, "{sep}{line}")?;
        }
        f.write_str(")")
    }
}

impl std::fmt::Display for Explained<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.decision.reason {
            Reason::Rule { index, line } => {
                self.group(f)?;
                let rule = self.matcher.rule_as_written(self.txt, index);
                write!(f, ", rule '{rule}' at line {line}")
            }
            Reason::NoRuleMatched => {
                self.group(f)?;
                f.write_str(", no rule matched")
            }
            Reason::NoGroup => {
                let tokens = self.chain.tokens();
                let names = if tokens.is_empty() {
                    "*".to_owned()
                } else {
                    tokens.join(", ")
                };
                write!(f, "no group names {names} or '*'")
            }
            Reason::RobotsTxt => write!(
                f,
                "/robots.txt is always allowed ({})",
                self.matcher.profile().name
            ),
        }
    }
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

/// Where a profile stopped reading a body over its size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The body was read up to this byte offset; the rest was ignored.
    Truncated {
        /// The limit, in bytes.
        at: usize,
    },
    /// The body was larger than the limit, so the whole file was ignored.
    FileIgnored {
        /// The body's size, in bytes.
        size: usize,
    },
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct GroupRec {
    pub(crate) line: u32,
    pub(crate) agents: Range32,
    pub(crate) rules: Range32,
    /// Index into `values`, or `NO_VALUES`.
    pub(crate) values: u32,
}

pub(crate) const NO_VALUES: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
pub(crate) struct AgentRec {
    pub(crate) value: Range32,
    /// `None` for `*`.
    pub(crate) token: Option<Range32>,
    pub(crate) line: u32,
}

/// The values of a group that has any.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Values {
    pub(crate) crawl_delay: Option<Located<f64>>,
    pub(crate) request_rate: Option<Located<RequestRate>>,
    pub(crate) visit_time: Option<Located<VisitTime>>,
}

/// The groups that apply to one token: a set and the group indices (a range
/// of `Tables::ids`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TokenRec {
    pub(crate) token: Range32,
    pub(crate) set: u32,
    pub(crate) groups: Range32,
}

/// A rule set of a [`Robots`]: the rules of one group (a range of
/// `tables.rules`), or those of the groups one token names (copied, in file
/// order, into `merged`), indexed on demand.
#[derive(Debug, Clone)]
pub(crate) struct SetRec {
    /// A range of `tables.rules`, or of `merged` when `groups` is not
    /// empty.
    pub(crate) rules: Range32,
    /// The groups (a range of `tables.ids`) whose rules a merged set
    /// copies; empty for a group's own set.
    pub(crate) groups: Range32,
    pub(crate) lazy: LazySet,
}

impl SetRec {
    /// The set's rules, in file order.
    fn rules<'a>(&self, robots: &'a Robots) -> &'a [Rule] {
        if self.groups.len() == 0 {
            self.rules.of(&robots.tables.rules)
        } else {
            self.rules.of(&robots.merged)
        }
    }

    /// The index in the file of the set's rule `local`.
    fn file_index(&self, robots: &Robots, local: u32) -> u32 {
        if self.groups.len() == 0 {
            return self.rules.start + local;
        }
        let mut local = local;
        for &g in self.groups.of(&robots.tables.ids) {
            let r = robots.groups[g as usize].rules;
            if (local as usize) < r.len() {
                return r.start + local;
            }
            local -= r.end - r.start;
        }
        local
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct TextRec {
    pub(crate) text: Range32,
    pub(crate) line: u32,
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
    pub(crate) profile: Profile,
    pub(crate) tables: Tables,
    pub(crate) groups: Vec<GroupRec>,
    pub(crate) agents: Vec<AgentRec>,
    pub(crate) values: Vec<Values>,
    /// Group `i` owns set `i`; merged sets follow.
    pub(crate) sets: Vec<SetRec>,
    /// The rules of merged sets, each set's in file order.
    pub(crate) merged: Vec<Rule>,
    /// Sorted by token.
    pub(crate) tokens: Vec<TokenRec>,
    pub(crate) star: Option<TokenRec>,
    /// Substring profiles: the non-`*` groups in file order (in `ids`).
    pub(crate) records: Range32,
    pub(crate) sitemaps: Vec<TextRec>,
    pub(crate) hosts: Vec<TextRec>,
    pub(crate) clean_params: Vec<Located<CleanParam>>,
    /// `content-usage` and `content-signal` lines, in file order.
    pub(crate) prefs: Vec<PrefLine>,
    pub(crate) llm_policies: Vec<TextRec>,
    pub(crate) cut: Option<Cut>,
}

impl Robots {
    /// The profile this file was compiled for.
    #[must_use]
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The groups, in file order.
    pub fn groups(&self) -> impl ExactSizeIterator<Item = Group<'_>> + Clone {
        (0..self.groups.len()).map(|i| Group {
            robots: self,
            index: i as u32,
        })
    }

    /// The number of rules (including derived ones).
    #[must_use]
    pub fn rule_count(&self) -> usize {
        self.tables.rules.len()
    }

    /// A rule by index (see [`Reason::Rule`]).
    ///
    /// # Panics
    /// If `index` is not below [`Robots::rule_count`].
    #[must_use]
    pub fn rule(&self, index: u32) -> RuleInfo<'_> {
        let r: &Rule = &self.tables.rules[index as usize];
        RuleInfo {
            allow: r.allow,
            pattern: Cow::Borrowed(r.pattern.str(&self.tables.text)),
            line: r.line,
            priority: r.priority(),
            derived: r.derived,
        }
    }

    fn text_recs<'a>(
        &'a self,
        recs: &'a [TextRec],
    ) -> impl ExactSizeIterator<Item = Located<&'a str>> {
        recs.iter().map(|r| Located {
            value: r.text.str(&self.tables.text),
            line: r.line,
        })
    }

    /// Every `sitemap` URL, in file order.
    pub fn sitemaps(&self) -> impl ExactSizeIterator<Item = Located<&str>> {
        self.text_recs(&self.sitemaps)
    }

    /// Every `host` value, in file order (Yandex read the first).
    pub fn hosts(&self) -> impl ExactSizeIterator<Item = Located<&str>> {
        self.text_recs(&self.hosts)
    }

    /// Every valid `clean-param`, in file order.
    #[must_use]
    pub fn clean_params(&self) -> &[Located<CleanParam>] {
        &self.clean_params
    }

    /// Every `content-usage` and `content-signal` line, in file order, with
    /// the group it stands in.
    #[must_use]
    pub fn preference_lines(&self) -> &[PrefLine] {
        &self.prefs
    }

    /// Every `llm-policy` value, in file order.
    pub fn llm_policies(&self) -> impl ExactSizeIterator<Item = Located<&str>> {
        self.text_recs(&self.llm_policies)
    }

    /// Whether, and where, the profile stopped reading a body over its size
    /// limit.
    #[must_use]
    pub fn cut(&self) -> Option<Cut> {
        self.cut
    }

    /// Which groups a robot with this token chain obeys.
    #[must_use]
    pub fn matcher(&self, chain: &TokenChain) -> Matcher<'_> {
        let (applies, entry) = self.select(chain);
        Matcher {
            robots: self,
            applies,
            set: entry.map(|e| &self.sets[e.set as usize]),
            groups: entry.map_or(&[][..], |e| e.groups.of(&self.tables.ids)),
        }
    }

    fn select(&self, chain: &TokenChain) -> (Applies, Option<TokenRec>) {
        let found = match self.profile.agent_match {
            AgentMatch::Substring => self.select_record(chain),
            AgentMatch::ProductToken => self.select_token(chain),
        };
        found
            .or_else(|| self.star.map(|e| (Applies::Star, Some(e))))
            .unwrap_or((Applies::Nothing, None))
    }

    fn select_token(&self, chain: &TokenChain) -> Option<(Applies, Option<TokenRec>)> {
        let text = &self.tables.text;
        for token in chain.lower() {
            let fallbacks = self.profile.fallbacks_of(token);
            for t in std::iter::once(token.as_str()).chain(fallbacks.map(|f| -> &str { f })) {
                let hit = self
                    .tokens
                    .binary_search_by(|r| r.token.str(text).cmp(t))
                    .ok()
                    .map(|i| self.tokens[i]);
                if let Some(e) = hit {
                    return Some((Applies::Token(t.to_owned()), Some(e)));
                }
            }
        }
        None
    }

    /// Substring profiles: the first record, in file order, one of whose
    /// user-agents is part of the token (before any `/`).
    fn select_record(&self, chain: &TokenChain) -> Option<(Applies, Option<TokenRec>)> {
        let ids = &self.tables.ids;
        for token in chain.lower() {
            let name = token.split('/').next().unwrap_or_default();
            for (k, &g) in self.records.of(ids).iter().enumerate() {
                if self
                    .group(g)
                    .agents()
                    .any(|a| a.token.is_some_and(|t| name.contains(t)))
                {
                    let at = self.records.start as usize + k;
                    let entry = TokenRec {
                        token: Range32::default(),
                        set: g,
                        groups: Range32::new(at, at + 1),
                    };
                    return Some((Applies::Token(token.clone()), Some(entry)));
                }
            }
        }
        None
    }

    fn group(&self, index: u32) -> Group<'_> {
        Group {
            robots: self,
            index,
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

    /// Bytes of heap this compiled file holds, for memory accounting.
    ///
    /// A rule set builds what answers quickly only when it is asked a
    /// second question (a set of up to sixteen rules a block to scan, a
    /// larger one its index), so this grows with use: right after
    /// compiling it is the rules and values alone.
    #[must_use]
    pub fn heap_size(&self) -> usize {
        let clean: usize = self
            .clean_params
            .iter()
            .map(|c| {
                c.value.params.capacity() * size_of::<String>()
                    + c.value.params.iter().map(String::capacity).sum::<usize>()
                    + c.value.path.as_ref().map_or(0, String::capacity)
            })
            .sum();
        self.tables.heap_size()
            + self.groups.capacity() * size_of::<GroupRec>()
            + self.agents.capacity() * size_of::<AgentRec>()
            + self.values.capacity() * size_of::<Values>()
            + self.sets.capacity() * size_of::<SetRec>()
            + self.sets.iter().map(|s| s.lazy.heap_size()).sum::<usize>()
            + self.merged.capacity() * size_of::<Rule>()
            + self.tokens.capacity() * size_of::<TokenRec>()
            + (self.sitemaps.capacity() + self.hosts.capacity()) * size_of::<TextRec>()
            + self.clean_params.capacity() * size_of::<Located<CleanParam>>()
            + clean
            + prefs::heap_size(&self.prefs)
            + self.llm_policies.capacity() * size_of::<TextRec>()
    }
}

impl<'r> Group<'r> {
    fn rec(&self) -> &'r GroupRec {
        &self.robots.groups[self.index as usize]
    }

    /// Position of the group among [`Robots::groups`].
    #[must_use]
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// Line of the first `user-agent`.
    #[must_use]
    pub fn line(&self) -> u32 {
        self.rec().line
    }

    /// The user-agent lines.
    pub fn agents(&self) -> impl ExactSizeIterator<Item = Agent<'r>> + Clone + use<'r> {
        let robots = self.robots;
        let text = &robots.tables.text;
        self.rec()
            .agents
            .of(&robots.agents)
            .iter()
            .map(move |a| Agent {
                value: a.value.str(text),
                token: a.token.map(|t| t.str(text)),
                line: a.line,
            })
    }

    /// Whether one of the agents is `*`.
    #[must_use]
    pub fn is_star(&self) -> bool {
        self.agents().any(|a| a.token.is_none())
    }

    /// The rules, in file order (derived rules right after their line).
    pub fn rules(&self) -> impl ExactSizeIterator<Item = RuleInfo<'r>> + use<'r> {
        let robots = self.robots;
        let r = self.rec().rules;
        (r.start..r.end).map(move |i| robots.rule(i))
    }

    fn values(&self) -> Option<&'r Values> {
        self.robots.values.get(self.rec().values as usize)
    }

    /// The first valid `crawl-delay` (seconds).
    #[must_use]
    pub fn crawl_delay(&self) -> Option<Located<f64>> {
        self.values().and_then(|v| v.crawl_delay)
    }

    /// The first valid `request-rate`.
    #[must_use]
    pub fn request_rate(&self) -> Option<Located<RequestRate>> {
        self.values().and_then(|v| v.request_rate)
    }

    /// The first valid `visit-time`.
    #[must_use]
    pub fn visit_time(&self) -> Option<Located<VisitTime>> {
        self.values().and_then(|v| v.visit_time)
    }
}

impl std::fmt::Debug for Group<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("line", &self.line())
            .field("agents", &self.agents().collect::<Vec<_>>())
            .field("rules", &self.rules().collect::<Vec<_>>())
            .field("crawl_delay", &self.crawl_delay())
            .field("request_rate", &self.request_rate())
            .field("visit_time", &self.visit_time())
            .finish()
    }
}

/// Groups are equal when they read the same: same lines, agents, rules and
/// values (whichever file they belong to).
impl PartialEq for Group<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.line() == other.line()
            && self.agents().eq(other.agents())
            && self.rules().eq(other.rules())
            && self.values().copied().unwrap_or_default()
                == other.values().copied().unwrap_or_default()
    }
}

/// A robot's view of a compiled file: the groups it obeys, ready to answer
/// URLs. Resolve once per robot, then ask many URLs.
#[derive(Debug, Clone)]
pub struct Matcher<'r> {
    robots: &'r Robots,
    applies: Applies,
    set: Option<&'r SetRec>,
    groups: &'r [u32],
}

impl<'r> Matcher<'r> {
    /// Which groups apply.
    #[must_use]
    pub fn applies(&self) -> &Applies {
        &self.applies
    }

    /// The groups the robot obeys, in file order.
    pub fn groups(&self) -> impl ExactSizeIterator<Item = Group<'r>> + Clone + use<'r> {
        let robots = self.robots;
        self.groups.iter().map(move |&g| robots.group(g))
    }

    /// The decision for `url` (a full URL or a path).
    #[must_use]
    pub fn check(&self, url: &str) -> Decision {
        self.check_path(path_of(url).as_bytes())
    }

    /// Whether the robot may fetch `url` (a full URL or a path).
    #[must_use]
    pub fn is_allowed(&self, url: &str) -> bool {
        // The deciding rule is not asked for: it is not looked up.
        self.decide_path::<false>(path_of(url).as_bytes()).allowed
    }

    /// The decision for a path that is already the path, parameters and
    /// query of a URL (as [`path_of`] gives), not yet normalised.
    #[must_use]
    pub fn check_path(&self, path: &[u8]) -> Decision {
        self.decide_path::<true>(path)
    }

    /// The decision for `path`. With `REASON`, the deciding rule is known
    /// by its index in the file, with its line; without, only `allowed` is
    /// to be read (a constant, so that `is_allowed` carries no code for
    /// the reason).
    #[inline]
    fn decide_path<const REASON: bool>(&self, path: &[u8]) -> Decision {
        let robots = self.robots;
        let profile = &robots.profile;
        decide(profile, self.set, path, |set, path| {
            let text = robots.tables.text.as_bytes();
            let rules = set.rules(robots);
            let v = set
                .lazy
                .decide(text, rules, profile.wildcards, order_of(profile), path)?;
            Some(if REASON {
                let rule = set.file_index(robots, v.rule);
                Hit {
                    allowed: v.allowed,
                    rule,
                    line: robots.tables.rules[rule as usize].line,
                }
            } else {
                Hit {
                    allowed: v.allowed,
                    rule: v.rule,
                    line: 0,
                }
            })
        })
    }

    /// The robot's usage preferences for `url` (a full URL or a path),
    /// under both readings.
    #[must_use]
    pub fn usage(&self, url: &str) -> UsageAnswer {
        let robots = self.robots;
        let path = path_of(url);
        let fetch = self.check_path(path.as_bytes()).allowed;
        let lines: Vec<u32> = self.groups().map(|g| g.line()).collect();
        let path = normalize_path(path.as_bytes(), robots.profile.path_form);
        prefs::answer(
            &robots.prefs,
            &lines,
            &path,
            fetch,
            robots.profile.wildcards,
        )
    }

    /// The first valid `crawl-delay` among the groups the robot obeys.
    #[must_use]
    pub fn crawl_delay(&self) -> Option<Located<f64>> {
        self.groups().find_map(|g| g.crawl_delay())
    }

    /// The first valid `request-rate` among the groups the robot obeys.
    #[must_use]
    pub fn request_rate(&self) -> Option<Located<RequestRate>> {
        self.groups().find_map(|g| g.request_rate())
    }

    /// The first valid `visit-time` among the groups the robot obeys.
    #[must_use]
    pub fn visit_time(&self) -> Option<Located<VisitTime>> {
        self.groups().find_map(|g| g.visit_time())
    }
}

/// The rule that decides a path, as [`decide`] is told it.
struct Hit {
    allowed: bool,
    /// The index the rule is known by.
    rule: u32,
    line: u32,
}

/// The decision for `path` under `set` (`None`: no group applies), whose
/// deciding rule `verdict` gives with the path normalised.
#[inline]
fn decide<S>(
    profile: &Profile,
    set: Option<S>,
    path: &[u8],
    verdict: impl Fn(S, &[u8]) -> Option<Hit>,
) -> Decision {
    if profile.robots_txt_allowed && is_robots_txt(path) {
        return Decision {
            allowed: true,
            reason: Reason::RobotsTxt,
        };
    }
    let Some(set) = set else {
        return Decision {
            allowed: true,
            reason: Reason::NoGroup,
        };
    };
    let path = normalize_path(path, profile.path_form);
    match verdict(set, &path) {
        Some(v) => Decision {
            allowed: v.allowed,
            reason: Reason::Rule {
                index: v.rule,
                line: v.line,
            },
        },
        None => Decision {
            allowed: true,
            reason: Reason::NoRuleMatched,
        },
    }
}

/// One robot's reading of a robots.txt file, compiled straight from the
/// body: only the groups its token chain can select are compiled, so a
/// one-off question pays for little more than reading the file once.
/// [`Robots`] compiles every group, for checking a file or asking about
/// many robots.
///
/// Its answers are those of [`Robots::matcher`] for the same chain, reasons
/// and rule indices included.
///
/// ```
/// use botwarden_robots::{Profile, Reason, RobotMatcher, TokenChain};
/// let body = "User-agent: *\nDisallow: /\n\nUser-agent: examplebot\nDisallow: /private\n";
/// let bot = TokenChain::parse("examplebot");
/// let matcher = RobotMatcher::parse(body, &Profile::RFC9309, &bot);
/// assert!(matcher.is_allowed("https://example.com/public"));
/// let d = matcher.check("/private/x");
/// assert!(!d.allowed);
/// assert_eq!(d.reason, Reason::Rule { index: 1, line: 5 });
/// assert_eq!(matcher.rule(1).map(|r| r.to_string()).as_deref(), Some("Disallow: /private"));
/// ```
#[derive(Debug, Clone)]
pub struct RobotMatcher {
    pub(crate) profile: Profile,
    /// The text and rules of the groups the robot obeys.
    pub(crate) tables: Tables,
    /// Their rules, indexed on demand; `None` when no group applies.
    pub(crate) set: Option<LazySet>,
    pub(crate) applies: Applies,
    /// The groups the robot obeys, in file order.
    pub(crate) groups: Vec<Chosen>,
    /// The preference lines of those groups, and every `content-signal`.
    pub(crate) prefs: Vec<PrefLine>,
    pub(crate) cut: Option<Cut>,
}

/// A group a [`RobotMatcher`] obeys.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chosen {
    pub(crate) line: u32,
    pub(crate) values: Values,
    /// Its first rule in the matcher's tables.
    pub(crate) rules: u32,
    /// How many rules it has.
    pub(crate) len: u32,
    /// The index of that rule in a full compile (the group's rules are
    /// numbered without gaps in both).
    pub(crate) first_rule: u32,
}

impl RobotMatcher {
    /// The profile this file was read with.
    #[must_use]
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Which groups apply.
    #[must_use]
    pub fn applies(&self) -> &Applies {
        &self.applies
    }

    /// The line of the first `user-agent` of each group the robot obeys, in
    /// file order.
    pub fn group_lines(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.groups.iter().map(|g| g.line)
    }

    /// The preference lines of the groups the robot obeys, and every
    /// `content-signal` line of the file, in file order.
    #[must_use]
    pub fn preference_lines(&self) -> &[PrefLine] {
        &self.prefs
    }

    /// The robot's usage preferences for `url` (a full URL or a path),
    /// under both readings.
    #[must_use]
    pub fn usage(&self, url: &str) -> UsageAnswer {
        let path = path_of(url);
        let fetch = self.check_path(path.as_bytes()).allowed;
        if self.prefs.is_empty() {
            return prefs::answer(&[], &[], b"", fetch, false);
        }
        let lines: Vec<u32> = self.group_lines().collect();
        let path = normalize_path(path.as_bytes(), self.profile.path_form);
        prefs::answer(&self.prefs, &lines, &path, fetch, self.profile.wildcards)
    }

    /// The decision for `url` (a full URL or a path).
    #[must_use]
    pub fn check(&self, url: &str) -> Decision {
        self.check_path(path_of(url).as_bytes())
    }

    /// Whether the robot may fetch `url` (a full URL or a path).
    #[must_use]
    pub fn is_allowed(&self, url: &str) -> bool {
        // The deciding rule's index is not asked for: it stays local.
        self.decide_path::<false>(path_of(url).as_bytes()).allowed
    }

    /// The decision for a path that is already the path, parameters and
    /// query of a URL (as [`path_of`] gives), not yet normalised.
    #[must_use]
    pub fn check_path(&self, path: &[u8]) -> Decision {
        self.decide_path::<true>(path)
    }

    /// The decision for `path`. With `REASON`, the deciding rule is known
    /// by its index in a full compile, with its line; without, only
    /// `allowed` is to be read (the rules are not looked up, so that an
    /// answer reads the set's index and nothing else).
    #[inline]
    fn decide_path<const REASON: bool>(&self, path: &[u8]) -> Decision {
        let tables = &self.tables;
        let set = self.set.as_ref();
        let profile = &self.profile;
        decide(profile, set, path, |set, path| {
            let v = set.decide(
                tables.text.as_bytes(),
                &tables.rules,
                profile.wildcards,
                order_of(profile),
                path,
            )?;
            Some(if REASON {
                Hit {
                    allowed: v.allowed,
                    rule: self.full_index(v.rule),
                    line: tables.rules[v.rule as usize].line,
                }
            } else {
                Hit {
                    allowed: v.allowed,
                    rule: v.rule,
                    line: 0,
                }
            })
        })
    }

    /// A rule that can decide for this robot, by the index a
    /// [`Reason::Rule`] gives (the index [`Robots::rule`] knows it by).
    /// `None` for rules of groups that do not apply.
    #[must_use]
    pub fn rule(&self, index: u32) -> Option<RuleInfo<'_>> {
        let g = self
            .groups
            .iter()
            .find(|g| (g.first_rule..g.first_rule + g.len).contains(&index))?;
        let r = self
            .tables
            .rules
            .get((g.rules + (index - g.first_rule)) as usize)?;
        Some(RuleInfo {
            allow: r.allow,
            pattern: Cow::Borrowed(r.pattern.str(&self.tables.text)),
            line: r.line,
            priority: r.priority(),
            derived: r.derived,
        })
    }

    /// A rule as written in `txt`, the file this matcher was compiled from
    /// (`Disallow: /private`), with how the profile reads it when the
    /// profile derived it; by the index a [`Reason::Rule`] gives.
    #[must_use]
    pub fn rule_as_written(&self, txt: &RobotsTxt, index: u32) -> String {
        let Some(rule) = self.rule(index) else {
            return format!("rule {index}");
        };
        let written = txt.line(rule.line).and_then(|l| match l.kind {
            LineKind::Directive(d) => Some(format!("{}: {}", txt.text(d.key), txt.text(d.value))),
            _ => None,
        });
        match (written, rule.derived) {
            (Some(w), false) => w,
            (Some(w), true) => format!("{w} (read as {rule})"),
            (None, _) => rule.to_string(),
        }
    }

    /// The index a rule of `tables` has in a full compile.
    fn full_index(&self, local: u32) -> u32 {
        let g = self
            .groups
            .iter()
            .find(|g| (g.rules..g.rules + g.len).contains(&local));
        g.map_or(local, |g| g.first_rule + (local - g.rules))
    }

    /// The first valid `crawl-delay` among the groups the robot obeys.
    #[must_use]
    pub fn crawl_delay(&self) -> Option<Located<f64>> {
        self.groups.iter().find_map(|g| g.values.crawl_delay)
    }

    /// The first valid `request-rate` among the groups the robot obeys.
    #[must_use]
    pub fn request_rate(&self) -> Option<Located<RequestRate>> {
        self.groups.iter().find_map(|g| g.values.request_rate)
    }

    /// The first valid `visit-time` among the groups the robot obeys.
    #[must_use]
    pub fn visit_time(&self) -> Option<Located<VisitTime>> {
        self.groups.iter().find_map(|g| g.values.visit_time)
    }

    /// Whether, and where, the profile stopped reading a body over its size
    /// limit.
    #[must_use]
    pub fn cut(&self) -> Option<Cut> {
        self.cut
    }

    /// Bytes of heap this matcher holds, for memory accounting.
    #[must_use]
    pub fn heap_size(&self) -> usize {
        let applies = match &self.applies {
            Applies::Token(t) => t.capacity(),
            Applies::Star | Applies::Nothing => 0,
        };
        self.tables.heap_size()
            + self.set.as_ref().map_or(0, LazySet::heap_size)
            + self.groups.capacity() * size_of::<Chosen>()
            + applies
    }
}

/// Whether the path (without parameters or query) is `/robots.txt`.
fn is_robots_txt(path: &[u8]) -> bool {
    path.strip_prefix(b"/robots.txt")
        .is_some_and(|rest| matches!(rest.first(), None | Some(b'?' | b';')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_txt_paths() {
        for (path, want) in [
            ("/robots.txt", true),
            ("/robots.txt?x=1", true),
            ("/robots.txt;p", true),
            ("/robots.txt/", false),
            ("/robots.txtx", false),
            ("/robots.tx", false),
            ("/a/robots.txt", false),
            ("", false),
        ] {
            assert_eq!(is_robots_txt(path.as_bytes()), want, "{path}");
        }
    }

    #[test]
    fn every_reason_is_explained_in_words() {
        let txt = RobotsTxt::parse(
            "User-agent: a\nDisallow: /x\n\nUser-agent: a\nAllow: /dir/index.html\n\n\
             User-agent: b\nDisallow: /\n",
        );
        let say = |profile: &Profile, agent: &str, url: &str| {
            let chain = TokenChain::parse(agent);
            let matcher = RobotMatcher::new(&txt, profile, &chain);
            let d = matcher.check(url);
            d.explain(&matcher, &txt, &chain).to_string()
        };
        let rfc = &Profile::RFC9309;
        assert_eq!(
            say(rfc, "a", "/x"),
            "group for 'a' (lines 1, 4), rule 'Disallow: /x' at line 2"
        );
        assert_eq!(
            say(rfc, "a", "/y"),
            "group for 'a' (lines 1, 4), no rule matched"
        );
        assert_eq!(say(rfc, "c,d", "/y"), "no group names c, d or '*'");
        assert_eq!(say(rfc, "*", "/y"), "no group names * or '*'");
        assert_eq!(
            say(rfc, "b", "/robots.txt"),
            "/robots.txt is always allowed (rfc9309)"
        );
        assert_eq!(
            say(&Profile::GOOGLE, "a", "/dir/"),
            "group for 'a' (lines 1, 4), rule 'Allow: /dir/index.html (read as Allow: /dir/$ \
             (derived from /index.html))' at line 5"
        );
    }
}
