//! Web Bot Auth: a crawl whose every request is signed and verified by the
//! site it crawls; key directories fetched (from a test server and from
//! nginx), cached as their headers say, refused when served with the wrong
//! media type or a bad signature of their own.

use std::collections::BTreeMap;
use std::fs;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::IntoResponse;
use botwarden_crawl::CrawlConfig;
use botwarden_fetch::{KeyDirConfig, KeyDirectories};
use botwarden_store::Store;
use botwarden_verify::{
    AgentForm, AgentKind, DIRECTORY_MEDIA_TYPE, DirectorySignature, KeyRing, RequestParts,
    SignatureCheck, SignatureVerifier, Signer, WELL_KNOWN_DIRECTORY,
};
use url::Url;

use crate::crawl::{TempStore, config, crawl_all};
use crate::nginx_site::start_nginx;
use crate::server::{Reply, Server};

fn html(body: &str) -> axum::response::Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        format!("<!doctype html><html><head><title>t</title></head><body>{body}</body></html>"),
    )
        .into_response()
}

/// What the site saw: each path, with the outcome of its signature check
/// (`valid`, or the failure).
type Seen = Arc<Mutex<Vec<(String, String)>>>;

struct Site {
    seen: Seen,
    verifier: SignatureVerifier,
    directories: KeyDirectories,
    directory: String,
}

async fn handle(
    site: Arc<Site>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> axum::response::Response {
    let path = uri.path().to_owned();
    if path == WELL_KNOWN_DIRECTORY {
        return (
            [(header::CONTENT_TYPE, DIRECTORY_MEDIA_TYPE)],
            site.directory.clone(),
        )
            .into_response();
    }
    let (req, ring) = signed_parts(&site.verifier, &site.directories, &method, &uri, &headers)
        .await
        .into_parts();
    let host = req.host.clone();
    let outcome = match site.verifier.check(&req.parts(), &ring, SystemTime::now()) {
        SignatureCheck::Valid(_) => "valid".to_owned(),
        SignatureCheck::Invalid { failure, .. } => failure.to_string(),
        SignatureCheck::Undecided { reason, .. } => reason,
        SignatureCheck::Unsigned => "unsigned".to_owned(),
    };
    site.seen
        .lock()
        .expect("seen")
        .push((path.clone(), outcome));
    match path.as_str() {
        "/robots.txt" => (
            [(header::CONTENT_TYPE, "text/plain")],
            format!(
                "User-agent: *\nDisallow: /private\nSitemap: http://{host}/sitemap.xml\n"
            ),
        )
            .into_response(),
        "/sitemap.xml" => (
            [(header::CONTENT_TYPE, "application/xml")],
            format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                 <url><loc>http://{host}/from-sitemap</loc></url></urlset>"
            ),
        )
            .into_response(),
        "/" => html(r#"<a href="/a">a</a> <a href="/old">old</a> <a href="/private/x">x</a>"#),
        "/a" => html(r#"<a href="/">home</a> <a href="/b?q=1">b</a>"#),
        "/old" => (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "/b")]).into_response(),
        "/b" | "/from-sitemap" => html("<p>end</p>"),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A request as a verifier reads it (method, authority, target, every
/// header), with the keys its `Signature-Agent` names.
pub(crate) struct Received {
    method: String,
    host: String,
    target: String,
    fields: Vec<(String, String)>,
}

impl Received {
    /// The request's parts, to check its signature.
    pub(crate) fn parts(&self) -> RequestParts<'_> {
        let mut req = RequestParts::new(&self.method, &self.host, &self.target).scheme("http");
        for (n, v) in &self.fields {
            req.push_header(n, v);
        }
        req
    }
}

/// A signed request: what it is, and the key ring its signature agent's
/// directory gives.
pub(crate) struct Signed(Received, KeyRing);

impl Signed {
    pub(crate) fn into_parts(self) -> (Received, KeyRing) {
        (self.0, self.1)
    }
}

/// The request a loopback site received, with the keys of the directory
/// its `Signature-Agent` names, fetched through `directories`.
pub(crate) async fn signed_parts(
    verifier: &SignatureVerifier,
    directories: &KeyDirectories,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
) -> Signed {
    let received = Received {
        method: method.as_str().to_owned(),
        host: headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or_default()
            .to_owned(),
        target: uri
            .path_and_query()
            .map_or("/".to_owned(), |p| p.as_str().to_owned()),
        fields: headers
            .iter()
            .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect(),
    };
    let ring = directories
        .key_ring(verifier, &received.parts(), &KeyRing::new())
        .await;
    Signed(received, ring)
}

/// A site on 127.0.0.1 that serves the signer's directory and checks
/// every other request's signature with it, fetched through
/// [`KeyDirectories`].
async fn signed_site(signer: &Signer) -> (Url, Seen) {
    let seen: Seen = Arc::default();
    let site = Arc::new(Site {
        seen: Arc::clone(&seen),
        verifier: SignatureVerifier::default(),
        directories: KeyDirectories::new(crate::crawl::fetcher(), KeyDirConfig::default()),
        directory: signer.directory_json(),
    });
    let app = Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap| {
        handle(Arc::clone(&site), method, uri, headers)
    });
    (crate::serve_router(app).await, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_of_a_signed_crawl_verifies_at_the_site() {
    let signer_key = Signer::generate().expect("key");
    let jwk = signer_key.private_jwk();
    // The site is up first: the agent is its own origin, where its
    // directory is.
    let (start, seen) = signed_site(&signer_key).await;
    let signer = Signer::from_jwk(&jwk, "test key")
        .expect("jwk")
        .agent(start.as_str().trim_end_matches('/'), AgentForm::Dictionary)
        .expect("agent");
    let fetcher = botwarden_fetch::Fetcher::builder()
        .allow_private(true)
        .timeout(Duration::from_secs(10))
        .signer(Some(Arc::new(signer)))
        .build()
        .expect("fetcher");
    assert_eq!(fetcher.signing_keyid(), Some(signer_key.keyid()));
    let store = TempStore::new("signed-crawl");
    let config = CrawlConfig {
        robots_sitemaps: true,
        ..config()
    };
    let (_store, _end) = crawl_all(
        &start,
        &config,
        &fetcher,
        Store::create(&store.db()).expect("store"),
        false,
    )
    .await;
    let seen = seen.lock().expect("seen").clone();
    let paths: BTreeMap<&str, &str> = seen.iter().map(|(p, o)| (p.as_str(), o.as_str())).collect();
    for path in [
        "/robots.txt",
        "/sitemap.xml",
        "/",
        "/a",
        "/old",
        "/b",
        "/from-sitemap",
    ] {
        assert!(
            paths.contains_key(path),
            "{path} was not requested: {seen:?}"
        );
    }
    for (path, outcome) in &seen {
        assert_eq!(outcome, "valid", "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsigned_fetcher_sends_no_signature() {
    let signer = Signer::generate().expect("key");
    let (start, seen) = signed_site(&signer).await;
    let report = crate::crawl::fetcher()
        .fetch(start.join("/robots.txt").expect("url").as_str())
        .await
        .expect("fetch");
    assert_eq!(report.status, Some(200));
    assert_eq!(
        seen.lock().expect("seen").clone(),
        vec![("/robots.txt".to_owned(), "unsigned".to_owned())]
    );
}

/// A directory server counting its requests: `cache_control` is sent, and
/// the response is signed by `signer` when `sign` says so, for the host
/// asked (or, when `sign_for` is set, for that one instead).
async fn directory_server(
    signer: Arc<Signer>,
    media_type: &'static str,
    cache_control: &'static str,
    sign: bool,
    sign_for: Option<&'static str>,
) -> (Server, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&count);
    let server = Server::start(move |asked| {
        if asked.path != WELL_KNOWN_DIRECTORY {
            return Reply::new(404);
        }
        c.fetch_add(1, Ordering::SeqCst);
        let directory = signer.directory_json();
        let mut reply = Reply::new(200)
            .header("content-type", media_type)
            .header("cache-control", cache_control)
            .body(directory.clone());
        if sign {
            let host = sign_for.unwrap_or(asked.host);
            let h = signer
                .sign_directory_response(
                    &format!("http://{host}{WELL_KNOWN_DIRECTORY}"),
                    directory.as_bytes(),
                    SystemTime::now(),
                )
                .expect("sign");
            reply = reply
                .header("content-digest", h.content_digest.unwrap_or_default())
                .header("signature-input", h.signature_input)
                .header("signature", h.signature);
        }
        reply
    })
    .await;
    (server, count)
}

fn directories(config: KeyDirConfig) -> KeyDirectories {
    KeyDirectories::new(crate::crawl::fetcher(), config)
}

#[tokio::test]
async fn a_signed_directory_is_fetched_once_while_its_max_age_lasts() {
    let signer = Arc::new(Signer::generate().expect("key"));
    let (server, count) = directory_server(
        Arc::clone(&signer),
        DIRECTORY_MEDIA_TYPE,
        "max-age=3600",
        true,
        None,
    )
    .await;
    let dirs = directories(KeyDirConfig::default());
    let url = server.url(WELL_KNOWN_DIRECTORY);
    let first = dirs.get(&url, AgentKind::Directory).await;
    let keys = first.keys.as_ref().expect("keys");
    assert!(keys.get(signer.keyid()).is_some());
    assert_eq!(first.ttl, Duration::from_secs(3600));
    assert_eq!(
        first.signature,
        DirectorySignature::Valid {
            keyids: vec![signer.keyid().to_owned()]
        }
    );
    let again = dirs.get(&url, AgentKind::Directory).await;
    assert!(again.keys.is_ok());
    assert_eq!(
        count.load(Ordering::SeqCst),
        1,
        "the second was from the cache"
    );
    let stats = dirs.stats();
    assert_eq!((stats.fetches, stats.cache_hits, stats.failures), (1, 1, 0));
}

#[tokio::test]
async fn a_directory_that_may_not_be_kept_is_fetched_again() {
    let signer = Arc::new(Signer::generate().expect("key"));
    let (server, count) = directory_server(
        Arc::clone(&signer),
        "application/json",
        "no-store",
        false,
        None,
    )
    .await;
    // No floor: `no-store` is taken at its word.
    let dirs = directories(KeyDirConfig {
        min_ttl: Duration::ZERO,
        ..KeyDirConfig::default()
    });
    let url = server.url(WELL_KNOWN_DIRECTORY);
    for _ in 0..3 {
        let got = dirs.get(&url, AgentKind::Directory).await;
        assert!(got.keys.is_ok());
        assert_eq!(got.signature, DirectorySignature::Unsigned);
    }
    assert_eq!(count.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn directories_with_another_media_type_or_a_bad_signature_are_refused() {
    let signer = Arc::new(Signer::generate().expect("key"));
    let (html, _) =
        directory_server(Arc::clone(&signer), "text/html", "max-age=60", false, None).await;
    let dirs = directories(KeyDirConfig::default());
    let got = dirs
        .get(&html.url(WELL_KNOWN_DIRECTORY), AgentKind::Directory)
        .await;
    let err = got.keys.as_ref().expect_err("text/html is not a directory");
    assert!(err.contains("served as `text/html`"), "{err}");

    // Signed for another host: whoever serves it does not hold the key
    // for this one.
    let (forged, _) = directory_server(
        Arc::clone(&signer),
        DIRECTORY_MEDIA_TYPE,
        "max-age=60",
        true,
        Some("elsewhere.example"),
    )
    .await;
    let got = dirs
        .get(&forged.url(WELL_KNOWN_DIRECTORY), AgentKind::Directory)
        .await;
    let err = got
        .keys
        .as_ref()
        .expect_err("the signature is for another host");
    assert!(err.contains("the directory response"), "{err}");
    assert_eq!(dirs.stats().failures, 2);
}

#[tokio::test]
async fn redirects_swapped_keys_and_plain_http_are_refused() {
    let signer = Arc::new(Signer::generate().expect("key"));
    let intruder = Signer::generate().expect("key");
    let directory = signer.directory_json();
    let swapped = format!(
        "{{\"keys\":[{},{}]}}",
        signer.public_key().to_jwk(),
        intruder.public_key().to_jwk()
    );
    let s = Arc::clone(&signer);
    let server = Server::start(move |asked| {
        let signed = |body: &str, signed_body: &str| {
            let h = s
                .sign_directory_response(
                    &format!("http://{}{WELL_KNOWN_DIRECTORY}", asked.host),
                    signed_body.as_bytes(),
                    SystemTime::now(),
                )
                .expect("sign");
            Reply::new(200)
                .header("content-type", DIRECTORY_MEDIA_TYPE)
                .header("content-digest", h.content_digest.unwrap_or_default())
                .header("signature-input", h.signature_input)
                .header("signature", h.signature)
                .body(body.to_owned())
        };
        match asked.path {
            "/moved" => Reply::new(301).header("location", WELL_KNOWN_DIRECTORY),
            // The signature and digest of the real directory, over a key
            // set with the intruder's key added.
            "/swapped" => signed(&swapped, &directory),
            WELL_KNOWN_DIRECTORY => signed(&directory, &directory),
            _ => Reply::new(404),
        }
    })
    .await;
    let dirs = directories(KeyDirConfig::default());
    let got = dirs
        .get(&server.url(WELL_KNOWN_DIRECTORY), AgentKind::Directory)
        .await;
    assert!(got.keys.is_ok(), "{:?}", got.keys);
    let got = dirs.get(&server.url("/moved"), AgentKind::JwksUri).await;
    let err = got.keys.as_ref().expect_err("a redirect is not followed");
    assert!(
        err.contains("HTTP 301 redirecting to `/.well-known/http-message-signatures-directory`")
            && err.contains("not followed across redirects"),
        "{err}"
    );
    let got = dirs.get(&server.url("/swapped"), AgentKind::JwksUri).await;
    let err = got.keys.as_ref().expect_err("the digest is of other keys");
    assert!(
        err.contains("sha-256 digest does not match the body"),
        "{err}"
    );

    // Plain http is for private networks only: a fetcher that does not
    // allow them refuses it before connecting, saying why.
    let public = botwarden_fetch::Fetcher::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("fetcher");
    let dirs = KeyDirectories::new(public, KeyDirConfig::default());
    let got = dirs
        .get(
            "http://keys.example/.well-known/http-message-signatures-directory",
            AgentKind::Directory,
        )
        .await;
    let err = got.keys.as_ref().expect_err("http is refused");
    assert!(err.contains("not https"), "{err}");
}

/// A request signed by `signer` naming `agent`, with its fields.
fn signed(signer: &Signer, authority: &str) -> Vec<(String, String)> {
    let h = signer
        .sign(&RequestParts::new("GET", authority, "/"), SystemTime::now())
        .expect("sign");
    h.fields()
        .into_iter()
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect()
}

fn check(
    verifier: &SignatureVerifier,
    fields: &[(String, String)],
    ring: &KeyRing,
) -> SignatureCheck {
    let mut req = RequestParts::new("GET", "site.example", "/");
    for (n, v) in fields {
        req.push_header(n, v);
    }
    verifier.check(&req, ring, SystemTime::now())
}

async fn ring_for(
    dirs: &KeyDirectories,
    verifier: &SignatureVerifier,
    fields: &[(String, String)],
) -> KeyRing {
    let mut req = RequestParts::new("GET", "site.example", "/");
    for (n, v) in fields {
        req.push_header(n, v);
    }
    dirs.key_ring(verifier, &req, &KeyRing::new()).await
}

#[tokio::test]
async fn an_unreachable_directory_leaves_the_request_undecided() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let signer = Signer::generate()
        .expect("key")
        .agent(&format!("http://127.0.0.1:{port}"), AgentForm::Dictionary)
        .expect("agent");
    let fields = signed(&signer, "site.example");
    let verifier = SignatureVerifier::default();
    let dirs = directories(KeyDirConfig::default());
    let ring = ring_for(&dirs, &verifier, &fields).await;
    match check(&verifier, &fields, &ring) {
        SignatureCheck::Undecided { reason, .. } => {
            assert!(reason.contains("could not be had"), "{reason}");
        }
        other => panic!("expected undecided, got {other:?}"),
    }
    // The failure is remembered for a while: no second attempt.
    let _ = ring_for(&dirs, &verifier, &fields).await;
    assert_eq!(dirs.stats().fetches, 1);
}

#[tokio::test]
async fn a_tampered_request_is_invalid_and_the_intact_one_valid() {
    let signer = Arc::new(Signer::generate().expect("key"));
    let (server, _) = directory_server(
        Arc::clone(&signer),
        DIRECTORY_MEDIA_TYPE,
        "max-age=60",
        true,
        None,
    )
    .await;
    let signer = Signer::from_jwk(&signer.private_jwk(), "key")
        .expect("jwk")
        .agent(&server.url(""), AgentForm::Dictionary)
        .expect("agent");
    let verifier = SignatureVerifier::default();
    let dirs = directories(KeyDirConfig::default());
    let fields = signed(&signer, "site.example");
    let ring = ring_for(&dirs, &verifier, &fields).await;
    assert!(matches!(
        check(&verifier, &fields, &ring),
        SignatureCheck::Valid(_)
    ));
    // Signed for another site, replayed here.
    let elsewhere = signed(&signer, "other.example");
    match check(&verifier, &elsewhere, &ring) {
        SignatureCheck::Invalid { failure, .. } => assert_eq!(failure.code(), "bad_signature"),
        other => panic!("expected invalid, got {other:?}"),
    }
}

#[tokio::test]
async fn a_directory_served_by_nginx_is_fetched_cached_and_used() {
    let root = std::env::temp_dir().join(format!("botwarden-keydir-nginx-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let well_known = root.join("site/.well-known");
    fs::create_dir_all(&well_known).expect("dir");
    let key = Signer::generate().expect("key");
    fs::write(
        well_known.join("http-message-signatures-directory"),
        key.directory_json(),
    )
    .expect("directory");
    let nginx = start_nginx(
        root.clone(),
        "",
        &format!(
            "location = {WELL_KNOWN_DIRECTORY} {{ default_type {DIRECTORY_MEDIA_TYPE}; \
             add_header Cache-Control \"max-age=86400\"; }}"
        ),
    );
    let origin = format!("http://127.0.0.1:{}", nginx.port);
    let signer = Signer::from_jwk(&key.private_jwk(), "key")
        .expect("jwk")
        .agent(&origin, AgentForm::String)
        .expect("agent");
    let verifier = SignatureVerifier::default();
    let dirs = directories(KeyDirConfig::default());
    for _ in 0..3 {
        let fields = signed(&signer, "site.example");
        let ring = ring_for(&dirs, &verifier, &fields).await;
        let keys = ring
            .directory(&format!("{origin}{WELL_KNOWN_DIRECTORY}"))
            .expect("fetched")
            .expect("keys");
        assert_eq!(
            keys.media_type().map(|m| m.as_str()),
            Some(DIRECTORY_MEDIA_TYPE)
        );
        assert!(matches!(
            check(&verifier, &fields, &ring),
            SignatureCheck::Valid(_)
        ));
    }
    let log = fs::read_to_string(root.join("access.log")).expect("access log");
    let asked = log
        .lines()
        .filter(|l| l.starts_with(WELL_KNOWN_DIRECTORY))
        .count();
    assert_eq!(asked, 1, "fetched once, then cached: {log}");
    assert_eq!(dirs.stats().cache_hits, 2);
    drop(nginx);
}
