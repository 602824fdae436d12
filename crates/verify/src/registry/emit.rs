//! Writing the registry back out: YAML in the registry format (scalars as
//! JSON strings, which YAML reads unchanged), and JSON of the same shape.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::{Bot, UaExtra};

fn bot_json(bot: &Bot) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(bot.name));
    if let Some(hosts) = &bot.fcrdns_hosts {
        m.insert("fcrdns_hosts".into(), json!(hosts));
    }
    if let Some(ips) = &bot.ip_list {
        let ips: Vec<String> = ips.iter().map(ToString::to_string).collect();
        m.insert("ip_list".into(), json!(ips));
    }
    if let Some(ranges) = &bot.ip_ranges {
        let ranges: Vec<Value> = ranges
            .iter()
            .map(|r| json!({"min": r.min.to_string(), "max": r.max.to_string()}))
            .collect();
        m.insert("ip_ranges".into(), Value::Array(ranges));
    }
    if let Some(cidrs) = &bot.cidr_list {
        let cidrs: Vec<String> = cidrs
            .iter()
            .map(|c| format!("{}/{}", c.network, c.len))
            .collect();
        m.insert("cidr_list".into(), json!(cidrs));
    }
    if let Some(c) = bot.category {
        m.insert("category".into(), json!(c.as_str()));
    }
    if let Some(o) = &bot.operator {
        m.insert("operator".into(), json!(o));
    }
    if let Some(u) = &bot.url {
        m.insert("url".into(), json!(u));
    }
    if !bot.robots_tokens.is_empty() {
        m.insert("robots_tokens".into(), json!(bot.robots_tokens));
    }
    if !bot.rdns_masks.is_empty() {
        m.insert("rdns_masks".into(), json!(bot.rdns_masks));
    }
    if let Some(u) = &bot.ranges_url {
        m.insert("ranges_url".into(), json!(u));
        m.insert("ranges_format".into(), json!(bot.ranges_format.as_str()));
    }
    Value::Object(m)
}

pub(super) fn json(bots: &[Bot]) -> Value {
    json!({ "bots": bots.iter().map(bot_json).collect::<Vec<_>>() })
}

/// One value on one line: strings as JSON strings, lists in flow style,
/// mappings (the ranges) in flow style.
fn inline(v: &Value) -> String {
    match v {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}: {}", inline(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        other => other.to_string(),
    }
}

pub(super) fn yaml(bots: &[Bot]) -> String {
    let mut out = String::from("bots:\n");
    for bot in bots {
        let Value::Object(m) = bot_json(bot) else {
            unreachable!("a bot is an object")
        };
        let _ = writeln!(out, "  # {}", bot.origin);
        for (i, (k, v)) in m.iter().enumerate() {
            let lead = if i == 0 { "  - " } else { "    " };
            let _ = writeln!(out, "{lead}{k}: {}", inline(v));
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
