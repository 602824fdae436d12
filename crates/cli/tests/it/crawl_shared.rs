//! One crawl shared by `botwarden crawl worker` processes on a real Redis,
//! of a generated site served by nginx: the merged store holds what one
//! crawler finds, nginx's access log shows each URL asked once and the
//! host's delay kept across the workers, and a worker killed midway
//! loses nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use botwarden_testdata::redis::RedisServer;

const PAGES: usize = 160;

/// Page `i` links to `2i+1`, `2i+2`, `(7i+3) mod PAGES`, a nofollow link
/// and, every twentieth page, a page robots.txt blocks.
fn generate(site: &Path) {
    for dir in ["p", "nf", "private"] {
        fs::create_dir_all(site.join(dir)).expect("site dir");
    }
    fs::write(
        site.join("robots.txt"),
        "User-agent: *\nDisallow: /private/\n",
    )
    .expect("robots.txt");
    for i in 0..PAGES {
        let mut html = String::from("<!doctype html><html><head><title>p</title></head><body>");
        for child in [2 * i + 1, 2 * i + 2, (i * 7 + 3) % PAGES] {
            if child < PAGES {
                let _ = write!(html, "<a href=\"/p/{child}.html\">p</a> ");
            }
        }
        let _ = write!(html, "<a href=\"/nf/{i}.html\" rel=\"nofollow\">nf</a> ");
        if i.is_multiple_of(20) {
            let _ = write!(html, "<a href=\"/private/{i}.html\">private</a>");
        }
        html.push_str("</body></html>\n");
        fs::write(site.join(format!("p/{i}.html")), html).expect("page");
    }
}

/// nginx on a free port serving `root/site`; killed, `root` removed, on
/// drop. Its access log holds `$msec $request_time $request_uri`.
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

fn nginx(name: &str) -> Nginx {
    let root = std::env::temp_dir().join(format!(
        "botwarden-shared-crawl-{name}-{}",
        std::process::id()
    ));
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
             error_log \"{r}/error.log\" warn;\nevents {{ worker_connections 256; }}\n\
             http {{\n  types {{ text/html html; text/plain txt; }}\n\
               log_format timed \"$msec $request_time $request_uri\";\n\
               access_log \"{r}/access.log\" timed;\n\
               client_body_temp_path \"{r}/tmp\";\n  proxy_temp_path \"{r}/tmp\";\n\
               fastcgi_temp_path \"{r}/tmp\";\n  uwsgi_temp_path \"{r}/tmp\";\n  scgi_temp_path \"{r}/tmp\";\n\
               server {{\n    listen 127.0.0.1:{port};\n    root \"{r}/site\";\n  }}\n}}\n"
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
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
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

/// One request in nginx's log: when it started and ended (s), its URI.
struct Request {
    start: f64,
    end: f64,
    uri: String,
}

fn requests(root: &Path) -> Vec<Request> {
    fs::read_to_string(root.join("access.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let mut p = l.splitn(3, ' ');
            let end: f64 = p.next().and_then(|v| v.parse().ok()).expect("msec");
            let took: f64 = p.next().and_then(|v| v.parse().ok()).expect("request_time");
            Request {
                start: end - took,
                end,
                uri: p.next().expect("uri").to_owned(),
            }
        })
        .collect()
}

/// Each URL with its state and skip reason.
fn url_states(db: &Path) -> BTreeSet<(String, String, String)> {
    let c = rusqlite::Connection::open(db).expect("open store");
    let mut st = c
        .prepare("SELECT url, state, coalesce(skip_reason, '') FROM urls")
        .expect("query");
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("urls")
}

fn pages_in(db: &Path) -> i64 {
    // Read-only: opening must not create the file the worker creates.
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row("SELECT count(*) FROM pages", [], |r| r.get(0)))
        .unwrap_or(0)
}

/// What one crawler (`botwarden crawl`) finds on the site.
fn single_crawl(start: &str, dir: &Path) -> BTreeSet<(String, String, String)> {
    let db = dir.join("single.db");
    let out = Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", start, "--db"])
        .arg(&db)
        .args(["--allow-private", "--format", "json"])
        .output()
        .expect("run botwarden crawl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    url_states(&db)
}

fn worker(redis: &str, start: &str, db: &Path, name: &str, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", "worker", start, "--redis", redis, "--db"])
        .arg(db)
        .args(["--name", name, "--allow-private", "--concurrency", "4"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start botwarden crawl worker")
}

fn wait_ok(child: Child, what: &str) {
    let out = child.wait_with_output().expect("wait for a worker");
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn merge(out: &Path, inputs: &[PathBuf]) {
    let o = Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", "merge"])
        .arg(out)
        .args(inputs)
        .output()
        .expect("run crawl merge");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Requests per URI.
fn counts(log: &[Request]) -> BTreeMap<&str, usize> {
    let mut n = BTreeMap::new();
    for r in log {
        *n.entry(r.uri.as_str()).or_default() += 1;
    }
    n
}

#[test]
fn three_workers_crawl_what_one_crawler_does_once_each_and_politely() {
    let site = nginx("three");
    let start = format!("http://127.0.0.1:{}/p/0.html", site.port);
    let want = single_crawl(&start, &site.root);
    let before = requests(&site.root).len();
    let redis = RedisServer::start();
    let delay_ms = 25.0;
    let dbs: Vec<PathBuf> = (1..=3)
        .map(|i| site.root.join(format!("w{i}.db")))
        .collect();
    let workers: Vec<Child> = dbs
        .iter()
        .enumerate()
        .map(|(i, db)| {
            worker(
                &redis.url(),
                &start,
                db,
                &format!("w{}", i + 1),
                &["--delay", "25", "--parallel", "2"],
            )
        })
        .collect();
    for (i, w) in workers.into_iter().enumerate() {
        wait_ok(w, &format!("worker {}", i + 1));
    }
    let merged = site.root.join("merged.db");
    merge(&merged, &dbs);
    assert_eq!(
        url_states(&merged),
        want,
        "the merged store against one crawl's"
    );
    // Every worker did some of it.
    for db in &dbs {
        assert!(pages_in(db) > 0, "{} fetched nothing", db.display());
    }

    let log: Vec<Request> = requests(&site.root).into_iter().skip(before).collect();
    let fetched = want.iter().filter(|(_, s, _)| s == "fetched").count();
    assert_eq!(
        log.len(),
        fetched + 1,
        "the pages and robots.txt, once each"
    );
    let twice: Vec<_> = counts(&log).into_iter().filter(|(_, n)| *n > 1).collect();
    assert!(twice.is_empty(), "asked more than once: {twice:?}");

    // The host's delay holds across the three workers: starts (nginx's
    // clock, ms) at least the delay apart, give or take the moments
    // between a lease and its request; the crawl as a whole no faster.
    let mut timed: Vec<(f64, &str)> = log
        .iter()
        .filter(|r| r.uri != "/robots.txt")
        .map(|r| (r.start, r.uri.as_str()))
        .collect();
    timed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let starts: Vec<f64> = timed.iter().map(|t| t.0).collect();
    let gaps: Vec<f64> = starts.windows(2).map(|w| (w[1] - w[0]) * 1e3).collect();
    // A worker the machine holds up between its lease and its request
    // sends it late, closer to the next worker's: a few short gaps are the
    // machine's, many would be the crawl's.
    let short: Vec<f64> = gaps
        .iter()
        .copied()
        .filter(|g| *g < delay_ms / 2.0)
        .collect();
    assert!(
        short.len() * 10 <= gaps.len(),
        "{} of {} gaps under half the delay: {short:?}",
        short.len(),
        gaps.len()
    );
    let span = (starts[starts.len() - 1] - starts[0]) * 1e3;
    assert!(
        span >= delay_ms * 0.9 * (starts.len() - 1) as f64,
        "{} requests in {span} ms",
        starts.len()
    );
    // Never more in flight than the parallelism (2).
    let most = log
        .iter()
        .map(|r| {
            log.iter()
                .filter(|o| o.start <= r.start && r.start < o.end)
                .count()
        })
        .max()
        .unwrap_or(0);
    assert!(most <= 2, "{most} requests at once");

    // `crawl status`: nothing left, every page done, three workers ended.
    let out = Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", "status", "--redis", &redis.url(), "--crawl"])
        .arg(format!("127.0.0.1:{}", site.port))
        .args(["--format", "json"])
        .output()
        .expect("crawl status");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let host = &status["hosts"][0];
    assert_eq!(host["queued"], 0);
    assert_eq!(host["leased"], 0);
    assert_eq!(host["done"], fetched);
    let workers = status["workers"].as_array().expect("workers");
    assert_eq!(workers.len(), 3);
    assert!(workers.iter().all(|w| w["ended"] == true), "{status}");
    let total: u64 = workers
        .iter()
        .map(|w| w["fetched"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(total, fetched as u64);
    // The host's throttle: nothing in flight, its window full of
    // requests (the pages were all answered: no trouble in it).
    assert_eq!(host["in_flight"], 0, "{status}");
    assert!(host["window"].as_u64().is_some_and(|w| w > 0), "{status}");
    assert_eq!(host["window_errors"], 0, "{status}");
    assert_eq!(host["paused_ms"], 0, "{status}");
    assert!(workers.iter().all(|w| w["in_flight"] == 0), "{status}");
    // The same as a table.
    let out = Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", "status", "--redis", &redis.url(), "--crawl"])
        .arg(format!("127.0.0.1:{}", site.port))
        .output()
        .expect("crawl status");
    let table = String::from_utf8_lossy(&out.stdout);
    let host_line = table
        .lines()
        .find(|l| l.starts_with("127.0.0.1:"))
        .unwrap_or_else(|| panic!("no host line:\n{table}"));
    let window = format!("0/{}", host["window"].as_u64().expect("a window"));
    assert!(host_line.split_whitespace().any(|c| c == window), "{table}");
    for column in ["in flight", "floor ms", "window", "paused ms", "reported"] {
        assert!(table.contains(column), "{column}: {table}");
    }
    assert_eq!(
        table.lines().filter(|l| l.contains(" ended ")).count(),
        3,
        "{table}"
    );
}

#[test]
fn a_worker_killed_midway_loses_nothing() {
    let site = nginx("killed");
    let start = format!("http://127.0.0.1:{}/p/0.html", site.port);
    let want = single_crawl(&start, &site.root);
    let before = requests(&site.root).len();
    let redis = RedisServer::start();
    let dbs: Vec<PathBuf> = (1..=3)
        .map(|i| site.root.join(format!("k{i}.db")))
        .collect();
    let politeness = ["--delay", "20", "--parallel", "2", "--lease", "2"];
    let mut victim = worker(&redis.url(), &start, &dbs[0], "victim", &politeness);
    // The victim works alone until it has committed some pages.
    let deadline = Instant::now() + Duration::from_secs(60);
    while pages_in(&dbs[0]) < 10 {
        assert!(
            Instant::now() < deadline,
            "the first worker fetched nothing"
        );
        assert!(
            victim.try_wait().expect("poll").is_none(),
            "the worker ended early"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let others: Vec<Child> = dbs[1..]
        .iter()
        .enumerate()
        .map(|(i, db)| {
            worker(
                &redis.url(),
                &start,
                db,
                &format!("k{}", i + 2),
                &politeness,
            )
        })
        .collect();
    // SIGKILL: it holds leases, requests in flight, answers not committed.
    victim.kill().expect("kill the worker");
    let _ = victim.wait();
    for (i, w) in others.into_iter().enumerate() {
        wait_ok(w, &format!("worker k{}", i + 2));
    }
    let merged = site.root.join("merged.db");
    merge(&merged, &dbs);
    assert_eq!(
        url_states(&merged),
        want,
        "the merged store against one crawl's"
    );

    // Asked again: at most what the victim held (its concurrency).
    let log: Vec<Request> = requests(&site.root).into_iter().skip(before).collect();
    let again: Vec<(&str, usize)> = counts(&log).into_iter().filter(|(_, n)| *n > 1).collect();
    assert!(again.len() <= 4, "asked again: {again:?}");
}

#[test]
fn workers_in_one_process_share_the_crawl_without_redis() {
    let site = nginx("local");
    let start = format!("http://127.0.0.1:{}/p/0.html", site.port);
    let want = single_crawl(&start, &site.root);
    let before = requests(&site.root).len();
    let db = site.root.join("local.db");
    let out = Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", &start, "--db"])
        .arg(&db)
        .args(["--workers", "3", "--allow-private", "--format", "json"])
        .output()
        .expect("run botwarden crawl --workers 3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("summary");
    assert!(summary.is_object(), "{summary}");
    assert_eq!(
        url_states(&db),
        want,
        "the merged store against one crawl's"
    );
    let log: Vec<Request> = requests(&site.root).into_iter().skip(before).collect();
    let twice: Vec<_> = counts(&log).into_iter().filter(|(_, n)| *n > 1).collect();
    assert!(twice.is_empty(), "asked more than once: {twice:?}");
    // The workers' own stores are merged into --db and removed.
    for i in 1..=3 {
        assert!(!site.root.join(format!("local.worker{i}.db")).exists());
    }
}

fn run_status(redis: &str, crawl: &str) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", "status", "--redis", redis, "--crawl", crawl])
        .output()
        .expect("crawl status");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Waits until the workers' stores hold `n` pages together.
fn wait_pages(dbs: &[PathBuf], n: i64, workers: &mut [Child]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while dbs.iter().map(|d| pages_in(d)).sum::<i64>() < n {
        assert!(Instant::now() < deadline, "the workers fetched too little");
        for w in workers.iter_mut() {
            assert!(
                w.try_wait().expect("poll").is_none(),
                "a worker ended early"
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_node_back_without_its_data_stops_the_workers_and_a_reseed_finishes_the_crawl() {
    let site = nginx("lost");
    let start = format!("http://127.0.0.1:{}/p/0.html", site.port);
    let want = single_crawl(&start, &site.root);
    let before = requests(&site.root).len();
    let mut cluster = botwarden_testdata::redis::RedisCluster::start(3);
    let redis = cluster.urls().join(",");
    let crawl = format!("127.0.0.1:{}", site.port);
    let politeness = ["--delay", "30", "--parallel", "2", "--lease", "2"];
    let first: Vec<PathBuf> = (1..=2)
        .map(|i| site.root.join(format!("l{i}.db")))
        .collect();
    let mut workers: Vec<Child> = first
        .iter()
        .enumerate()
        .map(|(i, db)| worker(&redis, &start, db, &format!("l{}", i + 1), &politeness))
        .collect();
    wait_pages(&first, 20, &mut workers);
    // The master of the site's slot is killed and comes back empty (no
    // AOF, no snapshot), its cluster configuration kept.
    let node = cluster.node_of(&format!("botwarden:crawl:{crawl}:{{{crawl}}}:state"));
    let addr = cluster.nodes()[node].addr().to_string();
    cluster.nodes_mut()[node].restart_empty();
    for (i, w) in workers.into_iter().enumerate() {
        let out = w.wait_with_output().expect("wait for a worker");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "worker l{} said it finished: {err}",
            i + 1
        );
        assert!(
            err.contains("shared state lost"),
            "worker l{}: {err}",
            i + 1
        );
        assert!(err.contains(&addr), "worker l{}: {err}", i + 1);
    }
    // Whether a worker's last call wrote its name again or not, the status
    // says the state is lost (the crawl's record, hosts and workers share
    // the slot of its one host, which came back empty).
    let (ok, _, err) = run_status(&redis, &crawl);
    assert!(!ok, "crawl status said nothing was wrong");
    assert!(err.contains("lost"), "{err}");

    let out = Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["crawl", "reseed", "--redis", &redis, "--crawl", &crawl])
        .args(&first)
        .output()
        .expect("crawl reseed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("re-seeded"), "{said}");
    let (ok, table, err) = run_status(&redis, &crawl);
    assert!(ok, "{table}{err}");

    let second: Vec<PathBuf> = (1..=2)
        .map(|i| site.root.join(format!("r{i}.db")))
        .collect();
    let workers: Vec<Child> = second
        .iter()
        .enumerate()
        .map(|(i, db)| worker(&redis, &start, db, &format!("r{}", i + 1), &politeness))
        .collect();
    for (i, w) in workers.into_iter().enumerate() {
        wait_ok(w, &format!("worker r{}", i + 1));
    }
    let merged = site.root.join("merged.db");
    let all: Vec<PathBuf> = first.iter().chain(&second).cloned().collect();
    merge(&merged, &all);
    assert_eq!(
        url_states(&merged),
        want,
        "the merged store against one crawl's"
    );
    // What the first workers stored is not asked again: only what they
    // had in flight (two workers, four requests each at most).
    let log: Vec<Request> = requests(&site.root).into_iter().skip(before).collect();
    let again: Vec<(&str, usize)> = counts(&log)
        .into_iter()
        .filter(|(u, n)| *n > 1 && *u != "/robots.txt")
        .collect();
    assert!(again.len() <= 8, "asked again: {again:?}");
}

/// A site on a plain HTTP server: `/` links to `/slow` (answered after
/// `slow`) and to `/a` and `/b`; robots.txt is missing. Counts requests
/// per path.
struct SlowSite {
    port: u16,
    asked: std::sync::Arc<std::sync::Mutex<BTreeMap<String, usize>>>,
}

fn slow_site(slow: Duration) -> SlowSite {
    use std::io::{BufRead as _, Write as _};
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(BTreeMap::new()));
    let counts = std::sync::Arc::clone(&asked);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let counts = std::sync::Arc::clone(&counts);
            std::thread::spawn(move || {
                let mut reader = std::io::BufReader::new(&stream);
                let mut first = String::new();
                if reader.read_line(&mut first).is_err() {
                    return;
                }
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let path = first.split_whitespace().nth(1).unwrap_or("/").to_owned();
                *counts
                    .lock()
                    .expect("lock")
                    .entry(path.clone())
                    .or_insert(0) += 1;
                let (status, body) = match path.as_str() {
                    "/" => (
                        "200 OK",
                        "<html><body><a href=\"/slow\">s</a> <a href=\"/a\">a</a> \
                         <a href=\"/b\">b</a></body></html>",
                    ),
                    "/slow" => {
                        std::thread::sleep(slow);
                        ("200 OK", "<html><body>slow</body></html>")
                    }
                    "/a" | "/b" => ("200 OK", "<html><body>page</body></html>"),
                    _ => ("404 Not Found", "not found"),
                };
                let mut stream = &stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    SlowSite { port, asked }
}

#[test]
fn a_page_slower_than_a_lease_is_asked_once() {
    let site = slow_site(Duration::from_millis(3500));
    let start = format!("http://127.0.0.1:{}/", site.port);
    let redis = RedisServer::start();
    let dir = botwarden_testdata_dir("slow");
    let dbs: Vec<PathBuf> = (1..=2).map(|i| dir.join(format!("s{i}.db"))).collect();
    let workers: Vec<Child> = dbs
        .iter()
        .enumerate()
        .map(|(i, db)| {
            worker(
                &redis.url(),
                &start,
                db,
                &format!("s{}", i + 1),
                &["--lease", "1"],
            )
        })
        .collect();
    for (i, w) in workers.into_iter().enumerate() {
        wait_ok(w, &format!("worker s{}", i + 1));
    }
    let asked = site.asked.lock().expect("lock").clone();
    assert_eq!(asked.get("/slow"), Some(&1), "{asked:?}");
    assert_eq!(asked.get("/a"), Some(&1), "{asked:?}");
    let _ = fs::remove_dir_all(&dir);
}

/// A new directory for a test's stores.
fn botwarden_testdata_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "botwarden-shared-crawl-{name}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("dir");
    dir
}

/// A worker of a site of its own on a Redis that is killed once the worker
/// has stored ten pages: the worker, its store, the site and Redis's
/// address.
fn worker_in_outage(name: &str, redis_wait: &str) -> (Child, PathBuf, Nginx, String) {
    let site = nginx(&format!("outage-{name}"));
    let start = format!("http://127.0.0.1:{}/p/0.html", site.port);
    let mut redis = RedisServer::start();
    let addr = redis.addr().to_string();
    let db = site.root.join(format!("{name}.db"));
    let mut w = worker(
        &redis.url(),
        &start,
        &db,
        name,
        &["--delay", "50", "--redis-wait", redis_wait],
    );
    wait_pages(std::slice::from_ref(&db), 10, std::slice::from_mut(&mut w));
    redis.kill();
    (w, db, site, addr)
}

#[test]
fn a_worker_tells_a_redis_outage_while_it_waits_then_gives_up() {
    let (w, _db, _site, addr) = worker_in_outage("o1", "7");
    let started = Instant::now();
    let out = w.wait_with_output().expect("wait for the worker");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(started.elapsed() >= Duration::from_secs(6), "{err}");
    let waiting: Vec<&str> = err.lines().filter(|l| l.contains("; waiting")).collect();
    assert!(!waiting.is_empty(), "{err}");
    assert!(
        waiting
            .iter()
            .all(|l| l.starts_with("botwarden: worker o1 of crawl ")
                && l.contains(&format!("Redis {addr} unreachable for "))),
        "{err}"
    );
    assert!(err.contains("gave up"), "{err}");
    assert!(!err.contains("redis://"), "{err}");
}

#[test]
fn a_worker_waiting_out_a_redis_outage_stops_at_once_on_sigterm() {
    let (w, db, _site, _) = worker_in_outage("t1", "600");
    // Let it start waiting, then ask it to stop.
    std::thread::sleep(Duration::from_secs(2));
    let sent = Instant::now();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &w.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let out = w.wait_with_output().expect("wait for the worker");
    let err = String::from_utf8_lossy(&out.stderr);
    // Not the 600 s of --redis-wait: the wait ends with the signal.
    assert!(sent.elapsed() < Duration::from_secs(60), "{err}");
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("stopped while Redis"), "{err}");
    // What it had committed is there.
    let c = rusqlite::Connection::open(&db).expect("open the store");
    let pages: i64 = c
        .query_row("SELECT count(*) FROM pages", [], |r| r.get(0))
        .expect("pages");
    assert!(pages >= 10, "{pages}");
}

#[test]
fn status_calls_a_silent_worker_dead_and_answers_with_a_node_down() {
    let site = nginx("status");
    let start = format!("http://127.0.0.1:{}/p/0.html", site.port);
    let mut cluster = botwarden_testdata::redis::RedisCluster::start(3);
    let redis = cluster.urls().join(",");
    let crawl = format!("127.0.0.1:{}", site.port);
    let db = site.root.join("d1.db");
    wait_ok(worker(&redis, &start, &db, "d1", &[]), "worker d1");
    // A worker that reported long ago and never ended (killed).
    let workers = format!("botwarden:crawl:{crawl}:workers");
    let ghost = format!("botwarden:crawl:{crawl}:worker:ghost");
    assert!(
        cluster.nodes()[cluster.node_of(&workers)]
            .command(&["SADD", &workers, "ghost"])
            .is_some()
    );
    assert!(
        cluster.nodes()[cluster.node_of(&ghost)]
            .command(&["HSET", &ghost, "reported_ms", "1000", "ended", "0"])
            .is_some()
    );
    let (ok, table, err) = run_status(&redis, &crawl);
    assert!(ok, "{err}");
    let line = |name: &str| {
        table
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name}: {table}"))
            .to_owned()
    };
    assert!(line("ghost").contains(" dead "), "{table}");
    assert!(line("d1").contains(" ended "), "{table}");

    // The node of the site's slot down: an answer within a few seconds,
    // naming the node, exit 1.
    let node = cluster.node_of(&format!("botwarden:crawl:{crawl}:{{{crawl}}}:state"));
    let addr = cluster.nodes()[node].addr().to_string();
    cluster.nodes_mut()[node].kill();
    let started = Instant::now();
    let (ok, table, err) = run_status(&redis, &crawl);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(!ok, "{table}{err}");
    let unread: Vec<&str> = err.lines().filter(|l| l.contains("not read")).collect();
    assert!(
        !unread.is_empty() && unread.iter().all(|l| l.contains(&addr)),
        "{err}"
    );
    assert!(!err.contains("redis://"), "{err}");
    // What the other nodes hold is still shown.
    assert!(table.contains("worker"), "{table}");
}
