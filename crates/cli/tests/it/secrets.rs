//! Secrets for Redis and NATS given to the commands by file, environment
//! or URL, against servers that want them: the commands work, and the
//! password shows nowhere — not on standard output or error, not in
//! `/metrics`, not in the crawl stores' bytes.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use botwarden_testdata::TempDir;
use botwarden_testdata::nats::NatsServer;
use botwarden_testdata::secured::SecuredRedis;

use crate::robots_fetch::{reply, serve};
use crate::serve::Server;

const REDIS_PASSWORD: &str = "cli-redis-pw-Wd58";
const NATS_PASSWORD: &str = "cli-nats-pw-Lm26";

fn site(path: &str) -> String {
    let html = |body: &str| {
        reply(
            200,
            &[("Content-Type", "text/html")],
            &format!("<html><body>{body}</body></html>"),
        )
    };
    match path {
        "/robots.txt" => reply(200, &[("Content-Type", "text/plain")], "User-agent: *\n"),
        "/" => html(r#"<a href="/a">a</a> <a href="/b">b</a>"#),
        "/a" => html(r#"<a href="/">home</a> <a href="/b">b</a>"#),
        "/b" => html("b"),
        _ => reply(404, &[], "not found"),
    }
}

/// Runs `botwarden` with `args` and the environment `env` (and debug
/// logs on).
fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_LOG", "debug")
        .stdin(Stdio::null())
        .output()
        .expect("run botwarden")
}

/// Standard output and error, checked to be without `secret`.
fn shown(out: &Output, secret: &str) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains(secret), "the secret shows: {text}");
    text
}

/// Every file in `dir` (the stores, their journals), checked byte by byte
/// to be without `secret`; their bytes together.
fn files_without(dir: &Path, secret: &str) -> Vec<u8> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            let bytes = std::fs::read(&path).expect("read a store");
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} holds the secret",
                path.display()
            );
            all.extend(bytes);
        }
    }
    all
}

#[test]
fn a_redis_password_from_a_file_the_environment_or_the_url_never_shows() {
    let redis = SecuredRedis::start(REDIS_PASSWORD, None);
    let host = redis.addr().to_string();
    let plain = redis.url();
    let in_url = format!("redis://:{REDIS_PASSWORD}@{host}/");
    let site = format!("http://{}/", serve(site));
    let tmp = TempDir::new("cli-secrets");
    let dir = tmp.path();
    let secret_file = dir.join("redis.password");
    std::fs::write(&secret_file, format!("{REDIS_PASSWORD}\n")).expect("write the password");
    let secret_file = secret_file.display().to_string();
    let stores = dir.join("stores");
    std::fs::create_dir_all(&stores).expect("stores dir");

    // crawl --redis --workers 2, the password from a file.
    let db = stores.join("crawl.db").display().to_string();
    let out = run(
        &[
            "crawl",
            &site,
            "--db",
            &db,
            "--allow-private",
            "--workers",
            "2",
            "--redis",
            &plain,
            "--redis-password-file",
            &secret_file,
            "--crawl",
            "from-file",
        ],
        &[],
    );
    let text = shown(&out, REDIS_PASSWORD);
    assert!(out.status.success(), "{text}");

    // crawl worker, the password in the URL: its store names the
    // coordinator with the password hidden.
    let worker_db = stores.join("worker.db").display().to_string();
    let out = run(
        &[
            "crawl",
            "worker",
            &site,
            "--redis",
            &in_url,
            "--crawl",
            "in-url",
            "--db",
            &worker_db,
            "--allow-private",
        ],
        &[],
    );
    let text = shown(&out, REDIS_PASSWORD);
    assert!(out.status.success(), "{text}");
    let bytes = files_without(&stores, REDIS_PASSWORD);
    let hidden = format!("redis://:***@{host}/");
    assert!(
        bytes.windows(hidden.len()).any(|w| w == hidden.as_bytes()),
        "no store names the coordinator {hidden}"
    );

    // crawl status, the password from the environment.
    for format in ["text", "json"] {
        let out = run(
            &[
                "crawl", "status", "--redis", &plain, "--crawl", "in-url", "--format", format,
            ],
            &[("BOTWARDEN_REDIS_PASSWORD", REDIS_PASSWORD)],
        );
        let text = shown(&out, REDIS_PASSWORD);
        assert!(out.status.success(), "{text}");
        assert!(text.contains(&site), "{text}");
    }

    // A wrong password: the host and what failed, not the password.
    let wrong = "wrong-cli-pw-Ty71";
    let out = run(
        &[
            "crawl",
            "status",
            "--redis",
            &format!("redis://:{wrong}@{host}/"),
            "--crawl",
            "x",
        ],
        &[],
    );
    let text = shown(&out, wrong);
    assert!(!out.status.success());
    assert!(
        text.contains(&host) && text.contains("authentication failed"),
        "{text}"
    );
    // No password at all.
    let out = run(&["crawl", "status", "--redis", &plain, "--crawl", "x"], &[]);
    let text = shown(&out, REDIS_PASSWORD);
    assert!(text.contains("authentication failed"), "{text}");

    // Bad input is named with its option.
    let missing = dir.join("missing.password").display().to_string();
    let out = run(
        &[
            "crawl",
            "status",
            "--redis",
            &plain,
            "--crawl",
            "x",
            "--redis-password-file",
            &missing,
        ],
        &[],
    );
    let text = shown(&out, REDIS_PASSWORD);
    assert!(
        text.contains("--redis-password-file") && text.contains("missing.password"),
        "{text}"
    );
    let out = run(
        &[
            "crawl",
            "status",
            "--redis",
            &format!("redis://:{REDIS_PASSWORD}@[::1"),
            "--crawl",
            "x",
        ],
        &[],
    );
    let text = shown(&out, REDIS_PASSWORD);
    assert!(text.contains("--redis"), "{text}");

    // serve --redis: the shared cache is up, /metrics shows no password.
    let server = Server::start(&["--redis", &in_url]);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body) = server.request("GET", "/metrics", "");
        assert_eq!(status, 200);
        assert!(!body.contains(REDIS_PASSWORD), "{body}");
        if body.contains("botwarden_shared_cache_up 1") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the shared cache never came up: {body}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn nats_credentials_from_the_url_or_the_environment_never_show() {
    let nats = NatsServer::start_with_config(&format!(
        "authorization {{\n  user: alice\n  password: \"{NATS_PASSWORD}\"\n}}\n"
    ));
    let host = nats.addr().to_string();
    let tmp = TempDir::new("cli-nats-secrets");
    let log = tmp.path().join("access.log");
    std::fs::write(&log, "").expect("write the log");
    let log = log.display().to_string();
    // An empty log: the analysis connects (making the stream and bucket),
    // reads nothing and ends.
    for (args, env) in [
        (
            vec![
                "--nats".to_owned(),
                format!("nats://alice:{NATS_PASSWORD}@{host}"),
            ],
            vec![],
        ),
        (
            vec![
                "--nats".to_owned(),
                nats.url(),
                "--nats-user".to_owned(),
                "alice".to_owned(),
            ],
            vec![("BOTWARDEN_NATS_PASSWORD", NATS_PASSWORD)],
        ),
    ] {
        let mut all = vec!["logs", "analyze", &log, "--format", "combined", "--no-dns"];
        all.extend(args.iter().map(String::as_str));
        let out = run(&all, &env);
        let text = shown(&out, NATS_PASSWORD);
        assert!(out.status.success(), "{text}");
    }
    let wrong = "wrong-nats-pw-Pe19";
    let out = run(
        &[
            "logs",
            "analyze",
            &log,
            "--format",
            "combined",
            "--no-dns",
            "--nats",
            &format!("nats://alice:{wrong}@{host}"),
        ],
        &[],
    );
    let text = shown(&out, wrong);
    assert!(!out.status.success());
    assert!(text.contains(&host), "{text}");
    let out = run(
        &[
            "logs",
            "analyze",
            &log,
            "--format",
            "combined",
            "--no-dns",
            "--nats",
            &nats.url(),
            "--nats-creds",
            "/nonexistent/user.creds",
        ],
        &[],
    );
    let text = shown(&out, NATS_PASSWORD);
    assert!(!out.status.success());
    assert!(
        text.contains("--nats-creds") && text.contains("user.creds"),
        "{text}"
    );
}
