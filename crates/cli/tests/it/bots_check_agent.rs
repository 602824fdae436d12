//! `botwarden bots check-agent` against hand-made agents of each shape,
//! their directories served by nginx over TLS with a certificate authority
//! made for the test (so `--ca-cert` is exercised too): the findings and
//! each reading's verdict.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use botwarden_testdata::secured::Certs;
use botwarden_verify::{Signer, WELL_KNOWN_DIRECTORY};
use serde_json::Value;

use crate::botwarden;

/// One agent's origin as nginx serves it.
struct Shape {
    name: &'static str,
    port: u16,
    /// The directory served.
    body: String,
    /// The nginx directives of the well-known location.
    location: String,
}

struct Nginx {
    child: Child,
    root: PathBuf,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// nginx serving each shape's directory over TLS on its own port.
fn serve(shapes: &[Shape], certs: &Certs) -> Nginx {
    let root = std::env::temp_dir().join(format!("botwarden-check-agent-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(root.join("tmp")).expect("tmp");
    let r = root.display().to_string();
    let mut servers = String::new();
    for s in shapes {
        let dir = root.join(s.name).join(".well-known");
        fs::create_dir_all(&dir).expect("site");
        fs::write(dir.join("http-message-signatures-directory"), &s.body).expect("directory");
        servers.push_str(&format!(
            "  server {{\n    listen 127.0.0.1:{port} ssl;\n    ssl_certificate \"{cert}\";\n    \
             ssl_certificate_key \"{key}\";\n    root \"{r}/{name}\";\n    \
             location = {WELL_KNOWN_DIRECTORY} {{\n{location}\n    }}\n  }}\n",
            port = s.port,
            cert = certs.server_cert().display(),
            key = certs.server_key().display(),
            name = s.name,
            location = s.location,
        ));
    }
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid \"{r}/nginx.pid\";\n\
         error_log \"{r}/error.log\" warn;\nevents {{ worker_connections 64; }}\n\
         http {{\n  types {{ }}\n  access_log off;\n\
         client_body_temp_path \"{r}/tmp\";\n  proxy_temp_path \"{r}/tmp\";\n\
         fastcgi_temp_path \"{r}/tmp\";\n  uwsgi_temp_path \"{r}/tmp\";\n  scgi_temp_path \"{r}/tmp\";\n\
         {servers}}}\n"
    );
    fs::write(root.join("nginx.conf"), conf).expect("conf");
    let mut child = Command::new("/usr/sbin/nginx")
        .args(["-p", &r, "-c", &format!("{r}/nginx.conf")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nginx (Debian package nginx; scripts/setup installs it)");
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if shapes
            .iter()
            .all(|s| std::net::TcpStream::connect(("127.0.0.1", s.port)).is_ok())
        {
            return Nginx { child, root };
        }
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!(
        "nginx did not start: {}",
        fs::read_to_string(root.join("error.log")).unwrap_or_default()
    );
}

/// The directives of a location serving the directory as `media`, with
/// `headers` added.
fn location(media: &str, headers: &[(&str, String)]) -> String {
    let mut l = format!("      default_type \"{media}\";\n");
    for (n, v) in headers {
        l.push_str(&format!("      add_header {n} '{v}' always;\n"));
    }
    l
}

/// The signed-directory headers of `signer` for the directory `body` at
/// `port` (valid an hour).
fn signed(signer: &Signer, port: u16, body: &str) -> Vec<(&'static str, String)> {
    let url = format!("https://127.0.0.1:{port}{WELL_KNOWN_DIRECTORY}");
    let h = signer
        .sign_directory_response(&url, body.as_bytes(), SystemTime::now())
        .expect("sign");
    vec![
        ("Content-Digest", h.content_digest.expect("digest")),
        ("Signature-Input", h.signature_input),
        ("Signature", h.signature),
        ("Cache-Control", "max-age=86400".to_owned()),
    ]
}

fn check(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["bots", "check-agent", "--format", "json"];
    all.extend_from_slice(args);
    let out = botwarden(&all, b"");
    let code = out.status.code().expect("exit code");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, doc)
}

fn codes(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().expect("code").to_owned())
        .collect()
}

/// Each reader's outcome, in the order draft, cloudflare, botwarden.
fn outcomes(verdicts: &Value) -> Vec<String> {
    verdicts
        .as_array()
        .expect("verdicts")
        .iter()
        .map(|v| v["outcome"].as_str().expect("outcome").to_owned())
        .collect()
}

fn key_file(dir: &Path, signer: &Signer) -> String {
    let path = dir.join("key.jwk");
    fs::write(&path, signer.private_jwk()).expect("key");
    path.display().to_string()
}

#[test]
fn hand_made_agents_of_each_shape_get_their_verdicts() {
    let certs = Certs::generate();
    let ca = certs.ca().display().to_string();
    let signer = Signer::from_jwk(&Signer::generate().expect("key").private_jwk(), "key")
        .expect("jwk")
        .validity(Duration::from_secs(3600));
    let directory = signer.directory_json();
    let ports: Vec<u16> = (0..6).map(|_| free_port()).collect();
    let media = "application/http-message-signatures-directory+json";
    let leaked = signer.private_jwk().replace('\n', "");
    let leaked = format!("{{\"keys\":[{leaked}]}}");
    let other_body = Signer::generate().expect("key").directory_json();
    let shapes = vec![
        Shape {
            name: "good",
            port: ports[0],
            body: directory.clone(),
            location: location(media, &signed(&signer, ports[0], &directory)),
        },
        Shape {
            name: "moved",
            port: ports[1],
            body: directory.clone(),
            location: "      return 301 /keys.json;\n".to_owned(),
        },
        Shape {
            name: "json",
            port: ports[2],
            body: directory.clone(),
            location: location("application/json", &[]),
        },
        Shape {
            name: "unsigned",
            port: ports[3],
            body: directory.clone(),
            location: location(media, &[("Cache-Control", "max-age=3600".to_owned())]),
        },
        // The headers of another key set: its digest and signature.
        Shape {
            name: "stale",
            port: ports[4],
            body: directory.clone(),
            location: location(media, &signed(&signer, ports[4], &other_body)),
        },
        Shape {
            name: "leaked",
            port: ports[5],
            body: leaked,
            location: location(media, &[("Cache-Control", "max-age=3600".to_owned())]),
        },
    ];
    let nginx = serve(&shapes, &certs);
    let key = key_file(&nginx.root, &signer);
    let origin = |i: usize| format!("https://127.0.0.1:{}", ports[i]);

    // The good agent: the directory verifies under every reading; the
    // sample in the draft's form fails only Cloudflare's, in the string
    // form it may fail only the draft's (a MAY).
    let good = origin(0);
    let base = ["--allow-private", "--ca-cert", &ca, "--sign-key", &key];
    let (code, doc) = check(&[&[good.as_str()][..], &base[..]].concat());
    assert_eq!(
        outcomes(&doc["directory_verdicts"]),
        ["verifies"; 3],
        "{doc:#}"
    );
    assert_eq!(doc["sample"]["check"], "valid", "{doc:#}");
    assert_eq!(
        outcomes(&doc["sample_verdicts"]),
        ["verifies", "fails", "verifies"],
        "{doc:#}"
    );
    assert_eq!(codes(&doc), ["A031", "A032"], "{doc:#}");
    assert_eq!(code, 1, "a reader fails: an error");
    assert_eq!(doc["keys"][0]["signed"], true);
    let (code, doc) = check(
        &[
            &[good.as_str()][..],
            &base[..],
            &["--signature-agent-form", "string"],
        ]
        .concat(),
    );
    assert_eq!(
        outcomes(&doc["sample_verdicts"]),
        ["depends", "verifies", "verifies"],
        "{doc:#}"
    );
    assert_eq!(codes(&doc), ["A031"], "{doc:#}");
    assert_eq!(code, 0, "a MAY is a warning");
    // Which form satisfies which reader, computed, not assumed.
    let forms = doc["forms"].as_array().expect("forms");
    assert_eq!(forms[0]["form"], "dictionary");
    assert_eq!(
        outcomes(&forms[0]["verdicts"]),
        ["verifies", "fails", "verifies"]
    );
    assert_eq!(
        outcomes(&forms[1]["verdicts"]),
        ["depends", "verifies", "verifies"]
    );
    assert!(
        doc["advice"]
            .as_str()
            .expect("advice")
            .starts_with("no Signature-Agent form verifies under all three readings"),
        "{doc:#}"
    );

    // Without the test's certificate authority, the directory cannot be
    // had: every reader fails, and the reason says why.
    let (code, doc) = check(&[&good, "--allow-private"]);
    assert_eq!(code, 1);
    assert_eq!(codes(&doc), ["A002"], "{doc:#}");
    assert_eq!(outcomes(&doc["directory_verdicts"]), ["fails"; 3]);

    let only = |i: usize| {
        let (_, doc) = check(&[origin(i).as_str(), "--allow-private", "--ca-cert", &ca]);
        (codes(&doc), outcomes(&doc["directory_verdicts"]), doc)
    };
    // A redirect is not followed.
    let (c, o, doc) = only(1);
    assert_eq!(c, ["A003"], "{doc:#}");
    assert_eq!(o, ["fails", "depends", "fails"]);
    assert!(
        doc["summary"]
            .as_str()
            .expect("summary")
            .starts_with("HTTP 301")
    );
    // application/json: botwarden reads it, the draft and Cloudflare do
    // not; unsigned, so Cloudflare would not use the keys either; no
    // caching headers.
    let (c, o, doc) = only(2);
    assert_eq!(c, ["A005", "A016", "A021"], "{doc:#}");
    assert_eq!(o, ["fails", "fails", "verifies"]);
    // Unsigned: Cloudflare uses only signed keys; the draft recommends.
    let (c, o, doc) = only(3);
    assert_eq!(c, ["A016"], "{doc:#}");
    assert_eq!(o, ["verifies", "fails", "verifies"]);
    // A digest (and signature) of other keys: refused.
    let (c, o, doc) = only(4);
    assert_eq!(c, ["A015"], "{doc:#}");
    assert_eq!(o, ["fails", "depends", "fails"]);
    // A private key published: an error whatever verifies.
    let (c, _, doc) = only(5);
    assert!(c.contains(&"A012".to_owned()), "{doc:#}");
    let leak = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["code"] == "A012")
        .expect("A012");
    assert_eq!(leak["severity"], "error");
    assert!(
        leak["message"]
            .as_str()
            .expect("message")
            .contains("keys[0] publishes private members (d)")
    );
    drop(nginx);
}

#[test]
fn a_sample_names_its_agent_and_bad_input_is_an_error() {
    // No agent and no sample.
    let out = botwarden(&["bots", "check-agent"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("give the agent"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A sample naming an agent that is not reachable: its directory is
    // what is checked, and the verdicts say it cannot be had.
    let signer = Signer::generate()
        .expect("key")
        .agent(
            &format!("http://127.0.0.1:{}", free_port()),
            botwarden_verify::AgentForm::String,
        )
        .expect("agent");
    let h = signer
        .sign(
            &botwarden_verify::RequestParts::new("GET", "site.example", "/"),
            SystemTime::now(),
        )
        .expect("sign");
    let mut args = vec!["--allow-private".to_owned()];
    for (n, v) in h.fields() {
        args.push("--header".to_owned());
        args.push(format!("{n}: {v}"));
    }
    args.push("--header".to_owned());
    args.push("Host: site.example".to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, doc) = check(&args);
    assert_eq!(code, 1);
    let c = codes(&doc);
    assert_eq!(c[..2], ["A001", "A002"], "{doc:#}");
    assert!(c.contains(&"A039".to_owned()), "{doc:#}");
    assert_eq!(doc["sample"]["check"], "undecided", "{doc:#}");
    assert_eq!(doc["sample"]["agent_form"], "string", "{doc:#}");
}
