//! Product-token chains: `botwarden-phone → botwarden → *`.

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

/// Whether `s` is a product token: one or more of `[A-Za-z_-]`
/// (RFC 9309 §2.2.1).
#[must_use]
pub fn is_product_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_token_byte)
}

pub(crate) const fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'-'
}
