//! Large non-HTML answers are known by their headers: the crawler does not
//! download them; HTML bodies are read up to the size limit.

use botwarden_fetch::Fetcher;
use botwarden_store::Store;
use std::time::Duration;
use url::Url;

use crate::crawl::{TempStore, crawl_all};
use crate::faults::{Act, FaultServer, Script};

const GIB: u64 = 1 << 30;

/// `(path, status, content_type, content_length, body_read, bytes, hash)`.
type Row = (
    String,
    u16,
    Option<String>,
    Option<i64>,
    bool,
    i64,
    Option<String>,
);

#[tokio::test]
async fn pdfs_and_videos_are_not_downloaded() {
    let script = Script::new()
        .path("/robots.txt", [Act::text("User-agent: *\nAllow: /\n")])
        .path(
            "/",
            [Act::html(
                r#"<a href="/report.pdf">pdf</a> <a href="/film.mp4">film</a>
                <a href="/huge.html">huge</a> <a href="/untyped">untyped</a>"#,
            )],
        )
        .path(
            "/report.pdf",
            [Act::status(200)
                .header("content-type", "application/pdf")
                .zeros(GIB)],
        )
        .path(
            "/film.mp4",
            [Act::status(200)
                .header("content-type", "video/mp4")
                .zeros(GIB)],
        )
        // HTML is read, up to the limit.
        .path(
            "/huge.html",
            [Act::status(200)
                .header("content-type", "text/html")
                .zeros(GIB)],
        )
        // No type: read, for it may be HTML.
        .path("/untyped", [Act::status(200).body("<p>hello</p>")]);
    let server = FaultServer::start(script).await;
    let tmp = TempStore::new("large");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let max_bytes = 1 << 20;
    let fetcher = Fetcher::builder()
        .allow_private(true)
        .max_bytes(max_bytes)
        .timeout(Duration::from_secs(30))
        .build()
        .expect("fetcher");
    let (store, end) = crawl_all(&start, &crate::crawl::config(), &fetcher, store, false).await;
    assert_eq!(end.fetched, 5);
    let prefix = server.url("");
    let mut st = store
        .connection()
        .prepare(
            "SELECT u.url, p.status, p.content_type, p.content_length, p.body_read, p.bytes,
                    p.content_hash
             FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url != ?1 ORDER BY u.url",
        )
        .expect("query");
    let rows: Vec<Row> = st
        .query_map([server.url("/")], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })
        .expect("rows")
        .map(|r| r.expect("row"))
        .map(|mut r: Row| {
            r.0 = r.0.replace(&prefix, "");
            r
        })
        .collect();
    let gib = Some(GIB as i64);
    let text = |s: &str| Some(s.to_owned());
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert_eq!(
        rows[0],
        (
            "/film.mp4".to_owned(),
            200,
            text("video/mp4"),
            gib,
            false,
            0,
            None
        )
    );
    assert_eq!(
        rows[2],
        (
            "/report.pdf".to_owned(),
            200,
            text("application/pdf"),
            gib,
            false,
            0,
            None
        )
    );
    let huge = &rows[1];
    assert_eq!(
        (huge.0.as_str(), huge.4, huge.5),
        ("/huge.html", true, max_bytes as i64)
    );
    assert!(huge.6.is_some(), "{huge:?}");
    let untyped = &rows[3];
    assert_eq!(
        (
            untyped.0.as_str(),
            untyped.2.as_deref(),
            untyped.4,
            untyped.5
        ),
        ("/untyped", None, true, 12)
    );
    // Three bodies of 1 GiB were offered; what left the server is the HTML
    // page's first MiB and what the sockets' buffers took before the
    // connections closed: far below even one of them.
    let written = server.written();
    assert!(written < GIB / 8, "{written} bytes written");
    let truncated: bool = store
        .connection()
        .query_row(
            "SELECT truncated FROM pages p JOIN urls u ON u.id = p.url_id
             WHERE u.url LIKE '%/huge.html'",
            [],
            |r| r.get(0),
        )
        .expect("page");
    assert!(truncated);
}
