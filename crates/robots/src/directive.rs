//! Directive names and how keys are recognised.

/// The directives botwarden knows.
///
/// The set is the union of RFC 9309 (`user-agent`, `allow`, `disallow`),
/// the widely read extensions (`sitemap`, `crawl-delay`, Yandex's `host` and
/// `clean-param`) and the 1996 extended standard (`robot-version`,
/// `request-rate`, `visit-time`, `comment`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DirectiveName {
    /// `user-agent`: starts or extends a group.
    UserAgent,
    /// `allow`: a rule that permits paths.
    Allow,
    /// `disallow`: a rule that forbids paths.
    Disallow,
    /// `sitemap`: the URL of a sitemap; not part of any group.
    Sitemap,
    /// `crawl-delay`: seconds between requests.
    CrawlDelay,
    /// `host`: Yandex's preferred host (mirror).
    Host,
    /// `clean-param`: Yandex's list of query parameters that do not change
    /// the page.
    CleanParam,
    /// `robot-version`: the 1996 extended standard's version line.
    RobotVersion,
    /// `request-rate`: the 1996 extended standard's `n/time` rate.
    RequestRate,
    /// `visit-time`: the 1996 extended standard's `HHMM-HHMM` window.
    VisitTime,
    /// `comment`: the 1996 extended standard's comment directive.
    Comment,
    /// `content-usage`: IETF aipref usage preferences, a group member
    /// with an optional path.
    ContentUsage,
    /// `content-signal`: Cloudflare's Content Signals (`search`,
    /// `ai-input`, `ai-train`).
    ContentSignal,
    /// `llm-policy`: the URL of a policy for language-model crawlers.
    LlmPolicy,
    /// A key botwarden does not know. Kept and reported.
    Unknown,
}

impl DirectiveName {
    /// The canonical lower-case spelling, or `None` for [`DirectiveName::Unknown`].
    #[must_use]
    pub const fn canonical(self) -> Option<&'static str> {
        Some(match self {
            DirectiveName::UserAgent => "user-agent",
            DirectiveName::Allow => "allow",
            DirectiveName::Disallow => "disallow",
            DirectiveName::Sitemap => "sitemap",
            DirectiveName::CrawlDelay => "crawl-delay",
            DirectiveName::Host => "host",
            DirectiveName::CleanParam => "clean-param",
            DirectiveName::RobotVersion => "robot-version",
            DirectiveName::RequestRate => "request-rate",
            DirectiveName::VisitTime => "visit-time",
            DirectiveName::Comment => "comment",
            DirectiveName::ContentUsage => "content-usage",
            DirectiveName::ContentSignal => "content-signal",
            DirectiveName::LlmPolicy => "llm-policy",
            DirectiveName::Unknown => return None,
        })
    }

    /// The conventional capitalised spelling used when writing a file
    /// (`User-agent`, `Disallow`, `Crawl-delay`, ...).
    #[must_use]
    pub const fn display(self) -> Option<&'static str> {
        Some(match self {
            DirectiveName::UserAgent => "User-agent",
            DirectiveName::Allow => "Allow",
            DirectiveName::Disallow => "Disallow",
            DirectiveName::Sitemap => "Sitemap",
            DirectiveName::CrawlDelay => "Crawl-delay",
            DirectiveName::Host => "Host",
            DirectiveName::CleanParam => "Clean-param",
            DirectiveName::RobotVersion => "Robot-version",
            DirectiveName::RequestRate => "Request-rate",
            DirectiveName::VisitTime => "Visit-time",
            DirectiveName::Comment => "Comment",
            DirectiveName::ContentUsage => "Content-Usage",
            DirectiveName::ContentSignal => "Content-Signal",
            DirectiveName::LlmPolicy => "LLM-Policy",
            DirectiveName::Unknown => return None,
        })
    }

    /// Whether the directive is a rule (`allow` or `disallow`).
    #[must_use]
    pub const fn is_rule(self) -> bool {
        matches!(self, DirectiveName::Allow | DirectiveName::Disallow)
    }

    /// Whether the directive states usage preferences (`content-usage`,
    /// `content-signal`).
    #[must_use]
    pub const fn is_preference(self) -> bool {
        matches!(
            self,
            DirectiveName::ContentUsage | DirectiveName::ContentSignal
        )
    }
}

/// How a key was spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Spelling {
    /// The canonical name, in any case (`User-Agent`, `DISALLOW`).
    Exact,
    /// A common misspelling that some robots accept (`disalow`, `useragent`,
    /// `user agent`, `site-map`, `crawldelay`).
    Misspelt,
    /// The key only starts with a name (`disallowed`, `sitemaps`): Google's
    /// parser compares keys by prefix, other robots ignore such lines.
    Prefix,
}

/// Exact names, lower case.
const EXACT: [(&str, DirectiveName); 14] = [
    ("user-agent", DirectiveName::UserAgent),
    ("allow", DirectiveName::Allow),
    ("disallow", DirectiveName::Disallow),
    ("sitemap", DirectiveName::Sitemap),
    ("crawl-delay", DirectiveName::CrawlDelay),
    ("host", DirectiveName::Host),
    ("clean-param", DirectiveName::CleanParam),
    ("robot-version", DirectiveName::RobotVersion),
    ("request-rate", DirectiveName::RequestRate),
    ("visit-time", DirectiveName::VisitTime),
    ("comment", DirectiveName::Comment),
    ("content-usage", DirectiveName::ContentUsage),
    ("content-signal", DirectiveName::ContentSignal),
    ("llm-policy", DirectiveName::LlmPolicy),
];

/// Misspellings. The first block is the list Google's parser accepts
/// (google/robotstxt `robots.cc`, `kAllowFrequentTypos`); the second holds
/// the other directives' common variants, which only the checker uses.
const MISSPELT: [(&str, DirectiveName); 20] = [
    ("useragent", DirectiveName::UserAgent),
    ("user agent", DirectiveName::UserAgent),
    ("dissallow", DirectiveName::Disallow),
    ("dissalow", DirectiveName::Disallow),
    ("disalow", DirectiveName::Disallow),
    ("diasllow", DirectiveName::Disallow),
    ("disallaw", DirectiveName::Disallow),
    ("site-map", DirectiveName::Sitemap),
    // Not read by Google (it ignores these directives altogether).
    ("crawldelay", DirectiveName::CrawlDelay),
    ("crawl delay", DirectiveName::CrawlDelay),
    ("crawl_delay", DirectiveName::CrawlDelay),
    ("cleanparam", DirectiveName::CleanParam),
    ("clean_param", DirectiveName::CleanParam),
    ("requestrate", DirectiveName::RequestRate),
    ("request rate", DirectiveName::RequestRate),
    ("visittime", DirectiveName::VisitTime),
    ("visit time", DirectiveName::VisitTime),
    ("robotversion", DirectiveName::RobotVersion),
    ("robot version", DirectiveName::RobotVersion),
    // crawler-commons reads it as an alias.
    ("content-signals", DirectiveName::ContentSignal),
];

/// Prefixes Google's parser compares keys against, in its order of checks.
const GOOGLE_PREFIXES: [(&str, DirectiveName); 12] = [
    ("user-agent", DirectiveName::UserAgent),
    ("useragent", DirectiveName::UserAgent),
    ("user agent", DirectiveName::UserAgent),
    ("allow", DirectiveName::Allow),
    ("disallow", DirectiveName::Disallow),
    ("dissallow", DirectiveName::Disallow),
    ("dissalow", DirectiveName::Disallow),
    ("disalow", DirectiveName::Disallow),
    ("diasllow", DirectiveName::Disallow),
    ("disallaw", DirectiveName::Disallow),
    ("sitemap", DirectiveName::Sitemap),
    ("site-map", DirectiveName::Sitemap),
];

/// Names that are known but that no robot reads from robots.txt (they belong
/// in a meta tag or an HTTP header). The checker names them.
pub const KNOWN_UNUSED: &[&str] = &[
    "noindex",
    "nofollow",
    "noarchive",
    "nosnippet",
    "noimageindex",
];

/// Every byte of a word set to 1.
const ONES: u64 = 0x0101_0101_0101_0101;

/// ASCII upper-case letters of a word of bytes in lower case, other bytes
/// as they are (what `to_ascii_lowercase` does to each byte).
const fn fold(w: u64) -> u64 {
    // Adding to each byte's low seven bits never carries into the next
    // byte; a high bit then says whether the byte reached the bound.
    let low = w & (ONES * 0x7F);
    let at_least_a = low + ONES * (0x80 - b'A' as u64);
    let above_z = low + ONES * (0x80 - b'Z' as u64 - 1);
    let upper = at_least_a & !above_z & !w & (ONES << 7);
    w | (upper >> 2)
}

/// A name as two words of bytes (zeros after its end).
#[derive(Clone, Copy)]
struct Packed {
    words: [u64; 2],
    len: usize,
    name: DirectiveName,
}

const fn pack<const N: usize>(table: [(&str, DirectiveName); N]) -> [Packed; N] {
    let mut out = [Packed {
        words: [0; 2],
        len: 0,
        name: DirectiveName::Unknown,
    }; N];
    let mut i = 0;
    while i < N {
        let bytes = table[i].0.as_bytes();
        let mut j = 0;
        while j < bytes.len() {
            out[i].words[j / 8] |= (bytes[j] as u64) << (8 * (j % 8));
            j += 1;
        }
        out[i].len = bytes.len();
        out[i].name = table[i].1;
        i += 1;
    }
    out
}

const EXACT_PACKED: [Packed; 14] = pack(EXACT);
const MISSPELT_PACKED: [Packed; 20] = pack(MISSPELT);
const PREFIXES_PACKED: [Packed; 12] = pack(GOOGLE_PREFIXES);

/// For each length, the indices in [`EXACT_PACKED`] of the names of that
/// length (`u8::MAX`: none).
const EXACT_BY_LEN: [[u8; 3]; 17] = {
    let mut out = [[u8::MAX; 3]; 17];
    let mut i = 0;
    while i < EXACT_PACKED.len() {
        let len = EXACT_PACKED[i].len;
        let mut slot = 0;
        while out[len][slot] != u8::MAX {
            slot += 1;
            // A fourth name of one length would be lost here: fail the build.
            assert!(slot < 3, "four exact names of one length");
        }
        out[len][slot] = i as u8;
        i += 1;
    }
    out
};

/// The bytes of a word that count for a prefix of `len` bytes.
const fn mask(len: usize) -> u64 {
    if len >= 8 {
        u64::MAX
    } else {
        (1 << (8 * len)) - 1
    }
}

/// Bytes `at..at + 8` of `key` as a word, zeros past its end.
#[inline]
fn word_at(key: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    match key.get(at..at + 8) {
        Some(bytes) => word.copy_from_slice(bytes),
        None => {
            for (w, &b) in word.iter_mut().zip(key.get(at..).unwrap_or_default()) {
                *w = b;
            }
        }
    }
    u64::from_le_bytes(word)
}

/// Classifies a trimmed key.
///
/// Names are compared with the key's first sixteen bytes in lower case,
/// two words at a time (every name is shorter).
#[must_use]
pub fn classify_key(key: &[u8]) -> (DirectiveName, Spelling) {
    let k0 = fold(word_at(key, 0));
    let k1 = fold(word_at(key, 8));
    let eq = |p: &Packed| p.len == key.len() && p.words == [k0, k1];
    // At most three names share a length: only those are compared.
    if let Some(candidates) = EXACT_BY_LEN.get(key.len()) {
        for &i in candidates {
            if let Some(p) = EXACT_PACKED.get(usize::from(i))
                && eq(p)
            {
                return (p.name, Spelling::Exact);
            }
        }
    }
    if let Some(p) = MISSPELT_PACKED.iter().find(|p| eq(p)) {
        return (p.name, Spelling::Misspelt);
    }
    let starts = |p: &Packed| {
        key.len() >= p.len
            && k0 & mask(p.len) == p.words[0]
            && k1 & mask(p.len.saturating_sub(8)) == p.words[1]
    };
    if let Some(p) = PREFIXES_PACKED.iter().find(|p| starts(p)) {
        return (p.name, Spelling::Prefix);
    }
    (DirectiveName::Unknown, Spelling::Exact)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: names compared with `eq_ignore_ascii_case`.
    fn classify_plainly(key: &[u8]) -> (DirectiveName, Spelling) {
        let eq = |name: &str| key.eq_ignore_ascii_case(name.as_bytes());
        if let Some(&(_, name)) = EXACT.iter().find(|(n, _)| eq(n)) {
            return (name, Spelling::Exact);
        }
        if let Some(&(_, name)) = MISSPELT.iter().find(|(n, _)| eq(n)) {
            return (name, Spelling::Misspelt);
        }
        let starts =
            |p: &str| key.len() >= p.len() && key[..p.len()].eq_ignore_ascii_case(p.as_bytes());
        if let Some(&(_, name)) = GOOGLE_PREFIXES.iter().find(|(p, _)| starts(p)) {
            return (name, Spelling::Prefix);
        }
        (DirectiveName::Unknown, Spelling::Exact)
    }

    #[test]
    fn word_comparison_is_case_folding() {
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for (name, _) in EXACT.iter().chain(&MISSPELT).chain(&GOOGLE_PREFIXES) {
            let name = name.as_bytes();
            keys.push(name.to_vec());
            keys.push(name.to_ascii_uppercase());
            keys.push([name, b"s"].concat());
            keys.push([name, b"-with-a-long-tail"].concat());
            keys.push(name[..name.len() - 1].to_vec());
            // Bytes that only differ from the name's by bit 0x20, or that
            // are not ASCII.
            for (i, &b) in name.iter().enumerate() {
                for other in [b ^ 0x20, b | 0x80, b ^ 0x40, 0] {
                    let mut k = name.to_vec();
                    k[i] = other;
                    keys.push(k);
                }
            }
        }
        keys.extend([
            b"".to_vec(),
            b"@".to_vec(),
            b"[".to_vec(),
            b"\xff\xfe".to_vec(),
        ]);
        for key in keys {
            assert_eq!(
                classify_key(&key),
                classify_plainly(&key),
                "{:?}",
                String::from_utf8_lossy(&key)
            );
        }
        for b in 0..=255u8 {
            let w = u64::from_le_bytes([b; 8]);
            assert_eq!(
                fold(w),
                u64::from_le_bytes([b.to_ascii_lowercase(); 8]),
                "{b}"
            );
        }
    }

    #[test]
    fn classification() {
        assert_eq!(
            classify_key(b"User-Agent"),
            (DirectiveName::UserAgent, Spelling::Exact)
        );
        assert_eq!(
            classify_key(b"DISALOW"),
            (DirectiveName::Disallow, Spelling::Misspelt)
        );
        assert_eq!(
            classify_key(b"disallowed"),
            (DirectiveName::Disallow, Spelling::Prefix)
        );
        assert_eq!(
            classify_key(b"Sitemap index"),
            (DirectiveName::Sitemap, Spelling::Prefix)
        );
        assert_eq!(
            classify_key(b"noindex"),
            (DirectiveName::Unknown, Spelling::Exact)
        );
        assert_eq!(
            classify_key(b"crawl delay"),
            (DirectiveName::CrawlDelay, Spelling::Misspelt)
        );
    }
}
