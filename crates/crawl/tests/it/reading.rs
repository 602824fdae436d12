//! A page read as a browser without scripts reads it, crawled from a site
//! on 127.0.0.1 and audited: `<noscript>` frames followed, links to the
//! page itself out of the link graph, a refresh made at once treated as a
//! redirect, a byte-order mark that is no text, nofollow links to other
//! sites out of scope, a redirect's target at its source's depth.

use botwarden_audit::{Audit, AuditReport, LinkGraph};
use botwarden_crawl::CrawlConfig;
use botwarden_store::{Store, Summary};
use url::Url;

use crate::crawl::{TempStore, config, crawl_all, fetcher};
use crate::server::{Reply, Server};

fn html(body: &str) -> Reply {
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(body.to_owned())
}

/// A page with everything the content checks look for.
fn page(title: &str, body: &str) -> Reply {
    html(&format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title>\
         <meta name=description content=\"About {title}\"></head>\
         <body><h1>{title}</h1>{body}</body></html>"
    ))
}

const HOME: &str = r##"<a class="skip" href="#main">Skip to the content</a>
<main id="main"><a href="/#top">top</a> <a href="/">home again</a> <a href="">here</a>
<nav><noscript><iframe class="sidebar" src="/toc.html"></iframe></noscript></nav>
<a href="/bom">bom</a> <a href="/go">go</a> <a href="/old">old</a>
<a href="/later">later</a>
<a href="https://ads.example.invalid/offer" rel="sponsored">an offer</a>
<a href="https://forum.example.invalid/post" rel="ugc nofollow">a post</a></main>"##;

async fn site() -> Server {
    Server::start(|asked| match asked.path {
        "/robots.txt" => Reply::text("User-agent: *\nAllow: /\n"),
        "/" => page("Home", HOME),
        "/toc.html" => page("Contents", r#"<a href="/chapter">Chapter</a>"#),
        "/chapter" => page("Chapter", r#"<a href="/">Home</a>"#),
        "/bom" => html(
            "\u{feff}<!DOCTYPE html>\n<html><head><meta charset=utf-8><title>Marked</title>\
             <meta name=description content=\"A page with a byte-order mark\"></head>\
             <body><h1>Marked</h1></body></html>",
        ),
        // A redirect page: no title, heading, description or charset.
        "/go" => Reply::new(200).header("content-type", "text/html").body(
            "<html><head><meta http-equiv=\"refresh\" content=\"0; url=/moved\"></head>\
             <body><a href=\"/moved\">moved</a></body></html>",
        ),
        "/moved" => Reply::new(301).header("location", "/final"),
        "/final" => page("Final", ""),
        "/elsewhere" => page("Elsewhere", ""),
        // A page to read, that moves on later.
        "/later" => html(
            "<!doctype html><html><head><meta charset=utf-8><title>Later</title>\
             <meta name=description content=\"Moves on\">\
             <meta http-equiv=\"refresh\" content=\"5; url=/elsewhere\"></head>\
             <body><h1>Later</h1></body></html>",
        ),
        "/old" => Reply::new(301).header("location", "/new-place"),
        "/new-place" => page("New place", ""),
        _ => Reply::new(404),
    })
    .await
}

async fn crawled(name: &str) -> (Server, Store, AuditReport, TempStore) {
    let server = site().await;
    let tmp = TempStore::new(name);
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = CrawlConfig { ..config() };
    let (store, end) = crawl_all(&start, &cfg, &fetcher(), store, false).await;
    assert!(!end.stopped);
    let report = Audit::default().run(&store).expect("audit");
    (server, store, report, tmp)
}

/// The URL of a path of the server, as the store holds it.
fn url(server: &Server, path: &str) -> String {
    server.url(path)
}

/// A URL's `(depth, found_by, state, skip_reason)`.
fn url_row(store: &Store, url: &str) -> (u32, String, String, Option<String>) {
    store
        .connection()
        .query_row(
            "SELECT depth, found_by, state, skip_reason FROM urls WHERE url = ?1",
            [url],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap_or_else(|e| panic!("{url}: {e}"))
}

/// The paths of a check's findings.
fn found(report: &AuditReport, server: &Server, code: &str) -> Vec<String> {
    report
        .check(code)
        .unwrap_or_else(|| panic!("no check {code}"))
        .findings
        .iter()
        .map(|f| f.url.replace(&server.url(""), ""))
        .collect()
}

#[tokio::test]
async fn a_frame_inside_noscript_is_followed() {
    let (server, store, _, _tmp) = crawled("noscript-frame").await;
    let toc = url(&server, "/toc.html");
    assert_eq!(
        url_row(&store, &toc),
        (1, "link".to_owned(), "fetched".to_owned(), None)
    );
    let (kind, followed): (String, bool) = store
        .connection()
        .query_row(
            "SELECT l.kind, l.followed FROM links l JOIN urls t ON t.id = l.target_id
             WHERE t.url = ?1",
            [&toc],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("the frame's link");
    assert_eq!((kind.as_str(), followed), ("iframe", true));
    // And the pages the frame leads to.
    assert_eq!(url_row(&store, &url(&server, "/chapter")).2, "fetched");
}

#[tokio::test]
async fn links_to_the_page_itself_are_kept_marked_and_counted_nowhere() {
    let (server, store, report, _tmp) = crawled("same-page").await;
    let home = url(&server, "/");
    let mut st = store
        .connection()
        .prepare(
            "SELECT l.anchor, l.same_page FROM links l JOIN urls s ON s.id = l.source_id
             WHERE s.url = ?1 AND l.kind = 'a' ORDER BY l.position",
        )
        .expect("links");
    let links: Vec<(String, bool)> = st
        .query_map([&home], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows");
    let same: Vec<&str> = links
        .iter()
        .filter(|(_, s)| *s)
        .map(|(a, _)| a.as_str())
        .collect();
    assert_eq!(same, ["Skip to the content", "top", "home again", "here"]);
    // The home page's only in-link is the chapter's.
    let graph = LinkGraph::load(&store).expect("graph");
    let node = graph.nodes.iter().find(|n| n.url == home).expect("home");
    assert_eq!(node.in_links, 1);
    let all: i64 = store
        .connection()
        .query_row("SELECT count(*) FROM links WHERE same_page = 0", [], |r| {
            r.get(0)
        })
        .expect("count");
    let summary = Summary::read(&store).expect("summary");
    assert_eq!(summary.links, u64::try_from(all).expect("count"));
    // The empty `href` is still reported as one.
    assert_eq!(found(&report, &server, "links/empty-href"), ["/"]);
}

#[tokio::test]
async fn a_refresh_made_at_once_is_a_redirect() {
    let (server, store, report, _tmp) = crawled("instant-refresh").await;
    let go = url(&server, "/go");
    let (location, delay): (Option<String>, Option<u32>) = store
        .connection()
        .query_row(
            "SELECT p.location, p.refresh_delay FROM pages p JOIN urls u ON u.id = p.url_id
             WHERE u.url = ?1",
            [&go],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("page");
    assert_eq!(location, Some(url(&server, "/moved")));
    assert_eq!(delay, Some(0));
    // Its target is met at its depth: a redirect is not a click.
    assert_eq!(url_row(&store, &url(&server, "/moved")).0, 1);
    assert_eq!(url_row(&store, &url(&server, "/final")).0, 1);
    // Not a page to read.
    for code in [
        "content/missing-title",
        "content/missing-description",
        "content/missing-h1",
        "encoding/charset-missing",
    ] {
        assert!(
            !found(&report, &server, code).contains(&"/go".to_owned()),
            "{code}: {:?}",
            found(&report, &server, code)
        );
    }
    // A redirect: linked to, and the first of a chain (its own link to
    // `/moved`, for visitors whose browser stays, is a link to a
    // redirect too).
    assert_eq!(
        found(&report, &server, "links/to-redirect"),
        ["/go", "/old", "/moved"]
    );
    let to_redirect = report.check("links/to-redirect").expect("check");
    assert!(
        to_redirect.findings[0]
            .message
            .starts_with("refreshes at once to "),
        "{}",
        to_redirect.findings[0].message
    );
    assert_eq!(found(&report, &server, "redirects/chain"), ["/go"]);
    // A refresh that leaves time to read is a page, with its refresh
    // reported; both are.
    assert_eq!(
        found(&report, &server, "links/refresh-redirect"),
        ["/go", "/later"]
    );
    // Its target is a link's: one click further.
    assert_eq!(url_row(&store, &url(&server, "/elsewhere")).0, 2);
}

#[tokio::test]
async fn a_byte_order_mark_does_not_break_the_head() {
    let (server, store, report, _tmp) = crawled("bom").await;
    assert_eq!(url_row(&store, &url(&server, "/bom")).2, "fetched");
    assert_eq!(
        found(&report, &server, "structure/body-in-head"),
        Vec::<String>::new()
    );
}

#[tokio::test]
async fn nofollow_links_to_other_sites_are_out_of_scope_and_redirects_keep_the_depth() {
    let (server, store, _, _tmp) = crawled("scope-first").await;
    for other in [
        "https://ads.example.invalid/offer",
        "https://forum.example.invalid/post",
    ] {
        let (_, _, state, reason) = url_row(&store, other);
        assert_eq!(
            (state.as_str(), reason.as_deref()),
            ("skipped", Some("scope"))
        );
    }
    assert_eq!(url_row(&store, &url(&server, "/old")).0, 1);
    assert_eq!(
        url_row(&store, &url(&server, "/new-place")),
        (1, "redirect".to_owned(), "fetched".to_owned(), None)
    );
}
