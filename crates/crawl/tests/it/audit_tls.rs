//! The audit's checks that only an HTTPS site can show: mixed content,
//! active and passive, and missing security headers, on a site served by
//! nginx over TLS with a test authority (as in `tls.rs`), with their near
//! misses.

use std::fs;

use botwarden_audit::Audit;
use botwarden_store::Store;
use url::Url;

use crate::crawl::{TempStore, config, crawl_all};
use crate::nginx_site::start_nginx;
use crate::tls::certificates;

/// The pages: one with active mixed content, one with passive, and one of
/// near misses (HTTPS and protocol-relative subresources, an `http://`
/// link, an icon, a URL in a script's text).
const PAGES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "",
        r#"<a href="/active.html">a</a> <a href="/passive.html">p</a> <a href="/secure.html">s</a>"#,
    ),
    (
        "active.html",
        r#"<script src="http://cdn.example.invalid/app.js"></script>
<link rel="stylesheet" href="http://cdn.example.invalid/site.css">"#,
        r#"<form action="http://forms.example.invalid/send"><input name="q"></form>"#,
    ),
    (
        "passive.html",
        "",
        r#"<img src="http://img.example.invalid/photo.jpg" alt="photo">"#,
    ),
    (
        "secure.html",
        r#"<script src="https://cdn.example.invalid/app.js"></script>
<link rel="icon" href="http://cdn.example.invalid/favicon.ico">
<script>var fallback = "http://cdn.example.invalid/old.js";</script>"#,
        r#"<img src="//img.example.invalid/photo.jpg"> <img src="/local.png">
<a href="http://example.invalid/">a link, not a subresource</a>"#,
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_pages_with_http_subresources_are_found_active_and_passive() {
    let root = std::env::temp_dir().join(format!("botwarden-audit-tls-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(root.join("site")).expect("root");
    certificates(&root);
    for (path, head, body) in PAGES {
        fs::write(
            root.join("site").join(path),
            format!(
                "<!doctype html><html><head><title>{path}</title>\n{head}\n</head>\
                 <body>{body}</body></html>"
            ),
        )
        .expect("page");
    }
    let r = root.display();
    let nginx = start_nginx(
        root.clone(),
        "ssl",
        &format!(
            "ssl_certificate \"{r}/server.pem\";\n ssl_certificate_key \"{r}/server.key\";\n \
             default_type text/html;\n \
             location = /secure.html {{ add_header Strict-Transport-Security \"max-age=31536000\" always; \
             add_header X-Content-Type-Options nosniff always; \
             add_header Content-Security-Policy \"default-src 'self'\" always; }}\n \
             location = /passive.html {{ add_header X-Content-Type-Options nosniff always; \
             add_header Content-Security-Policy-Report-Only \"default-src 'self'\" always; }}"
        ),
    );
    let start = Url::parse(&format!("https://127.0.0.1:{}/", nginx.port)).expect("url");
    let pem = fs::read(root.join("ca.pem")).expect("ca.pem");
    let fetcher = crate::loopback()
        .trust_pem("ca.pem", pem)
        .build()
        .expect("fetcher");
    let tmp = TempStore::new("audit-tls");
    let store = Store::create(&tmp.db()).expect("store");
    let (store, end) = crawl_all(&start, &config(), &fetcher, store, false).await;
    assert_eq!(end.fetched, 4, "{end:?}");
    let report = Audit::default().run(&store).expect("audit");
    drop(nginx);
    let _ = fs::remove_dir_all(&root);

    let found = |code: &str| -> Vec<(String, String, Vec<String>)> {
        report
            .check(code)
            .expect("a check")
            .findings
            .iter()
            .map(|f| {
                (
                    f.url.replace(start.as_str(), "/"),
                    f.message.clone(),
                    f.related.clone(),
                )
            })
            .collect()
    };
    assert_eq!(
        found("security/mixed-content-active"),
        [(
            "/active.html".to_owned(),
            "3 active subresource(s) over http://".to_owned(),
            vec![
                "script src http://cdn.example.invalid/app.js (line 2)".to_owned(),
                "link rel=stylesheet href http://cdn.example.invalid/site.css (line 3)".to_owned(),
                "form action http://forms.example.invalid/send (line 4)".to_owned(),
            ]
        )]
    );
    assert_eq!(
        found("security/mixed-content-passive"),
        [(
            "/passive.html".to_owned(),
            "1 passive subresource(s) over http://".to_owned(),
            vec!["img src http://img.example.invalid/photo.jpg (line 3)".to_owned()]
        )]
    );
    // The security headers: all three on /secure.html (no finding), one
    // on /passive.html (a report-only policy is not a policy), none on the
    // others.
    let none = "sent without Strict-Transport-Security, X-Content-Type-Options: nosniff, \
                Content-Security-Policy";
    assert_eq!(
        found("security/missing-headers"),
        [
            ("/".to_owned(), none.to_owned(), vec![]),
            ("/active.html".to_owned(), none.to_owned(), vec![]),
            (
                "/passive.html".to_owned(),
                "sent without Strict-Transport-Security, Content-Security-Policy".to_owned(),
                vec![]
            ),
        ]
    );
    assert!(report.notes.is_empty(), "{:?}", report.notes);
}
