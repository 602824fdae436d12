//! The text exports: Apache RewriteMap, nginx geo, HAProxy map, plain and JSON lists.

use std::time::{SystemTime, UNIX_EPOCH};

use super::{Listed, Resolved, Standing, bot_slug, remote_addr_text, resolve_listed};

/// The value the maps give one address: its bots' names (see [`bot_slug`])
/// joined with `,` when verified, `spoofed`, or `other`.
#[must_use]
pub fn map_value(entry: &Resolved) -> String {
    match entry.standing {
        Standing::Verified => {
            let names: Vec<_> = entry.bots.iter().map(|b| bot_slug(b)).collect();
            names.join(",")
        }
        Standing::Spoofed | Standing::Other => entry.standing.as_str().to_owned(),
    }
}

/// Apache `RewriteMap` text map (`RewriteMap botwarden "txt:FILE"`):
/// one `<address> <value>` line per address, address as
/// [`remote_addr_text`], value as [`map_value`], after a `#` header with the
/// generation time and the counts.
#[must_use]
pub fn apache_rewrite_map(entries: &[Listed], generated: SystemTime) -> String {
    map_text(
        entries,
        generated,
        "Apache RewriteMap (txt)",
        |ip, value| format!("{ip} {value}"),
    )
}

/// nginx `geo` include: one `<address>/32 <value>;` (or `/128`) line per
/// address, for `geo $botwarden { default ""; include FILE; }`.
///
/// Values are [`map_value`]s, which need no quoting in nginx.
#[must_use]
pub fn nginx_geo(entries: &[Listed], generated: SystemTime) -> String {
    map_text(entries, generated, "nginx geo include", |ip, value| {
        let bits = if ip.contains(':') { 128 } else { 32 };
        format!("{ip}/{bits} {value};")
    })
}

/// HAProxy map for `map_ip`: one `<address> <value>` line per address.
#[must_use]
pub fn haproxy_map(entries: &[Listed], generated: SystemTime) -> String {
    map_text(entries, generated, "HAProxy map (map_ip)", |ip, value| {
        format!("{ip} {value}")
    })
}

fn map_text(
    entries: &[Listed],
    generated: SystemTime,
    what: &str,
    line: impl Fn(&str, &str) -> String,
) -> String {
    let resolved = resolve_listed(entries);
    let count = |s: Standing| resolved.iter().filter(|e| e.standing == s).count();
    let mut out = format!(
        "# botwarden: {what}, generated {}\n# {} addresses: {} verified, {} spoofed, {} other\n",
        rfc3339(generated),
        resolved.len(),
        count(Standing::Verified),
        count(Standing::Spoofed),
        count(Standing::Other),
    );
    for entry in &resolved {
        out.push_str(&line(&remote_addr_text(entry.ip), &map_value(entry)));
        out.push('\n');
    }
    out
}

/// Which addresses a [`plain_list`] keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Keep only addresses with this standing; `None` keeps every standing.
    pub standing: Option<Standing>,
    /// Keep only addresses listed for this bot (its registry name, exactly);
    /// `None` keeps every bot.
    pub bot: Option<String>,
}

/// One address per line, sorted, no header: for tools that read bare lists
/// (ipset, firewalls, fail2ban). The standing and bot filters apply to the
/// resolved list (see [`resolve_listed`]), so an address both verified and spoofed
/// is in the spoofed list only.
#[must_use]
pub fn plain_list(entries: &[Listed], filter: &ListFilter) -> String {
    let mut out = String::new();
    for entry in resolve_listed(entries) {
        if filter.standing.is_some_and(|s| s != entry.standing) {
            continue;
        }
        if filter.bot.as_ref().is_some_and(|b| !entry.bots.contains(b)) {
            continue;
        }
        out.push_str(&remote_addr_text(entry.ip));
        out.push('\n');
    }
    out
}

/// A JSON array of `{"ip", "bot", "standing"}` objects, one per address
/// and bot of the resolved list (see [`resolve_listed`]), sorted by address then
/// bot, one object per line. `bot` is the registry name as listed, not
/// its slug; `standing` is `verified`, `spoofed` or `other`.
#[must_use]
pub fn json_list(entries: &[Listed]) -> String {
    let mut lines = Vec::new();
    for entry in resolve_listed(entries) {
        let ip = remote_addr_text(entry.ip);
        for bot in &entry.bots {
            lines.push(format!(
                "  {{\"ip\":{},\"bot\":{},\"standing\":\"{}\"}}",
                json_string(&ip),
                json_string(bot),
                entry.standing.as_str()
            ));
        }
    }
    if lines.is_empty() {
        return "[]\n".to_owned();
    }
    format!("[\n{}\n]\n", lines.join(",\n"))
}

fn json_string(s: &str) -> String {
    // Serializing a string cannot fail; fall back to an empty string anyway.
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// `YYYY-MM-DDTHH:MM:SSZ`; times before 1970 are written as the epoch,
/// times past the last a timestamp holds (9999-12-30T22:00:00Z) as that.
pub(crate) fn rfc3339(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let at = i64::try_from(secs)
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .unwrap_or(jiff::Timestamp::MAX);
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates() {
        let at = |s| rfc3339(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_795_267_141), "2026-11-21T13:19:01Z");
        assert_eq!(at(u64::MAX / 4), "9999-12-30T22:00:00Z");
    }
}
