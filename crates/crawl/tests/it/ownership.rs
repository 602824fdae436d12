//! Site ownership against real servers: the token file, the meta tag,
//! what does not verify, and crawls that read a verified site's
//! robots.txt as another robot, with what the store records.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use botwarden_crawl::{
    CrawlConfig, OwnershipMethod, Simulation, SiteKey, StopSignal, Verified, crawl, verify_site,
};
use botwarden_fetch::Fetcher;
use botwarden_robots::{Profile, TokenChain};
use botwarden_store::{Store, Summary};
use url::Url;

use crate::server::{Asked, Reply, Server};

const SECRET: &[u8] = b"an operator secret of enough bytes";

/// googlebot's group differs from botwarden's, and Google reads it
/// differently from RFC 9309: `Allow: /dir/index.html` also allows `/dir/`.
const ROBOTS: &str = "User-agent: botwarden\nDisallow: /shop\n\nUser-agent: googlebot\nDisallow: /dir/\nAllow: /dir/index.html\nDisallow: /private\n";

fn key() -> SiteKey {
    SiteKey::new(SECRET).expect("key")
}

/// The site's token, as the site's owner got it from the operator.
fn token_for(asked: &Asked<'_>) -> String {
    let url = Url::parse(&format!("http://{}/", asked.host)).expect("a URL");
    key().token(&url).expect("token").as_str().to_owned()
}

fn html(body: &str) -> Reply {
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(format!("<!doctype html><html>{body}</html>"))
}

/// How a test site shows (or fails to show) its ownership.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Proof {
    File,
    Meta,
    None,
    /// The file and the tag hold a token of another secret.
    WrongToken,
    /// Every path answers 200 and repeats the path it was asked for.
    Echo,
    /// The file's path redirects to another site that holds the token.
    Elsewhere(u16),
}

const LINKS: &str = r#"<a href="/dir/">d</a> <a href="/dir/index.html">i</a> <a href="/private">p</a> <a href="/shop">s</a>"#;

/// The site, counting the requests for each path.
async fn site(proof: Proof) -> (Server, Arc<Mutex<BTreeMap<String, usize>>>) {
    let hits: Arc<Mutex<BTreeMap<String, usize>>> = Arc::default();
    let seen = Arc::clone(&hits);
    let server = Server::start(move |asked| {
        *seen
            .lock()
            .expect("hits")
            .entry(asked.path.to_owned())
            .or_insert(0) += 1;
        let token = token_for(asked);
        let wrong = SiteKey::new(b"someone else's secret, long enough")
            .expect("key")
            .token(&Url::parse(&format!("http://{}/", asked.host)).expect("url"))
            .expect("token")
            .as_str()
            .to_owned();
        if proof == Proof::Echo {
            return html(&format!("<p>No page at {}</p>", asked.path));
        }
        let file = format!("/botwarden-{token}.txt");
        match asked.path {
            "/robots.txt" => Reply::text(ROBOTS),
            p if p == file => match proof {
                Proof::File => Reply::text(format!("{token}\n")),
                Proof::WrongToken => Reply::text(wrong),
                Proof::Elsewhere(port) => {
                    Reply::new(302).header("location", format!("http://127.0.0.1:{port}{p}"))
                }
                _ => Reply::new(404),
            },
            "/" => {
                let meta = match proof {
                    Proof::Meta => {
                        format!(r#"<meta name="Botwarden-Site-Verification" content=" {token} ">"#)
                    }
                    Proof::WrongToken => {
                        format!(r#"<meta name="botwarden-site-verification" content="{wrong}">"#)
                    }
                    _ => String::new(),
                };
                html(&format!(
                    "<head>{meta}<title>home</title></head><body>{LINKS}</body>"
                ))
            }
            "/dir/" | "/dir/index.html" | "/private" | "/shop" => html("<p>page</p>"),
            _ => Reply::new(404),
        }
    })
    .await;
    (server, hits)
}

/// A server that holds every token it is asked for (another site).
async fn holder() -> Server {
    Server::start(|asked| {
        let name = asked.path.trim_start_matches("/botwarden-");
        Reply::text(name.trim_end_matches(".txt").to_owned())
    })
    .await
}

fn fetcher() -> Fetcher {
    Fetcher::builder()
        .allow_private(true)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("fetcher")
}

fn url(server: &Server) -> Url {
    Url::parse(&server.url("/")).expect("url")
}

async fn verified(server: &Server) -> Verified {
    verify_site(&fetcher(), &key(), &url(server), false)
        .await
        .expect("checked")
        .verified()
        .expect("verified")
}

#[tokio::test]
async fn the_token_file_verifies_and_the_home_page_is_not_asked() {
    let (server, hits) = site(Proof::File).await;
    let v = verify_site(&fetcher(), &key(), &url(&server), false)
        .await
        .expect("checked");
    assert_eq!(v.checks.len(), 1, "{:?}", v.checks);
    let proof = v.verified().expect("verified");
    assert_eq!(proof.method(), OwnershipMethod::File);
    assert_eq!(proof.origin(), server.url("").trim_end_matches('/'));
    assert_eq!(proof.url(), v.token.file_url());
    assert_eq!(proof.fingerprint(), v.token.fingerprint());
    let hits = hits.lock().expect("hits").clone();
    assert_eq!(hits.get("/"), None, "{hits:?}");
    assert_eq!(hits.get("/robots.txt"), None, "{hits:?}");
}

#[tokio::test]
async fn the_meta_tag_verifies_when_there_is_no_file() {
    let (server, _) = site(Proof::Meta).await;
    let v = verify_site(&fetcher(), &key(), &url(&server), false)
        .await
        .expect("checked");
    assert!(!v.checks[0].found);
    assert_eq!(v.checks[0].status, Some(404));
    assert_eq!(
        v.verified().map(|p| p.method()),
        Some(OwnershipMethod::Meta),
        "{:?}",
        v.checks
    );
    assert_eq!(v.verified().expect("verified").url(), server.url("/"));
}

#[tokio::test]
async fn other_tokens_echoes_and_other_sites_do_not_verify() {
    let (server, _) = site(Proof::WrongToken).await;
    let v = verify_site(&fetcher(), &key(), &url(&server), true)
        .await
        .expect("checked");
    assert!(v.verified().is_none(), "{:?}", v.checks);
    assert_eq!(v.checks[0].detail, "holds something else than the token");
    assert!(
        v.checks[1].detail.contains("holds another token"),
        "{:?}",
        v.checks
    );
    let failures = v.failures();
    assert!(
        failures.contains("file ") && failures.contains("meta "),
        "{failures}"
    );

    // A soft 404 that repeats the path holds the token, among other text.
    let (echo, _) = site(Proof::Echo).await;
    let v = verify_site(&fetcher(), &key(), &url(&echo), true)
        .await
        .expect("checked");
    assert!(v.verified().is_none(), "{:?}", v.checks);
    assert!(
        v.checks[0].detail.contains("among other text"),
        "{:?}",
        v.checks
    );

    // The file's path redirects to another site that serves the token.
    let other = holder().await;
    let (server, _) = site(Proof::Elsewhere(other.addr.port())).await;
    let v = verify_site(&fetcher(), &key(), &url(&server), false)
        .await
        .expect("checked");
    assert!(v.verified().is_none(), "{:?}", v.checks);
    assert!(
        v.checks[0].detail.contains("another site"),
        "{:?}",
        v.checks
    );

    // Nothing there at all.
    let (server, _) = site(Proof::None).await;
    let v = verify_site(&fetcher(), &key(), &url(&server), true)
        .await
        .expect("checked");
    assert!(v.verified().is_none());
    assert_eq!(v.checks[0].detail, "answered 404");
    assert!(v.checks[1].detail.starts_with("no <meta"), "{:?}", v.checks);
}

struct TempStore(PathBuf);

impl TempStore {
    fn new(name: &str) -> TempStore {
        let dir = std::env::temp_dir().join(format!("botwarden-own-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempStore(dir)
    }

    fn db(&self) -> PathBuf {
        self.0.join("crawl.db")
    }
}

impl Drop for TempStore {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Crawls `server` with `simulation`; returns the store and the state
/// (`fetched` or the skip reason) of each path.
async fn crawl_site(
    server: &Server,
    simulation: Option<Simulation>,
    tmp: &TempStore,
) -> (Store, BTreeMap<String, String>) {
    let config = CrawlConfig {
        simulation,
        ..CrawlConfig::default()
    };
    let store = Store::create(&tmp.db()).expect("store");
    let (store, _) = crawl(
        &url(server),
        &config,
        &fetcher(),
        store,
        false,
        &StopSignal::new(),
        |_| {},
    )
    .await
    .expect("the crawl runs");
    let prefix = server.url("");
    let states = {
        let mut st = store
            .connection()
            .prepare("SELECT url, state, skip_reason FROM urls")
            .expect("query");
        st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })
        .expect("rows")
        .map(|r| {
            let (u, state, reason) = r.expect("row");
            (u.replace(&prefix, ""), reason.unwrap_or(state))
        })
        .collect()
    };
    (store, states)
}

fn states(list: &[(&str, &str)]) -> BTreeMap<String, String> {
    list.iter()
        .map(|(p, s)| ((*p).to_owned(), (*s).to_owned()))
        .collect()
}

#[tokio::test]
async fn as_googlebot_under_google_follows_googles_reading() {
    let (server, _) = site(Proof::File).await;
    // botwarden's own reading: its group blocks /shop.
    let tmp = TempStore::new("own");
    let (_, own) = crawl_site(&server, None, &tmp).await;
    assert_eq!(
        own,
        states(&[
            ("/", "fetched"),
            ("/dir/", "fetched"),
            ("/dir/index.html", "fetched"),
            ("/private", "fetched"),
            ("/shop", "robots"),
        ])
    );

    // googlebot's group under RFC 9309: /dir/ is disallowed.
    let mut sim = Simulation::new(verified(&server).await);
    sim.tokens = Some(TokenChain::parse("googlebot"));
    let tmp = TempStore::new("rfc");
    let (_, rfc) = crawl_site(&server, Some(sim.clone()), &tmp).await;
    assert_eq!(rfc["/dir/"], "robots");
    assert_eq!(rfc["/private"], "robots");
    assert_eq!(rfc["/shop"], "fetched");

    // Under Google's reading, the allowed index page allows /dir/ too.
    sim.profile = &Profile::GOOGLE;
    let tmp = TempStore::new("google");
    let (store, google) = crawl_site(&server, Some(sim), &tmp).await;
    assert_eq!(
        google,
        states(&[
            ("/", "fetched"),
            ("/dir/", "fetched"),
            ("/dir/index.html", "fetched"),
            ("/private", "robots"),
            ("/shop", "fetched"),
        ])
    );
    // The strict reading is still computed: it blocks /dir/.
    let s = Summary::read(&store).expect("summary");
    assert!(
        s.strict_differences
            .examples
            .iter()
            .any(|d| d.url.ends_with("/dir/") && d.strict.starts_with("disallowed")),
        "{s:?}"
    );
    // The store records how the site was verified and read.
    let reading = s.reading.as_ref().expect("a reading");
    assert_eq!(reading.tokens, "googlebot");
    assert_eq!(reading.profile, "google");
    assert_eq!(reading.source, "site");
    assert_eq!(s.verifications.len(), 1);
    let v = &s.verifications[0];
    assert_eq!(v.method, "file");
    assert!(v.token_fingerprint.starts_with("sha256:"), "{v:?}");
    let token = key().token(&url(&server)).expect("token");
    let everything: String = store
        .connection()
        .query_row("SELECT group_concat(value, ' ') FROM meta", [], |r| {
            r.get(0)
        })
        .expect("meta");
    assert!(!everything.contains(token.as_str()), "{everything}");
    let text = s.to_string();
    assert!(
        text.contains("read as googlebot → * under google"),
        "{text}"
    );
    assert!(text.contains("verified by file"), "{text}");
    // The User-Agent is botwarden's.
    assert!(s.user_agent.starts_with("botwarden full crawler"), "{s:?}");
}

#[tokio::test]
async fn a_robots_file_replaces_the_sites_and_the_site_is_not_asked() {
    let (server, hits) = site(Proof::Meta).await;
    let mut sim = Simulation::new(verified(&server).await);
    assert_eq!(sim.site().method(), OwnershipMethod::Meta);
    sim.robots_file = Some((
        "staging-robots.txt".into(),
        b"User-agent: botwarden\nDisallow: /dir/\n".to_vec(),
    ));
    let tmp = TempStore::new("file");
    let (store, got) = crawl_site(&server, Some(sim), &tmp).await;
    assert_eq!(
        got,
        states(&[
            ("/", "fetched"),
            ("/dir/", "robots"),
            ("/dir/index.html", "robots"),
            ("/private", "fetched"),
            ("/shop", "fetched"),
        ])
    );
    assert_eq!(hits.lock().expect("hits").get("/robots.txt"), None);
    let s = Summary::read(&store).expect("summary");
    assert_eq!(s.robots_files.len(), 1);
    assert_eq!(s.robots_files[0].source, "file");
    assert_eq!(
        s.reading.as_ref().map(|r| r.source.as_str()),
        Some("file staging-robots.txt")
    );
    assert_eq!(s.verifications[0].method, "meta");
    assert_eq!(s.blocked_by[0].rule, "Disallow: /dir/ (line 2)");
}

#[tokio::test]
async fn a_proof_for_another_site_and_a_changed_reading_on_resume_are_refused() {
    let (verified_site, _) = site(Proof::File).await;
    let (other, _) = site(Proof::None).await;
    let mut sim = Simulation::new(verified(&verified_site).await);
    sim.tokens = Some(TokenChain::parse("googlebot"));
    let tmp = TempStore::new("elsewhere");
    let config = CrawlConfig {
        simulation: Some(sim.clone()),
        ..CrawlConfig::default()
    };
    let store = Store::create(&tmp.db()).expect("store");
    let err = crawl(
        &url(&other),
        &config,
        &fetcher(),
        store,
        false,
        &StopSignal::new(),
        |_| {},
    )
    .await
    .expect_err("another site");
    assert!(
        err.to_string().contains("not of the start URL's site"),
        "{err}"
    );

    // A crawl made as googlebot is not resumed as botwarden.
    let tmp = TempStore::new("resume");
    let (store, _) = crawl_site(&verified_site, Some(sim), &tmp).await;
    drop(store);
    let store = Store::open(&tmp.db()).expect("open");
    let err = crawl(
        &url(&verified_site),
        &CrawlConfig::default(),
        &fetcher(),
        store,
        true,
        &StopSignal::new(),
        |_| {},
    )
    .await
    .expect_err("another reading");
    let text = err.to_string();
    assert!(
        text.contains("tokens: googlebot") && text.contains("botwarden's own reading"),
        "{text}"
    );
}

#[tokio::test]
async fn a_simulated_reading_keeps_the_sites_crawl_delay() {
    // Google ignores Crawl-delay; a crawl reading as Google still obeys it.
    let server = Server::start(|asked| {
        let token = token_for(asked);
        match asked.path {
            "/robots.txt" => {
                Reply::text("User-agent: googlebot\nCrawl-delay: 0.2\nDisallow: /private\n")
            }
            p if p == format!("/botwarden-{token}.txt") => Reply::text(token),
            "/" => html(r#"<body><a href="/a">a</a></body>"#),
            "/a" => html("<p>a</p>"),
            _ => Reply::new(404),
        }
    })
    .await;
    let mut sim = Simulation::new(verified(&server).await);
    sim.tokens = Some(TokenChain::parse("googlebot"));
    sim.profile = &Profile::GOOGLE;
    let config = CrawlConfig {
        simulation: Some(sim),
        ..CrawlConfig::default()
    };
    let tmp = TempStore::new("delay");
    let store = Store::create(&tmp.db()).expect("store");
    let mut delays = Vec::new();
    let (_, end) = crawl(
        &url(&server),
        &config,
        &fetcher(),
        store,
        false,
        &StopSignal::new(),
        // Progress before the first answer comes from robots.txt alone,
        // before the site has a delay at all.
        |p| {
            if p.fetched > 0 {
                delays.push(p.delay);
            }
        },
    )
    .await
    .expect("the crawl runs");
    assert_eq!(end.fetched, 2);
    assert!(
        !delays.is_empty() && delays.iter().all(|d| *d == Duration::from_millis(200)),
        "{delays:?}"
    );
}

#[tokio::test]
async fn a_simulated_chain_reads_its_own_meta_names() {
    // `<meta name="googlebot" content="nofollow">` binds a crawl reading as
    // googlebot, not botwarden's own.
    let server = Server::start(|asked| {
        let token = token_for(asked);
        match asked.path {
            "/robots.txt" => Reply::text("User-agent: *\nAllow: /\n"),
            p if p == format!("/botwarden-{token}.txt") => Reply::text(token),
            "/" => html(
                r#"<head><meta name="googlebot" content="nofollow"></head><body><a href="/b">b</a></body>"#,
            ),
            "/b" => html("<p>b</p>"),
            _ => Reply::new(404),
        }
    })
    .await;
    let run = |sim: Option<Simulation>, name: &'static str| {
        let server = &server;
        async move {
            let config = CrawlConfig {
                simulation: sim,
                ..CrawlConfig::default()
            };
            let tmp = TempStore::new(name);
            let store = Store::create(&tmp.db()).expect("store");
            let (store, _) = crawl(
                &url(server),
                &config,
                &fetcher(),
                store,
                false,
                &StopSignal::new(),
                |_| {},
            )
            .await
            .expect("the crawl runs");
            store
                .connection()
                .query_row(
                    "SELECT state || ' ' || coalesce(skip_reason, '') FROM urls WHERE url LIKE '%/b'",
                    [],
                    |r| r.get::<_, String>(0),
                )
                .expect("/b")
        }
    };
    assert_eq!(run(None, "own-chain").await, "fetched ");
    let mut sim = Simulation::new(verified(&server).await);
    sim.tokens = Some(TokenChain::parse("googlebot"));
    assert_eq!(run(Some(sim), "googlebot-chain").await, "skipped nofollow");
}
