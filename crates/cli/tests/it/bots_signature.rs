//! `botwarden bots verify` on signed requests (Web Bot Auth) and
//! `botwarden bots keygen`.

use std::time::{Duration, UNIX_EPOCH};

use botwarden_verify::{AgentForm, RequestParts, Signer};
use serde_json::Value;

use crate::{TempFile, botwarden};

const REGISTRY: &str = "\
bots:
  - name: ExampleBot
    signature_agents: [\"https://signature-agent.test\"]
";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = botwarden(args, b"");
    (
        out.status.code().expect("an exit code"),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

fn vector() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/webbotauth/web_bot_auth_architecture_v2.json"
    );
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    all[3].clone()
}

#[test]
fn a_signed_request_from_a_file() {
    let v = vector();
    let s = |k: &str| v[k].as_str().unwrap().to_owned();
    let raw = format!(
        "GET /path/to/resource HTTP/1.1\r\nHost: example.com\r\nUser-Agent: ExampleBot/1.0\r\n\
         Signature-Agent: {}\r\nSignature-Input: {}\r\nSignature: {}\r\n\r\n",
        s("signature_agent"),
        s("signature_input"),
        s("signature")
    );
    let request = TempFile::new("req.txt", raw.as_bytes());
    let registry = TempFile::new("r.yaml", REGISTRY.as_bytes());
    let mut key = v["key"].clone();
    key.as_object_mut().unwrap().remove("d");
    let keys = TempFile::new(
        "dir.json",
        serde_json::to_vec(&serde_json::json!({ "keys": [key] }))
            .unwrap()
            .as_slice(),
    );
    let base = [
        "bots",
        "verify",
        "--no-default-registry",
        "--registry",
        registry.arg(),
        "--request",
        request.arg(),
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        run(&args)
    };
    let (code, stdout, stderr) = with(&["--keys", keys.arg()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "-\tverified\tExampleBot\tweb_bot_auth: key poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U \
         (ed25519) from directory https://signature-agent.test/.well-known/http-message-signatures-directory; \
         Signature-Agent https://signature-agent.test read as dictionary, its well-known directory\n"
    );
    // Without the directory, and not fetching it: unknown, not spoofed.
    let (code, stdout, _) = with(&["--no-fetch"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with(
            "-\tunknown\tExampleBot\tWeb Bot Auth signature: the keys of signature agent"
        ),
        "{stdout}"
    );
    // Another authority: spoofed, in JSON with the evidence.
    let (code, stdout, _) = with(&[
        "--keys",
        keys.arg(),
        "--authority",
        "example.org",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(doc["verdict"], "spoofed");
    assert_eq!(doc["signature"], "invalid");
    assert_eq!(doc["ip"], Value::Null);
    assert_eq!(
        doc["evidence"]["signature"]["agent"]["reading"],
        "dictionary"
    );
    assert!(
        doc["reason"].as_str().unwrap().contains("does not match"),
        "{doc}"
    );
    // A file that is not a request.
    let bad = TempFile::new("bad.txt", b"hello\n");
    let (code, _, stderr) = run(&["bots", "verify", "--request", bad.arg()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("bad.txt:1: `hello` is not a request line"),
        "{stderr}"
    );
}

#[test]
fn keygen_then_verify_a_request_signed_with_the_key() {
    let marker = TempFile::new("marker", b"");
    let dir = marker.path.parent().unwrap().join("keys");
    let dir_arg = dir.to_str().unwrap();
    let (code, stdout, stderr) = run(&["bots", "keygen", "--out", dir_arg]);
    assert_eq!(code, 0, "{stderr}");
    let keyid = stdout
        .lines()
        .next()
        .unwrap()
        .strip_prefix("keyid\t")
        .unwrap()
        .to_owned();
    let private = std::fs::read_to_string(dir.join("private-key.jwk")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(dir.join("private-key.jwk"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Never overwritten.
    let (code, _, stderr) = run(&["bots", "keygen", "--out", dir_arg]);
    assert_eq!(code, 2);
    assert!(stderr.contains("exists; it is not overwritten"), "{stderr}");

    let signer = Signer::from_jwk(&private, "private-key.jwk")
        .unwrap()
        .agent("https://signature-agent.test", AgentForm::String)
        .unwrap();
    assert_eq!(signer.keyid(), keyid);
    let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let h = signer
        .sign(&RequestParts::new("GET", "site.example", "/"), now)
        .unwrap();
    let registry = TempFile::new("r.yaml", REGISTRY.as_bytes());
    let directory = dir.join("http-message-signatures-directory");
    let input = format!("Signature-Input: {}", h.signature_input);
    let signature = format!("Signature: {}", h.signature);
    let agent = format!("Signature-Agent: {}", h.signature_agent.unwrap());
    let args = |at: &str| -> Vec<String> {
        [
            "bots",
            "verify",
            "--no-default-registry",
            "--registry",
            registry.arg(),
            "--header",
            "Host: site.example",
            "--header",
            &input,
            "--header",
            &signature,
            "--header",
            &agent,
            "--keys",
            directory.to_str().unwrap(),
            "--at",
            at,
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    let run_at = |at: &str| {
        let a = args(at);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run(&a)
    };
    let (code, stdout, stderr) = run_at("1800000010");
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("-\tverified\tExampleBot\tweb_bot_auth: key "),
        "{stdout}"
    );
    assert!(stdout.contains("read as string"), "{stdout}");
    let (_, stdout, _) = run_at("2027-02-01T00:00:00Z");
    assert!(
        stdout.starts_with("-\tspoofed\tExampleBot\tWeb Bot Auth signature: the signature expired"),
        "{stdout}"
    );
    let (code, _, stderr) = run(&["bots", "verify", "--header", "no colon"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--header #1: `no colon` is not a header field"),
        "{stderr}"
    );
}

#[test]
fn the_agents_directory_is_fetched_unless_forbidden() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use crate::robots_fetch::{reply, serve};

    let key = Signer::generate().unwrap();
    let directory = key.directory_json();
    let asked = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&asked);
    let addr = serve(move |path| {
        if path == "/.well-known/http-message-signatures-directory" {
            count.fetch_add(1, Ordering::SeqCst);
            reply(
                200,
                &[(
                    "Content-Type",
                    "application/http-message-signatures-directory+json",
                )],
                &directory,
            )
        } else {
            reply(404, &[], "")
        }
    });
    let origin = format!("http://{addr}");
    let registry = TempFile::new(
        "fetch-registry.yaml",
        format!("bots:\n  - name: LoopBot\n    signature_agents: [\"{origin}\"]\n").as_bytes(),
    );
    let signer = Signer::from_jwk(&key.private_jwk(), "key")
        .unwrap()
        .agent(&origin, AgentForm::Dictionary)
        .unwrap();
    let now = std::time::SystemTime::now();
    let h = signer
        .sign(&RequestParts::new("GET", "site.example", "/"), now)
        .unwrap();
    let input = format!("Signature-Input: {}", h.signature_input);
    let signature = format!("Signature: {}", h.signature);
    let agent = format!("Signature-Agent: {}", h.signature_agent.unwrap());
    let base = [
        "bots",
        "verify",
        "--no-default-registry",
        "--registry",
        registry.arg(),
        "--header",
        "Host: site.example",
        "--header",
        &input,
        "--header",
        &signature,
        "--header",
        &agent,
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        run(&args)
    };
    let (code, stdout, stderr) = with(&["--allow-private"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("-\tverified\tLoopBot\tweb_bot_auth: key "),
        "{stdout}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    // Loopback is refused without --allow-private: the keys cannot be
    // had, so unknown.
    let (code, stdout, _) = with(&[]);
    assert_eq!(code, 0);
    assert!(stdout.contains("\tunknown\tLoopBot\t"), "{stdout}");
    assert!(stdout.contains("could not be had"), "{stdout}");
    // --no-fetch: nothing asked.
    let (code, stdout, _) = with(&["--no-fetch", "--allow-private"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("were not fetched"), "{stdout}");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}
