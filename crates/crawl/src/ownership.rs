//! Proof that a site's owner lets the full crawler read its robots.txt
//! another way: simulate another robot's token chain and reading, or use
//! a robots.txt of the operator's instead of the site's.
//!
//! The operator holds a **secret** ([`SiteKey`], at least
//! [`SECRET_MIN`] bytes). Each site (origin: scheme, host, port) has a
//! **token** derived from it ([`SiteKey::token`]): the first 128 bits of
//! HMAC-SHA256 over `botwarden site verification v1\n` and the origin, in
//! lower-case hex. The token can be published; the secret cannot be
//! recovered from it, and without the secret no one can compute the token
//! of another site. The site's owner proves consent in one of two ways:
//!
//! - **file**: `/botwarden-<token>.txt` at the origin answers `200` with
//!   the token as its whole body (white space around it ignored);
//! - **meta**: the home page (`/`) answers `2xx` with
//!   `<meta name="botwarden-site-verification" content="<token>">`.
//!
//! Redirects are followed only within the origin. The file must hold the
//! token and nothing else, so that a page that echoes the requested path
//! (a "soft 404") does not verify anyone.
//!
//! Both checks are single requests made with the crawler's own fetcher,
//! User-Agent and address guard, **whatever robots.txt says**: the file
//! is one the site's owner creates for this purpose and the home page is
//! read once, as search engines do to verify ownership. The file is asked
//! first; the home page only when the file does not verify (a crawl), or
//! always ([`verify_site`] with `all`, for `botwarden crawl verify-site`).

use std::fmt::Write as _;

use botwarden_fetch::{Error as FetchError, FetchReport, Fetcher};
use botwarden_robots::{Profile, TokenChain};
use ring::{digest, hmac};
use serde::Serialize;
use url::Url;

use crate::error::Error;
use crate::html;

/// The name of the verification meta tag.
pub const META_NAME: &str = "botwarden-site-verification";

/// The shortest secret accepted, in bytes.
pub const SECRET_MIN: usize = 16;

/// What the HMAC covers before the origin: a new scheme of tokens would
/// change it, and no token of this one would verify under it.
const DOMAIN: &str = "botwarden site verification v1\n";

/// The operator's secret, ready to derive tokens. Its `Debug` never shows
/// it.
#[derive(Clone)]
pub struct SiteKey(hmac::Key);

impl std::fmt::Debug for SiteKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SiteKey(…)")
    }
}

impl SiteKey {
    /// A key from the operator's secret (white space around it ignored).
    ///
    /// # Errors
    /// When the secret is shorter than [`SECRET_MIN`] bytes: the message
    /// says how long it is, never what it is.
    pub fn new(secret: &[u8]) -> Result<SiteKey, String> {
        let secret = secret.trim_ascii();
        if secret.len() < SECRET_MIN {
            return Err(format!(
                "the site secret is {} byte(s); at least {SECRET_MIN} are needed \
                 (for example: head -c 32 /dev/urandom | base64)",
                secret.len()
            ));
        }
        Ok(SiteKey(hmac::Key::new(hmac::HMAC_SHA256, secret)))
    }

    /// The token of the site `url` belongs to.
    ///
    /// # Errors
    /// [`Error::InvalidUrl`](botwarden_fetch::Error::InvalidUrl) for a URL without a host, or
    /// [`Error::UnsupportedScheme`](botwarden_fetch::Error::UnsupportedScheme) for one that is not `http(s)`.
    pub fn token(&self, url: &Url) -> Result<SiteToken, Error> {
        let origin = site_origin(url)?;
        let tag = hmac::sign(&self.0, format!("{DOMAIN}{origin}").as_bytes());
        let token = hex(&tag.as_ref()[..16]);
        Ok(SiteToken { origin, token })
    }
}

/// `scheme://host[:port]` of an `http(s)` URL.
fn site_origin(url: &Url) -> Result<String, Error> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::Fetch(FetchError::UnsupportedScheme {
            url: url.to_string(),
        }));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(Error::Fetch(FetchError::InvalidUrl {
            url: url.to_string(),
            reason: "it has no host".into(),
        }));
    }
    Ok(url.origin().ascii_serialization())
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// A site's verification token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteToken {
    origin: String,
    token: String,
}

impl SiteToken {
    /// The site: `scheme://host[:port]`.
    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The token (32 lower-case hex digits).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.token
    }

    /// The verification file's path: `/botwarden-<token>.txt`.
    #[must_use]
    pub fn file_path(&self) -> String {
        format!("/botwarden-{}.txt", self.token)
    }

    /// The verification file's URL.
    #[must_use]
    pub fn file_url(&self) -> String {
        format!("{}{}", self.origin, self.file_path())
    }

    /// The home page's URL, where the meta tag goes.
    #[must_use]
    pub fn home_url(&self) -> String {
        format!("{}/", self.origin)
    }

    /// The meta tag to put in the home page's `<head>`.
    #[must_use]
    pub fn meta_tag(&self) -> String {
        format!("<meta name=\"{META_NAME}\" content=\"{}\">", self.token)
    }

    /// What the store keeps instead of the token: `sha256:` and the first
    /// 16 hex digits of the token's SHA-256.
    #[must_use]
    pub fn fingerprint(&self) -> String {
        let d = digest::digest(&digest::SHA256, self.token.as_bytes());
        format!("sha256:{}", hex(&d.as_ref()[..8]))
    }
}

/// How a site's ownership was shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// The verification file.
    File,
    /// The meta tag on the home page.
    Meta,
}

impl Method {
    /// `file` or `meta`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Method::File => "file",
            Method::Meta => "meta",
        }
    }
}

/// One check: what was asked and what came back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// `file` or `meta`.
    pub method: Method,
    /// The URL asked.
    pub url: String,
    /// The final status, if an answer came.
    pub status: Option<u16>,
    /// Whether the token was found where it must be.
    pub found: bool,
    /// What was found, or why not (`answered 404`, `holds another token`, …).
    pub detail: String,
}

/// The checks made for a site, and the proof when one passed.
#[derive(Debug, Clone)]
pub struct Verification {
    /// The site's token.
    pub token: SiteToken,
    /// The checks, in the order made (the file first).
    pub checks: Vec<Check>,
    /// When (RFC 3339).
    pub at: String,
}

impl Verification {
    /// The proof of ownership, if a check passed.
    #[must_use]
    pub fn verified(&self) -> Option<Verified> {
        let check = self.checks.iter().find(|c| c.found)?;
        Some(Verified {
            origin: self.token.origin.clone(),
            method: check.method,
            url: check.url.clone(),
            at: self.at.clone(),
            fingerprint: self.token.fingerprint(),
        })
    }

    /// Why the site is not verified: each check's detail, `; `-separated.
    #[must_use]
    pub fn failures(&self) -> String {
        let list: Vec<String> = self
            .checks
            .iter()
            .filter(|c| !c.found)
            .map(|c| format!("{} {}: {}", c.method.as_str(), c.url, c.detail))
            .collect();
        list.join("; ")
    }
}

impl std::fmt::Display for Check {
    /// `ok  file URL (200): DETAIL`, `no` when the token was not found.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mark = if self.found { "ok" } else { "no" };
        write!(f, "{mark:<3} {} {} (", self.method.as_str(), self.url)?;
        match self.status {
            Some(status) => write!(f, "{status}")?,
            None => f.write_str("no answer")?,
        }
        write!(f, "): {}", self.detail)
    }
}

/// What `crawl verify-site` says of a site: its token, where its owner
/// places it, and, when the site was asked ([`verify_site`]), each check
/// and whether one verified the site. `Display` writes it for people,
/// `Serialize` as one JSON object (`origin`, `token`, `file_url`,
/// `file_content`, `meta_tag`, `verified`: the method or `null`,
/// `checks`).
#[derive(Debug, Clone, Copy)]
pub struct SiteReport<'a> {
    token: &'a SiteToken,
    verification: Option<&'a Verification>,
}

impl<'a> SiteReport<'a> {
    /// The report of `token`'s site, with the checks of `verification`
    /// when it was asked.
    #[must_use]
    pub fn new(token: &'a SiteToken, verification: Option<&'a Verification>) -> Self {
        SiteReport {
            token,
            verification,
        }
    }

    /// The proof, if the site was asked and a check passed.
    #[must_use]
    pub fn verified(&self) -> Option<Verified> {
        self.verification.and_then(Verification::verified)
    }
}

impl Serialize for SiteReport<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The JSON shape.
        #[derive(Serialize)]
        struct Json<'a> {
            origin: &'a str,
            token: &'a str,
            file_url: String,
            file_content: &'a str,
            meta_tag: String,
            verified: Option<&'static str>,
            checks: &'a [Check],
        }
        Json {
            origin: self.token.origin(),
            token: self.token.as_str(),
            file_url: self.token.file_url(),
            file_content: self.token.as_str(),
            meta_tag: self.token.meta_tag(),
            verified: self.verified().map(|v| v.method().as_str()),
            checks: self.verification.map_or(&[], |v| &v.checks),
        }
        .serialize(serializer)
    }
}

impl std::fmt::Display for SiteReport<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let token = self.token;
        writeln!(f, "site: {}", token.origin())?;
        writeln!(f, "token: {}", token.as_str())?;
        writeln!(
            f,
            "either serve the file {} holding only the token,",
            token.file_url()
        )?;
        writeln!(
            f,
            "or put this tag in the <head> of {}:\n  {}",
            token.home_url(),
            token.meta_tag()
        )?;
        let Some(verification) = self.verification else {
            return Ok(());
        };
        for check in &verification.checks {
            writeln!(f, "{check}")?;
        }
        match verification.verified() {
            Some(p) => writeln!(f, "verified by {}", p.method().as_str()),
            None => writeln!(f, "not verified"),
        }
    }
}

/// Proof that a site's owner placed its token: only [`Verification`]
/// makes one, from a check that passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    origin: String,
    method: Method,
    url: String,
    at: String,
    fingerprint: String,
}

impl Verified {
    /// The site: `scheme://host[:port]`.
    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// How it was verified.
    #[must_use]
    pub fn method(&self) -> Method {
        self.method
    }

    /// Where the token was found.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// When (RFC 3339).
    #[must_use]
    pub fn at(&self) -> &str {
        &self.at
    }

    /// The token's fingerprint ([`SiteToken::fingerprint`]).
    #[must_use]
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// Checks whether the owner of `site`'s origin placed its token: the file
/// first, then (when it does not verify, or `all` is set) the meta tag.
///
/// # Errors
/// [`Error::InvalidUrl`](botwarden_fetch::Error::InvalidUrl), [`Error::UnsupportedScheme`](botwarden_fetch::Error::UnsupportedScheme) for a URL that is
/// not a site's, [`Error::Refused`](botwarden_fetch::Error::Refused) for an address the fetcher refuses.
/// A site that does not answer is not an error: its checks say so.
pub async fn verify_site(
    fetcher: &Fetcher,
    key: &SiteKey,
    site: &Url,
    all: bool,
) -> Result<Verification, Error> {
    let token = key.token(site)?;
    let at = jiff::Timestamp::now().to_string();
    let mut checks = vec![check_file(fetcher, &token).await?];
    if all || !checks[0].found {
        checks.push(check_meta(fetcher, &token).await?);
    }
    Ok(Verification { token, checks, at })
}

async fn check_file(fetcher: &Fetcher, token: &SiteToken) -> Result<Check, Error> {
    let url = token.file_url();
    let report = fetcher.fetch(&url).await?;
    let mut check = Check {
        method: Method::File,
        url,
        status: report.status,
        found: false,
        detail: String::new(),
    };
    if let Some(why) = unusable(&report, token, |s| s == 200) {
        check.detail = why;
        return Ok(check);
    }
    let body = report.utf8_body();
    let text = String::from_utf8_lossy(body.trim_ascii());
    if text == token.as_str() {
        check.found = true;
        check.detail = "holds the token".into();
    } else if text.contains(token.as_str()) {
        check.detail = "holds the token among other text; it must hold the token alone".into();
    } else if text.is_empty() {
        check.detail = "is empty; it must hold the token".into();
    } else {
        check.detail = "holds something else than the token".into();
    }
    Ok(check)
}

async fn check_meta(fetcher: &Fetcher, token: &SiteToken) -> Result<Check, Error> {
    let url = token.home_url();
    let report = fetcher.fetch(&url).await?;
    let mut check = Check {
        method: Method::Meta,
        url,
        status: report.status,
        found: false,
        detail: String::new(),
    };
    if let Some(why) = unusable(&report, token, |s| (200..300).contains(&s)) {
        check.detail = why;
        return Ok(check);
    }
    let facts = match html::extract(&report.body, report.charset.as_deref()) {
        Ok(f) => f,
        Err(e) => {
            check.detail = e.to_string();
            return Ok(check);
        }
    };
    let contents: Vec<&str> = facts
        .metas
        .iter()
        .filter(|m| m.name.trim().eq_ignore_ascii_case(META_NAME))
        .map(|m| m.content.trim())
        .collect();
    if contents.contains(&token.as_str()) {
        check.found = true;
        check.detail = format!("<meta name=\"{META_NAME}\"> holds the token");
    } else if contents.is_empty() {
        check.detail = format!("no <meta name=\"{META_NAME}\">");
    } else {
        check.detail = format!(
            "<meta name=\"{META_NAME}\"> holds another token ({})",
            contents.join(", ")
        );
    }
    Ok(check)
}

/// Why an answer cannot verify: no answer, a redirect out of the origin,
/// a status not accepted.
fn unusable(report: &FetchReport, token: &SiteToken, ok: impl Fn(u16) -> bool) -> Option<String> {
    if let Some(e) = &report.error {
        return Some(format!("no answer: {e}"));
    }
    let last = report.final_url();
    if last.origin().ascii_serialization() != token.origin {
        return Some(format!(
            "redirected to {last}, another site; only redirects within {} are followed",
            token.origin
        ));
    }
    match report.status {
        Some(s) if ok(s) => None,
        Some(s) => Some(format!("answered {s}")),
        None => Some("no answer".into()),
    }
}

/// How robots.txt is read on a verified site instead of botwarden's way
/// (`--as`, `--profile`, `--robots-file`). It applies to the verified
/// origin only; every other origin of a crawl is read as usual. The
/// User-Agent stays botwarden's: only the reading is simulated.
#[derive(Debug, Clone)]
pub struct Simulation {
    site: Verified,
    /// The token chain obeyed instead of the identity's (`None`: the
    /// identity's).
    pub tokens: Option<TokenChain>,
    /// The reading obeyed instead of RFC 9309 (the strict reading is
    /// still computed beside it).
    pub profile: &'static Profile,
    /// A robots.txt used instead of the site's: a label (the file's name)
    /// and its bytes. The site's robots.txt is then not asked for.
    pub robots_file: Option<(String, Vec<u8>)>,
}

impl Simulation {
    /// A simulation on the verified site, reading as botwarden does until
    /// its fields are set.
    #[must_use]
    pub fn new(site: Verified) -> Simulation {
        Simulation {
            site,
            tokens: None,
            profile: &Profile::RFC9309,
            robots_file: None,
        }
    }

    /// The proof for the site it applies to.
    #[must_use]
    pub fn site(&self) -> &Verified {
        &self.site
    }

    /// Where the rules come from: `site`, or `file <label>`.
    #[must_use]
    pub fn source(&self) -> String {
        match &self.robots_file {
            Some((label, _)) => format!("file {label}"),
            None => "site".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).expect("a URL")
    }

    #[test]
    fn a_site_report_says_where_the_token_goes_and_what_the_checks_found() {
        let key = SiteKey::new(b"correct horse battery staple\n").expect("key");
        let token = key.token(&url("https://example.com/")).expect("token");
        let t = token.as_str().to_owned();
        let offline = SiteReport::new(&token, None);
        assert_eq!(
            offline.to_string(),
            format!(
                "site: https://example.com\ntoken: {t}\n\
                 either serve the file https://example.com/botwarden-{t}.txt holding only the token,\n\
                 or put this tag in the <head> of https://example.com/:\n  {}\n",
                token.meta_tag()
            )
        );
        let checks = vec![
            Check {
                method: Method::File,
                url: token.file_url(),
                status: Some(404),
                found: false,
                detail: "answered 404".into(),
            },
            Check {
                method: Method::Meta,
                url: token.home_url(),
                status: None,
                found: true,
                detail: "the tag is there".into(),
            },
        ];
        let verification = Verification {
            token: token.clone(),
            checks,
            at: "2026-01-02T03:04:05Z".into(),
        };
        let asked = SiteReport::new(&token, Some(&verification));
        let text = asked.to_string();
        assert!(
            text.ends_with(&format!(
                "no  file https://example.com/botwarden-{t}.txt (404): answered 404\n\
                 ok  meta https://example.com/ (no answer): the tag is there\n\
                 verified by meta\n"
            )),
            "{text}"
        );
        let json = serde_json::to_value(asked).expect("JSON");
        assert_eq!(json["verified"], "meta");
        assert_eq!(json["file_content"], t.as_str());
        assert_eq!(json["checks"][0]["status"], 404);
        assert_eq!(
            serde_json::to_value(offline).expect("JSON")["verified"],
            serde_json::Value::Null
        );
    }

    #[test]
    fn tokens_depend_on_the_secret_and_the_origin_only() {
        let key = SiteKey::new(b"correct horse battery staple\n").expect("key");
        let a = key.token(&url("https://Example.com/a/b?c")).expect("token");
        let b = key.token(&url("https://example.com:443/")).expect("token");
        assert_eq!(a, b);
        assert_eq!(a.origin(), "https://example.com");
        assert_eq!(a.as_str().len(), 32);
        assert!(a.as_str().bytes().all(|c| c.is_ascii_hexdigit()));
        // Another scheme, port or host is another site.
        for other in [
            "http://example.com/",
            "https://example.com:8443/",
            "https://www.example.com/",
        ] {
            assert_ne!(key.token(&url(other)).expect("token"), a, "{other}");
        }
        // Another secret, another token.
        let other = SiteKey::new(b"another secret of enough bytes").expect("key");
        assert_ne!(other.token(&url("https://example.com/")).expect("t"), a);
        // The paths and the tag.
        assert_eq!(a.file_path(), format!("/botwarden-{}.txt", a.as_str()));
        assert_eq!(
            a.file_url(),
            format!("https://example.com/botwarden-{}.txt", a.as_str())
        );
        assert_eq!(
            a.meta_tag(),
            format!(
                "<meta name=\"botwarden-site-verification\" content=\"{}\">",
                a.as_str()
            )
        );
        let fp = a.fingerprint();
        assert!(fp.starts_with("sha256:") && fp.len() == 7 + 16, "{fp}");
        assert!(!fp.contains(a.as_str()));
    }

    #[test]
    fn the_token_is_hmac_sha256_of_the_origin() {
        // RFC 4231 test case 2 checks the primitive: key "Jefe".
        let key = hmac::Key::new(hmac::HMAC_SHA256, b"Jefe");
        let tag = hmac::sign(&key, b"what do ya want for nothing?");
        assert_eq!(
            hex(tag.as_ref()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // The token is its first 16 bytes over the domain line and origin.
        let secret = b"0123456789abcdef0123";
        let site = SiteKey::new(secret).expect("key");
        let raw = hmac::Key::new(hmac::HMAC_SHA256, secret);
        let want = hmac::sign(
            &raw,
            b"botwarden site verification v1\nhttp://127.0.0.1:8080",
        );
        assert_eq!(
            site.token(&url("http://127.0.0.1:8080/x"))
                .expect("token")
                .as_str(),
            hex(&want.as_ref()[..16])
        );
    }

    #[test]
    fn short_secrets_and_non_sites_are_refused_without_showing_the_secret() {
        let err = SiteKey::new(b"  hunter2  \n").expect_err("short");
        assert!(err.contains("7 byte(s)"), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
        let key = SiteKey::new(b"0123456789abcdef").expect("16 bytes");
        assert!(!format!("{key:?}").contains("0123"));
        assert!(matches!(
            key.token(&url("ftp://example.com/")),
            Err(Error::Fetch(FetchError::UnsupportedScheme { .. }))
        ));
        assert!(matches!(
            key.token(&url("file:///etc/passwd")),
            Err(Error::Fetch(FetchError::UnsupportedScheme { .. }))
        ));
    }
}
