//! Usage preferences and `Robots-Tag` over a real crawl of a loopback
//! site: what the crawler records per page (from robots.txt for its own
//! robot, and from the `Content-Usage` and `Content-Signal` headers), and
//! the audit's `usage/conflict`, `usage/reader-dependent` and
//! `robots/robots-tag-invalid`, each with a near miss that must not fire.

use botwarden_audit::Audit;
use botwarden_store::Store;
use url::Url;

use crate::crawl::{TempStore, config, crawl_all, fetcher};
use crate::server::{Reply, Server};

/// The crawler (`botwarden`) reads the `*` group: training refused under
/// `/usage/`, allowed elsewhere. The `Content-Signal` in `otherbot`'s
/// group reaches the crawler only under crawler-commons' file-wide
/// reading, and says `ai-input=no` for every path: every page the crawler
/// fetches is reader-dependent.
const ROBOTS: &str = "User-agent: *\n\
    Disallow: /private\n\
    Content-Usage: train-ai=y\n\
    Content-Usage: /usage/ train-ai=n\n\
    \n\
    User-agent: otherbot\n\
    Disallow: /x\n\
    Content-Signal: ai-input=no\n";

const HOME: &str = r#"<!doctype html><html><head><title>Home</title></head><body>
<a href="/usage/conflict">1</a> <a href="/usage/agree">2</a>
<a href="/tag-bad">3</a> <a href="/tag-good">4</a>
</body></html>"#;

fn html(title: &str) -> Reply {
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(format!("<!doctype html><html><head><title>{title}</title></head><body><p>{title}</p></body></html>"))
}

fn route(path: &str) -> Reply {
    match path {
        "/robots.txt" => Reply::text(ROBOTS),
        "/" => Reply::new(200)
            .header("content-type", "text/html")
            .body(HOME),
        // robots.txt refuses training here; the header allows it.
        "/usage/conflict" => html("conflict").header("content-usage", "train-ai=y"),
        // The near miss: the header says what robots.txt says.
        "/usage/agree" => html("agree").header("content-signal", "ai-train=no, ai-input=no"),
        // X-Robots-Tag's syntax under the new name: not a List.
        "/tag-bad" => html("bad").header("robots-tag", "botwarden: noindex"),
        "/tag-good" => html("good").header("robots-tag", "*;noindex"),
        _ => Reply::new(404),
    }
}

/// A page's URL and its preferences: robots.txt by group, file-wide, the
/// headers.
type Row = (String, Option<String>, Option<String>, Option<String>);

#[tokio::test]
async fn preferences_are_recorded_and_audited() {
    let server = Server::start(|asked| route(asked.path)).await;
    let tmp = TempStore::new("audit-usage");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let (store, end) = crawl_all(&start, &config(), &fetcher(), store, false).await;
    assert!(!end.stopped);
    drop(store);

    let conn = rusqlite::Connection::open(tmp.db()).expect("open");
    let prefix = server.url("");
    let mut rows: Vec<Row> = conn
        .prepare(
            "SELECT u.url, g.robots, g.robots_wide, g.header FROM usage g
             JOIN urls u ON u.id = g.url_id ORDER BY u.url",
        )
        .expect("prepare")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    for r in &mut rows {
        r.0 = r.0.replace(&prefix, "");
    }
    let row = |path: &str| {
        rows.iter()
            .find(|r| r.0 == path)
            .map(|r| (r.1.as_deref(), r.2.as_deref(), r.3.as_deref()))
    };
    // (search, train-ai, ai-input): the group reading, the file-wide one,
    // the headers.
    assert_eq!(
        row("/usage/conflict"),
        Some((Some("-n-"), Some("-nn"), Some("-y-")))
    );
    assert_eq!(
        row("/usage/agree"),
        Some((Some("-n-"), Some("-nn"), Some("-nn")))
    );
    assert_eq!(row("/tag-good"), Some((Some("-y-"), Some("-yn"), None)));
    let noindex: Option<String> = conn
        .query_row(
            "SELECT p.noindex FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url LIKE '%/tag-good'",
            [],
            |r| r.get(0),
        )
        .expect("tag-good");
    assert_eq!(noindex.as_deref(), Some("Robots-Tag (*)"));
    drop(conn);

    let store = Store::open(&tmp.db()).expect("store");
    let report = Audit::default().run(&store).expect("audit");
    let urls = |code: &str| -> Vec<String> {
        let c = report.check(code).expect("check");
        c.findings
            .iter()
            .map(|f| f.url.replace(&prefix, ""))
            .collect()
    };
    assert_eq!(urls("usage/conflict"), ["/usage/conflict"]);
    let message = &report.check("usage/conflict").expect("check").findings[0].message;
    assert!(
        message.contains("train-ai: robots.txt n, header y"),
        "{message}"
    );
    assert!(message.contains("Content-Usage: train-ai=y"), "{message}");
    assert_eq!(urls("robots/robots-tag-invalid"), ["/tag-bad"]);
    // Every page the crawler fetched gets `ai-input` only file-wide.
    let mut dependent = urls("usage/reader-dependent");
    dependent.sort();
    assert_eq!(
        dependent,
        [
            "/",
            "/tag-bad",
            "/tag-good",
            "/usage/agree",
            "/usage/conflict"
        ]
    );
}
