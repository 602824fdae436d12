//! The classifier with the default registry and extras: real crawler
//! User-Agents name the right bots, no browser is a bot, and recall on the
//! public crawler lists is at least that of the small test registry.

use botwarden_verify::{Classifier, Registry};

use crate::classify::{BROWSER_EXCEPTIONS, RECALL_FLOORS, browsers, own_browsers};
use crate::ua_corpus::{CRAWLER_LISTS, crawler_list, shared};

fn classifier() -> Classifier {
    Classifier::for_registry(&Registry::builtin())
        .expect("the default registry builds a classifier")
}

/// User-Agents as the operators document them, and the bot each names.
const NAMED: &[(&str, &str)] = &[
    (
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Googlebot",
    ),
    (
        "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Googlebot",
    ),
    ("Googlebot-Image/1.0", "Googlebot-Image"),
    (
        "Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)",
        "Google-InspectionTool",
    ),
    (
        "AdsBot-Google (+http://www.google.com/adsbot.html)",
        "AdsBot-Google",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
        "bingbot",
    ),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
        "Applebot",
    ),
    (
        "DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)",
        "DuckDuckBot",
    ),
    (
        "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
        "YandexBot",
    ),
    (
        "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
        "Baiduspider",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        "GPTBot",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
        "ChatGPT-User",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot",
        "OAI-SearchBot",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
        "ClaudeBot",
    ),
    (
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
        "PerplexityBot",
    ),
    ("CCBot/2.0 (https://commoncrawl.org/faq/)", "CCBot"),
    (
        "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
        "AhrefsBot",
    ),
    (
        "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
        "SemrushBot",
    ),
    (
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "facebookexternalhit",
    ),
    ("Twitterbot/1.0", "Twitterbot"),
    (
        "Mozilla/5.0 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)",
        "PetalBot",
    ),
    (
        "Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)",
        "SeznamBot",
    ),
];

#[test]
fn operators_user_agents_name_their_bots() {
    let c = classifier();
    let wrong: Vec<String> = NAMED
        .iter()
        .filter_map(|&(ua, want)| {
            let got = c.classify(ua).bot.map(|b| b.name);
            (got != Some(want)).then(|| format!("{ua}: {got:?}, want {want}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_browser_is_a_bot_with_the_default_registry() {
    let Some(shared) = shared("default registry, browsers") else {
        return;
    };
    let c = classifier();
    let browsers = browsers(&shared);
    let wrong: Vec<String> = browsers
        .iter()
        .filter(|case| {
            c.classify(&case.user_agent_string).is_bot()
                && !BROWSER_EXCEPTIONS
                    .iter()
                    .any(|(ua, _)| *ua == case.user_agent_string)
        })
        .map(|case| format!("{}: {}", case.family, case.user_agent_string))
        .chain(
            own_browsers()
                .into_iter()
                .filter(|ua| c.classify(ua).is_bot())
                .map(|ua| format!("{ua}: {}", c.explain(&ua))),
        )
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        browsers.len(),
        wrong.join("\n")
    );
}

#[test]
fn recall_with_the_default_registry() {
    let Some(shared) = shared("default registry, recall") else {
        return;
    };
    let c = classifier();
    for name in CRAWLER_LISTS {
        let uas = crawler_list(&shared, name);
        let found = uas.iter().filter(|ua| c.classify(ua).is_bot()).count();
        let share = 100.0 * found as f64 / uas.len() as f64;
        let floor = RECALL_FLOORS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
            .unwrap();
        assert!(share >= floor, "{name}: {share:.1}% < {floor}%");
        // Named bots: a good share of each list names a registered bot.
        let named = uas.iter().filter(|ua| c.classify(ua).bot.is_some()).count();
        assert!(named > 0, "{name}: no registered bot named");
    }
}
