//! Exports announced on a real `redis-server` and followed into a
//! directory: files and the ACAP tree written whole, the reload command
//! run after each version written (and not after one that failed), names
//! and sizes checked on both sides.

use std::fs;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use botwarden_logs::{Listed, Standing, write_acap_tree};
use botwarden_scale::{
    ExportFile, ExportTree, ExportsFollower, FollowStep, RedisExports, RedisTarget, ReloadCommand,
    ReloadStatus, Timeouts, TreeLimits,
};
use botwarden_testdata::TempDir;
use botwarden_testdata::redis::RedisServer;

fn timeouts() -> Timeouts {
    let mut t = Timeouts::default();
    t.read = Duration::from_secs(2);
    t.write = Duration::from_secs(2);
    t.first_retry = Duration::from_millis(20);
    t
}

async fn exports(redis: &RedisServer) -> RedisExports {
    RedisExports::connect(RedisTarget::parse(&redis.url()).expect("URL"), timeouts()).await
}

fn listed(ip: &str, bot: &str, standing: Standing) -> Listed {
    Listed {
        ip: ip.parse::<IpAddr>().expect("address"),
        bot: bot.to_owned(),
        standing,
    }
}

/// The files under `dir`, as `SUB/NAME`, sorted.
fn tree_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in fs::read_dir(dir).expect("the tree") {
        let sub = sub.expect("entry");
        if !sub.path().is_dir() {
            continue;
        }
        for file in fs::read_dir(sub.path()).expect("a subdirectory") {
            let file = file.expect("entry");
            out.push(format!(
                "{}/{}",
                sub.file_name().to_string_lossy(),
                file.file_name().to_string_lossy()
            ));
        }
    }
    out.sort();
    out
}

fn applied(step: FollowStep) -> botwarden_scale::Applied {
    match step {
        FollowStep::Applied(a) => a,
        other => panic!("not applied: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_acap_tree_announced_is_swapped_in_whole_on_the_follower() {
    let redis = RedisServer::start();
    let temp = TempDir::new("exports-tree");
    let local = temp.path().join("node/acap");
    let web = temp.path().join("web");
    let reloads = temp.path().join("reloads.log");
    let announcer = exports(&redis).await;
    let reload = ReloadCommand::new(format!(
        "echo reloaded >> '{}'; echo 'lists read' >&2",
        reloads.display()
    ));
    let mut follower = ExportsFollower::new(exports(&redis).await, web.clone(), Some(reload))
        .with_wait(Duration::from_secs(10));

    // First version: Googlebot verified at .1, .9 spoofing it. The tree
    // on disk also holds what a tree may not: a file with bytes and a
    // directory one level too deep; both are left out and counted.
    write_acap_tree(
        &local,
        &[
            listed("192.0.2.1", "Googlebot", Standing::Verified),
            listed("192.0.2.9", "Googlebot", Standing::Spoofed),
        ],
    )
    .expect("the local tree");
    fs::write(local.join("all-ok-bots/notes"), b"not empty").expect("a stray file");
    fs::create_dir(local.join("Googlebot/deeper")).expect("a stray directory");
    let (tree, left_out) = ExportTree::read(&local, &TreeLimits::default()).expect("read");
    let left_out = left_out.expect("entries left out");
    assert_eq!(left_out.entries, Some(2), "{left_out}");
    assert_eq!(tree.name, "acap");
    let files = [ExportFile {
        name: "verified.txt".to_owned(),
        body: b"192.0.2.1\n".to_vec(),
    }];
    let first = announcer
        .announce(&files, &[tree])
        .await
        .expect("announced");
    assert_eq!((first.files, first.trees), (1, 1));
    assert!(first.refused.is_empty(), "{:?}", first.refused);

    let a = applied(follower.step().await);
    assert_eq!(a.version, first.version);
    assert_eq!(a.written.files, 1);
    assert_eq!(a.written.trees, [("acap".to_owned(), 3)]);
    assert_eq!(
        tree_files(&web.join("acap")),
        [
            "Googlebot/192.0.2.1",
            "all-ok-bots/192.0.2.1",
            "suspect-bots/192.0.2.9"
        ]
    );
    assert!(web.join("acap/other-bots").is_dir());
    assert!(web.join("acap/.botwarden-acap").is_file());
    let link = fs::read_link(web.join("acap")).expect("the tree is a link to a generation");
    let reload = a.reload.expect("reloaded");
    assert!(reload.succeeded(), "{reload:?}");
    assert_eq!(reload.stderr, "lists read");
    assert_eq!(fs::read_to_string(&reloads).expect("reloads"), "reloaded\n");

    // Second version: .1 gone, .2 verified as Bingbot. The follower's
    // tree is replaced whole: .1 disappears from every directory.
    write_acap_tree(
        &local,
        &[listed("192.0.2.2", "bingbot", Standing::Verified)],
    )
    .expect("the local tree");
    let (tree, left_out) = ExportTree::read(&local, &TreeLimits::default()).expect("read");
    assert_eq!(left_out, None);
    let second = announcer.announce(&[], &[tree]).await.expect("announced");
    let a = applied(follower.step().await);
    assert_eq!(a.version, second.version);
    assert_eq!(
        tree_files(&web.join("acap")),
        ["all-ok-bots/192.0.2.2", "bingbot/192.0.2.2"]
    );
    assert_ne!(fs::read_link(web.join("acap")).expect("link"), link);
    // The file of the first version stays as it was.
    assert_eq!(
        fs::read(web.join("verified.txt")).expect("the list"),
        b"192.0.2.1\n"
    );
    assert_eq!(
        fs::read_to_string(&reloads).expect("reloads"),
        "reloaded\nreloaded\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_reload_is_reported_and_the_follower_goes_on() {
    let redis = RedisServer::start();
    let temp = TempDir::new("exports-reload");
    let announcer = exports(&redis).await;
    let mut follower = ExportsFollower::new(
        exports(&redis).await,
        temp.path().join("web"),
        Some(ReloadCommand::new("echo 'no such server' >&2; exit 3")),
    )
    .with_wait(Duration::from_secs(10));
    for body in ["192.0.2.1\n", "192.0.2.2\n"] {
        let file = ExportFile {
            name: "verified.txt".to_owned(),
            body: body.as_bytes().to_vec(),
        };
        let version = announcer.announce(&[file], &[]).await.expect("announced");
        let a = applied(follower.step().await);
        assert_eq!(a.version, version.version);
        let reload = a.reload.expect("the reload ran");
        assert_eq!(reload.status, ReloadStatus::Exited(3));
        assert_eq!(reload.stderr, "no such server");
        assert_eq!(
            fs::read_to_string(temp.path().join("web/verified.txt")).expect("written"),
            body
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_that_cannot_be_written_runs_no_reload() {
    let redis = RedisServer::start();
    let temp = TempDir::new("exports-unwritten");
    let web = temp.path().join("web");
    let marker = temp.path().join("reloaded");
    fs::create_dir_all(&web).expect("web");
    // Something the follower must not replace where the tree goes.
    fs::write(web.join("acap"), b"a file of the web server's").expect("a file");
    let announcer = exports(&redis).await;
    let mut follower = ExportsFollower::new(
        exports(&redis).await,
        web.clone(),
        Some(ReloadCommand::new(format!("touch '{}'", marker.display()))),
    )
    .with_wait(Duration::from_secs(10));
    let mut dirs = botwarden_logs::AcapDirs::new();
    dirs.insert("all-ok-bots".into(), ["192.0.2.1".to_owned()].into());
    let tree = ExportTree {
        name: "acap".into(),
        dirs,
    };
    announcer.announce(&[], &[tree]).await.expect("announced");
    match follower.step().await {
        FollowStep::NotWritten { error, .. } => {
            assert!(error.to_string().contains("acap"), "{error}");
        }
        other => panic!("written: {other:?}"),
    }
    assert!(!marker.exists(), "reloaded after a version not written");
    assert_eq!(
        fs::read(web.join("acap")).expect("kept"),
        b"a file of the web server's"
    );
    // The next version that can be written is, and reloads.
    let file = ExportFile {
        name: "verified.txt".to_owned(),
        body: b"192.0.2.1\n".to_vec(),
    };
    announcer.announce(&[file], &[]).await.expect("announced");
    let a = applied(follower.step().await);
    assert!(a.reload.expect("reloaded").succeeded());
    assert!(marker.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trees_over_the_limits_and_names_not_plain_are_refused_and_said() {
    let redis = RedisServer::start();
    let temp = TempDir::new("exports-refused");
    let web = temp.path().join("web");
    let small = TreeLimits {
        max_entries: 2,
        max_bytes: 1 << 20,
    };
    let mut dirs = botwarden_logs::AcapDirs::new();
    dirs.insert(
        "all-ok-bots".into(),
        ["192.0.2.1", "192.0.2.2"].map(String::from).into(),
    );
    let tree = ExportTree {
        name: "acap".into(),
        dirs,
    };
    // The announcer refuses a tree over its limits whole.
    let strict = exports(&redis).await.with_limits(small);
    let announced = strict
        .announce(&[], std::slice::from_ref(&tree))
        .await
        .expect("announced");
    assert_eq!(announced.trees, 0);
    assert_eq!(announced.refused.len(), 1);
    assert_eq!(announced.refused[0].entries, None);

    // A follower with smaller limits than the announcer's refuses it too,
    // and writes nothing of it.
    exports(&redis)
        .await
        .announce(&[], std::slice::from_ref(&tree))
        .await
        .expect("announced");
    let mut follower =
        ExportsFollower::new(exports(&redis).await.with_limits(small), web.clone(), None);
    let a = applied(follower.step().await);
    assert!(a.written.is_empty());
    assert_eq!(a.refused.len(), 1, "{:?}", a.refused);
    assert!(
        a.refused[0].reason.contains("refused whole"),
        "{}",
        a.refused[0]
    );
    assert!(!web.join("acap").exists());

    // An announcement written by something else, naming a tree and a file
    // outside the directory: both refused by name, nothing written
    // outside; the tree the stream names with no value is missing.
    let client = redis::Client::open(redis.url()).expect("client");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("connection");
    let _: () = redis::cmd("SET")
        .arg("botwarden:v1:export-tree:1-1:..")
        .arg(b"x/\0".as_slice())
        .query_async(&mut conn)
        .await
        .expect("SET");
    let _: String = redis::cmd("XADD")
        .arg("botwarden:v1:exports")
        .arg("*")
        .arg("version")
        .arg("1-1")
        .arg("names")
        .arg("../escape.txt")
        .arg("trees")
        .arg("..,gone")
        .query_async(&mut conn)
        .await
        .expect("XADD");
    let mut follower = ExportsFollower::new(exports(&redis).await, web.clone(), None);
    let a = applied(follower.step().await);
    assert!(a.written.is_empty());
    let mut refused: Vec<&str> = a.refused.iter().map(|r| r.name.as_str()).collect();
    refused.sort_unstable();
    assert_eq!(refused, ["..", "../escape.txt"]);
    assert_eq!(a.missing, ["gone"]);
    assert!(!temp.path().join("escape.txt").exists());
    assert!(!temp.path().join("x").exists());
}
