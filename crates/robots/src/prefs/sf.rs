//! RFC 9651 Structured Field Values: the Dictionary and List parsers the
//! usage vocabularies and the `Robots-Tag` field are written in.
//!
//! Parsing is strict, as RFC 9651 §4.2 asks: any syntax error fails the
//! whole field, and the error says where and why, so that the checker can
//! say why a reader ignores a line. Work is linear in the input.

use std::collections::HashMap;
use std::fmt;

/// A bare item (RFC 9651 §3.3).
#[derive(Debug, Clone, PartialEq)]
pub enum Bare {
    /// An Integer.
    Integer(i64),
    /// A Decimal.
    Decimal(f64),
    /// A String (escapes resolved).
    String(String),
    /// A Token.
    Token(String),
    /// A Byte Sequence, as the base64 text written.
    Bytes(String),
    /// A Boolean.
    Boolean(bool),
    /// A Date, in seconds since the epoch.
    Date(i64),
    /// A Display String, as the percent-encoded text written.
    Display(String),
}

impl Bare {
    /// The token, if this item is one.
    #[must_use]
    pub fn as_token(&self) -> Option<&str> {
        match self {
            Bare::Token(t) => Some(t),
            _ => None,
        }
    }
}

impl fmt::Display for Bare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bare::Integer(i) => write!(f, "{i}"),
            Bare::Decimal(d) => write!(f, "{d}"),
            Bare::String(s) => write!(f, "{s:?}"),
            Bare::Token(t) => f.write_str(t),
            Bare::Bytes(b) => write!(f, ":{b}:"),
            Bare::Boolean(b) => f.write_str(if *b { "?1" } else { "?0" }),
            Bare::Date(d) => write!(f, "@{d}"),
            Bare::Display(s) => write!(f, "%\"{s}\""),
        }
    }
}

/// Parameters: keys with values, in order, a later duplicate replacing the
/// earlier value.
pub type Params = Vec<(String, Bare)>;

/// A member value: an item or an inner list, each with parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum Member {
    /// An Item.
    Item(Bare, Params),
    /// An Inner List.
    List(Vec<(Bare, Params)>, Params),
}

impl Member {
    /// The bare item, if the member is an item.
    #[must_use]
    pub fn item(&self) -> Option<&Bare> {
        match self {
            Member::Item(b, _) => Some(b),
            Member::List(..) => None,
        }
    }

    /// The member's parameters.
    #[must_use]
    pub fn params(&self) -> &Params {
        match self {
            Member::Item(_, p) | Member::List(_, p) => p,
        }
    }
}

/// Why a field is not a valid Structured Field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SfError {
    /// Byte offset in the field value.
    pub at: usize,
    /// What was expected or found.
    pub what: &'static str,
}

impl fmt::Display for SfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at + 1)
    }
}

impl std::error::Error for SfError {}

/// Parses a Dictionary (RFC 9651 §4.2.2). Members keep the order of their
/// first appearance; a repeated key takes the later value.
///
/// ```
/// use botwarden_robots::prefs::sf::{parse_dictionary, Bare};
/// let d = parse_dictionary("train-ai=n, search=y;v=1").unwrap();
/// assert_eq!(d[0].0, "train-ai");
/// assert_eq!(d[0].1.item(), Some(&Bare::Token("n".into())));
/// assert!(parse_dictionary("Train-AI=n").is_err());
/// ```
///
/// # Errors
/// The first syntax error, with its offset.
pub fn parse_dictionary(input: &str) -> Result<Vec<(String, Member)>, SfError> {
    let mut p = Parser::new(input);
    p.skip_sp();
    let mut out: Vec<(String, Member)> = Vec::new();
    let mut index = HashMap::new();
    while !p.done() {
        let key = p.key()?;
        let member = if p.eat(b'=') {
            p.member()?
        } else {
            Member::Item(Bare::Boolean(true), p.params()?)
        };
        upsert(&mut out, &mut index, key, member);
        if !p.next_member()? {
            break;
        }
    }
    Ok(out)
}

/// Parses a List (RFC 9651 §4.2.1).
///
/// ```
/// use botwarden_robots::prefs::sf::parse_list;
/// let l = parse_list("examplebot;noindex, *;nosnippet").unwrap();
/// assert_eq!(l.len(), 2);
/// assert_eq!(l[0].params()[0].0, "noindex");
/// ```
///
/// # Errors
/// The first syntax error, with its offset.
pub fn parse_list(input: &str) -> Result<Vec<Member>, SfError> {
    let mut p = Parser::new(input);
    p.skip_sp();
    let mut out = Vec::new();
    while !p.done() {
        out.push(p.member()?);
        if !p.next_member()? {
            break;
        }
    }
    Ok(out)
}

/// Sets `key` to `value`: in place if the key was seen, else at the end.
fn upsert<T>(
    out: &mut Vec<(String, T)>,
    index: &mut HashMap<String, usize>,
    key: String,
    value: T,
) {
    match index.get(&key) {
        Some(&i) => out[i].1 = value,
        None => {
            index.insert(key.clone(), out.len());
            out.push((key, value));
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str) -> Parser<'a> {
        // Surrounding white space is not part of a field value.
        let s = input.as_bytes();
        let end = s.len()
            - s.iter()
                .rev()
                .take_while(|b| **b == b' ' || **b == b'\t')
                .count();
        Parser { s: &s[..end], i: 0 }
    }

    fn done(&self) -> bool {
        self.i >= self.s.len()
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn err<T>(&self, what: &'static str) -> Result<T, SfError> {
        Err(SfError { at: self.i, what })
    }

    fn skip_sp(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }

    fn skip_ows(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    /// After a member: `OWS "," OWS` and another member (true), or the end
    /// (false).
    fn next_member(&mut self) -> Result<bool, SfError> {
        self.skip_ows();
        if self.done() {
            return Ok(false);
        }
        if !self.eat(b',') {
            return self.err("expected `,` between members");
        }
        self.skip_ows();
        if self.done() {
            return self.err("a trailing `,` with no member after it");
        }
        Ok(true)
    }

    fn key(&mut self) -> Result<String, SfError> {
        match self.peek() {
            Some(b'a'..=b'z' | b'*') => {}
            Some(b'A'..=b'Z') => {
                return self.err("an upper-case letter in a key (keys are lower case)");
            }
            _ => return self.err("expected a key (a lower-case letter or `*`)"),
        }
        let start = self.i;
        while matches!(
            self.peek(),
            Some(b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' | b'*')
        ) {
            self.i += 1;
        }
        if matches!(self.peek(), Some(b'A'..=b'Z')) {
            return self.err("an upper-case letter in a key (keys are lower case)");
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    fn member(&mut self) -> Result<Member, SfError> {
        if self.eat(b'(') {
            let mut items = Vec::new();
            loop {
                self.skip_sp();
                if self.eat(b')') {
                    break;
                }
                items.push((self.bare()?, self.params()?));
                match self.peek() {
                    Some(b' ' | b')') => {}
                    _ => return self.err("expected a space or `)` in an inner list"),
                }
            }
            Ok(Member::List(items, self.params()?))
        } else {
            Ok(Member::Item(self.bare()?, self.params()?))
        }
    }

    fn params(&mut self) -> Result<Params, SfError> {
        let mut out: Params = Vec::new();
        let mut index = HashMap::new();
        while self.eat(b';') {
            self.skip_sp();
            let key = self.key()?;
            let value = if self.eat(b'=') {
                self.bare()?
            } else {
                Bare::Boolean(true)
            };
            upsert(&mut out, &mut index, key, value);
        }
        Ok(out)
    }

    fn bare(&mut self) -> Result<Bare, SfError> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'"') => self.string().map(Bare::String),
            Some(b'A'..=b'Z' | b'a'..=b'z' | b'*') => Ok(Bare::Token(self.token())),
            Some(b':') => self.bytes(),
            Some(b'?') => self.boolean(),
            Some(b'@') => {
                self.i += 1;
                match self.number()? {
                    Bare::Integer(i) => Ok(Bare::Date(i)),
                    _ => self.err("a date must be an integer"),
                }
            }
            Some(b'%') => self.display(),
            _ => self.err("expected a value (token, number, string, byte sequence or boolean)"),
        }
    }

    fn token(&mut self) -> String {
        let start = self.i;
        self.i += 1;
        while let Some(b) = self.peek() {
            let tchar = b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~:/".contains(&b);
            if !tchar {
                break;
            }
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }

    fn number(&mut self) -> Result<Bare, SfError> {
        let negative = self.eat(b'-');
        let start = self.i;
        let mut dot = None;
        while let Some(b) = self.peek() {
            match b {
                b'0'..=b'9' => {}
                b'.' if dot.is_none() => {
                    if self.i - start > 12 {
                        return self.err("a decimal with more than 12 integer digits");
                    }
                    dot = Some(self.i);
                }
                _ => break,
            }
            self.i += 1;
            if dot.is_none() && self.i - start > 15 {
                return self.err("an integer with more than 15 digits");
            }
            if dot.is_some() && self.i - start > 16 {
                return self.err("a decimal with more than 16 characters");
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or_default();
        if text.is_empty() || text.starts_with('.') {
            return self.err("expected a digit");
        }
        match dot {
            None => {
                let v: i64 = text.parse().map_err(|_| SfError {
                    at: start,
                    what: "an integer out of range",
                })?;
                Ok(Bare::Integer(if negative { -v } else { v }))
            }
            Some(d) => {
                let frac = self.i - d - 1;
                if frac == 0 {
                    return self.err("a decimal ending in `.`");
                }
                if frac > 3 {
                    return self.err("a decimal with more than 3 fraction digits");
                }
                let v: f64 = text.parse().map_err(|_| SfError {
                    at: start,
                    what: "a bad decimal",
                })?;
                Ok(Bare::Decimal(if negative { -v } else { v }))
            }
        }
    }

    fn string(&mut self) -> Result<String, SfError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return self.err("a string without its closing `\"`"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    match self.peek() {
                        Some(c @ (b'"' | b'\\')) => out.push(char::from(c)),
                        _ => return self.err("a `\\` not before `\"` or `\\` in a string"),
                    }
                    self.i += 1;
                }
                Some(c @ 0x20..=0x7e) => {
                    out.push(char::from(c));
                    self.i += 1;
                }
                Some(_) => return self.err("a control or non-ASCII byte in a string"),
            }
        }
    }

    fn bytes(&mut self) -> Result<Bare, SfError> {
        self.i += 1;
        let start = self.i;
        while let Some(b) = self.peek() {
            if b == b':' {
                let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                self.i += 1;
                return Ok(Bare::Bytes(text));
            }
            if !(b.is_ascii_alphanumeric() || b"+/=".contains(&b)) {
                return self.err("a byte that is not base64 in a byte sequence");
            }
            self.i += 1;
        }
        self.err("a byte sequence without its closing `:`")
    }

    fn boolean(&mut self) -> Result<Bare, SfError> {
        self.i += 1;
        match self.peek() {
            Some(b'1') => {
                self.i += 1;
                Ok(Bare::Boolean(true))
            }
            Some(b'0') => {
                self.i += 1;
                Ok(Bare::Boolean(false))
            }
            _ => self.err("a boolean must be `?0` or `?1`"),
        }
    }

    fn display(&mut self) -> Result<Bare, SfError> {
        self.i += 1;
        if !self.eat(b'"') {
            return self.err("expected `\"` after `%`");
        }
        let start = self.i;
        while let Some(b) = self.peek() {
            match b {
                b'"' => {
                    let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                    self.i += 1;
                    return Ok(Bare::Display(text));
                }
                0x20..=0x7e => self.i += 1,
                _ => return self.err("a control or non-ASCII byte in a display string"),
            }
        }
        self.err("a display string without its closing `\"`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(s: &str) -> Member {
        Member::Item(Bare::Token(s.into()), vec![])
    }

    #[test]
    fn dictionaries_of_the_vocabularies_parse() {
        let d = parse_dictionary("search=y, train-ai=n").unwrap();
        assert_eq!(
            d,
            vec![("search".into(), tok("y")), ("train-ai".into(), tok("n"))]
        );
        let d = parse_dictionary("  search=yes,ai-input=no ,\tai-train=no  ").unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!(d[2], ("ai-train".into(), tok("no")));
    }

    #[test]
    fn a_repeated_key_keeps_its_place_and_takes_the_later_value() {
        let d = parse_dictionary("a=y, b=y, a=n").unwrap();
        assert_eq!(d, vec![("a".into(), tok("n")), ("b".into(), tok("y"))]);
    }

    #[test]
    fn a_key_alone_is_true_with_its_parameters() {
        let d = parse_dictionary("a;x=1, b").unwrap();
        assert_eq!(
            d[0].1,
            Member::Item(Bare::Boolean(true), vec![("x".into(), Bare::Integer(1))])
        );
        assert_eq!(d[1].1, Member::Item(Bare::Boolean(true), vec![]));
    }

    #[test]
    fn every_bare_item_kind_parses() {
        let d = parse_dictionary(
            r#"i=-12, d=1.5, s="a \"q\"", t=foo/bar:1, b=:aGk=:, o=?0, at=@1659578233, ds=%"f%c3%bc", l=(a "b";p);q"#,
        )
        .unwrap();
        let got: Vec<_> = d.iter().map(|(_, m)| m.clone()).collect();
        assert_eq!(got[0].item(), Some(&Bare::Integer(-12)));
        assert_eq!(got[1].item(), Some(&Bare::Decimal(1.5)));
        assert_eq!(got[2].item(), Some(&Bare::String("a \"q\"".into())));
        assert_eq!(got[3].item(), Some(&Bare::Token("foo/bar:1".into())));
        assert_eq!(got[4].item(), Some(&Bare::Bytes("aGk=".into())));
        assert_eq!(got[5].item(), Some(&Bare::Boolean(false)));
        assert_eq!(got[6].item(), Some(&Bare::Date(1_659_578_233)));
        assert_eq!(got[7].item(), Some(&Bare::Display("f%c3%bc".into())));
        let Member::List(items, params) = &got[8] else {
            panic!("{:?}", got[8])
        };
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].1, vec![("p".to_string(), Bare::Boolean(true))]);
        assert_eq!(params, &vec![("q".to_string(), Bare::Boolean(true))]);
    }

    #[test]
    fn errors_say_where_and_why() {
        let e = parse_dictionary("search=y, Train-AI=n").unwrap_err();
        assert_eq!(e.at, 10);
        assert!(e.what.contains("upper-case"), "{e}");
        assert_eq!(
            parse_dictionary("a=y,").unwrap_err().what,
            "a trailing `,` with no member after it"
        );
        assert!(parse_dictionary("a=y b=n").is_err());
        assert!(parse_dictionary("a=").is_err());
        assert!(parse_dictionary("a=\"open").is_err());
        assert!(parse_dictionary("a=1.2345").is_err());
        assert!(parse_dictionary("a=1234567890123456").is_err());
        assert!(parse_dictionary("a=?2").is_err());
        assert!(parse_dictionary("a=(x").is_err());
        assert!(parse_dictionary("a=é").is_err());
        assert!(parse_dictionary("").unwrap().is_empty());
    }

    #[test]
    fn lists_of_product_tokens_with_rules() {
        let l =
            parse_list("googlebot;noindex;nofollow, *;unavailable_after=\"2026-01-01\"").unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].item(), Some(&Bare::Token("googlebot".into())));
        assert_eq!(l[0].params().len(), 2);
        assert_eq!(l[1].item(), Some(&Bare::Token("*".into())));
        assert!(parse_list("a,,b").is_err());
    }

    #[test]
    fn work_is_linear_in_the_input() {
        let long = "a=y, ".repeat(20_000) + "a=n";
        let d = parse_dictionary(&long).unwrap();
        assert_eq!(d, vec![("a".into(), tok("n"))]);
        let distinct: Vec<String> = (0..100_000).map(|i| format!("k{i}=y;p{i}")).collect();
        assert_eq!(
            parse_dictionary(&distinct.join(",")).unwrap().len(),
            100_000
        );
        let params: String = (0..100_000).map(|i| format!(";p{i}")).collect();
        assert_eq!(
            parse_list(&format!("a{params}")).unwrap()[0].params().len(),
            100_000
        );
    }
}
