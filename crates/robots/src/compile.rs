//! Compiling a parsed file for one profile: reading its directives the way
//! the profile does (limits, spellings, grouping), then indexing groups by
//! token and building their rule sets — every group's ([`Robots`]), or only
//! those one robot's token chain can select ([`RobotMatcher`]).

use crate::directive::DirectiveName;
use crate::parse::{LineKind, RawLines, RobotsTxt, Separator, Span, has_bom, split_line};
use crate::path::{BodyBytes, normalize_pattern};
use crate::prefs::{PrefLine, Vocabulary};
use crate::profile::{AgentMatch, Beyond, Grouping, Profile};
use crate::robots::{
    AgentRec, Applies, Chosen, Cut, GroupRec, Located, NO_VALUES, RobotMatcher, Robots, SetRec,
    TextRec, TokenRec, Values,
};
use crate::ruleset::{LazySet, Range32, Rule, Tables, order_of, to_u32};
use crate::token::{AgentName, TokenChain};
use crate::values::{CleanParam, RequestRate, VisitTime, parse_crawl_delay};

use std::borrow::Cow;

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

impl Robots {
    /// Compiles a parsed file for `profile`: every group, every rule, every
    /// file-wide value. [`RobotMatcher`] compiles only what one robot reads.
    #[must_use]
    pub fn new(txt: &RobotsTxt, profile: &Profile) -> Robots {
        let (mut agents, mut rules) = (0, 0);
        for (_, d) in txt.directives() {
            agents += usize::from(d.name == DirectiveName::UserAgent);
            rules += usize::from(d.name.is_rule());
        }
        let mut b = Builder::new(profile, None);
        b.agents.reserve_exact(agents);
        b.tables.rules.reserve_exact(rules);
        b.tables.text.reserve(txt.bytes().len() / 2);
        b.read(
            txt.bytes(),
            txt.has_bom(),
            txt.lines().iter().map(|l| (l.number, l.span, l.kind)),
        );
        b.into_robots()
    }

    /// Parses and compiles a robots.txt body for `profile`, as
    /// [`Robots::new`] does, without keeping the lossless tree.
    #[must_use]
    pub fn parse(body: impl Into<Vec<u8>>, profile: &Profile) -> Robots {
        let body = body.into();
        let mut b = Builder::new(profile, None);
        b.reserve_for(&body);
        b.read(&body, has_bom(&body), stream(&body));
        b.into_robots()
    }
}

/// The lines of a body with what they hold, as [`RobotsTxt::parse`] reads
/// them, one at a time.
fn stream(body: &[u8]) -> impl Iterator<Item = (u32, Span, LineKind)> + '_ {
    RawLines::new(body).map(|line| (line.number, line.span, line.parts(body).kind))
}

impl RobotMatcher {
    /// Reads `body` as `profile` does and compiles only the groups that
    /// `chain` can select: the groups naming one of its tokens (or a
    /// fallback of the profile's), and the `*` groups. Other groups are
    /// read (their user-agent lines decide where groups start and end, and
    /// their rules are counted so that rule indices are the ones
    /// [`Robots`] gives) but not compiled. No lossless tree is built.
    ///
    /// Answers are those of `Robots::parse(body, profile).matcher(chain)`,
    /// reasons included.
    #[must_use]
    pub fn parse(body: impl AsRef<[u8]>, profile: &Profile, chain: &TokenChain) -> RobotMatcher {
        let body = body.as_ref();
        let mut b = Builder::new(profile, Some(Want::new(profile, chain)));
        b.reserve_for(body);
        b.read(body, has_bom(body), stream(body));
        b.into_robot()
    }

    /// As [`RobotMatcher::parse`], from a file already parsed.
    #[must_use]
    pub fn new(txt: &RobotsTxt, profile: &Profile, chain: &TokenChain) -> RobotMatcher {
        let mut b = Builder::new(profile, Some(Want::new(profile, chain)));
        b.reserve_for(txt.bytes());
        b.read(
            txt.bytes(),
            txt.has_bom(),
            txt.lines().iter().map(|l| (l.number, l.span, l.kind)),
        );
        b.into_robot()
    }
}

/// No candidate level: the group names none of the chain's tokens.
const NO_LEVEL: u32 = u32::MAX;

/// What a compile for one robot keeps: the groups its token chain can
/// select.
struct Want<'c> {
    profile: &'c Profile,
    chain: &'c TokenChain,
}

impl<'c> Want<'c> {
    fn new(profile: &'c Profile, chain: &'c TokenChain) -> Want<'c> {
        Want { profile, chain }
    }

    /// The tokens in the order they are tried: under product-token
    /// profiles each token of the chain (lower case) then its fallbacks;
    /// under substring profiles the chain's tokens (lower case).
    fn tokens(&self) -> impl Iterator<Item = &'c str> + use<'c> {
        let profile = self.profile;
        let fallbacks = profile.agent_match == AgentMatch::ProductToken;
        self.chain.lower().iter().flat_map(move |token| {
            std::iter::once(token.as_str()).chain(
                profile
                    .fallbacks_of(token)
                    .filter(move |_| fallbacks)
                    .map(|f| -> &'c str { f }),
            )
        })
    }

    /// The first level (position among [`Want::tokens`]) that a user-agent
    /// value names, or `NO_LEVEL`.
    fn level(&self, value: &[u8]) -> u32 {
        let Some(name) = AgentName::read(value, self.profile.agent_match).name() else {
            return NO_LEVEL;
        };
        match self.profile.agent_match {
            AgentMatch::ProductToken => self
                .tokens()
                .position(|t| t.as_bytes().eq_ignore_ascii_case(name))
                .map_or(NO_LEVEL, to_u32),
            AgentMatch::Substring => {
                let lower = String::from_utf8_lossy(name).to_lowercase();
                self.tokens()
                    .position(|t| t.split('/').next().unwrap_or_default().contains(&*lower))
                    .map_or(NO_LEVEL, to_u32)
            }
        }
    }
}

/// Whether a user-agent value names every robot under `profile`.
fn is_star_agent(profile: &Profile, value: &[u8]) -> bool {
    AgentName::read(value, profile.agent_match) == AgentName::Every
}

/// Per group, in a compile for one robot: the lowest level it names and
/// whether it names `*`.
#[derive(Debug, Clone, Copy)]
struct Mark {
    level: u32,
    star: bool,
    /// The index its first rule has in a full compile: a group's rules are
    /// numbered without gaps.
    first_rule: u32,
}

/// Reads a profile's directives into groups, rules and file-wide values.
struct Builder<'p, 'c> {
    profile: &'p Profile,
    /// `Some` when compiling for one robot only.
    want: Option<Want<'c>>,
    tables: Tables,
    groups: Vec<GroupRec>,
    agents: Vec<AgentRec>,
    values: Vec<Values>,
    sitemaps: Vec<TextRec>,
    hosts: Vec<TextRec>,
    clean_params: Vec<Located<CleanParam>>,
    /// `content-usage` and `content-signal` lines, in file order.
    prefs: Vec<PrefLine>,
    llm_policies: Vec<TextRec>,
    cut: Option<Cut>,
    /// The group whose user-agent lines or members are being read.
    current: Option<usize>,
    /// Whether the current group has members (so a user-agent line starts a
    /// new group).
    in_body: bool,
    /// 1994 records: per group, whether it is kept (records without
    /// members are not).
    kept: Vec<bool>,
    /// Index of the next rule, counting the rules not compiled.
    next_rule: u32,
    /// One robot only: per group, what it names.
    marks: Vec<Mark>,
    /// Whether every pattern of the body is already in the profile's form.
    patterns_normal: bool,
}

impl<'p, 'c> Builder<'p, 'c> {
    fn new(profile: &'p Profile, want: Option<Want<'c>>) -> Builder<'p, 'c> {
        Builder {
            profile,
            want,
            tables: Tables::default(),
            groups: Vec::new(),
            agents: Vec::new(),
            values: Vec::new(),
            sitemaps: Vec::new(),
            hosts: Vec::new(),
            clean_params: Vec::new(),
            prefs: Vec::new(),
            llm_policies: Vec::new(),
            cut: None,
            current: None,
            in_body: false,
            kept: Vec::new(),
            next_rule: 0,
            marks: Vec::new(),
            patterns_normal: false,
        }
    }

    /// Room for what a body of this size usually holds, so that the
    /// arena and the rules grow once or twice rather than a dozen times
    /// (the spare room is given back at the end).
    fn reserve_for(&mut self, body: &[u8]) {
        let rules = body.len() / 32;
        self.tables.text.reserve(body.len() / 2);
        self.tables.rules.reserve(rules);
    }

    /// Reads every line as the profile does, applying its limits: size,
    /// line length, NUL, partial BOM. `lines` are the body's lines after
    /// any full BOM, with what each holds.
    fn read(
        &mut self,
        bytes: &[u8],
        has_bom: bool,
        lines: impl Iterator<Item = (u32, Span, LineKind)>,
    ) {
        let profile = self.profile;
        let limit = profile.size_limit;
        if let Some(l) = limit
            && l.beyond == Beyond::IgnoreFile
            && bytes.len() > l.bytes
        {
            self.cut = Some(Cut::FileIgnored { size: bytes.len() });
            return;
        }
        let truncate_at = limit
            .filter(|l| l.beyond == Beyond::Truncate)
            .map(|l| l.bytes);
        // One scan of the whole body instead of one per line or pattern.
        let body = BodyBytes::of(bytes);
        let nul = profile.nul_ends_line && body.nul;
        self.patterns_normal = body.patterns_normal(profile.path_form);
        let partial_bom = profile.partial_bom && !has_bom;
        // Text is copied out of a body that is valid UTF-8 without checking
        // each piece again.
        let text = std::str::from_utf8(bytes).ok();
        for (number, line_span, kind) in lines {
            let mut span = line_span;
            if let Some(at) = truncate_at {
                if span.start >= at {
                    self.cut = Some(Cut::Truncated { at });
                    break;
                }
                if span.end > at {
                    span.end = at;
                    self.cut = Some(Cut::Truncated { at });
                }
            }
            if nul && let Some(n) = memchr::memchr(0, &bytes[span.range()]) {
                span.end = span.start + n;
            }
            // Google skips each of the first three bytes that is the BOM's
            // byte at that place (a whole BOM is gone already).
            let skip_bom = partial_bom
                && span.start < BOM.len()
                && (span.start..span.end.min(BOM.len())).any(|i| bytes[i] == BOM[i]);
            let too_long = profile.line_limit.is_some_and(|l| span.len() > l);
            if span == line_span && !skip_bom && !too_long {
                self.line(number, kind, bytes, text);
                continue;
            }
            // The profile sees another line than the file holds: split its
            // own view of it.
            let mut own = Vec::with_capacity(span.len());
            own.extend(
                (span.start..span.end)
                    .filter(|&i| !(skip_bom && i < BOM.len() && bytes[i] == BOM[i]))
                    .map(|i| bytes[i]),
            );
            if let Some(l) = profile.line_limit {
                own.truncate(l);
            }
            let kind = split_line(&own, Span::new(0, own.len())).kind;
            self.line(number, kind, &own, std::str::from_utf8(&own).ok());
        }
        self.end_group();
    }

    /// One line; spans in `kind` index `bytes`, and `text` when `bytes` is
    /// valid UTF-8.
    #[inline]
    fn line(&mut self, number: u32, kind: LineKind, bytes: &[u8], text: Option<&str>) {
        match kind {
            LineKind::Blank => {
                // 1994 standard: a blank line ends a record.
                if self.profile.grouping == Grouping::BlankLineRecords {
                    self.end_group();
                }
            }
            LineKind::Directive(d) => {
                if self
                    .profile
                    .reads(d.name, d.spelling, d.separator == Separator::Colon)
                {
                    let value = &bytes[d.value.range()];
                    let text = text.and_then(|t| t.get(d.value.range()));
                    self.directive(number, d.name, value, text);
                }
            }
            LineKind::Comment | LineKind::Unparsed => {}
        }
    }

    fn end_group(&mut self) {
        if let Some(g) = self.current.take()
            && self.profile.grouping == Grouping::BlankLineRecords
        {
            self.kept[g] = self.in_body;
        }
        self.in_body = false;
    }

    /// Copies text into the arena; `text`, when given, is `bytes` already
    /// known to be UTF-8.
    fn push_text(&mut self, bytes: &[u8], text: Option<&str>) -> Range32 {
        let start = self.tables.text.len();
        match text.map(Ok).unwrap_or_else(|| std::str::from_utf8(bytes)) {
            Ok(text) => self.tables.text.push_str(text),
            Err(_) => self.tables.text.push_str(&String::from_utf8_lossy(bytes)),
        }
        Range32::new(start, self.tables.text.len())
    }

    /// One directive the profile reads; `text` is `value` when it is known
    /// to be UTF-8.
    fn directive(&mut self, line: u32, name: DirectiveName, value: &[u8], text: Option<&str>) {
        match name {
            DirectiveName::UserAgent => {
                let g = match self.current {
                    Some(g) if !self.in_body => g,
                    _ => {
                        self.end_group();
                        let at = to_u32(self.agents.len());
                        let rules = to_u32(self.tables.rules.len());
                        self.groups.push(GroupRec {
                            line,
                            agents: Range32 { start: at, end: at },
                            rules: Range32 {
                                start: rules,
                                end: rules,
                            },
                            values: NO_VALUES,
                        });
                        if self.profile.grouping == Grouping::BlankLineRecords {
                            self.kept.push(false);
                        }
                        if self.want.is_some() {
                            self.marks.push(Mark {
                                level: NO_LEVEL,
                                star: false,
                                first_rule: self.next_rule,
                            });
                        }
                        self.current = Some(self.groups.len() - 1);
                        self.groups.len() - 1
                    }
                };
                if let Some(want) = &self.want {
                    // One robot: only what the group names matters.
                    let profile = self.profile;
                    let mark = &mut self.marks[g];
                    if is_star_agent(profile, value) {
                        mark.star = true;
                    } else {
                        mark.level = mark.level.min(want.level(value));
                    }
                } else {
                    let agent = self.agent(value, text, line);
                    self.agents.push(agent);
                    self.groups[g].agents.end = to_u32(self.agents.len());
                }
            }
            DirectiveName::Allow | DirectiveName::Disallow => {
                if let Some(g) = self.current {
                    let allow = name == DirectiveName::Allow;
                    if self.compiles(g) {
                        self.push_rule(g, allow, value, text, line);
                    } else {
                        self.skip_rule(allow, value);
                    }
                    self.in_body = true;
                }
            }
            DirectiveName::CrawlDelay | DirectiveName::RequestRate | DirectiveName::VisitTime => {
                if let Some(g) = self.current {
                    // Kept for every group: a later user-agent line can
                    // still make this group one the robot obeys.
                    self.set_value(g, name, &String::from_utf8_lossy(value), line);
                    self.in_body |= self.profile.grouping != Grouping::Rules;
                }
            }
            // File-wide values: one robot's answers do not need them.
            DirectiveName::Sitemap | DirectiveName::Host | DirectiveName::CleanParam
                if self.want.is_some() => {}
            DirectiveName::Sitemap => {
                let text = self.push_text(value, text);
                self.sitemaps.push(TextRec { text, line });
            }
            DirectiveName::Host => {
                let text = self.push_text(value, text);
                self.hosts.push(TextRec { text, line });
            }
            DirectiveName::CleanParam => {
                if let Some(value) = CleanParam::parse(&String::from_utf8_lossy(value)) {
                    self.clean_params.push(Located { value, line });
                }
            }
            DirectiveName::ContentUsage | DirectiveName::ContentSignal => {
                self.preference(line, name, value);
            }
            DirectiveName::LlmPolicy if self.want.is_some() => {}
            DirectiveName::LlmPolicy => {
                let text = self.push_text(value, text);
                self.llm_policies.push(TextRec { text, line });
            }
            DirectiveName::RobotVersion | DirectiveName::Comment | DirectiveName::Unknown => {}
        }
    }

    /// A `content-usage` or `content-signal` line, kept with the group it
    /// stands in.
    fn preference(&mut self, line: u32, name: DirectiveName, value: &[u8]) {
        let vocabulary = if name == DirectiveName::ContentUsage {
            Vocabulary::Aipref
        } else {
            Vocabulary::ContentSignal
        };
        let group = self.current.map(|g| self.groups[g].line);
        if group.is_some() && self.profile.preference_members {
            self.in_body = true;
        }
        let value = String::from_utf8_lossy(value);
        self.prefs.push(PrefLine::read(
            self.profile,
            vocabulary,
            line,
            group,
            &value,
        ));
    }

    /// The agent of a `user-agent` value, as the profile matches it.
    fn agent(&mut self, value: &[u8], text: Option<&str>, line: u32) -> AgentRec {
        let text = self.push_text(value, text);
        let token = match AgentName::read(value, self.profile.agent_match) {
            AgentName::Every => None,
            AgentName::Named(name) => {
                let start = self.tables.text.len();
                match self.profile.agent_match {
                    AgentMatch::ProductToken => self
                        .tables
                        .text
                        .extend(name.iter().map(|b| char::from(b.to_ascii_lowercase()))),
                    AgentMatch::Substring => {
                        let lower = text.str(&self.tables.text).to_lowercase();
                        self.tables.text.push_str(&lower);
                    }
                }
                Some(Range32::new(start, self.tables.text.len()))
            }
        };
        AgentRec {
            value: text,
            token,
            line,
        }
    }

    /// A rule's value in the profile's form.
    fn normalize<'v>(&self, value: &'v [u8]) -> Cow<'v, [u8]> {
        if self.patterns_normal {
            Cow::Borrowed(value)
        } else {
            normalize_pattern(value, self.profile.path_form)
        }
    }

    /// Whether the rules of group `g` are compiled: always, unless
    /// compiling for one robot and the group names none of its tokens and
    /// not `*`.
    fn compiles(&self, g: usize) -> bool {
        self.want.is_none() || self.marks[g].level != NO_LEVEL || self.marks[g].star
    }

    /// Google: `/dir/index.htm…` in an `allow` also allows `/dir/` exactly.
    /// Where the directory ends in the normalised pattern, if it does.
    fn directory_end(&self, allow: bool, pattern: &[u8]) -> Option<usize> {
        (allow && self.profile.index_html_is_directory)
            .then(|| pattern.iter().rposition(|&b| b == b'/'))
            .flatten()
            .filter(|&s| pattern[s..].starts_with(b"/index.htm"))
    }

    fn push_rule(
        &mut self,
        group: usize,
        allow: bool,
        value: &[u8],
        text: Option<&str>,
        line: u32,
    ) {
        let pattern = self.normalize(value);
        let directory = self
            .directory_end(allow, &pattern)
            .map(|s| [&pattern[..=s], b"$"].concat());
        // A pattern in normal form is the value itself more often than not.
        let text = text.filter(|_| matches!(pattern, Cow::Borrowed(_)));
        self.add_rule(group, allow, &pattern, text, line, false);
        if let Some(dir) = directory {
            self.add_rule(group, allow, &dir, None, line, true);
        }
    }

    /// Counts a rule that is not compiled, so that the next ones keep the
    /// indices of a full compile.
    fn skip_rule(&mut self, allow: bool, value: &[u8]) {
        self.next_rule += 1;
        if allow && self.profile.index_html_is_directory {
            let pattern = self.normalize(value);
            if self.directory_end(allow, &pattern).is_some() {
                self.next_rule += 1;
            }
        }
    }

    fn add_rule(
        &mut self,
        group: usize,
        allow: bool,
        pattern: &[u8],
        text: Option<&str>,
        line: u32,
        derived: bool,
    ) {
        let pattern = self.push_text(pattern, text);
        self.tables.rules.push(Rule {
            pattern,
            line,
            allow,
            derived,
        });
        self.next_rule += 1;
        self.groups[group].rules.end = to_u32(self.tables.rules.len());
    }

    fn set_value(&mut self, group: usize, name: DirectiveName, value: &str, line: u32) {
        let g = &mut self.groups[group];
        if g.values == NO_VALUES {
            g.values = to_u32(self.values.len());
            self.values.push(Values::default());
        }
        let v = &mut self.values[g.values as usize];
        match name {
            DirectiveName::CrawlDelay if v.crawl_delay.is_none() => {
                v.crawl_delay = parse_crawl_delay(value).map(|value| Located { value, line });
            }
            DirectiveName::RequestRate if v.request_rate.is_none() => {
                v.request_rate = RequestRate::parse(value).map(|value| Located { value, line });
            }
            DirectiveName::VisitTime if v.visit_time.is_none() => {
                v.visit_time = VisitTime::parse(value).map(|value| Located { value, line });
            }
            _ => {}
        }
    }

    /// Drops 1994 records that hold user-agent lines only (their rules and
    /// agents are kept in the tables but unreachable; there are none for
    /// such records).
    fn drop_unkept(&mut self) {
        if self.profile.grouping == Grouping::BlankLineRecords {
            let mut kept = self.kept.iter();
            self.groups.retain(|_| kept.next().copied().unwrap_or(true));
            if self.want.is_some() {
                let mut kept = self.kept.iter();
                self.marks.retain(|_| kept.next().copied().unwrap_or(true));
            }
        }
    }

    /// The file compiled in full: every group's rule set and the token
    /// index.
    fn into_robots(self) -> Robots {
        let mut robots = self.finish();
        index(&mut robots);
        robots.tables.shrink_to_fit();
        robots.sets.shrink_to_fit();
        robots.merged.shrink_to_fit();
        robots.tokens.shrink_to_fit();
        robots
    }

    /// The groups the robot obeys, as [`Robots::matcher`] selects them, and
    /// their merged rule set.
    fn into_robot(mut self) -> RobotMatcher {
        self.drop_unkept();
        let profile = *self.profile;
        let marks = &self.marks;
        let substring = profile.agent_match == AgentMatch::Substring;
        // Substring profiles read the first record only, and never a `*`
        // record for a token.
        let by_token = |m: &Mark| {
            if substring && m.star {
                NO_LEVEL
            } else {
                m.level
            }
        };
        let best = marks.iter().map(by_token).min().unwrap_or(NO_LEVEL);
        let selected = |g: usize| {
            if best == NO_LEVEL {
                marks[g].star
            } else {
                by_token(&marks[g]) == best
            }
        };
        // The chosen groups' rules move to the front, in file order; the
        // rest are dropped.
        let mut groups = Vec::new();
        let mut kept = 0;
        for g in (0..marks.len()).filter(|&g| selected(g)) {
            let rec = self.groups[g];
            let r = rec.rules.start as usize..rec.rules.end as usize;
            self.tables.rules.copy_within(r.clone(), kept);
            kept += r.len();
            let values = self
                .values
                .get(rec.values as usize)
                .copied()
                .unwrap_or_default();
            groups.push(Chosen {
                line: rec.line,
                values,
                rules: to_u32(kept - r.len()),
                len: to_u32(r.len()),
                first_rule: marks[g].first_rule,
            });
            if substring {
                break;
            }
        }
        self.tables.rules.truncate(kept);
        let applies = match (best, groups.is_empty()) {
            (NO_LEVEL, true) => Applies::Nothing,
            (NO_LEVEL, false) => Applies::Star,
            (level, _) => {
                let token = self
                    .want
                    .as_ref()
                    .and_then(|w| w.tokens().nth(level as usize))
                    .unwrap_or_default();
                Applies::Token(token.to_owned())
            }
        };
        let set =
            (!groups.is_empty()).then(|| LazySet::new(&self.tables.rules, order_of(&profile)));
        // Give back room only where much is spare: shrinking costs a
        // reallocation, which a one-off question should not pay for.
        if self.tables.text.capacity() > 2 * self.tables.text.len() + 64 {
            self.tables.text.shrink_to_fit();
        }
        if self.tables.rules.capacity() > 2 * self.tables.rules.len() + 4 {
            self.tables.rules.shrink_to_fit();
        }
        // Preference lines: those of the chosen groups, and every
        // `Content-Signal` (read file-wide by some robots).
        let mut prefs = self.prefs;
        prefs.retain(|l| {
            l.statement.vocabulary == Vocabulary::ContentSignal
                || l.group.is_some_and(|g| groups.iter().any(|c| c.line == g))
        });
        RobotMatcher {
            profile,
            tables: self.tables,
            set,
            applies,
            groups,
            prefs,
            cut: self.cut,
        }
    }

    /// The file as read, before indexing.
    fn finish(mut self) -> Robots {
        self.drop_unkept();
        self.groups.shrink_to_fit();
        self.agents.shrink_to_fit();
        self.values.shrink_to_fit();
        self.sitemaps.shrink_to_fit();
        self.hosts.shrink_to_fit();
        Robots {
            profile: *self.profile,
            tables: self.tables,
            groups: self.groups,
            agents: self.agents,
            values: self.values,
            sets: Vec::new(),
            merged: Vec::new(),
            tokens: Vec::new(),
            star: None,
            records: Range32::default(),
            sitemaps: self.sitemaps,
            hosts: self.hosts,
            clean_params: self.clean_params,
            prefs: self.prefs,
            llm_policies: self.llm_policies,
            cut: self.cut,
        }
    }
}

/// Builds the rule sets (group `i` owns set `i`, merged sets follow) and the
/// lookup from tokens to them.
fn index(robots: &mut Robots) {
    let profile = robots.profile;
    let order = order_of(&profile);
    // Nothing is indexed yet: a set builds what answers quickly when it is
    // asked (see `LazySet`).
    let mut sets: Vec<SetRec> = Vec::with_capacity(robots.groups.len() + 1);
    for g in &robots.groups {
        sets.push(SetRec {
            rules: g.rules,
            groups: Range32::default(),
            lazy: LazySet::new(g.rules.of(&robots.tables.rules), order),
        });
    }
    let substring = profile.agent_match == AgentMatch::Substring;
    if substring {
        index_records(robots, sets);
        return;
    }
    let named = named_tokens(robots);
    let tables = &mut robots.tables;
    let mut tokens = Vec::new();
    let mut star = None;
    let mut i = 0;
    while i < named.len() {
        let token = named[i].0;
        let same = |n: &(Option<Range32>, u32)| {
            n.0.map(|r| r.str(&tables.text)) == token.map(|r| r.str(&tables.text))
        };
        let j = i + named[i..].iter().take_while(|n| same(n)).count();
        let start = tables.ids.len();
        tables.ids.extend(named[i..j].iter().map(|n| n.1));
        let groups = Range32::new(start, tables.ids.len());
        let set = if j - i == 1 {
            named[i].1
        } else {
            let start = robots.merged.len();
            for &g in groups.of(&tables.ids) {
                let r = robots.groups[g as usize].rules;
                robots.merged.extend_from_slice(r.of(&tables.rules));
            }
            let rules = Range32::new(start, robots.merged.len());
            sets.push(SetRec {
                rules,
                groups,
                lazy: LazySet::new(rules.of(&robots.merged), order),
            });
            to_u32(sets.len() - 1)
        };
        let rec = TokenRec {
            token: token.unwrap_or_default(),
            set,
            groups,
        };
        match token {
            Some(_) => tokens.push(rec),
            None => star = Some(rec),
        }
        i = j;
    }
    robots.sets = sets;
    robots.tokens = tokens;
    robots.star = star;
}

/// For robots that match names as substrings: the groups to scan (those
/// not for `*`, in file order) and the first `*` group.
fn index_records(robots: &mut Robots, sets: Vec<SetRec>) {
    let tables = &mut robots.tables;
    // Substring matching cannot be indexed: records are scanned in file
    // order, and only the first `*` record counts.
    let start = tables.ids.len();
    let mut star = None;
    for (g, rec) in (0u32..).zip(&robots.groups) {
        let is_star = rec
            .agents
            .of(&robots.agents)
            .iter()
            .any(|a| a.token.is_none());
        if !is_star {
            tables.ids.push(g);
        } else if star.is_none() {
            star = Some(g);
        }
    }
    robots.records = Range32::new(start, tables.ids.len());
    robots.star = star.map(|g| {
        let at = tables.ids.len();
        tables.ids.push(g);
        TokenRec {
            token: Range32::default(),
            set: g,
            groups: Range32::new(at, at + 1),
        }
    });
    robots.sets = sets;
}

/// The token of each agent (`None` for `*`), with its group, sorted by
/// token then group, each pair once.
fn named_tokens(robots: &Robots) -> Vec<(Option<Range32>, u32)> {
    // Token of each agent, with its group, sorted by token: one entry per
    // distinct token, and one for `*`.
    let mut named: Vec<(Option<Range32>, u32)> = Vec::with_capacity(robots.agents.len());
    for (g, rec) in (0u32..).zip(&robots.groups) {
        named.extend(rec.agents.of(&robots.agents).iter().map(|a| (a.token, g)));
    }
    let text = &robots.tables.text;
    named.sort_by(|a, b| {
        let key = |t: Option<Range32>| t.map(|r| r.str(text));
        key(a.0).cmp(&key(b.0)).then(a.1.cmp(&b.1))
    });
    named.dedup_by(|later, first| {
        later.1 == first.1 && later.0.map(|r| r.str(text)) == first.0.map(|r| r.str(text))
    });
    named
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robots::{Applies, Reason};
    use crate::token::TokenChain;

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
    fn rule_sets_build_their_block_at_the_second_question() {
        // A small group, a large one (more than sixteen rules, with
        // wildcards and prefixes longer than a head), and a token named by
        // two groups, whose merged set answers with the rules' indices in
        // the file.
        let mut body = String::from("User-agent: small\nDisallow: /a\nAllow: /a/b\n\n");
        body.push_str("User-agent: large\n");
        for i in 0..20 {
            body.push_str(&format!("Disallow: /section-number-{i:02}/page\n"));
            body.push_str(&format!("Allow: /section-number-{i:02}/*.html$\n"));
        }
        body.push_str("\nUser-agent: merged\nDisallow: /x\n\nUser-agent: other\nDisallow: /\n");
        body.push_str("\nUser-agent: merged\nAllow: /x/y\n");
        let robots = Robots::parse(body.as_bytes().to_vec(), &Profile::GOOGLE);
        let compiled = robots.heap_size();
        let cases = [
            ("small", "/a/c", Some((false, 2))),
            ("small", "/a/b/c", Some((true, 3))),
            ("small", "/z", None),
            ("large", "/section-number-07/page/1", Some((false, 20))),
            ("large", "/section-number-07/page/1.html", Some((true, 21))),
            ("large", "/section-number-07/pag", None),
            ("merged", "/x/z", Some((false, 48))),
            ("merged", "/x/y/z", Some((true, 54))),
        ];
        // Asked once, a set tries its rules and builds nothing.
        for agent in ["small", "large", "merged"] {
            assert!(robots.is_allowed(&TokenChain::parse(agent), "/q"));
        }
        assert_eq!(robots.heap_size(), compiled);
        for round in 0..2 {
            for (agent, path, want) in cases {
                let chain = TokenChain::parse(agent);
                let d = robots.check(&chain, path);
                let got = match d.reason {
                    Reason::Rule { line, index } => {
                        assert_eq!(robots.rule(index).line, line, "{agent} {path}");
                        Some((d.allowed, line))
                    }
                    _ => None,
                };
                assert_eq!(got, want, "{agent} {path}, round {round}");
                let one = RobotMatcher::parse(body.as_bytes(), &Profile::GOOGLE, &chain);
                assert_eq!(one.check(path), d, "{agent} {path}, round {round}");
            }
        }
        // Asked again, each set built its block.
        assert!(robots.heap_size() > compiled);
    }

    #[test]
    fn google_ignores_content_after_500_kib() {
        let body = padded(500 * 1024);
        let robots = Robots::parse(body.clone(), &Profile::GOOGLE);
        assert_eq!(robots.cut(), Some(Cut::Truncated { at: 500 * 1024 }));
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
        assert_eq!(robots.cut(), Some(Cut::FileIgnored { size: body.len() }));
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
        assert_eq!(
            robots.sitemaps().next().map(|s| s.value),
            Some("https://e.example/s.xml")
        );
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
        assert_eq!(m.groups().map(|g| g.line()).collect::<Vec<_>>(), [4]);
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
