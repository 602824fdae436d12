//! Loopback and private addresses are refused unless allowed, before any
//! connection is made.

use botwarden_fetch::{AddressKind, Error, Fetcher, FetcherBuilder, fetch_robots_txt};
use std::io::ErrorKind;
use std::net::{Ipv4Addr, TcpListener};

/// A listener that accepts nothing by itself, so that a connection attempt
/// would wait in its queue.
fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let port = listener.local_addr().expect("address").port();
    (listener, port)
}

fn assert_no_connection(listener: &TcpListener) {
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("a connection was made: {other:?}"),
    }
}

#[tokio::test]
async fn loopback_is_refused_by_default() {
    let (listener, port) = listener();
    let fetcher = Fetcher::builder().build().expect("fetcher");
    for (url, host) in [
        (format!("http://127.0.0.1:{port}/robots.txt"), "127.0.0.1"),
        (format!("http://localhost:{port}/robots.txt"), "localhost"),
        (format!("http://[::1]:{port}/robots.txt"), "[::1]"),
        (
            format!("http://[::ffff:127.0.0.1]:{port}/robots.txt"),
            "[::ffff:7f00:1]",
        ),
    ] {
        let error = fetcher.fetch(&url).await.expect_err(&url);
        match &error {
            Error::Refused {
                url: refused,
                host: h,
                kind,
                ..
            } => {
                assert_eq!(
                    refused,
                    &url.replace("[::ffff:127.0.0.1]", "[::ffff:7f00:1]")
                );
                assert_eq!(h, host);
                assert_eq!(*kind, AddressKind::Loopback);
            }
            other => panic!("{url}: {other:?}"),
        }
        let message = error.to_string();
        assert!(message.contains("refusing to fetch"), "{message}");
        assert!(message.contains("loopback"), "{message}");
    }
    let robots = fetcher
        .fetch_robots(&format!("http://127.0.0.1:{port}/some/page"))
        .await
        .expect_err("refused");
    assert!(matches!(robots, Error::Refused { .. }));
    assert_no_connection(&listener);
}

#[test]
fn the_blocking_helper_refuses_too() {
    let (listener, port) = listener();
    let error = fetch_robots_txt(&format!("http://localhost:{port}/"), &FetcherBuilder::new())
        .expect_err("refused");
    assert!(matches!(error, Error::Refused { .. }), "{error:?}");
    assert_no_connection(&listener);
}

#[tokio::test]
async fn only_http_urls() {
    let fetcher = Fetcher::builder().build().expect("fetcher");
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/robots.txt",
        "gopher://x/",
    ] {
        let error = fetcher.fetch(url).await.expect_err(url);
        assert!(
            matches!(error, Error::UnsupportedScheme { .. }),
            "{url}: {error:?}"
        );
    }
    let error = fetcher.fetch("not a url").await.expect_err("invalid");
    assert!(
        matches!(&error, Error::InvalidUrl { url, .. } if url == "not a url"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_refusal_takes_the_article_its_kind_needs() {
    let (listener, port) = listener();
    let fetcher = Fetcher::builder().build().expect("fetcher");
    let url = format!("http://0.0.0.0:{port}/robots.txt");
    let error = fetcher.fetch(&url).await.expect_err("refused");
    assert_eq!(
        error.to_string(),
        format!("refusing to fetch {url}: 0.0.0.0 is an unspecified address")
    );
    let url = format!("http://127.0.0.1:{port}/robots.txt");
    let error = fetcher.fetch(&url).await.expect_err("refused");
    assert_eq!(
        error.to_string(),
        format!("refusing to fetch {url}: 127.0.0.1 is a loopback address")
    );
    assert_no_connection(&listener);
}
