//! Interop with an independent implementation: Cloudflare's `web-bot-auth`
//! crate (tests only). botwarden's signatures verify with it, in both
//! `Signature-Agent` forms and with `@target-uri`; its signatures verify
//! with botwarden; a tampered request fails in both.

use std::time::{Duration, SystemTime};

use base64::Engine as _;
use botwarden_verify::{
    AgentForm, KeyRing, KeySet, RequestParts, SignatureCheck, SignatureVerifier, Signer,
};
use indexmap::IndexMap;
use sfv::{FieldType as _, Parser};
use web_bot_auth::WebBotAuthVerifier;
use web_bot_auth::components::{
    CoveredComponent, DerivedComponent, HTTPField, HTTPFieldParameters, HTTPFieldParametersSet,
};
use web_bot_auth::keyring::{Algorithm, KeyRing as CfKeyRing};
use web_bot_auth::message_signatures::{MessageSigner, SignedMessage, UnsignedMessage};

/// A request as both implementations see it.
#[derive(Debug, Clone)]
struct Message {
    method: String,
    scheme: String,
    authority: String,
    target: String,
    headers: Vec<(String, String)>,
    /// The components Cloudflare's signer covers, when it signs.
    cover: Vec<CoveredComponent>,
}

impl Message {
    fn new(authority: &str, target: &str) -> Message {
        Message {
            method: "GET".to_owned(),
            scheme: "https".to_owned(),
            authority: authority.to_owned(),
            target: target.to_owned(),
            headers: Vec::new(),
            cover: Vec::new(),
        }
    }

    fn header(&self, name: &str) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .collect()
    }

    fn parts(&self) -> RequestParts<'_> {
        let mut r =
            RequestParts::new(&self.method, &self.authority, &self.target).scheme(&self.scheme);
        for (n, v) in &self.headers {
            r.push_header(n, v);
        }
        r
    }
}

impl SignedMessage for Message {
    fn lookup_component(&self, name: &CoveredComponent) -> Vec<String> {
        match name {
            CoveredComponent::HTTP(HTTPField { name, parameters }) => {
                let values = self.header(name);
                let key = parameters.0.iter().find_map(|p| match p {
                    HTTPFieldParameters::Key(k) => Some(k.clone()),
                    _ => None,
                });
                match key {
                    // RFC 9421 §2.1.2: the member's value, re-serialized.
                    Some(key) => Parser::new(&values.join(", "))
                        .parse::<sfv::Dictionary>()
                        .ok()
                        .and_then(|d| d.get(key.as_str()).cloned())
                        .and_then(|entry| match entry {
                            sfv::ListEntry::Item(item) => Some(item.serialize()),
                            sfv::ListEntry::InnerList(inner) => {
                                vec![sfv::ListEntry::InnerList(inner)].serialize()
                            }
                        })
                        .into_iter()
                        .collect(),
                    None => values,
                }
            }
            CoveredComponent::Derived(d) => match d {
                DerivedComponent::Authority { .. } => vec![self.authority.clone()],
                DerivedComponent::TargetUri { .. } => {
                    vec![format!(
                        "{}://{}{}",
                        self.scheme, self.authority, self.target
                    )]
                }
                DerivedComponent::Method { .. } => vec![self.method.clone()],
                DerivedComponent::Path { .. } => {
                    vec![self.target.split('?').next().unwrap_or("/").to_owned()]
                }
                _ => Vec::new(),
            },
        }
    }
}

impl UnsignedMessage for Message {
    fn fetch_components_to_cover(&self) -> IndexMap<CoveredComponent, String> {
        self.cover
            .iter()
            .map(|c| {
                let value = self.lookup_component(c).join(", ");
                (c.clone(), value)
            })
            .collect()
    }

    fn register_header_contents(&mut self, signature_input: String, signature_header: String) {
        self.headers.push((
            "Signature-Input".to_owned(),
            format!("sig1={signature_input}"),
        ));
        self.headers
            .push(("Signature".to_owned(), format!("sig1={signature_header}")));
    }
}

/// The signer's key as Cloudflare's key ring holds it.
fn cf_ring(signer: &Signer) -> CfKeyRing {
    let jwk = signer.public_key().to_jwk();
    let x = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(jwk["x"].as_str().expect("x"))
        .expect("base64url");
    let mut ring = CfKeyRing::default();
    ring.import_raw(signer.keyid().to_owned(), Algorithm::Ed25519, x);
    ring
}

/// Whether Cloudflare's crate verifies `message`.
fn cf_verifies(message: &Message, signer: &Signer) -> Result<(), String> {
    let verifier = WebBotAuthVerifier::parse(message).map_err(|e| format!("parse: {e:?}"))?;
    verifier
        .verify(&cf_ring(signer), None)
        .map(|_| ())
        .map_err(|e| format!("verify: {e:?}"))
}

fn botwarden_ring(signer: &Signer, origin: &str) -> KeyRing {
    let mut ring = KeyRing::new();
    ring.insert_directory(
        &format!("{origin}/.well-known/http-message-signatures-directory"),
        KeySet::new(vec![signer.public_key().clone()]),
    );
    ring
}

#[test]
fn botwarden_signatures_verify_with_cloudflares_crate() {
    let now = SystemTime::now();
    for (form, target_uri) in [
        (AgentForm::String, false),
        (AgentForm::Dictionary, false),
        (AgentForm::String, true),
        (AgentForm::Dictionary, true),
    ] {
        let mut signer = Signer::generate()
            .expect("key")
            .agent("https://crawler.example", form)
            .expect("agent")
            .cover("@method")
            .validity(Duration::from_secs(300));
        if target_uri {
            signer = signer.target_uri();
        }
        let mut message = Message::new("site.example", "/page?q=1");
        let h = signer.sign(&message.parts(), now).expect("sign");
        for (n, v) in h.fields() {
            message.headers.push((n.to_owned(), v.to_owned()));
        }
        let what = format!("{form:?}, target-uri {target_uri}");
        assert_eq!(cf_verifies(&message, &signer), Ok(()), "{what}");
        // And botwarden agrees.
        let check = SignatureVerifier::default().check(
            &message.parts(),
            &botwarden_ring(&signer, "https://crawler.example"),
            now,
        );
        assert!(
            matches!(check, SignatureCheck::Valid(_)),
            "{what}: {check:?}"
        );
        // Tampered: another method, another authority.
        for tamper in ["method", "authority"] {
            let mut t = message.clone();
            if tamper == "method" {
                t.method = "POST".to_owned();
            } else {
                t.authority = "other.example".to_owned();
            }
            assert!(cf_verifies(&t, &signer).is_err(), "{what}: {tamper}");
            let check = SignatureVerifier::default().check(
                &t.parts(),
                &botwarden_ring(&signer, "https://crawler.example"),
                now,
            );
            assert!(
                matches!(check, SignatureCheck::Invalid { .. }),
                "{what}: {tamper}: {check:?}"
            );
        }
    }
}

#[test]
fn cloudflares_signatures_verify_with_botwarden() {
    let signer = Signer::generate().expect("key");
    let jwk: serde_json::Value = serde_json::from_str(&signer.private_jwk()).expect("jwk");
    let seed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(jwk["d"].as_str().expect("d"))
        .expect("base64url");
    let now = SystemTime::now();
    for (agent, key) in [
        ("\"https://crawler.example\"", None),
        ("sig1=\"https://crawler.example\"", Some("sig1")),
    ] {
        let mut message = Message::new("site.example", "/");
        message
            .headers
            .push(("Signature-Agent".to_owned(), agent.to_owned()));
        let params = key.map_or_else(Vec::new, |k| vec![HTTPFieldParameters::Key(k.to_owned())]);
        message.cover = vec![
            CoveredComponent::Derived(DerivedComponent::Authority { req: false }),
            CoveredComponent::HTTP(HTTPField {
                name: "signature-agent".to_owned(),
                parameters: HTTPFieldParametersSet(params),
            }),
        ];
        let nonce = base64::engine::general_purpose::STANDARD.encode([7u8; 64]);
        MessageSigner {
            keyid: signer.keyid().to_owned(),
            nonce,
            tag: "web-bot-auth".to_owned(),
        }
        .generate_signature_headers_content(
            &mut message,
            Duration::from_secs(60),
            Algorithm::Ed25519,
            &seed,
        )
        .expect("Cloudflare's crate signs");
        assert_eq!(cf_verifies(&message, &signer), Ok(()), "{agent}");
        let ring = botwarden_ring(&signer, "https://crawler.example");
        let check = SignatureVerifier::default().check(&message.parts(), &ring, now);
        assert!(
            matches!(check, SignatureCheck::Valid(_)),
            "{agent}: {check:?}"
        );
        let mut t = message.clone();
        t.authority = "other.example".to_owned();
        let check = SignatureVerifier::default().check(&t.parts(), &ring, now);
        assert!(
            matches!(check, SignatureCheck::Invalid { .. }),
            "{agent}: {check:?}"
        );
    }
}
