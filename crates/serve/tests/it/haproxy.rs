//! The HAProxy recipe of docs/serve.md, with the Lua action the crate
//! ships (`recipes/botwarden.lua`), in front of a backend that echoes the
//! verdict headers it is given.

use std::fs;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::process::{Command, Stdio};

use axum::http::HeaderMap;
use axum::routing::get;
use botwarden_testdata::dns::TestDns;

use crate::TempDir;
use crate::gate::{
    BROWSER, Daemon, HUMAN, SEARCHBOT, SPOOFED, VERIFIED, client_from, serve, start_on_free_port,
    zone,
};

/// The backend: robots.txt for everyone, another for verified crawlers,
/// and every other path answered with the verdict headers it received.
pub(crate) async fn backend() -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let echo = |headers: HeaderMap| async move {
        let h = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("(none)")
                .to_owned()
        };
        format!(
            "verdict={} name={} method={}\n",
            h("x-bot-verdict"),
            h("x-bot-name"),
            h("x-bot-method")
        )
    };
    let app = axum::Router::new()
        .route(
            "/robots.txt",
            get(|| async { "User-agent: *\nDisallow: /\n" }),
        )
        .route(
            "/robots-verified.txt",
            get(|| async { "User-agent: *\nAllow: /\n" }),
        )
        .fallback(echo);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.expect("backend");
    });
    (addr, task)
}

/// The Lua action the crate ships.
fn lua_script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/botwarden.lua")
}

/// The recipe of docs/serve.md ("HAProxy"), with the test's paths and
/// ports, and the test's loopback sources given as the test zone's
/// addresses (see `gate::zone`).
fn haproxy_conf(port: u16, serve: SocketAddr, site: SocketAddr) -> String {
    format!(
        "global
    lua-load \"{lua}\"

defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s

frontend web
    bind 127.0.0.1:{port}
    # The test's loopback sources as the test zone's addresses.
    http-request set-var(txn.botwarden_client) str(192.0.2.2) if {{ src 127.0.0.2 }}
    http-request set-var(txn.botwarden_client) str(192.0.2.3) if {{ src 127.0.0.3 }}
    http-request set-var(txn.botwarden_client) str(192.0.2.4) if {{ src 127.0.0.4 }}

    http-request lua.botwarden http://{serve}/verify
    http-request deny deny_status 403 if {{ var(txn.bot_status) -m int 403 }}
    # The verdict for the backend (replacing whatever the client sent).
    http-request set-header X-Bot-Verdict %[var(txn.bot_verdict)]
    http-request set-header X-Bot-Name %[var(txn.bot_name)]
    http-request set-header X-Bot-Method %[var(txn.bot_method)]
    # Verified crawlers get their own robots.txt.
    http-request set-path /robots-verified.txt if {{ path /robots.txt }} {{ var(txn.bot_verdict) -m str verified }}
    default_backend site

backend site
    server site {site}
",
        lua = lua_script().display()
    )
}

fn start_haproxy(root: &Path, serve: SocketAddr, site: SocketAddr) -> (Daemon, u16) {
    assert!(
        Path::new("/usr/sbin/haproxy").exists(),
        "/usr/sbin/haproxy is missing: install the Debian package `haproxy`"
    );
    let log = root.join("haproxy.log");
    start_on_free_port("haproxy", &log, |port| {
        let conf = root.join("haproxy.cfg");
        fs::write(&conf, haproxy_conf(port, serve, site)).expect("config");
        Command::new("/usr/sbin/haproxy")
            .args(["-db", "-f", &conf.display().to_string()])
            .stdout(Stdio::null())
            .stderr(fs::File::create(&log).expect("log"))
            .spawn()
            .expect("start haproxy")
    })
}

/// Status and body of a GET from `from`, with extra headers.
pub(crate) async fn get_from(
    from: Ipv4Addr,
    url: &str,
    ua: &str,
    extra: &[(&str, &str)],
) -> (u16, String) {
    let mut request = client_from(from).get(url).header("user-agent", ua);
    for (k, v) in extra {
        request = request.header(*k, *v);
    }
    let r = request.send().await.expect("answer");
    (r.status().as_u16(), r.text().await.expect("body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn haproxy_with_the_lua_action_in_front_of_a_backend() {
    let dns = TestDns::start(zone()).await;
    let (site, site_task) = backend().await;
    for enforce in [true, false] {
        let running = serve(dns.addr(), enforce, &["127.0.0.1"]).await;
        let dir = TempDir::new("haproxy");
        let (haproxy, port) = start_haproxy(&dir.0, running.addr, site);
        let page = format!("http://127.0.0.1:{port}/page");
        let robots = format!("http://127.0.0.1:{port}/robots.txt");
        let log = || fs::read_to_string(dir.0.join("haproxy.log")).unwrap_or_default();

        let got = get_from(VERIFIED, &page, SEARCHBOT, &[]).await;
        assert_eq!(
            got,
            (
                200,
                "verdict=verified name=Searchbot method=fcrdns\n".to_owned()
            ),
            "{}",
            log()
        );
        let got = get_from(SPOOFED, &page, SEARCHBOT, &[]).await;
        if enforce {
            assert_eq!(got.0, 403, "{}", log());
        } else {
            assert_eq!(
                got,
                (200, "verdict=spoofed name=Searchbot method=-\n".to_owned())
            );
        }
        // A person, who also sends a verdict of their own: replaced.
        let got = get_from(HUMAN, &page, BROWSER, &[("x-bot-verdict", "verified")]).await;
        assert_eq!(
            got,
            (200, "verdict=not-a-bot name=- method=-\n".to_owned()),
            "{}",
            log()
        );

        // robots.txt: the verified crawler's own file; everyone else's.
        let got = get_from(VERIFIED, &robots, SEARCHBOT, &[]).await;
        assert_eq!(got, (200, "User-agent: *\nAllow: /\n".to_owned()));
        let got = get_from(HUMAN, &robots, BROWSER, &[]).await;
        assert_eq!(got, (200, "User-agent: *\nDisallow: /\n".to_owned()));
        let got = get_from(SPOOFED, &robots, SEARCHBOT, &[]).await;
        if enforce {
            assert_eq!(got.0, 403);
        } else {
            assert_eq!(got, (200, "User-agent: *\nDisallow: /\n".to_owned()));
        }

        // The service stopped: requests go on, marked error (fail open).
        running.stop().await;
        let got = get_from(SPOOFED, &page, SEARCHBOT, &[]).await;
        assert_eq!(
            got,
            (200, "verdict=error name=- method=-\n".to_owned()),
            "{}",
            log()
        );
        drop(haproxy);
    }
    site_task.abort();
}
