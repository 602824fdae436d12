//! The fast matcher against a deliberately simple reference.
//!
//! Random robots.txt bodies over a small alphabet (paths of `/ab*$%?`…,
//! several groups, user-agents from a small set including `*`, keys in
//! several spellings, with and without a colon, comments, blank lines, other
//! directives) are compiled by the library and read again by the reference
//! below, which follows the profile documentation literally:
//!
//! - longest match (`rfc9309`, `google`): groups start at a user-agent line
//!   that follows a rule (`rfc9309`: or an extension such as
//!   `crawl-delay`); a robot obeys the groups naming the first token of its
//!   chain that any group names, merged, else the `*` groups, merged, else
//!   everything is allowed; every rule is tried with a quadratic dynamic
//!   programme (`*` anywhere, `$` at the end); the longest pattern wins,
//!   `allow` on a tie; empty patterns never decide. `google` also reads keys
//!   by prefix, compares the URL's path as given, and lets an `allow` of
//!   `…/index.htm…` allow its directory;
//! - first match (`strict`): blank-line records, a record of user-agent
//!   lines only is dropped; the first record (file order) with an agent that
//!   is a substring of the robot's name, else the first `*` record; the first
//!   rule (file order) whose pattern is a prefix of the path; `*` is literal;
//!   an empty `disallow` allows.
//!
//! Under every profile that says so, `/robots.txt` itself is allowed.
//! Percent-encoding is brought to the profile's form with the library's own
//! `normalize_pattern` / `normalize_path`, which have tests of their own;
//! everything after that is the reference's.

use botwarden_robots::{
    PathForm, Profile, Reason, RobotMatcher, Robots, RobotsTxt, TokenChain, normalize_path,
    normalize_pattern, path_of,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Cases per property: enough to explore the alphabet, a few seconds in a
/// debug build.
const CASES: u32 = 2_000;

fn config() -> Config {
    Config {
        // `PROPTEST_CASES=100000` for a deeper run.
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(CASES),
        // Failures are reported with their minimal input; no files are
        // written next to the sources.
        failure_persistence: None,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------
// The reference.

/// Whether `pattern` (`*` anywhere, a final `$` anchoring the end) matches
/// `path` from its start. `row[j]`: the pattern read so far matches
/// `path[..j]`.
fn glob(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let mut row = vec![false; path.len() + 1];
    row[0] = true;
    for &p in pattern {
        let mut next = vec![false; path.len() + 1];
        if p == b'*' {
            let mut reached = false;
            for (j, cell) in next.iter_mut().enumerate() {
                reached |= row[j];
                *cell = reached;
            }
        } else {
            for j in 0..path.len() {
                next[j + 1] = row[j] && path[j] == p;
            }
        }
        row = next;
    }
    if anchored {
        row[path.len()]
    } else {
        row.contains(&true)
    }
}

/// How a key is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spelling {
    Exact,
    Misspelt,
    Prefix,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name {
    Agent,
    Allow,
    Disallow,
    CrawlDelay,
    Sitemap,
    Unknown,
}

/// One generated line.
#[derive(Debug, Clone)]
enum Line {
    Directive {
        name: Name,
        /// Index into the spellings of `name` (see [`key`]).
        key: usize,
        colon: bool,
        value: String,
        comment: bool,
    },
    Comment,
    Blank,
}

/// The ways a key is written, with their class.
fn keys(name: Name) -> &'static [(&'static str, Spelling)] {
    match name {
        Name::Agent => &[
            ("User-agent", Spelling::Exact),
            ("user-agent", Spelling::Exact),
            ("USER-AGENT", Spelling::Exact),
            ("useragent", Spelling::Misspelt),
            ("User agent", Spelling::Misspelt),
            ("user-agents", Spelling::Prefix),
        ],
        Name::Allow => &[
            ("Allow", Spelling::Exact),
            ("allow", Spelling::Exact),
            ("ALLOWED", Spelling::Prefix),
        ],
        Name::Disallow => &[
            ("Disallow", Spelling::Exact),
            ("disallow", Spelling::Exact),
            ("DisAllow", Spelling::Exact),
            ("disalow", Spelling::Misspelt),
            ("Dissallow", Spelling::Misspelt),
            ("disallowed", Spelling::Prefix),
        ],
        Name::CrawlDelay => &[("Crawl-delay", Spelling::Exact)],
        Name::Sitemap => &[("Sitemap", Spelling::Exact)],
        Name::Unknown => &[("Noindex", Spelling::Exact), ("Foo", Spelling::Exact)],
    }
}

fn key(name: Name, index: usize) -> (&'static str, Spelling) {
    let all = keys(name);
    all[index % all.len()]
}

/// The readings under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// `rfc9309`: longest match.
    Rfc9309,
    /// `google`: longest match, Google's parser.
    Google,
    /// `strict`: first match, 1994 records.
    Strict,
}

impl Reading {
    fn profile(self) -> &'static Profile {
        match self {
            Reading::Rfc9309 => &Profile::RFC9309,
            Reading::Google => &Profile::GOOGLE,
            Reading::Strict => &Profile::STRICT,
        }
    }

    fn form(self) -> PathForm {
        self.profile().path_form
    }
}

/// The directive a line is read as, if any, with its value.
fn read(line: &Line, reading: Reading) -> Option<(Name, &str)> {
    let Line::Directive {
        name,
        key: k,
        colon,
        value,
        ..
    } = line
    else {
        return None;
    };
    let (text, spelling) = key(*name, *k);
    let spelling_read = match reading {
        // Google's parser compares keys by prefix.
        Reading::Google => true,
        Reading::Rfc9309 => spelling != Spelling::Prefix,
        Reading::Strict => spelling == Spelling::Exact,
    };
    if !spelling_read || *name == Name::Unknown {
        return None;
    }
    if !colon {
        // `key value` needs exactly two words; the strict reading never
        // accepts it.
        let two_words = !text.contains(' ') && !value.is_empty() && !value.contains(' ');
        if reading == Reading::Strict || !two_words {
            return None;
        }
    }
    Some((*name, value.as_str()))
}

#[derive(Debug, Default)]
struct RefGroup {
    /// `None` for `*`; otherwise what is compared with robots' tokens.
    agents: Vec<Option<String>>,
    /// `(allow, normalised pattern)` in file order.
    rules: Vec<(bool, Vec<u8>)>,
}

/// The product token of a user-agent value, `None` for `*`.
fn product_token(value: &str) -> Option<String> {
    let b = value.as_bytes();
    if b.first() == Some(&b'*') && b.get(1).is_none_or(u8::is_ascii_whitespace) {
        return None;
    }
    let end = b
        .iter()
        .position(|&c| !(c.is_ascii_alphabetic() || c == b'_' || c == b'-'))
        .unwrap_or(b.len());
    Some(value[..end].to_ascii_lowercase())
}

/// Google: an `allow` whose last segment starts with `index.htm` also
/// allows its directory, exactly.
fn index_html_directory(pattern: &[u8]) -> Option<Vec<u8>> {
    let slash = pattern.iter().rposition(|&b| b == b'/')?;
    pattern[slash..].starts_with(b"/index.htm").then(|| {
        let mut dir = pattern[..=slash].to_vec();
        dir.push(b'$');
        dir
    })
}

/// Groups as the reading forms them.
fn ref_groups(lines: &[Line], reading: Reading) -> Vec<RefGroup> {
    let records = reading == Reading::Strict;
    let mut groups: Vec<RefGroup> = Vec::new();
    let mut kept: Vec<bool> = Vec::new();
    let mut current: Option<usize> = None;
    let mut in_body = false;
    for line in lines {
        if matches!(line, Line::Blank) && records {
            if let Some(g) = current.take() {
                kept[g] = in_body;
            }
            in_body = false;
            continue;
        }
        let Some((name, value)) = read(line, reading) else {
            continue;
        };
        match name {
            Name::Agent => {
                if current.is_none() || in_body {
                    if let Some(g) = current {
                        kept[g] = true;
                    }
                    groups.push(RefGroup::default());
                    kept.push(false);
                    current = Some(groups.len() - 1);
                    in_body = false;
                }
                let agent = if records {
                    (value != "*").then(|| value.to_lowercase())
                } else {
                    product_token(value)
                };
                groups[current.expect("just set")].agents.push(agent);
            }
            Name::Allow | Name::Disallow => {
                if let Some(g) = current {
                    let allow = name == Name::Allow;
                    let pattern = normalize_pattern(value.as_bytes(), reading.form()).into_owned();
                    let derived = (allow && reading == Reading::Google)
                        .then(|| index_html_directory(&pattern))
                        .flatten();
                    groups[g].rules.push((allow, pattern));
                    groups[g].rules.extend(derived.map(|d| (true, d)));
                    in_body = true;
                }
            }
            // Google's parser does not let other directives end the run of
            // user-agent lines.
            Name::CrawlDelay => in_body |= current.is_some() && reading != Reading::Google,
            Name::Sitemap | Name::Unknown => {}
        }
    }
    if let Some(g) = current {
        kept[g] = !records || in_body;
    }
    groups
        .into_iter()
        .zip(kept)
        .filter(|(_, k)| *k || !records)
        .map(|(g, _)| g)
        .collect()
}

/// The reference's answer.
fn reference(lines: &[Line], reading: Reading, chain: &[&str], path: &str) -> bool {
    let groups = ref_groups(lines, reading);
    // RFC 9309 §2.2.2 and the 1997 draft: `/robots.txt` is always allowed.
    let bare = path.split(['?', ';']).next().unwrap_or_default();
    if reading.profile().robots_txt_allowed && bare == "/robots.txt" {
        return true;
    }
    let is_star = |g: &RefGroup| g.agents.iter().any(Option::is_none);
    if reading == Reading::Strict {
        let path = normalize_path(path.as_bytes(), reading.form());
        let mut chosen = None;
        for token in chain {
            let token = token.to_ascii_lowercase();
            let name = token.split('/').next().unwrap_or_default();
            chosen = groups.iter().find(|g| {
                !is_star(g) && g.agents.iter().flatten().any(|a| name.contains(a.as_str()))
            });
            if chosen.is_some() {
                break;
            }
        }
        let Some(group) = chosen.or_else(|| groups.iter().find(|g| is_star(g))) else {
            return true;
        };
        return group
            .rules
            .iter()
            .find(|(_, p)| path.starts_with(p))
            .is_none_or(|(allow, p)| *allow || p.is_empty());
    }
    // Google compares the URL's path as given.
    let path = match reading {
        Reading::Google => path.as_bytes().to_vec(),
        _ => normalize_path(path.as_bytes(), reading.form()).into_owned(),
    };
    let mut chosen: Vec<&RefGroup> = Vec::new();
    for token in chain {
        let token = token.to_ascii_lowercase();
        chosen = groups
            .iter()
            .filter(|g| g.agents.iter().any(|a| a.as_deref() == Some(&token)))
            .collect();
        if !chosen.is_empty() {
            break;
        }
    }
    if chosen.is_empty() {
        chosen = groups.iter().filter(|g| is_star(g)).collect();
    }
    chosen
        .iter()
        .flat_map(|g| &g.rules)
        .filter(|(_, p)| !p.is_empty() && glob(p, &path))
        .max_by_key(|(allow, p)| (p.len(), *allow))
        .is_none_or(|(allow, _)| *allow)
}

// ---------------------------------------------------------------------------
// Generators.

/// Rules for Google's `index.html` directory rule, and paths they concern.
const INDEX_PATTERNS: &[&str] = &[
    "/a/index.html",
    "/index.htm",
    "/b/index.html?x",
    "/a/index.htmx*",
];
const INDEX_PATHS: &[&str] = &["/a/", "/", "/b/", "/a/index.html", "/index.htm"];

/// Rule values: mostly paths, sometimes odd ones.
fn pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "/[ab*$/]{0,6}",
        3 => "/[ab*$%?;=/2F46]{0,8}",
        1 => "[ab*$]{0,3}",
        1 => Just(String::new()),
        1 => Just("*".to_owned()),
        1 => Just("/".to_owned()),
        1 => prop::sample::select(INDEX_PATTERNS).prop_map(str::to_owned),
    ]
}

/// URL paths over the same alphabet.
fn url_path() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "/[ab*$/]{0,8}",
        3 => "/[ab*$%?;=/2F46]{0,10}",
        1 => Just("/robots.txt".to_owned()),
        1 => Just("/robots.txt?x".to_owned()),
        1 => prop::sample::select(INDEX_PATHS).prop_map(str::to_owned),
    ]
}

const AGENTS: &[&str] = &[
    "*",
    "*",
    "foo",
    "FooBot",
    "foobot/1.0",
    "bar",
    "foo-bar",
    "baz_qux",
    "* x",
    "*bot",
    "",
    "oba",
    "msnbot",
    "Yandex",
];

const TOKENS: &[&str] = &[
    "foo",
    "FOOBOT",
    "bar",
    "foo-bar",
    "baz_qux",
    "qux",
    "foobar/2.0",
    "xfoobotx",
];

/// A directive line: keys mostly in an exact spelling (indices 0 and 1 of
/// [`keys`]), mostly with a colon.
fn directive(name: Name, value: BoxedStrategy<String>) -> BoxedStrategy<Line> {
    (
        prop_oneof![4 => 0..2usize, 1 => 0..6usize],
        prop::bool::weighted(0.9),
        value,
        prop::bool::weighted(0.1),
    )
        .prop_map(move |(key, colon, value, comment)| Line::Directive {
            name,
            key,
            colon,
            value,
            comment,
        })
        .boxed()
}

fn agent_line() -> BoxedStrategy<Line> {
    directive(
        Name::Agent,
        prop::sample::select(AGENTS).prop_map(str::to_owned).boxed(),
    )
}

fn rule_line() -> BoxedStrategy<Line> {
    prop_oneof![
        5 => directive(Name::Disallow, pattern().boxed()),
        4 => directive(Name::Allow, pattern().boxed()),
        1 => directive(Name::CrawlDelay, Just("1".to_owned()).boxed()),
    ]
    .boxed()
}

/// Any line at all, for noise between the groups.
fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        2 => agent_line(),
        3 => rule_line(),
        1 => directive(Name::Sitemap, Just("/sitemap.xml".to_owned()).boxed()),
        1 => directive(Name::Unknown, Just("/a".to_owned()).boxed()),
        1 => Just(Line::Comment),
        3 => Just(Line::Blank),
    ]
}

/// A body: groups of user-agent lines and rules, mostly separated by blank
/// lines, with a few arbitrary lines inserted anywhere.
fn lines() -> impl Strategy<Value = Vec<Line>> {
    let group = (
        prop::collection::vec(agent_line(), 0..3),
        prop::collection::vec(rule_line(), 0..5),
        prop::bool::weighted(0.7),
    );
    (
        prop::collection::vec(group, 0..5),
        prop::collection::vec((any::<prop::sample::Index>(), line()), 0..5),
    )
        .prop_map(|(groups, noise)| {
            let mut out = Vec::new();
            for (agents, rules, blank) in groups {
                out.extend(agents);
                out.extend(rules);
                if blank {
                    out.push(Line::Blank);
                }
            }
            for (at, line) in noise {
                let at = at.index(out.len() + 1);
                out.insert(at, line);
            }
            out
        })
}

/// The body, with line endings `\n` or `\r\n` and maybe no final ending.
fn render(lines: &[Line], crlf: &[bool], final_ending: bool) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        match line {
            Line::Directive {
                name,
                key: k,
                colon,
                value,
                comment,
            } => {
                out.push_str(key(*name, *k).0);
                out.push_str(if *colon { ": " } else { " " });
                out.push_str(value);
                if *comment {
                    out.push_str(" # note");
                }
            }
            Line::Comment => out.push_str("# a comment"),
            Line::Blank => {}
        }
        if i + 1 < lines.len() || final_ending {
            out.push_str(if crlf.get(i).copied().unwrap_or(false) {
                "\r\n"
            } else {
                "\n"
            });
        }
    }
    out
}

#[derive(Debug, Clone)]
struct Case {
    lines: Vec<Line>,
    body: String,
    chain: Vec<&'static str>,
    paths: Vec<String>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        lines(),
        prop::collection::vec(any::<bool>(), 40),
        any::<bool>(),
        prop::collection::vec(prop::sample::select(TOKENS), 0..3),
        prop::collection::vec(url_path(), 1..8),
    )
        .prop_map(|(lines, crlf, final_ending, chain, paths)| Case {
            body: render(&lines, &crlf, final_ending),
            lines,
            chain,
            paths,
        })
}

fn compare(case: &Case, reading: Reading) -> Result<(), TestCaseError> {
    let robots = Robots::parse(case.body.as_str(), reading.profile());
    let chain = TokenChain::new(case.chain.iter().copied());
    for path in &case.paths {
        let url = format!("https://example.com{path}");
        prop_assert_eq!(&*path_of(&url), path.as_str(), "the generator's URL");
        let got = robots.check(&chain, &url);
        let want = reference(&case.lines, reading, &case.chain, path);
        prop_assert_eq!(
            got.allowed,
            want,
            "{}: {:?} for {:?} with chain {:?}; reason {:?}{}\n--- body ---\n{}",
            reading.profile(),
            got.allowed,
            path,
            case.chain,
            got.reason,
            match got.reason {
                Reason::Rule { index, .. } => format!(" ({})", robots.rule(index)),
                _ => String::new(),
            },
            case.body
        );
    }
    Ok(())
}

/// Chains for the comparison of the two compiles: the reference's tokens
/// and ones the bing and yandex profiles fall back from.
const LAZY_TOKENS: &[&str] = &[
    "foo",
    "FOOBOT",
    "bar",
    "foo-bar",
    "baz_qux",
    "foobar/2.0",
    "bingbot",
    "msnbot",
    "YandexImages",
    "yandex",
    "",
];

/// A compile for one robot answers as the full compile does, under every
/// profile: decisions with their reasons, the rule a reason names, the
/// groups and their values.
fn compare_compiles(case: &Case, chain: &[&str]) -> Result<(), TestCaseError> {
    let chain = TokenChain::new(chain.iter().copied());
    let txt = RobotsTxt::parse(case.body.as_str());
    for profile in Profile::ALL {
        let robots = Robots::new(&txt, profile);
        let matcher = robots.matcher(&chain);
        for lazy in [
            RobotMatcher::new(&txt, profile, &chain),
            RobotMatcher::parse(&case.body, profile, &chain),
        ] {
            prop_assert_eq!(
                lazy.applies(),
                matcher.applies(),
                "{}\n{}",
                profile,
                case.body
            );
            prop_assert!(
                lazy.group_lines().eq(matcher.groups().map(|g| g.line())),
                "{}: groups\n{}",
                profile,
                case.body
            );
            prop_assert_eq!(lazy.crawl_delay(), matcher.crawl_delay());
            for path in &case.paths {
                let want = matcher.check(path);
                prop_assert_eq!(
                    lazy.check(path),
                    want,
                    "{} {} {:?}\n--- body ---\n{}",
                    profile,
                    chain,
                    path,
                    case.body
                );
                if let Reason::Rule { index, .. } = want.reason {
                    prop_assert_eq!(lazy.rule(index), Some(robots.rule(index)));
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn one_robot_compile_agrees_with_full_compile(
        case in case(),
        chain in prop::collection::vec(prop::sample::select(LAZY_TOKENS), 0..3),
    ) {
        compare_compiles(&case, &chain)?;
    }

    #[test]
    fn longest_match_agrees_with_reference(case in case()) {
        compare(&case, Reading::Rfc9309)?;
    }

    #[test]
    fn google_longest_match_agrees_with_reference(case in case()) {
        compare(&case, Reading::Google)?;
    }

    #[test]
    fn first_match_agrees_with_reference(case in case()) {
        compare(&case, Reading::Strict)?;
    }

    /// One rule, so that only the wildcard matching is compared: greedy
    /// segment matching against the dynamic programme.
    #[test]
    fn wildcard_matching_agrees_with_dynamic_programme(
        pattern in prop_oneof![
            "/[ab*$]{0,12}",
            "[ab*]{0,6}[ab]\\$",
            "/(\\*?ab?){1,5}\\$?",
        ],
        path in prop_oneof!["/[ab$]{0,16}", "/(ab?){0,8}b?"],
    ) {
        let body = format!("User-agent: *\nDisallow: {pattern}\n");
        let robots = Robots::parse(body.as_str(), &Profile::RFC9309);
        let url = format!("https://example.com{path}");
        let got = robots.check(&TokenChain::default(), &url);
        let want = pattern.is_empty() || !glob(pattern.as_bytes(), path.as_bytes());
        prop_assert_eq!(
            got.allowed, want,
            "Disallow: {:?} against {:?}: {:?}", pattern, path, got.reason
        );
    }
}

#[test]
fn reference_glob_examples() {
    let m = |p: &str, s: &str| glob(p.as_bytes(), s.as_bytes());
    assert!(m("/*.php$", "/index.php"));
    assert!(!m("/*.php$", "/index.php?x"));
    assert!(m("/a*b*c", "/aXbYc"));
    assert!(!m("/a*b*c", "/aXcYb"));
    assert!(m("/ab*ab$", "/abab"));
    assert!(!m("/ab*ab$", "/ab"));
    assert!(m("/x$y", "/x$y"));
    assert!(m("*", ""));
    assert!(m("$", ""));
    assert!(!m("$", "/"));
}
