//! Signed requests and key directories: any text read as a raw signed
//! request (request line, then fields), checked against a key ring that
//! holds a key, and any bytes read as a key directory response (with the
//! request's fields as its headers) by `check_agent`: never a panic, and
//! the findings of an agent check name a known reader.

#![no_main]

use std::time::{Duration, SystemTime};

use botwarden_verify::{
    DirectoryHttp, DirectoryObservation, KeyRing, KeySet, OwnedRequest, Reader, SignatureVerifier,
    Signer, check_agent, check_content_digest,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let request = OwnedRequest::from_raw(&text, Some("site.example"), "fuzz");
    let Ok(request) = request else { return };
    let parts = request.parts();
    let verifier = SignatureVerifier::default();
    let agents = verifier.agents(&parts);
    let mut ring = KeyRing::new();
    if let Ok(signer) = Signer::generate() {
        for agent in agents.iter().flatten() {
            ring.insert_directory(&agent.keys_url, KeySet::new(vec![signer.public_key().clone()]));
        }
    }
    let _ = verifier.check(&parts, &ring, now);
    let _ = check_content_digest(request.header("content-digest"), data);
    let headers: Vec<(String, String)> = parts
        .headers()
        .iter()
        .map(|(n, v)| (n.to_ascii_lowercase(), (*v).to_owned()))
        .collect();
    let observed = DirectoryObservation {
        url: "https://agent.example/.well-known/http-message-signatures-directory".to_owned(),
        response: Ok(DirectoryHttp {
            status: 200,
            headers,
            body: data.to_vec(),
            over_limit: false,
        }),
    };
    let report = check_agent("https://agent.example", &observed, Some(&parts), now, false);
    for f in &report.findings {
        assert!(f.code.starts_with('A') && f.code.len() == 4, "{}", f.code);
        assert!(f.effects.keys().all(|r| Reader::ALL.contains(r)));
    }
    assert_eq!(report.directory_verdicts.len(), 3);
    let _ = report.to_string();
});
