//! The checker: lints with stable codes that say how each robot will read a
//! file, and where it deviates from what robots expect.
//!
//! Every lint lives in its own file under `lint/rules/`, with its
//! documentation as the doc comment of its declaration; [`LINTS`] lists them
//! all. A finding is data, a [`Diagnostic`]: code, severity, span, message,
//! help, and where one exists a machine-applicable [`Fix`].

use std::cell::RefCell;

use crate::analysis::Analysis;
use crate::directive::DirectiveName;
use crate::parse::{Line, LineKind, RobotsTxt, Separator, Span};
use crate::profile::Profile;
use crate::robots::Robots;
use crate::token::TokenChain;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A robot will read the file otherwise than its author meant, or not
    /// at all.
    Error,
    /// Robots disagree, or a line does nothing.
    Warning,
    /// Style that strict or old robots care about.
    Info,
}

impl Severity {
    /// `error`, `warning` or `info`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A lint: a kind of finding, with its documentation.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Lint {
    /// Stable code, `R001`…
    pub code: &'static str,
    /// Stable kebab-case name.
    pub name: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// One line saying what it finds.
    pub summary: &'static str,
    /// Markdown: `## What it does`, `## Why`, `## Example`, `## Fix`.
    pub docs: &'static str,
}

/// One replacement of a span of the original file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// What to replace (may be empty, to insert).
    pub span: Span,
    /// The new text.
    pub replacement: String,
}

/// A machine-applicable fix: edits that, applied together, remove the
/// finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does.
    pub description: String,
    /// Non-overlapping edits.
    pub edits: Vec<Edit>,
}

/// A finding.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// The lint.
    pub lint: &'static Lint,
    /// Where, in the original bytes.
    pub span: Span,
    /// What is wrong, and what each robot will do.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// A fix, where one can be applied mechanically.
    pub fix: Option<Fix>,
    /// The earlier line (1-based) this finding follows from, when another
    /// line is its root cause: a rule that strict robots never reach
    /// because an earlier rule matches first, a repeat of an earlier line.
    /// [`fold`] shows such findings with the finding on that line.
    pub cause: Option<u32>,
}

impl Diagnostic {
    pub(crate) fn new(lint: &'static Lint, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            lint,
            span,
            message: message.into(),
            help: None,
            fix: None,
            cause: None,
        }
    }

    /// Marks the finding as following from an earlier line.
    pub(crate) fn caused_by(mut self, line: u32) -> Diagnostic {
        self.cause = Some(line);
        self
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn fix(mut self, description: impl Into<String>, edits: Vec<Edit>) -> Diagnostic {
        self.fix = Some(Fix {
            description: description.into(),
            edits,
        });
        self
    }

    /// The lint's code.
    #[must_use]
    pub fn code(&self) -> &'static str {
        self.lint.code
    }

    /// The lint's severity.
    #[must_use]
    pub fn severity(&self) -> Severity {
        self.lint.severity
    }
}

/// Declares a lint from its doc comment and its code, name, severity and
/// summary.
macro_rules! declare_lint {
    ($(#[doc = $doc:literal])* $code:literal, $name:literal, $severity:ident, $summary:literal) => {
        $(#[doc = $doc])*
        pub(crate) const LINT: crate::lint::Lint = crate::lint::Lint {
            code: $code,
            name: $name,
            severity: crate::lint::Severity::$severity,
            summary: $summary,
            docs: concat!($($doc, "\n"),*),
        };
    };
}

/// Lists the lint modules once: declares them, registers them in
/// [`LINTS`] and runs them.
macro_rules! lints {
    ($($module:ident),* $(,)?) => {
        mod rules {
            $(pub(super) mod $module;)*
        }
        /// Every lint, in code order.
        pub const LINTS: &[&Lint] = &[$(&rules::$module::LINT),*];
        fn run(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            $(
                if cx.analysis.is_cancelled() {
                    return;
                }
                rules::$module::check(cx, out);
            )*
        }
    };
}

lints![
    rule_outside_group,
    missing_blank_line,
    blank_line_in_group,
    duplicate_group,
    star_in_user_agent,
    user_agent_not_token,
    group_without_rule,
    empty_allow,
    allow_everything,
    wildcard_for_strict,
    robots_txt_rule,
    robots_disagree,
    allowed_and_disallowed,
    crawl_delay,
    sitemap_in_group,
    sitemap_relative,
    sitemap_suspicious,
    host_scheme,
    host_repeated,
    clean_param,
    robot_version,
    misspelt_key,
    missing_colon,
    byte_order_mark,
    invalid_utf8,
    file_too_large,
    comment_after_directive,
    unknown_directive,
    unparseable_line,
    template,
    html,
    utf16,
    blocks_everything,
    rule_never_matches,
    rule_shadowed,
    nul_byte,
    line_too_long,
    empty_user_agent,
    binary,
    preference_unreadable,
    preference_star_only,
    preference_no_effect,
    preference_disagree,
    preference_scope,
];

/// The lint with this code or name.
#[must_use]
pub fn lint(code_or_name: &str) -> Option<&'static Lint> {
    LINTS
        .iter()
        .copied()
        .find(|l| l.code.eq_ignore_ascii_case(code_or_name) || l.name == code_or_name)
}

/// A group as the checker sees the file's structure (RFC 9309 reading):
/// line indices into [`RobotsTxt::lines`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Block {
    /// The `user-agent` lines.
    pub(crate) agents: Vec<usize>,
    /// The directives after them (rules and extensions).
    pub(crate) members: Vec<usize>,
}

/// What every lint may look at.
pub(crate) struct Context<'a> {
    pub(crate) txt: &'a RobotsTxt,
    /// The file compiled under every built-in profile.
    analysis: &'a Analysis<'a>,
    /// Groups in file order.
    pub(crate) blocks: Vec<Block>,
    /// Directives before any user-agent line.
    pub(crate) before_groups: Vec<usize>,
    /// The first line that shows the file is an HTML page, if any.
    pub(crate) html: Option<usize>,
    /// A robot that obeys `*` under every profile (see [`star_robot`]).
    star: TokenChain,
    /// Wildcard rules in the file: a path may be tried against each.
    pub(crate) wildcard_rules: u64,
    /// `user-agent` lines in the file: robots that match names as
    /// substrings try each.
    pub(crate) agent_lines: u64,
    /// Lints that asked about some rules only, to stay within
    /// [`LINT_WORK`].
    pub(crate) sampled: RefCell<Vec<Sampled>>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(analysis: &'a Analysis<'a>) -> Context<'a> {
        let txt = analysis.txt();
        let mut blocks: Vec<Block> = Vec::new();
        let mut before_groups = Vec::new();
        let mut in_members = false;
        for (i, line) in txt.lines().iter().enumerate() {
            let Some(name) = Context::read_name(line) else {
                continue;
            };
            match name {
                DirectiveName::UserAgent => {
                    if in_members || blocks.is_empty() {
                        blocks.push(Block::default());
                        in_members = false;
                    }
                    if let Some(b) = blocks.last_mut() {
                        b.agents.push(i);
                    }
                }
                DirectiveName::Allow
                | DirectiveName::Disallow
                | DirectiveName::CrawlDelay
                | DirectiveName::RequestRate
                | DirectiveName::VisitTime
                | DirectiveName::RobotVersion
                | DirectiveName::ContentUsage
                | DirectiveName::ContentSignal => match blocks.last_mut() {
                    Some(b) => {
                        b.members.push(i);
                        in_members = true;
                    }
                    None => before_groups.push(i),
                },
                _ => {}
            }
        }
        let html = txt.lines().iter().position(|l| {
            let text = txt.text(l.span);
            let text = text.trim_start().to_ascii_lowercase();
            HTML_TAGS.iter().any(|t| text.starts_with(t))
        });
        let star = star_robot(&analysis.all().map(|(_, r)| r).collect::<Vec<_>>());
        let wildcard_rules = txt
            .directives()
            .filter(|(_, d)| d.name.is_rule())
            .filter(|(_, d)| {
                let v = txt.slice(d.value);
                v.ends_with(b"$") || v.contains(&b'*')
            })
            .count() as u64;
        let agent_lines = txt
            .directives()
            .filter(|(_, d)| d.name == DirectiveName::UserAgent)
            .count() as u64;
        Context {
            txt,
            analysis,
            blocks,
            before_groups,
            html,
            star,
            wildcard_rules,
            agent_lines,
            sampled: RefCell::new(Vec::new()),
        }
    }

    /// The directive a line holds as most robots read it (exact names and
    /// misspellings, with or without colon), if any.
    pub(crate) fn read_name(line: &Line) -> Option<DirectiveName> {
        match line.kind {
            LineKind::Directive(d)
                if Profile::RFC9309.reads(d.name, d.spelling, d.separator == Separator::Colon)
                    || Profile::GOOGLE.reads(
                        d.name,
                        d.spelling,
                        d.separator == Separator::Colon,
                    ) =>
            {
                Some(d.name)
            }
            _ => None,
        }
    }

    pub(crate) fn line(&self, index: usize) -> &'a Line {
        &self.txt.lines()[index]
    }

    /// The directive of a line, if it is one.
    pub(crate) fn directive(&self, index: usize) -> Option<crate::parse::Directive> {
        match self.line(index).kind {
            LineKind::Directive(d) => Some(d),
            _ => None,
        }
    }

    /// The lines holding a directive of this name as most robots read it,
    /// with their values, in file order.
    pub(crate) fn lines_named(
        &self,
        name: DirectiveName,
    ) -> impl Iterator<Item = (usize, String)> + '_ {
        (0..self.txt.lines().len())
            .filter(move |&i| Context::read_name(self.line(i)) == Some(name))
            .map(|i| (i, self.value(i)))
    }

    /// The value text of a directive line.
    pub(crate) fn value(&self, index: usize) -> String {
        self.directive(index)
            .map(|d| self.txt.text(d.value).into_owned())
            .unwrap_or_default()
    }

    /// The compiled file for a profile.
    pub(crate) fn robots(&self, profile: &Profile) -> &Robots {
        self.robots_named(profile.name)
    }

    /// The compiled file for a built-in profile's name.
    pub(crate) fn robots_named(&self, name: &str) -> &Robots {
        Profile::by_name(name)
            .and_then(|p| self.analysis.robots(p))
            .expect("lints name built-in profiles")
    }

    /// The value span of the directive on line `number` (1-based).
    pub(crate) fn value_span_of(&self, number: u32) -> Option<Span> {
        match self.txt.line(number)?.kind {
            LineKind::Directive(d) => Some(d.value),
            _ => None,
        }
    }

    /// A span covering a whole line (without its ending).
    pub(crate) fn line_span(&self, index: usize) -> Span {
        self.line(index).span
    }

    /// The span of a line including its line ending.
    pub(crate) fn line_with_ending(&self, index: usize) -> Span {
        let line = self.line(index);
        Span::new(line.span.start, line.span.end + line.ending.as_str().len())
    }
}

/// The readers of some profiles, by their display names: "RFC 9309,
/// Google and Bing robots".
pub(crate) fn readers(mut wanted: impl FnMut(&Profile) -> bool) -> String {
    let names: Vec<&str> = Profile::ALL
        .iter()
        .filter(|p| wanted(p))
        .map(|p| match p.name {
            "rfc9309" => "RFC 9309",
            "google" => "Google",
            "bing" => "Bing",
            "yandex" => "Yandex",
            other => other,
        })
        .collect();
    match names.as_slice() {
        [] => "no robot".to_owned(),
        [one] => format!("{one} robots"),
        [rest @ .., last] => format!("{} and {last} robots", rest.join(", ")),
    }
}

/// One `allow` or `disallow` line of a block.
#[derive(Debug, Clone)]
pub(crate) struct RuleLine {
    /// Index of the line.
    pub(crate) index: usize,
    pub(crate) allow: bool,
    /// The value as written.
    pub(crate) value: String,
}

impl Context<'_> {
    /// The `allow` and `disallow` lines of a block, in order.
    pub(crate) fn rules(&self, block: &Block) -> Vec<RuleLine> {
        block
            .members
            .iter()
            .filter_map(|&i| {
                let d = self.directive(i)?;
                d.name.is_rule().then(|| RuleLine {
                    index: i,
                    allow: d.name == DirectiveName::Allow,
                    value: self.txt.text(d.value).into_owned(),
                })
            })
            .collect()
    }

    /// For each of `rules`, the first earlier rule (an index into `rules`)
    /// whose non-empty value is a prefix of its value as strict robots
    /// compare them, literally (`*` and `$` included): strict robots obey
    /// the first rule that matches, so they never reach the later one.
    pub(crate) fn strict_covers(rules: &[RuleLine]) -> Vec<Option<usize>> {
        let prefixes = Prefixes::new(rules);
        (0..rules.len())
            .map(|k| {
                prefixes
                    .chain(k)
                    .filter_map(|node| node.first.into_iter().flatten().min())
                    .filter(|&first| first < k)
                    .min()
            })
            .collect()
    }

    /// The product token a `user-agent` line names, as RFC 9309 robots
    /// read it (lower case), or `None` for `*`.
    pub(crate) fn token(&self, index: usize) -> Option<String> {
        crate::token::AgentName::lower_token(self.value(index).as_bytes())
    }

    /// A token chain for a robot of this block: its first named token, or
    /// one that no group names when the block is for `*`.
    pub(crate) fn robot_of(&self, block: &Block) -> TokenChain {
        match block
            .agents
            .iter()
            .find_map(|&i| self.token(i).filter(|t| !t.is_empty()))
        {
            Some(t) => TokenChain::new([t]),
            None => self.star_robot(),
        }
    }

    /// A robot that obeys `*` under every profile (see [`star_robot`]).
    pub(crate) fn star_robot(&self) -> TokenChain {
        self.star.clone()
    }

    /// How many of `total` items a lint that asks every profile about each
    /// may ask within [`LINT_WORK`]: a question may try every wildcard rule,
    /// and robots that match names as substrings try every user-agent line.
    pub(crate) fn affordable(&self, total: usize) -> usize {
        let each: u64 = Profile::ALL
            .iter()
            .map(|p| {
                1 + if p.wildcards { self.wildcard_rules } else { 0 }
                    + if p.agent_match == crate::profile::AgentMatch::Substring {
                        self.agent_lines
                    } else {
                        0
                    }
            })
            .sum();
        usize::try_from(LINT_WORK / each.max(1))
            .unwrap_or(usize::MAX)
            .min(total)
    }

    /// Records that `lint` asked about `asked` of `total` items.
    pub(crate) fn sample(&self, lint: &'static Lint, asked: usize, total: usize) {
        if asked < total {
            self.sampled
                .borrow_mut()
                .push(Sampled { lint, asked, total });
        }
    }

    /// A matcher per profile for a robot, to ask it many paths.
    pub(crate) fn matchers(
        &self,
        chain: &TokenChain,
    ) -> Vec<(&'static str, crate::robots::Matcher<'_>)> {
        self.analysis
            .all()
            .map(|(p, robots)| (p.name, robots.matcher(chain)))
            .collect()
    }
}

/// The distinct non-empty values of a block's rules, each linked to the
/// longest other value that is a prefix of it: the values that are
/// prefixes of a rule's value are its node and the node's ancestors. Built
/// by sorting, so that a long rule costs its length, not its length times
/// the number of earlier rules (walking a chain costs at most the length of
/// the value, since each ancestor is shorter).
pub(crate) struct Prefixes {
    /// Per rule, its node (`None` for an empty value).
    node_of: Vec<Option<usize>>,
    nodes: Vec<PrefixNode>,
}

/// One distinct value of [`Prefixes`].
pub(crate) struct PrefixNode {
    /// The node of the longest other value that is a prefix of this one.
    parent: Option<usize>,
    /// The first rule with this value, by kind: `[disallow, allow]`.
    pub(crate) first: [Option<usize>; 2],
    /// Whether the value has no wildcard (`*`, final `$`).
    pub(crate) literal: bool,
}

impl Prefixes {
    pub(crate) fn new(rules: &[RuleLine]) -> Prefixes {
        let mut order: Vec<usize> = (0..rules.len())
            .filter(|&k| !rules[k].value.is_empty())
            .collect();
        order.sort_by(|&a, &b| rules[a].value.cmp(&rules[b].value).then(a.cmp(&b)));
        let mut node_of = vec![None; rules.len()];
        let mut nodes: Vec<PrefixNode> = Vec::new();
        // The node of each value and the values it starts with, in order.
        let mut stack: Vec<usize> = Vec::new();
        let mut values: Vec<&str> = Vec::new();
        for k in order {
            let value = rules[k].value.as_str();
            if values.last() != Some(&value) {
                while let Some(&top) = stack.last() {
                    if value.starts_with(values[top]) {
                        break;
                    }
                    stack.pop();
                }
                nodes.push(PrefixNode {
                    parent: stack.last().copied(),
                    first: [None; 2],
                    literal: !value.contains('*') && !value.ends_with('$'),
                });
                values.push(value);
                stack.push(nodes.len() - 1);
            }
            let n = nodes.len() - 1;
            node_of[k] = Some(n);
            let first = &mut nodes[n].first[usize::from(rules[k].allow)];
            if first.is_none() {
                *first = Some(k);
            }
        }
        Prefixes { node_of, nodes }
    }

    /// The node of rule `k`'s value, then the nodes of the values that are
    /// proper prefixes of it, longest first.
    pub(crate) fn chain(&self, k: usize) -> impl Iterator<Item = &PrefixNode> {
        std::iter::successors(self.node_of[k], |&n| self.nodes[n].parent).map(|n| &self.nodes[n])
    }
}

/// Tags that only an HTML page starts a line with.
const HTML_TAGS: [&str; 8] = [
    "<!doctype",
    "<html",
    "<head",
    "<body",
    "<meta",
    "<script",
    "<style",
    "<title",
];

/// A robot that no group of the file names under any profile, so that it
/// obeys `*`. Strict robots match user-agents as substrings of their name,
/// so a fixed name could be caught by a group (`User-agent: bot`); the
/// first candidate that no compiled profile finds a group for is used.
pub(crate) fn star_robot(compiled: &[&Robots]) -> TokenChain {
    const CANDIDATES: [&str; 6] = ["_", "-", "__", "_-_", "___-___", "_-_-_-_-_"];
    CANDIDATES
        .iter()
        .map(|c| TokenChain::new([*c]))
        .find(|chain| {
            compiled
                .iter()
                .all(|r| !matches!(r.matcher(chain).applies(), crate::robots::Applies::Token(_)))
        })
        .unwrap_or_else(|| TokenChain::new(["_-_-_-_-_"]))
}

/// A path that a pattern matches, as a crawler would request it: wildcards
/// become `x`, a final `$` is dropped, a leading `/` is added when missing,
/// and bytes outside ASCII are percent-encoded.
#[must_use]
pub fn example_path(pattern: &str) -> String {
    use std::fmt::Write as _;
    let body = pattern.strip_suffix('$').unwrap_or(pattern);
    let mut path = String::with_capacity(body.len() + 1);
    if !body.starts_with('/') {
        path.push('/');
    }
    for &b in body.as_bytes() {
        match b {
            b'*' => path.push('x'),
            0x80.. => {
                let _ = write!(path, "%{b:02X}");
            }
            _ => path.push(char::from(b)),
        }
    }
    path
}

/// The work a lint that asks robots about each rule may take, in units of
/// about one rule tried against a path: a file of thousands of rules,
/// thousands of them wildcards, would take billions. Past it, the lint asks
/// about an even spread of the rules and [`Checked::sampled`] says so.
pub const LINT_WORK: u64 = 20_000_000;

/// A lint that asked robots about some of the items it looks at only, to
/// stay within [`LINT_WORK`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampled {
    /// The lint.
    pub lint: &'static Lint,
    /// Items asked about: an even spread of them.
    pub asked: usize,
    /// Items there are.
    pub total: usize,
}

/// What [`check_bounded`] found, and what it left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The findings, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// Lints that looked at some of the items only; empty when every lint
    /// looked at everything.
    pub sampled: Vec<Sampled>,
}

/// Runs every lint over a parsed file. Findings come in file order.
///
#[doc = include_str!("../../docs/checker.md")]
#[must_use]
pub fn check(txt: &RobotsTxt) -> Vec<Diagnostic> {
    check_bounded(txt).diagnostics
}

/// Runs every lint over a parsed file, and says which lints looked at some
/// of the rules only, to stay within [`LINT_WORK`].
#[must_use]
pub fn check_bounded(txt: &RobotsTxt) -> Checked {
    Analysis::new(txt).check_bounded()
}

impl Analysis<'_> {
    /// Runs every lint over the file, and says which lints looked at some
    /// of the rules only, to stay within [`LINT_WORK`]: [`check_bounded`]
    /// on the compiled forms this analysis shares.
    #[must_use]
    pub fn check_bounded(&self) -> Checked {
        let cx = Context::new(self);
        let mut out = Vec::new();
        run(&cx, &mut out);
        out.sort_by(|a, b| (a.span.start, a.lint.code).cmp(&(b.span.start, b.lint.code)));
        Checked {
            diagnostics: out,
            sampled: cx.sampled.into_inner(),
        }
    }
}

/// Applies the machine-applicable fixes of `diagnostics` to the original
/// bytes; overlapping edits after the first are skipped.
#[must_use]
pub fn apply_fixes(txt: &RobotsTxt, diagnostics: &[Diagnostic]) -> Vec<u8> {
    let mut edits: Vec<&Edit> = diagnostics
        .iter()
        .filter_map(|d| d.fix.as_ref())
        .flat_map(|f| &f.edits)
        .collect();
    edits.sort_by_key(|e| (e.span.start, e.span.end));
    let bytes = txt.bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for e in edits {
        if e.span.start < at {
            continue;
        }
        out.extend_from_slice(&bytes[at..e.span.start]);
        out.extend_from_slice(e.replacement.as_bytes());
        at = e.span.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

/// Lines for messages: `1, 4 and 7`, or the first five and how many more
/// (`1, 4, 7, 10, 13 and 9,195 more`), so that a message stays short
/// however many lines there are.
pub(crate) fn line_list(lines: &[u32]) -> String {
    const NAMED: usize = 5;
    let named: Vec<String> = lines.iter().take(NAMED).map(u32::to_string).collect();
    match (lines.len().saturating_sub(NAMED), named.as_slice()) {
        (0, [rest @ .., last]) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        (0, _) => named.join(", "),
        (more, _) => format!("{} and {more} more", named.join(", ")),
    }
}

mod fold;

pub use fold::{Folded, LIKE_FROM, fold};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod line_list_tests {
    #[test]
    fn line_lists_stay_short() {
        assert_eq!(super::line_list(&[3]), "3");
        assert_eq!(super::line_list(&[3, 4]), "3 and 4");
        assert_eq!(super::line_list(&[1, 2, 3, 4, 5]), "1, 2, 3, 4 and 5");
        let many: Vec<u32> = (1..=9_000).collect();
        assert_eq!(super::line_list(&many), "1, 2, 3, 4, 5 and 8995 more");
    }
}
