//! uap-core's parser data, embedded, and what botwarden reads into the
//! families it gives.

use std::borrow::Cow;

use ua_parser::user_agent;

/// The uap-core release whose `regexes.yaml` is embedded.
pub const UAP_CORE_VERSION: &str = "0.18.0";

/// uap-core's `regexes.yaml` (release [`UAP_CORE_VERSION`], Apache-2.0;
/// see `crates/verify/data/uap-core/`), as embedded in the library.
pub const UAP_CORE_REGEXES: &str = include_str!("../../data/uap-core/regexes.yaml");

/// The embedded uap-core parsers.
pub(crate) fn regexes() -> Result<ua_parser::Regexes<'static>, String> {
    parse_regexes(UAP_CORE_REGEXES)
}

/// uap-core parsers from a `regexes.yaml` text, read with the bounds of
/// every YAML the crate reads (see `yaml.rs`).
pub(crate) fn parse_regexes(text: &str) -> Result<ua_parser::Regexes<'_>, String> {
    serde_saphyr::from_str_with_options(text, crate::yaml::serde_options())
        .map_err(|e| e.to_string())
}

/// Words that make a family a crawler's (compared without ASCII case):
/// uap-core's own generic crawler patterns are built from them.
pub(crate) const CRAWLER_WORDS: &[&str] = &[
    "bot", "spider", "crawl", "scrape", "archiver", "indexer", "slurp",
];

/// Families of uap-core's crawler lists without one of [`CRAWLER_WORDS`]
/// (lower case), and a few more automated clients. Each is the name of a
/// crawler, a link checker, a feed or preview fetcher, a monitor, a scanner
/// or a headless browser, never of a browser people use or of an app.
pub(crate) const CRAWLER_FAMILIES: &[&str] = &[
    // "Bots Pattern 'name/0.0.0'".
    "008",
    "altresium",
    "argus",
    "axtaris",
    "baidumobaider",
    "boardreader",
    "dnsgroup",
    "dataparksearch",
    "edi",
    "envolk",
    "fetchurl",
    "goodzer",
    "grub",
    "infohelfer",
    "ingrid",
    "isara",
    "looq",
    "nutch",
    "ant-nutch",
    "pathdefender",
    "peew",
    "postpost",
    "shopsalad",
    "sproose",
    "steeler",
    "tailsweep",
    "vse",
    "webcrunch",
    "webzip",
    "wminer",
    "y!j-bri",
    "y!j-brw",
    "yahooseeker",
    // "Bots".
    "50.nu",
    "aboundex",
    "accoona-ai-agent",
    "accoona-biz-agent",
    "adsbot-google",
    "altavista",
    "appengine-google",
    "ask jeeves",
    "bingpreview",
    "blogbridge",
    "bloglovin",
    "boardreader favicon fetcher",
    "boitho.com-dc",
    "bubing",
    "catchpoint",
    "charlotte",
    "checklinks",
    "clumboot",
    "daumoa",
    "daumoa-feedfetcher",
    "feedbin",
    "findlinks",
    "flamingo_searchengine",
    "genieo",
    "gomezagent",
    "gonzo1",
    "google sketchup",
    "grub-client",
    "heritrix",
    "hiddenmarket",
    "holmes",
    "hoowwwer",
    "htdig",
    "icarus6j",
    "ichiro",
    "ichiro/mobile",
    "iconsurf",
    "iltrovatore",
    "iltrovatore-setaccio",
    "infuzapp",
    "internetarchive",
    "kraken",
    "kurzor",
    "larbin",
    "leia",
    "linkaider",
    "llaut",
    "lycos",
    "masscan",
    "mediapartners-google",
    "mogimogi",
    "mozdex",
    "mtps feed aggregation system",
    "netresearch",
    "netvibes",
    "newsgator",
    "newsgatoronline",
    "ning",
    "nymesis",
    "objectssearch",
    "ogscrper",
    "orbiter",
    "pagepeeker",
    "pagesinventory",
    "paxleframework",
    "pompos",
    "qwantify",
    "read%20later",
    "reaper",
    "redcarpet",
    "retreiver",
    "riddler",
    "rival iq",
    "scooter",
    "scrubby",
    "searchsight",
    "semanticdiscovery",
    "seostats",
    "simplepie",
    "simplerss",
    "simpy",
    "sitecon",
    "slack-imgproxy",
    "snappy",
    "squrl java",
    "stringer",
    "thumbshots.ru",
    "tiny tiny rss",
    "url2png",
    "vagabondo",
    "vortex",
    "voyager",
    "web-sniffer",
    "webthumb",
    "whatsapp",
    "whatweb",
    "wire",
    "wordpress",
    "wotbox",
    "www.almaden.ibm.com",
    "xenu link sleuth",
    "xenu's link sleuth",
    "yeti",
    "yottaamonitor",
    "yowedo",
    "zao",
    "zao-crawler",
    "zooshot",
    "zyborg",
    // Static families of the special cases at the top.
    "gmailimageproxy",
    "yahoomailproxy",
    "msiecrawler",
    "datanyze",
    "httpmonitor",
    "tlsprober",
    // Monitors, scanners and headless browsers, found elsewhere in the file.
    "openvas scanner",
    "headlesschrome",
    "phantomjs",
];

/// Families of HTTP client libraries and command-line tools (lower case):
/// automated clients that are not crawlers of their own. Updaters of
/// operating systems and anti-virus products (`Windows-Update-Agent`,
/// `Debian APT-HTTP`, `SophosAgent`, `Microsoft-CryptoAPI`, `jupdate`) are
/// left out: they fetch their vendor's files, not web sites.
pub(crate) const LIBRARY_FAMILIES: &[&str] = &[
    // "Downloader ...".
    "google-http-java-client",
    "apache-httpclient",
    "postmanruntime",
    "go-http-client",
    "scalaj-http",
    "http%20client",
    "python-urllib",
    "winhttp",
    "okhttp",
    "aihttp",
    "reqwest",
    "axios",
    "unirest-java",
    "unirest-python",
    "unirest-ruby",
    "unirest-nodejs",
    "unirest-php",
    "unirest-net",
    // AWS S3 clients.
    "boto",
    "boto3",
    "jets3t",
    "aws-cli",
    "aws-sdk-cpp",
    "aws-sdk-go",
    "aws-sdk-java",
    "aws-sdk-nodejs",
    "aws-sdk-ruby",
    "aws-sdk-ruby2",
    "aws-sdk-dotnet-core",
    "s3fs",
    "minio-go",
    "ibm-cos-sdk-core",
    "ibm-cos-sdk-java",
    "ibm-cos-sdk-js",
    "ibm-cos-sdk-python",
    // Libraries and tools.
    "python requests",
    "python aiohttp",
    "windowspowershell",
    "libcurl-agent",
    "libwww-perl",
    "urlgrabber",
    "curl",
    "pycurl",
    "wget",
    "wget2",
    "aria2",
    "axel",
    "openbsd ftp",
    "lftp",
    "insomnia",
    "fetch libfetch",
    "akka-http",
    "got",
    "reactornetty",
    "jersey",
    "vert.x-webclient",
    "apache-cxf",
    "go-cf-client",
    "go-resty",
    "ahc",
    "httpie",
    "httpclient",
    "lua-resty-http",
    "java",
];

/// What a family tells of its client, unless it is a registered bot's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FamilyKind {
    /// An HTTP library or tool.
    Library,
    /// A crawler.
    Crawler,
}

/// The kind of `family`: libraries first (`Boto3` holds `bot`).
pub(crate) fn family_kind(family: &str) -> Option<FamilyKind> {
    let lower = family.to_ascii_lowercase();
    if LIBRARY_FAMILIES.contains(&lower.as_str()) {
        Some(FamilyKind::Library)
    } else if CRAWLER_FAMILIES.contains(&lower.as_str())
        || CRAWLER_WORDS.iter().any(|w| lower.contains(w))
    {
        Some(FamilyKind::Crawler)
    } else {
        None
    }
}

/// User-Agent parsers whose answer says which parser gave it.
///
/// `ua-parser` tells the family only; to know the parser too, each
/// parser's family template is prefixed with its index and a separator
/// that no template holds (`"12\u{1}$1"`), which resolves to the same
/// family behind the prefix.
pub(crate) struct FamilyParsers {
    extractor: user_agent::Extractor<'static>,
}

/// The separator between a parser's index and its family.
const TAG: char = '\u{1}';

/// One parser as given, with the number of its capture groups.
pub(crate) struct FamilySource<'a> {
    /// The regex.
    pub(crate) regex: &'a str,
    /// `family_replacement`.
    pub(crate) replacement: Option<&'a str>,
    /// Capture groups in `regex`.
    pub(crate) groups: usize,
}

impl FamilyParsers {
    /// Compiles the parsers; an error gives the index of the parser that
    /// failed and why.
    pub(crate) fn new<'a>(
        parsers: impl IntoIterator<Item = FamilySource<'a>>,
    ) -> Result<Self, (usize, String)> {
        let mut builder = user_agent::Builder::new();
        for (i, p) in parsers.into_iter().enumerate() {
            let family = match p.replacement.filter(|r| !r.is_empty()) {
                Some(r) => format!("{i}{TAG}{r}"),
                None if p.groups >= 1 => format!("{i}{TAG}$1"),
                None => format!("{i}{TAG}"),
            };
            builder = builder
                .push(user_agent::Parser {
                    regex: Cow::Owned(p.regex.to_owned()),
                    family_replacement: Some(Cow::Owned(family)),
                    ..Default::default()
                })
                .map_err(|e| (i, describe(&e)))?;
        }
        let extractor = builder.build().map_err(|e| (usize::MAX, e.to_string()))?;
        Ok(Self { extractor })
    }

    /// The index of the first parser that matches `ua`, and its family.
    pub(crate) fn extract<'s>(&'s self, ua: &'s str) -> Option<(usize, Cow<'s, str>)> {
        let value = self.extractor.extract(ua)?;
        let split = |s: &str| {
            s.split_once(TAG)
                .and_then(|(i, rest)| Some((i.parse().ok()?, rest.len())))
        };
        match value.family {
            Cow::Borrowed(s) => {
                let (i, n) = split(s)?;
                Some((i, Cow::Borrowed(&s[s.len() - n..])))
            }
            Cow::Owned(s) => {
                let (i, n) = split(&s)?;
                Some((i, Cow::Owned(s[s.len() - n..].to_owned())))
            }
        }
    }
}

/// A readable message for a parser that does not compile.
pub(crate) fn describe(e: &ua_parser::Error) -> String {
    match e {
        ua_parser::Error::ParseError(p) => p.to_string(),
        ua_parser::Error::BuildError(b) => b.to_string(),
        ua_parser::Error::MissingGroup(g) => {
            format!("family_replacement uses ${g} but the regex has no group {g}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tagged_parsers_give_the_parser_and_its_family() {
        let p = FamilyParsers::new([
            FamilySource {
                regex: r"(Foo)bar",
                replacement: Some("$1 Bar"),
                groups: 1,
            },
            FamilySource {
                regex: r"(Baz)/(\d+)",
                replacement: None,
                groups: 2,
            },
            FamilySource {
                regex: r"Qux",
                replacement: Some("Q"),
                groups: 0,
            },
            FamilySource {
                regex: r"Nothing",
                replacement: None,
                groups: 0,
            },
        ])
        .unwrap();
        assert_eq!(p.extract("a Foobar"), Some((0, "Foo Bar".into())));
        assert_eq!(p.extract("Baz/12"), Some((1, "Baz".into())));
        assert_eq!(p.extract("Qux"), Some((2, "Q".into())));
        assert_eq!(p.extract("Nothing"), Some((3, "".into())));
        assert_eq!(p.extract("Chrome"), None);
    }

    #[test]
    fn kinds_of_families() {
        assert_eq!(family_kind("Googlebot-Image"), Some(FamilyKind::Crawler));
        assert_eq!(family_kind("Sogou web spider"), Some(FamilyKind::Crawler));
        assert_eq!(family_kind("WhatsApp"), Some(FamilyKind::Crawler));
        assert_eq!(family_kind("Boto3"), Some(FamilyKind::Library));
        assert_eq!(family_kind("curl"), Some(FamilyKind::Library));
        assert_eq!(family_kind("Python Requests"), Some(FamilyKind::Library));
        assert_eq!(family_kind("Chrome"), None);
        assert_eq!(family_kind("Mobile Safari"), None);
        assert_eq!(family_kind("Windows-Update-Agent"), None);
    }

    #[test]
    fn regexes_are_read_within_the_yaml_bounds() {
        let mut text = String::from("a0: &a0 [{regex: x}, {regex: x}]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        text.push_str("user_agent_parsers: *a9\n");
        let Err(err) = parse_regexes(&text) else {
            panic!("read past the bounds")
        };
        assert!(err.contains("alias replay limit exceeded"), "{err}");
    }

    #[test]
    fn the_embedded_data_loads() {
        let r = regexes().unwrap();
        assert_eq!(r.user_agent_parsers.len(), 350);
        assert_eq!(r.device_parsers.len(), 628);
        assert_eq!(r.os_parsers.len(), 197);
    }
}
