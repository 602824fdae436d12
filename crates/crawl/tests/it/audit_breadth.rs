//! The audit's breadth: a planted site for the checks that read links,
//! descriptions and sitemaps in new ways (dead ends, too many links,
//! private addresses, follow and nofollow to one target, generic anchor
//! text, several descriptions, indexable pages missing from sitemaps, URLs
//! in several sitemaps), the page facts' checks, links to fragments a
//! page lacks, JSON-LD items without their required properties or with
//! conflicting contexts, and hreflang that disagrees with a page's
//! language, names a non-canonical or noindex page or is written
//! relative, each with near misses; precision and recall 1.0 per check.

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use botwarden_audit::Audit;
use botwarden_crawl::CrawlConfig;
use botwarden_fetch::Fetcher;
use botwarden_store::Store;
use url::Url;

use crate::audit_trust::{Found, found, owned};
use crate::crawl::{TempStore, config, crawl_all};
use crate::server::{Reply, Server};

/// The link home every page has, so that only the planted pages are dead
/// ends.
const HOME: &str = r#"<a href="/">home page</a>"#;

/// What the site's not-found page says.
const SORRY: &str = "<p>Sorry, the page you asked for is not here any more. It may have moved, \
    or the link that brought you may be old; try the search, or start again from the home page \
    of this site, where every section is listed.</p>";

/// The pages of the site, each listed in `/sitemap.xml` unless its path
/// starts with `/unlisted`.
const PAGES: &[&str] = &[
    "/",
    "/dead",
    "/alive",
    "/many",
    "/thousand",
    "/private",
    "/mixed",
    "/all-nofollow",
    "/generic",
    "/two-desc",
    "/one-desc",
    "/twice",
    "/a",
    "/b",
    "/c",
    "/img",
    "/two-titles",
    "/svg-title",
    "/no-lang",
    "/empty-lang",
    "/bad-lang",
    "/good-lang",
    "/no-viewport",
    "/dup-id",
    "/unique-id",
    "/skip",
    "/no-skip",
    "/thin",
    "/thin-noindex",
    "/bad-ld",
    "/good-ld",
    "/proto",
    "/soft-h1",
    "/soft-text",
    "/e0404",
    "/gone-page",
    "/frag",
    "/frag-target",
    "/many-ids",
    "/ld-product",
    "/ld-graph",
    "/ld-faq",
    "/ld-fine",
    "/ctx-conflict",
    "/ctx-fine",
    "/hl-en",
    "/hl-de",
    "/hl-source",
    "/hl-noncanon",
    "/hl-noindex",
    "/hl-pt",
    "/hl-nl",
    "/unlisted",
    "/unlisted-noindex",
    "/unlisted-canonical",
];

/// A whole page: `<html {attrs}>`, a title, `head`, then `body`.
fn doc(attrs: &str, head: &str, body: &str) -> Reply {
    Reply::new(200)
        .header("content-type", "text/html; charset=utf-8")
        .body(format!(
            "<!doctype html><html{attrs}><head><title>t</title>{head}</head><body>{body}</body></html>"
        ))
}

/// A page as the site's pages are, in English, with a viewport and 220
/// words of text (so that only the planted pages are thin), then `body`.
fn page(head: &str, body: &str) -> Reply {
    let text: String = (0..220).fold(String::new(), |mut s, i| {
        let _ = write!(s, "word{i} ");
        s
    });
    doc(
        r#" lang="en""#,
        &format!(r#"<meta name="viewport" content="width=device-width">{head}"#),
        &format!("{body}<p>{text}</p>"),
    )
}

/// `n` words of text in a paragraph.
fn words(n: usize) -> String {
    let text: String = (0..n).fold(String::new(), |mut s, i| {
        let _ = write!(s, "word{i} ");
        s
    });
    format!("<p>{text}</p>")
}

/// A page in language `lang` with a viewport, `head` and 220 words.
fn in_lang(lang: &str, head: &str) -> Reply {
    doc(
        &format!(r#" lang="{lang}""#),
        &format!(r#"<meta name="viewport" content="x">{head}"#),
        &format!("{HOME}{}", words(220)),
    )
}

/// The JSON-LD blocks of a page.
fn ld(blocks: &[&str]) -> String {
    blocks
        .iter()
        .map(|b| format!(r#"<script type="application/ld+json">{b}</script>"#))
        .collect()
}

/// The links of `/frag`: to sections of `/frag-target` and of itself.
const FRAGMENT_LINKS: &str = r##"<h2 id="own">own</h2>
    <a href="/frag-target#here">the here section</a>
    <a href="/frag-target#named">the named anchor</a>
    <a href="/frag-target#caf%C3%A9">the café section</a>
    <a href="/frag-target#café">the café section as written</a>
    <a href="/frag-target#:~:text=Here">a text fragment</a>
    <a href="/frag-target#here:~:text=x">the here section with a text fragment</a>
    <a href="/frag-target#TOP">the top of the target</a>
    <a href="/frag-target#">an empty fragment</a>
    <a href="/frag-target#missing">a missing section</a>
    <a href="/frag-target#missing">the missing section again</a>
    <a href="/frag-target#space">a section by the wrong case</a>
    <a href="/frag-target#in-template">a section inside a template</a>
    <a href="/frag-target#795-797">lines 795 to 797, as a code viewer's script reads them</a>
    <a href="/frag-target#L12">line 12</a>
    <a href="/frag-target#L12x">no line: a section missing</a>
    <a href="#own">this page's own section</a>
    <a href="#nowhere">a section this page lacks</a>
    <a href="/gone-page#x">a section of a page that is gone</a>
    <a href="http://other.invalid/#x">a section of another site</a>
    <a href="/many-ids#nothing">a page of too many ids to keep</a>"##;

/// The hreflang alternates of `/hl-source`: to a page that names another
/// canonical, a noindex page, a URL written relative, and a sound one.
fn source_alternates(base: &str) -> String {
    format!(
        r#"<link rel="alternate" hreflang="en" href="{base}/hl-source">
           <link rel="alternate" hreflang="es" href="{base}/hl-noncanon">
           <link rel="alternate" hreflang="it" href="{base}/hl-noindex">
           <link rel="alternate" hreflang="pt" href="/hl-pt">
           <link rel="alternate" hreflang="nl" href="{base}/hl-nl">"#
    )
}

fn external(n: usize) -> String {
    (0..n).fold(String::new(), |mut s, i| {
        let _ = write!(s, r#"<a href="http://other.invalid/x{i}">item {i}</a>"#);
        s
    })
}

fn sitemap(base: &str, paths: &[&str]) -> Reply {
    let urls: String = paths
        .iter()
        .map(|p| format!("<url><loc>{base}{p}</loc></url>"))
        .collect();
    Reply::new(200)
        .header("content-type", "application/xml")
        .body(format!(
            r#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>"#
        ))
}

fn route(path: &str, base: &str) -> Reply {
    match path {
        "/" => {
            let links: String = PAGES
                .iter()
                .filter(|p| **p != "/")
                .map(|p| format!(r#"<a href="{p}">page {p}</a> "#))
                .collect();
            page("", &links)
        }
        "/sitemap.xml" => {
            let listed: Vec<&str> = PAGES
                .iter()
                .copied()
                .filter(|p| !p.starts_with("/unlisted"))
                .collect();
            sitemap(base, &listed)
        }
        "/sitemap2.xml" => sitemap(base, &["/twice"]),
        // Only another site, and itself: a dead end.
        "/dead" => page(
            "",
            r##"<a href="http://other.invalid/">elsewhere</a> <a href="#top">top</a>"##,
        ),
        "/alive" => page("", HOME),
        "/many" => page("", &format!("{HOME}{}", external(1000))),
        "/thousand" => page("", &format!("{HOME}{}", external(999))),
        "/private" => page(
            "",
            &format!(
                r#"{HOME} <a href="http://localhost:3000/">dev server</a>
                   <a href="http://192.168.1.10/admin">router admin</a>
                   <a href="http://[::1]/">loopback six</a>
                   <a href="http://localhost.example/">a public name</a>
                   <a href="http://172.32.0.1/">a public address</a>
                   <a href="{base}/a">this site, on loopback</a>"#
            ),
        ),
        "/mixed" => page(
            "",
            &format!(
                r#"{HOME} <a href="/a" rel="nofollow">first a</a> <a href="/a">second a</a>
                   <a href="/b" rel="nofollow ugc">only nofollow b</a> <a href="/c">only followed c</a>"#
            ),
        ),
        "/all-nofollow" => page(
            r#"<meta name="robots" content="nofollow">"#,
            &format!(r#"{HOME} <a href="/a" rel="nofollow">a one</a> <a href="/a">a two</a>"#),
        ),
        "/generic" => page(
            "",
            &format!(
                r##"{HOME} <a href="/a">Click here</a> <a href="/b"> Read more… </a>
                   <a href="/c">read more about pricing</a> <a href="#top">here</a>
                   <a href="/a">click here</a>"##
            ),
        ),
        "/two-desc" => page(
            r#"<meta name="description" content="one"><meta name="description" content="two">"#,
            HOME,
        ),
        "/one-desc" => page(r#"<meta name="description" content="one">"#, HOME),
        "/img" => {
            let long = "a".repeat(101);
            let fine = "b".repeat(100);
            page(
                "",
                &format!(
                    r#"{HOME} <img src="/a.png"> <img src="/b.png" alt="" width="1" height="1">
                       <img src="/c.png" alt="{long}" width="1" height="1">
                       <img src="/d.png" alt="{fine}" width="1" height="1">
                       <img src="/e.png" alt="e" width="1">"#
                ),
            )
        }
        "/two-titles" => page("<title>second</title>", HOME),
        "/svg-title" => page("", &format!("{HOME}<svg><title>icon</title></svg>")),
        "/no-lang" => doc(
            "",
            r#"<meta name="viewport" content="x">"#,
            &format!("{HOME}{}", words(220)),
        ),
        "/empty-lang" => doc(
            r#" lang="""#,
            r#"<meta name="viewport" content="x">"#,
            &format!("{HOME}{}", words(220)),
        ),
        "/bad-lang" => doc(
            r#" lang="en_US""#,
            r#"<meta name="viewport" content="x">"#,
            &format!("{HOME}{}", words(220)),
        ),
        "/good-lang" => doc(
            r#" lang="de-CH-1996""#,
            r#"<meta name="viewport" content="x">"#,
            &format!("{HOME}{}", words(220)),
        ),
        "/no-viewport" => doc(r#" lang="en""#, "", &format!("{HOME}{}", words(220))),
        "/dup-id" => page(
            "",
            &format!(
                r#"{HOME}<div id="x"></div><p id="x"></p><i id="y"></i><b id="y"></b><u id="z"></u>"#
            ),
        ),
        "/unique-id" => page(
            "",
            &format!(r#"{HOME}<div id="x"></div><template><div id="x"></div></template>"#),
        ),
        "/skip" => page(
            "",
            &format!("{HOME}<h1>a</h1><h2>b</h2><h4>c</h4><h6>d</h6>"),
        ),
        "/no-skip" => page(
            "",
            &format!("{HOME}<h2>a</h2><h3>b</h3><h1>c</h1><h2>d</h2>"),
        ),
        "/thin" => doc(
            r#" lang="en""#,
            r#"<meta name="viewport" content="x">"#,
            &format!("{HOME}{}", words(150)),
        ),
        "/thin-noindex" => doc(
            r#" lang="en""#,
            r#"<meta name="viewport" content="x"><meta name="robots" content="noindex">"#,
            &format!("{HOME}{}", words(5)),
        ),
        "/bad-ld" => page(
            r#"<script type="application/ld+json">{"@type": "Thing"}</script>
               <script type="application/ld+json">{"@type": "Thing",}</script>"#,
            HOME,
        ),
        "/good-ld" => page(
            r#"<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Thing"}</script>
               <script type="application/json">{not json</script>"#,
            HOME,
        ),
        "/proto" => page(
            "",
            &format!(
                r#"{HOME} <a href="//other.invalid/x">scheme-less</a> <a href="//other.invalid/y">again</a>"#
            ),
        ),
        // The site's not-found page, and a page that answers 200 with it.
        "/gone-page" => {
            let mut r = page("", &format!("{HOME}{SORRY}"));
            r.status = 404;
            r
        }
        "/soft-text" => page("", &format!("{HOME}{SORRY}")),
        "/soft-h1" => page("", &format!("{HOME}<h1>404 - nothing here</h1>")),
        "/e0404" => page("", &format!("{HOME}<h1>Error code E0404</h1>")),
        "/frag" => page("", &format!("{HOME}{FRAGMENT_LINKS}")),
        "/frag-target" => page(
            "",
            &format!(
                r#"{HOME}<h2 id="here">h</h2><a name="named">n</a><p id="café">c</p><p id="Space">s</p>
                   <template><p id="in-template">t</p></template>"#
            ),
        ),
        "/many-ids" => {
            let ids: String = (0..=10_000).fold(String::new(), |mut s, i| {
                let _ = write!(s, "<i id=\"i{i}\"></i>");
                s
            });
            page("", &format!("{HOME}{ids}"))
        }
        "/ld-product" => page(
            &ld(&[r#"{"@context": "https://schema.org", "@type": "Product", "name": "anvil"}"#]),
            HOME,
        ),
        "/ld-graph" => page(
            &ld(&[r#"{"@context": "https://schema.org", "@graph": [
                {"@type": "Organization"},
                {"@type": "Product", "name": "anvil", "offers": {"@type": "Offer", "price": "1"}},
                {"@type": "BreadcrumbList", "itemListElement": [
                    {"@type": "ListItem", "position": 1, "name": "Home", "item": "/"},
                    {"@type": "ListItem", "name": "Anvils"}]}]}"#]),
            HOME,
        ),
        "/ld-faq" => page(
            &ld(&[
                r#"{"@context": "https://schema.org", "@type": "FAQPage", "mainEntity": [
                {"@type": "Question", "name": "why?", "acceptedAnswer": {"@type": "Answer", "text": "so"}},
                {"@type": "Question", "name": "how?"}]}"#,
            ]),
            HOME,
        ),
        "/ld-fine" => page(
            &ld(&[
                r#"[{"@context": "https://schema.org", "@type": ["Product", "Thing"], "name": "anvil",
                  "aggregateRating": {"@type": "AggregateRating", "ratingValue": 4}},
                 {"@context": "https://schema.org", "@type": "Article"},
                 {"@context": "https://schema.org", "@type": "Review",
                  "itemReviewed": {"@type": "Product"}},
                 {"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": [
                    {"@type": "ListItem", "position": 1, "name": "Home", "item": "/"},
                    {"@type": "ListItem", "position": 2, "name": "Anvils"}]},
                 {"@context": "https://schema.org", "@type": "Event", "name": "fair",
                  "startDate": "2026-12-01", "location": "here"}]"#,
            ]),
            &format!(r#"{HOME}<div itemscope itemtype="https://schema.org/Product"></div>"#),
        ),
        "/ctx-conflict" => page(
            &ld(&[
                r#"{"@context": "https://schema.org", "@type": "Thing"}"#,
                r#"{"@context": "https://example.org/vocab", "@type": "Thing"}"#,
            ]),
            HOME,
        ),
        "/ctx-fine" => page(
            &ld(&[
                r#"{"@context": "http://schema.org", "@type": "Thing"}"#,
                r#"{"@context": "https://schema.org/", "@type": "Thing"}"#,
                r#"{"@context": ["https://schema.org", {"@language": "en"}], "@type": "Thing"}"#,
                r#"{"@type": "Thing"}"#,
            ]),
            HOME,
        ),
        "/hl-en" | "/hl-de" => {
            let lang = if path == "/hl-en" { "en-US" } else { "en" };
            in_lang(
                lang,
                &format!(
                    r#"<link rel="alternate" hreflang="en" href="{base}/hl-en">
                       <link rel="alternate" hreflang="de" href="{base}/hl-de">
                       <link rel="alternate" hreflang="x-default" href="{base}/hl-en">"#
                ),
            )
        }
        "/hl-source" => in_lang("en", &source_alternates(base)),
        "/hl-noncanon" => in_lang(
            "es",
            &format!(r#"<link rel="canonical" href="{base}/hl-nl">"#),
        ),
        "/hl-noindex" => in_lang("it", r#"<meta name="robots" content="noindex">"#),
        "/hl-pt" => in_lang("pt", ""),
        "/hl-nl" => in_lang(
            "nl",
            &format!(r#"<link rel="canonical" href="{base}/hl-nl">"#),
        ),
        "/unlisted-noindex" => page(r#"<meta name="robots" content="noindex">"#, HOME),
        "/unlisted-canonical" => page(r#"<link rel="canonical" href="/a">"#, HOME),
        p if PAGES.contains(&p) => page("", HOME),
        _ => Reply::new(404),
    }
}

async fn site() -> Server {
    let base: Arc<OnceLock<String>> = Arc::default();
    let own = Arc::clone(&base);
    let server = Server::start(move |asked| {
        let base = own.get().cloned().unwrap_or_default();
        route(asked.path, base.trim_end_matches('/'))
    })
    .await;
    base.set(server.url("")).expect("set once");
    server
}

/// The checks planted here (and `security/missing-headers`, planted on
/// `audit_tls`'s HTTPS site).
pub(crate) const CODES: &[&str] = &[
    "security/missing-headers",
    "links/dead-end",
    "links/too-many",
    "links/private-address",
    "links/follow-and-nofollow",
    "links/non-descriptive-anchor",
    "content/multiple-description",
    "sitemaps/missing-indexable",
    "sitemaps/listed-twice",
    "images/missing-alt",
    "images/long-alt",
    "images/missing-size",
    "content/multiple-title",
    "content/lang-missing",
    "content/lang-invalid",
    "content/viewport-missing",
    "content/duplicate-id",
    "content/heading-skip",
    "content/thin",
    "structured-data/invalid-json-ld",
    "links/protocol-relative",
    "content/soft-404",
    "links/missing-fragment",
    "structured-data/missing-required",
    "structured-data/conflicting-context",
    "hreflang/lang-mismatch",
    "hreflang/to-non-canonical",
    "hreflang/to-noindex",
    "hreflang/relative",
];

fn planted() -> Vec<(&'static str, Found)> {
    vec![
        ("links/dead-end", owned(&[("/dead", &[])])),
        ("links/too-many", owned(&[("/many", &[])])),
        (
            "links/private-address",
            vec![
                ("http://localhost:3000/".into(), vec![]),
                ("http://192.168.1.10/admin".into(), vec![]),
                ("http://[::1]/".into(), vec![]),
            ],
        ),
        ("links/follow-and-nofollow", owned(&[("/mixed", &["/a"])])),
        (
            "links/non-descriptive-anchor",
            owned(&[("/generic", &["click here", "read more"])]),
        ),
        ("content/multiple-description", owned(&[("/two-desc", &[])])),
        ("sitemaps/missing-indexable", owned(&[("/unlisted", &[])])),
        (
            "sitemaps/listed-twice",
            owned(&[("/twice", &["/sitemap.xml", "/sitemap2.xml"])]),
        ),
        ("images/missing-alt", owned(&[("/img", &["/a.png"])])),
        ("images/long-alt", owned(&[("/img", &["/c.png"])])),
        ("images/missing-size", owned(&[("/img", &["/a.png"])])),
        ("content/multiple-title", owned(&[("/two-titles", &[])])),
        (
            "content/lang-missing",
            owned(&[("/no-lang", &[]), ("/empty-lang", &[])]),
        ),
        ("content/lang-invalid", owned(&[("/bad-lang", &[])])),
        ("content/viewport-missing", owned(&[("/no-viewport", &[])])),
        ("content/duplicate-id", owned(&[("/dup-id", &["x"])])),
        ("content/heading-skip", owned(&[("/skip", &[])])),
        ("content/thin", owned(&[("/thin", &[])])),
        (
            "structured-data/invalid-json-ld",
            owned(&[("/bad-ld", &[])]),
        ),
        (
            "links/protocol-relative",
            owned(&[("/proto", &["//other.invalid/x"])]),
        ),
        (
            "content/soft-404",
            owned(&[("/soft-h1", &[]), ("/soft-text", &["/gone-page"])]),
        ),
        (
            "links/missing-fragment",
            owned(&[
                ("/frag", &["/frag-target#missing"]),
                ("/frag", &["/frag-target#space"]),
                ("/frag", &["/frag-target#in-template"]),
                ("/frag", &["/frag-target#L12x"]),
                ("/frag", &["/frag#nowhere"]),
            ]),
        ),
        (
            "structured-data/missing-required",
            owned(&[("/ld-product", &[]), ("/ld-graph", &[]), ("/ld-faq", &[])]),
        ),
        (
            "structured-data/conflicting-context",
            owned(&[("/ctx-conflict", &[])]),
        ),
        (
            "hreflang/lang-mismatch",
            owned(&[("/hl-de", &["/hl-en", "/hl-de"])]),
        ),
        (
            "hreflang/to-non-canonical",
            owned(&[("/hl-source", &["/hl-noncanon"])]),
        ),
        (
            "hreflang/to-noindex",
            owned(&[("/hl-source", &["/hl-noindex"])]),
        ),
        ("hreflang/relative", owned(&[("/hl-source", &["/hl-pt"])])),
    ]
}

// The table of planted and found per check is the test's report.
#[allow(clippy::print_stdout)]
#[tokio::test]
async fn new_checks_find_exactly_their_planted_cases() {
    let server = site().await;
    let tmp = TempStore::new("audit-breadth");
    let store = Store::create(&tmp.db()).expect("store");
    let start = Url::parse(&server.url("/")).expect("url");
    let cfg = CrawlConfig {
        sitemaps: ["/sitemap.xml", "/sitemap2.xml"]
            .iter()
            .map(|p| Url::parse(&server.url(p)).expect("url"))
            .collect(),
        ..config()
    };
    let fetcher = Fetcher::builder()
        .allow_private(true)
        .build()
        .expect("fetcher");
    let (store, end) = crawl_all(&start, &cfg, &fetcher, store, false).await;
    assert!(!end.stopped);
    let report = Audit::default().run(&store).expect("audit");
    let mut wrong = Vec::new();
    let all = planted();
    assert_eq!(all.iter().map(|(c, _)| *c).collect::<Vec<_>>(), CODES[1..]);
    for (code, planted) in all {
        let got = found(&report, &server, code);
        let hits = got.iter().filter(|g| planted.contains(g)).count();
        println!(
            "{code:<32} planted {:>2} found {:>2} right {hits:>2}",
            planted.len(),
            got.len()
        );
        if got != planted {
            wrong.push(format!("{code}:\n  planted {planted:?}\n  found   {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let finding = |code: &str, path: &str| {
        report
            .check(code)
            .and_then(|c| c.findings.iter().find(|f| f.url.ends_with(path)))
            .unwrap_or_else(|| panic!("{code}: no finding at {path}"))
            .clone()
    };
    assert_eq!(
        finding("links/dead-end", "/dead").message,
        "no link to another page of the site (2 link(s) in all)"
    );
    assert_eq!(
        finding("links/too-many", "/many").message,
        "1001 links (more than 1000)"
    );
    assert_eq!(
        finding("links/non-descriptive-anchor", "/generic").message,
        "3 link(s) with generic text: \"click here\", \"read more\""
    );
    assert_eq!(
        finding("images/missing-alt", "/img").message,
        "1 of 5 image(s) without an alt attribute"
    );
    assert_eq!(
        finding("images/missing-size", "/img").message,
        "2 of 5 image(s) without both width and height"
    );
    assert_eq!(
        finding("content/lang-invalid", "/bad-lang").message,
        "lang=\"en_US\": an underscore where a hyphen goes"
    );
    assert_eq!(
        finding("content/heading-skip", "/skip").message,
        "a heading skips a level: h2 → h4"
    );
    assert_eq!(
        finding("content/thin", "/thin").message,
        "152 words of text (fewer than 200)", // 150, and "home page"
    );
    assert_eq!(
        finding("content/duplicate-id", "/dup-id").message,
        "2 id(s) given to more than one element"
    );
    let ld = finding("structured-data/invalid-json-ld", "/bad-ld").message;
    assert!(
        ld.starts_with("JSON-LD that does not parse: block 2: "),
        "{ld}"
    );
    let required = "JSON-LD item(s) without the properties their rich result requires; the first:";
    let messages = [
        (
            "links/missing-fragment",
            "/frag",
            format!(
                "links to {}, which has no element with that id or name",
                server.url("/frag-target#missing")
            ),
        ),
        (
            "structured-data/missing-required",
            "/ld-product",
            format!("1 {required} block 1: Product lacks offers, review or aggregateRating"),
        ),
        (
            "structured-data/missing-required",
            "/ld-graph",
            format!("1 {required} block 1: BreadcrumbList lacks position in itemListElement 2"),
        ),
        (
            "structured-data/missing-required",
            "/ld-faq",
            format!("1 {required} block 1: FAQPage lacks acceptedAnswer in mainEntity 2"),
        ),
        (
            "structured-data/conflicting-context",
            "/ctx-conflict",
            "JSON-LD contexts of 2 vocabularies: schema.org, example.org/vocab".to_owned(),
        ),
        (
            "hreflang/lang-mismatch",
            "/hl-de",
            "lang=\"en\", but hreflang names it \"de\"".to_owned(),
        ),
        (
            "hreflang/to-noindex",
            "/hl-source",
            format!(
                "lists {} as its \"it\" version, which says noindex (<meta name=\"robots\">)",
                server.url("/hl-noindex")
            ),
        ),
        (
            "hreflang/to-non-canonical",
            "/hl-source",
            format!(
                "lists {} as its \"es\" version, which names {} as canonical",
                server.url("/hl-noncanon"),
                server.url("/hl-nl")
            ),
        ),
        (
            "hreflang/relative",
            "/hl-source",
            "1 hreflang URL(s) written without a scheme".to_owned(),
        ),
    ];
    for (code, path, message) in messages {
        assert_eq!(finding(code, path).message, message, "{code}");
    }
    let private = finding("links/private-address", "localhost:3000/");
    assert_eq!(private.message, "linked, on localhost");
    assert_eq!(private.link_count, 1);
}
