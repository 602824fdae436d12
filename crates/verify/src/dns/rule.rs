//! Which host names a bot's PTR records may carry: allowed suffixes and
//! optional full-name masks.

use std::fmt;

use crate::Error;

/// The host names a bot's reverse DNS may point to.
///
/// A PTR name is acceptable when it ends with one of the allowed suffixes on
/// a label boundary (`crawl.googlebot.com` and `googlebot.com` itself match
/// `googlebot.com`; `evilgooglebot.com` and
/// `crawl.googlebot.com.evil.example` do not) and, when masks are given,
/// matches one of them in full. An empty suffix list accepts any host name
/// (the forward confirmation is still required).
///
/// A mask is a host name whose labels may hold `*`, matching any run
/// (possibly empty) of characters other than `.`: `crawl-*.googlebot.com`
/// matches `crawl-66-249-66-1.googlebot.com` but not
/// `crawl-1.x.googlebot.com`.
///
/// Comparisons ignore ASCII case and a trailing dot. Names are kept in their
/// ASCII form (internationalised names as `xn--` labels).
///
/// ```
/// use botwarden_verify::HostRule;
///
/// let rule = HostRule::new(["GoogleBot.com."], ["crawl-*.googlebot.com"]).unwrap();
/// assert_eq!(rule.suffixes().collect::<Vec<_>>(), ["googlebot.com"]);
/// assert!(rule.allows("crawl-66-249-66-1.googlebot.com."));
/// assert!(!rule.allows("rate-limited-proxy.googlebot.com"));
/// assert!(!rule.allows("crawl-1.googlebot.com.evil.example"));
/// assert!(HostRule::new(["googlebot..com"], [""; 0]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostRule {
    suffixes: Vec<String>,
    masks: Vec<String>,
}

impl HostRule {
    /// A rule from allowed host-name suffixes and masks (either may be
    /// empty), validated and normalised (lowercase, no trailing dot,
    /// duplicates dropped).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidHostName`] for a suffix and [`Error::InvalidMask`] for
    /// a mask that is empty, has an empty label, a label longer than 63
    /// characters, more than 253 characters, or a character other than ASCII
    /// letters, digits, `-` and `_` (and `*` in masks).
    pub fn new<S, M>(
        suffixes: impl IntoIterator<Item = S>,
        masks: impl IntoIterator<Item = M>,
    ) -> Result<Self, Error>
    where
        S: AsRef<str>,
        M: AsRef<str>,
    {
        let mut rule = Self::default();
        for s in suffixes {
            let s = s.as_ref();
            let name = normalise(s, false).map_err(|reason| Error::InvalidHostName {
                input: s.to_owned(),
                reason,
            })?;
            if !rule.suffixes.contains(&name) {
                rule.suffixes.push(name);
            }
        }
        for m in masks {
            let m = m.as_ref();
            let mask = normalise(m, true).map_err(|reason| Error::InvalidMask {
                input: m.to_owned(),
                reason,
            })?;
            if !rule.masks.contains(&mask) {
                rule.masks.push(mask);
            }
        }
        Ok(rule)
    }

    /// The rule that accepts any host name (no suffix, no mask): only the
    /// forward confirmation counts.
    pub fn any_host() -> Self {
        Self::default()
    }

    /// The allowed suffixes, normalised, in the order given.
    pub fn suffixes(&self) -> impl Iterator<Item = &str> {
        self.suffixes.iter().map(String::as_str)
    }

    /// The masks, normalised, in the order given.
    pub fn masks(&self) -> impl Iterator<Item = &str> {
        self.masks.iter().map(String::as_str)
    }

    /// Whether a host name (any case, trailing dot allowed) ends with an
    /// allowed suffix and matches a mask when masks are given.
    pub fn allows(&self, name: &str) -> bool {
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        self.allows_suffix(&name) && self.matches_mask(&name)
    }

    /// Whether a normalised name ends with an allowed suffix on a label
    /// boundary (any name when there is no suffix).
    pub(crate) fn allows_suffix(&self, name: &str) -> bool {
        self.suffixes.is_empty()
            || self.suffixes.iter().any(|s| {
                name.strip_suffix(s.as_str())
                    .is_some_and(|head| head.is_empty() || head.ends_with('.'))
            })
    }

    /// Whether a normalised name matches one mask in full (any name when
    /// there is no mask).
    pub(crate) fn matches_mask(&self, name: &str) -> bool {
        self.masks.is_empty() || self.masks.iter().any(|m| mask_matches(m, name))
    }
}

impl fmt::Display for HostRule {
    /// `hosts googlebot.com, google.com; masks crawl-*.googlebot.com`, or
    /// `any host`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.suffixes.is_empty() {
            f.write_str("any host")?;
        } else {
            write!(f, "hosts {}", self.suffixes.join(", "))?;
        }
        if !self.masks.is_empty() {
            write!(f, "; masks {}", self.masks.join(", "))?;
        }
        Ok(())
    }
}

/// Lowercases and checks a host name or mask, dropping one trailing dot.
fn normalise(input: &str, mask: bool) -> Result<String, &'static str> {
    let trimmed = input.trim();
    let name = trimmed.strip_suffix('.').unwrap_or(trimmed);
    if name.is_empty() {
        return Err("empty name");
    }
    if name.len() > 253 {
        return Err("longer than 253 characters");
    }
    for label in name.split('.') {
        if label.is_empty() {
            return Err("empty label");
        }
        if label.len() > 63 {
            return Err("label longer than 63 characters");
        }
        let ok = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || (mask && b == b'*');
        if !label.bytes().all(ok) {
            return Err(if mask {
                "only ASCII letters, digits, '-', '_' and '*' are allowed (use the xn-- form of international names)"
            } else {
                "only ASCII letters, digits, '-' and '_' are allowed (use the xn-- form of international names)"
            });
        }
    }
    Ok(name.to_ascii_lowercase())
}

/// Whether a normalised name matches a normalised mask: label by label,
/// `*` matching any run of characters within a label.
fn mask_matches(mask: &str, name: &str) -> bool {
    let mut m = mask.split('.');
    let mut n = name.split('.');
    loop {
        match (m.next(), n.next()) {
            (None, None) => return true,
            (Some(ml), Some(nl)) if glob(ml.as_bytes(), nl.as_bytes()) => {}
            _ => return false,
        }
    }
}

/// `*`-only glob over one label, linear with one backtrack point.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&b| b == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_on_label_boundary() {
        let rule = HostRule::new(["googlebot.com"], [""; 0]).unwrap();
        assert!(rule.allows("crawl.googlebot.com"));
        assert!(rule.allows("googlebot.com"));
        assert!(rule.allows("GOOGLEBOT.COM."));
        assert!(!rule.allows("evilgooglebot.com"));
        assert!(!rule.allows("crawl.googlebot.com.evil.example"));
        assert!(!rule.allows("com"));
    }

    #[test]
    fn masks() {
        let rule =
            HostRule::new([""; 0], ["crawl-*.googlebot.com", "*.*.applebot.apple.com"]).unwrap();
        assert!(rule.allows("crawl-1-2-3-4.googlebot.com"));
        assert!(rule.allows("crawl-.googlebot.com"));
        assert!(!rule.allows("crawl-1.x.googlebot.com"));
        assert!(!rule.allows("xcrawl-1.googlebot.com"));
        assert!(rule.allows("17-58-1.a.applebot.apple.com"));
        assert!(!rule.allows("a.applebot.apple.com"));
        assert!(glob(b"a*b*c", b"aXXbYbc"));
        assert!(!glob(b"a*b*c", b"aXXbYbd"));
        assert!(glob(b"*", b""));
    }

    #[test]
    fn validation() {
        for bad in ["", ".", "a..b", ".a", "a b", "ex\u{e4}mple.com", "a*.b"] {
            assert!(HostRule::new([bad], [""; 0]).is_err(), "{bad:?}");
        }
        assert!(HostRule::new([""; 0], ["a*.b"]).is_ok());
        assert!(HostRule::new([""; 0], ["a..*"]).is_err());
        let long = "a".repeat(64);
        let err = HostRule::new([long.as_str()], [""; 0]).expect_err("a label too long");
        assert!(
            matches!(
                &err,
                Error::InvalidHostName {
                    input,
                    reason: "label longer than 63 characters"
                } if *input == long
            ),
            "{err:?}"
        );
        let rule = HostRule::new(["A.example.", "a.example"], [""; 0]).unwrap();
        assert_eq!(rule.suffixes().collect::<Vec<_>>(), ["a.example"]);
    }
}
