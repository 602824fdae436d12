//! `botwarden serve`: the API's answers are the command's JSON, byte for
//! byte, for the testdata cases; SIGTERM stops it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};

use botwarden_testdata::dns::{BackgroundDns, Zone};
use serde_json::Value;

use crate::{TempFile, botwarden};

const REGISTRY: &str = "\
bots:
  - name: Searchbot
    category: search
    robots_tokens: [Searchbot]
    fcrdns_hosts: [searchbot.example]
";

/// `botwarden serve` on a free port, killed when dropped.
pub(crate) struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    pub(crate) fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_botwarden"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start botwarden serve");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("serve says where it listens")
                .expect("stderr line");
            if let Some(rest) = line.strip_prefix("botwarden: listening on http://") {
                break rest.trim_end_matches('/').parse().expect("an address");
            }
        };
        // Keep draining the logs so the server never blocks on them.
        std::thread::spawn(move || for _ in lines {});
        Server { child, addr }
    }

    /// One request; the status and body.
    pub(crate) fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.addr).expect("connect");
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("send");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("read");
        let text = String::from_utf8(answer).expect("UTF-8");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head");
        let status = head[9..12].parse().expect("status");
        (status, body.to_owned())
    }

    fn post(&self, path: &str, body: &Value) -> String {
        let (status, text) = self.request("POST", path, &body.to_string());
        assert_eq!(status, 200, "{path}: {text}");
        text
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run(args: &[&str]) -> (String, String) {
    let out = botwarden(args, b"");
    (
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

#[test]
fn the_api_answers_as_the_command_does() {
    let registry = TempFile::new("registry.yaml", REGISTRY.as_bytes());
    let ranges = TempFile::new("none", b"");
    let ranges_dir = ranges.path.with_file_name("ranges");
    let ranges_dir = ranges_dir.to_str().expect("UTF-8");
    let server = Server::start(&[
        "--no-default-registry",
        "--registry",
        registry.arg(),
        "--ranges-dir",
        ranges_dir,
        "--no-dns",
    ]);
    let cases = botwarden_testdata::robots_cases();
    assert!(cases.len() > 20, "the testdata cases");
    for case in &cases {
        let file = TempFile::new("robots.txt", &case.robots);
        let b64 = base64_of(&case.robots);
        // check
        let (cli, _) = run(&["robots", "check", file.arg(), "--format", "json"]);
        let api = server.post(
            "/api/v1/check",
            &serde_json::json!({"robots_txt_base64": b64, "name": file.arg()}),
        );
        assert_eq!(api, cli, "check of case {}", case.id);
        // fix: the file on standard output, the summary on standard error
        let (fixed, summary) = run(&["robots", "fix", file.arg()]);
        let api: Value = serde_json::from_str(&server.post(
            "/api/v1/fix",
            &serde_json::json!({"robots_txt_base64": b64, "name": file.arg()}),
        ))
        .expect("JSON");
        assert_eq!(api["fixed"], fixed, "fix of case {}", case.id);
        assert_eq!(api["summary"], summary, "fix summary of case {}", case.id);
        // test
        let urls: Vec<&str> = case.checks.iter().map(|c| c.url.as_str()).collect();
        if urls.is_empty() || case.agent.trim().is_empty() {
            continue;
        }
        for profile in ["rfc9309", "google", "strict"] {
            let mut args = vec![
                "robots",
                "test",
                file.arg(),
                "--agent",
                &case.agent,
                "--profile",
                profile,
                "--format",
                "json",
            ];
            args.extend(&urls);
            let (cli, _) = run(&args);
            let api: Value = serde_json::from_str(&server.post(
                "/api/v1/test",
                &serde_json::json!({"robots_txt_base64": b64, "agent": case.agent,
                                    "profile": profile, "urls": urls}),
            ))
            .expect("JSON");
            let cli: Vec<Value> = cli
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect();
            assert_eq!(
                api["answers"],
                Value::Array(cli),
                "test of case {}",
                case.id
            );
        }
    }
}

fn base64_of(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn verify_and_classify_answer_as_the_command_does() {
    let dns = BackgroundDns::start(
        Zone::new()
            .ptr("192.0.2.200", &["crawl-1.searchbot.example"])
            .a("crawl-1.searchbot.example", &["192.0.2.200"])
            .ptr("192.0.2.201", &["crawl-1.searchbot.example.evil.example"])
            .a("crawl-1.searchbot.example.evil.example", &["192.0.2.201"])
            .servfail("192.0.2.203"),
    );
    let registry = TempFile::new("registry.yaml", REGISTRY.as_bytes());
    let ns = dns.addr().to_string();
    let ranges_dir = registry.path.with_file_name("ranges");
    let ranges_dir = ranges_dir.to_str().expect("UTF-8");
    let common = [
        "--no-default-registry",
        "--registry",
        registry.arg(),
        "--ranges-dir",
        ranges_dir,
    ];
    let mut serve_args = common.to_vec();
    serve_args.extend(["--nameserver", &ns]);
    let server = Server::start(&serve_args);
    let uas = [
        "Mozilla/5.0 (compatible; Searchbot/2.1)",
        "curl/8.0",
        "OddCrawler/0.1 (+https://odd.example/crawler)",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
    ];
    for ip in [
        "192.0.2.200",
        "192.0.2.201",
        "192.0.2.203",
        "::ffff:192.0.2.200",
    ] {
        for ua in uas {
            let mut args = vec!["bots", "verify", ip, "--ua", ua, "--format", "json"];
            args.extend(common);
            args.extend(["--nameserver", &ns]);
            let (cli, err) = run(&args);
            let query: String = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("ip", ip)
                .append_pair("ua", ua)
                .finish();
            let (status, api) = server.request("GET", &format!("/api/v1/verify?{query}"), "");
            assert_eq!(status, 200, "{api}");
            assert_eq!(api, cli, "verify {ip} {ua}: {err}");
        }
    }
    let mut args = vec!["bots", "classify", "--format", "json", "--explain"];
    args.extend(common);
    args.extend(uas);
    let (cli, _) = run(&args);
    let api: Value = serde_json::from_str(&server.post(
        "/api/v1/classify",
        &serde_json::json!({"user_agents": uas, "explain": true}),
    ))
    .expect("JSON");
    let cli: Vec<Value> = cli
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(api["results"], Value::Array(cli));
}

#[test]
fn sigterm_stops_it() {
    let server = Server::start(&["--no-dns"]);
    let (status, body) = server.request("GET", "/healthz", "");
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    let pid = server.child.id().to_string();
    let mut server = server;
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill")
            .success()
    );
    let status = server.child.wait().expect("exits");
    assert!(status.success(), "{status}");
}

#[test]
fn bad_configuration_is_named() {
    let config = TempFile::new("serve.toml", b"listen = \"nowhere\"\n");
    let out = botwarden(&["serve", "--config", config.arg()], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("configuration {}", config.arg())),
        "{err}"
    );
    assert!(err.contains("line 1"), "{err}");
}

/// A backend on loopback, one thread per connection: robots.txt for
/// everyone, another for verified crawlers, and every other path answered
/// with the verdict headers it was given.
fn echo_backend() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || echo(stream));
        }
    });
    addr
}

fn echo(mut stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        head.push(line.trim_end().to_owned());
    }
    let path = head
        .first()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("/")
        .to_owned();
    let header = |name: &str| {
        head.iter()
            .skip(1)
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
            })
            .unwrap_or_else(|| "(none)".to_owned())
    };
    let body = match path.as_str() {
        "/robots.txt" => "User-agent: *\nDisallow: /\n".to_owned(),
        "/robots-verified.txt" => "User-agent: *\nAllow: /\n".to_owned(),
        _ => format!(
            "verdict={} name={} method={}\n",
            header("x-bot-verdict"),
            header("x-bot-name"),
            header("x-bot-method")
        ),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
}

/// The recipe of crates/serve/docs/serve.md ("Apache httpd"), with the
/// test's paths and ports. The test's clients all come from 127.0.0.1, so
/// the address looked up is the one the test sends in `X-Test-Client`
/// (the recipe's `%{REMOTE_ADDR}`).
fn apache_conf(root: &str, port: u16, serve: SocketAddr, site: SocketAddr) -> String {
    let m = "/usr/lib/apache2/modules";
    let botwarden = env!("CARGO_BIN_EXE_botwarden");
    format!(
        "ServerRoot \"{root}\"
ServerName localhost
Listen 127.0.0.1:{port}
PidFile \"{root}/httpd.pid\"
DefaultRuntimeDir \"{root}\"
ErrorLog \"{root}/error.log\"
LogLevel warn
LoadModule mpm_event_module {m}/mod_mpm_event.so
LoadModule authz_core_module {m}/mod_authz_core.so
LoadModule rewrite_module {m}/mod_rewrite.so
LoadModule headers_module {m}/mod_headers.so
LoadModule proxy_module {m}/mod_proxy.so
LoadModule proxy_http_module {m}/mod_proxy_http.so
User www-data
Group www-data

RewriteEngine on
RewriteMap botwarden \"prg:{botwarden} serve --rewrite-map http://{serve}\"
RewriteCond \"${{botwarden:%{{HTTP:X-Test-Client}} %{{HTTP_USER_AGENT}}}}\" \"^(\\d+) (\\S+) (\\S+) (.*)$\"
RewriteRule ^ - [E=BOT_STATUS:%1,E=BOT_VERDICT:%2,E=BOT_METHOD:%3,E=BOT_NAME:%4]
RewriteCond %{{ENV:BOT_STATUS}} =403
RewriteRule ^ - [F]
RewriteCond %{{ENV:BOT_VERDICT}} =verified
RewriteRule ^/robots\\.txt$ http://{site}/robots-verified.txt [P]
RequestHeader set X-Bot-Verdict \"%{{BOT_VERDICT}}e\"
RequestHeader set X-Bot-Name \"%{{BOT_NAME}}e\"
RequestHeader set X-Bot-Method \"%{{BOT_METHOD}}e\"
ProxyPass / http://{site}/
"
    )
}

/// Apache, stopped when dropped.
struct Apache {
    child: Child,
}

impl Drop for Apache {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_apache(root: &str, serve: SocketAddr, site: SocketAddr) -> (Apache, u16) {
    assert!(
        std::path::Path::new("/usr/sbin/apache2").exists(),
        "/usr/sbin/apache2 is missing: install the Debian package `apache2`"
    );
    let log = format!("{root}/error.log");
    for _ in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("free port");
        let conf = format!("{root}/httpd.conf");
        std::fs::write(&conf, apache_conf(root, port, serve, site)).expect("config");
        let _ = std::fs::remove_file(&log);
        let child = Command::new("/usr/sbin/apache2")
            .args(["-f", &conf, "-DFOREGROUND"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start apache2");
        let mut apache = Apache { child };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        loop {
            if let Ok(Some(status)) = apache.child.try_wait() {
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                assert!(
                    text.contains("ddress already in use"),
                    "apache2 exited ({status}): {text}"
                );
                break;
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return (apache, port);
            }
            assert!(
                std::time::Instant::now() < deadline,
                "apache2 did not start: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        drop(apache);
    }
    panic!("apache2 could not get a free port");
}

/// A GET through Apache as the client `client` with User-Agent `ua`; the
/// status and body.
fn through(port: u16, path: &str, client: &str, ua: &str, extra: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nX-Test-Client: {client}\r\n\
         User-Agent: {ua}\r\n{extra}Connection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("read");
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, body.to_owned())
}

/// Asks until the answer is no longer the one of an `unknown` verdict:
/// the helper waits 50 ms for a verification, then the verdict comes for
/// a later request.
fn settled(port: u16, path: &str, client: &str, ua: &str) -> (u16, String) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let got = through(port, path, client, ua, "");
        if !got.1.starts_with("verdict=unknown") {
            return got;
        }
        assert!(std::time::Instant::now() < deadline, "still unknown");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn apache_rewrite_map_in_front_of_a_backend() {
    const SEARCHBOT: &str =
        "Mozilla/5.0 (compatible; Searchbot/2.1; +https://searchbot.example/bot)";
    const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
    let dns = BackgroundDns::start(
        Zone::new()
            .ptr("192.0.2.2", &["crawl-2.searchbot.example"])
            .a("crawl-2.searchbot.example", &["192.0.2.2"])
            .ptr("192.0.2.3", &["crawl-3.evil.example"])
            .a("crawl-3.evil.example", &["192.0.2.3"]),
    );
    let site = echo_backend();
    for enforce in [true, false] {
        let registry = TempFile::new("registry.yaml", REGISTRY.as_bytes());
        let ranges_dir = registry.path.with_file_name("ranges");
        let root = registry.path.with_file_name("apache");
        std::fs::create_dir_all(&root).expect("apache root");
        let root = root.to_str().expect("UTF-8");
        let ns = dns.addr().to_string();
        let mut args = vec![
            "--no-default-registry",
            "--registry",
            registry.arg(),
            "--ranges-dir",
            ranges_dir.to_str().expect("UTF-8"),
            "--nameserver",
            &ns,
            "--trusted-proxy",
            "127.0.0.1",
        ];
        if enforce {
            args.push("--enforce");
        }
        let server = Server::start(&args);
        let (apache, port) = start_apache(root, server.addr, site);
        let log = || std::fs::read_to_string(format!("{root}/error.log")).unwrap_or_default();

        let got = settled(port, "/page", "192.0.2.2", SEARCHBOT);
        assert_eq!(
            got,
            (
                200,
                "verdict=verified name=Searchbot method=fcrdns\n".to_owned()
            ),
            "{}",
            log()
        );
        let got = settled(port, "/page", "192.0.2.3", SEARCHBOT);
        if enforce {
            assert_eq!(got.0, 403, "{}", log());
        } else {
            assert_eq!(
                got,
                (200, "verdict=spoofed name=Searchbot method=-\n".to_owned())
            );
        }
        // A person, who also sends a verdict of their own: replaced.
        let got = through(
            port,
            "/page",
            "192.0.2.4",
            BROWSER,
            "X-Bot-Verdict: verified\r\n",
        );
        assert_eq!(
            got,
            (200, "verdict=not-a-bot name=- method=-\n".to_owned()),
            "{}",
            log()
        );
        // robots.txt: the verified crawler's own file; everyone else's.
        let got = through(port, "/robots.txt", "192.0.2.2", SEARCHBOT, "");
        assert_eq!(
            got,
            (200, "User-agent: *\nAllow: /\n".to_owned()),
            "{}",
            log()
        );
        let got = through(port, "/robots.txt", "192.0.2.4", BROWSER, "");
        assert_eq!(got, (200, "User-agent: *\nDisallow: /\n".to_owned()));
        let got = through(port, "/robots.txt", "192.0.2.3", SEARCHBOT, "");
        if enforce {
            assert_eq!(got.0, 403);
        } else {
            assert_eq!(got, (200, "User-agent: *\nDisallow: /\n".to_owned()));
        }
        // The service gone: requests go on, marked unknown (fail open).
        drop(server);
        let got = through(port, "/page", "192.0.2.3", SEARCHBOT, "");
        assert_eq!(
            got,
            (200, "verdict=unknown name=- method=-\n".to_owned()),
            "{}",
            log()
        );
        drop(apache);
    }
}
