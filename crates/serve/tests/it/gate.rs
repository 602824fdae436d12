//! `GET /verify`: the client's address, the verdict headers, monitor and
//! enforce modes, DNS that does not answer, the bound on verifications
//! waiting; and behind a real nginx with `auth_request`.

use std::fs;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use botwarden_testdata::dns::{BlackHole, TestDns, Zone};
use botwarden_testdata::free_port;

use crate::{Running, TempDir, config, start};

pub(crate) const SEARCHBOT: &str =
    "Mozilla/5.0 (compatible; Searchbot/2.1; +https://searchbot.example/bot)";
pub(crate) const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

pub(crate) const VERIFIED: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
pub(crate) const SPOOFED: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);
pub(crate) const HUMAN: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 4);

/// The test zone. hickory answers reverse lookups of 127.0.0.0/8 itself
/// (`localhost`, as RFC 6761 asks) without asking any server, so the
/// loopback sources the tests use (127.0.0.2, .3, .4) are given to the
/// service as the documentation addresses 192.0.2.2, .3, .4: by a
/// trusted proxy's header, as nginx does in front of it.
pub(crate) fn zone() -> Zone {
    Zone::new()
        .ptr("192.0.2.2", &["crawl-2.searchbot.example"])
        .a("crawl-2.searchbot.example", &["192.0.2.2"])
        .ptr("192.0.2.3", &["crawl-3.evil.example"])
        .a("crawl-3.evil.example", &["192.0.2.3"])
        .ptr("192.0.2.200", &["crawl-1.searchbot.example"])
        .a("crawl-1.searchbot.example", &["192.0.2.200"])
}

/// The address the service is told a loopback source stands for.
fn stands_for(from: Ipv4Addr) -> String {
    format!("192.0.2.{}", from.octets()[3])
}

/// A client whose requests leave from `from`.
pub(crate) fn client_from(from: Ipv4Addr) -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .local_address(IpAddr::V4(from))
        .build()
        .expect("client")
}

/// Status and the three verdict headers (and the reason, if any).
async fn ask(
    from: Ipv4Addr,
    url: &str,
    ua: &str,
    forwarded: Option<&str>,
) -> (u16, String, String, String, String) {
    let mut request = client_from(from).get(url).header("user-agent", ua);
    if let Some(f) = forwarded {
        request = request.header("x-forwarded-for", f);
    }
    let r = request.send().await.expect("answer");
    let h = |name: &str| {
        r.headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII").to_owned())
            .unwrap_or_default()
    };
    (
        r.status().as_u16(),
        h("x-bot-name"),
        h("x-bot-verdict"),
        h("x-bot-method"),
        h("x-bot-reason"),
    )
}

pub(crate) async fn serve(dns: SocketAddr, enforce: bool, trusted: &[&str]) -> Running {
    let dir = TempDir::new("gate");
    let mut cfg = config(&dir);
    cfg.nameserver = Some(dns);
    cfg.enforce = enforce;
    cfg.trusted_proxies = trusted.iter().map(|s| (*s).to_owned()).collect();
    start(cfg, Some(dir)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verdicts_from_the_peer_in_monitor_and_enforce_mode() {
    let dns = TestDns::start(zone()).await;
    for enforce in [false, true] {
        let running = serve(dns.addr(), enforce, &["127.0.0.1"]).await;
        let url = running.url("/verify");
        let local = Ipv4Addr::LOCALHOST;
        let via = |from| Some(stands_for(from));
        let got = ask(local, &url, SEARCHBOT, via(VERIFIED).as_deref()).await;
        assert_eq!(
            got,
            (
                200,
                "Searchbot".into(),
                "verified".into(),
                "fcrdns".into(),
                String::new()
            )
        );
        let (status, name, verdict, method, reason) =
            ask(local, &url, SEARCHBOT, via(SPOOFED).as_deref()).await;
        assert_eq!(status, if enforce { 403 } else { 200 });
        assert_eq!(
            (name.as_str(), verdict.as_str(), method.as_str()),
            ("Searchbot", "spoofed", "-")
        );
        assert!(reason.contains("crawl-3.evil.example"), "{reason}");
        let got = ask(local, &url, BROWSER, via(HUMAN).as_deref()).await;
        assert_eq!(
            (got.0, got.2.as_str(), got.1.as_str()),
            (200, "not-a-bot", "-")
        );
        // An untrusted peer's header is ignored: the peer (127.0.0.3,
        // `localhost` by its PTR) is the client.
        let got = ask(SPOOFED, &url, SEARCHBOT, via(VERIFIED).as_deref()).await;
        assert_eq!(got.2, "spoofed");
        assert!(got.4.contains("PTR localhost"), "{}", got.4);
        running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_proxy_names_the_client() {
    let dns = TestDns::start(zone()).await;
    let running = serve(dns.addr(), true, &["127.0.0.1", "10.0.0.0/8"]).await;
    let url = running.url("/verify");
    let local = Ipv4Addr::LOCALHOST;
    // The right-most address that is not a trusted proxy.
    let got = ask(
        local,
        &url,
        SEARCHBOT,
        Some("203.0.113.9, 192.0.2.200, 10.1.2.3"),
    )
    .await;
    assert_eq!((got.0, got.2.as_str()), (200, "verified"));
    let got = ask(local, &url, SEARCHBOT, Some("127.0.0.3")).await;
    assert_eq!((got.0, got.2.as_str()), (403, "spoofed"));
    // A header that holds no address: unknown, never blocked.
    let got = ask(local, &url, SEARCHBOT, Some("somewhere")).await;
    assert_eq!((got.0, got.2.as_str()), (200, "unknown"));
    assert!(got.4.contains("holds no address"), "{}", got.4);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dns_that_never_answers_gives_unknown_and_the_wait_is_bounded() {
    let hole = BlackHole::start();
    let dir = TempDir::new("gate-hole");
    let mut cfg = config(&dir);
    cfg.nameserver = Some(hole.addr());
    cfg.enforce = true;
    cfg.max_pending = 1;
    cfg.trusted_proxies = vec!["127.0.0.0/8".to_owned()];
    cfg.verify_timeout = 1.0;
    cfg.dns_timeout = 5.0;
    let running = start(cfg, Some(dir)).await;
    let url = running.url("/verify");
    // One verification waits on DNS; meanwhile another address finds no
    // room and is answered at once, and a browser is not held up.
    let first = tokio::spawn({
        let url = url.clone();
        async move { ask(VERIFIED, &url, SEARCHBOT, Some("192.0.2.2")).await }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let metrics = reqwest::get(running.url("/metrics"))
            .await
            .expect("metrics")
            .text()
            .await
            .expect("text");
        if metrics.contains("botwarden_verify_pending 1") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the first verification never waited"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let busy = ask(VERIFIED, &url, SEARCHBOT, Some("192.0.2.3")).await;
    assert_eq!((busy.0, busy.2.as_str()), (200, "unknown"));
    assert!(
        busy.4.contains("too many verifications waiting"),
        "{}",
        busy.4
    );
    let human = ask(VERIFIED, &url, BROWSER, Some("192.0.2.4")).await;
    assert_eq!((human.0, human.2.as_str()), (200, "not-a-bot"));
    let first = first.await.expect("first");
    assert_eq!((first.0, first.2.as_str()), (200, "unknown"));
    assert!(first.4.contains("verify_timeout"), "{}", first.4);
    let metrics = reqwest::get(running.url("/metrics"))
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    assert!(
        metrics.contains("botwarden_verify_busy_total 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("botwarden_verify_timeouts_total 1"),
        "{metrics}"
    );
    running.stop().await;
}

/// nginx, stopped when dropped.
/// A server process, stopped when dropped (SIGTERM, then SIGKILL after
/// 10 s).
pub(crate) struct Daemon {
    pub(crate) child: Child,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `name` with `spawn(port)` on a free port and waits until it
/// accepts connections; when it exits because another process took the
/// port (its `log` says the address is in use), again on another, five
/// times at most.
pub(crate) fn start_on_free_port(
    name: &str,
    log: &Path,
    mut spawn: impl FnMut(u16) -> Child,
) -> (Daemon, u16) {
    for _ in 0..5 {
        let port = free_port();
        let mut daemon = Daemon { child: spawn(port) };
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok(Some(status)) = daemon.child.try_wait() {
                let text = fs::read_to_string(log).unwrap_or_default();
                assert!(text.contains("in use"), "{name} exited ({status}): {text}");
                break;
            }
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return (daemon, port);
            }
            assert!(
                Instant::now() < deadline,
                "{name} did not start: {}",
                fs::read_to_string(log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!("{name} could not get a free port");
}

/// The recipe of docs/serve.md ("nginx"), with the test's paths and ports.
fn nginx_conf(root: &Path, port: u16, serve: SocketAddr) -> String {
    let r = root.display();
    format!(
        "daemon off;
master_process on;
worker_processes 1;
user www-data;
pid \"{r}/nginx.pid\";
error_log \"{r}/error.log\" warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    types {{ text/plain txt; text/html html; }}
    default_type application/octet-stream;
    upstream botwarden {{ server {serve}; keepalive 8; }}
    # The test's loopback sources as the test zone's addresses (see zone()).
    map $remote_addr $client_addr {{
        127.0.0.2 192.0.2.2; 127.0.0.3 192.0.2.3; 127.0.0.4 192.0.2.4;
        default $remote_addr;
    }}
    server {{
        listen 127.0.0.1:{port};
        root \"{r}/htdocs\";

        location = /_botwarden {{
            internal;
            proxy_pass http://botwarden/verify;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_pass_request_body off;
            proxy_set_header Content-Length \"\";
            proxy_set_header X-Forwarded-For $client_addr;
        }}

        location / {{
            auth_request /_botwarden;
            auth_request_set $bot_verdict $upstream_http_x_bot_verdict;
            auth_request_set $bot_name $upstream_http_x_bot_name;
            add_header X-Bot-Verdict $bot_verdict always;
            add_header X-Bot-Name $bot_name always;
        }}

        # Verified crawlers get their own robots.txt.
        location = /robots.txt {{
            auth_request /_botwarden;
            auth_request_set $bot_verdict $upstream_http_x_bot_verdict;
            try_files /robots-$bot_verdict.txt /robots-default.txt =404;
        }}
    }}
}}
"
    )
}

pub(crate) fn start_nginx(root: &Path, serve: SocketAddr) -> (Daemon, u16) {
    assert!(
        Path::new("/usr/sbin/nginx").exists(),
        "/usr/sbin/nginx is missing: install the Debian package `nginx`"
    );
    let log = root.join("error.log");
    start_on_free_port("nginx", &log, |port| {
        let conf = root.join("nginx.conf");
        fs::write(&conf, nginx_conf(root, port, serve)).expect("config");
        let _ = fs::remove_file(&log);
        Command::new("/usr/sbin/nginx")
            .args([
                "-p",
                &root.display().to_string(),
                "-e",
                &log.display().to_string(),
            ])
            .args(["-c", &conf.display().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx")
    })
}

async fn fetch(from: Ipv4Addr, url: &str, ua: &str) -> (u16, String, String) {
    let r = client_from(from)
        .get(url)
        .header("user-agent", ua)
        .send()
        .await
        .expect("answer");
    let status = r.status().as_u16();
    let verdict = r
        .headers()
        .get("x-bot-verdict")
        .map(|v| v.to_str().expect("ASCII").to_owned())
        .unwrap_or_default();
    (status, verdict, r.text().await.expect("body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nginx_auth_request_in_front_of_a_static_site() {
    let dns = TestDns::start(zone()).await;
    for enforce in [true, false] {
        let running = serve(dns.addr(), enforce, &["127.0.0.1"]).await;
        let site = TempDir::new("nginx");
        let htdocs = site.0.join("htdocs");
        fs::create_dir_all(&htdocs).expect("htdocs");
        fs::write(htdocs.join("index.html"), "<p>home</p>\n").expect("index");
        fs::write(
            htdocs.join("robots-default.txt"),
            "User-agent: *\nDisallow: /\n",
        )
        .expect("r");
        fs::write(
            htdocs.join("robots-verified.txt"),
            "User-agent: *\nAllow: /\n",
        )
        .expect("r");
        let (_nginx, port) = start_nginx(&site.0, running.addr);
        let page = format!("http://127.0.0.1:{port}/index.html");
        let robots = format!("http://127.0.0.1:{port}/robots.txt");
        let log = || fs::read_to_string(site.0.join("error.log")).unwrap_or_default();

        let (status, verdict, body) = fetch(VERIFIED, &page, SEARCHBOT).await;
        assert_eq!(
            (status, verdict.as_str(), body.as_str()),
            (200, "verified", "<p>home</p>\n"),
            "{}",
            log()
        );
        let (status, verdict, _) = fetch(SPOOFED, &page, SEARCHBOT).await;
        assert_eq!(status, if enforce { 403 } else { 200 }, "{}", log());
        if !enforce {
            assert_eq!(verdict, "spoofed");
        }
        let (status, verdict, _) = fetch(HUMAN, &page, BROWSER).await;
        assert_eq!((status, verdict.as_str()), (200, "not-a-bot"), "{}", log());

        // robots.txt: the verified crawler's own file; everyone else's.
        let (status, _, body) = fetch(VERIFIED, &robots, SEARCHBOT).await;
        assert_eq!(
            (status, body.as_str()),
            (200, "User-agent: *\nAllow: /\n"),
            "{}",
            log()
        );
        let (_, _, body) = fetch(HUMAN, &robots, BROWSER).await;
        assert_eq!(body, "User-agent: *\nDisallow: /\n");
        let (status, _, body) = fetch(SPOOFED, &robots, SEARCHBOT).await;
        if enforce {
            assert_eq!(status, 403);
        } else {
            assert_eq!(body, "User-agent: *\nDisallow: /\n");
        }
        running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_wait_the_verdict_comes_in_the_background() {
    let dns = TestDns::start(zone().delay(Duration::from_millis(300))).await;
    let running = serve(dns.addr(), true, &["127.0.0.1"]).await;
    let local = Ipv4Addr::LOCALHOST;
    let url = running.url("/verify?wait=0");
    // Not in the cache: answered unknown at once, verified meanwhile.
    let first = ask(local, &url, SEARCHBOT, Some("192.0.2.3")).await;
    assert_eq!((first.0, first.2.as_str()), (200, "unknown"));
    assert!(first.4.contains("still running"), "{}", first.4);
    let mut deferred = 1;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = ask(local, &url, SEARCHBOT, Some("192.0.2.3")).await;
        if got.2 == "spoofed" {
            assert_eq!(got.0, 403);
            break;
        }
        assert_eq!(got.2, "unknown");
        assert!(got.4.contains("still running"), "{}", got.4);
        deferred += 1;
        assert!(Instant::now() < deadline, "never verified: {got:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A wait long enough gives the verdict in the same answer.
    let got = ask(
        local,
        &running.url("/verify?wait=10"),
        SEARCHBOT,
        Some("192.0.2.2"),
    )
    .await;
    assert_eq!((got.0, got.2.as_str()), (200, "verified"));
    // A bad parameter is said in the reason, never refused.
    let got = ask(
        local,
        &running.url("/verify?wait=soon"),
        SEARCHBOT,
        Some("192.0.2.2"),
    )
    .await;
    assert_eq!((got.0, got.2.as_str()), (200, "unknown"));
    assert!(got.4.contains("wait = 'soon'"), "{}", got.4);
    let text = reqwest::get(running.url("/metrics"))
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    assert!(
        text.lines()
            .any(|l| l == format!("botwarden_verify_deferred_total {deferred}")),
        "{text}"
    );
    running.stop().await;
}

/// The service's connection loop answers `GET /verify` itself, past the
/// router; a library user's own server mounts [`Service::router`]: both
/// give the same answers and count them the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_router_answers_verify_as_the_service_does() {
    let dns = TestDns::start(zone()).await;
    let dir = TempDir::new("gate-router");
    let mut cfg = config(&dir);
    cfg.nameserver = Some(dns.addr());
    cfg.enforce = true;
    cfg.trusted_proxies = vec!["127.0.0.1".to_owned()];
    let running = start(cfg.clone(), None).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let routed = listener.local_addr().expect("bound");
    let app = botwarden_serve::Service::new(cfg)
        .expect("the service starts")
        .router()
        .into_make_service_with_connect_info::<SocketAddr>();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let local = Ipv4Addr::LOCALHOST;
    let cases: [(&str, &str, Option<String>); 9] = [
        // Verified (DNS), then the same from the cache.
        (SEARCHBOT, "", Some(stands_for(VERIFIED))),
        (SEARCHBOT, "", Some(stands_for(VERIFIED))),
        // Spoofed: 403 in enforce mode, then from the cache.
        (SEARCHBOT, "", Some(stands_for(SPOOFED))),
        (SEARCHBOT, "", Some(stands_for(SPOOFED))),
        (BROWSER, "", Some(stands_for(HUMAN))),
        ("curl/8.0", "", None),
        // A trusted proxy's header without an address.
        (SEARCHBOT, "", Some("not an address".to_owned())),
        // A query the endpoint does not know.
        (SEARCHBOT, "?x=1", Some(stands_for(VERIFIED))),
        (SEARCHBOT, "?wait=0.5", Some(stands_for(VERIFIED))),
    ];
    for (ua, query, forwarded) in &cases {
        let direct = ask(
            local,
            &running.url(&format!("/verify{query}")),
            ua,
            forwarded.as_deref(),
        )
        .await;
        let through_router = ask(
            local,
            &format!("http://{routed}/verify{query}"),
            ua,
            forwarded.as_deref(),
        )
        .await;
        assert_eq!(direct, through_router, "{ua} {query} {forwarded:?}");
    }
    let counts = |text: String| -> Vec<String> {
        text.lines()
            .filter(|l| {
                l.starts_with("botwarden_http_requests_total{route=\"/verify\"")
                    || l.starts_with("botwarden_verdicts_total")
                    || l.starts_with("botwarden_verdict_cache_")
                    || l.starts_with("botwarden_bad_client_header_total")
            })
            .map(str::to_owned)
            .collect()
    };
    let metrics = |url: String| async move {
        crate::client()
            .get(url)
            .send()
            .await
            .expect("metrics")
            .text()
            .await
            .expect("text")
    };
    let direct = counts(metrics(running.url("/metrics")).await);
    let through_router = counts(metrics(format!("http://{routed}/metrics")).await);
    assert_eq!(direct, through_router);
    for line in [
        "botwarden_http_requests_total{route=\"/verify\",status=\"200\"} 7",
        "botwarden_http_requests_total{route=\"/verify\",status=\"403\"} 2",
        "botwarden_verdicts_total{bot=\"Searchbot\",verdict=\"spoofed\"} 2",
        "botwarden_verdicts_total{bot=\"Searchbot\",verdict=\"verified\"} 3",
        "botwarden_verdicts_total{bot=\"Searchbot\",verdict=\"unknown\"} 1",
        "botwarden_verdicts_total{bot=\"none\",verdict=\"not-a-bot\"} 1",
        "botwarden_verdicts_total{bot=\"unregistered\",verdict=\"unverifiable\"} 1",
        "botwarden_bad_client_header_total 1",
        "botwarden_verdict_cache_hits_total 3",
    ] {
        assert!(
            direct.iter().any(|l| l == line),
            "missing {line}: {direct:?}"
        );
    }
    server.abort();
    running.stop().await;
}
