//! The web checker: server-rendered pages, no JavaScript, no external
//! requests (CSP `default-src 'none'`), every text from a file or a site
//! escaped.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use botwarden_robots::report::{CheckReport, TextView, check_text, escape, fetch_text};
use botwarden_robots::{Profile, RobotsTxt, Severity};
use botwarden_text::HtmlText;

use crate::api::{Input, agent_warnings, test_answers};
use crate::permalink;
use crate::reply::ApiError;
use crate::request::read_body;
use crate::state::{Admission, Inner, Shared};

/// The stylesheet, served from `/style.css` (the CSP allows no inline
/// style).
const STYLE: &str = "\
body{font-family:system-ui,sans-serif;max-width:70rem;margin:1rem auto;padding:0 1rem;color:#111;background:#fff}
pre,textarea,code{font-family:ui-monospace,monospace;font-size:.9rem}
textarea{width:100%}
pre{background:#f4f4f4;padding:.5rem;overflow-x:auto}
table{border-collapse:collapse}td,th{border:1px solid #999;padding:.2rem .4rem;text-align:left}
.error{color:#a00}.warning{color:#850}.info{color:#036}
.allowed{background:#dfd}.disallowed{background:#fdd}
ins{background:#dfd;text-decoration:none}del{background:#fdd;text-decoration:none}
label{display:block;font-weight:bold;margin-top:.5rem}
";

/// HTML-escapes text, after making terminal-active characters visible.
pub(crate) fn h(text: &str) -> String {
    HtmlText(&escape(text)).to_string()
}

/// [`h`] for text of several lines: each line escaped, the line breaks
/// kept.
pub(crate) fn h_lines(text: &str) -> String {
    text.split('\n')
        .map(|line| h(line.strip_suffix('\r').unwrap_or(line)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Percent-encodes a query value.
fn q(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A whole page with its security headers.
pub(crate) fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n<body>\n\
         <main>\n{body}</main>\n</body>\n</html>\n",
        h(title)
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        html,
    )
        .into_response()
}

/// The two forms: paste a file, or give a site.
fn forms(text: &str, url: &str) -> String {
    format!(
        "<section aria-labelledby=\"paste\">\n<h2 id=\"paste\">Check a file</h2>\n\
         <form method=\"post\" action=\"/check\">\n\
         <label for=\"robots_txt\">robots.txt</label>\n\
         <textarea id=\"robots_txt\" name=\"robots_txt\" rows=\"14\" spellcheck=\"false\">{}</textarea>\n\
         <button type=\"submit\">Check</button>\n</form>\n</section>\n\
         <section aria-labelledby=\"site\">\n<h2 id=\"site\">Check a site</h2>\n\
         <form method=\"get\" action=\"/check\">\n\
         <label for=\"url\">Site URL (its /robots.txt is fetched)</label>\n\
         <input id=\"url\" name=\"url\" type=\"url\" size=\"60\" value=\"{}\" placeholder=\"https://example.com/\">\n\
         <button type=\"submit\">Fetch and check</button>\n</form>\n</section>\n",
        h_lines(text),
        h(url)
    )
}

/// `GET /`.
pub(crate) async fn home() -> Response {
    let body = format!(
        "<h1>robots.txt checker</h1>\n<p>How every robot reads a robots.txt: findings, the \
         interpretation matrix, a URL tester, and a corrected file that provably means the \
         same.</p>\n{}",
        forms("User-agent: *\nDisallow:\n", "")
    );
    page(StatusCode::OK, "robots.txt checker", &body)
}

/// `GET /style.css`.
pub(crate) async fn style() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=3600"),
        ],
        STYLE,
    )
        .into_response()
}

/// Any other path.
pub(crate) async fn not_found() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "Not found",
        "<h1>Not found</h1>\n<p><a href=\"/\">The checker</a></p>\n",
    )
}

/// An error page.
pub(crate) fn error_page(e: &ApiError) -> Response {
    let body = format!(
        "<h1>Cannot check</h1>\n<p role=\"alert\">{}</p>\n<p><a href=\"/\">Back</a></p>\n",
        h(&e.message)
    );
    let mut r = page(e.status, "Cannot check", &body);
    if e.status == StatusCode::SERVICE_UNAVAILABLE {
        r.headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    r
}

/// What the result page shows, besides the file.
#[derive(Default)]
struct Ask {
    /// Permalink: the file (`r`) or the site (`url`).
    r: Option<String>,
    url: Option<String>,
    /// The URL tester's robot and URLs.
    agent: Option<String>,
    urls: Option<String>,
    profile: Option<String>,
}

fn parse_query(query: Option<&str>) -> Result<Ask, ApiError> {
    let mut ask = Ask::default();
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        let slot = match &*k {
            "r" => &mut ask.r,
            "url" => &mut ask.url,
            "agent" => &mut ask.agent,
            "urls" => &mut ask.urls,
            "profile" => &mut ask.profile,
            "robots_txt" => {
                // A pasted file sent by GET: make it a link.
                ask.r = permalink::encode(v.as_bytes());
                continue;
            }
            other => {
                return Err(ApiError::bad(format!("unknown query parameter '{other}'")));
            }
        };
        *slot = Some(v.into_owned());
    }
    Ok(ask)
}

/// `GET /check?r=...` (a permalink) or `?url=...` (a site), with the URL
/// tester's `agent`, `urls` and `profile`.
pub(crate) async fn check_get(State(inner): State<Shared>, RawQuery(query): RawQuery) -> Response {
    let ask = match parse_query(query.as_deref()) {
        Ok(ask) => ask,
        Err(e) => return error_page(&e),
    };
    // Admitted as a job before the permalink's file is inflated (up to
    // 10 MiB, on a blocking thread) or the site is asked.
    let admission = match inner.admit() {
        Ok(a) => a,
        Err(e) => return error_page(&e),
    };
    let input = match (&ask.r, &ask.url) {
        (Some(r), None) => {
            let r = r.clone();
            let decoded = tokio::task::spawn_blocking(move || {
                permalink::decode(&r).map(|body| Input::default().with_body(body))
            })
            .await;
            match decoded {
                Ok(Ok(input)) => input,
                Ok(Err(message)) => return error_page(&ApiError::bad(message)),
                Err(_) => return error_page(&ApiError::busy()),
            }
        }
        (None, Some(url)) if !url.trim().is_empty() => Input {
            url: Some(url.trim().to_owned()),
            ..Input::default()
        },
        _ => {
            return error_page(&ApiError::bad(
                "give a file (r) or a site URL (url), not both and not neither",
            ));
        }
    };
    result(&inner, admission, input, ask, false).await
}

impl Input {
    /// An input holding bytes (as base64, the one field for any bytes).
    fn with_body(mut self, body: Vec<u8>) -> Input {
        use base64::Engine as _;
        self.robots_txt_base64 = Some(base64::engine::general_purpose::STANDARD.encode(body));
        self
    }
}

/// `POST /check` with the form's `robots_txt`.
/// A form's body (`application/x-www-form-urlencoded`), read once the
/// request is admitted as a job; the error page otherwise.
pub(crate) async fn form_body(
    inner: &Inner,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Admission, axum::body::Bytes), Response> {
    let kind = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !kind.starts_with("application/x-www-form-urlencoded") {
        return Err(error_page(&ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the form (application/x-www-form-urlencoded)",
        )));
    }
    let mut admission = inner.admit().map_err(|e| error_page(&e))?;
    let bytes = read_body(inner, &mut admission, body)
        .await
        .map_err(|e| error_page(&e))?;
    Ok((admission, bytes))
}

pub(crate) async fn check_post(
    State(inner): State<Shared>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let (admission, bytes) = match form_body(&inner, &headers, body).await {
        Ok(read) => read,
        Err(page) => return page,
    };
    let mut text = None;
    let mut ask = Ask::default();
    for (k, v) in url::form_urlencoded::parse(&bytes) {
        match &*k {
            "robots_txt" => text = Some(v.into_owned()),
            "agent" => ask.agent = Some(v.into_owned()),
            "urls" => ask.urls = Some(v.into_owned()),
            "profile" => ask.profile = Some(v.into_owned()),
            _ => {}
        }
    }
    let Some(text) = text else {
        return error_page(&ApiError::bad("the form has no robots_txt field"));
    };
    let input = Input {
        robots_txt: Some(text),
        ..Input::default()
    };
    result(&inner, admission, input, ask, true).await
}

/// The result page; with `link`, its permalink is made from the file (on
/// the check's thread: compressing a large file takes a while).
async fn result(
    inner: &Shared,
    admission: Admission,
    input: Input,
    mut ask: Ask,
    link: bool,
) -> Response {
    let loaded = match inner.load(input, false).await {
        Ok(l) => l,
        Err(e) => return error_page(&e),
    };
    let profile = match crate::api::profile(ask.profile.as_deref().unwrap_or("rfc9309")) {
        Ok(p) => p,
        Err(e) => return error_page(&e),
    };
    let agent = ask.agent.clone().filter(|a| !a.trim().is_empty());
    let urls: Vec<String> = ask
        .urls
        .as_deref()
        .unwrap_or("")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .take(1000)
        .collect();
    // Set when this request goes away (its client left, or it timed
    // out): the check stops within one of its passes.
    let cancelled = Arc::new(AtomicBool::new(false));
    let _cancel = crate::api::CancelOnDrop(Arc::clone(&cancelled));
    let done = inner
        .run_admitted(admission, move || {
            if link {
                ask.r = permalink::encode(&loaded.body);
            }
            render(&loaded, &ask, profile, agent.as_deref(), &urls, cancelled)
        })
        .await;
    match done {
        Ok(Some(html)) => page(StatusCode::OK, "robots.txt check", &html),
        Ok(None) => error_page(&ApiError::cancelled()),
        Err(e) => error_page(&e),
    }
}

/// The most matrix rows, changes and finding groups shown.
const ROWS_SHOWN: usize = 200;

/// The most lines shown of one finding group, and of the diff.
const LINES_SHOWN: usize = 20;
const DIFF_LINES_SHOWN: usize = 2000;

/// The text report is shown for files with at most this many findings (it
/// repeats them, and costs as much as the rest of the page on large files).
const TEXT_REPORT_UP_TO: usize = 200;

/// The body of the result page; `None` once `cancelled` is raised.
fn render(
    loaded: &crate::api::Loaded,
    ask: &Ask,
    profile: &'static Profile,
    agent: Option<&str>,
    urls: &[String],
    cancelled: Arc<AtomicBool>,
) -> Option<String> {
    let txt = RobotsTxt::parse(loaded.body.clone());
    let report = CheckReport::new_cancellable(
        loaded.name.clone(),
        &txt,
        &[],
        &[],
        loaded.fetched.clone(),
        cancelled,
    )?;
    let mut out = String::with_capacity(64 * 1024);
    let _ = writeln!(out, "<h1>robots.txt check: {}</h1>", h(&report.name));
    let link = match (&ask.url, &ask.r) {
        (Some(url), _) => Some(format!("/check?url={}", q(url))),
        (None, Some(r)) => Some(format!("/check?r={r}")),
        (None, None) => None,
    };
    match &link {
        Some(link) => {
            let held = if ask.url.is_some() {
                "the site's robots.txt is fetched again once the service's copy is stale"
            } else {
                "the file is in the link; nothing is stored"
            };
            let _ = writeln!(
                out,
                "<p><a id=\"permalink\" href=\"{}\">Permalink to this result</a> \
                 ({held}). <a href=\"/\">Check another</a></p>",
                h(link)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "<p>The file is too large for a permalink. <a href=\"/\">Check another</a></p>"
            );
        }
    }
    if let Some(fetched) = &report.fetched {
        let _ = writeln!(
            out,
            "<section aria-labelledby=\"fetch\">\n<h2 id=\"fetch\">The fetch</h2>\n<pre>{}</pre>\n</section>",
            h_lines(&fetch_text(fetched))
        );
        if let Some(c) = loaded.cached {
            let _ = writeln!(
                out,
                "<p id=\"cached\">Fetched {} s ago; the service keeps a site's robots.txt \
                 for {} s (its caching headers, held between the configured floor and \
                 ceiling).</p>",
                c.age.as_secs(),
                c.kept.as_secs()
            );
        }
    }
    diagnostics(&mut out, &report, &txt);
    matrix(&mut out, &report);
    usage(&mut out, &report);
    tester(&mut out, ask, &txt, profile, agent, urls);
    fixed(&mut out, &report, &txt);
    if report.diagnostics.len() <= TEXT_REPORT_UP_TO {
        let _ = writeln!(
            out,
            "<details>\n<summary>The command's text report</summary>\n<pre>{}</pre>\n</details>",
            h_lines(&check_text(&report, TextView::default()))
        );
    }
    Some(out)
}

/// The findings, folded by root cause, errors first, each with its lines.
fn diagnostics(out: &mut String, report: &CheckReport<'_>, txt: &RobotsTxt) {
    let count = |s| report.count(s);
    let _ = writeln!(
        out,
        "<section aria-labelledby=\"findings\">\n<h2 id=\"findings\">Findings</h2>\n\
         <p>{} error(s), {} warning(s), {} note(s), in {} group(s) of one root cause.</p>",
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
        report.folded.len()
    );
    if report.folded.len() > ROWS_SHOWN {
        let _ = writeln!(
            out,
            "<p>The first {ROWS_SHOWN} groups are shown; the API's <code>check</code> lists the first 1,000 findings and counts the rest.</p>"
        );
    }
    for entry in report.folded.iter().take(ROWS_SHOWN) {
        let head = &report.diagnostics[entry.head];
        let severity = head.severity().as_str();
        let (line, column) = txt.position(head.span.start);
        let more = entry.folded();
        let open = if entry.severity == Severity::Error {
            " open"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<details class=\"finding\"{open}>\n<summary><span class=\"{severity}\">{severity}[{}]</span> line {line}: {}{}</summary>\n",
            h(head.code()),
            h(&head.message),
            if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            }
        );
        out.push_str("<pre>");
        let members = entry.members().count();
        if members > LINES_SHOWN {
            let _ = writeln!(
                out,
                "      ({members} findings; the first {LINES_SHOWN} are shown)"
            );
        }
        for i in entry.members().take(LINES_SHOWN) {
            let d = &report.diagnostics[i];
            let (n, c) = txt.position(d.span.start);
            let text = txt
                .line(n)
                .map(|l| txt.text(l.span).into_owned())
                .unwrap_or_default();
            let _ = writeln!(out, "{n:>5} | {}", h(&text));
            if i != entry.head {
                let _ = writeln!(
                    out,
                    "      = {}[{}] column {c}: {}",
                    d.severity().as_str(),
                    h(d.code()),
                    h(&d.message)
                );
            } else if column > 0 {
                let _ = writeln!(
                    out,
                    "        {}^",
                    " ".repeat(column.saturating_sub(1) as usize)
                );
            }
        }
        out.push_str("</pre>\n");
        if let Some(help) = &head.help {
            let _ = writeln!(out, "<p>help: {}</p>", h(help));
        }
        out.push_str("</details>\n");
    }
    out.push_str("</section>\n");
}

/// The interpretation matrix: rows where profiles disagree first, at most
/// [`ROWS_SHOWN`].
fn matrix(out: &mut String, report: &CheckReport<'_>) {
    let m = &report.matrix;
    let _ = writeln!(
        out,
        "<section aria-labelledby=\"matrix\">\n<h2 id=\"matrix\">Interpretation matrix</h2>\n\
         <p>{} robots × {} paths{}; rows where profiles disagree come first.</p>",
        m.agents().len(),
        m.paths().len(),
        if m.is_sampled() {
            format!(
                " (an even sample of {} robots and {} paths)",
                m.total_agents(),
                m.total_paths()
            )
        } else {
            String::new()
        }
    );
    out.push_str("<table>\n<caption>Decision of each robot for each path, by profile</caption>\n<thead><tr><th scope=\"col\">Robot</th><th scope=\"col\">Path</th>");
    for p in &m.profiles {
        let _ = write!(out, "<th scope=\"col\">{}</th>", h(p.name));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let rows = m
        .rows()
        .filter(|r| r.disagree())
        .chain(m.rows().filter(|r| !r.disagree()));
    let mut shown = 0;
    for row in rows.take(ROWS_SHOWN) {
        shown += 1;
        let _ = write!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td>",
            h(row.agent),
            h(row.path)
        );
        for cell in row.cells {
            let word = if cell.allowed {
                "allowed"
            } else {
                "disallowed"
            };
            let _ = write!(out, "<td class=\"{word}\">{word}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    let total = m.rows().len();
    if total > shown {
        let _ = writeln!(out, "<p>{shown} of {total} rows shown.</p>");
    }
    out.push_str("</section>\n");
}

/// The usage preferences beside the matrix: for each robot and path, what
/// `Content-Usage` and `Content-Signal` let it use the content for, under
/// the group reading and, where it differs, the file-wide one.
fn usage(out: &mut String, report: &CheckReport<'_>) {
    use botwarden_robots::prefs::Reading;
    use botwarden_robots::usage_cell as cell;
    let table = &report.usage;
    if table.is_empty() {
        return;
    }
    out.push_str(
        "<section aria-labelledby=\"usage\">\n<h2 id=\"usage\">Usage preferences</h2>\n\
         <p>What each robot may use a page for, from <code>Content-Usage</code> (IETF aipref) and \
         <code>Content-Signal</code> (Cloudflare), under RFC 9309's groups: <code>y</code> allowed, \
         <code>n</code> refused, <code>-</code> not stated, with the deciding line; \
         <code>n/a</code> where the robot may not fetch the path. Where crawler-commons' file-wide \
         reading of <code>Content-Signal</code> differs, it follows the <code>|</code>.</p>\n\
         <table>\n<caption>Usage preferences of each robot for each path</caption>\n<thead><tr>\
         <th scope=\"col\">Robot</th><th scope=\"col\">Path</th><th scope=\"col\">search</th>\
         <th scope=\"col\">train-ai</th><th scope=\"col\">ai-input</th></tr></thead>\n<tbody>\n",
    );
    let rows = table
        .rows
        .iter()
        .filter(|r| r.answer.disagree())
        .chain(table.rows.iter().filter(|r| !r.answer.disagree()));
    let mut shown = 0;
    for row in rows.take(ROWS_SHOWN) {
        shown += 1;
        let a = &row.answer;
        let _ = write!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td>",
            h(&row.agent),
            h(&row.path)
        );
        for (g, f) in a
            .reading(Reading::Group)
            .iter()
            .zip(a.reading(Reading::FileWide))
        {
            let group = cell(a, g.preference, &g.lines);
            let text = if g.preference == f.preference {
                group
            } else {
                format!("{group} | {}", cell(a, f.preference, &f.lines))
            };
            let _ = write!(out, "<td>{}</td>", h(&text));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    if table.rows.len() > shown {
        let _ = writeln!(out, "<p>{shown} of {} rows shown.</p>", table.rows.len());
    }
    out.push_str("</section>\n");
}

/// The URL tester: a form, and its answers when asked.
fn tester(
    out: &mut String,
    ask: &Ask,
    txt: &RobotsTxt,
    profile: &'static Profile,
    agent: Option<&str>,
    urls: &[String],
) {
    let _ = writeln!(
        out,
        "<section aria-labelledby=\"tester\">\n<h2 id=\"tester\">URL tester</h2>\n\
         <form method=\"get\" action=\"/check#tester\">"
    );
    if let Some(url) = &ask.url {
        let _ = writeln!(
            out,
            "<input type=\"hidden\" name=\"url\" value=\"{}\">",
            h(url)
        );
    } else if let Some(r) = &ask.r {
        let _ = writeln!(out, "<input type=\"hidden\" name=\"r\" value=\"{}\">", h(r));
    }
    let _ = writeln!(
        out,
        "<label for=\"agent\">Robot's product tokens, most specific first</label>\n\
         <input id=\"agent\" name=\"agent\" value=\"{}\" placeholder=\"Googlebot-Image,Googlebot\">\n\
         <label for=\"profile\">Profile</label>\n<select id=\"profile\" name=\"profile\">",
        h(agent.unwrap_or(""))
    );
    for p in Profile::ALL {
        let selected = if p.name == profile.name {
            " selected"
        } else {
            ""
        };
        let _ = writeln!(out, "<option{selected}>{}</option>", h(p.name));
    }
    let _ = writeln!(
        out,
        "</select>\n<label for=\"urls\">URLs or paths, one per line</label>\n\
         <textarea id=\"urls\" name=\"urls\" rows=\"4\">{}</textarea>\n\
         <button type=\"submit\">Test</button>\n</form>",
        h_lines(&urls.join("\n"))
    );
    if (ask.url.is_none() && ask.r.is_none()) && (agent.is_some() || !urls.is_empty()) {
        out.push_str("<p>The file is too large for a link, so the tester cannot run on it.</p>\n");
    }
    if let Some(agent) = agent
        && !urls.is_empty()
    {
        match agent_warnings(agent) {
            Err(e) => {
                let _ = writeln!(out, "<p role=\"alert\">{}</p>", h(&e));
            }
            Ok(warnings) => {
                for w in warnings {
                    let _ = writeln!(out, "<p class=\"warning\">warning: {}</p>", h(&w));
                }
                out.push_str("<table id=\"answers\">\n<caption>Answers</caption>\n<thead><tr><th scope=\"col\">URL</th><th scope=\"col\">Decision</th><th scope=\"col\">Why</th></tr></thead>\n<tbody>\n");
                for a in test_answers(txt, profile, agent, urls) {
                    let allowed = a["allowed"].as_bool().unwrap_or(false);
                    let word = if allowed { "allowed" } else { "disallowed" };
                    let _ = writeln!(
                        out,
                        "<tr><td><code>{}</code></td><td class=\"{word}\">{word}</td><td>{}</td></tr>",
                        h(a["url"].as_str().unwrap_or("")),
                        h(a["reason"].as_str().unwrap_or(""))
                    );
                }
                out.push_str("</tbody>\n</table>\n");
            }
        }
    }
    out.push_str("</section>\n");
}

/// The corrected file and its diff against the original.
fn fixed(out: &mut String, report: &CheckReport<'_>, txt: &RobotsTxt) {
    let eq = &report.equivalence;
    let _ = writeln!(
        out,
        "<section aria-labelledby=\"fixed\">\n<h2 id=\"fixed\">Corrected file</h2>\n<p>{} changes; {}</p>",
        report.fixed.changes.len(),
        if eq.holds() {
            "every robot reads it as the original, except where a change says it does not"
                .to_owned()
        } else {
            format!(
                "{} differences no change accounts for: check before using it",
                eq.unintended_found
            )
        }
    );
    if !report.fixed.changes.is_empty() {
        out.push_str("<ul>\n");
        for c in report.fixed.changes.iter().take(ROWS_SHOWN) {
            let _ = writeln!(out, "<li>line {}: {}</li>", c.line, h(&c.description));
        }
        out.push_str("</ul>\n");
    }
    let original = String::from_utf8_lossy(txt.bytes());
    let diff = similar::TextDiff::configure()
        .timeout(std::time::Duration::from_millis(200))
        .diff_lines(original.as_ref(), report.fixed.text.as_str());
    out.push_str("<h3>Diff</h3>\n<pre id=\"diff\">");
    let total = diff.iter_all_changes().count();
    for change in diff.iter_all_changes().take(DIFF_LINES_SHOWN) {
        let line = change.value().trim_end_matches(['\n', '\r']);
        let _ = match change.tag() {
            similar::ChangeTag::Delete => writeln!(out, "<del>- {}</del>", h(line)),
            similar::ChangeTag::Insert => writeln!(out, "<ins>+ {}</ins>", h(line)),
            similar::ChangeTag::Equal => writeln!(out, "  {}", h(line)),
        };
    }
    out.push_str("</pre>\n");
    if total > DIFF_LINES_SHOWN {
        let _ = writeln!(
            out,
            "<p>The first {DIFF_LINES_SHOWN} of {total} lines of the diff are shown.</p>"
        );
    }
    let _ = writeln!(
        out,
        "<h3>The corrected file</h3>\n<pre id=\"corrected\">{}</pre>\n</section>",
        h_lines(&report.fixed.text)
    );
}
