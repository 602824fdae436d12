//! HTTPS: a site served by nginx over TLS with HTTP/2 (ALPN), its
//! certificate signed by an authority made for the test with `openssl`.
//! The crawler trusts that authority only when told to
//! ([`FetcherBuilder::trust_pem`]), then speaks HTTP/2 to the site.

use std::fs;
use std::path::Path;
use std::process::Command;

use botwarden_fetch::Error;
use botwarden_robots::FetchResult;
use botwarden_store::Store;
use url::Url;

use crate::crawl::{TempStore, config, crawl_all};
use crate::nginx_site::start_nginx;

/// Runs `openssl` with `args` in `dir`.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl runs (Debian package `openssl`)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A certificate authority (`ca.pem`) and a server certificate for
/// 127.0.0.1 it signed (`server.pem`, `server.key`), in `dir`.
pub(crate) fn certificates(dir: &Path) {
    authority(dir, 2);
    server_certificate(dir, "server", 2);
}

/// The key options of `openssl req` for a P-256 key without a passphrase.
const EC_KEY: [&str; 5] = [
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
];

/// A certificate authority valid `days` days (`ca.pem`, `ca.key`), in
/// `dir`.
pub(crate) fn authority(dir: &Path, days: i32) {
    let days = days.to_string();
    let mut ca = vec!["req", "-x509"];
    ca.extend(EC_KEY);
    ca.extend([
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        &days,
        "-subj",
        "/CN=botwarden test authority",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
    ]);
    openssl(dir, &ca);
}

/// A certificate for 127.0.0.1 that the authority in `dir` signed and
/// that expires in `days` days (negative: expired that long ago):
/// `NAME.pem` and `NAME.key`, in `dir`.
pub(crate) fn server_certificate(dir: &Path, name: &str, days: i32) {
    let (key, csr, pem) = (
        format!("{name}.key"),
        format!("{name}.csr"),
        format!("{name}.pem"),
    );
    let mut req = vec!["req"];
    req.extend(EC_KEY);
    req.extend(["-keyout", &key, "-out", &csr, "-subj", "/CN=127.0.0.1"]);
    openssl(dir, &req);
    fs::write(
        dir.join("server.ext"),
        "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
    )
    .expect("extensions");
    let days = days.to_string();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            &days,
            "-extfile",
            "server.ext",
            "-out",
            &pem,
        ],
    );
}

/// The site: a home page, two pages it links to, a third behind one of
/// them, and a robots.txt that keeps the crawler out of `/private/`.
fn site(dir: &Path) {
    let pages = [
        (
            "index.html",
            r#"<a href="/a.html">a</a> <a href="b.html">b</a> <a href="/private/x.html">x</a>"#,
        ),
        ("a.html", r#"<a href="/c.html">c</a> <a href="/">home</a>"#),
        ("b.html", "no links"),
        ("c.html", r#"<a href="/a.html">a</a>"#),
        ("private/x.html", "kept out"),
    ];
    fs::create_dir_all(dir.join("private")).expect("site dir");
    for (path, body) in pages {
        fs::write(
            dir.join(path),
            format!(
                "<!doctype html><html><head><title>{path}</title></head><body>{body}</body></html>"
            ),
        )
        .expect("page");
    }
    fs::write(
        dir.join("robots.txt"),
        "User-agent: *\nDisallow: /private/\n",
    )
    .expect("robots.txt");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_site_is_crawled_over_http2_with_a_trusted_authority() {
    let root = std::env::temp_dir().join(format!("botwarden-tls-site-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(root.join("site")).expect("root");
    certificates(&root);
    site(&root.join("site"));
    let r = root.display();
    let nginx = start_nginx(
        root.clone(),
        "ssl http2",
        &format!(
            "ssl_certificate \"{r}/server.pem\";\n ssl_certificate_key \"{r}/server.key\";\n \
             default_type text/html;"
        ),
    );
    let start = Url::parse(&format!("https://127.0.0.1:{}/", nginx.port)).expect("url");

    // Without the authority, the certificate is refused, and the report
    // says so.
    let untrusting = crate::loopback().build().expect("fetcher");
    let report = untrusting.fetch(start.as_str()).await.expect("sent");
    assert_eq!(report.result, FetchResult::NetworkError, "{report:?}");
    let error = report.error.expect("an error").to_string();
    assert!(error.contains("certificate"), "{error}");

    let pem = fs::read(root.join("ca.pem")).expect("ca.pem");
    let fetcher = crate::loopback()
        .trust_pem("ca.pem", pem)
        .build()
        .expect("fetcher");
    let tmp = TempStore::new("tls");
    let store = Store::create(&tmp.db()).expect("store");
    let (store, end) = crawl_all(&start, &config(), &fetcher, store, false).await;
    assert_eq!(end.fetched, 4, "{end:?}");
    let pages: Vec<(String, Option<i64>, Option<String>)> = {
        let mut st = store
            .connection()
            .prepare(
                "SELECT u.url, p.status, p.http_version FROM pages p \
                 JOIN urls u ON u.id = p.url_id ORDER BY u.url",
            )
            .expect("query");
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("rows")
            .map(|r| r.expect("row"))
            .collect()
    };
    let want: Vec<(String, Option<i64>, Option<String>)> = ["", "a.html", "b.html", "c.html"]
        .iter()
        .map(|p| (format!("{start}{p}"), Some(200), Some("HTTP/2".to_owned())))
        .collect();
    assert_eq!(pages, want);
    // nginx saw HTTP/2 for robots.txt and every page, and nothing twice.
    let log = fs::read_to_string(root.join("access.log")).expect("access log");
    let mut lines: Vec<&str> = log.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "/ HTTP/2.0",
            "/a.html HTTP/2.0",
            "/b.html HTTP/2.0",
            "/c.html HTTP/2.0",
            "/robots.txt HTTP/2.0",
        ]
    );
    drop(nginx);
}

#[test]
fn a_bundle_without_certificates_is_refused_by_name() {
    let err = crate::loopback()
        .trust_pem("empty.pem", b"not a certificate\n".to_vec())
        .build()
        .expect_err("nothing to trust");
    assert!(
        matches!(&err, Error::Certificates { input, .. } if input == "empty.pem"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "empty.pem: cannot read the certificates to trust: no PEM certificate in it"
    );
}
