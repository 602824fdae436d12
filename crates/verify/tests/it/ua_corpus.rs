//! The User-Agent corpora of `../shared/corpus/ua/` (or
//! `$BOTWARDEN_SHARED/corpus/ua/`), a small hand-written registry, and the
//! browser families taken as ordinary browsers. Shared by the tests and the
//! classification benchmark.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};

use botwarden_verify::ClassifierBot;
use serde::Deserialize;

/// `../shared` with its User-Agent corpora (see [`botwarden_testdata::shared`]).
pub fn shared(suite: &str) -> Option<PathBuf> {
    botwarden_testdata::shared(suite, "corpus/ua")
}

/// The User-Agents of the real Apache access log of `corpus/logs/`, in
/// order (10,000 requests).
pub fn log_user_agents(shared: &Path) -> Vec<String> {
    let file = shared
        .join("corpus/logs/elastic__examples__Common_Data_Formats_apache_logs_apache_logs.log");
    read(&file)
        .lines()
        .filter_map(|l| {
            let l = l.trim_end().strip_suffix('"')?;
            Some(l[l.rfind('"')? + 1..].to_owned())
        })
        .collect()
}

/// The User-Agents of every access log of `corpus/logs/` (the third
/// quoted field of each line: request, referer, User-Agent), with the
/// log's file name, in order; `-` and empty fields left out.
pub fn bundled_log_user_agents(shared: &Path) -> Vec<(String, String)> {
    let dir = shared.join("corpus/logs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let name = file
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for line in String::from_utf8_lossy(&bytes).lines() {
            if let Some(ua) = line.split('"').nth(5)
                && !ua.is_empty()
                && ua != "-"
            {
                out.push((name.clone(), ua.to_owned()));
            }
        }
    }
    out
}

/// One case of uap-core's `tests/test_ua.yaml` or `tests/test_device.yaml`:
/// the User-Agent and the family uap-core expects (a browser's family, or a
/// device's).
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    pub user_agent_string: String,
    pub family: String,
}

#[derive(Deserialize)]
struct Cases {
    test_cases: Vec<Case>,
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The User-Agent cases of uap-core's tests (`test_ua.yaml`).
pub fn ua_cases(shared: &Path) -> Vec<Case> {
    let file = shared.join("corpus/ua/ua-parser__uap-core__tests_test_ua.yaml");
    let cases: Cases = serde_saphyr::from_str(&read(&file)).expect("test_ua.yaml parses");
    cases.test_cases
}

/// The device cases of uap-core's tests (`test_device.yaml`).
pub fn device_cases(shared: &Path) -> Vec<Case> {
    let file = shared.join("corpus/ua/ua-parser__uap-core__tests_test_device.yaml");
    let cases: Cases = serde_saphyr::from_str(&read(&file)).expect("test_device.yaml parses");
    cases.test_cases
}

/// The crawler User-Agent lists, by file name (in `derived/`).
pub const CRAWLER_LISTS: [&str; 3] = [
    "crawler_uas_monperrus_instances.txt",
    "crawler_uas_arcjet_accepted_instances.txt",
    "crawler_uas_uap_core_device_family_Spider.txt",
];

/// The User-Agents of one crawler list.
pub fn crawler_list(shared: &Path, name: &str) -> Vec<String> {
    read(&shared.join("corpus/ua/derived").join(name))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// Families of uap-core's tests that are ordinary browsers people use.
pub const BROWSER_FAMILIES: &[&str] = &[
    "Android",
    "Amazon Silk",
    "Avast Secure Browser",
    "Aloha Browser",
    "Baidu Browser",
    "BlackBerry WebKit",
    "Brave",
    "Chrome",
    "Chrome Mobile",
    "Chrome Mobile iOS",
    "Chrome Mobile WebView",
    "Chromium",
    "Coc Coc",
    "DuckDuckGo Mobile",
    "Edge",
    "Edge Mobile",
    "Firefox",
    "Firefox Beta",
    "Firefox iOS",
    "Firefox Mobile",
    "IE",
    "IE Mobile",
    "Iron",
    "Maxthon",
    "Mobile Safari",
    "Mobile Safari UI/WKWebView",
    "Opera",
    "Opera GX",
    "Opera Mini",
    "Opera Mobile",
    "Opera Touch",
    "Pale Moon",
    "Puffin",
    "QQ Browser",
    "QQ Browser Mobile",
    "Safari",
    "Samsung Internet",
    "Seznam prohlížeč",
    "UC Browser",
    "Vivaldi",
    "Whale",
    "Yandex Browser",
];

fn bot(name: &str, category: &str, tokens: &[&str]) -> ClassifierBot {
    ClassifierBot {
        name: name.into(),
        category: Some(category.into()),
        robots_tokens: tokens.iter().map(|t| (*t).to_owned()).collect(),
    }
}

/// A small registry of well-known crawlers, written for the tests.
pub fn test_bots() -> Vec<ClassifierBot> {
    vec![
        bot("Googlebot", "search", &["Googlebot"]),
        bot("Googlebot-Image", "search", &["Googlebot-Image"]),
        bot("bingbot", "search", &["bingbot", "msnbot"]),
        bot("YandexBot", "search", &["YandexBot"]),
        bot("Baiduspider", "search", &["Baiduspider"]),
        bot("DuckDuckBot", "search", &["DuckDuckBot"]),
        bot("Applebot", "search", &["Applebot"]),
        bot("GPTBot", "ai-training", &["GPTBot"]),
        bot("ChatGPT-User", "ai-user", &["ChatGPT-User"]),
        bot("ClaudeBot", "ai-training", &["ClaudeBot"]),
        bot("PerplexityBot", "ai-search", &["PerplexityBot"]),
        bot("CCBot", "ai-training", &["CCBot"]),
        bot("Bytespider", "ai-training", &["Bytespider"]),
        bot("AhrefsBot", "seo", &["AhrefsBot"]),
        bot("SemrushBot", "seo", &["SemrushBot"]),
        bot(
            "FacebookBot",
            "social",
            &["facebookexternalhit", "FacebookBot"],
        ),
        bot("Twitterbot", "social", &["Twitterbot"]),
        bot("UptimeRobot", "monitor", &["UptimeRobot"]),
    ]
}
