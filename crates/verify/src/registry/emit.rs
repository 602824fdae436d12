//! Writing the registry back out: YAML in the registry format (scalars as
//! JSON strings, which YAML reads unchanged), and JSON of the same shape.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Bot, UaExtra};

/// The bot's fields in the order of the format: bottica's, then the
/// extensions; absent fields left out.
fn fields(bot: &Bot) -> Vec<(&'static str, Value)> {
    let mut m = Vec::new();
    m.push(("name", json!(bot.name)));
    if let Some(hosts) = &bot.fcrdns_hosts {
        m.push(("fcrdns_hosts", json!(hosts)));
    }
    if let Some(ips) = &bot.ip_list {
        let ips: Vec<String> = ips.iter().map(ToString::to_string).collect();
        m.push(("ip_list", json!(ips)));
    }
    if let Some(ranges) = &bot.ip_ranges {
        let ranges: Vec<Value> = ranges
            .iter()
            .map(|r| json!({"min": r.min.to_string(), "max": r.max.to_string()}))
            .collect();
        m.push(("ip_ranges", Value::Array(ranges)));
    }
    if let Some(cidrs) = &bot.cidr_list {
        let cidrs: Vec<String> = cidrs
            .iter()
            .map(|c| format!("{}/{}", c.network, c.len))
            .collect();
        m.push(("cidr_list", json!(cidrs)));
    }
    if let Some(c) = bot.category {
        m.push(("category", json!(c.as_str())));
    }
    if let Some(o) = &bot.operator {
        m.push(("operator", json!(o)));
    }
    if let Some(u) = &bot.url {
        m.push(("url", json!(u)));
    }
    if !bot.robots_tokens.is_empty() {
        m.push(("robots_tokens", json!(bot.robots_tokens)));
    }
    if !bot.rdns_masks.is_empty() {
        m.push(("rdns_masks", json!(bot.rdns_masks)));
    }
    if let Some(u) = &bot.ranges_url {
        m.push(("ranges_url", json!(u)));
        m.push(("ranges_format", json!(bot.ranges_format.as_str())));
        if let Some(p) = bot.ranges_refresh {
            m.push(("ranges_refresh", json!(p.to_string())));
        }
    }
    if !bot.signature_agents.is_empty() {
        m.push(("signature_agents", json!(bot.signature_agents)));
    }
    if !bot.signature_keys.is_empty() {
        m.push(("signature_keys", json!(bot.signature_keys)));
    }
    if let Some(r) = bot.renders {
        m.push(("renders", json!(r)));
    }
    if !bot.provenance.is_empty() {
        let records: Vec<Value> = bot
            .provenance
            .iter()
            .map(|p| {
                let mut r = serde_json::Map::new();
                r.insert("of".to_owned(), json!(p.of.as_str()));
                r.insert("source".to_owned(), json!(p.source.to_string()));
                if let Some(name) = &p.listed_as {
                    r.insert("as".to_owned(), json!(name));
                }
                r.insert("confirmed".to_owned(), json!(p.confirmed.to_string()));
                Value::Object(r)
            })
            .collect();
        m.push(("provenance", Value::Array(records)));
    }
    m
}

/// The order of the keys of the mappings written inline: a range's `min`
/// before `max`, a provenance record's `of`, `source`, `as`, `confirmed`;
/// any other key after them, alphabetically.
fn key_rank(key: &str) -> (usize, &str) {
    const ORDER: [&str; 6] = ["min", "max", "of", "source", "as", "confirmed"];
    (
        ORDER.iter().position(|k| *k == key).unwrap_or(ORDER.len()),
        key,
    )
}

pub(super) fn json(bots: &[Bot]) -> Value {
    let bots: Vec<Value> = bots
        .iter()
        .map(|b| {
            Value::Object(
                fields(b)
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect(),
            )
        })
        .collect();
    json!({ "bots": bots })
}

/// Pretty JSON with the fields in the format's order.
pub(super) fn json_text(bots: &[Bot]) -> String {
    let mut out = String::from("{\n  \"bots\": [");
    for (i, bot) in bots.iter().enumerate() {
        out.push_str(if i == 0 { "\n    {" } else { ",\n    {" });
        for (j, (k, v)) in fields(bot).iter().enumerate() {
            let sep = if j == 0 { "" } else { "," };
            let _ = write!(out, "{sep}\n      \"{k}\": {}", inline(v, true));
        }
        out.push_str("\n    }");
    }
    out.push_str(if bots.is_empty() {
        "]\n}\n"
    } else {
        "\n  ]\n}\n"
    });
    out
}

/// One value on one line: strings as JSON strings, lists and mappings (the
/// ranges, the provenance records) in flow style, their keys in
/// [`key_rank`]'s order. With `json`, keys are quoted too, so the text is
/// JSON as well as YAML.
fn inline(v: &Value, json: bool) -> String {
    match v {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|i| inline(i, json)).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by_key(|k| key_rank(k));
            let items: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    let key = if json {
                        Value::from(k.as_str()).to_string()
                    } else {
                        k.clone()
                    };
                    format!("{key}: {}", inline(&m[k], json))
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        other => other.to_string(),
    }
}

pub(super) fn yaml(bots: &[Bot]) -> String {
    if bots.is_empty() {
        return "bots: []\n".to_owned();
    }
    let mut out = String::from("bots:\n");
    for bot in bots {
        match bot.category.and_then(super::Category::cloudflare_class) {
            Some(class) => {
                let _ = writeln!(out, "  # {} (Cloudflare: {class})", bot.origin);
            }
            None => {
                let _ = writeln!(out, "  # {}", bot.origin);
            }
        }
        for (i, (k, v)) in fields(bot).iter().enumerate() {
            let lead = if i == 0 { "  - " } else { "    " };
            match v {
                // The provenance records one a line.
                Value::Array(records) if *k == "provenance" => {
                    let _ = writeln!(out, "{lead}{k}:");
                    for r in records {
                        let _ = writeln!(out, "      - {}", inline(r, false));
                    }
                }
                _ => {
                    let _ = writeln!(out, "{lead}{k}: {}", inline(v, false));
                }
            }
        }
    }
    out
}

pub(super) fn extras_yaml(extras: &[UaExtra]) -> String {
    let mut out = String::from("user_agent_parsers:\n");
    for e in extras {
        let _ = writeln!(out, "  # {}", e.origin);
        let _ = writeln!(out, "  - regex: {}", json!(e.regex));
        if let Some(f) = &e.family_replacement {
            let _ = writeln!(out, "    family_replacement: {}", json!(f));
        }
    }
    out
}
