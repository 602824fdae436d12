//! Product-token chains (`botwarden-phone → botwarden → *`) and the one
//! reader of `user-agent` values ([`AgentName::read`]).

use crate::profile::AgentMatch;

/// A robot's product tokens, most specific first; `*` is implied at the end.
///
/// The first token that some group of the file names wins; only if none
/// does, the `*` group applies. This is not a merge of the tokens' groups:
/// with `User-agent: botwarden` and `User-agent: botwarden-phone` groups,
/// `botwarden-phone` obeys its own group alone.
///
/// ```
/// use botwarden_robots::TokenChain;
/// let chain = TokenChain::parse("botwarden-phone, botwarden");
/// assert_eq!(chain.tokens(), ["botwarden-phone", "botwarden"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TokenChain {
    tokens: Vec<String>,
    lower: Vec<String>,
}

impl TokenChain {
    /// A chain from tokens, most specific first. A `*` token is dropped (it
    /// is always last). Tokens are kept as given, even empty ones: as in
    /// Google's library, an empty token names a group whose user-agent
    /// value has no product token (`User-agent: *bot`, `User-agent:`).
    /// [`TokenChain::parse`] skips empty items.
    pub fn new<I, S>(tokens: I) -> TokenChain
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let tokens: Vec<String> = tokens
            .into_iter()
            .map(Into::into)
            .filter(|t| t != "*")
            .collect();
        let lower = tokens.iter().map(|t| t.to_ascii_lowercase()).collect();
        TokenChain { tokens, lower }
    }

    /// A chain from a comma-separated list (`a,b,c`); white space around
    /// tokens is trimmed and empty items skipped.
    #[must_use]
    pub fn parse(list: &str) -> TokenChain {
        TokenChain::new(list.split(',').map(str::trim).filter(|t| !t.is_empty()))
    }

    /// The tokens as given.
    #[must_use]
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The tokens in ASCII lower case.
    pub(crate) fn lower(&self) -> &[String] {
        &self.lower
    }

    /// Tokens that are not product tokens (`[A-Za-z_-]+`): robots that
    /// compare product tokens can never find a group for them.
    pub fn invalid_tokens(&self) -> impl Iterator<Item = &str> {
        self.tokens
            .iter()
            .map(String::as_str)
            .filter(|t| !is_product_token(t))
    }
}

impl std::fmt::Display for TokenChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for t in &self.tokens {
            write!(f, "{t} → ")?;
        }
        f.write_str("*")
    }
}

impl<S: Into<String>> FromIterator<S> for TokenChain {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        TokenChain::new(iter)
    }
}

/// What a `user-agent` value names, read one way ([`AgentMatch`]).
///
/// This is the only place the crate reads a `user-agent` value: compiling,
/// the checker, the interpretation matrix and the fixer all ask it.
///
/// The rule, as Google's library reads it (`robots.cc`,
/// `RobotsMatcher::HandleUserAgent` and `ExtractUserAgent`) and every
/// product-token profile with it:
///
/// - a value that is `*`, or `*` followed by white space (`* `, `*\t`,
///   vertical tab and form feed included, as C's `isspace`), names every
///   robot: [`AgentName::Every`];
/// - any other value names its leading run of `[A-Za-z_-]`, which may be
///   empty (`*bot`, `*/1.0`, `/bot`, `123bot`): such a group names no robot
///   that has a product token.
///
/// Under [`AgentMatch::Substring`] (the 1994 reading of CPython's
/// `urllib.robotparser`) only `*` exactly is every robot, and the whole
/// value is the name compared.
///
/// ```
/// use botwarden_robots::{AgentMatch, AgentName};
/// let token = AgentMatch::ProductToken;
/// assert_eq!(AgentName::read(b"* all", token), AgentName::Every);
/// assert_eq!(AgentName::read(b"Googlebot/2.1", token), AgentName::Named(b"Googlebot"));
/// assert_eq!(AgentName::read(b"*bot", token), AgentName::Named(b""));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentName<'v> {
    /// `*`: every robot; its group applies when no other group names the
    /// robot.
    Every,
    /// The name compared with a robot's tokens, as written (case is
    /// ignored when comparing): the product token under
    /// [`AgentMatch::ProductToken`] (empty when the value has none), the
    /// whole value under [`AgentMatch::Substring`].
    Named(&'v [u8]),
}

impl<'v> AgentName<'v> {
    /// Reads a `user-agent` value (already trimmed, comment removed) the
    /// way `how` compares agents.
    #[must_use]
    pub fn read(value: &'v [u8], how: AgentMatch) -> AgentName<'v> {
        match how {
            AgentMatch::ProductToken => {
                if value.first() == Some(&b'*') && value.get(1).is_none_or(|&b| is_c_space(b)) {
                    return AgentName::Every;
                }
                let end = value
                    .iter()
                    .position(|&b| !is_token_byte(b))
                    .unwrap_or(value.len());
                AgentName::Named(&value[..end])
            }
            AgentMatch::Substring if value == b"*" => AgentName::Every,
            AgentMatch::Substring => AgentName::Named(value),
        }
    }

    /// The name, or `None` for [`AgentName::Every`].
    #[must_use]
    pub fn name(self) -> Option<&'v [u8]> {
        match self {
            AgentName::Every => None,
            AgentName::Named(name) => Some(name),
        }
    }

    /// A product-token reading's token in ASCII lower case (`None` for
    /// `*`; empty when the value has no product token).
    pub(crate) fn lower_token(value: &[u8]) -> Option<String> {
        AgentName::read(value, AgentMatch::ProductToken)
            .name()
            .map(|t| String::from_utf8_lossy(t).to_ascii_lowercase())
    }
}

/// C's `isspace` in the "C" locale: space, tab, line feed, vertical tab,
/// form feed, carriage return.
const fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Whether `s` is a product token: one or more of `[A-Za-z_-]`
/// (RFC 9309 §2.2.1).
#[must_use]
pub fn is_product_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_token_byte)
}

pub(crate) const fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'-'
}
