//! `logs analyze --crawl`: a site served by nginx on loopback, crawled by
//! `botwarden crawl`, then asked by bots (nginx's realip module takes
//! their address from `X-Forwarded-For`, so the log nginx writes holds
//! crawlers' published addresses); that log joined with the crawl's store.

use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::botwarden;

/// robots.txt: every robot out of `/private/`, bingbot asked to wait 30 s.
const ROBOTS: &str = "User-agent: *\nDisallow: /private/\n\nUser-agent: bingbot\nCrawl-delay: 30\nDisallow: /private/\n";

fn generate(site: &Path) {
    for dir in ["blog", "private"] {
        fs::create_dir_all(site.join(dir)).expect("site dir");
    }
    let page = |head: &str, body: &str| {
        format!(
            "<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>\n"
        )
    };
    let files = [
        ("robots.txt", ROBOTS.to_owned()),
        (
            "index.html",
            page(
                "",
                r#"<a href="/blog/a.html">a</a> <a href="/blog/b.html">b</a> <a href="/c.html">c</a> <a href="/old">old</a> <a href="/private/x.html">x</a>"#,
            ),
        ),
        ("blog/a.html", page("", r#"<a href="/">home</a>"#)),
        (
            "blog/b.html",
            page(r#"<meta name="robots" content="noindex">"#, "b"),
        ),
        (
            "c.html",
            page(r#"<link rel="canonical" href="/blog/a.html">"#, "c"),
        ),
        ("private/x.html", page("", "x")),
    ];
    for (name, text) in files {
        fs::write(site.join(name), text).expect("file");
    }
}

/// nginx on a free port serving the site, its access log in the
/// `combined` format with the client's address taken from
/// `X-Forwarded-For` when the peer is 127.0.0.1; killed and removed on
/// drop.
struct Nginx {
    child: Child,
    root: PathBuf,
    port: u16,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn nginx() -> Nginx {
    let root = std::env::temp_dir().join(format!("botwarden-logs-crawl-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    generate(&root.join("site"));
    fs::create_dir_all(root.join("tmp")).expect("tmp");
    let r = root.display().to_string();
    for _ in 0..5 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("free port");
        let conf = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid \"{r}/nginx.pid\";\n\
             error_log \"{r}/error.log\" warn;\nevents {{ worker_connections 64; }}\n\
             http {{\n  types {{ text/html html; text/plain txt; }}\n\
               access_log \"{r}/access.log\" combined;\n\
               set_real_ip_from 127.0.0.1;\n  real_ip_header X-Forwarded-For;\n\
               client_body_temp_path \"{r}/tmp\";\n  proxy_temp_path \"{r}/tmp\";\n\
               fastcgi_temp_path \"{r}/tmp\";\n  uwsgi_temp_path \"{r}/tmp\";\n  scgi_temp_path \"{r}/tmp\";\n\
               server {{\n    listen 127.0.0.1:{port};\n    root \"{r}/site\";\n\
                 location = /old {{ return 301 /blog/a.html; }}\n  }}\n}}\n"
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
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Nginx { child, root, port };
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

/// One GET as a bot from `client` (by `X-Forwarded-For`); the answer's
/// status.
fn get(port: u16, path: &str, client: &str, ua: &str) -> u16 {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: {ua}\r\n\
         X-Forwarded-For: {client}\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const BINGBOT: &str = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
const GPTBOT: &str = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";

#[test]
fn a_real_log_joined_with_a_real_crawl() {
    let site = nginx();
    let db = site.root.join("crawl.db");
    let url = format!("http://127.0.0.1:{}/", site.port);
    let out = botwarden(
        &[
            "crawl",
            &url,
            "--db",
            db.to_str().expect("UTF-8"),
            "--allow-private",
        ],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Googlebot (its published ranges) five requests, one robots.txt
    // keeps it from, and robots.txt itself; bingbot two within a second of each other, 30 s
    // asked; GPTBot one, and one from an address outside OpenAI's.
    // Today, taken before any request is made: a copy of robots.txt
    // dated so is in force for all of them, even across midnight.
    let today = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let port = site.port;
    let asked = [
        ("/", "66.249.66.1", GOOGLEBOT, 200),
        ("/blog/a.html", "66.249.66.1", GOOGLEBOT, 200),
        ("/private/x.html", "66.249.66.1", GOOGLEBOT, 200),
        ("/gone.html", "66.249.66.1", GOOGLEBOT, 404),
        ("/old", "66.249.66.1", GOOGLEBOT, 301),
        ("/robots.txt", "66.249.66.1", GOOGLEBOT, 200),
        ("/", "157.55.39.1", BINGBOT, 200),
        ("/blog/b.html", "157.55.39.1", BINGBOT, 200),
        ("/c.html", "20.171.206.10", GPTBOT, 200),
        ("/private/x.html", "203.0.113.9", GPTBOT, 200),
    ];
    for (path, client, ua, status) in asked {
        assert_eq!(get(port, path, client, ua), status, "{path}");
    }
    let log = site.root.join("access.log");
    let exports = site.root.join("exports");
    let csv = site.root.join("csv");
    let out = botwarden(
        &[
            "logs",
            "analyze",
            "--no-dns",
            "--crawl",
            db.to_str().expect("UTF-8"),
            "--report",
            "json",
            "--export-ignoring-robots",
            exports.to_str().expect("UTF-8"),
            "--crawl-csv",
            csv.to_str().expect("UTF-8"),
            log.to_str().expect("UTF-8"),
        ],
        b"",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let c = &report["crawl"];
    let origin = format!("http://127.0.0.1:{port}");
    assert_eq!(c["origins"], serde_json::json!([origin]));
    assert_eq!(c["robots"][0]["source"], "crawl");
    // The crawl: /, /blog/a, /blog/b, /c, /old (a redirect), /private/x
    // (kept out by robots.txt); pages are the four HTML answers.
    assert_eq!(
        (c["urls"].as_u64(), c["pages"].as_u64()),
        (Some(6), Some(4))
    );
    let a = &c["accounting"];
    assert_eq!(a["requests"], 10, "{a}");
    assert_eq!(a["verified"], 9, "{a}");
    assert_eq!(a["spoofed"], 1, "{a}");
    assert_eq!(a["joined"], 9, "{a}");
    let bot = |name: &str| {
        c["bots"]
            .as_array()
            .expect("bots")
            .iter()
            .find(|b| b["bot"] == name)
            .unwrap_or_else(|| panic!("{name}: {c}"))
            .clone()
    };
    let g = bot("Googlebot");
    assert_eq!(g["requests"], 6);
    assert_eq!(g["requests_in_crawl"], 4);
    // /gone.html; robots.txt is counted apart, and is no orphan.
    assert_eq!(g["requests_not_in_crawl"], 1);
    assert_eq!(g["robots_fetches"], 1);
    assert_eq!(c["orphans"]["urls"], 1, "{c}");
    assert_eq!(g["waste"]["redirect"], 1);
    assert_eq!(g["disallowed"], 1);
    assert_eq!(
        g["disallowed_examples"],
        serde_json::json!([format!("{origin}/private/x.html")])
    );
    let b = bot("bingbot");
    assert_eq!(b["waste"]["noindex"], 1);
    let delay = &b["crawl_delay"][0];
    assert_eq!(delay["delay"], 30.0);
    assert_eq!(delay["gaps"], 1);
    assert_eq!(delay["kept"], 0);
    assert_eq!(delay["keeps"], false);
    let gpt = bot("GPTBot");
    assert_eq!(gpt["requests"], 1);
    assert_eq!(gpt["waste"]["non_canonical"], 1);
    assert_eq!(
        (gpt["spoofed"].as_u64(), gpt["spoofed_disallowed"].as_u64()),
        (Some(1), Some(1))
    );
    // /c only GPTBot asked for: no search bot did.
    let never = &c["never_crawled"];
    assert_eq!(never["not_requested"], 1);
    assert_eq!(never["list"][0]["url"], format!("{origin}/c.html"));
    assert_eq!(
        c["orphans"]["list"][0]["url"],
        format!("{origin}/gone.html")
    );
    assert_eq!(c["orphans"]["list"][0]["kind"], "gone");
    // The exports list Googlebot's address alone, in every format.
    assert_eq!(
        fs::read_to_string(exports.join("ignoring-robots.txt")).expect("list"),
        "66.249.66.1\n"
    );
    let geo = fs::read_to_string(exports.join("ignoring-robots.geo")).expect("geo");
    assert!(geo.contains("66.249.66.1"), "{geo}");
    assert!(!geo.contains("203.0.113.9"), "{geo}");
    assert!(
        exports
            .join("ignoring-robots/all-ok-bots/66.249.66.1")
            .exists()
    );
    let bots = fs::read_to_string(csv.join("bots.csv")).expect("bots.csv");
    assert!(bots.contains("\r\nGooglebot,search,google,6,"), "{bots}");
    let orphans = fs::read_to_string(csv.join("orphans.csv")).expect("orphans.csv");
    assert!(
        orphans.contains("/gone.html,gone,1,404,Googlebot"),
        "{orphans}"
    );

    // A dated copy of today that allows everything judges today's
    // requests in place of the crawl's copy.
    let history = site.root.join("history");
    fs::create_dir_all(&history).expect("history");
    fs::write(
        history.join(format!("robots-{today}.txt")),
        "User-agent: *\nAllow: /\n",
    )
    .expect("a copy");
    let out = botwarden(
        &[
            "logs",
            "analyze",
            "--no-dns",
            "--crawl",
            db.to_str().expect("UTF-8"),
            "--robots-history",
            history.to_str().expect("UTF-8"),
            "--report",
            "json",
            log.to_str().expect("UTF-8"),
        ],
        b"",
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let c = &report["crawl"];
    assert_eq!(c["robots"][1]["source"], "history", "{c}");
    let g = c["bots"]
        .as_array()
        .expect("bots")
        .iter()
        .find(|b| b["bot"] == "Googlebot")
        .expect("Googlebot");
    assert_eq!(g["disallowed"], 0, "{g}");

    let out = botwarden(
        &[
            "logs",
            "analyze",
            "--no-dns",
            "--crawl",
            db.to_str().expect("UTF-8"),
            log.to_str().expect("UTF-8"),
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for section in [
        "Bots on the crawl",
        "robots.txt compliance",
        "Pages no verified search bot requested",
        "URLs verified bots requested that the crawl did not find",
    ] {
        assert!(text.contains(section), "{section}: {text}");
    }
}
