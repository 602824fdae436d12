//! The differential check: under every profile, every robot the files name
//! (and a few that fall back to `*`) is asked the paths where a decision
//! could differ, on both files; every difference is reported with the
//! change of the fixer that accounts for it, or as unintended.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use crate::analysis::Analysis;
use crate::change::{ChangeKind, Fixed, NO_GROUP, ORDER, Origin, PATTERN, Plan, READING, has};
use crate::directive::DirectiveName;
use crate::lint::example_path;
use crate::matrix::spread;
use crate::parse::RobotsTxt;
use crate::prefs::{Preference, Purpose, Reading};
use crate::profile::{AgentMatch, Beyond, Profile, RuleChoice};
use crate::robots::{Applies, Decision, Matcher, Reason, Robots, RuleInfo};
use crate::token::{AgentName, TokenChain};

/// Robots asked of every file besides those it names: one that no group
/// names (so it reads `*`), and the big crawlers whose profiles have
/// fallbacks of their own.
pub const PROBE_ROBOTS: [&str; 5] = [
    "botwarden-probe",
    "Googlebot",
    "Bingbot",
    "Yandex",
    "YandexImages",
];

/// Why a decision differs between the two files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Explanation {
    /// A change of the fixer accounts for it.
    Intended {
        /// The kind of change.
        kind: ChangeKind,
        /// The change's line in the original file.
        line: u32,
        /// The change's description: what was done, and which robots read
        /// the file differently because of it.
        why: String,
    },
    /// No change accounts for it: the fixed file does not say what the
    /// original said to this robot.
    Unintended {
        /// Which rules decided before and after.
        why: String,
    },
}

impl Explanation {
    /// Whether a change of the fixer accounts for the difference.
    #[must_use]
    pub fn is_intended(&self) -> bool {
        matches!(self, Explanation::Intended { .. })
    }

    /// The explanation as a sentence.
    #[must_use]
    pub fn text(&self) -> &str {
        match self {
            Explanation::Intended { why, .. } | Explanation::Unintended { why } => why,
        }
    }
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Explanation::Intended { kind, line, why } => {
                write!(f, "intended ({kind}, line {line}): {why}")
            }
            Explanation::Unintended { why } => write!(f, "unintended: {why}"),
        }
    }
}

/// One decision that differs between the two files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The profile that reads the files.
    pub profile: &'static Profile,
    /// The robot (a product token, or a user-agent value as written).
    pub agent: String,
    /// The path asked.
    pub path: String,
    /// The decision on the first file (lines are the first file's).
    pub before: Decision,
    /// The decision on the second file (lines are the second file's).
    pub after: Decision,
    /// Why it differs.
    pub reason: Explanation,
    /// For a difference in usage preferences rather than in the decision
    /// (then `before` and `after` are the fetch decisions, alike): what
    /// reads differently.
    pub preference: Option<PreferenceChange>,
}

/// A usage preference that reads differently in the second file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreferenceChange {
    /// The reading.
    pub reading: Reading,
    /// The purpose.
    pub purpose: Purpose,
    /// What the first file says.
    pub before: Preference,
    /// What the second file says.
    pub after: Preference,
}

/// Differences kept of each kind (intended, unintended) in
/// [`Equivalence::differences`]; [`Equivalence::intended_found`] and
/// [`Equivalence::unintended_found`] count them all.
pub const DIFFERENCES_KEPT: usize = 1_000;

/// The work the differential check may do, in units of about one rule tried
/// against a path or one user-agent line compared with a robot's name
/// (reading a rule costs `READ_COST`, asking a path `ASK_COST` more).
/// An ordinary file takes a few thousand; a file made to be slow (thousands
/// of groups for distinct robots, thousands of wildcard rules) would take
/// billions. Past this bound robots and paths are left unasked, and
/// [`Equivalence::unasked`] says which: the proof is then partial.
pub const EQUIVALENCE_WORK: u64 = 30_000_000;

/// What reading one rule of a robot's groups costs, in units of
/// [`EQUIVALENCE_WORK`]: collected, sorted and compared.
const READ_COST: u64 = 8;

/// What asking one path costs besides trying wildcard rules: the probe
/// made, sorted, and decided on both files.
const ASK_COST: u64 = 16;

/// What the differential check left unasked under one profile, where its
/// work bound was reached: the proof is partial there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unasked {
    /// The profile.
    pub profile: &'static Profile,
    /// Robots whose decisions were not compared at all.
    pub robots: usize,
    /// The first few of them.
    pub robot_examples: Vec<String>,
    /// Paths made from rules that read differently, not asked.
    pub paths: usize,
    /// Lines of the first file whose rules made the first few of them.
    pub lines: Vec<u32>,
}

/// Examples kept in an [`Unasked`].
const EXAMPLES: usize = 5;

impl Unasked {
    fn new(profile: &'static Profile) -> Unasked {
        Unasked {
            profile,
            robots: 0,
            robot_examples: Vec::new(),
            paths: 0,
            lines: Vec::new(),
        }
    }

    fn robot(&mut self, name: &str) {
        self.robots += 1;
        if self.robot_examples.len() < EXAMPLES {
            self.robot_examples.push(name.to_owned());
        }
    }

    fn path(&mut self, line: u32) {
        self.paths += 1;
        if line > 0 && self.lines.len() < EXAMPLES && !self.lines.contains(&line) {
            self.lines.push(line);
        }
    }

    fn is_empty(&self) -> bool {
        self.robots == 0 && self.paths == 0
    }
}

/// The result of the differential check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Equivalence {
    /// Decisions that differ, by profile, robot and path: the first
    /// [`DIFFERENCES_KEPT`] intended and unintended ones.
    pub differences: Vec<Difference>,
    /// Intended differences found, kept or not.
    pub intended_found: usize,
    /// Intended differences found, by profile name and kind of change.
    pub intended_by_change: BTreeMap<(&'static str, ChangeKind), usize>,
    /// Unintended differences found, kept or not.
    pub unintended_found: usize,
    /// The robots asked.
    pub robots: Vec<String>,
    /// (profile, robot) pairs that read the same rules in both files, so
    /// that no path can be decided differently.
    pub proven: usize,
    /// (profile, robot) pairs whose rules differ, asked path by path.
    pub probed: usize,
    /// Decisions compared (one per path, per group of robots that read
    /// the same groups).
    pub checks: usize,
    /// Per profile, what was left unasked when the work bound
    /// ([`EQUIVALENCE_WORK`]) was reached; empty when the proof is complete.
    pub unasked: Vec<Unasked>,
}

impl Equivalence {
    /// Whether every difference found is intended. When the proof is
    /// partial ([`Equivalence::is_complete`]), only of what was asked.
    #[must_use]
    pub fn holds(&self) -> bool {
        self.unintended_found == 0
    }

    /// Whether every robot and every path the check makes was asked.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.unasked.is_empty()
    }

    /// The differences no change accounts for (the first
    /// [`DIFFERENCES_KEPT`]).
    pub fn unintended(&self) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(|d| !d.reason.is_intended())
    }

    /// The differences a change accounts for (the first
    /// [`DIFFERENCES_KEPT`]).
    pub fn intended(&self) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(|d| d.reason.is_intended())
    }

    /// Counts a difference that `robots` robots show alike, and returns
    /// how many of them to keep.
    fn tally(
        &mut self,
        profile: &'static Profile,
        reason: &Explanation,
        robots: usize,
        kept: &mut [usize; 2],
    ) -> usize {
        let (found, kept) = match reason {
            Explanation::Intended { kind, .. } => {
                *self
                    .intended_by_change
                    .entry((profile.name, *kind))
                    .or_default() += robots;
                (&mut self.intended_found, &mut kept[0])
            }
            Explanation::Unintended { .. } => (&mut self.unintended_found, &mut kept[1]),
        };
        *found += robots;
        let keep = robots.min(DIFFERENCES_KEPT - *kept);
        *kept += keep;
        keep
    }
}

/// Compares the decisions robots reach on two files; every difference is
/// unintended (see [`compare_fixed`] for a file the fixer wrote).
///
/// Under every profile of [`Profile::ALL`], the robots asked are each
/// product token (and each user-agent value as written) of either file and
/// the [`PROBE_ROBOTS`]. Robots that read the same groups are asked once.
/// A robot that reads the same rules in both files is proven to decide
/// alike everywhere; the others are asked `/`, `/robots.txt`, and probes
/// made from the rules that read differently: the pattern, its literal
/// prefix, the prefix with one byte more and one less, `*` filled in and
/// `$` dropped, a query, a percent-encoded letter, the rule as written.
///
/// ```
/// use botwarden_robots::{RobotsTxt, compare};
///
/// let before = RobotsTxt::parse("User-agent: *\nDisallow: /a\n");
/// let same = RobotsTxt::parse("user-agent: *\r\ndisallow: /a\r\n");
/// assert!(compare(&before, &same).holds());
/// let other = RobotsTxt::parse("User-agent: *\nDisallow: /b\n");
/// assert!(!compare(&before, &other).holds());
/// ```
#[must_use]
pub fn compare(before: &RobotsTxt, after: &RobotsTxt) -> Equivalence {
    Analysis::new(before).compare(after)
}

/// Compares the decisions robots reach on a file and on what
/// [`fix`](crate::fix()) made of it, tracing each difference to the change
/// that accounts for it (see [`Explanation`]). The fixer does not run here:
/// run it first.
///
/// ```
/// use botwarden_robots::{RobotsTxt, compare_fixed, fix};
///
/// let before = RobotsTxt::parse("User-agent: *\nDisallow: /a\nAllow: /a/b\n");
/// let fixed = fix(&before);
/// assert_eq!(fixed.text, "User-agent: *\nAllow: /a/b\nDisallow: /a\n");
/// let eq = compare_fixed(&before, &fixed);
/// assert!(eq.holds());
/// // Only robots that take the first matching rule decide differently.
/// assert!(eq.differences.iter().all(|d| d.profile.name == "strict"));
/// ```
#[must_use]
pub fn compare_fixed(before: &RobotsTxt, fixed: &Fixed) -> Equivalence {
    Analysis::new(before).compare_fixed(fixed)
}

impl Analysis<'_> {
    /// [`compare`] with this analysis's file as the one before, on the
    /// compiled forms this analysis shares.
    #[must_use]
    pub fn compare(&self, after: &RobotsTxt) -> Equivalence {
        differential(self, after, None)
    }

    /// [`compare_fixed`] with this analysis's file as the original, on the
    /// compiled forms this analysis shares.
    #[must_use]
    pub fn compare_fixed(&self, fixed: &Fixed) -> Equivalence {
        let after = RobotsTxt::parse(fixed.text.as_bytes());
        differential(self, &after, Some(&fixed.plan))
    }
}

/// The robots to ask: every product token and user-agent value of both
/// files, then the probe robots; case-insensitively distinct.
fn robots(files: [&RobotsTxt; 2]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut add = |name: String| {
        if seen.insert(name.to_lowercase()) {
            out.push(name);
        }
    };
    for txt in files {
        for (_, d) in txt.directives() {
            if d.name != DirectiveName::UserAgent {
                continue;
            }
            let value = txt.slice(d.value);
            let Some(key) = AgentName::lower_token(value) else {
                continue;
            };
            let whole = txt.text(d.value).into_owned();
            let differs = whole.to_lowercase() != key;
            add(key);
            if differs {
                add(whole);
            }
        }
    }
    for name in PROBE_ROBOTS {
        add(name.to_owned());
    }
    out
}

/// The rules a robot reads on one file, in the order a first-match robot
/// tries them.
fn reading<'r>(m: &Matcher<'r>, first_match: bool) -> Vec<RuleInfo<'r>> {
    let mut rules: Vec<RuleInfo<'r>> = m.groups().flat_map(|g| g.rules()).collect();
    if first_match {
        rules.sort_by_key(|r| r.line);
    }
    rules
}

/// Whether two readings decide every path alike.
fn same_reading(b: &[RuleInfo<'_>], a: &[RuleInfo<'_>], first_match: bool) -> bool {
    if b.len() != a.len() {
        return false;
    }
    fn key<'x>(r: &'x RuleInfo<'_>) -> (bool, &'x str) {
        (r.allow, r.pattern.as_ref())
    }
    if first_match {
        return b.iter().map(key).eq(a.iter().map(key));
    }
    let mut kb: Vec<_> = b.iter().map(key).collect();
    let mut ka: Vec<_> = a.iter().map(key).collect();
    kb.sort_unstable();
    ka.sort_unstable();
    kb == ka
}

/// A rule whose paths must be asked: its pattern as the profile reads it,
/// and its line in its file (0 for none).
struct Candidate<'r> {
    pattern: &'r str,
    line: u32,
    after: bool,
}

/// Rules read by one file and not the other (as `(allow, pattern)` with
/// multiplicity). For longest-match robots these are enough: the decision
/// on a path is the longest matching rule's, and a path whose decision
/// differs is decided the same way as the pattern of the rule gained or
/// lost that decides it.
fn changed_rules<'r>(b: &'r [RuleInfo<'r>], a: &'r [RuleInfo<'r>]) -> Vec<Candidate<'r>> {
    fn key<'x>(r: &&'x RuleInfo<'_>) -> (&'x str, bool) {
        (r.pattern.as_ref(), r.allow)
    }
    let mut sb: Vec<&RuleInfo<'r>> = b.iter().collect();
    let mut sa: Vec<&RuleInfo<'r>> = a.iter().collect();
    sb.sort_by(|x, y| key(x).cmp(&key(y)));
    sa.sort_by(|x, y| key(x).cmp(&key(y)));
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < sb.len() || j < sa.len() {
        let ord = match (sb.get(i), sa.get(j)) {
            (Some(x), Some(y)) => key(x).cmp(&key(y)),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                out.push(Candidate {
                    pattern: sb[i].pattern.as_ref(),
                    line: sb[i].line,
                    after: false,
                });
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(Candidate {
                    pattern: sa[j].pattern.as_ref(),
                    line: sa[j].line,
                    after: true,
                });
                j += 1;
            }
        }
    }
    out
}

/// Chains longer than this are asked without comparing them.
const CHAIN_LIMIT: usize = 256;

/// First-match robots without wildcards: the decision on a path is the
/// first rule, in file order, whose pattern is a prefix of it. The patterns
/// that are prefixes of one pattern form its chain; a path is decided as
/// the longest pattern of either file that matches it, so asking every
/// pattern whose chain reads differently (other rules, or another order)
/// finds every path that differs.
fn changed_chains<'r>(b: &'r [RuleInfo<'r>], a: &'r [RuleInfo<'r>]) -> Vec<Candidate<'r>> {
    // (pattern, file, position, allows).
    let mut entries: Vec<(&str, bool, usize, bool)> = Vec::with_capacity(b.len() + a.len());
    for (side, rules) in [(false, b), (true, a)] {
        for (pos, r) in rules.iter().enumerate() {
            entries.push((
                r.pattern.as_ref(),
                side,
                pos,
                r.allow || r.pattern.is_empty(),
            ));
        }
    }
    entries.sort_unstable_by(|x, y| x.0.cmp(y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    // Nodes: runs of one pattern.
    let mut nodes: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let j = i + entries[i..]
            .iter()
            .take_while(|e| e.0 == entries[i].0)
            .count();
        nodes.push((i, j));
        i = j;
    }
    let mut out = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut chain_b: Vec<(usize, usize, bool)> = Vec::new();
    let mut chain_a: Vec<(usize, usize, bool)> = Vec::new();
    for (n, &(s, _)) in nodes.iter().enumerate() {
        let pattern = entries[s].0;
        while let Some(&top) = stack.last() {
            if pattern.starts_with(entries[nodes[top].0].0) {
                break;
            }
            stack.pop();
        }
        stack.push(n);
        let size: usize = stack.iter().map(|&k| nodes[k].1 - nodes[k].0).sum();
        let differs = size > CHAIN_LIMIT || {
            chain_b.clear();
            chain_a.clear();
            for &k in &stack {
                for entry in &entries[nodes[k].0..nodes[k].1] {
                    let item = (entry.2, k, entry.3);
                    if entry.1 {
                        chain_a.push(item);
                    } else {
                        chain_b.push(item);
                    }
                }
            }
            chain_b.sort_unstable();
            chain_a.sort_unstable();
            !chain_b
                .iter()
                .map(|c| (c.1, c.2))
                .eq(chain_a.iter().map(|c| (c.1, c.2)))
        };
        if differs {
            let (pos, after) = (entries[s].2, entries[s].1);
            let rule = if after { &a[pos] } else { &b[pos] };
            out.push(Candidate {
                pattern,
                line: rule.line,
                after,
            });
        }
    }
    out
}

/// Paths that probe a pattern's boundaries.
fn probes(pattern: &str, wildcards: bool, out: &mut Vec<String>) {
    let rooted = |s: &str| {
        if s.starts_with('/') {
            s.to_owned()
        } else {
            format!("/{s}")
        }
    };
    out.push(rooted(pattern));
    let body = if wildcards {
        pattern.strip_suffix('$').unwrap_or(pattern)
    } else {
        pattern
    };
    let literal = if wildcards {
        &body[..body.find('*').unwrap_or(body.len())]
    } else {
        body
    };
    let literal = rooted(literal);
    out.push(format!("{literal}x"));
    out.push(format!("{literal}?q=1"));
    if literal.len() > 1 {
        let mut end = literal.len() - 1;
        while !literal.is_char_boundary(end) {
            end -= 1;
        }
        out.push(literal[..end].to_owned());
    }
    if wildcards && body.contains('*') {
        let concrete = rooted(&body.replace('*', "x"));
        out.push(format!("{concrete}x"));
        out.push(format!("{concrete}?q=1"));
        out.push(concrete);
    }
    if let Some(i) = literal.rfind(|c: char| c.is_ascii_alphanumeric()) {
        out.push(format!(
            "{}%{:02X}{}",
            &literal[..i],
            literal.as_bytes()[i],
            &literal[i + 1..]
        ));
    }
    if let Some(i) = literal.rfind("/index.htm") {
        out.push(literal[..=i].to_owned());
    }
    out.push(literal);
}

/// The paths to ask a robot that reads `b` on `files[0]` and `a` on
/// `files[1]`: `/`, `/robots.txt`, and probes made from the rules that read
/// differently, each with the line of the first file whose rule made it (0
/// for none), sorted by path.
fn paths_to_ask(
    profile: &Profile,
    files: [&RobotsTxt; 2],
    b: &[RuleInfo<'_>],
    a: &[RuleInfo<'_>],
) -> Vec<(String, u32)> {
    let first_match = profile.rule_choice == RuleChoice::FirstMatch;
    let candidates = if !first_match {
        changed_rules(b, a)
    } else if profile.wildcards {
        b.iter()
            .map(|r| (r, false))
            .chain(a.iter().map(|r| (r, true)))
            .map(|(r, after)| Candidate {
                pattern: r.pattern.as_ref(),
                line: r.line,
                after,
            })
            .collect()
    } else {
        changed_chains(b, a)
    };
    // Without wildcards, a first-match robot decides every variant of a
    // pattern as it decides the pattern itself or another pattern that is
    // asked: the pattern alone is enough.
    let literal = first_match && !profile.wildcards;
    let mut paths = vec![("/".to_owned(), 0), ("/robots.txt".to_owned(), 0)];
    let mut made = Vec::new();
    for c in &candidates {
        let line = if c.after { 0 } else { c.line };
        if literal {
            paths.push((c.pattern.to_owned(), line));
            continue;
        }
        made.clear();
        probes(c.pattern, profile.wildcards, &mut made);
        // The rule as written, which some profiles compare unescaped.
        let file = files[usize::from(c.after)];
        if let Some(crate::parse::LineKind::Directive(d)) = file.line(c.line).map(|l| l.kind) {
            let raw = file.text(d.value);
            if raw.as_ref() != c.pattern {
                made.push(if raw.starts_with('/') {
                    raw.into_owned()
                } else {
                    format!("/{raw}")
                });
            }
        }
        paths.extend(made.drain(..).map(|p| (p, line)));
    }
    // A line of the first file, where there is one, for each path.
    paths.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
    paths.dedup_by(|x, y| x.0 == y.0);
    paths
}

/// What a robot reads on one file, as a key for grouping robots.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Reads {
    /// The groups of a token: robots that match product tokens read the
    /// same groups for the same token, however many groups that is.
    Token(String),
    /// The `*` groups.
    Star,
    /// No group.
    Nothing,
    /// These groups, by index.
    Groups(Vec<u32>),
}

impl Reads {
    fn of(m: &Matcher<'_>, by_token: bool) -> Reads {
        match m.applies() {
            Applies::Token(t) if by_token => Reads::Token(t.clone()),
            Applies::Star => Reads::Star,
            Applies::Nothing => Reads::Nothing,
            Applies::Token(_) => Reads::Groups(m.groups().map(|g| g.index() as u32).collect()),
        }
    }
}

/// What the work of asking a file depends on.
#[derive(Debug, Clone, Copy)]
struct Size {
    /// `user-agent` lines, which robots that match names as substrings
    /// try one by one.
    agents: u64,
    /// Wildcard rules, which a path may have to be tried against one by
    /// one.
    wild: u64,
}

impl Size {
    fn of(txt: &RobotsTxt) -> Size {
        let mut size = Size { agents: 0, wild: 0 };
        for (_, d) in txt.directives() {
            match d.name {
                DirectiveName::UserAgent => size.agents += 1,
                DirectiveName::Allow | DirectiveName::Disallow => {
                    let v = txt.slice(d.value);
                    if v.ends_with(b"$") || memchr::memchr(b'*', v).is_some() {
                        size.wild += 1;
                    }
                }
                _ => {}
            }
        }
        size
    }

    /// What looking up one robot costs under `profile` (robots that match
    /// names as substrings try every user-agent line of both files), and
    /// what asking one path costs (every wildcard rule of both files may
    /// be tried).
    fn costs(sizes: [Size; 2], profile: &Profile) -> (u64, u64) {
        let lookup = match profile.agent_match {
            AgentMatch::Substring => 2 + sizes[0].agents + sizes[1].agents,
            AgentMatch::ProductToken => 2,
        };
        let check = ASK_COST
            + if profile.wildcards {
                sizes[0].wild + sizes[1].wild
            } else {
                0
            };
        (lookup, check)
    }
}

/// The differential check; with the fixer's plan, differences are
/// attributed to its changes. At most [`EQUIVALENCE_WORK`] of work.
pub(crate) fn differential(
    before: &Analysis<'_>,
    after: &RobotsTxt,
    plan: Option<&Plan>,
) -> Equivalence {
    differential_within(before, after, plan, EQUIVALENCE_WORK)
}

/// The differential check within `work` (see [`EQUIVALENCE_WORK`]): each
/// profile gets an equal part of what the profiles before it left, and
/// within a profile each group of robots an equal part of what is left.
/// When robots cost more than their part to look up (robots that match
/// names as substrings try every user-agent line), the probe robots and an
/// even spread of the others are asked; when a group of robots costs more
/// to read or to ask every path, it is left unasked, or an even spread of
/// its paths is asked. Whatever is left is listed in
/// [`Equivalence::unasked`].
pub(crate) fn differential_within(
    analysis: &Analysis<'_>,
    after: &RobotsTxt,
    plan: Option<&Plan>,
    work: u64,
) -> Equivalence {
    let before = analysis.txt();
    let names = robots([before, after]);
    let chains: Vec<TokenChain> = names
        .iter()
        .map(|n| TokenChain::new([n.as_str()]))
        .collect();
    // The probe robots first: they stand for every robot no file names.
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| !is_probe(&names[i]));
    let sizes = [Size::of(before), Size::of(after)];
    let explainer = plan.map(Explainer::new);
    let mut eq = Equivalence::default();
    let mut kept = [0; 2];
    let mut left = work;
    let count = Profile::ALL.len() as u64;
    for (pi, (profile, rb)) in analysis.all().enumerate() {
        let share = left / (count - pi as u64);
        let mut budget = share;
        let mut unasked = Unasked::new(profile);
        let ra = Robots::new(after, profile);
        let (lookup, check) = Size::costs(sizes, profile);
        // At most half the part of the profile goes to finding what each
        // robot reads; the probe robots are always asked.
        let affordable = usize::try_from(budget / 2 / lookup)
            .unwrap_or(usize::MAX)
            .max(PROBE_ROBOTS.len());
        let asked = robots_to_ask(&order, &names, affordable, &mut unasked);
        budget = budget.saturating_sub(asked.len() as u64 * lookup);
        let by_token = profile.agent_match == AgentMatch::ProductToken;
        let classes = classes_of(&asked, &chains, [rb, &ra], by_token);
        let asking = Asking {
            pi,
            profile,
            files: [before, after],
            robots: [rb, &ra],
            names: &names,
            explainer: explainer.as_ref(),
            check,
        };
        let mut classes_left = classes.len() as u64;
        for class in &classes {
            let part = budget / classes_left;
            classes_left -= 1;
            asking.ask_class(class, part, &mut budget, &mut eq, &mut kept, &mut unasked);
        }
        left -= share - budget;
        if !unasked.is_empty() {
            eq.unasked.push(unasked);
        }
    }
    preferences(&mut eq, [before, after], &names, &mut kept);
    eq.robots = names;
    eq
}

/// Robots and paths whose usage preferences are compared at most: an even
/// spread of each past it.
const PREFERENCE_ROBOTS: usize = 500;
const PREFERENCE_PATHS: usize = 500;

/// The work the comparison of preferences may do, in preference lines
/// looked at (each answer looks at every line of both files): past it,
/// fewer robots are asked, and the proof says so.
pub const PREFERENCE_WORK: u64 = 10_000_000;

/// Compares the usage preferences robots read in both files, under RFC
/// 9309's grouping and both [`Reading`]s, at `/` and at every path a
/// `Content-Usage` line of either file names, within [`PREFERENCE_WORK`].
/// The fixer changes no preference: every difference is unintended.
fn preferences(
    eq: &mut Equivalence,
    files: [&RobotsTxt; 2],
    names: &[String],
    kept: &mut [usize; 2],
) {
    // Most files state no preference: they are not compiled again.
    let states = |f: &RobotsTxt| f.directives().any(|(_, d)| d.name.is_preference());
    if !files.iter().any(|f| states(f)) {
        return;
    }
    let profile = &Profile::RFC9309;
    let [rb, ra] = files.map(|f| Robots::new(f, profile));
    let lines = rb.preference_lines().len() + ra.preference_lines().len();
    if lines == 0 {
        return;
    }
    let mut unasked = Unasked::new(profile);
    let mut paths = vec!["/".to_owned()];
    for r in [&rb, &ra] {
        paths.extend(
            r.preference_lines()
                .iter()
                .filter_map(|l| l.path.as_deref().map(example_path)),
        );
    }
    paths.sort();
    paths.dedup();
    let answers = usize::try_from(PREFERENCE_WORK / lines as u64)
        .unwrap_or(usize::MAX)
        .max(1);
    let paths = spread(paths, PREFERENCE_PATHS.min(answers), |_| unasked.path(0));
    let robots = (answers / paths.len()).clamp(1, PREFERENCE_ROBOTS);
    let names: Vec<&String> = spread(names.iter().collect(), robots, |n| unasked.robot(n));
    if !unasked.is_empty() {
        eq.unasked.push(unasked);
    }
    for name in names {
        let chain = TokenChain::new([name.as_str()]);
        let (mb, ma) = (rb.matcher(&chain), ra.matcher(&chain));
        for path in &paths {
            let (ub, ua) = (mb.usage(path), ma.usage(path));
            for reading in Reading::ALL {
                for (b, a) in ub.reading(reading).iter().zip(ua.reading(reading)) {
                    if b.preference == a.preference {
                        continue;
                    }
                    let lines = |l: &[u32]| match l {
                        [] => "no line".to_owned(),
                        l => format!(
                            "line {}",
                            l.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                        ),
                    };
                    let reason = Explanation::Unintended {
                        why: format!(
                            "no change of the fixer accounts for it: {} read by {reading} was `{}` ({}) and is `{}` ({})",
                            b.purpose,
                            b.preference,
                            lines(&b.lines),
                            a.preference,
                            lines(&a.lines)
                        ),
                    };
                    if eq.tally(profile, &reason, 1, kept) == 0 {
                        continue;
                    }
                    eq.differences.push(Difference {
                        profile,
                        agent: name.clone(),
                        path: path.clone(),
                        before: mb.check(path),
                        after: ma.check(path),
                        reason,
                        preference: Some(PreferenceChange {
                            reading,
                            purpose: b.purpose,
                            before: b.preference,
                            after: a.preference,
                        }),
                    });
                }
            }
        }
    }
}

/// Whether `name` is one of the [`PROBE_ROBOTS`], case-insensitively.
fn is_probe(name: &str) -> bool {
    PROBE_ROBOTS.iter().any(|p| p.eq_ignore_ascii_case(name))
}

/// The robots to ask under one profile, by index into `names`: all of
/// `order` when `affordable` robots cover it, else its leading probe
/// robots and an even spread of the others (those dropped go to
/// `unasked`).
fn robots_to_ask(
    order: &[usize],
    names: &[String],
    affordable: usize,
    unasked: &mut Unasked,
) -> Vec<usize> {
    let probes_first = order.iter().take_while(|&&i| is_probe(&names[i])).count();
    if affordable >= order.len() {
        order.to_vec()
    } else {
        let (probes, rest) = order.split_at(probes_first);
        let mut asked = probes.to_vec();
        asked.extend(spread(
            rest.to_vec(),
            affordable.saturating_sub(probes.len()),
            |&i| unasked.robot(&names[i]),
        ));
        asked
    }
}

/// Robots that read the same groups of both files: what reading their
/// rules costs, their matchers on the file before and after, and the
/// robots, by index into the names.
type Class<'r> = (u64, Matcher<'r>, Matcher<'r>, Vec<usize>);

/// The robots of `asked` gathered by what they read on the files before
/// and after, with what reading their rules costs.
fn classes_of<'r>(
    asked: &[usize],
    chains: &[TokenChain],
    [rb, ra]: [&'r Robots; 2],
    by_token: bool,
) -> Vec<Class<'r>> {
    let mut index: HashMap<(Reads, Reads), usize> = HashMap::new();
    let mut classes: Vec<(Matcher<'_>, Matcher<'_>, Vec<usize>)> = Vec::new();
    for &ri in asked {
        let chain = &chains[ri];
        let mb = rb.matcher(chain);
        let ma = ra.matcher(chain);
        let key = (Reads::of(&mb, by_token), Reads::of(&ma, by_token));
        match index.entry(key) {
            Entry::Occupied(e) => classes[*e.get()].2.push(ri),
            Entry::Vacant(e) => {
                e.insert(classes.len());
                classes.push((mb, ma, vec![ri]));
            }
        }
    }
    // The cheapest groups of robots first, so that what they leave of
    // their part goes to the dearer ones.
    let rules = |m: &Matcher<'_>| m.groups().map(|g| g.rules().len() as u64).sum::<u64>();
    let mut classes: Vec<_> = classes
        .into_iter()
        .map(|(mb, ma, who)| (READ_COST * (1 + rules(&mb) + rules(&ma)), mb, ma, who))
        .collect();
    classes.sort_by_key(|c| c.0);
    classes
}

/// One profile's part of the differential check: what every group of
/// robots asked under it shares.
struct Asking<'a> {
    /// The profile's index in [`Profile::ALL`].
    pi: usize,
    /// The profile.
    profile: &'static Profile,
    /// The files before and after.
    files: [&'a RobotsTxt; 2],
    /// The files before and after, compiled under the profile.
    robots: [&'a Robots; 2],
    /// The robots, by index.
    names: &'a [String],
    /// Attributes differences to the fixer's changes, when there is a plan.
    explainer: Option<&'a Explainer<'a>>,
    /// What asking one path costs.
    check: u64,
}

impl Asking<'_> {
    /// Asks one class of robots within `part` of the profile's `budget`
    /// (which it lowers by what it spends): left unasked when reading its
    /// rules costs more than the part, proven when they read the same
    /// rules in both files, else asked an even spread of the paths the
    /// part affords.
    fn ask_class(
        &self,
        (read, mb, ma, who): &Class<'_>,
        part: u64,
        budget: &mut u64,
        eq: &mut Equivalence,
        kept: &mut [usize; 2],
        unasked: &mut Unasked,
    ) {
        let read = *read;
        if read > part {
            for &r in who {
                unasked.robot(&self.names[r]);
            }
            return;
        }
        *budget -= read;
        let first_match = self.profile.rule_choice == RuleChoice::FirstMatch;
        let b = reading(mb, first_match);
        let a = reading(ma, first_match);
        if same_reading(&b, &a, first_match) {
            eq.proven += who.len();
            return;
        }
        eq.probed += who.len();
        let paths = paths_to_ask(self.profile, self.files, &b, &a);
        let afford = usize::try_from((part - read) / self.check).unwrap_or(usize::MAX);
        let paths = spread(paths, afford, |&(_, line)| unasked.path(line));
        *budget = budget.saturating_sub(paths.len() as u64 * self.check);
        self.ask_paths([mb, ma], who, &paths, eq, kept);
    }

    /// Asks the robots `who`, which read alike, each of `paths` on both
    /// files, and counts and keeps the differences.
    fn ask_paths(
        &self,
        [mb, ma]: [&Matcher<'_>; 2],
        who: &[usize],
        paths: &[(String, u32)],
        eq: &mut Equivalence,
        kept: &mut [usize; 2],
    ) {
        let (pi, profile) = (self.pi, self.profile);
        let [rb, ra] = self.robots;
        let mut context = None;
        for (path, _) in paths {
            let db = mb.check_path(path.as_bytes());
            let da = ma.check_path(path.as_bytes());
            eq.checks += 1;
            if db.allowed == da.allowed {
                continue;
            }
            let reason = match self.explainer {
                Some(x) => {
                    let ctx = context.get_or_insert_with(|| x.context(mb, ma));
                    x.explain(pi, profile, ctx, [(rb, db), (ra, da)])
                }
                None => Explanation::Unintended {
                    why: format!(
                        "no change of the fixer accounts for it: {}",
                        deciders(profile, db, da, None)
                    ),
                },
            };
            let keep = eq.tally(profile, &reason, who.len(), kept);
            for &r in &who[..keep] {
                eq.differences.push(Difference {
                    profile,
                    agent: self.names[r].clone(),
                    path: path.clone(),
                    before: db,
                    after: da,
                    reason: reason.clone(),
                    preference: None,
                });
            }
        }
    }
}

/// "decided by line 3 before, by line 5 (line 2 of the original) after".
fn deciders(profile: &Profile, before: Decision, after: Decision, plan: Option<&Plan>) -> String {
    let said = |d: Decision| if d.allowed { "allowed" } else { "disallowed" };
    let by = |d: Decision, fixed: bool| match d.reason {
        Reason::Rule { line, .. } => {
            let origin = plan
                .filter(|_| fixed)
                .and_then(|p| p.origins.get((line as usize).checked_sub(1)?));
            match origin {
                Some(o) if o.line > 0 => {
                    format!("the rule on line {line} (line {} of the original)", o.line)
                }
                Some(_) => format!("the rule on line {line}, added by the fixer"),
                None => format!("the rule on line {line}"),
            }
        }
        Reason::NoRuleMatched => "no rule".to_owned(),
        Reason::NoGroup => "no group".to_owned(),
        Reason::RobotsTxt => "the /robots.txt exception".to_owned(),
    };
    format!(
        "{} robots were {} by {} and are {} by {}",
        profile.name,
        said(before),
        by(before, false),
        said(after),
        by(after, true)
    )
}

/// What one class of robots reads, in terms of the original file.
struct Context {
    /// Lines of the original whose rules the robot read before.
    before_lines: Vec<u32>,
    /// Lines of the original whose rules (or copies) it reads after (0 for
    /// added rules).
    after_lines: Vec<u32>,
    /// Groups of the fixed file involved before or after.
    groups: Vec<u32>,
}

/// Attributes differences to the fixer's changes.
struct Explainer<'p> {
    plan: &'p Plan,
    by_line: HashMap<u32, Vec<usize>>,
    /// Per profile and kind of explanation (`READING`, `ORDER`, `PATTERN`):
    /// per group, the changes that apply, by line.
    by_group: Vec<HashMap<u32, Vec<usize>>>,
    oversize: Vec<usize>,
}

/// The kinds of explanation, as bits.
const KINDS: [u8; 3] = [READING, ORDER, PATTERN];

impl<'p> Explainer<'p> {
    fn new(plan: &'p Plan) -> Explainer<'p> {
        let mut by_line: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut by_group: Vec<HashMap<u32, Vec<usize>>> =
            vec![HashMap::new(); Profile::ALL.len() * KINDS.len()];
        let mut oversize = Vec::new();
        // Changes are sorted by line, so every list is too.
        for (i, r) in plan.changes.iter().enumerate() {
            let explains = r.change.kind.explains();
            if r.affects == 0 || explains == 0 {
                continue;
            }
            if r.change.kind == ChangeKind::Oversize {
                oversize.push(i);
                continue;
            }
            by_line.entry(r.change.line).or_default().push(i);
            if r.group == NO_GROUP {
                continue;
            }
            for pi in (0..Profile::ALL.len()).filter(|&pi| has(r.affects, pi)) {
                for (k, _) in KINDS
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| explains & **b != 0)
                {
                    by_group[pi * KINDS.len() + k]
                        .entry(r.group)
                        .or_default()
                        .push(i);
                }
            }
        }
        Explainer {
            plan,
            by_line,
            by_group,
            oversize,
        }
    }

    /// Among the changes to `groups` that apply to profile `pi`, explain
    /// `needs` and are accepted, the nearest one at or before line `anchor`
    /// (a blank line or a merge concerns the lines after it), else the
    /// first after it.
    fn nearest(
        &self,
        pi: usize,
        needs: u8,
        groups: &[u32],
        anchor: u32,
        accept: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let line = |i: usize| self.plan.changes[i].change.line;
        let rank = |i: usize| {
            let at = line(i);
            let after = at > anchor;
            (
                after,
                if after { at } else { anchor - at },
                self.plan.changes[i].change.kind,
            )
        };
        let mut best: Option<usize> = None;
        let mut consider = |i: usize| {
            if accept(i) && best.is_none_or(|b| rank(i) < rank(b)) {
                best = Some(i);
            }
        };
        for (k, bit) in KINDS.iter().enumerate() {
            if needs & bit == 0 {
                continue;
            }
            let map = &self.by_group[pi * KINDS.len() + k];
            for list in groups.iter().filter_map(|g| map.get(g)) {
                let at = list.partition_point(|&i| line(i) <= anchor);
                if let Some(&last) = at.checked_sub(1).map(|a| &list[a]) {
                    let same = line(last);
                    for &i in list[..at].iter().rev().take_while(|&&i| line(i) == same) {
                        consider(i);
                    }
                }
                if let Some(&next) = list.get(at) {
                    consider(next);
                }
            }
        }
        best
    }

    fn origin(&self, fixed_line: u32) -> Origin {
        self.plan
            .origins
            .get((fixed_line as usize).wrapping_sub(1))
            .copied()
            .unwrap_or(Origin {
                line: 0,
                group: NO_GROUP,
                copy: false,
            })
    }

    fn group_of(&self, line: u32) -> u32 {
        self.plan
            .group_of_line
            .get(line as usize)
            .copied()
            .unwrap_or(NO_GROUP)
    }

    fn context(&self, mb: &Matcher<'_>, ma: &Matcher<'_>) -> Context {
        let mut groups = Vec::new();
        let mut before_lines = Vec::new();
        for g in mb.groups() {
            groups.extend(g.agents().map(|a| self.group_of(a.line)));
            for r in g.rules() {
                before_lines.push(r.line);
                groups.push(self.group_of(r.line));
            }
        }
        let mut after_lines = Vec::new();
        for g in ma.groups() {
            for line in g.agents().map(|a| a.line).chain(g.rules().map(|r| r.line)) {
                let o = self.origin(line);
                groups.push(o.group);
                if o.copy {
                    groups.push(self.group_of(o.line));
                }
            }
            after_lines.extend(g.rules().map(|r| self.origin(r.line).line));
        }
        for v in [&mut before_lines, &mut after_lines, &mut groups] {
            v.sort_unstable();
            v.dedup();
        }
        groups.retain(|&g| g != NO_GROUP);
        Context {
            before_lines,
            after_lines,
            groups,
        }
    }

    fn explain(
        &self,
        pi: usize,
        profile: &Profile,
        ctx: &Context,
        decisions: [(&Robots, Decision); 2],
    ) -> Explanation {
        let [(rb, before), (ra, after)] = decisions;
        let lb = match before.reason {
            Reason::Rule { line, .. } => Some(line),
            _ => None,
        };
        let oa = match after.reason {
            Reason::Rule { line, .. } => Some(self.origin(line)),
            _ => None,
        };
        let gained = oa.is_some_and(|o| ctx.before_lines.binary_search(&o.line).is_err());
        let lost = lb.is_some_and(|l| ctx.after_lines.binary_search(&l).is_err());
        let needs = if gained || lost {
            READING
        } else if lb.is_some() && oa.is_some() && oa.map(|o| o.line) != lb {
            ORDER | PATTERN
        } else {
            PATTERN
        };
        // Rules are reordered so that the more specific one comes first:
        // that is the only order change the fixer makes.
        let specific_first = match (before.reason, after.reason) {
            (Reason::Rule { index: b, .. }, Reason::Rule { index: a, .. }) => {
                let (b, a) = (rb.rule(b), ra.rule(a));
                let allows = |r: &RuleInfo<'_>| r.allow || r.pattern.is_empty();
                a.pattern.len() > b.pattern.len()
                    || (a.pattern.len() == b.pattern.len() && allows(&a) && !allows(&b))
            }
            _ => false,
        };
        let fits = |i: &usize| {
            let r = &self.plan.changes[*i];
            has(r.affects, pi)
                && r.change.kind.explains() & needs != 0
                && (r.change.kind != ChangeKind::RulesReordered || specific_first)
        };
        let on_line = |line: Option<u32>| {
            line.filter(|&l| l > 0)
                .and_then(|l| self.by_line.get(&l))
                .and_then(|v| v.iter().find(|i| fits(i)).copied())
        };
        let mut groups = ctx.groups.clone();
        groups.extend(oa.map(|o| o.group));
        groups.extend(lb.map(|l| self.group_of(l)));
        groups.sort_unstable();
        groups.dedup();
        let anchor = match (gained, lost) {
            (true, _) => oa.map(|o| o.line),
            (false, true) => lb,
            _ => oa.map(|o| o.line).filter(|&l| l > 0).or(lb),
        }
        .unwrap_or(0);
        let in_groups = || self.nearest(pi, needs, &groups, anchor, |i| fits(&i));
        let oversize = || {
            self.oversize.iter().copied().find(|i| {
                fits(i)
                    && profile.size_limit.is_some_and(|l| {
                        l.beyond == Beyond::IgnoreFile
                            || groups
                                .iter()
                                .any(|&g| self.plan.cut_groups.get(g as usize) == Some(&true))
                    })
            })
        };
        let found = on_line(oa.map(|o| o.line))
            .or_else(|| on_line(lb))
            .or_else(in_groups)
            .or_else(oversize);
        match found {
            Some(i) => {
                let c = &self.plan.changes[i].change;
                Explanation::Intended {
                    kind: c.kind,
                    line: c.line,
                    why: c.description.clone(),
                }
            }
            None => Explanation::Unintended {
                why: format!(
                    "no change of the fixer accounts for it: {}",
                    deciders(profile, before, after, Some(self.plan))
                ),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use botwarden_testdata::Xorshift;

    use super::*;
    use crate::fix::{fix, plan};

    #[test]
    fn files_that_differ_are_reported_as_unintended() {
        let before = RobotsTxt::parse("User-agent: *\nDisallow: /a\n");
        let after = RobotsTxt::parse("User-agent: *\nDisallow: /b\n");
        let eq = compare(&before, &after);
        assert!(!eq.holds());
        assert_eq!(eq.unintended().count(), eq.differences.len());
        let profiles: BTreeSet<&str> = eq.differences.iter().map(|d| d.profile.name).collect();
        assert_eq!(profiles.len(), Profile::ALL.len());
        let d = eq
            .differences
            .iter()
            .find(|d| d.path == "/a" && d.agent == "botwarden-probe" && d.profile.name == "rfc9309")
            .expect("the probe robot is asked /a");
        assert!(!d.before.allowed && d.after.allowed);
        assert!(d.reason.text().contains("line 2"), "{}", d.reason);
        assert!(eq.robots.iter().any(|r| r == "Googlebot"));
    }

    #[test]
    fn the_fixers_output_compares_as_the_fixer_reports() {
        let before = RobotsTxt::parse("User-agent: *\nDisallow: /a\nAllow: /a/b\n");
        let fixed = fix(&before);
        let eq = compare_fixed(&before, &fixed);
        assert!(eq.holds());
        // Without the fixer's changes, the same differences are unintended:
        // comparing does not run the fixer.
        let plain = compare(&before, &RobotsTxt::parse(fixed.text.as_str()));
        assert!(!plain.holds());
        assert_eq!(plain.unintended().count(), eq.differences.len());
        assert!(!eq.differences.is_empty());
        assert!(eq.differences.iter().all(|d| d.profile.name == "strict"));
        // Longest-match robots read the same rules: proven without probing.
        assert_eq!(eq.proven, eq.robots.len() * (Profile::ALL.len() - 1));
    }

    #[test]
    fn a_change_only_first_match_robots_notice_excuses_nothing_else() {
        let before = RobotsTxt::parse("User-agent: *\nDisallow: /a\nAllow: /a/b\n");
        let mut plan = plan(&before);
        assert_eq!(plan.text, "User-agent: *\nAllow: /a/b\nDisallow: /a\n");
        // A broken fixer that lost the allow while reordering.
        plan.text = "User-agent: *\nDisallow: /a\n".to_owned();
        plan.origins.remove(1);
        let after = RobotsTxt::parse(plan.text.as_str());
        let eq = differential(&Analysis::new(&before), &after, Some(&plan));
        let wrong: BTreeSet<&str> = eq.unintended().map(|d| d.profile.name).collect();
        assert_eq!(
            wrong,
            BTreeSet::from(["bing", "google", "rfc9309", "yandex"])
        );
        // `/a/b`, and its variants (`/a/%62` is `/a/b` percent-encoded).
        let paths: BTreeSet<&str> = eq.unintended().map(|d| d.path.as_str()).collect();
        assert!(
            paths.contains("/a/b") && paths.contains("/a/%62"),
            "{paths:?}"
        );
        assert!(paths.iter().all(|p| p.starts_with("/a/")), "{paths:?}");
        // Strict robots took the disallow first before and after.
        assert!(eq.differences.iter().all(|d| d.profile.name != "strict"));
    }

    #[test]
    fn a_reordered_group_excuses_only_the_more_specific_rule_first() {
        let before = RobotsTxt::parse(
            "User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /c/d\nAllow: /c\n",
        );
        let mut plan = plan(&before);
        assert_eq!(
            plan.text,
            "User-agent: *\nAllow: /a/b\nDisallow: /a\nDisallow: /c/d\nAllow: /c\n"
        );
        // A broken fixer that also put `Allow: /c` first.
        plan.text =
            "User-agent: *\nAllow: /a/b\nDisallow: /a\nAllow: /c\nDisallow: /c/d\n".to_owned();
        plan.origins.swap(3, 4);
        let eq = differential(
            &Analysis::new(&before),
            &RobotsTxt::parse(plan.text.as_str()),
            Some(&plan),
        );
        let wrong: BTreeSet<(&str, &str)> = eq
            .unintended()
            .map(|d| (d.profile.name, d.path.as_str()))
            .collect();
        assert_eq!(wrong, BTreeSet::from([("strict", "/c/d")]));
        // The allow that moved before its disallow is intended.
        assert!(eq.intended().any(|d| d.path == "/a/b"));
    }

    /// Many groups for one robot (merged by most robots, not by strict
    /// ones) and many distinct robots.
    fn many_groups(n: usize) -> String {
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("User-agent: bot\nDisallow: /p{i}/\n\n"));
        }
        for i in 0..n {
            let name: String = format!("{i}")
                .bytes()
                .map(|b| char::from(b'a' + (b - b'0')))
                .collect();
            text.push_str(&format!("User-agent: r{name}\nDisallow: /q{i}/\n\n"));
        }
        text
    }

    #[test]
    fn differences_are_counted_beyond_those_kept() {
        let before = RobotsTxt::parse(many_groups(300));
        let fixed = fix(&before);
        let eq = &compare_fixed(&before, &fixed);
        assert!(eq.is_complete(), "{:?}", eq.unasked);
        assert!(eq.holds());
        assert!(
            eq.intended_found > DIFFERENCES_KEPT,
            "{}",
            eq.intended_found
        );
        assert_eq!(eq.intended().count(), DIFFERENCES_KEPT);
        assert_eq!(eq.unintended_found, 0);
    }

    #[test]
    fn past_its_work_bound_the_check_says_what_it_left_unasked() {
        let before = RobotsTxt::parse(many_groups(200));
        let after = RobotsTxt::parse(many_groups(200).replace("/p7/", "/p7x/"));
        let full = differential_within(&Analysis::new(&before), &after, None, u64::MAX);
        assert!(full.is_complete());
        assert!(!full.holds());
        let bounded = differential_within(&Analysis::new(&before), &after, None, 60_000);
        assert!(!bounded.is_complete());
        let strict = bounded
            .unasked
            .iter()
            .find(|u| u.profile.name == "strict")
            .expect("strict robots try every user-agent line: some are left");
        assert!(strict.robots > 0 && !strict.robot_examples.is_empty());
        // The probe robots are always asked; every robot is either asked
        // or counted as unasked.
        for u in &bounded.unasked {
            assert!(
                u.robot_examples
                    .iter()
                    .all(|r| !PROBE_ROBOTS.contains(&r.as_str())),
                "{u:?}"
            );
        }
        let asked = bounded.proven + bounded.probed;
        let unasked: usize = bounded.unasked.iter().map(|u| u.robots).sum();
        assert_eq!(asked + unasked, full.proven + full.probed);
        // Robots that merge the groups for `bot` read the changed rule:
        // found within the bound.
        assert!(bounded.unintended().any(|d| d.path.starts_with("/p7")));
        assert!(bounded.checks <= full.checks);
    }

    #[test]
    fn paths_past_the_bound_are_left_with_their_lines() {
        let mut text = String::from("User-agent: *\n");
        for i in 0..2_000 {
            text.push_str(&format!("Disallow: /p{i}/\n"));
        }
        let before = RobotsTxt::parse(text.as_str());
        let after = RobotsTxt::parse(text.replace("Disallow: /p1", "Allow: /p1"));
        let bounded = differential_within(&Analysis::new(&before), &after, None, 300_000);
        let left: usize = bounded.unasked.iter().map(|u| u.paths).sum();
        assert!(left > 0, "{:?}", bounded.unasked);
        assert!(bounded.unasked.iter().all(|u| u.robots == 0));
        assert!(bounded.unasked.iter().all(|u| !u.lines.is_empty()));
        assert!(!bounded.holds(), "the paths asked decide differently");
    }

    #[test]
    fn probes_cover_a_patterns_boundaries() {
        let mut out = Vec::new();
        probes("/a*b$", true, &mut out);
        for want in [
            "/a*b$", "/a", "/ax", "/a?q=1", "/axb", "/axbx", "/axb?q=1", "/%61",
        ] {
            assert!(out.iter().any(|p| p == want), "{want} not in {out:?}");
        }
        out.clear();
        probes("shop/index.html", false, &mut out);
        for want in [
            "/shop/index.html",
            "/shop/index.htm",
            "/shop/",
            "/shop/index.htmlx",
        ] {
            assert!(out.iter().any(|p| p == want), "{want} not in {out:?}");
        }
    }

    fn pick<'a>(rng: &mut Xorshift, items: &[&'a str]) -> &'a str {
        items[(rng.next_u64() % items.len() as u64) as usize]
    }

    /// Every path over `/`, `a`, `b` of up to five bytes.
    fn all_paths() -> Vec<String> {
        let mut out = vec!["/".to_owned()];
        let mut frontier = vec!["/".to_owned()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for p in &frontier {
                for c in ["/", "a", "b"] {
                    next.push(format!("{p}{c}"));
                }
            }
            out.extend(next.iter().cloned());
            frontier = next;
        }
        out
    }

    /// For random pairs of prefix-rule files, whenever some path is decided
    /// differently, the differential check finds a difference under that
    /// profile: asking only the rules that read differently loses nothing.
    #[test]
    fn probing_only_changed_rules_finds_every_difference() {
        let patterns = ["", "/", "/a", "/ab", "/a/", "/b", "/ba", "/a/b", "/aab"];
        let paths = all_paths();
        let chain = TokenChain::parse("botwarden-probe");
        let mut rng = Xorshift::new(0x9E37_79B9_7F4A_7C15);
        let mut differing = 0;
        for _ in 0..300 {
            let mut files = Vec::new();
            for _ in 0..2 {
                let mut body = String::from("User-agent: *\n");
                for _ in 0..(rng.next_u64() % 5) {
                    let kind = pick(&mut rng, &["Allow", "Disallow"]);
                    let pattern = pick(&mut rng, &patterns);
                    body.push_str(&format!("{kind}: {pattern}\n"));
                }
                files.push(RobotsTxt::parse(body));
            }
            let eq = differential(&Analysis::new(&files[0]), &files[1], None);
            for profile in Profile::ALL {
                let (rb, ra) = (
                    Robots::new(&files[0], profile),
                    Robots::new(&files[1], profile),
                );
                let (mb, ma) = (rb.matcher(&chain), ra.matcher(&chain));
                let brute = paths.iter().find(|p| {
                    mb.check_path(p.as_bytes()).allowed != ma.check_path(p.as_bytes()).allowed
                });
                let found = eq
                    .differences
                    .iter()
                    .any(|d| d.profile == profile && d.agent == "botwarden-probe");
                if let Some(path) = brute {
                    differing += 1;
                    assert!(
                        found,
                        "[{profile}] {path} differs, unreported:\n{}---\n{}",
                        String::from_utf8_lossy(files[0].bytes()),
                        String::from_utf8_lossy(files[1].bytes())
                    );
                }
            }
        }
        assert!(
            differing > 300,
            "the generator makes differing files ({differing})"
        );
    }
}
