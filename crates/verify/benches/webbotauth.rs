//! Web Bot Auth: checking signed requests with the keys already in the key
//! ring (no fetch), Ed25519 and RSA-PSS, against the bare Ed25519
//! verification of `ed25519-dalek` (used) and of `ring` (not used for
//! Ed25519: slower, as it decompresses the key for every signature). Each is measured twice: in wall time,
//! and in the thread's CPU time (`*_cpu`), which other jobs sharing the
//! cores do not inflate: the per-core figure.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant, UNIX_EPOCH};

use botwarden_verify::{
    AgentForm, KeyRing, KeySet, PublicKey, RequestParts, SignatureCheck, SignatureConfig,
    SignatureVerifier, Signer,
};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};

/// Distinct signed requests (each with its own nonce), cycled through; the
/// verifier is renewed each time round so that no nonce is a replay.
const REQUESTS: usize = 4096;

fn data(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/webbotauth")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

struct Signed {
    authority: String,
    input: String,
    signature: String,
    agent: Option<String>,
}

impl Signed {
    fn request(&self) -> RequestParts<'_> {
        let r = RequestParts::new("GET", &self.authority, "/path/to/resource")
            .header("User-Agent", "Mozilla/5.0 (compatible; ExampleBot/1.0)")
            .header("Accept", "*/*")
            .header("Signature-Input", &self.input)
            .header("Signature", &self.signature);
        match &self.agent {
            Some(a) => r.header("Signature-Agent", a),
            None => r,
        }
    }
}

/// The clock a group is measured with.
#[derive(Clone, Copy)]
enum Clock {
    Wall,
    Cpu,
}

fn cpu_now() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// Times `f` by `clock`.
fn timed(clock: Clock, f: impl FnOnce()) -> Duration {
    match clock {
        Clock::Wall => {
            let start = Instant::now();
            f();
            start.elapsed()
        }
        Clock::Cpu => {
            let start = cpu_now();
            f();
            cpu_now().saturating_sub(start)
        }
    }
}

/// Runs `iters` checks over `requests`, renewing the verifier each round.
fn run(requests: &[Signed], ring: &KeyRing, iters: u64, clock: Clock) -> Duration {
    timed(clock, || run_checks(requests, ring, iters))
}

fn run_checks(requests: &[Signed], ring: &KeyRing, iters: u64) {
    let now = UNIX_EPOCH + Duration::from_secs(1_800_000_010);
    let mut verifier = SignatureVerifier::new(SignatureConfig::default());
    for i in 0..iters {
        let k = usize::try_from(i).unwrap_or(0) % requests.len();
        if k == 0 && i > 0 {
            verifier = SignatureVerifier::new(SignatureConfig::default());
        }
        let check = verifier.check(&requests[k].request(), ring, now);
        assert!(matches!(check, SignatureCheck::Valid(_)), "{check:?}");
        black_box(check);
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let (requests, ring) = ed25519_requests();
    let (rsa_signed, rsa_ring) = rsa_vector();

    let mut g = c.benchmark_group("webbotauth");
    g.throughput(Throughput::Elements(1));
    for (suffix, clock) in [("", Clock::Wall), ("_cpu", Clock::Cpu)] {
        g.bench_function(format!("check_ed25519{suffix}"), |b| {
            b.iter_custom(|iters| run(&requests, &ring, iters, clock));
        });
        g.bench_function(format!("check_rsa_pss_sha512{suffix}"), |b| {
            b.iter_custom(|iters| run(std::slice::from_ref(&rsa_signed), &rsa_ring, iters, clock));
        });
    }
    bench_floors(&mut g);
    g.finish();
    c.final_summary();
}

/// [`REQUESTS`] requests signed with the Ed25519 test key, each for its
/// own authority, and the key ring that holds the agent's directory.
fn ed25519_requests() -> (Vec<Signed>, KeyRing) {
    let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let directory = "https://crawler.example/.well-known/http-message-signatures-directory";
    let signer = Signer::from_jwk(&data("ed25519.json"), "ed25519.json")
        .unwrap()
        .agent("https://crawler.example", AgentForm::Dictionary)
        .unwrap();
    let requests: Vec<Signed> = (0..REQUESTS)
        .map(|i| {
            let authority = format!("site{i}.example");
            let h = signer
                .sign(
                    &RequestParts::new("GET", &authority, "/path/to/resource"),
                    now,
                )
                .unwrap();
            Signed {
                authority,
                input: h.signature_input,
                signature: h.signature,
                agent: h.signature_agent,
            }
        })
        .collect();
    let mut ring = KeyRing::new();
    ring.insert_directory(directory, KeySet::new(vec![signer.public_key().clone()]));
    (requests, ring)
}

/// The RSA-PSS vector (valid until 2124) and its key ring. It has a nonce;
/// it is checked by a new verifier each time, so the cost includes making
/// one.
fn rsa_vector() -> (Signed, KeyRing) {
    let rsa_vectors: serde_json::Value =
        serde_json::from_str(&data("web_bot_auth_architecture_v2.json")).unwrap();
    let rsa = &rsa_vectors[1];
    let rsa_signed = Signed {
        authority: "example.com".to_owned(),
        input: rsa["signature_input"].as_str().unwrap().to_owned(),
        signature: rsa["signature"].as_str().unwrap().to_owned(),
        agent: rsa["signature_agent"].as_str().map(str::to_owned),
    };
    let mut rsa_ring = KeyRing::new();
    rsa_ring.insert_directory(
        "https://signature-agent.test/.well-known/http-message-signatures-directory",
        KeySet::new(vec![PublicKey::from_jwk(&rsa["key"], "rsa").unwrap()]),
    );
    (rsa_signed, rsa_ring)
}

/// The floor: the Ed25519 verification of a signature base of the same
/// size by `ed25519-dalek` and by `ring`, nothing else.
fn bench_floors(g: &mut BenchmarkGroup<'_, WallTime>) {
    let pair = ring::signature::Ed25519KeyPair::from_seed_unchecked(&[7u8; 32]).unwrap();
    let message = vec![b'x'; 330];
    let sig = pair.sign(&message);
    let public = ring::signature::UnparsedPublicKey::new(
        &ring::signature::ED25519,
        ring::signature::KeyPair::public_key(&pair)
            .as_ref()
            .to_vec(),
    );
    let dalek = ed25519_dalek::VerifyingKey::from_bytes(
        ring::signature::KeyPair::public_key(&pair)
            .as_ref()
            .try_into()
            .unwrap(),
    )
    .unwrap();
    let dalek_sig = ed25519_dalek::Signature::from_slice(sig.as_ref()).unwrap();
    for (suffix, clock) in [("", Clock::Wall), ("_cpu", Clock::Cpu)] {
        g.bench_function(format!("dalek_ed25519_verify_only{suffix}"), |b| {
            b.iter_custom(|iters| {
                timed(clock, || {
                    for _ in 0..iters {
                        let ok = ed25519_dalek::Verifier::verify(
                            &dalek,
                            black_box(&message),
                            black_box(&dalek_sig),
                        );
                        assert!(ok.is_ok());
                    }
                })
            });
        });
        g.bench_function(format!("ring_ed25519_verify_only{suffix}"), |b| {
            b.iter_custom(|iters| {
                timed(clock, || {
                    for _ in 0..iters {
                        assert!(
                            public
                                .verify(black_box(&message), black_box(sig.as_ref()))
                                .is_ok()
                        );
                    }
                })
            });
        });
    }
}
