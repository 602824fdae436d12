//! Web Bot Auth in logs: lines that record the signature fields (nginx
//! `$http_signature_input` …, Apache `%{Signature-Input}i` …) are checked
//! at their own time, and counted by their signature's verdict.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use botwarden_logs::{AnalyzeOptions, Analyzer, FormatChoice, Input, LogFormat, Report};
use botwarden_verify::{
    AgentForm, Classifier, DIRECTORY_MEDIA_TYPE, KeyRing, KeySet, RegistryBuilder, RequestParts,
    Signer, Verifier, VerifierConfig,
};

const REGISTRY: &str = "\
bots:
  - name: ExampleBot
    signature_agents: [\"https://signature-agent.test\"]
";

const AGENT_DIRECTORY: &str =
    "https://signature-agent.test/.well-known/http-message-signatures-directory";

/// 2027-01-15T08:00:00Z.
const T: u64 = 1_800_000_000;
const CLF_T: &str = "15/Jan/2027:08:00:00 +0000";
const CLF_LATER: &str = "15/Jan/2027:09:00:00 +0000";

const NGINX: &str = r#"$remote_addr - - [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_host" "$http_signature_input" "$http_signature" "$http_signature_agent""#;
const APACHE: &str = r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i" "%{Host}i" "%{Signature-Input}i" "%{Signature}i" "%{Signature-Agent}i""#;

/// The fields of a request to `host` signed at `T`, escaped as nginx
/// (`\x22`) or Apache (`\"`) writes a `"`.
fn signed(signer: &Signer, host: &str, quote: &str) -> (String, String, String) {
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(T);
    let h = signer
        .sign(&RequestParts::new("GET", host, "/page"), at)
        .expect("sign");
    let esc = |s: &str| s.replace('"', quote);
    (
        esc(&h.signature_input),
        esc(&h.signature),
        esc(h.signature_agent.as_deref().expect("an agent")),
    )
}

fn line(time: &str, host: &str, ua: &str, f: &(String, String, String)) -> String {
    format!(
        "192.0.2.7 - - [{time}] \"GET /page HTTP/1.1\" 200 12 \"-\" \"{ua}\" \"{host}\" \"{}\" \"{}\" \"{}\"\n",
        f.0, f.1, f.2
    )
}

fn analyze(format: &str, log: &str, keys: KeyRing) -> Report {
    let mut b = RegistryBuilder::new();
    b.add_registry("signers.yaml", REGISTRY);
    let (registry, problems) = b.build();
    assert!(problems.is_empty(), "{problems:?}");
    let registry = Arc::new(registry.expect("a registry"));
    let classifier = Arc::new(Classifier::for_registry(&registry).expect("a classifier"));
    let verifier = Arc::new(Verifier::new(registry, VerifierConfig::offline()).expect("verifier"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let analyzer = Analyzer::new(classifier, verifier, runtime.handle().clone());
    let path = std::env::temp_dir().join(format!(
        "botwarden-logs-signed-{}-{}.log",
        std::process::id(),
        format.len()
    ));
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(log.as_bytes()))
        .expect("write the log");
    let analysis = analyzer.run(
        vec![Input::Path(path.clone())],
        AnalyzeOptions {
            format: FormatChoice::Fixed(LogFormat::from_spec(format).expect("the format")),
            signature_keys: Some(Arc::new(keys)),
            threads: 1,
            ..AnalyzeOptions::default()
        },
    );
    let _ = std::fs::remove_file(&path);
    analysis.report
}

fn row(report: &Report, verdict: &str) -> u64 {
    report
        .bots
        .iter()
        .filter(|b| b.bot == "ExampleBot" && b.verdict == verdict)
        .map(|b| b.requests)
        .sum()
}

fn keys_of(signer: &Signer) -> KeyRing {
    let mut ring = KeyRing::new();
    ring.insert_directory(
        AGENT_DIRECTORY,
        KeySet::from_directory(
            signer.directory_json().as_bytes(),
            Some(DIRECTORY_MEDIA_TYPE),
            AGENT_DIRECTORY,
        )
        .expect("a directory"),
    );
    ring
}

#[test]
fn signed_nginx_lines_are_verified_at_their_own_time() {
    let signer = Signer::generate()
        .expect("key")
        .agent("https://signature-agent.test", AgentForm::Dictionary)
        .expect("agent");
    let good = signed(&signer, "site.example", "\\x22");
    let stranger = Signer::generate()
        .expect("key")
        .agent("https://stranger.test", AgentForm::String)
        .expect("agent");
    let foreign = signed(&stranger, "site.example", "\\x22");
    let mut log = String::new();
    // Valid, twice: a log holds requests already served, so the same
    // nonce again is not refused.
    log.push_str(&line(CLF_T, "site.example", "ExampleBot/1.0", &good));
    log.push_str(&line(CLF_T, "site.example", "ExampleBot/1.0", &good));
    // Presented to another site: the signature does not match.
    log.push_str(&line(CLF_T, "other.example", "ExampleBot/1.0", &good));
    // An hour later: expired at the line's time.
    log.push_str(&line(CLF_LATER, "site.example", "ExampleBot/1.0", &good));
    // An agent whose keys are not at hand.
    log.push_str(&line(CLF_T, "site.example", "ExampleBot/1.0", &foreign));
    // Unsigned: the address decides.
    log.push_str(&format!(
        "192.0.2.7 - - [{CLF_T}] \"GET / HTTP/1.1\" 200 1 \"-\" \"ExampleBot/1.0\" \"site.example\" \"-\" \"-\" \"-\"\n"
    ));
    let report = analyze(NGINX, &log, keys_of(&signer));
    assert_eq!(report.lines.failed, 0, "{:?}", report.lines);
    let w = &report.verification.web_bot_auth;
    assert_eq!(
        (w.signed, w.verified, w.spoofed, w.unknown),
        (5, 2, 2, 1),
        "{w:?}"
    );
    assert_eq!(w.failures.get("bad_signature"), Some(&1), "{w:?}");
    assert_eq!(w.failures.get("expired"), Some(&1), "{w:?}");
    assert_eq!(row(&report, "verified"), 2);
    assert_eq!(row(&report, "spoofed"), 2);
    assert_eq!(row(&report, "unknown"), 1);
    // The unsigned line went to the address (no address method: not
    // verified).
    assert_eq!(report.totals.bot_requests, 6);
    let text = botwarden_logs::render_text(&report, &botwarden_logs::TextOptions::default());
    assert!(
        text.contains(
            "5 signed lines (Web Bot Auth): 2 verified by web_bot_auth, 2 spoofed, 1 unknown"
        ),
        "{text}"
    );
    assert!(text.contains("bad_signature 1, expired 1"), "{text}");
}

#[test]
fn signed_apache_lines_are_read_too() {
    let signer = Signer::generate()
        .expect("key")
        .agent("https://signature-agent.test", AgentForm::Dictionary)
        .expect("agent");
    let good = signed(&signer, "site.example", "\\\"");
    let log = line(CLF_T, "site.example", "ExampleBot/1.0", &good);
    let report = analyze(APACHE, &log, keys_of(&signer));
    assert_eq!(report.lines.failed, 0, "{:?}", report.lines);
    assert_eq!(report.verification.web_bot_auth.verified, 1);
    assert_eq!(row(&report, "verified"), 1);
    // The JSON report carries the counts; a log without signatures does
    // not have the member.
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["verification"]["web_bot_auth"]["verified"], 1);
    let plain = analyze(
        APACHE,
        &format!(
            "192.0.2.7 - - [{CLF_T}] \"GET / HTTP/1.1\" 200 1 \"-\" \"ExampleBot/1.0\" \"site.example\" \"-\" \"-\" \"-\"\n"
        ),
        keys_of(&signer),
    );
    let json = serde_json::to_value(&plain).expect("json");
    assert!(json["verification"].get("web_bot_auth").is_none(), "{json}");
}
