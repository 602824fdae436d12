//! A generated site of 10,000 pages served by nginx on 127.0.0.1: the crawl
//! must find exactly the URLs the generator says are reachable and allowed,
//! skip exactly the ones it says are not (robots.txt, nofollow in links,
//! metas and `X-Robots-Tag`), follow redirects as links, and request
//! nothing twice (nginx's access log counts the requests).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use botwarden_crawl::{CrawlConfig, FrontierConfig, ThrottleConfig};
use botwarden_fetch::Fetcher;
use botwarden_store::Store;
use url::Url;

const PAGES: usize = 10_000;

/// Where page `i` lives: most under `/p/`, one in fifty under `/xr/`
/// (nginx adds `X-Robots-Tag: botwarden: nofollow` there).
fn page_path(i: usize) -> String {
    if i % 50 == 13 {
        format!("/xr/{i}.html")
    } else {
        format!("/p/{i}.html")
    }
}

/// What page `i` links to: (target path, followed by a polite crawler?).
/// `None` for the target means a link into `/private/` (robots.txt blocks
/// it) or a redirect.
struct Page {
    links: Vec<Link>,
    /// `<meta name="robots" content="nofollow">`.
    meta_nofollow: bool,
}

struct Link {
    path: String,
    rel_nofollow: bool,
    /// The page a redirect leads to.
    redirect_to: Option<usize>,
}

fn page(i: usize) -> Page {
    let mut links = Vec::new();
    for child in [2 * i + 1, 2 * i + 2, (i * 7 + 3) % PAGES] {
        if child < PAGES {
            if child % 100 == 5 {
                links.push(Link {
                    path: format!("/old/{child}"),
                    rel_nofollow: false,
                    redirect_to: Some(child),
                });
            } else {
                links.push(Link {
                    path: page_path(child),
                    rel_nofollow: false,
                    redirect_to: None,
                });
            }
        }
    }
    links.push(Link {
        path: format!("/nf/{i}.html"),
        rel_nofollow: true,
        redirect_to: None,
    });
    if i.is_multiple_of(97) {
        links.push(Link {
            path: format!("/private/{i}.html"),
            rel_nofollow: false,
            redirect_to: None,
        });
    }
    Page {
        links,
        meta_nofollow: i % 50 == 7,
    }
}

/// The site's files.
fn generate(root: &Path) {
    for dir in ["p", "xr", "nf", "private"] {
        fs::create_dir_all(root.join(dir)).expect("site dir");
    }
    fs::write(
        root.join("robots.txt"),
        "User-agent: *\nDisallow: /\n\nUser-agent: botwarden\nDisallow: /private/\n",
    )
    .expect("robots.txt");
    for i in 0..PAGES {
        let p = page(i);
        let mut html = String::from("<!doctype html><html><head><title>page</title>");
        if p.meta_nofollow {
            html.push_str("<meta name=\"robots\" content=\"nofollow\">");
        }
        html.push_str("</head><body>");
        for l in &p.links {
            let rel = if l.rel_nofollow {
                " rel=\"nofollow\""
            } else {
                ""
            };
            let _ = write!(html, "<a href=\"{}\"{rel}>link</a> ", l.path);
        }
        html.push_str("</body></html>\n");
        fs::write(root.join(page_path(i).trim_start_matches('/')), &html).expect("page");
        fs::write(root.join(format!("nf/{i}.html")), "<p>nofollow target</p>").expect("nf");
        if i.is_multiple_of(97) {
            fs::write(root.join(format!("private/{i}.html")), "<p>private</p>").expect("private");
        }
    }
}

/// What a polite crawl finds: (fetched paths, skipped path → reason).
fn expected() -> (BTreeSet<String>, BTreeMap<String, &'static str>) {
    let mut fetched = BTreeSet::new();
    let mut skipped: BTreeMap<String, &'static str> = BTreeMap::new();
    let mut seen = vec![false; PAGES];
    let mut queue = VecDeque::from([0usize]);
    seen[0] = true;
    while let Some(i) = queue.pop_front() {
        fetched.insert(page_path(i));
        let p = page(i);
        // X-Robots-Tag (for /xr/ pages) or the meta: nothing followed.
        let page_nofollow = p.meta_nofollow || i % 50 == 13;
        for l in &p.links {
            if page_nofollow || l.rel_nofollow {
                skipped.entry(l.path.clone()).or_insert("nofollow");
                continue;
            }
            if l.path.starts_with("/private/") {
                skipped.insert(l.path.clone(), "robots");
                continue;
            }
            let target = match l.redirect_to {
                Some(t) => {
                    fetched.insert(l.path.clone());
                    t
                }
                None => l
                    .path
                    .trim_start_matches("/p/")
                    .trim_start_matches("/xr/")
                    .trim_end_matches(".html")
                    .parse()
                    .expect("a page number"),
            };
            if !seen[target] {
                seen[target] = true;
                queue.push_back(target);
            }
        }
    }
    // A URL met through nofollow links and reached by a followed one is
    // fetched.
    skipped.retain(|path, _| !fetched.contains(path));
    (fetched, skipped)
}

/// nginx serving `ROOT/site`; stopped, and `ROOT` removed, when dropped.
pub(crate) struct Nginx {
    child: Child,
    root: PathBuf,
    pub(crate) port: u16,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// Starts nginx on a free port of 127.0.0.1, serving `root/site`; `listen`
/// is appended to its `listen` directive (`ssl http2`), `server` goes into
/// its `server` block. Its access log, `root/access.log`, holds
/// `$request_uri $server_protocol` per request.
pub(crate) fn start_nginx(root: PathBuf, listen: &str, server: &str) -> Nginx {
    assert!(
        Path::new("/usr/sbin/nginx").exists(),
        "/usr/sbin/nginx is missing: install the Debian package `nginx` (scripts/setup does)"
    );
    let r = root.display().to_string();
    for attempt in 0..5 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("free port");
        let conf = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid \"{r}/nginx.pid\";\n\
             error_log \"{r}/error.log\" warn;\nevents {{ worker_connections 256; }}\n\
             http {{\n  types {{ text/html html; text/plain txt; }}\n\
               default_type application/octet-stream;\n\
               log_format paths \"$request_uri $server_protocol\";\n\
               access_log \"{r}/access.log\" paths;\n\
               client_body_temp_path \"{r}/tmp\";\n  proxy_temp_path \"{r}/tmp\";\n\
               fastcgi_temp_path \"{r}/tmp\";\n  uwsgi_temp_path \"{r}/tmp\";\n  scgi_temp_path \"{r}/tmp\";\n\
               server {{\n    listen 127.0.0.1:{port} {listen};\n    root \"{r}/site\";\n\
                 {server}\n\
               }}\n}}\n"
        );
        fs::create_dir_all(root.join("tmp")).expect("tmp");
        fs::write(root.join("nginx.conf"), conf).expect("conf");
        let mut child = Command::new("/usr/sbin/nginx")
            .args(["-p", &r, "-c", &format!("{r}/nginx.conf")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx");
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
        // The port was taken meanwhile, or nginx stopped: try another.
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            attempt < 4,
            "nginx did not start: {}",
            fs::read_to_string(root.join("error.log")).unwrap_or_default()
        );
    }
    unreachable!("five attempts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_site_is_crawled_exactly() {
    let root = std::env::temp_dir().join(format!("botwarden-nginx-site-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    generate(&root.join("site"));
    let nginx = start_nginx(
        root.clone(),
        "",
        "location /xr/ { add_header X-Robots-Tag \"otherbot: noindex\"; \
         add_header X-Robots-Tag \"botwarden: nofollow\"; }\n\
         location /old/ { rewrite ^/old/([0-9]+)$ /p/$1.html permanent; }",
    );
    let base = format!("http://127.0.0.1:{}", nginx.port);

    let store = Store::create(&root.join("crawl.db")).expect("store");
    let cfg = CrawlConfig {
        frontier: FrontierConfig {
            max_urls: 100_000,
            max_depth: 1_000,
            ..FrontierConfig::default()
        },
        throttle: ThrottleConfig {
            max_parallel: 8,
            ..ThrottleConfig::default()
        },
        ..CrawlConfig::default()
    };
    let fetcher = Fetcher::builder()
        .allow_private(true)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("fetcher");
    let start = Url::parse(&format!("{base}/p/0.html")).expect("url");
    let (store, end) = crate::crawl::crawl_all(&start, &cfg, &fetcher, store, false).await;
    assert!(!end.stopped);

    // Every link's source and target is a stored URL (foreign keys are
    // declared, not enforced while writing), the deferred indexes (URLs,
    // link targets) are built, and the body hash is named.
    let c = store.connection();
    let dangling: i64 = c
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .expect("foreign_key_check");
    assert_eq!(dangling, 0, "rows that point at no stored URL");
    for name in ["urls_url", "links_target"] {
        let index: i64 = c
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?1",
                [name],
                |r| r.get(0),
            )
            .expect("index");
        assert_eq!(index, 1, "{name} is built when the crawl ends");
    }
    assert_eq!(
        store.meta("content_hash").expect("meta").as_deref(),
        Some("xxh3-64")
    );
    let (want_fetched, want_skipped) = expected();
    let mut st = store
        .connection()
        .prepare("SELECT url, state, coalesce(skip_reason, '') FROM urls")
        .expect("query");
    let mut fetched = BTreeSet::new();
    let mut skipped = BTreeMap::new();
    for row in st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })
        .expect("rows")
    {
        let (url, state, reason) = row.expect("row");
        let path = url.replace(&base, "");
        match state.as_str() {
            "fetched" => {
                fetched.insert(path);
            }
            "skipped" => {
                skipped.insert(path, reason);
            }
            other => panic!("{path} left {other}"),
        }
    }
    let missing: Vec<_> = want_fetched.difference(&fetched).take(10).collect();
    let extra: Vec<_> = fetched.difference(&want_fetched).take(10).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, extra {extra:?}"
    );
    let want_skipped: BTreeMap<String, String> = want_skipped
        .into_iter()
        .map(|(k, v)| (k, v.to_owned()))
        .collect();
    assert_eq!(skipped.len(), want_skipped.len());
    assert!(
        skipped == want_skipped,
        "skipped URLs or their reasons differ"
    );
    assert!(fetched.len() > PAGES / 2, "{} pages fetched", fetched.len());

    // nginx saw each URL once (robots.txt included).
    let log = fs::read_to_string(root.join("access.log")).expect("access log");
    let mut hits: BTreeMap<&str, usize> = BTreeMap::new();
    for line in log.lines() {
        let path = line.split(' ').next().unwrap_or_default();
        *hits.entry(path).or_insert(0) += 1;
    }
    let twice: Vec<_> = hits.iter().filter(|(_, n)| **n > 1).take(5).collect();
    assert!(twice.is_empty(), "requested more than once: {twice:?}");
    assert_eq!(
        hits.len(),
        fetched.len() + 1,
        "one request per fetched URL, and robots.txt"
    );
    drop(nginx);
}
