//! `logs exports-follow --reload` with a real nginx: the analysis
//! announces its exports on Redis, the follower writes them and reloads
//! nginx, and nginx's answer — which depends on the geo include — changes
//! with each version.

use std::fs;
use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use botwarden_testdata::TempDir;
use botwarden_testdata::redis::RedisServer;

/// A child process killed (and waited for) on drop.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// nginx (master and one worker) on a free port under `root`, answering
/// every request with the bot the geo include gives the address in
/// `?ip=`, or `none`.
fn nginx(root: &Path, geo: &Path) -> (Killed, u16) {
    let r = root.display();
    fs::create_dir_all(root.join("tmp")).expect("tmp");
    for _ in 0..5 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("free port");
        let conf = format!(
            "daemon off;\nmaster_process on;\nworker_processes 1;\npid \"{r}/nginx.pid\";\n\
             error_log \"{r}/error.log\" notice;\nevents {{ worker_connections 64; }}\n\
             http {{\n  access_log off;\n\
               client_body_temp_path \"{r}/tmp\";\n  proxy_temp_path \"{r}/tmp\";\n\
               fastcgi_temp_path \"{r}/tmp\";\n  uwsgi_temp_path \"{r}/tmp\";\n  scgi_temp_path \"{r}/tmp\";\n\
               geo $arg_ip $botwarden_bot {{\n    default none;\n    include \"{}\";\n  }}\n\
               server {{\n    listen 127.0.0.1:{port};\n\
                 location / {{ default_type text/plain; return 200 \"$botwarden_bot\\n\"; }}\n  }}\n}}\n",
            geo.display()
        );
        fs::write(root.join("nginx.conf"), conf).expect("conf");
        let mut child = Command::new("/usr/sbin/nginx")
            .args(["-p", &r.to_string(), "-c", &format!("{r}/nginx.conf")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx (Debian package nginx; scripts/setup installs it)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return (Killed(child), port);
            }
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!(
        "nginx did not start: {}",
        fs::read_to_string(root.join("error.log")).unwrap_or_default()
    );
}

/// nginx's answer for `ip`.
fn bot_of(port: u16, ip: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to nginx");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(s, "GET /?ip={ip} HTTP/1.0\r\nHost: test\r\n\r\n").expect("request");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("answer");
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.trim().to_owned())
        .unwrap_or_default()
}

/// Asks nginx until it gives `want` for `ip` (a reload takes effect once
/// the new worker runs), at most 30 s.
fn wait_for(port: u16, ip: &str, want: &str, follower_log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = bot_of(port, ip);
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "nginx says {got:?} for {ip}, not {want:?}; the follower said:\n{}",
            fs::read_to_string(follower_log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until the follower's log holds `n` lines containing `what`.
fn wait_said(log: &Path, what: &str, n: usize) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let said = fs::read_to_string(log).unwrap_or_default();
        if said.matches(what).count() >= n {
            return said;
        }
        assert!(
            Instant::now() < deadline,
            "the follower did not say {what:?} {n} times:\n{said}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `logs export` of one Googlebot request from `ip`, announced on Redis.
fn announce(redis: &RedisServer, node: &Path, ip: &str) {
    let log = node.join("access.log");
    fs::write(
        &log,
        format!(
            "{ip} - - [10/Oct/2026:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5 \"-\" \
             \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"\n"
        ),
    )
    .expect("log");
    let path = |name: &str| node.join(name).to_str().expect("UTF-8").to_owned();
    let out = crate::botwarden(
        &[
            "logs",
            "export",
            "--no-dns",
            "--redis",
            &redis.url(),
            "--export-nginx-geo",
            &path("nginx-geo.conf"),
            "--export-acap",
            &path("acap"),
            &path("access.log"),
        ],
        b"",
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("(1 files, 1 trees)"), "{stderr}");
}

#[test]
fn each_version_announced_is_written_and_nginx_reloaded_to_read_it() {
    let redis = RedisServer::start();
    let temp = TempDir::new("exports-follow");
    let node = temp.path().join("node");
    let web = temp.path().join("web");
    fs::create_dir_all(&node).expect("node");
    fs::create_dir_all(&web).expect("web");
    let geo = web.join("nginx-geo.conf");
    // nginx needs the include to start: empty until the first version.
    fs::write(&geo, "").expect("geo");
    let root = temp.path().join("nginx");
    let (_nginx, port) = nginx(&root, &geo);
    assert_eq!(bot_of(port, "66.249.66.1"), "none");

    let follower_log = temp.path().join("follower.log");
    let reload = format!(
        "/usr/sbin/nginx -p '{r}' -c '{r}/nginx.conf' -s reload",
        r = root.display()
    );
    let web_dir: PathBuf = web.clone();
    let _follower = Killed(
        Command::new(env!("CARGO_BIN_EXE_botwarden"))
            .args(["logs", "exports-follow", "--redis", &redis.url(), "--dir"])
            .arg(&web_dir)
            .args(["--reload", &reload])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(&follower_log).expect("log"))
            .spawn()
            .expect("start the follower"),
    );

    // First version: 66.249.66.1 is Googlebot.
    announce(&redis, &node, "66.249.66.1");
    let said = wait_said(&follower_log, "reload `", 1);
    assert!(said.contains("trees acap/ (2 files)"), "{said}");
    assert!(said.contains("done"), "{said}");
    wait_for(port, "66.249.66.1", "Googlebot", &follower_log);
    assert_eq!(bot_of(port, "66.249.66.2"), "none");
    assert!(web.join("acap/all-ok-bots/66.249.66.1").is_file());

    // Second version: only 66.249.66.2. nginx answers from the new
    // include once reloaded: .1 is no longer listed.
    announce(&redis, &node, "66.249.66.2");
    wait_said(&follower_log, "reload `", 2);
    let include = fs::read_to_string(&geo).expect("the include");
    assert!(!include.contains("66.249.66.1/"), "{include}");
    // The old worker may answer a last request while the new one starts.
    wait_for(port, "66.249.66.2", "Googlebot", &follower_log);
    wait_for(port, "66.249.66.1", "none", &follower_log);
    assert!(web.join("acap/all-ok-bots/66.249.66.2").is_file());
    assert!(!web.join("acap/all-ok-bots/66.249.66.1").exists());
}

#[test]
fn a_failing_reload_is_reported_with_its_status_and_standard_error() {
    let redis = RedisServer::start();
    let temp = TempDir::new("exports-follow-fail");
    let node = temp.path().join("node");
    fs::create_dir_all(&node).expect("node");
    announce(&redis, &node, "66.249.66.1");
    let out = crate::botwarden(
        &[
            "logs",
            "exports-follow",
            "--redis",
            &redis.url(),
            "--dir",
            temp.path().join("web").to_str().expect("UTF-8"),
            "--reload",
            "echo 'nginx: [error] invalid PID number' >&2; exit 1",
            "--once",
        ],
        b"",
    );
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    // The version is written; the failed reload is said, with its status
    // and standard error, and is the run's exit status with --once.
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("failed: exit status 1: nginx: [error] invalid PID number"),
        "{said}"
    );
    assert!(temp.path().join("web/nginx-geo.conf").is_file());
    assert!(
        temp.path()
            .join("web/acap/all-ok-bots/66.249.66.1")
            .is_file()
    );
}
