//! The vocabulary of automated clients: words that mark a User-Agent as a
//! bot's (`crawl`, `monitor`, `preview`, `sqlmap`, …) and words that only
//! tell which kind of bot it is (`news`, `status`, `discord`, …).
//!
//! Each word is found without ASCII case, where its boundary allows (see
//! [`Bound`]). Words that mark a bot are literals of the prefilter, so a
//! browser without any of them never reaches this step.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use super::frame::Frame;
use super::kind::BotKind;
use super::literals::Set;

/// Where a word must stand to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Anywhere, inside other words too (`crawl` in `SiteCrawler`).
    Any,
    /// At the start of a word: no ASCII letter or digit before it
    /// (`curl` in `curl/8.0`, `PHP-Curl`, not in `Securly`).
    Start,
    /// At the end of a word: no ASCII letter after it but a plural `s`
    /// (`bot` in `FooBot/1.0`, `foo_bots`, not in `Bottle`).
    End,
    /// A whole word: both of the above.
    Word,
}

/// One word: what it looks like, where it must stand, the kind of client
/// it tells, and whether it alone marks a bot.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Word {
    pub(crate) text: &'static str,
    pub(crate) bound: Bound,
    pub(crate) kind: BotKind,
    /// `true`: the word alone makes the User-Agent a bot's; `false`: it
    /// only tells the kind of one found otherwise.
    pub(crate) marks: bool,
}

const fn w(text: &'static str, bound: Bound, kind: BotKind, marks: bool) -> Word {
    Word {
        text,
        bound,
        kind,
        marks,
    }
}

use BotKind::{Ai, Archiver, Crawler, Feed, Library, Monitor, Preview, Security, Seo, UnknownBot};
use Bound::{Any, End, Start, Word as Whole};

/// The vocabulary, written for botwarden from the kinds of automated
/// clients (not from the test lists' instances). The kind of a User-Agent
/// is that of its word listed first; so specific kinds come first and the
/// generic crawler words last.
pub(crate) const WORDS: &[Word] = &[
    // Injected SQL, script or paths: attacks and fuzzers.
    w("sleep(", Any, Security, true),
    w("select ", Any, Security, true),
    w("union all", Any, Security, true),
    w("union select", Any, Security, true),
    w("' or ", Any, Security, true),
    w("\" or ", Any, Security, true),
    w("' and ", Any, Security, true),
    w("1=1", Any, Security, true),
    w("waitfor delay", Any, Security, true),
    w("benchmark(", Any, Security, true),
    w("<script", Any, Security, true),
    w("javascript:", Any, Security, true),
    w("${", Any, Security, true),
    w("../", Any, Security, true),
    w("/etc/passwd", Any, Security, true),
    w("/.env", Any, Security, true),
    w("/.git/", Any, Security, true),
    w("() {", Any, Security, true),
    w("xp_cmdshell", Any, Security, true),
    w("information_schema", Any, Security, true),
    w("extractvalue(", Any, Security, true),
    w("%27", Any, Security, true),
    w("%3c", Any, Security, true),
    // Scanners, fuzzers and certificate validation.
    w("scan", Any, Security, true),
    w("security", End, Security, true),
    w("vuln", Any, Security, true),
    w("sqlmap", Any, Security, true),
    w("nikto", Any, Security, true),
    w("nuclei", Any, Security, true),
    w("nmap", Start, Security, true),
    w("zgrab", Any, Security, true),
    w("masscan", Any, Security, true),
    w("buster", Any, Security, true),
    w("dirb", Start, Security, true),
    w("fuzz", Any, Security, true),
    w("ffuf", Whole, Security, true),
    w("acunetix", Any, Security, true),
    w("netsparker", Any, Security, true),
    w("burp", Start, Security, true),
    w("qualys", Any, Security, true),
    w("openvas", Any, Security, true),
    w("nessus", Any, Security, true),
    w("w3af", Any, Security, true),
    w("zmeu", Any, Security, true),
    w("morfeus", Any, Security, true),
    w("censys", Any, Security, true),
    w("shodan", Any, Security, true),
    w("leakix", Any, Security, true),
    w("internet-measurement", Any, Security, true),
    w("exploit", Any, Security, true),
    w("pentest", Any, Security, true),
    w("detectify", Any, Security, true),
    w("whatweb", Any, Security, true),
    w("arachni", Any, Security, true),
    w("skipfish", Any, Security, true),
    w("hardenize", Any, Security, true),
    w("ssllabs", Any, Security, true),
    w("ssl labs", Any, Security, true),
    w("dcv", Whole, Security, true),
    w("certificate", Any, Security, true),
    w("let's encrypt", Any, Security, true),
    w("letsencrypt", Any, Security, true),
    w("probe", Any, Security, false),
    w("cert", Start, Security, false),
    // AI crawlers, assistants and agents.
    w("gpt", Start, Ai, true),
    w("chatgpt", Any, Ai, true),
    w("oai-", Start, Ai, true),
    w("openai", Any, Ai, true),
    w("claude", Any, Ai, true),
    w("anthropic", Any, Ai, true),
    w("perplexity", Any, Ai, true),
    w("cohere", Any, Ai, true),
    w("mistralai", Any, Ai, true),
    w("meta-external", Any, Ai, true),
    w("google-extended", Any, Ai, true),
    w("diffbot", Any, Ai, true),
    w("bytespider", Any, Ai, true),
    w("ccbot", Any, Ai, true),
    w("ai2bot", Any, Ai, true),
    w("img2dataset", Any, Ai, true),
    w("duckassist", Any, Ai, true),
    w("firecrawl", Any, Ai, true),
    w("crawl4ai", Any, Ai, true),
    w("deepseek", Any, Ai, true),
    w("huggingface", Any, Ai, true),
    w("cursor/", Start, Ai, true),
    w("llm", Whole, Ai, true),
    w("manus", Whole, Ai, false),
    w("gemini", Any, Ai, false),
    w("grok", Whole, Ai, false),
    // Monitors.
    w("monitor", Any, Monitor, true),
    w("uptime", Any, Monitor, true),
    w("pingdom", Any, Monitor, true),
    w("statuscake", Any, Monitor, true),
    w("24x7", Any, Monitor, true),
    w("synthetic", Any, Monitor, true),
    w("healthcheck", Any, Monitor, true),
    w("health-check", Any, Monitor, true),
    w("health check", Any, Monitor, true),
    w("newrelic", Any, Monitor, true),
    w("datadog", Any, Monitor, true),
    w("catchpoint", Any, Monitor, true),
    w("webpagetest", Any, Monitor, true),
    w("ptst/", Start, Monitor, true),
    w("speedcurve", Any, Monitor, true),
    w("dareboost", Any, Monitor, true),
    w("gtmetrix", Any, Monitor, true),
    w("lighthouse", Any, Monitor, true),
    w("pagespeed", Any, Monitor, true),
    w("page speed", Any, Monitor, true),
    w("pagerenderer", Any, Monitor, true),
    w("thousandeyes", Any, Monitor, true),
    w("alertsite", Any, Monitor, true),
    w("nagios", Any, Monitor, true),
    w("zabbix", Any, Monitor, true),
    w("prometheus", Any, Monitor, true),
    w("blackbox", Any, Monitor, true),
    w("hetrix", Any, Monitor, true),
    w("freshping", Any, Monitor, true),
    w("uptrends", Any, Monitor, true),
    w("site24", Any, Monitor, true),
    w("measure", Any, Monitor, true),
    w("kube-probe", Any, Monitor, true),
    w("stackdriver", Any, Monitor, true),
    w("check", End, Monitor, true),
    w("health", Start, Monitor, false),
    w("status", Start, Monitor, false),
    w("ping", Whole, Monitor, false),
    w("alert", Start, Monitor, false),
    // SEO audits, link checkers, validators.
    w("seo", Any, Seo, true),
    w("audit", Any, Seo, true),
    w("analyzer", Any, Seo, true),
    w("analyser", Any, Seo, true),
    w("optimiz", Any, Seo, true),
    w("backlink", Any, Seo, true),
    w("ahrefs", Any, Seo, true),
    w("semrush", Any, Seo, true),
    w("majestic", Any, Seo, true),
    w("screaming frog", Any, Seo, true),
    w("sitebulb", Any, Seo, true),
    w("serpstat", Any, Seo, true),
    w("sistrix", Any, Seo, true),
    w("siteimprove", Any, Seo, true),
    w("linkcheck", Any, Seo, true),
    w("link check", Any, Seo, true),
    w("link-check", Any, Seo, true),
    w("checker", Any, Seo, true),
    w("validator", Any, Seo, true),
    w("w3c", Start, Seo, true),
    w("xenu", Any, Seo, true),
    w("grader", Any, Seo, true),
    w("insight", Any, Seo, true),
    w("search console", Any, Seo, true),
    w("structured-data", Any, Seo, true),
    w("site-verification", Any, Seo, true),
    w("inspectiontool", Any, Seo, true),
    w("inspect", Any, Seo, true),
    w("serp", Start, Seo, false),
    w("rank", Start, Seo, false),
    w("keyword", Any, Seo, false),
    w("marketing", Any, Seo, false),
    // Link previews and unfurlers.
    w("preview", Any, Preview, true),
    w("unfurl", Any, Preview, true),
    w("embedly", Any, Preview, true),
    w("iframely", Any, Preview, true),
    w("externalhit", Any, Preview, true),
    w("whatsapp/", Start, Preview, true),
    w("favicon", Any, Preview, true),
    w("thumbnail", Any, Preview, true),
    w("screenshot", Any, Preview, true),
    w("snippet", Any, Preview, true),
    w("opengraph", Any, Preview, true),
    w("vkshare", Any, Preview, true),
    w("read-aloud", Any, Preview, true),
    w("embed", Start, Preview, false),
    w("telegram", Start, Preview, false),
    w("discord", Start, Preview, false),
    w("slack", Start, Preview, false),
    w("skype", Start, Preview, false),
    w("linkedin", Start, Preview, false),
    w("pinterest", Start, Preview, false),
    w("twitter", Start, Preview, false),
    w("mastodon", Any, Preview, false),
    w("pleroma", Any, Preview, false),
    w("akkoma", Any, Preview, false),
    w("misskey", Any, Preview, false),
    w("gotosocial", Any, Preview, false),
    w("bluesky", Any, Preview, false),
    w("viber", Start, Preview, false),
    w("snapchat", Start, Preview, false),
    // Feed readers and aggregators.
    w("feed", Any, Feed, true),
    w("rss", End, Feed, true),
    w("subscriber", Any, Feed, true),
    w("aggregator", Any, Feed, true),
    w("syndicat", Any, Feed, true),
    w("pubsub", Any, Feed, true),
    w("newsblur", Any, Feed, true),
    w("inoreader", Any, Feed, true),
    w("netnewswire", Any, Feed, true),
    w("miniflux", Any, Feed, true),
    w("superfeedr", Any, Feed, true),
    w("blogtrottr", Any, Feed, true),
    w("flipboard", Any, Feed, true),
    w("podcast", Any, Feed, false),
    w("news", Start, Feed, false),
    w("reader", Any, Feed, false),
    w("atom", Whole, Feed, false),
    w("blog", Start, Feed, false),
    // Archivers and site downloaders.
    w("archiv", Any, Archiver, true),
    w("heritrix", Any, Archiver, true),
    w("wayback", Any, Archiver, true),
    w("webrecorder", Any, Archiver, true),
    w("httrack", Any, Archiver, true),
    w("warcprox", Any, Archiver, true),
    w("brozzler", Any, Archiver, true),
    w("webcopier", Any, Archiver, true),
    w("sitesucker", Any, Archiver, true),
    w("offline", Start, Archiver, true),
    w("download", Any, Archiver, true),
    w("mirror", Start, Archiver, false),
    // Crawlers: the generic words.
    w("bot", End, Crawler, true),
    w("crawl", Any, Crawler, true),
    w("spider", Any, Crawler, true),
    w("scrape", Any, Crawler, true),
    w("slurp", Any, Crawler, true),
    w("robot", Any, Crawler, true),
    w("indexer", Any, Crawler, true),
    w("harvest", Any, Crawler, true),
    w("fetch", Any, Crawler, true),
    w("grabber", Any, Crawler, true),
    w("extractor", Any, Crawler, true),
    w("retriever", Any, Crawler, true),
    w("discovery", Any, Crawler, true),
    w("collector", Any, Crawler, true),
    w("parser", Any, Crawler, true),
    w("classifier", Any, Crawler, true),
    w("capture", Any, Crawler, true),
    w("google-", Start, Crawler, true),
    w("-google", End, Crawler, true),
    w("googleother", Any, Crawler, true),
    w("nutch", Any, Crawler, true),
    w("sogou", Any, Crawler, true),
    w("search", Start, Crawler, false),
    // HTTP libraries and tools.
    w("http", Start, Library, true),
    w("curl", Start, Library, true),
    w("wget", Start, Library, true),
    w("python", Start, Library, true),
    w("perl", Whole, Library, true),
    w("libwww", Any, Library, true),
    w("lwp", Start, Library, true),
    w("urllib", Any, Library, true),
    w("php", Start, Library, true),
    w("java/", Start, Library, true),
    w("java-", Start, Library, true),
    w("ruby/", Start, Library, true),
    w("node", Whole, Library, true),
    w("axios", Any, Library, true),
    w("okhttp", Any, Library, true),
    w("aiohttp", Any, Library, true),
    w("reqwest", Any, Library, true),
    w("hyper/", Start, Library, true),
    w("winhttp", Any, Library, true),
    w("cryptoapi", Any, Library, true),
    w("microsoft bits", Any, Library, true),
    w("guzzle", Any, Library, true),
    w("restsharp", Any, Library, true),
    w("rest-client", Any, Library, true),
    w("postman", Any, Library, true),
    w("insomnia", Any, Library, true),
    w("powershell", Any, Library, true),
    w("mechanize", Any, Library, true),
    w("htmlunit", Any, Library, true),
    w("jsoup", Any, Library, true),
    w("unirest", Any, Library, true),
    w("superagent", Any, Library, true),
    w("aws-sdk", Any, Library, true),
    w("apache-", Start, Library, true),
    w("jakarta", Any, Library, true),
    w("library", Any, Library, false),
    w("deno/", Start, Library, true),
    w("bun/", Start, Library, true),
    w("ktor", Start, Library, true),
    w("symfony", Any, Library, true),
    w("zend", Start, Library, true),
    // Automated clients of no more precise kind.
    w("headless", Any, UnknownBot, true),
    w("phantomjs", Any, UnknownBot, true),
    w("puppeteer", Any, UnknownBot, true),
    w("playwright", Any, UnknownBot, true),
    w("selenium", Any, UnknownBot, true),
    w("webdriver", Any, UnknownBot, true),
    w("cypress", Any, UnknownBot, true),
    w("splash", Any, UnknownBot, true),
    w("proxy", End, UnknownBot, true),
    w("abuse", Any, UnknownBot, true),
    w("automat", Any, UnknownBot, true),
    w("workflow", Any, UnknownBot, true),
    w("zapier", Any, UnknownBot, true),
    w("ifttt", Any, UnknownBot, true),
    w("agent", End, UnknownBot, true),
];

/// Marking words that apps' names hold too (`Flipboard/4.3`,
/// `SogouMobileBrowser/5.6`, `AndroidDownloadManager/9 (Linux; U; Android
/// 9; …)`, `QQDownload 691`, `UCMini/10.9 (SpeedMode; Proxy; …)`, a smart
/// TV's `VIDAA/5.0(MAJESTIC;SmartTV;…)`, the `Cursor/0.42` editor): they
/// mark a bot
/// only in a User-Agent without a browser's or app's frame
/// ([`Frame`](super::frame::Frame)). So do the words of HTTP libraries,
/// which apps are built on (`Podcast/1.0 (…; Android 10) OkHttp/4.9`,
/// `NCSA_Mosaic/2.7 (X11; Linux) libwww/2.12`, `Postman/10.20 … Electron`).
pub(crate) const WEAK: &[&str] = &[
    "cursor/",
    "majestic",
    "flipboard",
    "feed",
    "rss",
    "newsblur",
    "inoreader",
    "netnewswire",
    "miniflux",
    "syndicat",
    "blogtrottr",
    "download",
    "sogou",
    "proxy",
];

/// A word found in a User-Agent: its index in [`WORDS`], and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) word: usize,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// Whether a byte is part of a word for [`Bound`].
fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Exceptions to single words, where a known non-bot word holds them.
fn excepted(text: &str, bytes: &[u8], start: usize, end: usize) -> bool {
    let before = |s: &str| {
        start >= s.len() && bytes[start - s.len()..start].eq_ignore_ascii_case(s.as_bytes())
    };
    let after = |s: &str| {
        bytes
            .get(end..end + s.len())
            .is_some_and(|a| a.eq_ignore_ascii_case(s.as_bytes()))
    };
    match text {
        // Cubot phones; the camera scanner apps.
        "bot" => before("cu"),
        "scan" => before("cam"),
        // URLs are the contact rule's; `HTTP` and `HTTPS` alone are the
        // protocol (`WAP Browser/MAUI (HTTP PGDL;HTTPS)`), not a library's
        // name (`HttpClient`, `http.rb`, `Go-http-client`).
        "http" => {
            after("://")
                || after("s")
                || bytes
                    .get(end)
                    .is_none_or(|b| !(b.is_ascii_alphabetic() || b"-_.%".contains(b)))
        }
        // CERN's library of the first browsers (`amaya/9.51 libwww/5.4.0`,
        // `NCSA_Mosaic/2.7b5 (X11; …) libwww/2.12`) and Lynx's
        // (`Lynx/2.8.9rel.1 libwww-FM/2.14`); not `libwww-perl`.
        "libwww" => after("/") || after("-FM"),
        // Old phones' Java runtimes (`Java/ASVM/1.1 Profile/MIDP-2.1`).
        "java/" => contains(bytes, b"MIDP"),
        // App builds (`clientidbase=android-google`).
        "-google" => before("android"),
        // A header line sent as the value (`User-Agent: Mozilla/5.0 …`).
        "agent" => before("user-"),
        // Seoul.
        "seo" => after("ul"),
        _ => false,
    }
}

/// Whether `haystack` holds `needle`, as is.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The vocabulary, compiled.
pub(crate) struct Vocabulary {
    automaton: AhoCorasick,
    /// By word: whether it marks a bot only outside a browser's or app's
    /// frame (a library's word, or one of [`WEAK`]).
    weak: Vec<bool>,
}

impl Vocabulary {
    pub(crate) fn new() -> Result<Self, aho_corasick::BuildError> {
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(WORDS.iter().map(|w| w.text))?;
        let weak = WORDS
            .iter()
            .map(|w| w.kind == BotKind::Library || WEAK.contains(&w.text))
            .collect();
        Ok(Self { automaton, weak })
    }

    /// The words (lower case) one of which a User-Agent must hold to be
    /// marked by the vocabulary.
    pub(crate) fn literals() -> Set {
        WORDS
            .iter()
            .filter(|w| w.marks)
            .map(|w| w.text.to_ascii_lowercase().into_bytes())
            .collect()
    }

    /// Every word found where its boundary allows, in order of position.
    fn found<'a>(&'a self, ua: &'a str) -> impl Iterator<Item = Found> + 'a {
        let bytes = ua.as_bytes();
        self.automaton
            .find_overlapping_iter(ua)
            .filter_map(move |m| {
                let word = m.pattern().as_usize();
                let spec = WORDS[word];
                let (start, end) = (m.start(), m.end());
                let first = spec.text.as_bytes()[0];
                let last = spec.text.as_bytes()[spec.text.len() - 1];
                // A boundary only matters next to a letter or digit of the word.
                let starts = !alnum(first) || start == 0 || !alnum(bytes[start - 1]);
                let ends = !alnum(last)
                    || match bytes.get(end) {
                        None => true,
                        Some(b's' | b'S') => {
                            bytes.get(end + 1).is_none_or(|b| !b.is_ascii_alphabetic())
                        }
                        Some(b) => !b.is_ascii_alphabetic(),
                    };
                let ok = match spec.bound {
                    Bound::Any => true,
                    Bound::Start => starts,
                    Bound::End => ends,
                    Bound::Word => starts && ends,
                };
                (ok && !excepted(spec.text, bytes, start, end)).then_some(Found {
                    word,
                    start,
                    end,
                })
            })
    }

    /// The first word (by position) that marks a bot in this frame: not in
    /// a phone's model, and not a weak word in a browser's or app's frame.
    pub(crate) fn marking(&self, ua: &str, frame: &Frame) -> Option<Found> {
        self.found(ua).find(|f| {
            WORDS[f.word].marks
                && !frame.in_device(&(f.start..f.end))
                && !(frame.kind.is_some() && self.weak[f.word])
        })
    }

    /// Whether `text` holds a word that marks a bot even in an app's
    /// frame: a bot's or a library's (an app's own name holds neither).
    pub(crate) fn names_a_bot(&self, text: &str) -> bool {
        self.found(text).any(|f| {
            let word = WORDS[f.word];
            word.marks && (word.kind == BotKind::Library || !self.weak[f.word])
        })
    }

    /// The kind the words tell (but those of a phone's model): that of
    /// the word listed first.
    pub(crate) fn kind(&self, ua: &str, frame: &Frame) -> Option<(BotKind, Found)> {
        self.found(ua)
            .filter(|f| !frame.in_device(&(f.start..f.end)))
            .min_by_key(|f| f.word)
            .map(|f| (WORDS[f.word].kind, f))
    }
}

/// The product token or comment entry around `start..end`: the bytes up to
/// the nearest space, `;`, `(`, `)` or `,` on either side (spaces inside a
/// word of several, like `ssl labs`, are kept).
pub(crate) fn token_around(ua: &str, start: usize, end: usize) -> &str {
    let bytes = ua.as_bytes();
    let stop = |b: u8| matches!(b, b' ' | b';' | b'(' | b')' | b',' | b'\t');
    let mut s = start;
    while s > 0 && !stop(bytes[s - 1]) {
        s -= 1;
    }
    let mut e = end;
    while e < bytes.len() && !stop(bytes[e]) {
        e += 1;
    }
    // Both ends are at ASCII bytes or the string's ends: char boundaries.
    ua.get(s..e).unwrap_or(&ua[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marking(ua: &str) -> Option<&'static str> {
        let v = Vocabulary::new().unwrap();
        v.marking(ua, &Frame::default()).map(|f| WORDS[f.word].text)
    }

    #[test]
    fn words_stand_where_their_bounds_allow() {
        assert_eq!(marking("FooBot/1.0"), Some("bot"));
        assert_eq!(marking("foo_bots"), Some("bot"));
        assert_eq!(marking("Bottle/1.0"), None);
        assert_eq!(marking("Mozilla/5.0 (Linux; Android 9; CUBOT X19)"), None);
        assert_eq!(marking("CamScanner/6.0"), None);
        assert_eq!(marking("PHP-Curl-Class/4.1"), Some("php"));
        assert_eq!(marking("Securly/1.0"), None);
        assert_eq!(marking("Foo (+https://example.com)"), None);
        assert_eq!(marking("HttpClient/4.5"), Some("http"));
        assert_eq!(marking("Mozilla/5.0 (Linux; Seoul)"), None);
        assert_eq!(marking("lwp-request/6.0"), Some("lwp"));
        assert_eq!(marking("x' or '1'='1"), Some("' or "));
    }

    #[test]
    fn kinds_follow_the_list_order() {
        let v = Vocabulary::new().unwrap();
        let kind = |ua: &str| v.kind(ua, &Frame::default()).map(|(k, _)| k);
        assert_eq!(kind("Pingdom.com_bot_version_1.4"), Some(Monitor));
        assert_eq!(kind("FeedFetcher-Google"), Some(Feed));
        assert_eq!(kind("SiteAuditBot/0.97"), Some(Seo));
        assert_eq!(kind("Wget/1.21"), Some(Library));
        assert_eq!(kind("Mozilla/5.0 Chrome/120.0 Safari/537.36"), None);
    }

    #[test]
    fn the_token_around_a_word() {
        let ua = "Mozilla/5.0 (compatible; FooBot/1.0; +http://x)";
        let at = ua.find("Bot").unwrap();
        assert_eq!(token_around(ua, at, at + 3), "FooBot/1.0");
        assert_eq!(token_around("bot", 0, 3), "bot");
    }
}
