//! Profiles: the ways different robots read one robots.txt file.
//!
//! A [`Profile`] is plain data. The five built in are [`Profile::RFC9309`]
//! (the default), [`Profile::GOOGLE`], [`Profile::BING`], [`Profile::YANDEX`]
//! and [`Profile::STRICT`]; [`Profile::ALL`] lists them and
//! [`Profile::by_name`] finds one. A crawler with a documented reading of its
//! own is one more constant.

use crate::directive::{DirectiveName, Spelling};

/// Names profiles in a message: `rfc9309, google and bing`, `no robot`
/// for none.
pub(crate) fn name_list(names: &[&str]) -> String {
    match names {
        [] => "no robot".to_owned(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// How the user-agent line of a group is compared with a robot's tokens.
/// [`AgentName::read`](crate::AgentName::read) reads a value either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentMatch {
    /// The value's leading run of `[A-Za-z_-]` is the product token; it must
    /// equal one of the robot's tokens, ignoring case. A value that is `*`,
    /// or `*` followed by white space, names every robot.
    ProductToken,
    /// The whole value must be a case-insensitive substring of the robot's
    /// name (the part before the first `/`); only `*` exactly names every
    /// robot (1994 standard: "a case-insensitive substring match of the name
    /// without version information is recommended").
    Substring,
}

/// What ends the run of user-agent lines that opens a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Grouping {
    /// A `user-agent` line after an `allow` or `disallow` starts a new group
    /// (RFC 9309 §2.1). Blank lines mean nothing.
    Rules,
    /// As [`Grouping::Rules`], and the group-member extensions
    /// (`crawl-delay`, `request-rate`, `visit-time`, `clean-param`) end the
    /// user-agent run too, as rules do.
    RulesAndExtensions,
    /// Records are separated by blank lines (1994 standard); a record's rules
    /// must follow its user-agent lines without a blank line between. Only
    /// the first record for `*` counts.
    BlankLineRecords,
}

/// How rules are chosen when several match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleChoice {
    /// The matching rule with the longest pattern wins; on a tie `allow`
    /// wins (RFC 9309 §2.2.2). Rules with an empty pattern never decide.
    LongestMatch,
    /// The first matching rule in file order wins (1997 draft §3.2.2). An
    /// empty `disallow` allows everything from where it stands.
    FirstMatch,
}

/// How paths in rules and URLs are brought to one form before comparing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PathForm {
    /// Patterns only: bytes above 0x7F are percent-encoded and `%xx` escapes
    /// upper-cased; the URL's path is taken as it is (google/robotstxt
    /// `MaybeEscapePattern`).
    EscapePatterns,
    /// Both sides: escapes of unreserved characters (`A-Z a-z 0-9 - . _ ~`)
    /// decoded, other escapes upper-cased, bytes above 0x7F encoded
    /// (RFC 9309 §2.2.2 and its table of examples).
    Rfc3986,
    /// Both sides: every escape decoded except `%2F`, then everything except
    /// unreserved characters and `/` encoded, so that `%7e` equals `~` and
    /// `%3c` equals `%3C` (1997 draft §3.2.2; CPython's `urllib.robotparser`
    /// compares the same way but also decodes `%2F`).
    DecodeAll,
}

/// Whether a robot reads a non-rule directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Usage {
    /// The robot obeys it.
    Used,
    /// It is parsed and shown, but the robot is not known to obey it.
    Reported,
    /// The robot ignores it.
    Ignored,
}

/// A limit on the size of the body a robot reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SizeLimit {
    /// The limit in bytes.
    pub bytes: usize,
    /// What happens to a larger body.
    pub beyond: Beyond,
}

/// What a robot does with a body over its [`SizeLimit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Beyond {
    /// Reads up to the limit and ignores the rest (Google).
    Truncate,
    /// Ignores the whole file: everything is allowed (Yandex).
    IgnoreFile,
}

/// A token a robot falls back to when no group names its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fallback {
    /// A token, or the start of one when it ends with `*` (ASCII, lower case).
    pub from: &'static str,
    /// The token tried next (lower case).
    pub to: &'static str,
}

/// A named reading of robots.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Profile {
    /// Short name used on the command line (`rfc9309`, `google`, ...).
    pub name: &'static str,
    /// One line saying whose reading this is.
    pub summary: &'static str,
    /// Which key spellings are read for `user-agent`, `allow`, `disallow`
    /// and `sitemap`; other spellings make the line unknown.
    pub spellings: &'static [Spelling],
    /// Whether `key value` without a colon is read.
    pub missing_colon: bool,
    /// How user-agent lines name robots.
    pub agent_match: AgentMatch,
    /// Tokens tried after the robot's own, before `*`.
    pub fallbacks: &'static [Fallback],
    /// What separates groups.
    pub grouping: Grouping,
    /// How a rule is chosen among the matching ones.
    pub rule_choice: RuleChoice,
    /// Whether `*` and a final `$` are wildcards (otherwise literal).
    pub wildcards: bool,
    /// Whether `allow` lines are read.
    pub allow: bool,
    /// How paths are normalised before comparing.
    pub path_form: PathForm,
    /// Whether `/robots.txt` is always allowed (RFC 9309 §2.2.2).
    pub robots_txt_allowed: bool,
    /// Google: an `allow` ending in `/index.htm…` also allows the directory
    /// itself (`/dir/` exactly).
    pub index_html_is_directory: bool,
    /// How much of the body is read.
    pub size_limit: Option<SizeLimit>,
    /// Bytes of one line read before the rest of the line is ignored.
    pub line_limit: Option<usize>,
    /// Whether a NUL byte ends the line (parsers written in C).
    pub nul_ends_line: bool,
    /// Google skips each of the first three bytes that matches the UTF-8
    /// BOM at its position, so a truncated BOM is skipped too.
    pub partial_bom: bool,
    /// Whether `crawl-delay` is obeyed.
    pub crawl_delay: Usage,
    /// Whether `host` is obeyed.
    pub host: Usage,
    /// Whether `clean-param` is obeyed.
    pub clean_param: Usage,
    /// Whether `request-rate` and `visit-time` are obeyed.
    pub request_rate: Usage,
    /// Whether `content-usage` and `content-signal` lines are members of
    /// the group they stand in, ending its user-agent lines as rules do
    /// (draft-ietf-aipref-attach updates RFC 9309: `rule =/ content-usage`).
    /// Elsewhere they are skipped as unknown lines are, and change no
    /// group.
    pub preference_members: bool,
}

const ALL_SPELLINGS: &[Spelling] = &[Spelling::Exact, Spelling::Misspelt, Spelling::Prefix];
const LENIENT_SPELLINGS: &[Spelling] = &[Spelling::Exact, Spelling::Misspelt];
const EXACT_SPELLING: &[Spelling] = &[Spelling::Exact];

impl Profile {
    /// RFC 9309, the Robots Exclusion Protocol (2022).
    ///
    /// Sources: RFC 9309 §2.1 (groups end at the next user-agent line after
    /// rules; product tokens `[A-Za-z_-]`, matched case-insensitively;
    /// groups naming the same token are combined; `*` otherwise), §2.2.2
    /// (longest match, `allow` on a tie, `/robots.txt` implicitly allowed,
    /// percent-encoding normalisation), §2.2.3 (`*`, `$`), §2.5 (at least
    /// 500 KiB parsed: this profile parses everything and the checker
    /// reports size). Where the RFC is silent it reads as Google's library
    /// does (the RFC's reference implementation): the misspellings Google
    /// accepts and a missing colon are read, bytes of a (possibly truncated)
    /// BOM at the start are skipped, a NUL byte ends the line; keys that only
    /// start with a known name are not read. The group-member extensions
    /// (`crawl-delay`, `request-rate`, `visit-time`) belong to the group
    /// they stand in and end its user-agent lines, as rules do (§2.2.4 lets
    /// crawlers read other records); they are reported, not obeyed. The
    /// differences from [`Profile::GOOGLE`] are listed in the crate
    /// documentation.
    pub const RFC9309: Profile = Profile {
        name: "rfc9309",
        summary: "RFC 9309 (2022), the Robots Exclusion Protocol",
        spellings: LENIENT_SPELLINGS,
        missing_colon: true,
        agent_match: AgentMatch::ProductToken,
        fallbacks: &[],
        grouping: Grouping::RulesAndExtensions,
        rule_choice: RuleChoice::LongestMatch,
        wildcards: true,
        allow: true,
        path_form: PathForm::Rfc3986,
        robots_txt_allowed: true,
        index_html_is_directory: false,
        size_limit: None,
        line_limit: None,
        nul_ends_line: true,
        partial_bom: true,
        crawl_delay: Usage::Reported,
        host: Usage::Reported,
        clean_param: Usage::Reported,
        request_rate: Usage::Reported,
        preference_members: true,
    };

    /// Googlebot: google/robotstxt (the C++ library Google's crawlers use)
    /// decision for decision, plus the crawler's 500 KiB limit.
    ///
    /// Sources: google/robotstxt `robots.cc` — keys compared by prefix and a
    /// list of accepted typos (`kAllowFrequentTypos`), a missing colon read
    /// when the line has two words, the user-agent value cut at the first
    /// character outside `[A-Za-z_-]`, `*` followed by white space read as
    /// `*`, patterns percent-escaped but the URL path taken as given, the
    /// pattern length as priority, `/index.htm…` in an `allow` also allowing
    /// the directory, lines longer than 16,663 bytes cut (`kMaxLineLen` is
    /// 2083 × 8 including the terminating NUL), each of the first three bytes
    /// skipped when it matches the UTF-8 BOM. Google Search Central, "How
    /// Google interprets the robots.txt specification": content after the
    /// first 500 KiB is ignored; `crawl-delay`, `host`, `clean-param` are not
    /// supported.
    pub const GOOGLE: Profile = Profile {
        name: "google",
        summary: "Googlebot (google/robotstxt, with the 500 KiB limit)",
        spellings: ALL_SPELLINGS,
        missing_colon: true,
        agent_match: AgentMatch::ProductToken,
        fallbacks: &[],
        grouping: Grouping::Rules,
        rule_choice: RuleChoice::LongestMatch,
        wildcards: true,
        allow: true,
        path_form: PathForm::EscapePatterns,
        robots_txt_allowed: false,
        index_html_is_directory: true,
        size_limit: Some(SizeLimit {
            bytes: 500 * 1024,
            beyond: Beyond::Truncate,
        }),
        line_limit: Some(2083 * 8 - 1),
        nul_ends_line: true,
        partial_bom: true,
        crawl_delay: Usage::Ignored,
        host: Usage::Ignored,
        clean_param: Usage::Ignored,
        request_rate: Usage::Ignored,
        preference_members: false,
    };

    /// Bingbot: [`Profile::RFC9309`] with Bing's fallback and crawl-delay.
    ///
    /// Sources: Bing Webmaster Guidelines and the Bing webmaster blog
    /// ("How to create a robots.txt file", "Crawl delay and the Bing
    /// crawler, MSNBot"): the most specific user-agent group wins, wildcards
    /// `*` and `$` are read, `allow` and `disallow` compete by longest match,
    /// `crawl-delay` is obeyed (seconds), and bingbot obeys `msnbot`'s group
    /// when there is none for `bingbot`.
    pub const BING: Profile = Profile {
        name: "bing",
        summary: "Bingbot (Bing Webmaster Guidelines)",
        fallbacks: &[Fallback {
            from: "bingbot",
            to: "msnbot",
        }],
        crawl_delay: Usage::Used,
        host: Usage::Ignored,
        clean_param: Usage::Ignored,
        request_rate: Usage::Ignored,
        preference_members: false,
        ..Profile::RFC9309
    };

    /// Yandex's robots: [`Profile::RFC9309`] with the Yandex fallback, the
    /// 500 KB limit and `clean-param`.
    ///
    /// Sources: Yandex Webmaster help, "Using robots.txt": a `User-agent:
    /// Yandex` group applies to every Yandex robot that has no group of its
    /// own (`YandexBot`, `YandexImages`, ...); `allow` and `disallow` are
    /// sorted by prefix length and the longest applies, `allow` winning a
    /// tie; `*` and `$`; `Clean-param` and `Host` are read; `Crawl-delay`
    /// takes decimal seconds.
    pub const YANDEX: Profile = Profile {
        name: "yandex",
        summary: "Yandex robots (Yandex Webmaster help)",
        fallbacks: &[Fallback {
            from: "yandex*",
            to: "yandex",
        }],
        size_limit: Some(SizeLimit {
            bytes: 500 * 1024,
            beyond: Beyond::IgnoreFile,
        }),
        crawl_delay: Usage::Ignored,
        host: Usage::Reported,
        clean_param: Usage::Used,
        request_rate: Usage::Ignored,
        preference_members: false,
        ..Profile::RFC9309
    };

    /// The 1994 standard ("A Standard for Robot Exclusion") with the 1997
    /// draft's `allow` ("A Method for Web Robots Control",
    /// draft-koster-robots-00), as CPython's `urllib.robotparser` reads it.
    ///
    /// Sources: 1994 standard (records separated by blank lines; user-agent
    /// a case-insensitive substring of the robot's name; `*` the default
    /// record; a rule is a path prefix, no wildcards; an empty `Disallow`
    /// allows everything); 1997 draft §3.2.2 (`Allow`, first match wins;
    /// "The /robots.txt URL is always allowed"; `%2F` is not decoded);
    /// CPython 3.11 `Lib/urllib/robotparser.py` (the first `*` record only,
    /// escapes decoded before comparing, `crawl-delay` and `request-rate`
    /// read).
    pub const STRICT: Profile = Profile {
        name: "strict",
        summary: "1994 standard + 1997 draft: first match, substring user-agent, no wildcards",
        spellings: EXACT_SPELLING,
        missing_colon: false,
        agent_match: AgentMatch::Substring,
        fallbacks: &[],
        grouping: Grouping::BlankLineRecords,
        rule_choice: RuleChoice::FirstMatch,
        wildcards: false,
        allow: true,
        path_form: PathForm::DecodeAll,
        robots_txt_allowed: true,
        index_html_is_directory: false,
        size_limit: None,
        line_limit: None,
        nul_ends_line: false,
        partial_bom: false,
        crawl_delay: Usage::Used,
        host: Usage::Ignored,
        clean_param: Usage::Ignored,
        request_rate: Usage::Used,
        preference_members: false,
    };

    /// Every built-in profile, the default first.
    pub const ALL: [&'static Profile; 5] = [
        &Profile::RFC9309,
        &Profile::GOOGLE,
        &Profile::BING,
        &Profile::YANDEX,
        &Profile::STRICT,
    ];

    /// The built-in profile with this name (case-insensitive).
    #[must_use]
    pub fn by_name(name: &str) -> Option<&'static Profile> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// The built-in profiles' names, comma-separated, for the message
    /// that refuses a name [`Profile::by_name`] does not know:
    /// `rfc9309, google, bing, yandex, strict`.
    #[must_use]
    pub fn names() -> String {
        let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name).collect();
        names.join(", ")
    }

    /// Whether this profile reads a directive spelled this way, and the
    /// separator it was written with.
    #[must_use]
    pub fn reads(&self, name: DirectiveName, spelling: Spelling, colon: bool) -> bool {
        if name == DirectiveName::Unknown || (!colon && !self.missing_colon) {
            return false;
        }
        if name == DirectiveName::Allow && !self.allow {
            return false;
        }
        self.spellings.contains(&spelling)
    }

    /// The tokens this profile tries after `token` (lower case), before `*`.
    pub(crate) fn fallbacks_of<'a>(
        &'a self,
        token: &'a str,
    ) -> impl Iterator<Item = &'static str> + 'a {
        self.fallbacks.iter().filter_map(move |f| {
            let hit = match f.from.strip_suffix('*') {
                Some(prefix) => token.len() > prefix.len() && token.starts_with(prefix),
                None => token == f.from,
            };
            (hit && token != f.to).then_some(f.to)
        })
    }
}

impl Default for Profile {
    fn default() -> Self {
        Profile::RFC9309
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for p in Profile::ALL {
            assert_eq!(Profile::by_name(&p.name.to_uppercase()), Some(p));
        }
        assert_eq!(Profile::by_name("nope"), None);
        assert_eq!(Profile::names(), "rfc9309, google, bing, yandex, strict");
    }

    #[test]
    fn lists_of_profiles_read_as_a_sentence() {
        assert_eq!(name_list(&[]), "no robot");
        assert_eq!(name_list(&["google"]), "google");
        assert_eq!(
            name_list(&["rfc9309", "google", "bing"]),
            "rfc9309, google and bing"
        );
    }

    #[test]
    fn yandex_robots_fall_back_to_yandex() {
        let got: Vec<_> = Profile::YANDEX.fallbacks_of("yandeximages").collect();
        assert_eq!(got, ["yandex"]);
        assert_eq!(Profile::YANDEX.fallbacks_of("yandex").count(), 0);
        assert_eq!(Profile::RFC9309.fallbacks_of("yandeximages").count(), 0);
    }
}
