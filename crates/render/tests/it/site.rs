//! A loopback site built to need rendering: links, a canonical, a title
//! and a noindex written by script, a script's redirect, a page made by
//! client-side routing from data it fetches, and a script that
//! robots.txt disallows. Every request is logged with its User-Agent.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The site's HTML pages, in the order of their URLs.
pub(crate) const HTML_PAGES: [&str; 16] = [
    "/",
    "/blocked-image",
    "/blocked-script",
    "/canonical-by-js",
    "/canonical-target",
    "/dup-link",
    "/few-words",
    "/hash-change",
    "/noindex-by-js",
    "/noindex-removed",
    "/only-rendered",
    "/plain",
    "/redirect-by-js",
    "/slow",
    "/spa",
    "/spa/about",
];

/// How long `/api/slow` takes to answer: longer than a page's budget in
/// the tests.
pub(crate) const SLOW: std::time::Duration = std::time::Duration::from_secs(8);

const ROBOTS: &str = "User-agent: *\nDisallow: /private/\n";

/// What `app.js` does, as each page's `<body data-…>` asks.
const APP: &str = r"
document.addEventListener('DOMContentLoaded', function () {
  var b = document.body.dataset;
  if (b.addLink) {
    var a = document.createElement('a');
    a.href = b.addLink;
    a.textContent = 'a page only scripts link';
    document.body.appendChild(a);
  }
  if (b.canonical) { document.querySelector('link[rel=canonical]').href = b.canonical; }
  if (b.title) { document.title = b.title; }
  if (b.noindex) {
    var m = document.createElement('meta');
    m.name = 'robots';
    m.content = 'noindex';
    document.head.appendChild(m);
  }
  if (b.dropNoindex) { document.querySelector('meta[name=robots]').remove(); }
  if (b.addWords) {
    var p = document.createElement('p');
    var words = [];
    for (var i = 0; i < Number(b.addWords); i++) { words.push('added' + i); }
    p.textContent = words.join(' ');
    document.body.appendChild(p);
  }
  if (b.hash) {
    location.hash = 'part';
    history.pushState({}, '', location.pathname + '?view=2');
  }
  if (b.go) { location.replace(b.go); }
});
";

/// What the disallowed script would do: add a link nobody may see.
const PRIVATE: &str = r"
var a = document.createElement('a');
a.href = '/never-rendered';
a.textContent = 'hidden';
document.body.appendChild(a);
";

/// The client-side router of `/spa/…`: the page's content, from data it
/// fetches.
const ROUTER: &str = r"
fetch('/api/data.json').then(function (r) { return r.json(); }).then(function (data) {
  var about = location.pathname === '/spa/about';
  var app = document.getElementById('app');
  var h = document.createElement('h1');
  h.textContent = about ? 'About the application' : 'The application';
  app.appendChild(h);
  var p = document.createElement('p');
  p.textContent = data.words.join(' ');
  app.appendChild(p);
  var a = document.createElement('a');
  a.href = about ? '/spa' : '/spa/about';
  a.textContent = about ? 'back to the application' : 'about the application';
  app.appendChild(a);
});
";

/// A page: `head` in its head, `body_attrs` on its body, `body` in it,
/// and a link home.
fn page(title: &str, head: &str, body_attrs: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>{head}</head>\
         <body{body_attrs}><a href=\"/\">home</a>{body}</body></html>"
    )
}

fn html(path: &str) -> Option<String> {
    let app = r#"<script src="/app.js"></script>"#;
    Some(match path {
        "/" => page(
            "Home",
            app,
            r#" data-add-link="/only-rendered""#,
            r#"<a href="/plain">plain</a><a href="/spa">app</a><a href="/noindex-by-js">n</a>
               <a href="/canonical-by-js">c</a><a href="/redirect-by-js">r</a><a href="/blocked-script">b</a>
               <a href="/noindex-removed">n</a><a href="/few-words">w</a><a href="/dup-link">d</a>
               <a href="/hash-change">h</a><a href="/blocked-image">i</a><a href="/slow">s</a>"#,
        ),
        "/canonical-by-js" => page(
            "Raw title",
            &format!(r#"<link rel="canonical" href="/canonical-by-js">{app}"#),
            r#" data-canonical="/canonical-target" data-title="Title by script""#,
            "<p>A page whose canonical and title a script rewrites.</p>",
        ),
        "/noindex-by-js" => page(
            "Noindex by script",
            app,
            r#" data-noindex="1""#,
            "<p>A page a script makes noindex.</p>",
        ),
        "/redirect-by-js" => page(
            "Moved by script",
            app,
            r#" data-go="/plain""#,
            "<p>A page a script sends elsewhere.</p>",
        ),
        "/noindex-removed" => page(
            "Noindex removed by script",
            &format!(r#"<meta name="robots" content="noindex">{app}"#),
            r#" data-drop-noindex="1""#,
            "<p>A page whose script removes its noindex.</p>",
        ),
        "/few-words" => page(
            "A few words more",
            app,
            r#" data-add-words="40""#,
            "<p>A page a script adds a few words to.</p>",
        ),
        "/dup-link" => page(
            "A link written twice",
            app,
            r#" data-add-link="/plain""#,
            r#"<p>A page whose script adds a link it already has.</p><a href="/plain">plain</a>"#,
        ),
        "/hash-change" => page(
            "Address changed in place",
            app,
            r#" data-hash="1""#,
            "<p>A page whose script changes its fragment and its address in place.</p>",
        ),
        "/blocked-image" => page(
            "Blocked image",
            "",
            "",
            r#"<p>A page whose image robots.txt disallows.</p><img src="/private/pixel.png" alt="">"#,
        ),
        "/slow" => page(
            "Slow",
            r#"<script>fetch('/api/slow');</script>"#,
            "",
            "<p>A page whose data comes too late.</p>",
        ),
        "/blocked-script" => page(
            "Blocked script",
            r#"<script src="/private/app.js" defer></script>"#,
            "",
            "<p>A page whose script robots.txt disallows.</p>",
        ),
        "/spa" | "/spa/about" => page(
            "Application",
            r#"<script src="/router.js" defer></script>"#,
            "",
            r#"<div id="app"></div>"#,
        ),
        "/plain" | "/only-rendered" | "/canonical-target" => page(
            "Plain",
            &format!(r#"<link rel="canonical" href="{path}">"#),
            "",
            "<p>A page without scripts: raw and rendered are one.</p>",
        ),
        _ => return None,
    })
}

/// The words the application's data holds.
fn data() -> String {
    let words: Vec<String> = (0..150).map(|i| format!("\"word{i}\"")).collect();
    format!("{{\"words\":[{}]}}", words.join(","))
}

/// Every request: its path and User-Agent.
type Log = Arc<Mutex<Vec<(String, String)>>>;

/// The running site.
pub(crate) struct Site {
    pub(crate) url: url::Url,
    log: Log,
}

impl Site {
    /// Every request so far: its path and User-Agent.
    pub(crate) fn log(&self) -> Vec<(String, String)> {
        self.log.lock().expect("log").clone()
    }
}

async fn answer(State(log): State<Log>, req: Request) -> Response {
    let path = req.uri().path().to_owned();
    let ua = req
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    log.lock().expect("log").push((path.clone(), ua));
    let typed = |kind: &'static str, body: String| {
        let mut r = body.into_response();
        r.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
        r
    };
    match path.as_str() {
        "/robots.txt" => typed("text/plain", ROBOTS.to_owned()),
        "/app.js" => typed("text/javascript", APP.to_owned()),
        "/private/app.js" => typed("text/javascript", PRIVATE.to_owned()),
        "/router.js" => typed("text/javascript", ROUTER.to_owned()),
        "/api/data.json" => typed("application/json", data()),
        "/api/slow" => {
            tokio::time::sleep(SLOW).await;
            typed("application/json", "{}".to_owned())
        }
        p => match html(p) {
            Some(body) => typed("text/html; charset=utf-8", body),
            None => (StatusCode::NOT_FOUND, "not here").into_response(),
        },
    }
}

/// Serves the site on a free loopback port.
pub(crate) async fn serve() -> Site {
    let log = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new().fallback(answer).with_state(log.clone());
    let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Site {
        url: url::Url::parse(&format!("http://{addr}/")).expect("url"),
        log,
    }
}
