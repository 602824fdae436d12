//! The audit's reports over real crawls of sites on 127.0.0.1: the HTML
//! page (structure, hostile strings, headless Chromium), the CSV files,
//! the comparison of two crawls, and the link graph's exports and score.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use botwarden_audit::{
    Audit, AuditDocument, CHECKS, LinkGraph, csv_file_name, render_html, write_csv,
};
use botwarden_store::Store;
use botwarden_testdata::chromium;
use url::Url;

use crate::crawl::{TempStore, config, crawl_all, fetcher};
use crate::server::{Asked, Reply, Server};

fn page(title: Option<&str>, body: &str) -> Reply {
    let title = title
        .map(|t| format!("<title>{t}</title>"))
        .unwrap_or_default();
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(format!(
            "<!doctype html><html><head>{title}</head><body>{body}</body></html>"
        ))
}

/// Crawls the site `route` serves into a fresh store.
async fn crawled(
    name: &str,
    route: impl Fn(&Asked<'_>) -> Reply + Send + Sync + 'static,
) -> (Server, Store, TempStore) {
    let server = Server::start(route).await;
    let (store, tmp) = crawl_again(&server, name).await;
    (server, store, tmp)
}

async fn crawl_again(server: &Server, name: &str) -> (Store, TempStore) {
    let tmp = TempStore::new(name);
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let (store, end) = crawl_all(&start, &config(), &fetcher(), store, false).await;
    assert!(!end.stopped);
    (store, tmp)
}

/// The anchor text (`alt`) of an `<area>` that leads to a missing page.
const IMG_ANCHOR: &str = r#""><img src=x onerror=alert(1)>"#;
/// The title of two pages.
const SCRIPT_TITLE: &str = "<script>alert(2)</script>";
/// A link's anchor that a spreadsheet would read as a formula.
const FORMULA_ANCHOR: &str = r#"=HYPERLINK("http://x.invalid/","y")"#;

/// A site whose pages say hostile things, and that plants findings for
/// most checks.
fn hostile(asked: &Asked<'_>) -> Reply {
    match asked.path {
        "/robots.txt" => Reply::text("User-agent: *\nDisallow: /private\n"),
        "/" => page(
            Some("Home"),
            r#"<map name="m"><area href="/gone" alt='"><img src=x onerror=alert(1)>'></map>
               <a href="/it's?q='x'">quoted</a>
               <a href="/gone2">=HYPERLINK("http://x.invalid/","y")</a>
               <a href="/old">old</a> <a href="/a">a</a> <a href="/b">b</a>
               <a href="/untitled">u</a> <a href="/private/x">p</a>"#,
        ),
        "/old" => Reply::new(301).header("location", "/a"),
        "/a" => page(
            Some(SCRIPT_TITLE),
            r#"<p>first</p><a href="/deep">deeper</a>"#,
        ),
        "/b" => page(Some(SCRIPT_TITLE), "<p>second</p>"),
        "/untitled" => page(None, "<p>no title</p>"),
        "/deep" => page(Some("Deep"), "<p>deep</p>"),
        _ => Reply::new(404),
    }
}

/// `s` as Chromium serializes text: `&`, `<`, `>` escaped.
fn dom_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\u{a0}', "&nbsp;")
}

/// `s` as the report escapes it.
fn html_text(s: &str) -> String {
    dom_text(s).replace('"', "&quot;").replace('\'', "&#39;")
}

/// The part of `html` from the section with this id to its end.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!(r#"<section class="panel check" id="{id}""#))
        .unwrap_or_else(|| panic!("no section {id}"));
    let rest = &html[start..];
    &rest[..rest.find("</section>").expect("section end")]
}

#[tokio::test]
async fn html_report_shows_every_check_and_keeps_hostile_strings_inert() {
    let (server, store, _tmp) = crawled("audit-html", hostile).await;
    let doc = AuditDocument::build(
        &Audit {
            max_depth: 1,
            ..Audit::default()
        },
        &store,
        None,
    )
    .expect("audit");
    let r = &doc.report;
    // The site plants these; the anchors and title come back as written.
    for (code, n) in [
        ("links/broken-internal", 3),
        ("links/to-redirect", 1),
        ("content/duplicate-title", 1),
        ("content/missing-title", 1),
        ("robots/blocked", 1),
        ("structure/deep-page", 1),
    ] {
        assert_eq!(r.check(code).expect(code).count, n, "{code}: {r:#?}");
    }
    let broken = &r.check("links/broken-internal").expect("check").findings;
    assert_eq!(broken[0].links[0].anchor.as_deref(), Some(IMG_ANCHOR));
    let quoted = server.url("/it's?q=%27x%27");
    assert_eq!(broken[1].url, quoted);

    let html = render_html(&doc);
    assert_eq!(html, render_html(&doc), "deterministic");
    assert!(html.starts_with("<!DOCTYPE html>\n"));
    assert!(html.contains(
        r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">"#
    ));
    for bad in [
        "<script",
        "<img",
        "<iframe",
        "onerror=alert(1)>",
        "url(",
        "@import",
        "href=\"http",
    ] {
        assert!(!html.contains(bad), "{bad} reached the page");
    }
    assert!(html.contains(&html_text(IMG_ANCHOR)));
    assert!(html.contains(&html_text(SCRIPT_TITLE)));
    assert!(html.contains(&html_text(&quoted)));
    // A section per check, each with its documentation and its findings'
    // URLs, and a row in the overview.
    for c in &r.checks {
        let id = format!("check-{}", c.code.replace('/', "-"));
        let s = section(&html, &id);
        assert!(s.contains("<h3>What it finds</h3>"), "{id}: no docs");
        assert!(
            html.contains(&format!(r##"<a href="#{id}">"##)),
            "{id} not in the overview"
        );
        for f in &c.findings {
            assert!(s.contains(&html_text(&f.url)), "{id}: {} missing", f.url);
        }
        if c.findings.is_empty() {
            assert!(s.contains("No findings."), "{id}");
        }
    }
    // The link graph: the home page is the most linked (the other pages
    // link nowhere but /a → /deep) and the depth chart has depths 0 to 2.
    assert!(html.contains(r#"<svg id="depth-chart""#));
    for d in 0..=2 {
        assert!(html.contains(&format!(r#"data-depth="{d}""#)), "depth {d}");
    }
    assert!(html.contains(r#"<table id="most-linked">"#));
    assert!(html.contains(r#"<table id="top-scores">"#));

    // Headless Chromium: the DOM holds every section with its URLs, no
    // element came from the site's strings; screenshots kept beside.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("audit-html");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("artifact dir");
    let file = dir.join("audit.html");
    std::fs::write(&file, &html).expect("write the page");
    let png = dir.join("audit.png");
    let dom = chromium::render(&format!("file://{}", file.display()), &png, 1200, 2400);
    for c in &r.checks {
        let id = format!("check-{}", c.code.replace('/', "-"));
        assert!(
            dom.contains(&format!(r#"id="{id}""#)),
            "{id} not in the DOM"
        );
        for f in &c.findings {
            assert!(dom.contains(&dom_text(&f.url)), "{} not in the DOM", f.url);
        }
    }
    assert!(dom.contains(&dom_text(IMG_ANCHOR)), "the anchor, as text");
    assert!(dom.contains(&dom_text(SCRIPT_TITLE)), "the title, as text");
    assert!(!dom.contains("<img") && !dom.contains("<script"), "{dom}");
    assert_eq!(dom.matches("<iframe").count(), 0);
    let image = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert_eq!(chromium::png_size(&image), (1200, 2400));
    assert!(
        image.len() > 40_000,
        "screenshot looks blank ({} bytes)",
        image.len()
    );
    // On a phone.
    let phone = dir.join("audit-phone.png");
    let dom = chromium::render(&format!("file://{}", file.display()), &phone, 390, 2400);
    assert!(dom.contains(r#"id="check-links-broken-internal""#));
    let image = std::fs::read(&phone).unwrap_or_else(|e| panic!("{}: {e}", phone.display()));
    assert_eq!(chromium::png_size(&image), (390, 2400));
}

/// Splits a CSV file (RFC 4180) into records of fields.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => assert_eq!(chars.next(), Some('\n'), "CR without LF"),
            (false, '\n') => panic!("a bare LF ends a record"),
            (false, c) => field.push(c),
        }
        if !quoted && c == '\r' {
            record.push(std::mem::take(&mut field));
            records.push(std::mem::take(&mut record));
        }
    }
    assert!(
        field.is_empty() && record.is_empty(),
        "the last record has no CRLF"
    );
    records
}

#[tokio::test]
async fn csv_files_per_check_quote_and_defuse_formulas() {
    let (server, store, tmp) = crawled("audit-csv", hostile).await;
    let doc = AuditDocument::build(
        &Audit {
            max_depth: 1,
            ..Audit::default()
        },
        &store,
        None,
    )
    .expect("audit");
    let dir = tmp.db().with_file_name("csv");
    let files = write_csv(&doc.report, None, &dir).expect("CSV written");
    let with: Vec<_> = doc.report.checks.iter().filter(|c| c.count > 0).collect();
    assert_eq!(files.len(), with.len() + 1, "{files:?}");

    let index = parse_csv(&std::fs::read_to_string(dir.join("index.csv")).expect("index"));
    assert_eq!(
        index[0],
        ["code", "severity", "summary", "findings", "file"]
    );
    assert_eq!(index.len(), CHECKS.len() + 1);
    for row in &index[1..] {
        let c = doc.report.check(&row[0]).expect("a check");
        assert_eq!(row[3], c.count.to_string());
        let file = if c.count > 0 {
            csv_file_name(c.code)
        } else {
            String::new()
        };
        assert_eq!(row[4], file);
    }

    let text = std::fs::read_to_string(dir.join("links-broken-internal.csv")).expect("file");
    let rows = parse_csv(&text);
    assert_eq!(
        rows[0][..7],
        [
            "url",
            "message",
            "related",
            "link_source",
            "link_kind",
            "link_anchor",
            "link_count"
        ]
    );
    // One row per link: three missing pages, one link each.
    assert_eq!(rows.len(), 4, "{text}");
    let home = server.url("/");
    assert_eq!(rows[1][0], server.url("/gone"));
    assert_eq!(rows[1][1], "answered 404");
    assert_eq!(rows[1][3], home);
    assert_eq!(rows[1][5], IMG_ANCHOR);
    assert_eq!(rows[2][0], server.url("/it's?q=%27x%27"));
    // The formula is kept as text.
    assert_eq!(rows[3][5], format!("'{FORMULA_ANCHOR}"));
    assert!(
        text.contains(r#""'=HYPERLINK(""http://x.invalid/"",""y"")""#),
        "{text}"
    );

    let blocked =
        parse_csv(&std::fs::read_to_string(dir.join("robots-blocked.csv")).expect("file"));
    assert_eq!(blocked[1][0], server.url("/private/x"));
    assert_eq!(blocked[1][7..10], ["disallowed", "Disallow: /private", "2"]);
}

/// `v1` or, once `changed`, `v2` of a site: `/gone` comes back, `/old`
/// still redirects, and a new link leads to `/missing`.
fn changing(changed: &AtomicBool, asked: &Asked<'_>) -> Reply {
    let later = changed.load(Ordering::SeqCst);
    match asked.path {
        "/robots.txt" => Reply::text("User-agent: *\nAllow: /\n"),
        "/" if later => page(
            Some("Home"),
            r#"<a href="/gone">back</a> <a href="/old">old</a> <a href="/missing">new</a>"#,
        ),
        "/" => page(
            Some("Home"),
            r#"<a href="/gone">gone</a> <a href="/old">old</a>"#,
        ),
        "/gone" if later => page(Some("Back"), "<p>back</p>"),
        "/old" => Reply::new(301).header("location", "/"),
        _ => Reply::new(404),
    }
}

#[tokio::test]
async fn comparison_of_two_crawls_says_fixed_new_and_still() {
    let changed = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&changed);
    let server = Server::start(move |asked| changing(&flag, asked)).await;
    let (before, _t1) = crawl_again(&server, "audit-compare-1").await;
    changed.store(true, Ordering::SeqCst);
    let (now, _t2) = crawl_again(&server, "audit-compare-2").await;

    let doc = AuditDocument::build(&Audit::default(), &now, Some(&before)).expect("audit");
    let cmp = doc.compare.as_ref().expect("a comparison");
    let broken = cmp
        .checks
        .iter()
        .find(|c| c.code == "links/broken-internal")
        .expect("check");
    assert_eq!(broken.fixed, [server.url("/gone")]);
    assert_eq!(broken.new, [server.url("/missing")]);
    assert!(broken.still.is_empty());
    let redirect = cmp
        .checks
        .iter()
        .find(|c| c.code == "links/to-redirect")
        .expect("check");
    assert_eq!(redirect.still, [server.url("/old")]);
    assert!(redirect.fixed.is_empty() && redirect.new.is_empty());
    // New besides /missing: /gone, now a page, has no canonical,
    // description, <h1>, language or viewport, and little text; still:
    // /old, and the same six on the home page.
    for code in [
        "canonical/missing",
        "content/missing-description",
        "content/missing-h1",
        "content/lang-missing",
        "content/viewport-missing",
        "content/thin",
    ] {
        let check = cmp.checks.iter().find(|c| c.code == code).expect("check");
        assert_eq!(check.new, [server.url("/gone")], "{code}");
        assert_eq!(check.still, [server.url("/")], "{code}");
        assert!(check.fixed.is_empty(), "{code}");
    }
    // /gone, now a page, links nowhere: a dead end.
    let dead = cmp
        .checks
        .iter()
        .find(|c| c.code == "links/dead-end")
        .expect("check");
    assert_eq!(dead.new, [server.url("/gone")]);
    assert!(dead.still.is_empty() && dead.fixed.is_empty());
    assert_eq!((cmp.fixed, cmp.new, cmp.still), (1, 8, 7));
    assert_eq!(cmp.checks.len(), CHECKS.len());

    let text = doc.to_string();
    assert!(text.contains(": 1 fixed, 8 new, 7 still there"), "{text}");
    assert!(
        text.contains("error    links/broken-internal  1 fixed, 1 new, 0 still there"),
        "{text}"
    );
    assert!(
        text.contains(&format!("  fixed  {}\n", server.url("/gone"))),
        "{text}"
    );
    assert!(
        text.contains(&format!("  new    {}\n", server.url("/missing"))),
        "{text}"
    );

    let json = serde_json::to_value(&doc).expect("JSON");
    assert_eq!(json["compare"]["fixed"], 1, "{json}");
    assert_eq!(json["schema"], "botwarden-audit/1");
    let c = json["compare"]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["code"] == "links/broken-internal")
        .expect("check");
    assert_eq!(c["new"][0], server.url("/missing"));

    let html = render_html(&doc);
    assert!(html.contains(r#"<section class="panel" id="compare""#));
    assert!(html.contains(&format!(
        r#"<tr class="fixed"><td><span class="badge b-fixed">fixed</span></td><td class="url">{}</td></tr>"#,
        server.url("/gone")
    )));
    assert!(html.contains(&format!(
        r#"<tr class="new"><td><span class="badge b-new">new</span></td><td class="url">{}</td></tr>"#,
        server.url("/missing")
    )));

    // Without --compare, no `compare` key.
    let plain = AuditDocument::build(&Audit::default(), &now, None).expect("audit");
    assert!(
        serde_json::to_value(&plain)
            .expect("JSON")
            .get("compare")
            .is_none()
    );
}

/// A hub linked both ways with three leaves, a text file and a missing
/// page (neither is an HTML page: left out of the score).
fn star(asked: &Asked<'_>) -> Reply {
    match asked.path {
        "/robots.txt" => Reply::text("User-agent: *\nAllow: /\n"),
        "/" => page(
            Some("Hub"),
            r#"<a href="/a">a</a> <a href="/b">b & "b"</a> <a href="/c">c</a>
               <a href="/notes.txt">notes</a> <a href="/gone">gone</a> <a href="/a">a again</a>"#,
        ),
        "/a" | "/b" | "/c" => page(Some(asked.path), r#"<a href="/">home</a>"#),
        "/notes.txt" => Reply::text("notes"),
        _ => Reply::new(404),
    }
}

#[tokio::test]
async fn link_graph_scores_the_hub_highest_and_exports_csv_and_graphml() {
    let (server, store, tmp) = crawled("audit-graph", star).await;
    let graph = LinkGraph::load(&store).expect("graph");
    let node = |path: &str| {
        let url = server.url(path);
        graph
            .nodes
            .iter()
            .find(|n| n.url == url)
            .unwrap_or_else(|| panic!("no node {url}"))
    };
    // Worked by hand in the library's tests: hub 1.918919, leaves 0.693694.
    let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-5);
    assert!(close(node("/").score, 1.918_919), "{:?}", node("/"));
    for leaf in ["/a", "/b", "/c"] {
        assert!(close(node(leaf).score, 0.693_694), "{:?}", node(leaf));
    }
    assert_eq!(node("/notes.txt").score, None);
    assert_eq!(node("/gone").score, None);
    assert_eq!(graph.run.pages, 4);
    assert_eq!(graph.run.links, 6);
    // To the text file, to the missing page, and /a a second time.
    assert_eq!(graph.run.links_left_out, 3);
    assert!(graph.run.converged);
    assert_eq!(node("/").out_links, 6);
    assert_eq!(node("/").in_links, 3);
    assert_eq!(node("/a").in_links, 2);
    assert_eq!(node("/gone").status, Some(404));

    let doc = AuditDocument::build(&Audit::default(), &store, None).expect("audit");
    assert_eq!(doc.site.top_scores[0].url, server.url("/"));
    assert_eq!(doc.site.most_linked[0].url, server.url("/"));
    let json = serde_json::to_value(&doc).expect("JSON");
    assert_eq!(json["site"]["link_score"]["pages"], 4, "{json}");
    assert!(
        json["site"]["top_scores"][0]["score"]
            .as_f64()
            .is_some_and(|s| (s - 1.918_919).abs() < 1e-5)
    );

    // CSV.
    let mut nodes = Vec::new();
    let n = graph.write_nodes_csv(&mut nodes).expect("nodes");
    let nodes = parse_csv(&String::from_utf8(nodes).expect("UTF-8"));
    assert_eq!(
        nodes[0],
        [
            "url",
            "state",
            "status",
            "depth",
            "in_links",
            "out_links",
            "link_score"
        ]
    );
    assert_eq!(nodes.len() as u64, n + 1);
    let hub = nodes
        .iter()
        .find(|r| r[0] == server.url("/"))
        .expect("hub row");
    assert_eq!(hub[1..], ["fetched", "200", "0", "3", "6", "1.918919"]);
    let mut edges = Vec::new();
    let e = graph.write_edges_csv(&store, &mut edges).expect("edges");
    let edges = parse_csv(&String::from_utf8(edges).expect("UTF-8"));
    assert_eq!(
        edges[0],
        ["source", "target", "kind", "anchor", "rel", "followed"]
    );
    assert_eq!(edges.len() as u64, e + 1);
    assert!(edges.iter().any(|r| r[0] == server.url("/")
        && r[1] == server.url("/b")
        && r[3] == r#"b & "b""#
        && r[5] == "true"));

    // GraphML, read back with quick-xml.
    let mut xml = Vec::new();
    let (gn, ge) = graph.write_graphml(&store, &mut xml).expect("GraphML");
    assert_eq!((gn, ge), (n, e));
    let file = tmp.db().with_file_name("graph.graphml");
    std::fs::write(&file, &xml).expect("keep it");
    let read = read_graphml(&xml);
    assert_eq!(read.nodes.len() as u64, n);
    assert_eq!(read.edges.len() as u64, e);
    for key in [
        "label",
        "state",
        "status",
        "depth",
        "in_links",
        "out_links",
        "link_score",
        "kind",
        "anchor",
        "rel",
        "followed",
    ] {
        assert!(
            read.keys.contains(&key.to_owned()),
            "key {key} not declared"
        );
    }
    for data in read
        .nodes
        .iter()
        .map(|(_, d)| d)
        .chain(read.edges.iter().map(|(_, _, d)| d))
    {
        for (k, _) in data {
            assert!(read.keys.contains(k), "undeclared key {k}");
        }
    }
    let hub = read
        .nodes
        .iter()
        .find(|(_, d)| d.iter().any(|(k, v)| k == "label" && *v == server.url("/")))
        .expect("the hub");
    assert!(
        hub.1
            .contains(&("link_score".to_owned(), "1.918919".to_owned()))
    );
    let ids: std::collections::HashSet<&str> =
        read.nodes.iter().map(|(id, _)| id.as_str()).collect();
    for (s, t, _) in &read.edges {
        assert!(
            ids.contains(s.as_str()) && ids.contains(t.as_str()),
            "edge {s} → {t}"
        );
    }
    assert!(
        read.edges
            .iter()
            .any(|(_, _, d)| d.contains(&("anchor".to_owned(), r#"b & "b""#.to_owned())))
    );
}

/// An element's `<data>`: `(key, text)`.
type Data = Vec<(String, String)>;

struct GraphMl {
    keys: Vec<String>,
    /// `(id, data)`.
    nodes: Vec<(String, Data)>,
    /// `(source, target, data)`.
    edges: Vec<(String, String, Data)>,
}

fn read_graphml(xml: &[u8]) -> GraphMl {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut g = GraphMl {
        keys: Vec::new(),
        nodes: Vec::new(),
        edges: Vec::new(),
    };
    let attr = |e: &quick_xml::events::BytesStart<'_>, name: &str| -> String {
        e.try_get_attribute(name)
            .expect("attribute")
            .unwrap_or_else(|| panic!("no {name}"))
            .unescape_value()
            .expect("escaped value")
            .into_owned()
    };
    let mut buf = Vec::new();
    // The `<data>` being read: its key and text so far.
    let mut data: Option<(String, String)> = None;
    let mut in_edge = false;
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Eof => break,
            Event::Empty(e) if e.name().as_ref() == b"key" => g.keys.push(attr(&e, "id")),
            Event::Start(e) => match e.name().as_ref() {
                b"node" => {
                    in_edge = false;
                    g.nodes.push((attr(&e, "id"), Vec::new()));
                }
                b"edge" => {
                    in_edge = true;
                    g.edges
                        .push((attr(&e, "source"), attr(&e, "target"), Vec::new()));
                }
                b"data" => data = Some((attr(&e, "key"), String::new())),
                _ => {}
            },
            Event::Text(t) => {
                if let Some((_, v)) = &mut data {
                    v.push_str(&t.xml_content().expect("text"));
                }
            }
            Event::GeneralRef(r) => {
                let (_, v) = data.as_mut().expect("a reference inside <data>");
                let name = r.decode().expect("name");
                let c = match name.as_ref() {
                    "amp" => '&',
                    "lt" => '<',
                    "gt" => '>',
                    "quot" => '"',
                    "apos" => '\'',
                    _ => r
                        .resolve_char_ref()
                        .expect("a character reference")
                        .unwrap_or_else(|| panic!("unknown entity {name}")),
                };
                v.push(c);
            }
            Event::End(e) if e.name().as_ref() == b"data" => {
                let (k, v) = data.take().expect("open <data>");
                let list = if in_edge {
                    &mut g.edges.last_mut().expect("edge").2
                } else {
                    &mut g.nodes.last_mut().expect("node").1
                };
                list.push((k, v));
            }
            _ => {}
        }
        buf.clear();
    }
    g
}
