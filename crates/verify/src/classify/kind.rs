//! The kinds of automated client an unregistered User-Agent is taken for.

use std::fmt;

/// What kind of automated client an unregistered User-Agent speaks for.
///
/// Given for every bot the registry does not know; a registered bot has
/// its registry category instead. The kind is read from the User-Agent's
/// words (`Pingdom` is a monitor, `sqlmap` a security scanner) after the
/// classifier decided that it is a bot at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum BotKind {
    /// A crawler: its name holds `bot`, `crawl`, `spider`, … or uap-core
    /// lists it as a crawler.
    Crawler,
    /// An HTTP client library or command-line tool (curl, Wget,
    /// python-requests, Go-http-client, okhttp, …).
    Library,
    /// An uptime, performance or synthetic monitor.
    Monitor,
    /// An SEO audit, link checker or site analyser.
    Seo,
    /// A security scanner, fuzzer, certificate validator or attack tool
    /// (including User-Agents that carry injected SQL or script).
    Security,
    /// A link previewer or unfurler (chat apps, social networks).
    Preview,
    /// A feed reader or aggregator.
    Feed,
    /// A web archiver or site downloader.
    Archiver,
    /// An AI crawler, assistant or agent.
    Ai,
    /// An automated client of no more precise kind: a contact address, or
    /// a User-Agent that has no browser's shape.
    UnknownBot,
}

impl BotKind {
    /// Every kind, in order.
    pub const ALL: [BotKind; 10] = [
        BotKind::Crawler,
        BotKind::Library,
        BotKind::Monitor,
        BotKind::Seo,
        BotKind::Security,
        BotKind::Preview,
        BotKind::Feed,
        BotKind::Archiver,
        BotKind::Ai,
        BotKind::UnknownBot,
    ];

    /// The kind's name, as in JSON output: `crawler`, `library`,
    /// `monitor`, `seo`, `security`, `preview`, `feed`, `archiver`, `ai`,
    /// `unknown-bot`.
    pub fn as_str(self) -> &'static str {
        match self {
            BotKind::Crawler => "crawler",
            BotKind::Library => "library",
            BotKind::Monitor => "monitor",
            BotKind::Seo => "seo",
            BotKind::Security => "security",
            BotKind::Preview => "preview",
            BotKind::Feed => "feed",
            BotKind::Archiver => "archiver",
            BotKind::Ai => "ai",
            BotKind::UnknownBot => "unknown-bot",
        }
    }
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
