//! The web checker: the form, the permalink, escaping, and the page in
//! headless Chromium.

use std::path::Path;

use crate::{TempDir, client, config, start};

/// A file whose lines try to break out of the page.
const HOSTILE: &str = "User-agent: *\n\
Disallow: /</pre></textarea><script>alert(1)</script>\n\
Disalow: /\"><img src=x onerror=alert(2)>\n\
# \u{202e}gnp.exe & <b>bold</b>\n\
User-agent: Googlebot\nAllow: /\n\
Sitemap: /<i>sitemap</i>.xml\n";

/// [`HOSTILE`] with usage preferences in the last group, a path with
/// markup among them.
const HOSTILE_USAGE: &str = "Content-Usage: /<b>x</b> train-ai=n\nContent-Signal: ai-train=no\n";

fn form(text: &str) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .append_pair("robots_txt", text)
        .finish()
}

/// The permalink in a page.
fn permalink(html: &str) -> String {
    let start = html.find("id=\"permalink\" href=\"").expect("a permalink") + 21;
    let end = start + html[start..].find('"').expect("end");
    html[start..end].replace("&amp;", "&")
}

#[tokio::test]
async fn the_form_the_permalink_and_escaping() {
    let dir = TempDir::new("page");
    let running = start(config(&dir), Some(dir)).await;
    let home = client().get(running.url("/")).send().await.expect("home");
    assert_eq!(home.status().as_u16(), 200);
    let csp = home.headers()["content-security-policy"]
        .to_str()
        .expect("csp")
        .to_owned();
    assert!(csp.starts_with("default-src 'none'"), "{csp}");
    let html = home.text().await.expect("html");
    assert!(html.contains("<label for=\"robots_txt\">") && html.contains("<label for=\"url\">"));

    let r = client()
        .post(running.url("/check"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(HOSTILE))
        .send()
        .await
        .expect("check");
    assert_eq!(r.status().as_u16(), 200);
    let posted = r.text().await.expect("html");
    // Nothing from the file became markup.
    assert!(!posted.contains("<script"), "a script element");
    assert!(!posted.contains("<img"), "an img element");
    assert!(
        !posted.contains("<b>") && !posted.contains("<i>"),
        "a b or i element"
    );
    assert!(posted.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!posted.contains('\u{202e}'), "a bidirectional override");
    assert!(
        posted.contains("# \\u{202e}gnp.exe &amp; &lt;b&gt;bold&lt;/b&gt;\n"),
        "shown escaped"
    );
    // Multi-line texts keep their line breaks (not written as escapes).
    assert!(
        !posted.contains("\\x0a") && !html.contains("\\x0a"),
        "an escaped line break"
    );
    assert!(
        posted.contains("<pre id=\"corrected\"># \\u{202e}gnp.exe"),
        "the corrected file"
    );
    // Findings, errors first; the matrix; the diff; the corrected file.
    assert!(posted.contains("<h2 id=\"findings\">"));
    let first = posted
        .find("<details class=\"finding\"")
        .expect("a finding");
    assert!(
        posted[first..].starts_with("<details class=\"finding\" open>"),
        "errors first"
    );
    assert!(posted.contains("<h2 id=\"matrix\">") && posted.contains("<td class=\"disallowed\">"));
    assert!(
        posted.contains("<ins>+ Disallow: /&quot;&gt;&lt;img"),
        "the misspelt rule fixed"
    );

    // The permalink gives the same page.
    let link = permalink(&posted);
    let again = client()
        .get(running.url(&link))
        .send()
        .await
        .expect("permalink");
    assert_eq!(again.status().as_u16(), 200);
    assert_eq!(again.text().await.expect("html"), posted);

    // The URL tester on the permalink.
    let tested = client()
        .get(running.url(&format!(
            "{link}&agent=Googlebot&urls=%2Fprivate%0A%2F&profile=google"
        )))
        .send()
        .await
        .expect("tester")
        .text()
        .await
        .expect("html");
    assert!(tested.contains("<table id=\"answers\">"), "answers");
    assert_eq!(
        tested
            .matches("<td class=\"allowed\">allowed</td><td>")
            .count(),
        2,
        "Googlebot's group allows all"
    );

    // Bad links are said so, as pages.
    let bad = client()
        .get(running.url("/check?r=%21%21"))
        .send()
        .await
        .expect("bad");
    assert_eq!(bad.status().as_u16(), 400);
    assert!(bad.text().await.expect("html").contains("not base64url"));
    running.stop().await;
}

/// `n` bytes of rules that deflate badly (a pseudo-random path per line).
fn incompressible(n: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut text = String::from("User-agent: *\n");
    while text.len() < n {
        text.push_str("Disallow: /");
        for _ in 0..60 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            text.push(char::from(ALPHABET[(state >> 58) as usize]));
        }
        text.push('\n');
    }
    text
}

#[tokio::test]
async fn permalinks_are_made_only_when_the_server_takes_them() {
    let dir = TempDir::new("page-links");
    let running = start(config(&dir), Some(dir)).await;
    // About 50 KiB of link: made, and it opens.
    let posted = client()
        .post(running.url("/check"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&incompressible(60_000)))
        .send()
        .await
        .expect("check")
        .text()
        .await
        .expect("html");
    let link = permalink(&posted);
    assert!(link.len() > 40_000, "{}", link.len());
    let opened = client()
        .get(running.url(&link))
        .send()
        .await
        .expect("permalink");
    assert_eq!(opened.status().as_u16(), 200);
    // Past what the server takes: no link, said so.
    let posted = client()
        .post(running.url("/check"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&incompressible(100_000)))
        .send()
        .await
        .expect("check")
        .text()
        .await
        .expect("html");
    assert!(!posted.contains("id=\"permalink\""));
    assert!(posted.contains("too large for a permalink"));
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_permalink_in_headless_chromium() {
    let dir = TempDir::new("chromium");
    let running = start(config(&dir), Some(dir)).await;
    let posted = client()
        .post(running.url("/check"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&format!("{HOSTILE}{HOSTILE_USAGE}")))
        .send()
        .await
        .expect("check")
        .text()
        .await
        .expect("html");
    let link = running.url(&permalink(&posted));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-page");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("dir");
    let png = out.join("check.png");
    let url = format!("{link}&agent=Googlebot&urls=%2Fprivate");
    let dom = tokio::task::spawn_blocking({
        let png = png.clone();
        move || botwarden_testdata::chromium::render(&url, &png, 1200, 2400)
    })
    .await
    .expect("chromium");
    std::fs::write(out.join("check.html"), &dom).expect("keep the DOM");
    assert!(
        dom.contains("<h1>robots.txt check: robots.txt</h1>"),
        "{dom}"
    );
    assert!(dom.contains("<h2 id=\"matrix\">Interpretation matrix</h2>"));
    assert!(
        dom.contains("<h2 id=\"usage\">Usage preferences</h2>"),
        "{dom}"
    );
    assert!(dom.contains("<code>/&lt;b&gt;x&lt;/b&gt;</code>"), "{dom}");
    assert!(dom.contains("<table id=\"answers\">"));
    assert!(dom.contains("<pre id=\"diff\">"));
    // The browser made no element of the file's text.
    assert!(!dom.contains("<script") && !dom.contains("<img"), "{dom}");
    let image = std::fs::read(&png).expect("screenshot");
    assert!(image.starts_with(b"\x89PNG"), "not a PNG");
    assert!(
        image.len() > 20_000,
        "screenshot looks blank ({} bytes)",
        image.len()
    );
    running.stop().await;
}
