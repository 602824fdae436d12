//! The names given to clients the registry does not know: the product
//! token that carries their identity, not uap-core's generic family
//! (`crawler`, `robot`, `Firefox`, `Chrome`), on the bundled access logs and
//! on the public crawler lists.
//!
//! Generated file (rerun with `BOTWARDEN_BLESS=1` and review the diff):
//! `testdata/conformance/ua-client-names.tsv`, the name of every
//! unregistered client of the crawler lists and the bundled logs.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use botwarden_testdata::snapshot;
use botwarden_verify::{Classifier, Registry, Source};

use crate::ua_corpus::{CRAWLER_LISTS, bundled_log_user_agents, crawler_list, shared};

fn classifier() -> Classifier {
    Classifier::for_registry(&Registry::builtin())
        .expect("the default registry builds a classifier")
}

/// Words that name no product: what uap-core's generic parsers and a
/// browser's User-Agent give (compared without ASCII case).
const GENERIC: &[&str] = &[
    "agent",
    "applewebkit",
    "bot",
    "chrome",
    "client",
    "com/bot",
    "compatible",
    "crawl",
    "crawler",
    "edge",
    "favicon",
    "fetcher",
    "firefox",
    "gecko",
    "http",
    "https",
    "ie",
    "khtml",
    "linux",
    "mobile safari",
    "mozilla",
    "msie",
    "opera",
    "proxy",
    "robot",
    "safari",
    "scraper",
    "spider",
    "windows",
    "www",
];

/// User-Agents of the crawler lists whose name is not the product's, the
/// name they get, and why. Each must still give that name (so that the list
/// stays true); none is a generic word.
const EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "Ruby, Twurly v1.1 (http://twurly.org)",
        "Ruby",
        "the language comes first, and only a comma sets the client apart",
    ),
    (
        concat!(
            "E. Orliac, G. Fourestey/2.3 (A Patent Crawler; http://scitas.epfl.ch/; ",
            "etienne.orliac@epfl.ch, gilles.fourestey@epfl.ch)"
        ),
        "E. Orliac",
        "the product token is its authors' names; the comment describes it",
    ),
    (
        concat!(
            "Commonly seen variations include: Mozilla/5.0 (X11; U; Linux i686 (x86_64); en-US; ",
            "rv:1.8.1.11) Gecko/20080109 (Charlotte/0.9t; http://www.searchme.com/support/)"
        ),
        "Commonly",
        "not a User-Agent: a note of the list that quotes one",
    ),
];

/// The name of an unregistered client, when `ua` is one.
fn unregistered<'c>(c: &'c Classifier, ua: &'c str) -> Option<String> {
    let class = c.classify(ua);
    if class.bot.is_some() || !class.is_bot() {
        return None;
    }
    Some(
        c.client_name(ua)
            .map_or_else(|| "-".to_owned(), |n| n.into_owned()),
    )
}

/// Why a name is not a product's, if it is not.
fn fault(c: &Classifier, ua: &str, name: &str) -> Option<&'static str> {
    if name == "-" {
        // A User-Agent without a browser's shape (`Mozilla/4.0
        // (compatible;)`, `-`) may name nothing.
        let bare = matches!(c.classify(ua).source, Some(Source::Structure(_)));
        return (!bare).then_some("no name at all");
    }
    if GENERIC.iter().any(|g| g.eq_ignore_ascii_case(name.trim())) {
        return Some("a generic word");
    }
    let from_family = c.uap_family(ua).is_some_and(|f| f == name);
    if !ua.contains(name) && !from_family {
        return Some("not taken from the User-Agent");
    }
    None
}

#[test]
fn unregistered_clients_of_the_bundled_logs_are_named_by_their_product() {
    let Some(shared) = shared("client names on the bundled logs") else {
        return;
    };
    let c = classifier();
    let uas = bundled_log_user_agents(&shared);
    assert!(uas.len() > 10_000, "{}", uas.len());
    let find = |needle: &str| -> String {
        let (_, ua) = uas
            .iter()
            .find(|(_, ua)| ua.contains(needle))
            .unwrap_or_else(|| panic!("no User-Agent with {needle:?} in the bundled logs"));
        unregistered(&c, ua).unwrap_or_else(|| panic!("{ua} is not an unregistered client"))
    };
    // What uap-core calls `crawler`, `Firefox`, `robot`, `favicon` and
    // `Chrome` in the elastic log.
    assert_eq!(find("UniversalFeedParser/"), "UniversalFeedParser");
    assert_eq!(find("FlipboardProxy/1.1"), "FlipboardProxy");
    assert_eq!(find("aggregator:Spinn3r"), "Spinn3r");
    assert_eq!(find("Firefox/6.0 Google favicon"), "Google favicon");
    assert_eq!(find("Google Web Preview"), "Google Web Preview");
    assert_eq!(find("Safari/537.36 slurp"), "slurp");
    assert_eq!(find("FlipboardRSS/1.1"), "FlipboardRSS");
    assert_eq!(find("Mail.RU_Bot/2.0"), "Mail.RU_Bot");
    assert_eq!(find("Embedly/0.2; snap;"), "Embedly");
    assert_eq!(find("Chef Client/"), "Chef Client");
    assert_eq!(find("magpie-crawler/1.1"), "magpie-crawler");
    assert_eq!(
        find("www.changedetection.com/bot.html"),
        "changedetection.com"
    );
    let mut wrong = Vec::new();
    let mut named = 0;
    for (file, ua) in &uas {
        if let Some(name) = unregistered(&c, ua) {
            named += 1;
            if let Some(why) = fault(&c, ua, &name) {
                wrong.push(format!("{file}: {name:?} ({why}): {ua}"));
            }
        }
    }
    assert!(named > 500, "{named}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn unregistered_clients_of_the_crawler_lists_are_named_by_their_product() {
    let Some(shared) = shared("client names on the crawler lists") else {
        return;
    };
    let c = classifier();
    let mut seen = BTreeSet::new();
    let mut table = String::from(
        "# The name of each unregistered client of the crawler lists and the bundled logs \
         (default registry).\n# Generated by crates/verify/tests/it/client_names.rs; rerun \
         with BOTWARDEN_BLESS=1.\nname\tuser_agent\n",
    );
    let mut wrong = Vec::new();
    let mut excepted = BTreeSet::new();
    let lists = CRAWLER_LISTS.iter().flat_map(|l| {
        crawler_list(&shared, l)
            .into_iter()
            .map(move |ua| ((*l).to_owned(), ua))
    });
    let logs = bundled_log_user_agents(&shared);
    for (list, ua) in lists.chain(logs) {
        if !seen.insert(ua.clone()) {
            continue;
        }
        let Some(name) = unregistered(&c, &ua) else {
            continue;
        };
        writeln!(table, "{name}\t{ua}").unwrap();
        let exception = EXCEPTIONS.iter().find(|(u, _, _)| *u == ua);
        match (fault(&c, &ua, &name), exception) {
            (None, None) => {}
            (Some(why), None) => wrong.push(format!("{list}: {name:?} ({why}): {ua}")),
            (_, Some((_, want, _))) => {
                assert_eq!(&name, want, "the listed exception changed: {ua}");
                excepted.insert(ua);
            }
        }
    }
    let stale: Vec<_> = EXCEPTIONS
        .iter()
        .filter(|(u, _, _)| !excepted.contains(*u))
        .collect();
    assert!(stale.is_empty(), "exceptions no longer met: {stale:?}");
    snapshot("testdata/conformance/ua-client-names.tsv", &table);
    assert!(wrong.is_empty(), "{}:\n{}", wrong.len(), wrong.join("\n"));
}
