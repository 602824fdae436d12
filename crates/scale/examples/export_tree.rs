//! How long announcing the ACAP tree takes, end to end: starts a real
//! `redis-server` on a free port, writes a tree of ADDRESSES verified
//! addresses (each in `all-ok-bots` and its bot's directory: two files an
//! address), reads it back, announces it, and has a follower fetch it and
//! swap it in, timing each stage.
//!
//! `cargo run --release -p botwarden-scale --example export_tree [ADDRESSES]`

use std::io::Write as _;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use botwarden_logs::{Listed, Standing, write_acap_tree};
use botwarden_scale::{
    ExportTree, ExportsFollower, FollowStep, RedisExports, RedisTarget, Timeouts, TreeLimits,
};
use botwarden_testdata::TempDir;
use botwarden_testdata::redis::RedisServer;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let addresses: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let server = RedisServer::start();
    let temp = TempDir::new("export-tree");
    let local = temp.path().join("node/acap");
    let listed: Vec<Listed> = (0..addresses)
        .map(|i| Listed {
            ip: IpAddr::from([10, (i >> 16) as u8, (i >> 8) as u8, i as u8]),
            bot: ["Googlebot", "bingbot", "GPTBot"][(i % 3) as usize].to_owned(),
            standing: Standing::Verified,
        })
        .collect();
    let mut timeouts = Timeouts::default();
    timeouts.write = Duration::from_secs(5);
    timeouts.read = Duration::from_secs(5);
    let target = RedisTarget::parse(&server.url()).expect("a URL");
    let announcer = RedisExports::connect(target.clone(), timeouts).await;
    let follower = RedisExports::connect(target, timeouts).await;
    let mut follower = ExportsFollower::new(follower, temp.path().join("web"), None);

    let t = Instant::now();
    write_acap_tree(&local, &listed).expect("the local tree");
    let wrote = t.elapsed();
    let t = Instant::now();
    let (tree, left_out) = ExportTree::read(&local, &TreeLimits::default()).expect("read");
    assert!(left_out.is_none(), "{left_out:?}");
    let read = t.elapsed();
    let bytes = tree.encode().len();
    let t = Instant::now();
    let announced = announcer.announce(&[], &[tree]).await.expect("announced");
    let announce = t.elapsed();
    assert_eq!(announced.trees, 1);
    let t = Instant::now();
    let FollowStep::Applied(applied) = follower.step().await else {
        panic!("not applied");
    };
    let followed = t.elapsed();
    assert_eq!(
        applied.written.trees[0].1,
        2 * usize::try_from(addresses).expect("fits")
    );
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{addresses} addresses ({} files, {:.1} MB announced): write the tree {:.2} s, \
         read it back {:.2} s, announce {:.2} s, follower fetch + swap in {:.2} s",
        applied.written.trees[0].1,
        bytes as f64 / 1e6,
        wrote.as_secs_f64(),
        read.as_secs_f64(),
        announce.as_secs_f64(),
        followed.as_secs_f64()
    )
    .expect("stdout");
}
