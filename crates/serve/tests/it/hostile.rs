//! A hostile client on loopback: made-up signature fields, an unreadable
//! `X-Forwarded-For`, URLs of other schemes, floods of the public verify
//! route, and more. Each test stands for a way the service was once
//! made to answer wrongly.

use std::fs;
use std::net::Ipv4Addr;
use std::time::{SystemTime, UNIX_EPOCH};

use botwarden_testdata::dns::TestDns;

use crate::gate::{SEARCHBOT, SPOOFED, client_from, serve, start_nginx, zone};
use crate::{TempDir, client};

/// `Signature-Input` and `Signature` of a signature nobody made: tag
/// `web-bot-auth`, an invented key id, no agent, junk bytes.
fn made_up_signature() -> [(&'static str, String); 2] {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    [
        (
            "signature-input",
            format!(
                "sig1=(\"@authority\");created={now};expires={};keyid=\"invented-key-id\";tag=\"web-bot-auth\"",
                now + 60
            ),
        ),
        (
            "signature",
            "sig1=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:".to_owned(),
        ),
    ]
}

/// Status, verdict and `X-Bot-Signature` of an answer.
fn verdict_of(r: &reqwest::Response) -> (u16, String, String) {
    let h = |name: &str| {
        r.headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII").to_owned())
            .unwrap_or_default()
    };
    (
        r.status().as_u16(),
        h("x-bot-verdict"),
        h("x-bot-signature"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn made_up_signature_fields_do_not_let_a_spoofed_crawler_through() {
    let dns = TestDns::start(zone()).await;
    let running = serve(dns.addr(), true, &["127.0.0.1"]).await;
    // Twice: the second time its address's verdict is cached.
    for _ in 0..2 {
        let mut ask = client()
            .get(running.url("/verify"))
            .header("user-agent", SEARCHBOT)
            .header("x-forwarded-for", "192.0.2.3");
        for (name, value) in made_up_signature() {
            ask = ask.header(name, value);
        }
        let r = ask.send().await.expect("answer");
        let got = verdict_of(&r);
        assert_eq!(
            got,
            (403, "spoofed".to_owned(), "undecided".to_owned()),
            "{:?}",
            r.headers()
        );
        let reason = r
            .headers()
            .get("x-bot-signature-reason")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(reason.contains("invented-key-id"), "{reason}");
    }

    // The same through nginx's auth_request, which passes the client's
    // fields to the sub-request.
    let site = TempDir::new("hostile-nginx");
    let htdocs = site.0.join("htdocs");
    fs::create_dir_all(&htdocs).expect("htdocs");
    fs::write(htdocs.join("index.html"), "<p>home</p>\n").expect("index");
    let (_nginx, port) = start_nginx(&site.0, running.addr);
    let mut ask = client_from(SPOOFED)
        .get(format!("http://127.0.0.1:{port}/index.html"))
        .header("user-agent", SEARCHBOT);
    for (name, value) in made_up_signature() {
        ask = ask.header(name, value);
    }
    let r = ask.send().await.expect("answer");
    assert_eq!(
        r.status().as_u16(),
        403,
        "{}",
        fs::read_to_string(site.0.join("error.log")).unwrap_or_default()
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_before_the_client_in_x_forwarded_for_is_passed_over() {
    let dns = TestDns::start(zone()).await;
    let running = serve(dns.addr(), true, &["127.0.0.1", "10.0.0.0/8"]).await;
    let ask = |forwarded: &'static [u8]| {
        let url = running.url("/verify");
        async move {
            let r = client_from(Ipv4Addr::LOCALHOST)
                .get(url)
                .header("user-agent", SEARCHBOT)
                .header(
                    "x-forwarded-for",
                    reqwest::header::HeaderValue::from_bytes(forwarded).expect("value"),
                )
                .send()
                .await
                .expect("answer");
            verdict_of(&r)
        }
    };
    for forwarded in [
        &b"garbage, 192.0.2.3"[..],
        b"garbage,192.0.2.3, 10.1.2.3",
        b"\xffx y, 192.0.2.3",
    ] {
        let (status, verdict, _) = ask(forwarded).await;
        assert_eq!(
            (status, verdict.as_str()),
            (403, "spoofed"),
            "{}",
            String::from_utf8_lossy(forwarded)
        );
    }
    // Garbage where the client should be: unknown, never blocked.
    let (status, verdict, _) = ask(b"192.0.2.3, garbage").await;
    assert_eq!((status, verdict.as_str()), (200, "unknown"));
    running.stop().await;
}
