//! Signing requests as a Web Bot Auth agent, and making keys.

use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom as _, SystemRandom};
use ring::signature::{Ed25519KeyPair, KeyPair as _};
use serde_json::Value;
use sfv::{BareItem, FieldType as _, InnerList, Integer, Item, Key, ListEntry, Parameters};

use super::base::{RequestParts, response_base, signature_base};
use super::check::WEB_BOT_AUTH_TAG;
use super::digest::content_digest;
use super::directory::DIRECTORY_TAG;
use super::fields::Component;
use super::keys::PublicKey;
use crate::error::Error;

/// The DER of a PKCS#8 v1 Ed25519 private key up to its 32-byte seed
/// (RFC 8410 §7).
const PKCS8_V1_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];
/// The same for PKCS#8 v2 (with the public key after the seed).
const PKCS8_V2_PREFIX: [u8; 16] = [
    0x30, 0x53, 0x02, 0x01, 0x01, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// How a [`Signer`] sends `Signature-Agent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AgentForm {
    /// A dictionary member named by the signature's label, covered with
    /// `;key` (the working-group draft): `sig1="https://…"`.
    #[default]
    Dictionary,
    /// A bare sf-string, as deployed agents send: `"https://…"`.
    String,
}

/// The header fields a [`Signer`] adds to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureHeaders {
    /// `Signature-Input`.
    pub signature_input: String,
    /// `Signature`.
    pub signature: String,
    /// `Signature-Agent`, when the signer has an agent.
    pub signature_agent: Option<String>,
    /// `Content-Digest`, for a signed response (a key directory).
    pub content_digest: Option<String>,
}

impl SignatureHeaders {
    /// The fields as `(name, value)` pairs.
    #[must_use]
    pub fn fields(&self) -> Vec<(&'static str, &str)> {
        let mut out = vec![
            ("Signature-Input", self.signature_input.as_str()),
            ("Signature", self.signature.as_str()),
        ];
        if let Some(a) = &self.signature_agent {
            out.push(("Signature-Agent", a.as_str()));
        }
        if let Some(d) = &self.content_digest {
            out.push(("Content-Digest", d.as_str()));
        }
        out
    }
}

/// Signs requests with an Ed25519 key as Web Bot Auth asks: a signature
/// tagged `web-bot-auth` over `@authority` (and `Signature-Agent` when the
/// signer names its agent), with `created`, `expires`, a random nonce and
/// the key's JWK thumbprint as `keyid`.
pub struct Signer {
    seed: [u8; 32],
    pair: Ed25519KeyPair,
    public: PublicKey,
    label: String,
    agent: Option<(String, AgentForm)>,
    validity: Duration,
    /// `@authority`, or `@target-uri` in its place.
    authority: &'static str,
    extra: Vec<String>,
    rng: SystemRandom,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("keyid", &self.public.thumbprint())
            .field("label", &self.label)
            .field("agent", &self.agent)
            .field("validity", &self.validity)
            .finish_non_exhaustive()
    }
}

fn key_error(input: &str, reason: impl Into<String>) -> Error {
    Error::InvalidKey {
        input: input.to_owned(),
        reason: reason.into(),
    }
}

impl Signer {
    /// A signer with a new random key.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidKey`] if the system gives no randomness.
    pub fn generate() -> Result<Signer, Error> {
        let mut seed = [0u8; 32];
        SystemRandom::new()
            .fill(&mut seed)
            .map_err(|_| key_error("new key", "the system gave no random bytes"))?;
        Signer::from_seed(seed, "new key")
    }

    fn from_seed(seed: [u8; 32], what: &str) -> Result<Signer, Error> {
        let pair = Ed25519KeyPair::from_seed_unchecked(&seed)
            .map_err(|e| key_error(what, format!("not an Ed25519 private key: {e}")))?;
        let x: [u8; 32] = pair
            .public_key()
            .as_ref()
            .try_into()
            .map_err(|_| key_error(what, "the public key is not 32 bytes"))?;
        Ok(Signer {
            seed,
            pair,
            public: PublicKey::ed25519(x).map_err(|e| key_error(what, e))?,
            label: "sig1".to_owned(),
            agent: None,
            validity: Duration::from_secs(60),
            authority: "@authority",
            extra: Vec::new(),
            rng: SystemRandom::new(),
        })
    }

    /// A signer with the private key of an Ed25519 JWK (`kty: OKP`, `crv:
    /// Ed25519`, `d`, and `x` checked against `d` when present); `what`
    /// names it in errors.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidKey`] naming the member at fault.
    pub fn from_jwk(jwk: &str, what: &str) -> Result<Signer, Error> {
        let v: Value =
            serde_json::from_str(jwk).map_err(|e| key_error(what, format!("not JSON: {e}")))?;
        let s = |name: &str| v.get(name).and_then(Value::as_str);
        if s("kty") != Some("OKP") || s("crv") != Some("Ed25519") {
            return Err(key_error(what, "not an Ed25519 JWK (kty OKP, crv Ed25519)"));
        }
        let d = s("d").ok_or_else(|| key_error(what, "no private part `d`"))?;
        let seed: [u8; 32] = URL_SAFE_NO_PAD
            .decode(d)
            .map_err(|e| key_error(what, format!("`d` is not base64url: {e}")))?
            .try_into()
            .map_err(|_| key_error(what, "`d` is not 32 bytes"))?;
        let signer = Signer::from_seed(seed, what)?;
        if let Some(x) = s("x")
            && x != URL_SAFE_NO_PAD.encode(signer.pair.public_key().as_ref())
        {
            return Err(key_error(what, "`x` is not the public key of `d`"));
        }
        Ok(signer)
    }

    /// A signer with an Ed25519 private key in PKCS#8 PEM (`-----BEGIN
    /// PRIVATE KEY-----`); `what` names it in errors.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidKey`] when it is not such a key.
    pub fn from_pkcs8_pem(pem: &str, what: &str) -> Result<Signer, Error> {
        let body: String = pem
            .lines()
            .map(str::trim)
            .skip_while(|l| *l != "-----BEGIN PRIVATE KEY-----")
            .skip(1)
            .take_while(|l| *l != "-----END PRIVATE KEY-----")
            .collect();
        if body.is_empty() {
            return Err(key_error(what, "no `-----BEGIN PRIVATE KEY-----` block"));
        }
        let der = STANDARD
            .decode(body)
            .map_err(|e| key_error(what, format!("the PEM block is not base64: {e}")))?;
        let seed = match der.get(..16) {
            Some(p)
                if (p == PKCS8_V1_PREFIX && der.len() == 48)
                    || (p == PKCS8_V2_PREFIX && der.len() > 48) =>
            {
                let mut seed = [0u8; 32];
                seed.copy_from_slice(&der[16..48]);
                seed
            }
            _ => {
                return Err(key_error(
                    what,
                    "not an Ed25519 PKCS#8 key (only Ed25519 keys sign)",
                ));
            }
        };
        Signer::from_seed(seed, what)
    }

    /// Names the signature agent: `url` (an origin, whose well-known
    /// directory holds the key, or a directory's URL) goes in
    /// `Signature-Agent`, covered by the signature, in the given form.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidKey`] when `url` is not an http(s) URL that a
    /// structured-field string can hold.
    pub fn agent(mut self, url: &str, form: AgentForm) -> Result<Signer, Error> {
        let ok = url::Url::parse(url)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
        if !ok || sfv::String::from_string(url.to_owned()).is_err() {
            return Err(key_error(url, "the signature agent is not an http(s) URL"));
        }
        self.agent = Some((url.to_owned(), form));
        Ok(self)
    }

    /// The signature's label (`sig1` unless set).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidKey`] when it is not a structured-field key.
    pub fn label(mut self, label: &str) -> Result<Signer, Error> {
        Key::from_string(label.to_owned())
            .map_err(|(e, _)| key_error(label, format!("not a valid label: {e}")))?;
        self.label = label.to_owned();
        Ok(self)
    }

    /// How long a signature is valid (`expires - created`, 60 s unless set).
    #[must_use]
    pub fn validity(mut self, validity: Duration) -> Signer {
        self.validity = validity;
        self
    }

    /// Covers `@target-uri` in place of `@authority` (the architecture
    /// draft allows either since -04: the target URI holds the authority).
    #[must_use]
    pub fn target_uri(mut self) -> Signer {
        self.authority = "@target-uri";
        self
    }

    /// Covers another component too (`@method`, `@path`, a header name,
    /// lower case).
    #[must_use]
    pub fn cover(mut self, component: &str) -> Signer {
        self.extra.push(component.to_ascii_lowercase());
        self
    }

    /// The `keyid`: the JWK thumbprint of the public key.
    #[must_use]
    pub fn keyid(&self) -> &str {
        self.public.thumbprint()
    }

    /// The public key.
    #[must_use]
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The key directory to publish at
    /// `/.well-known/http-message-signatures-directory`: a JWK Set with the
    /// public key, its `kid` the thumbprint.
    #[must_use]
    pub fn directory_json(&self) -> String {
        let mut jwk = self.public.to_jwk();
        jwk["kid"] = Value::String(self.keyid().to_owned());
        let doc = serde_json::json!({ "keys": [jwk] });
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    }

    /// The private key as a JWK (keep it secret).
    #[must_use]
    pub fn private_jwk(&self) -> String {
        let mut jwk = self.public.to_jwk();
        jwk["kid"] = Value::String(self.keyid().to_owned());
        jwk["d"] = Value::String(URL_SAFE_NO_PAD.encode(self.seed));
        serde_json::to_string_pretty(&jwk).unwrap_or_default()
    }

    /// The private key in PKCS#8 PEM (keep it secret).
    #[must_use]
    pub fn private_pem(&self) -> String {
        let mut der = PKCS8_V1_PREFIX.to_vec();
        der.extend_from_slice(&self.seed);
        format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(der)
        )
    }

    /// Signs the request at time `now`: the fields to add to it. A
    /// `Signature-Agent` the request already has is replaced by the
    /// signer's (when it has one).
    ///
    /// # Errors
    ///
    /// [`Error::Signing`] when a covered component is not in the request or
    /// the system gives no random bytes for the nonce.
    pub fn sign(&self, req: &RequestParts<'_>, now: SystemTime) -> Result<SignatureHeaders, Error> {
        let fail = |reason: String| Error::Signing { reason };
        let created = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_err(|_| fail("the time is before 1970".to_owned()))?
            .as_secs();
        let expires = created.saturating_add(self.validity.as_secs());
        let mut nonce = [0u8; 64];
        self.rng
            .fill(&mut nonce)
            .map_err(|_| fail("the system gave no random bytes for the nonce".to_owned()))?;
        let nonce = STANDARD.encode(nonce);

        let agent_value = match &self.agent {
            None => None,
            Some((url, AgentForm::Dictionary)) => {
                Some(format!("{}={}", self.label, sf_string(url)?))
            }
            Some((url, AgentForm::String)) => Some(sf_string(url)?),
        };
        let mut items = vec![sf_item(self.authority, None)?];
        for c in &self.extra {
            items.push(sf_item(c, None)?);
        }
        if let Some((_, form)) = &self.agent {
            let key = (*form == AgentForm::Dictionary).then_some(self.label.as_str());
            items.push(sf_item("signature-agent", key)?);
        }
        let mut params = Parameters::new();
        let int = |v: u64| -> Result<BareItem, Error> {
            i64::try_from(v)
                .ok()
                .and_then(|v| Integer::try_from(v).ok())
                .map(BareItem::Integer)
                .ok_or_else(|| fail(format!("{v} is out of range for a structured integer")))
        };
        params.insert(key("created")?, int(created)?);
        params.insert(key("expires")?, int(expires)?);
        params.insert(key("keyid")?, sf_bare_string(self.keyid())?);
        params.insert(key("alg")?, sf_bare_string("ed25519")?);
        params.insert(key("nonce")?, sf_bare_string(&nonce)?);
        params.insert(key("tag")?, sf_bare_string(WEB_BOT_AUTH_TAG)?);
        let components: Vec<Component> = items
            .iter()
            .map(|item| Component {
                name: item
                    .bare_item
                    .as_string()
                    .map(|s| s.as_str().to_owned())
                    .unwrap_or_default(),
                key: item
                    .params
                    .get("key")
                    .and_then(|k| k.as_string())
                    .map(|s| s.as_str().to_owned()),
                sf: false,
                req: false,
                identifier: item.serialize(),
            })
            .collect();
        let params_line = vec![ListEntry::InnerList(InnerList::with_params(items, params))]
            .serialize()
            .unwrap_or_default();

        let mut signed = RequestParts::new(req.method(), req.authority(), req.target());
        for (n, v) in req.headers() {
            if !(agent_value.is_some() && n.eq_ignore_ascii_case("signature-agent")) {
                signed.push_header(n, v);
            }
        }
        if let Some(a) = &agent_value {
            signed.push_header("signature-agent", a);
        }
        let base =
            signature_base(&signed, &components, &params_line).map_err(|f| fail(f.to_string()))?;
        let sig = self.pair.sign(base.as_bytes());
        Ok(SignatureHeaders {
            signature_input: format!("{}={params_line}", self.label),
            signature: format!("{}=:{}:", self.label, STANDARD.encode(sig.as_ref())),
            signature_agent: agent_value,
            content_digest: None,
        })
    }
}

impl Signer {
    /// Signs a key directory response (the directory draft's signed
    /// directory): a signature tagged `http-message-signatures-directory`
    /// over `"@authority";req`, the authority of `url` (the directory's
    /// URL as requested), and `content-digest`, the SHA-256 digest of
    /// `body` (the directory served; RFC 9530), with `created`, `expires`
    /// (the signer's validity), `keyid`, `alg` and a nonce. Its fields,
    /// `Content-Digest` among them, go in the response beside the
    /// directory, whose keys must include the signer's.
    ///
    /// # Errors
    ///
    /// [`Error::Signing`] when `url` is not an absolute URL or the system
    /// gives no random bytes.
    pub fn sign_directory_response(
        &self,
        url: &str,
        body: &[u8],
        now: SystemTime,
    ) -> Result<SignatureHeaders, Error> {
        let fail = |reason: String| Error::Signing { reason };
        let parsed =
            url::Url::parse(url).map_err(|e| fail(format!("`{url}` is not a URL: {e}")))?;
        let authority = match (parsed.host_str(), parsed.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_owned(),
            (None, _) => return Err(fail(format!("`{url}` has no host"))),
        };
        let request = RequestParts::new("GET", &authority, parsed.path()).scheme(parsed.scheme());
        let created = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_err(|_| fail("the time is before 1970".to_owned()))?
            .as_secs();
        let expires = created.saturating_add(self.validity.as_secs());
        let mut nonce = [0u8; 32];
        self.rng
            .fill(&mut nonce)
            .map_err(|_| fail("the system gave no random bytes for the nonce".to_owned()))?;
        let mut item_params = Parameters::new();
        item_params.insert(key("req")?, BareItem::Boolean(true));
        let items = vec![
            Item::with_params(sf_bare_string("@authority")?, item_params),
            Item::new(sf_bare_string("content-digest")?),
        ];
        let int = |v: u64| -> Result<BareItem, Error> {
            i64::try_from(v)
                .ok()
                .and_then(|v| Integer::try_from(v).ok())
                .map(BareItem::Integer)
                .ok_or_else(|| fail(format!("{v} is out of range for a structured integer")))
        };
        let mut params = Parameters::new();
        params.insert(key("alg")?, sf_bare_string("ed25519")?);
        params.insert(key("keyid")?, sf_bare_string(self.keyid())?);
        params.insert(key("nonce")?, sf_bare_string(&STANDARD.encode(nonce))?);
        params.insert(key("tag")?, sf_bare_string(DIRECTORY_TAG)?);
        params.insert(key("created")?, int(created)?);
        params.insert(key("expires")?, int(expires)?);
        let components = vec![
            Component {
                name: "@authority".to_owned(),
                key: None,
                sf: false,
                req: true,
                identifier: items[0].serialize(),
            },
            Component {
                name: "content-digest".to_owned(),
                key: None,
                sf: false,
                req: false,
                identifier: items[1].serialize(),
            },
        ];
        let digest = content_digest(body);
        let params_line = vec![ListEntry::InnerList(InnerList::with_params(items, params))]
            .serialize()
            .unwrap_or_default();
        let base = response_base(
            &request,
            200,
            &[("content-digest", &digest)],
            &components,
            &params_line,
        )
        .map_err(|f| fail(f.to_string()))?;
        let sig = self.pair.sign(base.as_bytes());
        Ok(SignatureHeaders {
            signature_input: format!("{}={params_line}", self.label),
            signature: format!("{}=:{}:", self.label, STANDARD.encode(sig.as_ref())),
            signature_agent: None,
            content_digest: Some(digest),
        })
    }
}

fn key(k: &str) -> Result<Key, Error> {
    Key::from_string(k.to_owned()).map_err(|(e, _)| Error::Signing {
        reason: format!("`{k}` is not a structured-field key: {e}"),
    })
}

fn sf_bare_string(s: &str) -> Result<BareItem, Error> {
    sfv::String::from_string(s.to_owned())
        .map(BareItem::String)
        .map_err(|(e, _)| Error::Signing {
            reason: format!("`{s}` cannot be a structured-field string: {e}"),
        })
}

fn sf_string(s: &str) -> Result<String, Error> {
    sf_bare_string(s).map(|b| Item::new(b).serialize())
}

fn sf_item(name: &str, key_param: Option<&str>) -> Result<Item, Error> {
    let mut params = Parameters::new();
    if let Some(k) = key_param {
        params.insert(key("key")?, sf_bare_string(k)?);
    }
    Ok(Item::with_params(sf_bare_string(name)?, params))
}
