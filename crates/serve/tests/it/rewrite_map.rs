//! The `RewriteMap prg:` helper over pipes, against the service in
//! process (Apache itself runs it in the command's tests).

use std::net::Ipv4Addr;

use botwarden_serve::{MapCounts, RewriteMap};
use botwarden_testdata::dns::TestDns;

use crate::gate::{BROWSER, SEARCHBOT, serve, zone};

/// The helper's answers to `keys`, and its counts.
async fn answers(map: &RewriteMap, keys: &str) -> (Vec<String>, MapCounts) {
    let mut out = Vec::new();
    let counts = map
        .run(tokio::io::BufReader::new(keys.as_bytes()), &mut out)
        .await
        .expect("the helper runs");
    let text = String::from_utf8(out).expect("UTF-8");
    (text.lines().map(str::to_owned).collect(), counts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_answer_per_key_and_unknown_when_the_service_is_gone() {
    let dns = TestDns::start(zone()).await;
    let running = serve(dns.addr(), true, &["127.0.0.1"]).await;
    let mut map = RewriteMap::new(&format!("http://{}", running.addr)).expect("url");
    // Long enough for the loopback DNS: each verdict in its own answer.
    map.wait = std::time::Duration::from_secs(5);
    let keys = format!(
        "192.0.2.2 {SEARCHBOT}\n192.0.2.3 {SEARCHBOT}\n192.0.2.4 {BROWSER}\n\
         not-an-address {SEARCHBOT}\n192.0.2.4\n{}\n",
        Ipv4Addr::new(192, 0, 2, 2)
    );
    let (lines, counts) = answers(&map, &keys).await;
    assert_eq!(
        lines,
        [
            "200 verified fcrdns Searchbot",
            "403 spoofed - Searchbot",
            "200 not-a-bot - -",
            "200 unknown - -",
            "200 not-a-bot - -",
            "200 not-a-bot - -",
        ]
    );
    assert_eq!(
        (counts.answered, counts.unreachable, counts.bad_keys),
        (5, 0, 1)
    );
    running.stop().await;
    // The service gone: every key answered unknown, at once.
    let (lines, counts) = answers(&map, &format!("192.0.2.2 {SEARCHBOT}\n192.0.2.3 x\n")).await;
    assert_eq!(lines, ["200 unknown - -", "200 unknown - -"]);
    assert_eq!((counts.answered, counts.unreachable), (0, 2));
}
