//! Public keys as JWKs (RFC 7517), their thumbprints (RFC 7638), key sets,
//! key directories (a JWK Set served with its media type) and the key ring
//! a verifier looks keys up in.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature;
use serde::Serialize;
use serde_json::Value;

use crate::error::Error;

/// The media type of a key directory in the Web Bot Auth drafts.
pub const DIRECTORY_MEDIA_TYPE: &str = "application/http-message-signatures-directory+json";

/// The path of the well-known key directory of an origin.
pub const WELL_KNOWN_DIRECTORY: &str = "/.well-known/http-message-signatures-directory";

/// The media types a key directory is accepted with, and what each is.
const MEDIA_TYPES: [(&str, MediaType); 3] = [
    (DIRECTORY_MEDIA_TYPE, MediaType::Directory),
    ("application/jwk-set+json", MediaType::JwkSet),
    ("application/json", MediaType::Json),
];

/// The media type a key directory was served with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MediaType {
    /// `application/http-message-signatures-directory+json`, as the drafts
    /// ask.
    Directory,
    /// `application/jwk-set+json` (RFC 7517), served by older directories
    /// and by `jwks_uri` agents.
    JwkSet,
    /// Plain `application/json`, seen on deployed directories.
    Json,
    /// None: the set was read from a file or a registry, not fetched.
    None,
}

impl MediaType {
    /// The media type's name, `none` for a set not fetched.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            MediaType::Directory => DIRECTORY_MEDIA_TYPE,
            MediaType::JwkSet => "application/jwk-set+json",
            MediaType::Json => "application/json",
            MediaType::None => "none",
        }
    }
}

/// The algorithm a key verifies with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum KeyAlgorithm {
    /// Ed25519 (RFC 9421 `ed25519`).
    #[serde(rename = "ed25519")]
    Ed25519,
    /// RSASSA-PSS with SHA-512 (RFC 9421 `rsa-pss-sha512`).
    #[serde(rename = "rsa-pss-sha512")]
    RsaPssSha512,
}

impl KeyAlgorithm {
    /// The RFC 9421 algorithm name (`ed25519`, `rsa-pss-sha512`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            KeyAlgorithm::Ed25519 => "ed25519",
            KeyAlgorithm::RsaPssSha512 => "rsa-pss-sha512",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Material {
    /// The key's bytes, and the key decompressed once (verification then
    /// skips the point decompression each signature would cost).
    Ed25519([u8; 32], ed25519_dalek::VerifyingKey),
    Rsa {
        n: Vec<u8>,
        e: Vec<u8>,
    },
}

/// A public key read from a JWK: Ed25519 (`kty: OKP`, `crv: Ed25519`) or
/// RSA (`kty: RSA`, verified as RSASSA-PSS with SHA-512), with its RFC 7638
/// thumbprint, which Web Bot Auth uses as the `keyid`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    material: Material,
    thumbprint: String,
    kid: Option<String>,
    not_before: Option<i64>,
    expires: Option<i64>,
}

impl PublicKey {
    /// An Ed25519 public key from its 32 bytes.
    ///
    /// # Errors
    ///
    /// Why the bytes are not a point of the curve, in words.
    pub fn ed25519(x: [u8; 32]) -> Result<PublicKey, String> {
        let key = ed25519_dalek::VerifyingKey::from_bytes(&x)
            .map_err(|_| "not a point of Ed25519's curve".to_owned())?;
        if key.is_weak() {
            return Err("a point of small order, which any signature would match".to_owned());
        }
        let thumbprint = thumbprint_of(&format!(
            r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#,
            URL_SAFE_NO_PAD.encode(x)
        ));
        Ok(PublicKey {
            material: Material::Ed25519(x, key),
            thumbprint,
            kid: None,
            not_before: None,
            expires: None,
        })
    }

    /// The key of a JWK (a JSON object); `what` names it in errors
    /// (`https://example.com/.well-known/…: keys[2]`). A private part
    /// (`d`, …) is ignored.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidKey`] when it is not an Ed25519 or RSA JWK, naming
    /// the member at fault.
    pub fn from_jwk(jwk: &Value, what: &str) -> Result<PublicKey, Error> {
        let bad = |reason: String| Error::InvalidKey {
            input: what.to_owned(),
            reason,
        };
        let obj = jwk
            .as_object()
            .ok_or_else(|| bad("a JWK is a JSON object".to_owned()))?;
        let member = |name: &str| -> Result<&str, Error> {
            match obj.get(name) {
                Some(Value::String(s)) => Ok(s),
                Some(_) => Err(bad(format!("`{name}` is not a string"))),
                None => Err(bad(format!("`{name}` is missing"))),
            }
        };
        let b64 = |name: &str| -> Result<Vec<u8>, Error> {
            let text = member(name)?;
            URL_SAFE_NO_PAD
                .decode(text)
                .map_err(|e| bad(format!("`{name}` is not base64url without padding: {e}")))
        };
        let kty = member("kty")?;
        let (material, canonical) = match kty {
            "OKP" => {
                let crv = member("crv")?;
                if crv != "Ed25519" {
                    return Err(bad(format!(
                        "curve `{crv}` is not supported (Ed25519 only)"
                    )));
                }
                let x: [u8; 32] = b64("x")?.try_into().map_err(|v: Vec<u8>| {
                    bad(format!("`x` has {} bytes; an Ed25519 key has 32", v.len()))
                })?;
                let canonical =
                    format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#, member("x")?);
                let key = ed25519_dalek::VerifyingKey::from_bytes(&x)
                    .map_err(|_| bad("`x` is not a point of Ed25519's curve".to_owned()))?;
                if key.is_weak() {
                    return Err(bad(
                        "`x` is a point of small order, which any signature would match".to_owned(),
                    ));
                }
                (Material::Ed25519(x, key), canonical)
            }
            "RSA" => {
                let n = b64("n")?;
                let e = b64("e")?;
                if n.len() < 256 {
                    return Err(bad(format!(
                        "the modulus has {} bits; at least 2048 are required",
                        n.len() * 8
                    )));
                }
                let canonical = format!(
                    r#"{{"e":"{}","kty":"RSA","n":"{}"}}"#,
                    member("e")?,
                    member("n")?
                );
                (Material::Rsa { n, e }, canonical)
            }
            other => {
                return Err(bad(format!(
                    "key type `{other}` is not supported (OKP Ed25519 and RSA only)"
                )));
            }
        };
        let time = |name: &str| -> Result<Option<i64>, Error> {
            match obj.get(name) {
                None => Ok(None),
                Some(v) => v
                    .as_i64()
                    .map(Some)
                    .ok_or_else(|| bad(format!("`{name}` is not an integer (seconds)"))),
            }
        };
        Ok(PublicKey {
            material,
            thumbprint: thumbprint_of(&canonical),
            kid: match obj.get("kid") {
                Some(Value::String(s)) => Some(s.clone()),
                _ => None,
            },
            not_before: time("nbf")?,
            expires: time("exp")?,
        })
    }

    /// The RFC 7638 JWK thumbprint (SHA-256, base64url): the `keyid` of a
    /// Web Bot Auth signature.
    #[must_use]
    pub fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// The JWK's own `kid`, if it had one.
    #[must_use]
    pub fn kid(&self) -> Option<&str> {
        self.kid.as_deref()
    }

    /// The algorithm the key verifies with.
    #[must_use]
    pub fn algorithm(&self) -> KeyAlgorithm {
        match self.material {
            Material::Ed25519(..) => KeyAlgorithm::Ed25519,
            Material::Rsa { .. } => KeyAlgorithm::RsaPssSha512,
        }
    }

    /// The JWK's validity (`nbf`, `exp`), in seconds since the epoch.
    #[must_use]
    pub fn validity(&self) -> (Option<i64>, Option<i64>) {
        (self.not_before, self.expires)
    }

    /// The public JWK, as published in a directory.
    #[must_use]
    pub fn to_jwk(&self) -> Value {
        match &self.material {
            Material::Ed25519(x, _) => serde_json::json!({
                "kty": "OKP",
                "crv": "Ed25519",
                "x": URL_SAFE_NO_PAD.encode(x),
            }),
            Material::Rsa { n, e } => serde_json::json!({
                "kty": "RSA",
                "n": URL_SAFE_NO_PAD.encode(n),
                "e": URL_SAFE_NO_PAD.encode(e),
            }),
        }
    }

    /// Whether `sig` is this key's signature of `message`.
    pub(crate) fn verifies(&self, message: &[u8], sig: &[u8]) -> bool {
        match &self.material {
            // RFC 8032 verification (a non-canonical `S` is refused); weak
            // keys were refused when the key was read.
            Material::Ed25519(_, key) => ed25519_dalek::Signature::from_slice(sig)
                .is_ok_and(|sig| ed25519_dalek::Verifier::verify(key, message, &sig).is_ok()),
            Material::Rsa { n, e } => signature::RsaPublicKeyComponents { n, e }
                .verify(&signature::RSA_PSS_2048_8192_SHA512, message, sig)
                .is_ok(),
        }
    }
}

/// An Ed25519 public key from its JWK `x` (base64url without padding), as
/// registry entries list them.
///
/// # Errors
///
/// Why it is not one, in words.
pub fn ed25519_key(x: &str) -> Result<PublicKey, String> {
    let bytes = URL_SAFE_NO_PAD
        .decode(x)
        .map_err(|e| format!("not base64url without padding: {e}"))?;
    let key: [u8; 32] = bytes
        .try_into()
        .map_err(|v: Vec<u8>| format!("{} bytes; an Ed25519 key has 32", v.len()))?;
    PublicKey::ed25519(key)
}

fn thumbprint_of(canonical: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes());
    URL_SAFE_NO_PAD.encode(digest.as_ref())
}

/// A set of public keys: a key directory, a `jwks_uri` document, the keys
/// of a signature agent card or of a registry entry.
#[derive(Debug, Clone, Default)]
pub struct KeySet {
    keys: Vec<PublicKey>,
    skipped: Vec<String>,
    media_type: Option<MediaType>,
}

impl KeySet {
    /// A set of the keys given.
    #[must_use]
    pub fn new(keys: Vec<PublicKey>) -> KeySet {
        KeySet {
            keys,
            skipped: Vec::new(),
            media_type: None,
        }
    }

    /// Reads a JWK Set (`{"keys": [ … ]}`); `source` names it in errors.
    /// Keys of other types are skipped, each with its reason
    /// ([`skipped`](KeySet::skipped)).
    ///
    /// # Errors
    ///
    /// [`Error::KeyDirectory`] when the body is not a JWK Set.
    pub fn from_jwks(body: &[u8], source: &str) -> Result<KeySet, Error> {
        let bad = |problem: String| Error::KeyDirectory {
            url: source.to_owned(),
            problems: vec![problem],
        };
        let doc: Value = serde_json::from_slice(body).map_err(|e| bad(format!("not JSON: {e}")))?;
        let keys = doc
            .get("keys")
            .ok_or_else(|| bad("no `keys` member: not a JWK Set".to_owned()))?
            .as_array()
            .ok_or_else(|| bad("`keys` is not an array".to_owned()))?;
        KeySet::from_jwk_array(keys, source)
    }

    pub(crate) fn from_jwk_array(keys: &[Value], source: &str) -> Result<KeySet, Error> {
        let mut set = KeySet::default();
        for (i, jwk) in keys.iter().enumerate() {
            match PublicKey::from_jwk(jwk, &format!("{source}: keys[{i}]")) {
                Ok(k) => set.keys.push(k),
                Err(e) => set.skipped.push(e.to_string()),
            }
        }
        Ok(set)
    }

    /// Reads a key directory fetched from `url` and served with the media
    /// type `content_type` (the `Content-Type` value; `None` for a file).
    /// The media type must be the directory's
    /// ([`DIRECTORY_MEDIA_TYPE`]), or `application/jwk-set+json` or
    /// `application/json` as older and deployed directories serve; which one
    /// is kept ([`media_type`](KeySet::media_type)).
    ///
    /// # Errors
    ///
    /// [`Error::KeyDirectory`] when the media type is another one or the
    /// body is not a JWK Set.
    pub fn from_directory(
        body: &[u8],
        content_type: Option<&str>,
        url: &str,
    ) -> Result<KeySet, Error> {
        let media_type = match content_type {
            None => MediaType::None,
            Some(ct) => {
                let essence = ct.split(';').next().unwrap_or("").trim();
                MEDIA_TYPES
                    .iter()
                    .find(|(name, _)| name.eq_ignore_ascii_case(essence))
                    .map(|(_, t)| *t)
                    .ok_or_else(|| Error::KeyDirectory {
                        url: url.to_owned(),
                        problems: vec![format!(
                            "served as `{ct}`, not as a key directory \
                             ({DIRECTORY_MEDIA_TYPE}, application/jwk-set+json or application/json)"
                        )],
                    })?
            }
        };
        let mut set = KeySet::from_jwks(body, url)?;
        set.media_type = Some(media_type);
        Ok(set)
    }

    /// The keys.
    #[must_use]
    pub fn keys(&self) -> &[PublicKey] {
        &self.keys
    }

    /// The keys left out (unsupported types, bad members), each with its
    /// place and reason.
    #[must_use]
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    /// The media type the set was served with, when read as a directory.
    #[must_use]
    pub fn media_type(&self) -> Option<MediaType> {
        self.media_type
    }

    /// The key whose thumbprint is `keyid`.
    #[must_use]
    pub fn get(&self, keyid: &str) -> Option<&PublicKey> {
        self.keys.iter().find(|k| k.thumbprint == keyid)
    }
}

/// What is known of one key source: its keys, or why they could not be had.
#[derive(Debug, Clone)]
enum SourceState {
    Keys(Arc<KeySet>),
    Unreachable(String),
}

/// Who a key belongs to in a [`KeyRing`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "name")]
pub enum KeyOwner {
    /// A key directory (or `jwks_uri`, or agent card), by URL.
    Directory(String),
    /// A registry entry's `signature_keys`, by bot name.
    Registry(String),
}

impl std::fmt::Display for KeyOwner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyOwner::Directory(url) => write!(f, "directory {url}"),
            KeyOwner::Registry(bot) => write!(f, "registry entry {bot}"),
        }
    }
}

/// The keys a verifier knows: key sets by the URL they were fetched from
/// (directories, `jwks_uri` documents, agent cards), the URLs that could not
/// be fetched (with why), and keys listed in registry entries.
///
/// The verifier never fetches: whoever does (the crawler, a server's
/// background task) puts what it got here, and [`SignatureVerifier::agents`]
/// says which URLs a request needs.
///
/// [`SignatureVerifier::agents`]: super::SignatureVerifier::agents
#[derive(Debug, Clone, Default)]
pub struct KeyRing {
    sources: HashMap<String, SourceState>,
    by_keyid: HashMap<String, Vec<(KeyOwner, PublicKey)>>,
}

impl KeyRing {
    /// An empty ring.
    #[must_use]
    pub fn new() -> KeyRing {
        KeyRing::default()
    }

    /// Puts the keys fetched from `url` (a directory, `jwks_uri` or card),
    /// replacing what was known of it.
    pub fn insert_directory(&mut self, url: &str, keys: KeySet) {
        self.forget(&KeyOwner::Directory(url.to_owned()));
        let keys = Arc::new(keys);
        for k in keys.keys() {
            self.by_keyid
                .entry(k.thumbprint.clone())
                .or_default()
                .push((KeyOwner::Directory(url.to_owned()), k.clone()));
        }
        self.sources
            .insert(url.to_owned(), SourceState::Keys(Arc::clone(&keys)));
    }

    /// Records that `url` could not be fetched, and why (a verdict on a
    /// signature whose keys are there is then `unknown`).
    pub fn insert_unreachable(&mut self, url: &str, reason: impl Into<String>) {
        self.forget(&KeyOwner::Directory(url.to_owned()));
        self.sources
            .insert(url.to_owned(), SourceState::Unreachable(reason.into()));
    }

    /// A ring with the keys the registry's entries list
    /// (`signature_keys`).
    #[must_use]
    pub fn from_registry(registry: &crate::Registry) -> KeyRing {
        let mut ring = KeyRing::new();
        for bot in registry.bots() {
            let keys: Vec<PublicKey> = bot
                .signature_keys
                .iter()
                .filter_map(|x| ed25519_key(x).ok())
                .collect();
            ring.insert_registry_keys(&bot.name, &keys);
        }
        ring
    }

    /// Puts keys listed for `bot` in the registry.
    pub fn insert_registry_keys(&mut self, bot: &str, keys: &[PublicKey]) {
        for k in keys {
            self.by_keyid
                .entry(k.thumbprint.clone())
                .or_default()
                .push((KeyOwner::Registry(bot.to_owned()), k.clone()));
        }
    }

    fn forget(&mut self, owner: &KeyOwner) {
        if let KeyOwner::Directory(url) = owner
            && self.sources.remove(url).is_none()
        {
            return;
        }
        self.by_keyid.retain(|_, v| {
            v.retain(|(o, _)| o != owner);
            !v.is_empty()
        });
    }

    /// What is known of the source at `url`: `None` if nothing (not
    /// fetched), `Some(Ok(keys))` or `Some(Err(why it was unreachable))`.
    #[must_use]
    pub fn directory(&self, url: &str) -> Option<Result<&KeySet, &str>> {
        self.sources.get(url).map(|s| match s {
            SourceState::Keys(k) => Ok(&**k),
            SourceState::Unreachable(r) => Err(r.as_str()),
        })
    }

    /// Every known key with this thumbprint, with its owner.
    pub fn by_keyid(&self, keyid: &str) -> impl Iterator<Item = (&KeyOwner, &PublicKey)> {
        self.by_keyid
            .get(keyid)
            .into_iter()
            .flatten()
            .map(|(o, k)| (o, k))
    }
}

/// A signature agent card (a client metadata document, `type=cimd`): who
/// the agent is and where its keys are.
#[derive(Debug, Clone)]
pub struct AgentCard {
    /// Its `client_id`, which is its URL.
    pub client_id: String,
    /// Its `client_name`.
    pub client_name: Option<String>,
    /// Where its keys are: inline or at a URL.
    pub keys: CardKeys,
}

/// Where a card's keys are.
#[derive(Debug, Clone)]
pub enum CardKeys {
    /// In the card (`jwks`).
    Inline(KeySet),
    /// At this URL (`jwks_uri`), to fetch as a directory.
    Uri(String),
}

impl AgentCard {
    /// Reads a card fetched from `url`.
    ///
    /// # Errors
    ///
    /// [`Error::KeyDirectory`] naming the card when it is not JSON, its
    /// `client_id` is not `url`, or it has both or neither of `jwks` and
    /// `jwks_uri`.
    pub fn parse(body: &[u8], url: &str) -> Result<AgentCard, Error> {
        let bad = |problem: &str| Error::KeyDirectory {
            url: url.to_owned(),
            problems: vec![problem.to_owned()],
        };
        let doc: Value = serde_json::from_slice(body)
            .map_err(|e| bad(&format!("agent card is not JSON: {e}")))?;
        let client_id = doc
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("agent card has no `client_id` string"))?;
        if client_id != url {
            return Err(bad(&format!(
                "agent card's client_id `{client_id}` is not the card's URL"
            )));
        }
        let keys = match (doc.get("jwks"), doc.get("jwks_uri")) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "agent card has both `jwks` and `jwks_uri`; it must have one",
                ));
            }
            (None, None) => return Err(bad("agent card has neither `jwks` nor `jwks_uri`")),
            (Some(jwks), None) => {
                let keys = jwks
                    .get("keys")
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad("agent card's `jwks` has no `keys` array"))?;
                CardKeys::Inline(KeySet::from_jwk_array(keys, &format!("{url}: jwks"))?)
            }
            (None, Some(uri)) => CardKeys::Uri(
                uri.as_str()
                    .ok_or_else(|| bad("agent card's `jwks_uri` is not a string"))?
                    .to_owned(),
            ),
        };
        Ok(AgentCard {
            client_id: client_id.to_owned(),
            client_name: doc
                .get("client_name")
                .and_then(Value::as_str)
                .map(str::to_owned),
            keys,
        })
    }
}

/// Reads a signature agent registry list (`registry.txt`): one card URL a
/// line, `#` starting a comment, blank lines ignored. `source` names the
/// list in errors.
///
/// # Errors
///
/// [`Error::KeyDirectory`] listing every line that is not an http(s) URL,
/// by number.
pub fn parse_agent_registry(text: &str, source: &str) -> Result<Vec<String>, Error> {
    let mut urls = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        match url::Url::parse(line) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
                urls.push(line.to_owned());
            }
            _ => problems.push(format!("line {}: `{line}` is not an http(s) URL", i + 1)),
        }
    }
    if problems.is_empty() {
        Ok(urls)
    } else {
        Err(Error::KeyDirectory {
            url: source.to_owned(),
            problems,
        })
    }
}
