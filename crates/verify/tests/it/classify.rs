//! User-Agent classification: its answers, its prefilter (which must lose
//! no answer), its cache, and its agreement with uap-core's own tests and
//! with public lists of crawler User-Agents.
//!
//! Generated files (rerun with `BOTWARDEN_BLESS=1` and review the diff):
//! - `testdata/conformance/uap-core-tests.tsv`: the cases of uap-core's
//!   tests where `ua-parser` with the embedded uap-core release gives
//!   another family than the test expects;
//! - `testdata/conformance/ua-crawler-recall.md`: the share of each crawler
//!   list classified as a bot, and every User-Agent missed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use botwarden_verify::{
    BotKind, CRAWLER_CATEGORY, Classification, Classifier, ClassifierBot, Error, LIBRARY_CATEGORY,
    SCANNER_CATEGORY, Shape, Source, UAP_CORE_REGEXES, UAP_CORE_VERSION, UaPattern,
};

use crate::ua_corpus::{
    BROWSER_FAMILIES, CRAWLER_LISTS, Case, crawler_list, device_cases, log_user_agents, shared,
    test_bots, ua_cases,
};
use botwarden_testdata::{snapshot, workspace};

fn classifier() -> Classifier {
    Classifier::new(&test_bots(), &[]).expect("the test registry builds")
}

/// `ua-parser` with the embedded uap-core data, as its documentation shows.
fn reference() -> ua_parser::Extractor<'static> {
    let regexes: ua_parser::Regexes<'static> =
        serde_saphyr::from_str(UAP_CORE_REGEXES).expect("the embedded data parses");
    ua_parser::Extractor::try_from(regexes).expect("the embedded data compiles")
}

fn bot_name<'c>(c: &Classification<'c>) -> Option<&'c str> {
    c.bot.map(|b| b.name)
}

const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like \
                      Gecko) Chrome/120.0.0.0 Safari/537.36";

#[test]
fn registered_bots_unregistered_crawlers_libraries_and_browsers() {
    let c = classifier();
    let googlebot =
        c.classify("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)");
    assert_eq!(bot_name(&googlebot), Some("Googlebot"));
    assert_eq!(googlebot.category, Some("search"));
    assert!(matches!(googlebot.source, Some(Source::UapFamily(_))));
    assert_eq!(googlebot.bot.map(|b| b.index), Some(0));

    // uap-core 0.18.0 knows GPTBot only as a generic crawler: the token names it.
    let gptbot = c.classify(
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)",
    );
    assert_eq!(bot_name(&gptbot), Some("GPTBot"));
    assert_eq!(gptbot.category, Some("ai-training"));

    let token = c.classify("Mozilla/5.0 (compatible; ChatGPT-User/1.0; +https://openai.com/bot)");
    assert_eq!(
        (bot_name(&token), token.source),
        (Some("ChatGPT-User"), Some(Source::RobotsToken))
    );

    let image = c.classify("Googlebot-Image/1.0");
    assert_eq!(bot_name(&image), Some("Googlebot-Image"));

    let mj12 = c.classify("Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)");
    assert_eq!((mj12.bot, mj12.category), (None, Some(CRAWLER_CATEGORY)));
    assert!(matches!(mj12.source, Some(Source::UapCrawler(_))));

    for ua in [
        "curl/8.5.0",
        "python-requests/2.31.0",
        "Go-http-client/1.1",
        "Wget/1.21.4",
        "okhttp/4.12.0",
        "libwww-perl/6.72",
    ] {
        let lib = c.classify(ua);
        assert_eq!(
            (lib.bot, lib.category),
            (None, Some(LIBRARY_CATEGORY)),
            "{ua}"
        );
        assert!(matches!(lib.source, Some(Source::UapLibrary(_))), "{ua}");
    }

    for ua in [
        CHROME,
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) \
         Version/17.2 Safari/605.1.15",
        "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like \
         Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
    ] {
        assert_eq!(c.classify(ua), Classification::NOT_A_BOT, "{ua}");
    }
}

#[test]
fn user_agents_without_a_browser_shape_are_unknown_bots() {
    let c = classifier();
    for (ua, shape) in [
        ("", Shape::Empty),
        ("-", Shape::NoLetter),
        ("Mozilla", Shape::SingleWord),
        ("Mozilla/5.0", Shape::LoneProduct),
        ("Mozilla/4.0 (compatible;)", Shape::EmptyComment),
        (
            "Mozilla/5.0 (compatible; Acme/1.0)",
            Shape::CompatibleNotBrowser,
        ),
        ("AcmeTool/3.2", Shape::LoneProduct),
    ] {
        let got = c.classify(ua);
        assert_eq!(
            (got.bot, got.category, got.source, got.kind),
            (
                None,
                Some(CRAWLER_CATEGORY),
                Some(Source::Structure(shape)),
                Some(BotKind::UnknownBot)
            ),
            "{ua:?}"
        );
    }
}

#[test]
fn kinds_of_unregistered_bots() {
    let c = classifier();
    for (ua, kind) in [
        ("libwww-perl/6.1", BotKind::Library),
        ("lwp-request/6.0", BotKind::Library),
        ("Go-http-client/2.0", BotKind::Library),
        (
            "Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)",
            BotKind::Monitor,
        ),
        (
            "Mozilla/5.0 (compatible; SomeSEO Optimizer/1.0)",
            BotKind::Seo,
        ),
        (
            "sqlmap/1.7.2#stable (https://sqlmap.org)",
            BotKind::Security,
        ),
        ("Mozilla/5.0' AND SLEEP(5) AND '1'='1", BotKind::Security),
        ("Acme DCV", BotKind::Security),
        (
            "Mozilla/5.0 (compatible; Acme link preview)",
            BotKind::Preview,
        ),
        (
            "AcmeReader/2.0 (+http://example.com; 12 subscribers)",
            BotKind::Feed,
        ),
        (
            "Mozilla/5.0 (compatible; archive.org_bot)",
            BotKind::Archiver,
        ),
        ("Mozilla/5.0 (compatible; OAI-SearchBot/1.0)", BotKind::Ai),
        ("Mozilla/5.0 (compatible; AcmeSpider/2.0)", BotKind::Crawler),
        (
            "AcmeSurveyAgent/1.0; +info@example.com",
            BotKind::UnknownBot,
        ),
    ] {
        let got = c.classify(ua);
        assert!(got.bot.is_none(), "{ua}: {got:?}");
        assert_eq!(got.kind, Some(kind), "{ua}: {got:?}");
        let category = match kind {
            BotKind::Library => LIBRARY_CATEGORY,
            BotKind::Security => SCANNER_CATEGORY,
            _ => CRAWLER_CATEGORY,
        };
        assert_eq!(got.category, Some(category), "{ua}");
    }
    // A registered bot has its registry category and no kind.
    let googlebot = c.classify("Googlebot-Image/1.0");
    assert_eq!((googlebot.category, googlebot.kind), (Some("search"), None));
}

#[test]
fn explanations_name_the_step_and_the_rule() {
    let c = classifier();
    let text = |ua: &str| c.explain(ua).to_string();
    assert!(
        text("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
            .starts_with("uap-core: parser "),
        "{}",
        text("Googlebot/2.1")
    );
    assert_eq!(
        text("Mozilla/5.0 (compatible; ChatGPT-User/1.0)"),
        "robots token: 'ChatGPT-User'"
    );
    assert_eq!(
        text("Mozilla/5.0 (compatible; AcmeFetcher/1.0)"),
        "vocabulary: product token 'AcmeFetcher/1.0' holds 'fetch'; kind crawler from 'Fetch'"
    );
    assert_eq!(
        text("Acme/1.0 (+info@example.com)"),
        "contact: the e-mail address 'info@example.com'; kind unknown-bot"
    );
    assert_eq!(
        text("Mozilla"),
        "structure: no browser shape (a single word without version); kind unknown-bot"
    );
    assert_eq!(
        text(CHROME),
        "prefilter: no bot literal, and a browser's shape"
    );
    let e = c.explain("curl/8.5.0");
    assert_eq!(e.layer, "uap-core");
    assert!(
        e.rule
            .ends_with("gives the family 'curl', an HTTP library's or tool's"),
        "{e}"
    );
    assert_eq!(e.classification, c.classify("curl/8.5.0"));
}

#[test]
fn in_a_browser_frame_only_a_crawler_s_own_evidence_counts() {
    let c = classifier();
    let bot = |ua: &str| {
        let got = c.classify(ua);
        (got.is_bot(), got.kind)
    };
    // An app's name added to a browser's User-Agent is an in-app browser's,
    // even when a public pattern or an app-like word holds it.
    for ua in [
        "Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) AppleWebKit/537.36 \
         (KHTML, like Gecko) Version/4.0 Chrome/110.0.5481.153 Mobile Safari/537.36 Viber/19.3.0.0",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like \
         Gecko) Mobile/15E148 Flipboard/4.3.2",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) \
         Postman/10.20.0 Chrome/114.0.5735.289 Electron/25.8.4 Safari/537.36",
        // A phone's model is named freely.
        "Mozilla/5.0 (Linux; Android 7.0; M bot 60 Build/NRD90M) AppleWebKit/537.36 (KHTML, like \
         Gecko) Chrome/58.0.3029.83 Mobile Safari/537.36",
        // An app built on a library, an old browser naming its platform.
        "DS podcast/1.0.5 (be.standaard.audio; build:6; Android 10; Sdk:29) OkHttp/4.9.1",
        "NCSA_Mosaic/2.7b5 (X11;Linux 2.6.7 i686) libwww/2.12 modified",
        "Mozilla/3.0 (compatible; NetPositive/2.2.1; BeOS)",
    ] {
        assert_eq!(bot(ua), (false, None), "{ua}: {}", c.explain(ua));
    }
    // A crawler's own evidence counts in a browser's frame, but in a
    // phone's model.
    for (ua, kind) in [
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
             Chrome/120.0.0.0 Safari/537.36 (compatible; AcmeCrawler/1.0)",
            BotKind::Crawler,
        ),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
             HeadlessChrome/120.0.0.0 Safari/537.36",
            BotKind::UnknownBot,
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
             Chrome/120.0.0.0 Safari/537.36 Acme/1.0 (+https://example.com/about)",
            BotKind::UnknownBot,
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
             Chrome/120.0.0.0 Safari/537.36' AND SLEEP(5) AND '1'='1",
            BotKind::Security,
        ),
    ] {
        assert_eq!(bot(ua), (true, Some(kind)), "{ua}: {}", c.explain(ua));
    }
    let googlebot = c.classify(
        "Mozilla/5.0 (Linux; Android 7.0; M bot 60 Build/NRD90M) AppleWebKit/537.36 (KHTML, like \
         Gecko) Chrome/58.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; \
         +http://www.google.com/bot.html)",
    );
    assert_eq!(bot_name(&googlebot), Some("Googlebot"));
}

#[test]
fn scanners_and_attacks_are_not_crawlers() {
    let c = classifier();
    for ua in [
        "sqlmap/1.7.2#stable (https://sqlmap.org)",
        "Mozilla/5.00 (Nikto/2.5.0) (Evasions:None) (Test:Port Check)",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
         Chrome/120.0.0.0 Safari/537.36 Nuclei - Open-source project (github.com/projectdiscovery/nuclei)",
        "Mozilla/5.0 zgrab/0.x",
        "masscan/1.3 (https://github.com/robertdavidgraham/masscan)",
        "Mozilla/5.0 (X11; Linux x86_64) GET /.env HTTP/1.1",
        "x' or '1'='1",
    ] {
        let got = c.classify(ua);
        assert_eq!(
            (got.kind, got.category),
            (Some(BotKind::Security), Some(SCANNER_CATEGORY)),
            "{ua}: {}",
            c.explain(ua)
        );
    }
}

#[test]
fn a_token_names_its_bot_even_inside_another_product() {
    let bots = [
        ClassifierBot {
            name: "Googlebot".into(),
            category: None,
            robots_tokens: vec!["Googlebot".into()],
        },
        ClassifierBot {
            name: "GPTBot".into(),
            category: None,
            robots_tokens: vec!["GPTBot".into()],
        },
    ];
    let c = Classifier::new(&bots, &[]).unwrap();
    // Googlebot-Image is not registered here: its family is a crawler's,
    // and the token Googlebot is in it, on a word boundary.
    let image = c.classify("Googlebot-Image/1.0");
    assert_eq!(
        (bot_name(&image), image.category, image.source),
        (Some("Googlebot"), None, Some(Source::RobotsToken))
    );
    // Not on a word boundary: an unregistered crawler.
    let other = c.classify("NotGPTBot/1.0");
    assert_eq!((other.bot, other.category), (None, Some(CRAWLER_CATEGORY)));
    // uap-core's own Googlebot parser has no word boundary, and families
    // come before tokens.
    let x = c.classify("XGooglebot/1.0");
    assert_eq!(bot_name(&x), Some("Googlebot"));
    assert!(matches!(x.source, Some(Source::UapFamily(_))));
}

#[test]
fn families_name_bots_exactly_then_without_case() {
    let bot = |name: &str| ClassifierBot {
        name: name.into(),
        category: Some(name.to_lowercase()),
        robots_tokens: Vec::new(),
    };
    let ua = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    let c = Classifier::new(&[bot("BingBot"), bot("bingbot")], &[]).unwrap();
    assert_eq!(c.classify(ua).bot.map(|b| b.index), Some(1));
    let c = Classifier::new(&[bot("BINGBOT")], &[]).unwrap();
    assert_eq!(bot_name(&c.classify(ua)), Some("BINGBOT"));
    assert_eq!(c.uap_family(ua).as_deref(), Some("bingbot"));
}

fn pattern(regex: &str, family: Option<&str>) -> UaPattern {
    UaPattern {
        regex: regex.into(),
        family_replacement: family.map(str::to_owned),
    }
}

#[test]
fn extras_come_before_uap_core_and_must_name_a_bot() {
    let bots = test_bots();
    let extras = [
        pattern(r"(?i)\b(gptbot|claudebot)-special\b", None),
        pattern(r"compatible; bingbot/", Some("PerplexityBot")),
        pattern(r"(Applebot)-Ext/(\d+)", Some("$1")),
    ];
    let c = Classifier::new(&bots, &extras).unwrap();
    let special = c.classify("Mozilla/5.0 (compatible; ClaudeBot-Special/1.0)");
    assert_eq!(
        (bot_name(&special), special.source),
        (Some("ClaudeBot"), Some(Source::Extra(0)))
    );
    // Before uap-core's own bingbot parser.
    let bing =
        c.classify("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)");
    assert_eq!(
        (bot_name(&bing), bing.source),
        (Some("PerplexityBot"), Some(Source::Extra(1)))
    );
    let apple = c.classify("Applebot-Ext/3");
    assert_eq!(
        (bot_name(&apple), apple.source),
        (Some("Applebot"), Some(Source::Extra(2)))
    );

    let error = |extras: &[UaPattern]| Classifier::new(&bots, extras).unwrap_err();
    match error(&[
        pattern("fine", Some("Googlebot")),
        pattern("(unclosed", None),
    ]) {
        Error::InvalidUaPattern { index, regex, .. } => {
            assert_eq!((index, regex.as_str()), (1, "(unclosed"));
        }
        e => panic!("{e}"),
    }
    match error(&[pattern(r"(Googlebot|Nobot)/", None)]) {
        Error::UaPatternNamesNoBot { index, family, .. } => {
            assert_eq!((index, family.as_str()), (0, "nobot"));
        }
        e => panic!("{e}"),
    }
    match error(&[pattern("x", Some("Unknown Bot"))]) {
        Error::UaPatternNamesNoBot { family, .. } => assert_eq!(family, "unknown bot"),
        e => panic!("{e}"),
    }
    let e = error(&[pattern(r"([a-z]+bot)/", None)]);
    assert!(e.to_string().contains("too many strings"), "{e}");
    let e = error(&[pattern(r"Googlebot", None)]);
    assert!(matches!(e, Error::UaPatternNamesNoBot { .. }), "{e}");
    let e = error(&[pattern(r"Googlebot", Some("$1"))]);
    assert!(e.to_string().contains("no capture group"), "{e}");
}

/// Every User-Agent of every corpus, without repeats.
fn all_user_agents(shared: &Path) -> Vec<String> {
    let mut seen = HashSet::new();
    let cases = ua_cases(shared)
        .into_iter()
        .chain(device_cases(shared))
        .map(|c| c.user_agent_string);
    let lists = CRAWLER_LISTS.iter().flat_map(|l| crawler_list(shared, l));
    cases
        .chain(lists)
        .chain(log_user_agents(shared))
        .filter(|ua| seen.insert(ua.clone()))
        .collect()
}

#[test]
fn the_prefilter_loses_no_answer_on_any_corpus() {
    let Some(shared) = shared("classification prefilter") else {
        return;
    };
    let uas = all_user_agents(&shared);
    let extras = [
        pattern(r"(?i)\b(gptbot|claudebot)-special\b", None),
        pattern(r"Mozilla/5\.0 \(compatible; (Bytespider)", None),
    ];
    for c in [
        classifier(),
        Classifier::new(&test_bots(), &extras).unwrap(),
    ] {
        assert!(c.has_prefilter());
        let wrong: Vec<String> = uas
            .iter()
            .filter(|ua| c.classify_uncached(ua) != c.classify_exhaustively(ua))
            .map(|ua| {
                format!(
                    "{ua}: {:?} vs {:?}",
                    c.classify_uncached(ua),
                    c.classify_exhaustively(ua)
                )
            })
            .collect();
        assert!(
            wrong.is_empty(),
            "{} answers lost:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
        // Every User-Agent the prefilter rejects is not a bot, and it
        // rejects the many browsers.
        let rejected = uas.iter().filter(|ua| !c.passes_prefilter(ua)).count();
        assert!(
            rejected * 10 >= uas.len() * 7,
            "the prefilter rejects only {rejected} of {}",
            uas.len()
        );
    }
}

#[test]
fn the_cache_answers_as_the_classifier_from_several_threads() {
    let Some(shared) = shared("classification cache") else {
        return;
    };
    let uas: Vec<String> = all_user_agents(&shared).into_iter().step_by(7).collect();
    let plain = classifier();
    let want: Vec<String> = uas
        .iter()
        .map(|ua| format!("{:?}", plain.classify_uncached(ua)))
        .collect();
    // Small, so that it evicts.
    let cached = classifier().with_cache(256);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (cached, uas, want) = (&cached, &uas, &want);
            s.spawn(move || {
                for round in 0..3 {
                    for (i, ua) in uas.iter().enumerate().skip((t + round) % 3) {
                        assert_eq!(format!("{:?}", cached.classify(ua)), want[i], "{ua}");
                    }
                }
            });
        }
    });
    // A User-Agent too long to cache is classified all the same.
    let long = format!("{CHROME} {}", "x".repeat(botwarden_verify::MAX_CACHED_LEN));
    assert_eq!(cached.classify(&long), Classification::NOT_A_BOT);
    let long_bot = format!(
        "Googlebot/2.1 {}",
        "x".repeat(botwarden_verify::MAX_CACHED_LEN)
    );
    assert_eq!(bot_name(&cached.classify(&long_bot)), Some("Googlebot"));
}

/// A family for a case, as uap-core's tests write it.
fn family(v: Option<std::borrow::Cow<'_, str>>) -> String {
    v.map_or_else(|| "Other".to_owned(), std::borrow::Cow::into_owned)
}

#[test]
fn embedded_uap_core_agrees_with_its_tests_except_where_recorded() {
    let Some(shared) = shared("uap-core conformance") else {
        return;
    };
    let reference = reference();
    let c = classifier();
    let mut rows = String::new();
    let mut count = 0;
    for (file, cases, device) in [
        ("test_ua.yaml", ua_cases(&shared), false),
        ("test_device.yaml", device_cases(&shared), true),
    ] {
        for case in cases {
            let ua = &case.user_agent_string;
            let got = if device {
                family(reference.dev.extract(ua).map(|d| d.device))
            } else {
                let got = family(reference.ua.extract(ua).map(|v| v.family));
                // The classifier's own extraction gives the same family.
                assert_eq!(family(c.uap_family(ua)), got, "{ua}");
                got
            };
            if got != case.family {
                count += 1;
                writeln!(rows, "{file}\t{}\t{got}\t{ua}", case.family).unwrap();
            }
        }
    }
    let mut doc = format!(
        "# Cases of uap-core's tests (shared/corpus/ua, from uap-core commit e3c5e634) where\n\
         # ua-parser with the embedded uap-core {UAP_CORE_VERSION} gives another family. Generated by\n\
         # crates/verify/tests/it/classify.rs (rerun with BOTWARDEN_BLESS=1).\n\
         # Reason, for every row: the case was added to uap-core's tests after {UAP_CORE_VERSION}\n\
         # (it is not in {UAP_CORE_VERSION}'s tests) together with a parser that {UAP_CORE_VERSION} lacks;\n\
         # ua-parser with regexes.yaml of commit e3c5e634 gives the expected family for all of them.\n\
         # Disagreements: {count}\n"
    );
    doc.push_str("file\texpected\tgot\tuser_agent\n");
    doc.push_str(&rows);
    snapshot("testdata/conformance/uap-core-tests.tsv", &doc);
}

/// Whether uap-core's expected family marks a crawler: the words of its
/// own generic crawler parsers.
fn crawler_family(family: &str) -> bool {
    let f = family.to_ascii_lowercase();
    [
        "bot", "spider", "crawl", "scrape", "slurp", "archiver", "indexer",
    ]
    .iter()
    .any(|w| f.contains(w))
}

#[test]
fn uap_core_crawlers_are_bots_and_its_browsers_are_not() {
    let Some(shared) = shared("uap-core crawlers and browsers") else {
        return;
    };
    let c = classifier();
    let devices = device_cases(&shared);
    let spiders: HashSet<&str> = devices
        .iter()
        .filter(|d| d.family == "Spider")
        .map(|d| d.user_agent_string.as_str())
        .collect();
    // The cases whose expected family the embedded uap-core release does not
    // give (recorded by the test above) are judged by that release.
    let recorded =
        std::fs::read_to_string(workspace().join("testdata/conformance/uap-core-tests.tsv"))
            .expect("the recorded disagreements");
    let newer: HashSet<&str> = recorded
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.splitn(4, '\t').nth(3))
        .collect();
    assert!(newer.len() > 100);
    let mut wrong = Vec::new();
    let (mut crawlers, mut browsers) = (0, 0);
    for case in ua_cases(&shared) {
        let ua = case.user_agent_string.as_str();
        if newer.contains(ua) {
            continue;
        }
        let got = c.classify(ua);
        if crawler_family(&case.family) || spiders.contains(ua) {
            crawlers += 1;
            if !got.is_bot() {
                wrong.push(format!("crawler {:?} not a bot: {ua}", case.family));
            }
        } else if BROWSER_FAMILIES.contains(&case.family.as_str()) {
            browsers += 1;
            if got.is_bot() {
                wrong.push(format!("browser {:?} a bot ({got:?}): {ua}", case.family));
            }
        }
    }
    for case in &devices {
        if case.family == "Spider" && !newer.contains(case.user_agent_string.as_str()) {
            crawlers += 1;
            if !c.classify(&case.user_agent_string).is_bot() {
                wrong.push(format!(
                    "Spider device not a bot: {}",
                    case.user_agent_string
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The corpus as checked in shared/ (a change is for review).
    assert_eq!((crawlers, browsers), (718, 188));
}

/// Ordinary browsers: uap-core's test User-Agents of browser families,
/// and its device test User-Agents whose family (by ua-parser) is a
/// browser's and whose device is not `Spider`.
pub(crate) fn browsers(shared: &Path) -> Vec<Case> {
    let reference = reference();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for case in ua_cases(shared) {
        if BROWSER_FAMILIES.contains(&case.family.as_str())
            && seen.insert(case.user_agent_string.clone())
        {
            out.push(case);
        }
    }
    for case in device_cases(shared) {
        let family = family(
            reference
                .ua
                .extract(&case.user_agent_string)
                .map(|v| v.family),
        );
        if case.family != "Spider"
            && BROWSER_FAMILIES.contains(&family.as_str())
            && seen.insert(case.user_agent_string.clone())
        {
            out.push(Case {
                user_agent_string: case.user_agent_string,
                family,
            });
        }
    }
    out
}

/// Browser User-Agents classified as bots on purpose, with the reason.
pub(crate) const BROWSER_EXCEPTIONS: &[(&str, &str)] = &[(
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; Google Web Preview) \
     Chrome/27.0 .1453 Safari/537.36.",
    "Google Web Preview is Google's page-preview renderer, not a person's browser: uap-core's \
     device parsers call it Spider, though its browser family is Chrome",
)];

#[test]
fn no_browser_is_a_bot() {
    let Some(shared) = shared("browser false positives") else {
        return;
    };
    let c = classifier();
    let browsers = browsers(&shared);
    let mut wrong = Vec::new();
    for case in &browsers {
        let got = c.classify(&case.user_agent_string);
        let listed = BROWSER_EXCEPTIONS
            .iter()
            .any(|(ua, _)| *ua == case.user_agent_string);
        match (got.is_bot(), listed) {
            (true, false) => wrong.push(format!(
                "{:?} is a bot ({got:?}): {}",
                case.family, case.user_agent_string
            )),
            (false, true) => wrong.push(format!(
                "listed as an exception but not a bot: {}",
                case.user_agent_string
            )),
            _ => {}
        }
    }
    // Browsers and apps with unusual tokens: none is a bot.
    let own = own_browsers();
    assert!(own.len() >= 100, "{}", own.len());
    for ua in &own {
        let got = c.classify(ua);
        if got.is_bot() {
            wrong.push(format!("{ua} is a bot: {}", c.explain(ua)));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} browsers:\n{}",
        wrong.len(),
        browsers.len() + own.len(),
        wrong.join("\n")
    );
    assert!(browsers.len() > 10_000, "{}", browsers.len());
}

/// The least share of each crawler list classified as a bot (registered,
/// or an unregistered bot of any kind), in percent: overall, and by
/// botwarden's own rules alone (without the public crawler-user-agents
/// patterns, which come from the same project as the first list).
pub(crate) const RECALL_FLOORS: [(&str, f64); 3] = [
    ("crawler_uas_monperrus_instances.txt", 90.0),
    ("crawler_uas_arcjet_accepted_instances.txt", 90.0),
    ("crawler_uas_uap_core_device_family_Spider.txt", 90.0),
];

/// The most share of a browser list classified as a bot, in percent.
pub(crate) const BROWSER_CEILING: f64 = 0.5;

/// The browsers and apps of `testdata/conformance/ua-browsers.txt`.
pub(crate) fn own_browsers() -> Vec<String> {
    let file = workspace().join("testdata/conformance/ua-browsers.txt");
    std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// Whether a classification came from botwarden's own rules, not from the
/// public crawler-user-agents patterns.
fn own_rules(c: &Classification<'_>) -> bool {
    c.is_bot() && !matches!(c.source, Some(Source::PublicList(_)))
}

/// The step of a classification, for the tables.
fn step(c: &Classification<'_>) -> &'static str {
    match c.source {
        None => "none",
        Some(Source::Extra(_) | Source::UapFamily(_) | Source::RobotsToken) => "registered",
        Some(Source::UapLibrary(_) | Source::UapCrawler(_) | Source::SpiderDevice) => "uap-core",
        Some(Source::KnownClient | Source::Vocabulary) => "vocabulary",
        Some(Source::ContactUrl | Source::ContactEmail | Source::ContactDomain) => "contact",
        Some(Source::Structure(_)) => "structure",
        Some(Source::PublicList(_)) => "public list",
        Some(_) => "other",
    }
}

/// arcjet's bots: categories and accepted User-Agents.
fn arcjet_bots(shared: &Path) -> Vec<(Vec<String>, Vec<String>)> {
    let file = shared.join("corpus/ua/arcjet__well-known-bots__well-known-bots.json");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let doc: serde_json::Value = serde_json::from_str(&text).expect("arcjet's list parses");
    let strings = |v: Option<&serde_json::Value>| -> Vec<String> {
        v.and_then(serde_json::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    doc.as_array()
        .expect("a list of bots")
        .iter()
        .map(|bot| {
            (
                strings(bot.get("categories")),
                strings(bot.get("instances").and_then(|i| i.get("accepted"))),
            )
        })
        .collect()
}

/// The kind botwarden should give an arcjet category, where one fits.
fn kind_of_category(category: &str) -> Option<BotKind> {
    Some(match category {
        "monitor" => BotKind::Monitor,
        "ai" => BotKind::Ai,
        "programmatic" => BotKind::Library,
        "preview" => BotKind::Preview,
        "feedfetcher" => BotKind::Feed,
        "optimizer" => BotKind::Seo,
        "archive" => BotKind::Archiver,
        _ => return None,
    })
}

#[test]
fn recall_on_public_crawler_lists_and_false_positives_on_browsers() {
    let Some(shared) = shared("crawler recall") else {
        return;
    };
    let c = classifier();
    let mut doc = String::from(
        "# Crawler recall and browser false positives\n\n\
         Generated by `crates/verify/tests/it/classify.rs` (rerun with `BOTWARDEN_BLESS=1`), with\n\
         the test registry of `crates/verify/tests/it/ua_corpus.rs` (18 bots). A User-Agent is\n\
         recognised when it is classified as a registered bot or an unregistered bot of any kind.\n\
         *Own rules* leaves out what only the public crawler-user-agents patterns found: those\n\
         patterns come from the project of the first list, so that list measures them on what\n\
         they were written from; botwarden's own rules (vocabulary, contact, structure) were\n\
         written from the kinds of automated clients, not from the lists' instances, and every\n\
         list measures them held out.\n\n\
         | list | User-Agents | recognised | share | own rules | registered | uap-core | vocabulary | contact | structure | public list |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut misses = String::new();
    let mut failures = Vec::new();
    for (list, floor) in RECALL_FLOORS {
        assert!(CRAWLER_LISTS.contains(&list));
        let uas = crawler_list(&shared, list);
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let mut missed = Vec::new();
        let mut own = 0;
        for ua in &uas {
            let got = c.classify(ua);
            *counts.entry(step(&got)).or_default() += 1;
            if own_rules(&got) {
                own += 1;
            }
            if !got.is_bot() {
                missed.push(ua.as_str());
            }
        }
        let found = uas.len() - missed.len();
        let share = 100.0 * found as f64 / uas.len() as f64;
        let own_share = 100.0 * own as f64 / uas.len() as f64;
        let n = |k: &str| counts.get(k).copied().unwrap_or(0);
        writeln!(
            doc,
            "| {list} | {} | {found} | {share:.1}% | {own_share:.1}% | {} | {} | {} | {} | {} | {} |",
            uas.len(),
            n("registered"),
            n("uap-core"),
            n("vocabulary"),
            n("contact"),
            n("structure"),
            n("public list"),
        )
        .unwrap();
        writeln!(misses, "\n## {list}: {} missed\n", missed.len()).unwrap();
        for ua in missed {
            writeln!(misses, "- `{}`: {}", ua.replace('`', "'"), c.explain(ua)).unwrap();
        }
        if share < floor {
            failures.push(format!("{list}: {share:.1}% < {floor}%"));
        }
        if own_share < floor {
            failures.push(format!("{list}, own rules: {own_share:.1}% < {floor}%"));
        }
    }

    // Per arcjet category: recall, and whether the kind fits.
    doc.push_str(
        "\n## By arcjet's categories\n\n\
         Each bot of arcjet's list in each of its categories; *kind fits*: of the unregistered\n\
         bots of a category that names a kind, those given that kind.\n\n\
         | category | User-Agents | recognised | own rules | kind fits |\n\
         |---|---|---|---|---|\n",
    );
    let mut by_category: BTreeMap<String, (usize, usize, usize, usize, usize)> = BTreeMap::new();
    for (categories, uas) in arcjet_bots(&shared) {
        for ua in &uas {
            let got = c.classify(ua);
            for category in &categories {
                let e = by_category.entry(category.clone()).or_default();
                e.0 += 1;
                e.1 += usize::from(got.is_bot());
                e.2 += usize::from(own_rules(&got));
                if let (Some(want), None, Some(kind)) =
                    (kind_of_category(category), got.bot, got.kind)
                {
                    e.3 += 1;
                    e.4 += usize::from(kind == want);
                }
            }
        }
    }
    for (category, (total, found, own, unregistered, fits)) in &by_category {
        let pct = |a: usize, b: usize| {
            if b == 0 {
                "-".to_owned()
            } else {
                format!("{:.1}%", 100.0 * a as f64 / b as f64)
            }
        };
        writeln!(
            doc,
            "| {category} | {total} | {} | {} | {} |",
            pct(*found, *total),
            pct(*own, *total),
            if kind_of_category(category).is_some() {
                format!("{fits} of {unregistered}")
            } else {
                "-".to_owned()
            }
        )
        .unwrap();
        if *total >= 10 && (*own as f64) < 0.9 * *total as f64 {
            failures.push(format!(
                "arcjet category {category}: own rules {own} of {total}"
            ));
        }
    }

    // Browsers.
    doc.push_str(
        "\n## Browsers classified as bots\n\n\
         | list | User-Agents | bots | share |\n|---|---|---|---|\n",
    );
    let mut browser_bots = String::new();
    let lists = [
        (
            "uap-core tests, browser families",
            browsers(&shared)
                .into_iter()
                .map(|c| c.user_agent_string)
                .collect::<Vec<_>>(),
        ),
        ("testdata/conformance/ua-browsers.txt", own_browsers()),
    ];
    for (name, uas) in &lists {
        let bots: Vec<&String> = uas.iter().filter(|ua| c.classify(ua).is_bot()).collect();
        let share = 100.0 * bots.len() as f64 / uas.len() as f64;
        writeln!(
            doc,
            "| {name} | {} | {} | {share:.2}% |",
            uas.len(),
            bots.len()
        )
        .unwrap();
        for ua in &bots {
            writeln!(
                browser_bots,
                "- {name}: `{}`: {}",
                ua.replace('`', "'"),
                c.explain(ua)
            )
            .unwrap();
        }
        if share > BROWSER_CEILING {
            failures.push(format!("{name}: {share:.2}% of browsers are bots"));
        }
    }
    doc.push('\n');
    doc.push_str(&browser_bots);
    doc.push_str(&misses);
    snapshot("testdata/conformance/ua-crawler-recall.md", &doc);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn classification_is_shareable_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Classifier>();
    let _: HashMap<Classification<'static>, ()> = HashMap::new();
}

#[test]
fn classification_json_is_one_object_with_its_fields_in_order() {
    let c = classifier();
    let ua = "sqlmap/1.7.2#stable (https://sqlmap.org)";
    let class = c.classify(ua);
    let doc = botwarden_verify::ClassificationJson::new(ua, &class, None);
    let text = serde_json::to_string(&doc).expect("JSON");
    assert!(
        text.starts_with(r#"{"bot":null,"category":"scanner","kind":"security","source":"#),
        "{text}"
    );
    assert!(
        text.ends_with(r#","user_agent":"sqlmap/1.7.2#stable (https://sqlmap.org)"}"#),
        "{text}"
    );
    let e = c.explain(ua);
    let doc = botwarden_verify::ClassificationJson::new(ua, &e.classification, Some(&e));
    let text = serde_json::to_string(&doc).expect("JSON");
    let explained = format!(
        r#""explanation":{{"kind_word":"sqlmap","layer":"{}","rule":{},"text":{}}},"kind":"security""#,
        e.layer,
        serde_json::to_string(&e.rule).expect("JSON"),
        serde_json::to_string(&e.to_string()).expect("JSON"),
    );
    assert!(text.contains(&explained), "{text}\n{explained}");
}
