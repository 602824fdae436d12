//! Web Bot Auth: the reference implementation's vectors, RFC 9421's
//! Ed25519 example, tampered requests, and signing round trips.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use botwarden_verify::{
    AgentCard, AgentForm, AgentKind, AgentReading, CardKeys, Claim, Classifier,
    DIRECTORY_MEDIA_TYPE, Error, KeyOwner, KeyRing, KeySet, MediaType, PublicKey, RegistryBuilder,
    RequestParts, SignatureCheck, SignatureConfig, SignatureFailure, SignatureVerifier, Signer,
    Verifier, VerifierConfig, parse_agent_registry, verify_message_signature,
};
use serde_json::Value;

const ED25519_THUMBPRINT: &str = "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";
const RSA_THUMBPRINT: &str = "oD0HwocPBSfpNy5W3bpJeyFGY_IQ_YpqxSjQ3Yd-CLA";
const AGENT_DIRECTORY: &str =
    "https://signature-agent.test/.well-known/http-message-signatures-directory";

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/webbotauth")
        .join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn json(name: &str) -> Value {
    serde_json::from_str(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn at(secs: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).unwrap())
}

/// One signed request of the architecture vectors.
struct Vector {
    name: String,
    key: PublicKey,
    url: url::Url,
    created: i64,
    expires: i64,
    label: String,
    signature: String,
    signature_input: String,
    signature_agent: Option<String>,
    agent_member: Option<String>,
}

impl Vector {
    fn request(&self) -> RequestParts<'_> {
        let target = self.url.path();
        let mut req = RequestParts::new("GET", self.url.host_str().unwrap(), target)
            .header("Signature-Input", &self.signature_input)
            .header("Signature", &self.signature);
        if let Some(a) = &self.signature_agent {
            req = req.header("Signature-Agent", a);
        }
        req
    }

    /// The keys as the verifier would have them: the agent's directory, or
    /// a registry entry's keys when the request names no agent.
    fn ring(&self) -> KeyRing {
        let mut ring = KeyRing::new();
        if self.signature_agent.is_some() {
            ring.insert_directory(AGENT_DIRECTORY, KeySet::new(vec![self.key.clone()]));
        } else {
            ring.insert_registry_keys("examplebot", std::slice::from_ref(&self.key));
        }
        ring
    }
}

fn vectors(file: &str) -> Vec<Vector> {
    let all = json(file);
    let list = all.as_array().unwrap();
    assert!(!list.is_empty(), "{file} has vectors");
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
            Vector {
                name: format!("{file}[{i}]"),
                key: PublicKey::from_jwk(&v["key"], "vector key").unwrap(),
                url: url::Url::parse(&s("target_url").unwrap()).unwrap(),
                created: v["created_ms"].as_i64().unwrap() / 1000,
                expires: v["expires_ms"].as_i64().unwrap() / 1000,
                label: s("label").unwrap(),
                signature: s("signature").unwrap(),
                signature_input: s("signature_input").unwrap(),
                signature_agent: s("signature_agent"),
                agent_member: s("signature_agent_key"),
            }
        })
        .collect()
}

fn all_vectors() -> Vec<Vector> {
    let mut v = vectors("web_bot_auth_architecture_v1.json");
    v.extend(vectors("web_bot_auth_architecture_v2.json"));
    v
}

fn failure(check: &SignatureCheck) -> &SignatureFailure {
    match check {
        SignatureCheck::Invalid { failure, .. } => failure,
        other => panic!("expected an invalid signature, got {other:?}"),
    }
}

#[test]
fn test_keys_have_the_thumbprints_the_vectors_use() {
    let ed = PublicKey::from_jwk(&json("ed25519.json"), "ed25519.json").unwrap();
    assert_eq!(ed.thumbprint(), ED25519_THUMBPRINT);
    assert_eq!(ed.kid(), Some("test-key-ed25519"));
    let rsa = PublicKey::from_jwk(&json("rsapss.json"), "rsapss.json").unwrap();
    assert_eq!(rsa.thumbprint(), RSA_THUMBPRINT);
    assert_eq!(rsa.algorithm().as_str(), "rsa-pss-sha512");
    // The PEM private key and the JWK are the same key.
    let from_pem = Signer::from_pkcs8_pem(&read("ed25519.pem"), "ed25519.pem").unwrap();
    assert_eq!(from_pem.keyid(), ED25519_THUMBPRINT);
    let from_jwk = Signer::from_jwk(&read("ed25519.json"), "ed25519.json").unwrap();
    assert_eq!(from_jwk.keyid(), ED25519_THUMBPRINT);
}

#[test]
fn every_architecture_vector_verifies() {
    let vs = all_vectors();
    assert_eq!(vs.len(), 8);
    for v in &vs {
        let verifier = SignatureVerifier::default();
        let check = verifier.check(&v.request(), &v.ring(), at(v.created + 10));
        let SignatureCheck::Valid(ev) = &check else {
            panic!("{}: {check:?}", v.name);
        };
        assert_eq!(ev.label, v.label, "{}", v.name);
        assert_eq!(ev.keyid, v.key.thumbprint(), "{}", v.name);
        assert_eq!(ev.alg, Some(v.key.algorithm().as_str()), "{}", v.name);
        assert_eq!(ev.created, Some(v.created));
        assert_eq!(ev.expires, Some(v.expires));
        match (&v.signature_agent, &ev.agent) {
            (None, None) => {
                assert_eq!(ev.key_owner, Some(KeyOwner::Registry("examplebot".into())));
            }
            (Some(_), Some(agent)) => {
                assert_eq!(agent.uri, "https://signature-agent.test");
                assert_eq!(agent.keys_url, AGENT_DIRECTORY);
                assert!(
                    agent.well_known,
                    "{}: a bare origin maps to the well-known directory",
                    v.name
                );
                assert_eq!(agent.kind, AgentKind::Directory);
                // v1 sends a bare sf-string, v2 a dictionary member named by `;key`.
                match &v.agent_member {
                    Some(m) => {
                        assert_eq!(agent.reading, AgentReading::Dictionary, "{}", v.name);
                        assert_eq!(agent.member.as_deref(), Some(m.as_str()));
                    }
                    None => assert_eq!(agent.reading, AgentReading::String, "{}", v.name),
                }
                assert_eq!(
                    ev.key_owner,
                    Some(KeyOwner::Directory(AGENT_DIRECTORY.into()))
                );
            }
            (sent, read) => panic!("{}: agent sent {sent:?}, read {read:?}", v.name),
        }
    }
}

#[test]
fn verifying_a_vector_needs_its_agents_directory() {
    let v = vectors("web_bot_auth_architecture_v2.json").remove(3);
    let verifier = SignatureVerifier::default();
    let agents = verifier.agents(&v.request()).unwrap();
    assert_eq!(agents.len(), 1);
    assert_eq!(agents[0].keys_url, AGENT_DIRECTORY);

    // Not fetched: unknown, not spoofed.
    let check = verifier.check(&v.request(), &KeyRing::new(), at(v.created));
    let SignatureCheck::Undecided { reason, .. } = &check else {
        panic!("{check:?}");
    };
    assert!(reason.contains("were not fetched"), "{reason}");

    // Unreachable: unknown, with the reason.
    let mut ring = KeyRing::new();
    ring.insert_unreachable(AGENT_DIRECTORY, "connection refused");
    let check = verifier.check(&v.request(), &ring, at(v.created));
    let SignatureCheck::Undecided { reason, .. } = &check else {
        panic!("{check:?}");
    };
    assert!(reason.contains("connection refused"), "{reason}");

    // Fetched later: the same verifier now verifies it.
    ring.insert_directory(AGENT_DIRECTORY, KeySet::new(vec![v.key.clone()]));
    assert!(matches!(
        verifier.check(&v.request(), &ring, at(v.created)),
        SignatureCheck::Valid(_)
    ));
    let stats = verifier.stats();
    assert_eq!((stats.checks, stats.valid, stats.undecided), (3, 1, 2));
}

#[test]
fn expired_and_future_signatures_fail_with_the_times() {
    for v in vectors("web_bot_auth_architecture_v1.json") {
        let verifier = SignatureVerifier::default();
        let late = v.expires + 61;
        let check = verifier.check(&v.request(), &v.ring(), at(late));
        assert_eq!(
            failure(&check),
            &SignatureFailure::Expired {
                expires: v.expires,
                now: late
            },
            "{}",
            v.name
        );
        // Within the clock skew it is still good.
        let check = verifier.check(&v.request(), &v.ring(), at(v.expires + 59));
        assert!(
            matches!(check, SignatureCheck::Valid(_)),
            "{}: {check:?}",
            v.name
        );

        let early = v.created - 120;
        let check = SignatureVerifier::default().check(&v.request(), &v.ring(), at(early));
        assert_eq!(
            failure(&check),
            &SignatureFailure::NotYetValid {
                created: v.created,
                now: early
            }
        );
    }
    // A validity longer than allowed.
    let v = vectors("web_bot_auth_architecture_v2.json").remove(0);
    let strict = SignatureVerifier::new(SignatureConfig {
        max_validity: Some(Duration::from_secs(86_400)),
        ..SignatureConfig::default()
    });
    let check = strict.check(&v.request(), &v.ring(), at(v.created));
    assert!(matches!(
        failure(&check),
        SignatureFailure::BadValidity {
            max: Some(86_400),
            ..
        }
    ));
}

#[test]
fn a_changed_component_breaks_the_signature() {
    for v in all_vectors() {
        // Another authority.
        let mut req = RequestParts::new("GET", "example.org", v.url.path())
            .header("Signature-Input", &v.signature_input)
            .header("Signature", &v.signature);
        if let Some(a) = &v.signature_agent {
            req = req.header("Signature-Agent", a);
        }
        let check = SignatureVerifier::default().check(&req, &v.ring(), at(v.created));
        assert_eq!(
            failure(&check),
            &SignatureFailure::BadSignature,
            "{}",
            v.name
        );

        // Another agent: the member's URL changed, keys of the new place known.
        if let Some(a) = &v.signature_agent {
            let changed = a.replace("signature-agent.test", "other-agent.test");
            let req = RequestParts::new("GET", "example.com", v.url.path())
                .header("Signature-Input", &v.signature_input)
                .header("Signature", &v.signature)
                .header("Signature-Agent", &changed);
            let mut ring = KeyRing::new();
            ring.insert_directory(
                "https://other-agent.test/.well-known/http-message-signatures-directory",
                KeySet::new(vec![v.key.clone()]),
            );
            let check = SignatureVerifier::default().check(&req, &ring, at(v.created));
            assert_eq!(
                failure(&check),
                &SignatureFailure::BadSignature,
                "{}",
                v.name
            );
        }
    }
    // The default port is not part of the authority; another port is.
    let v = vectors("web_bot_auth_architecture_v1.json").remove(2);
    for (authority, ok) in [
        ("example.com:443", true),
        ("EXAMPLE.com", true),
        ("example.com:8443", false),
    ] {
        let req = RequestParts::new("GET", authority, "/")
            .header("Signature-Input", &v.signature_input)
            .header("Signature", &v.signature);
        let check = SignatureVerifier::default().check(&req, &v.ring(), at(v.created));
        assert_eq!(
            matches!(check, SignatureCheck::Valid(_)),
            ok,
            "{authority}: {check:?}"
        );
    }
}

#[test]
fn another_key_fails() {
    let vs = all_vectors();
    // The directory does not hold the key the signature names.
    let v = &vs[7];
    let mut ring = KeyRing::new();
    let other = Signer::generate().unwrap();
    ring.insert_directory(
        AGENT_DIRECTORY,
        KeySet::new(vec![other.public_key().clone()]),
    );
    let check = SignatureVerifier::default().check(&v.request(), &ring, at(v.created));
    assert_eq!(
        failure(&check),
        &SignatureFailure::UnknownKey {
            keyid: ED25519_THUMBPRINT.into(),
            source: format!("the key directory {AGENT_DIRECTORY}"),
            skipped: Vec::new(),
        }
    );
    // The signature bytes of another signature (as if made with another key).
    let v = &vs[6];
    let forged = vs[2].signature.clone();
    let req = RequestParts::new("GET", "example.com", "/")
        .header("Signature-Input", &v.signature_input)
        .header("Signature", &forged);
    let check = SignatureVerifier::default().check(&req, &v.ring(), at(v.created));
    assert_eq!(failure(&check), &SignatureFailure::BadSignature);
    // An RSA key where the signature says ed25519.
    let mut ring = KeyRing::new();
    let rsa = PublicKey::from_jwk(&json("rsapss.json"), "rsapss.json").unwrap();
    let input = vs[0].signature_input.replace("rsa-pss-sha512", "ed25519");
    let req = RequestParts::new("GET", "example.com", "/")
        .header("Signature-Input", &input)
        .header("Signature", &vs[0].signature);
    ring.insert_registry_keys("examplebot", &[rsa]);
    let check = SignatureVerifier::default().check(&req, &ring, at(vs[0].created));
    assert!(
        matches!(failure(&check), SignatureFailure::AlgorithmMismatch { .. }),
        "{check:?}"
    );
}

#[test]
fn a_signature_without_the_web_bot_auth_tag_fails() {
    for v in all_vectors() {
        let input = v
            .signature_input
            .replace("tag=\"web-bot-auth\"", "tag=\"other\"");
        let mut req = RequestParts::new("GET", "example.com", "/")
            .header("Signature-Input", &input)
            .header("Signature", &v.signature);
        if let Some(a) = &v.signature_agent {
            req = req.header("Signature-Agent", a);
        }
        let check = SignatureVerifier::default().check(&req, &v.ring(), at(v.created));
        assert_eq!(
            failure(&check),
            &SignatureFailure::WrongTag {
                found: vec!["other".into()]
            }
        );
    }
}

#[test]
fn a_replayed_nonce_fails_within_the_validity() {
    let v = vectors("web_bot_auth_architecture_v1.json").remove(2);
    let verifier = SignatureVerifier::default();
    let first = verifier.check(&v.request(), &v.ring(), at(v.created + 1));
    assert!(matches!(first, SignatureCheck::Valid(_)), "{first:?}");
    let again = verifier.check(&v.request(), &v.ring(), at(v.created + 2));
    let nonce = v
        .signature_input
        .split("nonce=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(
        failure(&again),
        &SignatureFailure::Replayed {
            nonce: nonce.to_owned()
        }
    );
    // A forged signature with that nonce does not use it up.
    let other = SignatureVerifier::default();
    let forged = RequestParts::new("GET", "example.org", "/")
        .header("Signature-Input", &v.signature_input)
        .header("Signature", &v.signature);
    assert_eq!(
        failure(&other.check(&forged, &v.ring(), at(v.created))),
        &SignatureFailure::BadSignature
    );
    assert!(matches!(
        other.check(&v.request(), &v.ring(), at(v.created)),
        SignatureCheck::Valid(_)
    ));
}

#[test]
fn nonces_are_forgotten_when_the_cache_is_full_and_counted() {
    let signer = Signer::generate().unwrap();
    let mut ring = KeyRing::new();
    ring.insert_registry_keys("examplebot", std::slice::from_ref(signer.public_key()));
    let verifier = SignatureVerifier::new(SignatureConfig {
        max_nonces: 4,
        ..SignatureConfig::default()
    });
    let now = at(1_800_000_000);
    for _ in 0..10 {
        let req = RequestParts::new("GET", "example.com", "/");
        let h = signer.sign(&req, now).unwrap();
        let req = req
            .header("Signature-Input", &h.signature_input)
            .header("Signature", &h.signature);
        assert!(matches!(
            verifier.check(&req, &ring, now),
            SignatureCheck::Valid(_)
        ));
    }
    assert!(verifier.stats().nonces_evicted > 0);
}

#[test]
fn malformed_fields_are_named() {
    let v = vectors("web_bot_auth_architecture_v1.json").remove(2);
    let cases: [(&[(&str, &str)], &str); 5] = [
        (&[("Signature-Input", &v.signature_input)], "missing_field"),
        (
            &[
                ("Signature-Input", "sig1=not-a-list"),
                ("Signature", &v.signature),
            ],
            "malformed",
        ),
        (
            &[
                ("Signature-Input", &v.signature_input),
                ("Signature", "sig2=:AAAA:"),
            ],
            "no_signature",
        ),
        (
            &[
                (
                    "Signature-Input",
                    &v.signature_input.replace("created=1735689600;", ""),
                ),
                ("Signature", &v.signature),
            ],
            "missing_parameter",
        ),
        (
            &[
                ("Signature-Input", &v.signature_input),
                ("Signature", &v.signature),
                ("Signature-Agent", "\"https://signature-agent.test\""),
            ],
            "not_covered",
        ),
    ];
    for (headers, code) in cases {
        let mut req = RequestParts::new("GET", "example.com", "/");
        for (n, val) in headers {
            req = req.header(n, val);
        }
        let check = SignatureVerifier::default().check(&req, &v.ring(), at(v.created));
        assert_eq!(failure(&check).code(), code, "{headers:?}: {check:?}");
        assert!(!failure(&check).to_string().is_empty());
    }
    let unsigned = RequestParts::new("GET", "example.com", "/");
    assert_eq!(
        SignatureVerifier::default().check(&unsigned, &v.ring(), at(0)),
        SignatureCheck::Unsigned
    );
}

/// RFC 9421 B.2.6: the test request signed with Ed25519 (the same key as
/// the vectors' `ed25519.json`).
#[test]
fn rfc9421_ed25519_example_verifies() {
    let key = PublicKey::from_jwk(&json("ed25519.json"), "ed25519.json").unwrap();
    let input = r#"sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519""#;
    let sig = "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:";
    let request = |method| {
        RequestParts::new(method, "example.com", "/foo?param=Value&Pet=dog")
            .header("Host", "example.com")
            .header("Date", "Tue, 20 Apr 2021 02:07:55 GMT")
            .header("Content-Type", "application/json")
            .header(
                "Content-Digest",
                "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:",
            )
            .header("Content-Length", "18")
            .header("Signature-Input", input)
            .header("Signature", sig)
    };
    verify_message_signature(&request("POST"), "sig-b26", &key).unwrap();
    assert_eq!(
        verify_message_signature(&request("PUT"), "sig-b26", &key),
        Err(SignatureFailure::BadSignature)
    );
    // Not a Web Bot Auth signature: no tag.
    let mut ring = KeyRing::new();
    ring.insert_registry_keys("examplebot", &[key]);
    let check = SignatureVerifier::default().check(&request("POST"), &ring, at(1_618_884_473));
    assert_eq!(failure(&check).code(), "wrong_tag");
}

#[test]
fn signature_agent_vectors_name_their_agents() {
    let cases = json("web_bot_auth_signature_agent_v1.json");
    let verifier = SignatureVerifier::default();
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let header = case["header"].as_str().unwrap();
        let entries = case["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 1, "{name}");
        let e = &entries[0];
        let label = e["label"].as_str().unwrap();
        let input = format!(
            r#"{label}=("@authority" "signature-agent");created=1;expires=2;keyid="k";tag="web-bot-auth""#
        );
        let sig = format!("{label}=:AAAA:");
        let req = RequestParts::new("GET", "example.com", "/")
            .header("Signature-Input", &input)
            .header("Signature", &sig)
            .header("Signature-Agent", header);
        let agents = verifier
            .agents(&req)
            .unwrap_or_else(|f| panic!("{name}: {f}"));
        assert_eq!(agents.len(), 1, "{name}");
        let a = &agents[0];
        assert_eq!(a.uri, e["uri"].as_str().unwrap(), "{name}");
        assert_eq!(a.kind.as_str(), e["type"].as_str().unwrap(), "{name}");
        assert_eq!(a.reading, AgentReading::Dictionary, "{name}");
        assert_eq!(a.member.as_deref(), Some(label));
        // Only a bare origin maps to the well-known directory.
        assert_eq!(a.well_known, name == "directory-default", "{name}");
    }
}

#[test]
fn deployed_agent_forms_are_read_and_recorded() {
    let verifier = SignatureVerifier::default();
    let input =
        r#"sig1=("@authority" "signature-agent");created=1;expires=2;keyid="k";tag="web-bot-auth""#;
    for (header, reading, keys_url) in [
        (
            "\"https://chatgpt.com\"",
            AgentReading::String,
            "https://chatgpt.com/.well-known/http-message-signatures-directory",
        ),
        (
            "https://chatgpt.com",
            AgentReading::Unquoted,
            "https://chatgpt.com/.well-known/http-message-signatures-directory",
        ),
        (
            "\"https://chatgpt.com/\"",
            AgentReading::String,
            "https://chatgpt.com/.well-known/http-message-signatures-directory",
        ),
    ] {
        let req = RequestParts::new("GET", "example.com", "/")
            .header("Signature-Input", input)
            .header("Signature", "sig1=:AAAA:")
            .header("Signature-Agent", header);
        let agents = verifier.agents(&req).unwrap();
        assert_eq!(agents[0].reading, reading, "{header}");
        assert_eq!(agents[0].keys_url, keys_url, "{header}");
        assert_eq!(agents[0].ignored, None, "{header}");
    }
    // A directory agent is an origin: one with a path (or query) is
    // ignored, in every form, and nothing is fetched for it.
    for header in [
        "\"https://agent.example/keys/directory.json\"",
        "sig1=\"https://agent.example/keys/directory.json\"",
        "sig1=\"https://agent.example/keys/directory.json\";type=directory",
        "sig1=\"https://agent.example/?k=1\"",
    ] {
        let req = RequestParts::new("GET", "example.com", "/")
            .header("Signature-Input", input)
            .header("Signature", "sig1=:AAAA:")
            .header("Signature-Agent", header);
        assert_eq!(verifier.agents(&req).unwrap(), Vec::new(), "{header}");
    }
    let bad = RequestParts::new("GET", "example.com", "/")
        .header("Signature-Input", input)
        .header("Signature", "sig1=:AAAA:")
        .header(
            "Signature-Agent",
            "a=\"https://x.example\", b=\"https://y.example\"",
        );
    let err = verifier.agents(&bad).unwrap_err();
    assert_eq!(err.code(), "malformed");
    assert!(err.to_string().contains("none named sig1"), "{err}");
}

#[test]
fn agent_card_vectors() {
    let cases = json("web_bot_auth_signature_agent_card_v1.json");
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let url = case["url"].as_str().unwrap();
        let body = serde_json::to_vec(&case["card"]).unwrap();
        let parsed = AgentCard::parse(&body, url);
        if case["valid"].as_bool().unwrap() {
            let card = parsed.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(card.client_id, url);
            match (&card.keys, name) {
                (CardKeys::Uri(u), "jwks-uri-card") => {
                    assert_eq!(
                        u,
                        "https://example.com/.well-known/http-message-signatures-directory"
                    );
                }
                (CardKeys::Inline(set), "jwks-card") => {
                    assert_eq!(set.keys().len(), 1);
                    assert_eq!(set.keys()[0].thumbprint(), ED25519_THUMBPRINT);
                }
                (keys, _) => panic!("{name}: {keys:?}"),
            }
        } else {
            let err = parsed
                .err()
                .unwrap_or_else(|| panic!("{name} must be refused"))
                .to_string();
            let expected = case["error"].as_str().unwrap();
            let word = if expected.contains("client_id") {
                "client_id"
            } else {
                "both"
            };
            assert!(err.contains(word) && err.contains(url), "{name}: {err}");
        }
    }
}

#[test]
fn agent_registry_vectors() {
    let cases = json("web_bot_auth_registry_v1.json");
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let urls = parse_agent_registry(case["registry_txt"].as_str().unwrap(), name).unwrap();
        let expected: Vec<&str> = case["signature_agent_cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(urls, expected, "{name}");
    }
    let err =
        parse_agent_registry("https://ok.example/card\nnot a url\n", "registry.txt").unwrap_err();
    assert_eq!(
        err.to_string(),
        "key directory registry.txt: line 2: `not a url` is not an http(s) URL"
    );
}

#[test]
fn directories_are_checked_for_their_media_type() {
    let ed = json("ed25519.json");
    let body = serde_json::to_vec(&serde_json::json!({
        "keys": [ed, {"kty": "EC", "crv": "P-256", "x": "a", "y": "b"}]
    }))
    .unwrap();
    let url = AGENT_DIRECTORY;
    for (ct, media) in [
        (Some(DIRECTORY_MEDIA_TYPE), MediaType::Directory),
        (
            Some("application/jwk-set+json; charset=utf-8"),
            MediaType::JwkSet,
        ),
        (Some("application/json"), MediaType::Json),
        (None, MediaType::None),
    ] {
        let set = KeySet::from_directory(&body, ct, url).unwrap();
        assert_eq!(set.media_type(), Some(media));
        assert_eq!(set.keys().len(), 1);
        assert!(set.get(ED25519_THUMBPRINT).is_some());
        // The EC key is left out, and said so.
        assert_eq!(set.skipped().len(), 1);
        assert!(
            set.skipped()[0].contains("keys[1]") && set.skipped()[0].contains("EC"),
            "{:?}",
            set.skipped()
        );
    }
    // A signature by a key the directory lacks names the keys left out.
    let signer = Signer::generate()
        .unwrap()
        .agent("https://signature-agent.test", AgentForm::Dictionary)
        .unwrap();
    let now = at(1_800_000_000);
    let h = signer
        .sign(&RequestParts::new("GET", "example.com", "/"), now)
        .unwrap();
    let req = RequestParts::new("GET", "example.com", "/")
        .header("Signature-Input", &h.signature_input)
        .header("Signature", &h.signature)
        .header("Signature-Agent", h.signature_agent.as_deref().unwrap());
    let mut ring = KeyRing::new();
    ring.insert_directory(url, KeySet::from_directory(&body, None, url).unwrap());
    let check = SignatureVerifier::default().check(&req, &ring, now);
    let f = failure(&check).to_string();
    assert!(
        f.starts_with(&format!(
            "no key {} in the key directory {url}; left out of it: ",
            signer.keyid()
        )) && f.contains("keys[1]")
            && f.contains("EC"),
        "{f}"
    );
    let err = KeySet::from_directory(b"<html></html>", Some("text/html"), url).unwrap_err();
    assert!(matches!(&err, Error::KeyDirectory { .. }));
    assert!(err.to_string().contains("served as `text/html`"), "{err}");
    let err =
        KeySet::from_directory(b"{\"nokeys\": 1}", Some(DIRECTORY_MEDIA_TYPE), url).unwrap_err();
    assert!(err.to_string().contains("not a JWK Set"), "{err}");
    let err = KeySet::from_directory(b"{", Some(DIRECTORY_MEDIA_TYPE), url).unwrap_err();
    assert!(err.to_string().contains("not JSON"), "{err}");
}

#[test]
fn sign_then_verify_in_both_agent_forms() {
    for form in [AgentForm::Dictionary, AgentForm::String] {
        let signer = Signer::generate()
            .unwrap()
            .agent("https://crawler.example", form)
            .unwrap()
            .cover("@method")
            .cover("@path");
        let now = at(1_800_000_000);
        let req = RequestParts::new("GET", "site.example", "/a/b?c=d");
        let h = signer.sign(&req, now).unwrap();
        assert!(h.signature_input.contains("tag=\"web-bot-auth\""));
        assert!(
            h.signature_input
                .contains(&format!("keyid=\"{}\"", signer.keyid()))
        );
        let agent = h.signature_agent.clone().unwrap();
        let signed = |method| {
            RequestParts::new(method, "site.example", "/a/b?c=d")
                .header("Signature-Input", &h.signature_input)
                .header("Signature", &h.signature)
                .header("Signature-Agent", &agent)
        };
        // The published directory is what the verifier reads.
        let directory = KeySet::from_directory(
            signer.directory_json().as_bytes(),
            Some(DIRECTORY_MEDIA_TYPE),
            "dir",
        )
        .unwrap();
        let mut ring = KeyRing::new();
        ring.insert_directory(
            "https://crawler.example/.well-known/http-message-signatures-directory",
            directory,
        );
        let verifier = SignatureVerifier::default();
        let check = verifier.check(&signed("GET"), &ring, now + Duration::from_secs(5));
        let SignatureCheck::Valid(ev) = &check else {
            panic!("{form:?}: {check:?}");
        };
        let reading = match form {
            AgentForm::Dictionary => AgentReading::Dictionary,
            AgentForm::String => AgentReading::String,
        };
        assert_eq!(ev.agent.as_ref().unwrap().reading, reading);
        assert_eq!(ev.expires, Some(1_800_000_060));
        // A covered component changed.
        let check = verifier.check(&signed("POST"), &ring, now);
        assert_eq!(failure(&check), &SignatureFailure::BadSignature, "{form:?}");
        // Past its 60 s.
        let check = SignatureVerifier::default().check(
            &signed("GET"),
            &ring,
            now + Duration::from_secs(121),
        );
        assert_eq!(failure(&check).code(), "expired");
    }
}

#[test]
fn keys_written_by_a_signer_read_back() {
    let signer = Signer::generate().unwrap();
    let from_jwk = Signer::from_jwk(&signer.private_jwk(), "key.jwk").unwrap();
    let from_pem = Signer::from_pkcs8_pem(&signer.private_pem(), "key.pem").unwrap();
    assert_eq!(from_jwk.keyid(), signer.keyid());
    assert_eq!(from_pem.keyid(), signer.keyid());
    // A JWK whose x is not d's public key is refused.
    let mut jwk: Value = serde_json::from_str(&signer.private_jwk()).unwrap();
    jwk["x"] = json("ed25519.json")["x"].clone();
    let err = Signer::from_jwk(&jwk.to_string(), "key.jwk").unwrap_err();
    assert_eq!(
        err.to_string(),
        "key key.jwk: `x` is not the public key of `d`"
    );
    let err = Signer::from_pkcs8_pem(&read("rsapss.pem"), "rsapss.pem").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("key rsapss.pem: not an Ed25519 PKCS#8 key"),
        "{err}"
    );
    let err = Signer::generate()
        .unwrap()
        .agent("ftp://x", AgentForm::String)
        .unwrap_err();
    assert!(err.to_string().contains("not an http(s) URL"), "{err}");
}

const REGISTRY: &str = "\
bots:
  - name: ExampleBot
    signature_agents: [\"https://signature-agent.test\"]
  - name: KeyBot
    signature_keys: [\"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs\"]
  - name: Googlebot
    cidr_list: [\"66.249.64.0/19\"]
";

fn signing_verifier() -> Verifier {
    let mut b = RegistryBuilder::new();
    b.add_registry("signers.yaml", REGISTRY);
    let (registry, problems) = b.build();
    assert!(problems.is_empty(), "{problems:?}");
    Verifier::new(Arc::new(registry.unwrap()), VerifierConfig::offline()).unwrap()
}

fn bot(name: &str) -> Claim {
    Claim::Bot {
        name: name.to_owned(),
        category: None,
    }
}

#[test]
fn registry_signature_fields_are_read_and_checked() {
    let v = signing_verifier();
    let example = v
        .registry()
        .bots()
        .iter()
        .find(|b| b.name == "ExampleBot")
        .unwrap();
    assert_eq!(example.signature_agents, ["https://signature-agent.test"]);
    assert_eq!(v.signature_agent_urls(), [AGENT_DIRECTORY]);
    assert_eq!(
        v.bot_of_agent(AGENT_DIRECTORY).map(|b| b.name.as_str()),
        Some("ExampleBot")
    );
    let ring = KeyRing::from_registry(v.registry());
    assert_eq!(ring.by_keyid(ED25519_THUMBPRINT).count(), 1);

    let mut b = RegistryBuilder::new();
    b.add_registry(
        "bad.yaml",
        "bots:\n  - name: Bad\n    signature_agents: [\"ftp://x.example\", \"https://x.example/?q\"]\n    signature_keys: [\"AAAA\"]\n",
    );
    let (registry, problems) = b.build();
    assert!(registry.is_none());
    let messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert!(
        messages[0].contains("bots[0].signature_agents[0]")
            && messages[0].contains("not an http(s) URL"),
        "{messages:#?}"
    );
    assert!(
        messages[1].contains("bots[0].signature_agents[1]") && messages[1].contains("query"),
        "{messages:#?}"
    );
    assert!(
        messages[2].contains("bots[0].signature_keys[0]") && messages[2].contains("3 bytes"),
        "{messages:#?}"
    );
}

#[test]
fn a_signature_gives_the_verdict() {
    let v = signing_verifier();
    let vector = vectors("web_bot_auth_architecture_v2.json").remove(3);
    let mut ring = KeyRing::from_registry(v.registry());
    ring.insert_directory(AGENT_DIRECTORY, KeySet::new(vec![vector.key.clone()]));
    let check = SignatureVerifier::default().check(&vector.request(), &ring, at(vector.created));
    assert!(matches!(check, SignatureCheck::Valid(_)), "{check:?}");

    let verdict = v.signature_verdict(&bot("ExampleBot"), &check).unwrap();
    assert_eq!(verdict.to_string(), "verified ExampleBot by web_bot_auth");
    let ev = verdict.evidence().unwrap().signature.as_ref().unwrap();
    assert_eq!(ev.agent.as_ref().unwrap().reading, AgentReading::Dictionary);
    let json = serde_json::to_value(verdict.evidence().unwrap()).unwrap();
    assert_eq!(json["signature"]["agent"]["reading"], "dictionary");
    assert_eq!(json["signature"]["key_owner"]["name"], AGENT_DIRECTORY);

    // Without a bot in the User-Agent, the signature names it.
    assert_eq!(
        v.signature_verdict(&Claim::NotABot, &check)
            .unwrap()
            .to_string(),
        "verified ExampleBot by web_bot_auth"
    );
    // Claiming another bot with ExampleBot's key.
    assert_eq!(
        v.signature_verdict(&bot("KeyBot"), &check)
            .unwrap()
            .to_string(),
        "spoofed KeyBot: signed with a key of ExampleBot, not of KeyBot"
    );
    // A bot with no signature methods: the address decides.
    let mut other_ring = KeyRing::new();
    other_ring.insert_directory(
        "https://elsewhere.example/.well-known/http-message-signatures-directory",
        KeySet::new(vec![vector.key.clone()]),
    );
    let req = RequestParts::new("GET", "example.com", "/")
        .header("Signature-Input", &vector.signature_input)
        .header("Signature", &vector.signature)
        .header("Signature-Agent", "agent2=\"https://elsewhere.example\"");
    let elsewhere = SignatureVerifier::default().check(&req, &other_ring, at(vector.created));
    // (The agent changed, so that signature is broken; sign a fresh one.)
    assert_eq!(failure(&elsewhere), &SignatureFailure::BadSignature);
    let signer = Signer::from_jwk(&read("ed25519.json"), "ed25519.json")
        .unwrap()
        .agent("https://elsewhere.example", AgentForm::Dictionary)
        .unwrap();
    let now = at(1_800_000_000);
    let h = signer
        .sign(&RequestParts::new("GET", "example.com", "/"), now)
        .unwrap();
    let req = RequestParts::new("GET", "example.com", "/")
        .header("Signature-Input", &h.signature_input)
        .header("Signature", &h.signature)
        .header("Signature-Agent", h.signature_agent.as_deref().unwrap());
    let unregistered = SignatureVerifier::default().check(&req, &other_ring, now);
    assert!(
        matches!(unregistered, SignatureCheck::Valid(_)),
        "{unregistered:?}"
    );
    assert_eq!(v.signature_verdict(&bot("Googlebot"), &unregistered), None);
    assert_eq!(
        v.signature_verdict(&bot("ExampleBot"), &unregistered)
            .unwrap()
            .to_string(),
        "spoofed ExampleBot: signed by https://elsewhere.example, which is not one of ExampleBot's signature agents"
    );
    assert_eq!(
        v.signature_verdict(&Claim::NotABot, &unregistered)
            .unwrap()
            .kind(),
        "unverifiable"
    );

    // Keys listed in the registry verify without a directory.
    let vector = vectors("web_bot_auth_architecture_v1.json").remove(2);
    let check = SignatureVerifier::default().check(&vector.request(), &ring, at(vector.created));
    assert_eq!(
        v.signature_verdict(&bot("KeyBot"), &check)
            .unwrap()
            .to_string(),
        "verified KeyBot by web_bot_auth"
    );
    // Expired: spoofed, with the reason.
    let check =
        SignatureVerifier::default().check(&vector.request(), &ring, at(vector.expires + 3600));
    let verdict = v.signature_verdict(&bot("KeyBot"), &check).unwrap();
    assert_eq!(verdict.kind(), "spoofed");
    assert!(
        verdict
            .reason()
            .unwrap()
            .starts_with("Web Bot Auth signature: the signature expired at 1735693200"),
        "{verdict}"
    );
    // Directory unreachable: unknown.
    let vector = vectors("web_bot_auth_architecture_v2.json").remove(3);
    let mut ring = KeyRing::new();
    ring.insert_unreachable(AGENT_DIRECTORY, "HTTP 503");
    let check = SignatureVerifier::default().check(&vector.request(), &ring, at(vector.created));
    let verdict = v.signature_verdict(&bot("ExampleBot"), &check).unwrap();
    assert_eq!(verdict.kind(), "unknown");
    assert!(verdict.reason().unwrap().contains("HTTP 503"), "{verdict}");
    assert_eq!(
        v.signature_verdict(&bot("ExampleBot"), &SignatureCheck::Unsigned),
        None
    );
}

#[tokio::test]
async fn unsigned_requests_fall_back_to_the_address() {
    let v = signing_verifier();
    let classifier = Classifier::for_registry(v.registry()).unwrap();
    let ip = "66.249.66.1".parse().unwrap();
    let verdict = v
        .check_signed_request(
            &classifier,
            ip,
            None,
            Some("Googlebot"),
            &SignatureCheck::Unsigned,
        )
        .await;
    assert_eq!(verdict.to_string(), "verified Googlebot by cidr_list");
    let verdict = v
        .check_signed_request(
            &classifier,
            ip,
            None,
            Some("ExampleBot"),
            &SignatureCheck::Invalid {
                failure: SignatureFailure::BadSignature,
                evidence: None,
            },
        )
        .await;
    assert_eq!(verdict.kind(), "spoofed");
}

#[test]
fn small_order_keys_are_refused() {
    // The identity point: every signature with R = identity, S = 0 would match.
    let identity = "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let err = botwarden_verify::ed25519_key(identity).unwrap_err();
    assert!(err.contains("small order"), "{err}");
    let jwk = serde_json::json!({"kty": "OKP", "crv": "Ed25519", "x": identity});
    let err = PublicKey::from_jwk(&jwk, "keys[0]")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("key keys[0]: `x` is a point of small order"),
        "{err}"
    );
}

/// A directory response signature as directories signed before the
/// protocol draft's -01 (and Cloudflare's documented example) make it:
/// `("@authority";req)` only, no `content-digest`.
fn authority_only_directory_signature(
    signer: &Signer,
    authority: &str,
    created: i64,
) -> botwarden_verify::SignatureHeaders {
    use base64::Engine as _;
    let jwk: Value = serde_json::from_str(&signer.private_jwk()).unwrap();
    let seed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(jwk["d"].as_str().unwrap())
        .unwrap();
    let pair = ring::signature::Ed25519KeyPair::from_seed_unchecked(&seed).unwrap();
    let params = format!(
        "(\"@authority\";req);created={created};expires={};keyid=\"{}\";tag=\"http-message-signatures-directory\"",
        created + 60,
        signer.keyid()
    );
    let base = format!("\"@authority\";req: {authority}\n\"@signature-params\": {params}");
    let sig = pair.sign(base.as_bytes());
    botwarden_verify::SignatureHeaders {
        signature_input: format!("binding={params}"),
        signature: format!(
            "binding=:{}:",
            base64::engine::general_purpose::STANDARD.encode(sig.as_ref())
        ),
        signature_agent: None,
        content_digest: None,
    }
}

#[test]
fn a_signed_directory_response_verifies_and_tampering_is_named() {
    use botwarden_verify::{DirectoryResponse, DirectorySignature, check_directory_response};
    let signer = Signer::generate().unwrap();
    let now = at(1_800_000_000);
    let url = "https://agent.example/.well-known/http-message-signatures-directory";
    let body = signer.directory_json();
    let keys = KeySet::from_directory(body.as_bytes(), Some(DIRECTORY_MEDIA_TYPE), url).unwrap();
    let h = signer
        .sign_directory_response(url, body.as_bytes(), now)
        .unwrap();
    assert!(
        h.signature_input
            .contains("(\"@authority\";req \"content-digest\");alg=\"ed25519\"")
    );
    assert!(
        h.signature_input
            .contains("tag=\"http-message-signatures-directory\"")
    );
    let digest = h.content_digest.clone().unwrap();
    assert_eq!(digest, botwarden_verify::content_digest(body.as_bytes()));
    let headers = [
        ("Content-Type", DIRECTORY_MEDIA_TYPE),
        ("Content-Digest", digest.as_str()),
        ("Signature-Input", h.signature_input.as_str()),
        ("Signature", h.signature.as_str()),
    ];
    let skew = Duration::from_secs(60);
    let check = |keys: &KeySet, url: &str, headers: &[(&str, &str)], body: &str, now| {
        let response = DirectoryResponse {
            url,
            status: 200,
            headers,
            body: body.as_bytes(),
        };
        check_directory_response(keys, &response, now, skew)
    };
    assert_eq!(
        check(&keys, url, &headers, &body, now).unwrap(),
        DirectorySignature::Valid {
            keyids: vec![signer.keyid().to_owned()]
        }
    );
    // The default port is not part of the authority.
    let with_port = "https://agent.example:443/.well-known/http-message-signatures-directory";
    assert!(check(&keys, with_port, &headers, &body, now).is_ok());
    // Served for another authority: the signature does not match.
    let elsewhere = "https://mirror.example/.well-known/http-message-signatures-directory";
    assert_eq!(
        check(&keys, elsewhere, &headers, &body, now).unwrap_err(),
        SignatureFailure::BadSignature
    );
    // The signature and digest replayed over another key set that still
    // holds the signer's key: the digest does not match the body.
    let intruder = Signer::generate().unwrap();
    let swapped = format!(
        "{{\"keys\":[{},{}]}}",
        signer.public_key().to_jwk(),
        intruder.public_key().to_jwk()
    );
    let swapped_keys =
        KeySet::from_directory(swapped.as_bytes(), Some(DIRECTORY_MEDIA_TYPE), url).unwrap();
    let err = check(&swapped_keys, url, &headers, &swapped, now).unwrap_err();
    assert_eq!(err.code(), "content_digest", "{err}");
    // … and with the digest recomputed, the signature no longer matches.
    let recomputed = botwarden_verify::content_digest(swapped.as_bytes());
    let mut fresh = headers;
    fresh[1].1 = &recomputed;
    assert_eq!(
        check(&swapped_keys, url, &fresh, &swapped, now).unwrap_err(),
        SignatureFailure::BadSignature
    );
    // A signature that does not cover the digest (signed before the
    // draft's -01) proves the authority, not the keys: unbound.
    let old_style = authority_only_directory_signature(&signer, "agent.example", 1_800_000_000);
    let unbound = [
        headers[0],
        ("Signature-Input", old_style.signature_input.as_str()),
        ("Signature", old_style.signature.as_str()),
    ];
    assert_eq!(
        check(&keys, url, &unbound, &body, now).unwrap(),
        DirectorySignature::Unbound {
            keyids: vec![signer.keyid().to_owned()]
        }
    );
    // Its digest field changed without a new signature: the body no longer
    // matches (a replay over a swapped set fails the same way).
    let tampered = [headers[0], headers[1], headers[2], headers[3]];
    assert!(check(&swapped_keys, url, &tampered, &swapped, now).is_err());
    // Signed with a key the directory does not hold.
    let other = Signer::generate().unwrap();
    let h2 = other
        .sign_directory_response(url, body.as_bytes(), now)
        .unwrap();
    let foreign = [
        ("Content-Digest", digest.as_str()),
        ("Signature-Input", h2.signature_input.as_str()),
        ("Signature", h2.signature.as_str()),
    ];
    let err = check(&keys, url, &foreign, &body, now).unwrap_err();
    assert_eq!(err.code(), "unknown_key", "{err}");
    // Expired.
    let later = now + Duration::from_secs(3600);
    let err = check(&keys, url, &headers, &body, later).unwrap_err();
    assert_eq!(err.code(), "expired", "{err}");
    // No signature: unsigned, which is not a failure; a digest that does
    // not match the body is one, signed or not.
    assert_eq!(
        check(&keys, url, &headers[..2], &body, now).unwrap(),
        DirectorySignature::Unsigned
    );
    assert_eq!(
        check(&keys, url, &headers[..1], &body, now).unwrap(),
        DirectorySignature::Unsigned
    );
    let err = check(&swapped_keys, url, &headers[..2], &swapped, now).unwrap_err();
    assert_eq!(err.code(), "content_digest", "{err}");
    // `req` in a request's own signature is refused, not ignored.
    let req = RequestParts::new("GET", "agent.example", "/")
        .header("Signature-Input", &h.signature_input)
        .header("Signature", &h.signature);
    let err =
        botwarden_verify::verify_message_signature(&req, "sig1", signer.public_key()).unwrap_err();
    assert_eq!(err.code(), "unsupported_component", "{err}");
}

/// A signer's directory in a ring, at `origin`'s well-known URL.
fn ring_of(signer: &Signer, origin: &str) -> KeyRing {
    let directory = KeySet::from_directory(
        signer.directory_json().as_bytes(),
        Some(DIRECTORY_MEDIA_TYPE),
        "dir",
    )
    .unwrap();
    let mut ring = KeyRing::new();
    ring.insert_directory(
        &format!("{origin}/.well-known/http-message-signatures-directory"),
        directory,
    );
    ring
}

#[test]
fn target_uri_stands_for_the_authority() {
    let signer = Signer::generate()
        .unwrap()
        .agent("https://crawler.example", AgentForm::Dictionary)
        .unwrap()
        .target_uri();
    let now = at(1_800_000_000);
    let req = RequestParts::new("GET", "site.example", "/a?b").scheme("https");
    let h = signer.sign(&req, now).unwrap();
    assert!(
        h.signature_input.starts_with("sig1=(\"@target-uri\" "),
        "{}",
        h.signature_input
    );
    let signed = |authority| {
        RequestParts::new("GET", authority, "/a?b")
            .scheme("https")
            .header("Signature-Input", &h.signature_input)
            .header("Signature", &h.signature)
            .header("Signature-Agent", h.signature_agent.as_deref().unwrap())
    };
    let ring = ring_of(&signer, "https://crawler.example");
    let check = SignatureVerifier::default().check(&signed("site.example"), &ring, now);
    assert!(matches!(check, SignatureCheck::Valid(_)), "{check:?}");
    // The target URI holds the authority: another host breaks it.
    let check = SignatureVerifier::default().check(&signed("other.example"), &ring, now);
    assert_eq!(failure(&check), &SignatureFailure::BadSignature);
    // Neither covered: refused, naming both.
    let bare = h.signature_input.replace("(\"@target-uri\" ", "(");
    let req = signed("site.example");
    let mut uncovered = RequestParts::new("GET", "site.example", "/a?b").scheme("https");
    for (n, v) in req.headers() {
        let v = if *n == "Signature-Input" {
            bare.as_str()
        } else {
            v
        };
        uncovered.push_header(n, v);
    }
    let check = SignatureVerifier::default().check(&uncovered, &ring, now);
    assert_eq!(
        failure(&check),
        &SignatureFailure::NotCovered {
            component: "@authority (or @target-uri)"
        }
    );
}

#[test]
fn a_label_given_twice_is_refused_whichever_comes_last() {
    let signer = Signer::generate()
        .unwrap()
        .agent("https://crawler.example", AgentForm::Dictionary)
        .unwrap();
    let now = at(1_800_000_000);
    let req = RequestParts::new("GET", "site.example", "/");
    let h = signer.sign(&req, now).unwrap();
    let ring = ring_of(&signer, "https://crawler.example");
    let check_with = |input: &str, signature: &str, agent: &str| {
        let req = RequestParts::new("GET", "site.example", "/")
            .header("Signature-Input", input)
            .header("Signature", signature)
            .header("Signature-Agent", agent);
        SignatureVerifier::default().check(&req, &ring, now)
    };
    let agent = h.signature_agent.clone().unwrap();
    assert!(matches!(
        check_with(&h.signature_input, &h.signature, &agent),
        SignatureCheck::Valid(_)
    ));
    // The valid signature last, after a bogus one of the same label: a
    // reader keeping the last member would accept it.
    let twice = format!("sig1=:AAAA:, {}", h.signature);
    let check = check_with(&h.signature_input, &twice, &agent);
    let f = failure(&check);
    assert_eq!(f.code(), "malformed", "{f}");
    assert!(
        f.to_string()
            .contains("member sig1 is given more than once"),
        "{f}"
    );
    // The same in Signature-Input, and across two field lines.
    let twice = format!("sig1=(\"@method\");created=1, {}", h.signature_input);
    assert_eq!(
        failure(&check_with(&twice, &h.signature, &agent)).code(),
        "malformed"
    );
    let req = RequestParts::new("GET", "site.example", "/")
        .header("Signature-Input", &h.signature_input)
        .header("Signature", "sig1=:AAAA:")
        .header("Signature", &h.signature)
        .header("Signature-Agent", &agent);
    let check = SignatureVerifier::default().check(&req, &ring, now);
    assert_eq!(failure(&check).code(), "malformed");
    // And in Signature-Agent: which agent is meant is ambiguous.
    let two_agents = format!("sig1=\"https://evil.example\", {agent}");
    let check = check_with(&h.signature_input, &h.signature, &two_agents);
    assert_eq!(failure(&check).code(), "malformed", "{check:?}");
}

#[test]
fn an_ignored_agent_member_leaves_the_request_unknown() {
    let v = signing_verifier();
    let signer = Signer::from_jwk(&read("ed25519.json"), "ed25519.json")
        .unwrap()
        .cover("signature-agent");
    let now = at(1_800_000_000);
    for (agent, why) in [
        (
            "sig1=\"https://signature-agent.test\";type=frobnicate",
            "type `frobnicate` is not one of directory, jwks_uri, cimd",
        ),
        (
            "sig1=\"https://signature-agent.test/keys.json\"",
            "has a path, query or fragment",
        ),
    ] {
        let req = RequestParts::new("GET", "example.com", "/").header("Signature-Agent", agent);
        let h = signer.sign(&req, now).unwrap();
        let req = req
            .header("Signature-Input", &h.signature_input)
            .header("Signature", &h.signature);
        assert_eq!(
            SignatureVerifier::default().agents(&req).unwrap(),
            Vec::new()
        );
        // The agent's directory is at hand, but the member is ignored, so
        // it is not used: nothing else holds the key, so unknown.
        let mut ring = KeyRing::new();
        ring.insert_directory(
            AGENT_DIRECTORY,
            KeySet::new(vec![signer.public_key().clone()]),
        );
        let check = SignatureVerifier::default().check(&req, &ring, now);
        let SignatureCheck::Undecided { reason, evidence } = &check else {
            panic!("{agent}: {check:?}");
        };
        assert!(
            reason.contains(why) && reason.contains("is ignored"),
            "{reason}"
        );
        assert!(evidence.agent.as_ref().unwrap().ignored.is_some());
        let verdict = v.signature_verdict(&bot("KeyBot"), &check).unwrap();
        assert_eq!(verdict.kind(), "unknown", "{agent}");
        // The registry's key with that id verifies it, as if no agent
        // were named.
        let registry = KeyRing::from_registry(v.registry());
        let check = SignatureVerifier::default().check(&req, &registry, now);
        assert_eq!(
            v.signature_verdict(&bot("KeyBot"), &check)
                .unwrap()
                .to_string(),
            "verified KeyBot by web_bot_auth",
            "{agent}"
        );
    }
}

/// The protocol draft's own signed-directory vector
/// (`draft-meunier-webbotauth-httpsig-protocol-02`, "Signed directory
/// response"; a code component of the draft, under the Revised BSD
/// licence): the body, its `Content-Digest`, and the `binding` signature
/// over `("@authority";req "content-digest")` verify; one byte of the body
/// changed fails on the digest.
#[test]
fn the_drafts_signed_directory_vector_verifies() {
    use botwarden_verify::{DirectoryResponse, DirectorySignature, check_directory_response};
    let body = concat!(
        r#"{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-"#,
        r#"dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw"#,
        r#"3c5D0bs","use":"sig"}]}"#
    );
    let digest = "sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:";
    assert_eq!(botwarden_verify::content_digest(body.as_bytes()), digest);
    let input = concat!(
        r#"binding=("@authority";req "content-digest");created=1735689600;"#,
        r#"expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";"#,
        r#"tag="http-message-signatures-directory""#
    );
    let signature = "binding=:l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==:";
    let headers = [
        ("Content-Type", DIRECTORY_MEDIA_TYPE),
        ("Content-Digest", digest),
        ("Signature-Input", input),
        ("Signature", signature),
    ];
    let keys = KeySet::from_directory(body.as_bytes(), Some(DIRECTORY_MEDIA_TYPE), AGENT_DIRECTORY)
        .unwrap();
    let check = |body: &str| {
        check_directory_response(
            &keys,
            &DirectoryResponse {
                url: AGENT_DIRECTORY,
                status: 200,
                headers: &headers,
                body: body.as_bytes(),
            },
            at(1_735_689_700),
            Duration::from_secs(60),
        )
    };
    assert_eq!(
        check(body).unwrap(),
        DirectorySignature::Valid {
            keyids: vec![ED25519_THUMBPRINT.to_owned()]
        }
    );
    let changed = body.replace("\"sig\"", "\"enc\"");
    assert_eq!(check(&changed).unwrap_err().code(), "content_digest");
}

#[test]
fn check_agent_reads_a_jwks_uri_member_and_an_ignored_one() {
    use botwarden_verify::{DirectoryHttp, DirectoryObservation, check_agent};
    let signer = Signer::generate().unwrap().cover("signature-agent");
    let now = at(1_800_000_000);
    let keys_url = "https://agent.example/keys.json";
    let observed = DirectoryObservation {
        url: keys_url.to_owned(),
        response: Ok(DirectoryHttp {
            status: 200,
            headers: vec![
                (
                    "content-type".to_owned(),
                    "application/jwk-set+json".to_owned(),
                ),
                ("cache-control".to_owned(), "max-age=3600".to_owned()),
            ],
            body: signer.directory_json().into_bytes(),
            over_limit: false,
        }),
    };
    let sample = |agent: &str| {
        let req = RequestParts::new("GET", "site.example", "/").header("Signature-Agent", agent);
        let h = signer.sign(&req, now).unwrap();
        (agent.to_owned(), h.signature_input, h.signature)
    };
    let codes = |r: &botwarden_verify::AgentCheck| -> Vec<&str> {
        r.findings.iter().map(|f| f.code).collect()
    };
    // A key set named by its URL: the path is its, not a finding; the
    // sample verifies with botwarden.
    let (agent, input, sig) = sample(&format!("sig1=\"{keys_url}\";type=jwks_uri"));
    let req = RequestParts::new("GET", "site.example", "/")
        .header("Signature-Agent", &agent)
        .header("Signature-Input", &input)
        .header("Signature", &sig);
    let report = check_agent(keys_url, &observed, Some(&req), now, false);
    assert!(!codes(&report).contains(&"A022"), "{report}");
    assert_eq!(report.sample.as_ref().unwrap().check, "valid", "{report}");
    // An unknown type: the member is ignored; the draft's verifiers and
    // botwarden fetch nothing for it.
    let (agent, input, sig) = sample(&format!("sig1=\"{keys_url}\";type=frobnicate"));
    let req = RequestParts::new("GET", "site.example", "/")
        .header("Signature-Agent", &agent)
        .header("Signature-Input", &input)
        .header("Signature", &sig);
    assert_eq!(
        botwarden_verify::sample_agent(&req).map(|a| a.uri),
        Some(keys_url.to_owned())
    );
    let report = check_agent(keys_url, &observed, Some(&req), now, false);
    assert!(codes(&report).contains(&"A042"), "{report}");
    let sample_verdicts = report.sample_verdicts.as_ref().unwrap();
    assert_eq!(
        sample_verdicts
            .iter()
            .map(|v| v.outcome.as_str())
            .collect::<Vec<_>>(),
        ["fails", "fails", "fails"],
        "{report}"
    );
}
