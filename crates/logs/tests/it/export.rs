//! The exports: exact text of each format, names, the ACAP tree and its swaps.

use std::collections::BTreeSet;
use std::fs;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use botwarden_logs::{
    AcapOptions, Error, ListFilter, Listed, Server, SnippetOptions, Standing, apache_rewrite_map,
    bot_slug, haproxy_map, json_list, nginx_geo, plain_list, remote_addr_text, snippet,
    snippet_parts, write_acap_tree, write_acap_tree_with, write_atomic,
};

/// The option a snippet refused.
fn refused_option(err: &Error) -> &'static str {
    match err {
        Error::Snippet { option, .. } => option,
        other => panic!("not a snippet option's error: {other}"),
    }
}

pub(crate) fn listed(ip: &str, bot: &str, standing: Standing) -> Listed {
    Listed {
        ip: ip.parse().expect("test address"),
        bot: bot.to_owned(),
        standing,
    }
}

fn sample() -> Vec<Listed> {
    use Standing::{Other, Spoofed, Verified};
    vec![
        listed("2001:db8::1", "bingbot", Verified),
        listed("127.0.0.3", "Googlebot", Spoofed),
        listed("127.0.0.2", "Googlebot-Image", Verified),
        listed("127.0.0.2", "Googlebot", Verified),
        listed("::ffff:192.0.2.7", "Sogou web spider", Verified),
        listed("198.51.100.9", "SomeCrawler", Other),
        listed("127.0.0.5", "Googlebot", Verified),
        listed("127.0.0.5", "bingbot", Spoofed),
        listed("127.0.0.6", "X", Other),
        listed("127.0.0.6", "Googlebot", Verified),
        listed("127.0.0.2", "Googlebot", Verified),
    ]
}

fn at() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_795_267_141)
}

/// A fresh directory under the system temporary directory, removed on drop.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "botwarden-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("create temp dir");
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod temp dir");
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn apache_rewrite_map_text() {
    assert_eq!(
        apache_rewrite_map(&sample(), at()),
        "# botwarden: Apache RewriteMap (txt), generated 2026-11-21T13:19:01Z\n\
         # 7 addresses: 4 verified, 2 spoofed, 1 other\n\
         127.0.0.2 Googlebot,Googlebot-Image\n\
         127.0.0.3 spoofed\n\
         127.0.0.5 spoofed\n\
         127.0.0.6 Googlebot\n\
         192.0.2.7 Sogou+web+spider\n\
         198.51.100.9 other\n\
         2001:db8::1 bingbot\n"
    );
}

#[test]
fn nginx_geo_text() {
    assert_eq!(
        nginx_geo(&sample(), at()),
        "# botwarden: nginx geo include, generated 2026-11-21T13:19:01Z\n\
         # 7 addresses: 4 verified, 2 spoofed, 1 other\n\
         127.0.0.2/32 Googlebot,Googlebot-Image;\n\
         127.0.0.3/32 spoofed;\n\
         127.0.0.5/32 spoofed;\n\
         127.0.0.6/32 Googlebot;\n\
         192.0.2.7/32 Sogou+web+spider;\n\
         198.51.100.9/32 other;\n\
         2001:db8::1/128 bingbot;\n"
    );
}

#[test]
fn haproxy_map_text() {
    assert_eq!(
        haproxy_map(&sample(), at()),
        "# botwarden: HAProxy map (map_ip), generated 2026-11-21T13:19:01Z\n\
         # 7 addresses: 4 verified, 2 spoofed, 1 other\n\
         127.0.0.2 Googlebot,Googlebot-Image\n\
         127.0.0.3 spoofed\n\
         127.0.0.5 spoofed\n\
         127.0.0.6 Googlebot\n\
         192.0.2.7 Sogou+web+spider\n\
         198.51.100.9 other\n\
         2001:db8::1 bingbot\n"
    );
}

#[test]
fn empty_lists() {
    assert_eq!(
        haproxy_map(&[], at()),
        "# botwarden: HAProxy map (map_ip), generated 2026-11-21T13:19:01Z\n\
         # 0 addresses: 0 verified, 0 spoofed, 0 other\n"
    );
    assert_eq!(json_list(&[]), "[]\n");
    assert_eq!(plain_list(&[], &ListFilter::default()), "");
}

#[test]
fn plain_list_filters() {
    let all = plain_list(&sample(), &ListFilter::default());
    assert_eq!(
        all,
        "127.0.0.2\n127.0.0.3\n127.0.0.5\n127.0.0.6\n192.0.2.7\n198.51.100.9\n2001:db8::1\n"
    );
    let verified = ListFilter {
        standing: Some(Standing::Verified),
        bot: None,
    };
    assert_eq!(
        plain_list(&sample(), &verified),
        "127.0.0.2\n127.0.0.6\n192.0.2.7\n2001:db8::1\n"
    );
    let google = ListFilter {
        standing: Some(Standing::Verified),
        bot: Some("Googlebot".into()),
    };
    assert_eq!(plain_list(&sample(), &google), "127.0.0.2\n127.0.0.6\n");
    let spoofed_bing = ListFilter {
        standing: Some(Standing::Spoofed),
        bot: Some("bingbot".into()),
    };
    assert_eq!(plain_list(&sample(), &spoofed_bing), "127.0.0.5\n");
    let other = ListFilter {
        standing: Some(Standing::Other),
        bot: None,
    };
    assert_eq!(plain_list(&sample(), &other), "198.51.100.9\n");
}

#[test]
fn json_list_text() {
    let text = json_list(&sample());
    assert_eq!(
        text,
        "[\n\
         \x20 {\"ip\":\"127.0.0.2\",\"bot\":\"Googlebot\",\"standing\":\"verified\"},\n\
         \x20 {\"ip\":\"127.0.0.2\",\"bot\":\"Googlebot-Image\",\"standing\":\"verified\"},\n\
         \x20 {\"ip\":\"127.0.0.3\",\"bot\":\"Googlebot\",\"standing\":\"spoofed\"},\n\
         \x20 {\"ip\":\"127.0.0.5\",\"bot\":\"bingbot\",\"standing\":\"spoofed\"},\n\
         \x20 {\"ip\":\"127.0.0.6\",\"bot\":\"Googlebot\",\"standing\":\"verified\"},\n\
         \x20 {\"ip\":\"192.0.2.7\",\"bot\":\"Sogou web spider\",\"standing\":\"verified\"},\n\
         \x20 {\"ip\":\"198.51.100.9\",\"bot\":\"SomeCrawler\",\"standing\":\"other\"},\n\
         \x20 {\"ip\":\"2001:db8::1\",\"bot\":\"bingbot\",\"standing\":\"verified\"}\n\
         ]\n"
    );
    let parsed: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(parsed.as_array().map(Vec::len), Some(8));
    let odd = json_list(&[listed("10.0.0.1", "a\"b\\c\n", Standing::Other)]);
    let parsed: serde_json::Value = serde_json::from_str(&odd).expect("escaped JSON");
    assert_eq!(parsed[0]["bot"], "a\"b\\c\n");
}

#[test]
fn ipv6_names_match_apache_remote_addr() {
    let text = |s: &str| remote_addr_text(s.parse::<IpAddr>().expect("address"));
    assert_eq!(text("192.0.2.1"), "192.0.2.1");
    assert_eq!(text("::1"), "::1");
    assert_eq!(text("::"), "::");
    assert_eq!(text("2001:DB8:0:0:0:0:0:1"), "2001:db8::1");
    assert_eq!(text("2001:db8:0:1:0:0:0:1"), "2001:db8:0:1::1");
    // The first of two equal runs is compressed; a single zero group is not.
    assert_eq!(text("2001:0:0:1:0:0:1:1"), "2001::1:0:0:1:1");
    assert_eq!(text("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1");
    assert_eq!(text("fe80::0abc:0DEF"), "fe80::abc:def");
    // IPv4-mapped: APR drops the ::ffff: prefix.
    assert_eq!(text("::ffff:192.0.2.1"), "192.0.2.1");
    // IPv4-compatible (deprecated): APR prints it dotted.
    assert_eq!(text("::192.0.2.1"), "::192.0.2.1");
    assert_eq!(text("::ff00"), "::ff00");
}

#[test]
fn bot_slugs() {
    assert_eq!(bot_slug("Googlebot"), "Googlebot");
    assert_eq!(bot_slug("archive.org_bot"), "archive.org_bot");
    assert_eq!(bot_slug("Sogou web spider"), "Sogou+web+spider");
    assert_eq!(
        bot_slug("Screaming Frog SEO Spider"),
        "Screaming+Frog+SEO+Spider"
    );
    assert_eq!(bot_slug("a/b"), "a~2Fb");
    assert_eq!(bot_slug("a+b~c,d"), "a~2Bb~7Ec~2Cd");
    assert_eq!(bot_slug("é"), "~C3~A9");
    assert_eq!(bot_slug(""), "~");
    assert_eq!(bot_slug("."), "~2E");
    assert_eq!(bot_slug(".."), "~2E.");
    assert_eq!(bot_slug("all-ok-bots"), "~61ll-ok-bots");
    assert_eq!(bot_slug("other-bots"), "~6Fther-bots");
    assert_eq!(bot_slug("suspect-bots"), "~73uspect-bots");
    assert_eq!(bot_slug("spoofed"), "~73poofed");
    assert_eq!(bot_slug("other"), "~6Fther");
    assert_eq!(bot_slug(".botwarden-acap"), "~2Ebotwarden-acap");
    // One-to-one: distinct names never share a slug.
    let names = [
        "a b", "a+b", "a~20b", "a_b", "a-b", "a~2Bb", "a%20b", "a\tb",
    ];
    let slugs: BTreeSet<_> = names.iter().map(|n| bot_slug(n).into_owned()).collect();
    assert_eq!(slugs.len(), names.len(), "{slugs:?}");
}

/// Every file under `root` (following the top-level link), as relative paths.
fn tree_files(root: &Path) -> BTreeSet<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeSet<String>) {
        for entry in fs::read_dir(dir).expect("read dir") {
            let entry = entry.expect("entry");
            let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
            if entry.file_type().expect("type").is_dir() {
                walk(&entry.path(), &format!("{name}/"), out);
            } else {
                out.insert(name);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, "", &mut out);
    out
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn acap_tree_layout() {
    let tmp = TempDir::new("acap-layout");
    let dir = tmp.0.join("sub/acap");
    let summary = write_acap_tree(&dir, &sample()).expect("tree");
    assert_eq!(
        (
            summary.verified,
            summary.spoofed,
            summary.other,
            summary.bots
        ),
        (4, 2, 1, 4)
    );
    assert!(
        fs::symlink_metadata(&dir)
            .expect("link")
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_link(&dir).expect("target"),
        Path::new(".acap.gen-1")
    );
    assert_eq!(
        tree_files(&dir),
        set(&[
            ".botwarden-acap",
            "Googlebot-Image/127.0.0.2",
            "Googlebot/127.0.0.2",
            "Googlebot/127.0.0.6",
            "Sogou+web+spider/192.0.2.7",
            "all-ok-bots/127.0.0.2",
            "all-ok-bots/127.0.0.6",
            "all-ok-bots/192.0.2.7",
            "all-ok-bots/2001:db8::1",
            "bingbot/2001:db8::1",
            "other-bots/198.51.100.9",
            "suspect-bots/127.0.0.3",
            "suspect-bots/127.0.0.5",
        ])
    );
    // The fixed directories exist even when empty.
    write_acap_tree(&dir, &[]).expect("empty tree");
    assert_eq!(tree_files(&dir), set(&[".botwarden-acap"]));
    for fixed in ["all-ok-bots", "other-bots", "suspect-bots"] {
        assert!(dir.join(fixed).is_dir(), "{fixed}");
    }
}

#[test]
fn acap_tree_prunes_old_generations() {
    let tmp = TempDir::new("acap-prune");
    let dir = tmp.0.join("acap");
    let keep_two = AcapOptions {
        keep_previous: 2,
        retain: Duration::ZERO,
    };
    let first = [listed("10.0.0.1", "Googlebot", Standing::Verified)];
    let second = [listed("10.0.0.2", "Googlebot", Standing::Verified)];
    write_acap_tree(&dir, &first).expect("first");
    assert!(dir.join("all-ok-bots/10.0.0.1").is_file());
    for n in 2..=6 {
        let list: &[Listed] = if n % 2 == 0 { &second } else { &first };
        write_acap_tree_with(&dir, list, &keep_two).expect("again");
        assert_eq!(
            fs::read_link(&dir).expect("link"),
            PathBuf::from(format!(".acap.gen-{n}"))
        );
    }
    // Generation 6 lists only 10.0.0.2: 10.0.0.1 is gone.
    assert!(dir.join("all-ok-bots/10.0.0.2").is_file());
    assert!(!dir.join("all-ok-bots/10.0.0.1").exists());
    assert!(!dir.join("Googlebot/10.0.0.1").exists());
    let mut siblings: Vec<String> = fs::read_dir(&tmp.0)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    siblings.sort();
    assert_eq!(
        siblings,
        [
            ".acap.gen-4",
            ".acap.gen-5",
            ".acap.gen-6",
            ".acap.lock",
            "acap"
        ]
    );

    // By default, generations replaced less than ten seconds ago stay.
    write_acap_tree(&dir, &first).expect("default options");
    write_acap_tree(&dir, &second).expect("default options");
    for n in 4..=8 {
        assert!(
            tmp.0.join(format!(".acap.gen-{n}")).is_dir(),
            "generation {n} kept"
        );
    }
    // Once replaced long enough ago, only the previous one stays.
    let quick = AcapOptions {
        keep_previous: 1,
        retain: Duration::ZERO,
    };
    write_acap_tree_with(&dir, &first, &quick).expect("prune");
    let gens = fs::read_dir(&tmp.0)
        .expect("list")
        .filter(|e| {
            e.as_ref()
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .contains(".gen-")
        })
        .count();
    assert_eq!(gens, 2);
    assert!(tmp.0.join(".acap.gen-8").is_dir() && tmp.0.join(".acap.gen-9").is_dir());
}

#[test]
fn acap_tree_replaces_empty_or_marked_directories_only() {
    let tmp = TempDir::new("acap-plain");
    let list = [listed("10.0.0.1", "Googlebot", Standing::Verified)];

    let empty = tmp.0.join("empty");
    fs::create_dir(&empty).expect("mkdir");
    write_acap_tree(&empty, &list).expect("empty directory is replaced");
    assert!(empty.join("all-ok-bots/10.0.0.1").is_file());

    let marked = tmp.0.join("marked");
    fs::create_dir_all(marked.join("all-ok-bots")).expect("mkdir");
    fs::write(marked.join(".botwarden-acap"), "").expect("marker");
    fs::write(marked.join("all-ok-bots/10.9.9.9"), "").expect("old ip");
    write_acap_tree(&marked, &list).expect("marked directory is replaced");
    assert!(marked.join("all-ok-bots/10.0.0.1").is_file());
    assert!(!marked.join("all-ok-bots/10.9.9.9").exists());

    let foreign = tmp.0.join("foreign");
    fs::create_dir(&foreign).expect("mkdir");
    fs::write(foreign.join("index.html"), "mine").expect("file");
    let err = write_acap_tree(&foreign, &list).expect_err("foreign directory is refused");
    assert!(matches!(err, Error::Refused { .. }), "{err}");
    assert_eq!(err.path(), Some(foreign.as_path()));
    assert!(err.to_string().contains("foreign"), "{err}");
    assert_eq!(
        fs::read_to_string(foreign.join("index.html")).expect("kept"),
        "mine"
    );

    let file = tmp.0.join("file");
    fs::write(&file, "x").expect("file");
    let err = write_acap_tree(&file, &list).expect_err("regular file is refused");
    assert!(
        err.to_string().contains("file") && err.to_string().contains("not a directory"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&file).expect("kept"), "x");

    let link = tmp.0.join("link");
    std::os::unix::fs::symlink(&foreign, &link).expect("symlink");
    let err = write_acap_tree(&link, &list).expect_err("foreign link is refused");
    assert!(err.to_string().contains("symbolic link"), "{err}");
}

#[test]
fn acap_tree_unwritable_parent() {
    let tmp = TempDir::new("acap-unwritable");
    let file = tmp.0.join("plain-file");
    fs::write(&file, "x").expect("file");
    let dir = file.join("acap");
    let err = write_acap_tree(&dir, &[]).expect_err("parent is a file");
    assert!(matches!(err, Error::Io { .. }), "{err}");
    assert!(err.to_string().contains("plain-file"), "{err}");
    // The system's error is the source, and not repeated in the message,
    // so that a printed chain says it once.
    let cause = std::error::Error::source(&err).expect("the system's error is the source");
    assert!(
        !err.to_string().contains(&cause.to_string()),
        "{err} / {cause}"
    );
}

/// Readers that stat files throughout many swaps never miss an address
/// listed before and after.
#[test]
fn acap_tree_swap_is_atomic_for_readers() {
    let tmp = TempDir::new("acap-race");
    let dir = tmp.0.join("acap");
    let a = [
        listed("10.0.0.1", "Googlebot", Standing::Verified),
        listed("10.0.0.2", "Googlebot", Standing::Verified),
        listed("10.0.0.9", "Googlebot", Standing::Spoofed),
    ];
    let b = [
        listed("10.0.0.1", "Googlebot", Standing::Verified),
        listed("10.0.0.3", "bingbot", Standing::Verified),
    ];
    write_acap_tree(&dir, &a).expect("first");
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let done = Arc::clone(&done);
            let paths = [
                dir.join("all-ok-bots/10.0.0.1"),
                dir.join("Googlebot/10.0.0.1"),
            ];
            std::thread::spawn(move || {
                let mut checks = 0_u64;
                while !done.load(Ordering::Relaxed) {
                    for path in &paths {
                        assert!(path.is_file(), "{} missing during a swap", path.display());
                        checks += 1;
                    }
                }
                checks
            })
        })
        .collect();
    for i in 0..300 {
        write_acap_tree(&dir, if i % 2 == 0 { &b } else { &a }).expect("swap");
    }
    done.store(true, Ordering::Relaxed);
    for reader in readers {
        let checks = reader.join().expect("reader saw every file");
        assert!(checks > 0);
    }
    // The last list (a) is what is there, and only that.
    assert!(dir.join("all-ok-bots/10.0.0.2").is_file());
    assert!(!dir.join("all-ok-bots/10.0.0.3").exists());
    assert!(!dir.join("bingbot").exists());
}

#[test]
fn write_atomic_replaces_and_keeps_mode() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = TempDir::new("atomic");
    let path = tmp.0.join("map.txt");
    write_atomic(&path, b"one\n").expect("new file");
    assert_eq!(fs::read(&path).expect("read"), b"one\n");
    let mode = fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
    assert_eq!(
        mode & 0o044,
        0o044,
        "new files are readable by the web server: {mode:o}"
    );

    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).expect("chmod");
    let before = fs::metadata(&path)
        .expect("meta")
        .modified()
        .expect("mtime");
    write_atomic(&path, b"two\n").expect("replace");
    let meta = fs::metadata(&path).expect("meta");
    assert_eq!(fs::read(&path).expect("read"), b"two\n");
    assert_eq!(meta.permissions().mode() & 0o7777, 0o640);
    assert!(
        meta.modified().expect("mtime") > before,
        "the mtime moves for mod_rewrite's cache"
    );

    // Through a symbolic link: the target is replaced, the link stays.
    let link = tmp.0.join("link.txt");
    std::os::unix::fs::symlink("map.txt", &link).expect("symlink");
    write_atomic(&link, b"three\n").expect("through link");
    assert!(
        fs::symlink_metadata(&link)
            .expect("meta")
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read(&path).expect("read"), b"three\n");

    // No temporary files are left behind.
    let names: BTreeSet<_> = fs::read_dir(&tmp.0)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, set(&["link.txt", "map.txt"]));
}

#[test]
fn write_atomic_errors_name_the_path() {
    let tmp = TempDir::new("atomic-err");
    let missing = tmp.0.join("no-such-dir/map.txt");
    let err = write_atomic(&missing, b"x").expect_err("missing directory");
    assert!(err.to_string().contains("no-such-dir"), "{err}");

    let file = tmp.0.join("plain-file");
    fs::write(&file, "x").expect("file");
    let err = write_atomic(&file.join("map.txt"), b"x").expect_err("parent is a file");
    assert!(err.to_string().contains("plain-file"), "{err}");

    let err = write_atomic(&tmp.0, b"x").expect_err("a directory");
    assert!(matches!(err, Error::Refused { .. }), "{err}");
    assert!(err.to_string().contains("is a directory"), "{err}");
}

#[test]
fn snippets_name_the_exports() {
    let opts = SnippetOptions::default();
    let apache = snippet(Server::Apache, &opts).expect("valid options");
    assert!(
        apache.contains("RewriteCond \"/var/lib/botwarden/acap/suspect-bots/%{REMOTE_ADDR}\" -f")
    );
    assert!(apache.contains("Require env BOTWARDEN_VERIFIED"));
    let map = SnippetOptions {
        apache_lookup: botwarden_logs::ApacheLookup::RewriteMap,
        ..SnippetOptions::default()
    };
    assert!(
        snippet(Server::Apache, &map)
            .expect("valid options")
            .contains("RewriteMap botwarden \"txt:/var/lib/botwarden/apache-rewritemap.txt\"")
    );
    let nginx = snippet(Server::Nginx, &opts).expect("valid options");
    let parts = snippet_parts(Server::Nginx, &opts).expect("valid options");
    assert_eq!(parts.len(), 2);
    assert_eq!(nginx, format!("{}\n{}", parts[0].text, parts[1].text));
    assert!(nginx.contains("include \"/var/lib/botwarden/nginx-geo.conf\";"));
    let haproxy = snippet(Server::Haproxy, &opts).expect("valid options");
    assert!(haproxy.contains("src,map_ip(/var/lib/botwarden/haproxy.map)"));
    let no_auth = SnippetOptions {
        basic_auth: None,
        ..SnippetOptions::default()
    };
    for server in [Server::Apache, Server::Nginx, Server::Haproxy] {
        assert!(
            !snippet(server, &no_auth)
                .expect("valid options")
                .contains("auth_basic $"),
            "{server:?}"
        );
        assert!(
            !snippet(server, &no_auth)
                .expect("valid options")
                .contains("AuthType"),
            "{server:?}"
        );
        assert!(
            !snippet(server, &no_auth)
                .expect("valid options")
                .contains("http-request auth"),
            "{server:?}"
        );
    }
}

/// An option with a line break would write a line of its own into the
/// server's configuration: every option is checked, for every server.
#[test]
fn snippet_options_cannot_inject_configuration() {
    let injected = "/\nRewriteRule ^ - [E=BOTWARDEN_VERIFIED:1]";
    let cases: Vec<(&str, SnippetOptions)> = vec![
        (
            "acap_dir",
            SnippetOptions {
                acap_dir: injected.into(),
                ..SnippetOptions::default()
            },
        ),
        (
            "apache_map",
            SnippetOptions {
                apache_map: "/m\r\nx".into(),
                ..SnippetOptions::default()
            },
        ),
        (
            "nginx_geo",
            SnippetOptions {
                nginx_geo: "/g.conf\n}".into(),
                ..SnippetOptions::default()
            },
        ),
        (
            "haproxy_map",
            SnippetOptions {
                haproxy_map: "/h.map\u{0}".into(),
                ..SnippetOptions::default()
            },
        ),
        (
            "verified_robots",
            SnippetOptions {
                verified_robots: "/r.txt\u{85}".into(),
                ..SnippetOptions::default()
            },
        ),
    ];
    let auth = |f: &dyn Fn(&mut botwarden_logs::BasicAuth)| {
        let mut opts = SnippetOptions::default();
        f(opts.basic_auth.as_mut().expect("auth by default"));
        opts
    };
    let mut cases = cases;
    cases.push(("basic_auth.path", auth(&|a| a.path = injected.to_owned())));
    cases.push((
        "basic_auth.realm",
        auth(&|a| a.realm = "R\n  Require all granted".to_owned()),
    ));
    cases.push((
        "basic_auth.user_file",
        auth(&|a| a.user_file = "/p\n".into()),
    ));
    cases.push((
        "basic_auth.haproxy_userlist",
        auth(&|a| a.haproxy_userlist = "u\tx\ny".to_owned()),
    ));
    for (option, opts) in &cases {
        for server in [Server::Apache, Server::Nginx, Server::Haproxy] {
            let err = snippet(server, opts).expect_err(option);
            assert!(
                matches!(&err, Error::Snippet { option: o, .. } if o == option),
                "{server:?}: {err}"
            );
            assert!(err.to_string().starts_with(option), "{err}");
            assert!(err.to_string().contains("control character"), "{err}");
            assert!(snippet_parts(server, opts).is_err());
        }
    }
    let err = snippet(Server::Nginx, &auth(&|a| a.path = "private".to_owned()))
        .expect_err("a relative path");
    assert_eq!(refused_option(&err), "basic_auth.path");
    // nginx expands variables in these values; the other servers do not.
    let dollar = SnippetOptions {
        verified_robots: "/srv/$host.txt".into(),
        ..SnippetOptions::default()
    };
    let err = snippet(Server::Nginx, &dollar).expect_err("a $ for nginx");
    assert_eq!(refused_option(&err), "verified_robots");
    assert!(err.to_string().contains("variable"), "{err}");
    assert!(snippet(Server::Apache, &dollar).is_ok());
    assert!(snippet(Server::Haproxy, &dollar).is_ok());
    let err = snippet(Server::Nginx, &auth(&|a| a.realm = "Pay $5".to_owned()))
        .expect_err("a $ in the realm");
    assert_eq!(refused_option(&err), "basic_auth.realm");
    // Without authentication there are no authentication options to check.
    let no_auth = SnippetOptions {
        basic_auth: None,
        ..auth(&|a| a.path = injected.to_owned())
    };
    assert!(snippet(Server::Apache, &no_auth).is_ok());
    let err = snippet(
        Server::Nginx,
        &SnippetOptions {
            apache_map: "/m\nx".into(),
            ..SnippetOptions::default()
        },
    )
    .expect_err("every option is checked, whichever server uses it");
    assert_eq!(refused_option(&err), "apache_map");
}

/// The lock file next to an ACAP tree is never followed: a dangling
/// symbolic link in its place does not make botwarden create the file it
/// points to, and the export is refused with the link named.
#[test]
fn acap_lock_file_symlink_is_refused() {
    let tmp = TempDir::new("acap-lock-link");
    let outside = tmp.0.join("outside");
    fs::create_dir_all(&outside).expect("dir");
    let target = outside.join("created-by-botwarden");
    let tree = tmp.0.join("site/acap");
    fs::create_dir_all(tree.parent().expect("a parent")).expect("dir");
    let lock = tmp.0.join("site/.acap.lock");
    std::os::unix::fs::symlink(&target, &lock).expect("symlink");
    let err = write_acap_tree(&tree, &sample()).expect_err("a symlinked lock");
    assert!(matches!(err, Error::Refused { .. }), "{err}");
    assert!(err.to_string().contains(".acap.lock"), "{err}");
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert!(!target.exists(), "the link's target was created");
    assert!(!tree.exists());
    // A link to an existing file is refused too, and the file is untouched.
    fs::write(&target, "keep").expect("write");
    let err = write_acap_tree(&tree, &sample()).expect_err("a symlinked lock");
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert_eq!(fs::read_to_string(&target).expect("read"), "keep");
    // Once the link is gone, the export works and leaves a plain lock file.
    fs::remove_file(&lock).expect("remove");
    write_acap_tree(&tree, &sample()).expect("export");
    assert!(fs::symlink_metadata(&lock).expect("lock").is_file());
    write_acap_tree(&tree, &sample()).expect("export again, lock present");
}

#[test]
fn a_tree_of_given_contents_is_swapped_in_and_names_are_one_component() {
    let tmp = TempDir::new("acap-dirs");
    let dir = tmp.0.join("acap");
    let mut dirs = botwarden_logs::AcapDirs::new();
    dirs.insert(
        "all-ok-bots".into(),
        BTreeSet::from(["192.0.2.1".to_owned()]),
    );
    dirs.insert("suspect-bots".into(), BTreeSet::new());
    let generation =
        botwarden_logs::write_acap_dirs(&dir, &dirs, &AcapOptions::default()).expect("written");
    assert_eq!(
        fs::read_link(&dir).expect("a link"),
        Path::new(".acap.gen-1")
    );
    assert_eq!(generation, tmp.0.join(".acap.gen-1"));
    assert!(dir.join("all-ok-bots/192.0.2.1").is_file());
    assert!(dir.join("suspect-bots").is_dir());
    assert!(dir.join(".botwarden-acap").is_file());
    for (sub, name) in [
        ("..", "192.0.2.1"),
        ("all-ok-bots", "../x"),
        (".botwarden-acap", "x"),
        ("all-ok-bots", ""),
    ] {
        let mut bad = botwarden_logs::AcapDirs::new();
        bad.insert(sub.to_owned(), BTreeSet::from([name.to_owned()]));
        let err = botwarden_logs::write_acap_dirs(&dir, &bad, &AcapOptions::default())
            .expect_err("refused");
        assert!(matches!(err, Error::Refused { .. }), "{err}");
        // The tree in place stays.
        assert!(dir.join("all-ok-bots/192.0.2.1").is_file(), "{sub}/{name}");
    }
}
