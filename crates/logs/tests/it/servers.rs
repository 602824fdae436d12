//! The snippets in real web servers: Apache httpd, nginx and HAProxy read
//! the exports, and follow them when botwarden replaces them.
//!
//! Needs (Debian): `apt-get install apache2 nginx haproxy`. A missing
//! server fails the test with the package to install.

use std::fmt::Write as _;
use std::fs;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use base64::Engine as _;
use botwarden_logs::{
    ApacheLookup, BasicAuth, Listed, Server, SnippetContext, SnippetOptions, Standing,
    apache_rewrite_map, haproxy_map, nginx_geo, snippet, snippet_parts, write_acap_tree,
    write_atomic,
};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::export::{TempDir, listed};

const A: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const B: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);
const UNLISTED: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 4);
const USER: &str = "alice";
const PASSWORD: &str = "s3cret";

fn require(binary: &str, package: &str) {
    assert!(
        Path::new(binary).exists(),
        "{binary} is missing: install the Debian package `{package}` (apt-get install {package})"
    );
}

/// A running server, stopped (SIGTERM, then SIGKILL) when dropped.
struct Running {
    child: Child,
}

impl Running {
    fn pid(&self) -> String {
        self.child.id().to_string()
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill").args([signal, &self.pid()]).status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "kill {signal} {}",
            self.pid()
        );
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.pid()]).status();
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

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// Starts a server on a free port; `start(port)` writes the configuration
/// and spawns it. A start that loses its port to another process is retried.
fn start_on_free_port(
    what: &str,
    log: &Path,
    mut start: impl FnMut(u16) -> Child,
) -> (Running, u16) {
    for _ in 0..5 {
        let port = free_port();
        let mut running = Running { child: start(port) };
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok(Some(status)) = running.child.try_wait() {
                let text = fs::read_to_string(log).unwrap_or_default();
                assert!(
                    text.contains("in use") || text.contains("Address already"),
                    "{what} exited ({status}) at start: {text}"
                );
                break;
            }
            if std::net::TcpStream::connect_timeout(
                &SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
                Duration::from_millis(200),
            )
            .is_ok()
            {
                return (running, port);
            }
            assert!(
                Instant::now() < deadline,
                "{what} did not start listening: {}",
                read(log)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(running);
    }
    panic!("{what} could not get a free port");
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

/// `GET path` over HTTP/1.0 from the source address `from`.
async fn get(from: Ipv4Addr, port: u16, path: &str, auth: bool) -> (u16, String) {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::from((from, 0)))
        .expect("bind source address");
    let mut stream = socket
        .connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
        .await
        .expect("connect");
    let mut request = format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n");
    if auth {
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
        let _ = write!(request, "Authorization: Basic {token}\r\n");
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
        .await
        .expect("response in time")
        .expect("read");
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// What each source address should get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Verified,
    Spoofed,
    Unlisted,
}

async fn observed(from: Ipv4Addr, port: u16) -> Result<(), String> {
    let robots = get(from, port, "/robots.txt", false).await;
    let secret = get(from, port, "/secret.txt", false).await;
    let with_auth = get(from, port, "/secret.txt", true).await;
    Err(format!(
        "{from}: robots {robots:?}, secret {secret:?}, secret with auth {with_auth:?}"
    ))
}

async fn check(from: Ipv4Addr, role: Role, port: u16) -> Result<(), String> {
    let robots = get(from, port, "/robots.txt", false).await;
    let secret = get(from, port, "/secret.txt", false).await;
    let ok = match role {
        Role::Verified => {
            robots.0 == 200
                && robots.1.trim() == "crawler robots"
                && secret.0 == 200
                && secret.1.trim() == "secret"
        }
        Role::Spoofed => robots.0 == 403 && secret.0 == 403,
        Role::Unlisted => {
            let with_auth = get(from, port, "/secret.txt", true).await;
            robots.0 == 200
                && robots.1.trim() == "normal robots"
                && secret.0 == 401
                && with_auth.0 == 200
                && with_auth.1.trim() == "secret"
        }
    };
    if ok {
        Ok(())
    } else {
        let seen = observed(from, port).await.err().unwrap_or_default();
        Err(format!("expected {role:?}; {seen}"))
    }
}

async fn check_all(port: u16, roles: &[(Ipv4Addr, Role)]) -> Result<(), String> {
    for &(from, role) in roles {
        check(from, role, port).await?;
    }
    Ok(())
}

/// Retries `check_all` until it passes or `wait` runs out.
async fn eventually(port: u16, roles: &[(Ipv4Addr, Role)], wait: Duration, log: &Path) {
    let deadline = Instant::now() + wait;
    loop {
        match check_all(port, roles).await {
            Ok(()) => return,
            Err(e) if Instant::now() >= deadline => panic!("{e}\nserver log:\n{}", read(log)),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// The lists of the two rounds: first A verified and B spoofed, then the
/// other way round, with the unlisted address listed as an unverifiable
/// crawler (which is treated like any visitor).
fn round(first: bool) -> (Vec<Listed>, [(Ipv4Addr, Role); 3]) {
    let (good, bad) = if first { (A, B) } else { (B, A) };
    let mut list = vec![
        listed(&good.to_string(), "Googlebot", Standing::Verified),
        listed(&bad.to_string(), "Googlebot", Standing::Spoofed),
    ];
    if !first {
        list.push(listed(
            &UNLISTED.to_string(),
            "SomeCrawler",
            Standing::Other,
        ));
    }
    (
        list,
        [
            (good, Role::Verified),
            (bad, Role::Spoofed),
            (UNLISTED, Role::Unlisted),
        ],
    )
}

/// The exports, the site and the snippet options in one directory.
struct Site {
    tmp: TempDir,
    opts: SnippetOptions,
}

impl Site {
    fn new(tag: &str) -> Self {
        let tmp = TempDir::new(tag);
        let root = tmp.0.clone();
        fs::create_dir_all(root.join("htdocs")).expect("htdocs");
        fs::write(root.join("htdocs/robots.txt"), "normal robots\n").expect("robots");
        fs::write(root.join("htdocs/secret.txt"), "secret\n").expect("secret");
        fs::create_dir_all(root.join("exports")).expect("exports");
        fs::write(root.join("exports/robots-verified.txt"), "crawler robots\n").expect("robots");
        fs::write(
            root.join("htpasswd"),
            format!("{USER}:{{SHA}}{}\n", sha1_base64(PASSWORD)),
        )
        .expect("htpasswd");
        let opts = SnippetOptions {
            acap_dir: root.join("exports/acap"),
            apache_map: root.join("exports/apache.map"),
            apache_lookup: ApacheLookup::AcapTree,
            nginx_geo: root.join("exports/nginx-geo.conf"),
            haproxy_map: root.join("exports/haproxy.map"),
            verified_robots: root.join("exports/robots-verified.txt"),
            basic_auth: Some(BasicAuth {
                path: "/".to_owned(),
                realm: "Members only".to_owned(),
                user_file: root.join("htpasswd"),
                haproxy_userlist: "botwarden".to_owned(),
            }),
        };
        Self { tmp, opts }
    }

    fn root(&self) -> &Path {
        &self.tmp.0
    }

    fn export(&self, list: &[Listed]) {
        let now = SystemTime::now();
        write_acap_tree(&self.opts.acap_dir, list).expect("acap tree");
        write_atomic(
            &self.opts.apache_map,
            apache_rewrite_map(list, now).as_bytes(),
        )
        .expect("map");
        write_atomic(&self.opts.nginx_geo, nginx_geo(list, now).as_bytes()).expect("geo");
        write_atomic(&self.opts.haproxy_map, haproxy_map(list, now).as_bytes()).expect("haproxy");
    }
}

fn apache_config(site: &Site, port: u16) -> String {
    let root = site.root().display();
    let modules = [
        ("mpm_event_module", "mod_mpm_event.so"),
        ("authz_core_module", "mod_authz_core.so"),
        ("authz_host_module", "mod_authz_host.so"),
        ("authn_core_module", "mod_authn_core.so"),
        ("authn_file_module", "mod_authn_file.so"),
        ("auth_basic_module", "mod_auth_basic.so"),
        ("authz_user_module", "mod_authz_user.so"),
        ("rewrite_module", "mod_rewrite.so"),
        ("alias_module", "mod_alias.so"),
        ("mime_module", "mod_mime.so"),
        ("dir_module", "mod_dir.so"),
    ];
    let mut conf = format!(
        "ServerRoot \"{root}\"\n\
         ServerName localhost\n\
         Listen 127.0.0.1:{port}\n\
         PidFile \"{root}/run/httpd.pid\"\n\
         ErrorLog \"{root}/error.log\"\n\
         DefaultRuntimeDir \"{root}/run\"\n\
         LogLevel warn\n\
         User www-data\n\
         Group www-data\n"
    );
    for (name, file) in modules {
        let _ = writeln!(conf, "LoadModule {name} /usr/lib/apache2/modules/{file}");
    }
    let _ = write!(
        conf,
        "TypesConfig \"{root}/mime.types\"\n\
         AddType text/plain .txt\n\
         DocumentRoot \"{root}/htdocs\"\n\
         <Directory />\n    AllowOverride None\n    Require all denied\n</Directory>\n\
         <Directory \"{root}/htdocs\">\n    Require all granted\n</Directory>\n\
         <VirtualHost 127.0.0.1:{port}>\n\
         \x20   Include \"{root}/botwarden.conf\"\n\
         </VirtualHost>\n"
    );
    conf
}

async fn apache_follows(lookup: ApacheLookup, tag: &str) {
    require("/usr/sbin/apache2", "apache2");
    let mut site = Site::new(tag);
    site.opts.apache_lookup = lookup;
    let root = site.root().to_path_buf();
    fs::create_dir_all(root.join("run")).expect("run dir");
    fs::write(root.join("mime.types"), "").expect("mime.types");
    let (first, roles) = round(true);
    site.export(&first);
    let text = snippet(Server::Apache, &site.opts).expect("valid options");
    fs::write(root.join("botwarden.conf"), &text).expect("snippet");
    let log = root.join("error.log");
    let (_server, port) = start_on_free_port("apache2", &log, |port| {
        let conf = root.join("httpd.conf");
        fs::write(&conf, apache_config(&site, port)).expect("config");
        let _ = fs::remove_file(&log);
        Command::new("/usr/sbin/apache2")
            .args(["-f", &conf.display().to_string(), "-DFOREGROUND"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start apache2")
    });
    check_all(port, &roles)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", read(&log)));

    // Replaced while running: the next request sees the new list.
    let (second, roles) = round(false);
    site.export(&second);
    check_all(port, &roles)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", read(&log)));
    site.export(&first);
    check_all(port, &round(true).1)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", read(&log)));
}

#[tokio::test]
async fn apache_acap_tree() {
    apache_follows(ApacheLookup::AcapTree, "apache-tree").await;
}

#[tokio::test]
async fn apache_rewrite_map_txt() {
    apache_follows(ApacheLookup::RewriteMap, "apache-map").await;
}

#[tokio::test]
async fn nginx_geo_after_reload() {
    require("/usr/sbin/nginx", "nginx");
    let site = Site::new("nginx");
    let root = site.root().to_path_buf();
    let (first, roles) = round(true);
    site.export(&first);
    let parts = snippet_parts(Server::Nginx, &site.opts).expect("valid options");
    let part = |context| {
        parts
            .iter()
            .find(|p| p.context == context)
            .map(|p| p.text.clone())
            .expect("part")
    };
    fs::write(
        root.join("botwarden-http.conf"),
        part(SnippetContext::NginxHttp),
    )
    .expect("http");
    fs::write(
        root.join("botwarden-server.conf"),
        part(SnippetContext::NginxServer),
    )
    .expect("srv");
    assert_eq!(
        snippet(Server::Nginx, &site.opts).expect("valid options"),
        format!(
            "{}\n{}",
            part(SnippetContext::NginxHttp),
            part(SnippetContext::NginxServer)
        )
    );
    let log = root.join("error.log");
    let conf = root.join("nginx.conf");
    let (server, port) = start_on_free_port("nginx", &log, |port| {
        let r = root.display();
        fs::write(
            &conf,
            format!(
                "daemon off;\n\
                 master_process on;\n\
                 worker_processes 1;\n\
                 user www-data;\n\
                 pid \"{r}/nginx.pid\";\n\
                 error_log \"{r}/error.log\" warn;\n\
                 events {{ worker_connections 64; }}\n\
                 http {{\n\
                 \x20   access_log off;\n\
                 \x20   types {{ text/plain txt; }}\n\
                 \x20   default_type application/octet-stream;\n\
                 \x20   include \"{r}/botwarden-http.conf\";\n\
                 \x20   server {{\n\
                 \x20       listen 127.0.0.1:{port};\n\
                 \x20       root \"{r}/htdocs\";\n\
                 \x20       include \"{r}/botwarden-server.conf\";\n\
                 \x20   }}\n\
                 }}\n"
            ),
        )
        .expect("config");
        let _ = fs::remove_file(&log);
        Command::new("/usr/sbin/nginx")
            .args(["-p", &r.to_string(), "-e", &log.display().to_string()])
            .args(["-c", &conf.display().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx")
    });
    check_all(port, &roles)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", read(&log)));

    // geo reads its include when the configuration is loaded: without a
    // reload nginx keeps the old list, after one it follows.
    let (second, roles) = round(false);
    site.export(&second);
    check_all(port, &round(true).1)
        .await
        .expect("nginx keeps the old list until a reload");
    let status = Command::new("/usr/sbin/nginx")
        .args([
            "-p",
            &root.display().to_string(),
            "-e",
            &log.display().to_string(),
        ])
        .args(["-c", &conf.display().to_string(), "-s", "reload"])
        .status()
        .expect("nginx -s reload");
    assert!(status.success(), "nginx -s reload: {}", read(&log));
    eventually(port, &roles, Duration::from_secs(15), &log).await;
    drop(server);
}

#[tokio::test]
async fn haproxy_map_after_reload() {
    require("/usr/sbin/haproxy", "haproxy");
    let site = Site::new("haproxy");
    let root = site.root().to_path_buf();
    let (first, roles) = round(true);
    site.export(&first);
    let text = snippet(Server::Haproxy, &site.opts).expect("valid options");
    let log = root.join("haproxy.log");
    let conf = root.join("haproxy.cfg");
    let write_conf = |port: u16| {
        let mut cfg = format!(
            "global\n\
             \x20   log stderr format raw local0 warning\n\
             defaults\n\
             \x20   mode http\n\
             \x20   log global\n\
             \x20   timeout connect 5s\n\
             \x20   timeout client 10s\n\
             \x20   timeout server 10s\n\
             userlist botwarden\n\
             \x20   user {USER} insecure-password {PASSWORD}\n\
             frontend site\n\
             \x20   bind 127.0.0.1:{port}\n"
        );
        for line in text.lines() {
            let _ = writeln!(cfg, "    {line}");
        }
        cfg.push_str(
            "    http-request return status 200 content-type text/plain string \"normal robots\" if { path /robots.txt }\n\
             \x20   http-request return status 200 content-type text/plain string \"secret\"\n",
        );
        fs::write(&conf, cfg).expect("config");
    };
    write_conf(1);
    let check = Command::new("/usr/sbin/haproxy")
        .args(["-c", "-f", &conf.display().to_string()])
        .output()
        .expect("haproxy -c");
    assert!(
        check.status.success(),
        "haproxy -c: {}",
        String::from_utf8_lossy(&check.stderr)
    );

    let (server, port) = start_on_free_port("haproxy", &log, |port| {
        write_conf(port);
        let out = fs::File::create(&log).expect("log");
        Command::new("/usr/sbin/haproxy")
            .args(["-W", "-db", "-f", &conf.display().to_string()])
            .stdout(Stdio::null())
            .stderr(out)
            .spawn()
            .expect("start haproxy")
    });
    check_all(port, &roles)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", read(&log)));

    // HAProxy reads the map at start: it follows after a reload (SIGUSR2 to
    // the master process).
    let (second, roles) = round(false);
    site.export(&second);
    check_all(port, &round(true).1)
        .await
        .expect("HAProxy keeps the old map until a reload");
    // A master still settling after its start may miss one SIGUSR2, so the
    // signal is sent again until the new map answers (a reload more is
    // harmless).
    for _ in 0..5 {
        server.signal("-USR2");
        if until(port, &roles, Duration::from_secs(5)).await {
            break;
        }
    }
    eventually(port, &roles, Duration::from_secs(5), &log).await;
    drop(server);
}

/// Whether every role answers as expected within `wait`.
async fn until(port: u16, roles: &[(Ipv4Addr, Role)], wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        if check_all(port, roles).await.is_ok() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// `{SHA}` password hash of htpasswd: base64 of the SHA-1 digest.
fn sha1_base64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(sha1(text.as_bytes()))
}

/// SHA-1 (FIPS 180-4), enough for a test password.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0_u32; 80];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, &wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..20 => ((b & c) | (!b & d), 0x5A82_7999),
                20..40 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..60 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0_u8; 20];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[test]
fn sha1_known_answer() {
    assert_eq!(sha1_base64("abc"), "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=");
    assert_eq!(sha1_base64(""), "2jmj7l5rSw0yVb/vlWAYkK/YBwk=");
}
