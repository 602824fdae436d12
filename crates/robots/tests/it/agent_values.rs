//! How a `user-agent` value names robots: the one rule, as a table.
//!
//! Every part of the crate (compiling, the checker, the interpretation
//! matrix, the fixer) reads a value through `AgentName::read`; this table
//! states what it answers, one column per way of matching:
//!
//! - product token (`google`, `rfc9309`, `bing`, `yandex`): `*` alone or
//!   followed by white space is every robot; otherwise the leading run of
//!   `[A-Za-z_-]`, which may be empty (then the group names no robot that
//!   has a product token);
//! - substring (`strict`, the 1994 reading): only `*` exactly is every
//!   robot; otherwise the whole value.
//!
//! Each row is checked three ways: the reader's answer, the compiled file
//! under every profile, and, for the product-token column, Google's
//! library (the `robotstxt` crate, a line-by-line port of `robots.cc`) on
//! the same file. Rows taken from the shared vectors name their case; the
//! Google profile must give Google's verdict on it.

use botwarden_robots::{
    AgentMatch, AgentName, DirectiveName, Matrix, Profile, Robots, RobotsTxt, TokenChain, check,
};
use robotstxt::DefaultMatcher;

use crate::support::{shared, vectors};

/// What a value names: every robot, a name, or nothing (an empty product
/// token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reads {
    Every,
    Name(&'static str),
    Nothing,
}

struct Case {
    /// The value, as the parser hands it (trimmed, comment removed).
    value: &'static str,
    /// Product-token profiles.
    token: Reads,
    /// The strict profile.
    substring: Reads,
    /// A shared vector (its `source`) whose file has this value.
    vector: Option<&'static str>,
}

const fn case(value: &'static str, token: Reads, substring: Reads) -> Case {
    Case {
        value,
        token,
        substring,
        vector: None,
    }
}

use Reads::{Every, Name, Nothing};

const TABLE: &[Case] = &[
    Case {
        vector: Some("google/robotstxt:robots_test.cc#GoogleOnly_AcceptUserAgentUpToFirstSpace"),
        ..case("*", Every, Every)
    },
    case("* foo", Every, Name("* foo")),
    case("*\tfoo", Every, Name("*\tfoo")),
    case("*\u{b}foo", Every, Name("*\u{b}foo")),
    case("*\u{c}foo", Every, Name("*\u{c}foo")),
    // Not white space to robots.cc, which reads bytes.
    case("*\u{a0}foo", Nothing, Name("*\u{a0}foo")),
    case("*bot", Nothing, Name("*bot")),
    case("*/1.0", Nothing, Name("*/1.0")),
    case("**", Nothing, Name("**")),
    case("*-bot", Nothing, Name("*-bot")),
    Case {
        vector: Some(
            "google/robotstxt-spec-test:src/main/resources/CTC/stress/701159.textproto#test0",
        ),
        ..case("barbarbot*", Name("barbarbot"), Name("barbarbot*"))
    },
    Case {
        vector: Some("google/robotstxt:robots_test.cc#ID_UserAgentValueCaseInsensitive"),
        ..case("FOO BAR", Name("FOO"), Name("FOO BAR"))
    },
    Case {
        vector: Some("google/robotstxt:robots_test.cc#GoogleOnly_AcceptUserAgentUpToFirstSpace"),
        ..case("Foo Bar", Name("Foo"), Name("Foo Bar"))
    },
    Case {
        vector: Some(
            "google/robotstxt-spec-test:src/main/resources/CTC/stress/369883.textproto#test0",
        ),
        ..case("AB42bot", Name("AB"), Name("AB42bot"))
    },
    Case {
        vector: Some(
            "google/robotstxt-spec-test:src/main/resources/CTC/stress/777406.textproto#test0",
        ),
        ..case(
            "FunBot-Baz-Mobile",
            Name("FunBot-Baz-Mobile"),
            Name("FunBot-Baz-Mobile"),
        )
    },
    Case {
        vector: Some(
            "google/robotstxt-spec-test:src/main/resources/CTC/stress/701159.textproto#test0",
        ),
        ..case("io_tester", Name("io_tester"), Name("io_tester"))
    },
    case("Googlebot/2.1", Name("Googlebot"), Name("Googlebot/2.1")),
    case(
        "Googlebot-Image",
        Name("Googlebot-Image"),
        Name("Googlebot-Image"),
    ),
    case("/bot", Nothing, Name("/bot")),
    case("123bot", Nothing, Name("123bot")),
    case("bot*", Name("bot"), Name("bot*")),
];

fn reads(name: AgentName<'_>) -> String {
    match name {
        AgentName::Every => "every robot".to_owned(),
        AgentName::Named(b"") => "nothing".to_owned(),
        AgentName::Named(n) => format!("name {:?}", String::from_utf8_lossy(n)),
    }
}

fn want(r: Reads) -> String {
    match r {
        Every => "every robot".to_owned(),
        Nothing => "nothing".to_owned(),
        Name(n) => format!("name {n:?}"),
    }
}

#[test]
fn the_reader_answers_the_table() {
    for c in TABLE {
        let v = c.value.as_bytes();
        assert_eq!(
            reads(AgentName::read(v, AgentMatch::ProductToken)),
            want(c.token),
            "product token: {:?}",
            c.value
        );
        assert_eq!(
            reads(AgentName::read(v, AgentMatch::Substring)),
            want(c.substring),
            "substring: {:?}",
            c.value
        );
    }
}

/// A file whose one group, named by `value`, disallows everything.
fn file(value: &str) -> String {
    format!("User-agent: {value}\nDisallow: /\n")
}

/// A robot no value of the table names.
const STRANGER: &str = "zzqbot";

#[test]
fn every_profile_compiles_the_table() {
    for c in TABLE {
        let txt = RobotsTxt::parse(file(c.value));
        for profile in Profile::ALL {
            let reading = match profile.agent_match {
                AgentMatch::ProductToken => c.token,
                AgentMatch::Substring => c.substring,
            };
            let robots = Robots::new(&txt, profile);
            let blocked = |robot: &str| !robots.is_allowed(&TokenChain::new([robot]), "/x");
            let at = format!("{profile}: {:?}", c.value);
            assert_eq!(blocked(STRANGER), reading == Every, "{at}: a stranger");
            if let Name(name) = reading {
                // Strict robots compare the name before the first `/`.
                if !name.contains('/') {
                    assert!(blocked(&name.to_ascii_lowercase()), "{at}: {name}");
                }
            }
            if reading == Nothing && profile.agent_match == AgentMatch::ProductToken {
                // As in Google's library: an empty token names the group.
                assert!(blocked(""), "{at}: the empty token");
            }
        }
    }
}

#[test]
fn google_library_reads_the_table_alike() {
    for c in TABLE {
        if !c.value.is_ascii() {
            // The port tests Unicode white space where robots.cc reads
            // bytes (`isspace` in the C locale).
            continue;
        }
        let body = file(c.value);
        let google = |robot: &str| {
            !DefaultMatcher::default().one_agent_allowed_by_robots(&body, robot, "http://a.test/x")
        };
        assert_eq!(
            google(STRANGER),
            c.token == Every,
            "{:?}: a stranger",
            c.value
        );
        if let Name(name) = c.token {
            assert!(google(name), "{:?}: {name}", c.value);
        }
    }
}

#[test]
fn the_matrix_and_the_checker_read_the_table_alike() {
    for c in TABLE {
        let txt = RobotsTxt::parse(file(c.value));
        let matrix = Matrix::new(&txt, &Profile::ALL, &[]);
        if let Name(name) = c.token {
            assert!(
                matrix.agents().iter().any(|a| a == name),
                "{:?}: the matrix asks about {name}: {:?}",
                c.value,
                matrix.agents()
            );
        }
        // R005 says how product-token robots read a value with `*`.
        if c.value.contains('*') && c.value != "*" {
            let said: Vec<String> = check(&txt)
                .into_iter()
                .filter(|d| d.lint.code == "R005")
                .map(|d| d.message)
                .collect();
            let expect = match c.token {
                Every => "as `*`".to_owned(),
                Nothing => "names no robot".to_owned(),
                Name(n) => format!("as `{}`", n.to_ascii_lowercase()),
            };
            assert!(
                said.len() == 1 && said[0].contains(&expect),
                "{:?}: {said:?} should say {expect}",
                c.value
            );
        }
    }
}

#[test]
fn rows_from_the_vectors_are_google_verdicts() {
    let Some(shared) = shared("user-agent values") else {
        return;
    };
    let all = vectors(&shared);
    for c in TABLE {
        let Some(source) = c.vector else { continue };
        let cases: Vec<_> = all
            .iter()
            .filter(|v| v.source == source)
            .filter(|v| {
                let txt = RobotsTxt::parse(v.body());
                txt.directives().any(|(_, d)| {
                    d.name == DirectiveName::UserAgent && txt.text(d.value) == c.value
                })
            })
            .collect();
        assert!(
            !cases.is_empty(),
            "{source} has no `User-agent: {}`",
            c.value
        );
        for v in cases {
            let ours = Robots::parse(v.body(), &Profile::GOOGLE)
                .is_allowed(&TokenChain::new([v.agent.as_str()]), &v.url);
            assert_eq!(ours, v.google_robotstxt_allowed, "{}", v.id);
        }
    }
}
