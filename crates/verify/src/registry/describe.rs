//! One bot in words, as `botwarden bots registry show NAME` prints it: what
//! it is, how it is verified (with the feed at hand), and where each fact
//! comes from.

use std::fmt;

use super::{Bot, Feed, ProvenanceOf, Registry};

/// A bot in words: its category and Cloudflare class, operator, page,
/// robots tokens, where the entry was read, each verification method (a
/// published feed with the copy at hand and its refresh period), and its
/// provenance records. Made by [`Registry::describe`].
#[derive(Debug, Clone, Copy)]
pub struct BotDescription<'a> {
    bot: &'a Bot,
    feed: Option<&'a Feed>,
}

impl Registry {
    /// `bot` in words, with the copy of its feed this registry holds.
    #[must_use]
    pub fn describe<'a>(&'a self, bot: &'a Bot) -> BotDescription<'a> {
        let feed = bot.ranges_url.as_deref().and_then(|u| self.ranges().get(u));
        BotDescription { bot, feed }
    }
}

/// The width of the labels of the first column.
const LABEL: usize = 14;

fn line(f: &mut fmt::Formatter<'_>, label: &str, text: impl fmt::Display) -> fmt::Result {
    writeln!(f, "  {label:<LABEL$}{text}")
}

fn list(items: &[String]) -> String {
    items.join(", ")
}

impl fmt::Display for BotDescription<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bot = self.bot;
        writeln!(f, "{}", bot.name)?;
        match bot.category {
            Some(c) => {
                let class = c.cloudflare_class().map_or_else(
                    || "none of Search, Agent, Training".to_owned(),
                    |k| k.to_string(),
                );
                line(f, "category", format_args!("{c} (Cloudflare: {class})"))?;
            }
            None => line(f, "category", "-")?,
        }
        line(f, "operator", bot.operator.as_deref().unwrap_or("-"))?;
        line(f, "url", bot.url.as_deref().unwrap_or("-"))?;
        let tokens = if bot.robots_tokens.is_empty() {
            "- (no robots.txt token)".to_owned()
        } else {
            list(&bot.robots_tokens)
        };
        line(f, "robots.txt", tokens)?;
        let renders = match bot.renders {
            Some(true) => "yes: it runs the pages' scripts",
            Some(false) => "no: it reads the HTML only",
            None => "- (no source says)",
        };
        line(f, "renders", renders)?;
        line(f, "read from", &bot.origin)?;
        self.methods(f)?;
        if bot.provenance.is_empty() {
            line(f, "provenance", "- (none recorded)")?;
        } else {
            writeln!(f, "  provenance")?;
            for p in &bot.provenance {
                let listed = p
                    .listed_as
                    .as_deref()
                    .map(|n| format!(", as {n}"))
                    .unwrap_or_default();
                writeln!(
                    f,
                    "    {:<18}{}{listed} (confirmed {})",
                    p.of.as_str(),
                    p.source,
                    p.confirmed
                )?;
            }
        }
        Ok(())
    }
}

impl BotDescription<'_> {
    /// A line for each verification method, or that there is none.
    fn methods(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bot = self.bot;
        let methods = bot.methods();
        if methods.is_empty() {
            return line(
                f,
                "verification",
                "none: the operator documents no method, so the bot is unverifiable",
            );
        }
        let mut label = "verification";
        let mut next = |f: &mut fmt::Formatter<'_>, text: String| -> fmt::Result {
            let out = line(f, label, text);
            label = "";
            out
        };
        if let Some(url) = &bot.ranges_url {
            let copy = match self.feed {
                Some(feed) => {
                    let source = if feed.source == "snapshot" {
                        "the built-in snapshot".to_owned()
                    } else {
                        match &feed.fetched {
                            Some(at) => format!("fetched {at}"),
                            None => feed.source.clone(),
                        }
                    };
                    format!(
                        "{} prefixes of {} ({source})",
                        feed.prefixes.len(),
                        feed.version()
                    )
                }
                None => "no copy yet: run `botwarden bots update`".to_owned(),
            };
            let refresh = match bot.ranges_refresh {
                Some(p) => format!("refreshed every {p}"),
                None => format!("refresh period {} (default)", bot.refresh_period()),
            };
            next(
                f,
                format!("published ranges {url} ({copy}); {refresh}; verifies on its own"),
            )?;
        }
        let mut all = Vec::new();
        if let Some(hosts) = &bot.fcrdns_hosts {
            let hosts = if hosts.is_empty() {
                "any host name".to_owned()
            } else {
                format!("a name under {}", list(hosts))
            };
            let masks = if bot.rdns_masks.is_empty() {
                String::new()
            } else {
                format!(" matching {}", list(&bot.rdns_masks))
            };
            all.push(format!("forward-confirmed reverse DNS: {hosts}{masks}"));
        }
        if let Some(ips) = &bot.ip_list {
            all.push(format!("one of {} addresses (ip_list)", ips.len()));
        }
        if let Some(ranges) = &bot.ip_ranges {
            all.push(format!("in one of {} ranges (ip_ranges)", ranges.len()));
        }
        if let Some(cidrs) = &bot.cidr_list {
            all.push(format!("in one of {} blocks (cidr_list)", cidrs.len()));
        }
        // The bottica verifiers are ANDed, and an alternative to the feed.
        let or = if bot.ranges_url.is_some() { "or " } else { "" };
        match all.len() {
            0 => {}
            1 => next(f, format!("{or}{}", all.remove(0)))?,
            _ => next(f, format!("{or}all of: {}", all.join("; ")))?,
        }
        if methods.contains(&ProvenanceOf::SignatureAgents)
            || methods.contains(&ProvenanceOf::SignatureKeys)
        {
            let mut keys = bot.signature_agents.clone();
            if !bot.signature_keys.is_empty() {
                keys.push(format!("{} listed keys", bot.signature_keys.len()));
            }
            next(f, format!("Web Bot Auth signatures by {}", list(&keys)))?;
        }
        Ok(())
    }
}
