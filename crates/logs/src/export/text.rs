//! The text exports: Apache RewriteMap, nginx geo, HAProxy map, plain and JSON lists.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Listed, Resolved, Standing, bot_slug, remote_addr_text, resolve};

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
    let resolved = resolve(entries);
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
/// resolved list (see [`resolve`]), so an address both verified and spoofed
/// is in the spoofed list only.
#[must_use]
pub fn plain_list(entries: &[Listed], filter: &ListFilter) -> String {
    let mut out = String::new();
    for entry in resolve(entries) {
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
/// and bot of the resolved list (see [`resolve`]), sorted by address then
/// bot, one object per line. `bot` is the registry name as listed, not
/// its slug; `standing` is `verified`, `spoofed` or `other`.
#[must_use]
pub fn json_list(entries: &[Listed]) -> String {
    let mut lines = Vec::new();
    for entry in resolve(entries) {
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

/// `YYYY-MM-DDTHH:MM:SSZ`; times before 1970 are written as the epoch.
pub(crate) fn rfc3339(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    let mut out = String::with_capacity(20);
    let _ = write!(
        out,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    );
    out
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        u32::try_from(m).unwrap_or(1),
        u32::try_from(d).unwrap_or(1),
    )
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
    }
}
