//! Reading registry and extras files from the YAML tree, checking every
//! field and keeping every problem with its path and line.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use super::provenance::parse_date;
use super::{
    Bot, Category, IpRange, Origin, Problem, Provenance, ProvenanceOf, ProvenanceSource,
    RangesFormat, RefreshPeriod, Severity, UaExtra,
};
use crate::ipset::{Cidr, Span, normalize};
use crate::yaml::{self, Kind, Node, Position};

/// The keys a bot entry may have: bottica's, then the extensions.
const BOT_KEYS: [&str; 17] = [
    "name",
    "fcrdns_hosts",
    "ip_list",
    "ip_ranges",
    "cidr_list",
    "category",
    "operator",
    "url",
    "robots_tokens",
    "rdns_masks",
    "ranges_url",
    "ranges_format",
    "ranges_refresh",
    "signature_agents",
    "signature_keys",
    "renders",
    "provenance",
];

/// The keys of a provenance record.
const PROVENANCE_KEYS: [&str; 4] = ["of", "source", "as", "confirmed"];

/// The keys of a uap-core `user_agent_parsers` entry.
const EXTRA_KEYS: [&str; 5] = [
    "regex",
    "family_replacement",
    "v1_replacement",
    "v2_replacement",
    "v3_replacement",
];

/// Host-name suffixes under which customers of a hosting or cloud provider
/// get forward-confirmed names (or set their own PTR records): trusting one
/// lets anyone renting a machine there pass FCrDNS.
pub(crate) const SHARED_HOSTING: [&str; 18] = [
    "amazonaws.com",
    "googleusercontent.com",
    "cloudfront.net",
    "cloudapp.net",
    "cloudapp.azure.com",
    "azurewebsites.net",
    "herokuapp.com",
    "appspot.com",
    "linodeusercontent.com",
    "vultrusercontent.com",
    "digitaloceanspaces.com",
    "your-server.de",
    "contaboserver.net",
    "scw.cloud",
    "ip-addr.es",
    "akamaitechnologies.com",
    "fastly.net",
    "ovh.net",
];

/// Collects problems for one file.
struct Ctx<'f> {
    file: &'f Arc<str>,
    problems: Vec<Problem>,
}

impl Ctx<'_> {
    fn push(&mut self, severity: Severity, path: &str, at: Position, message: String) {
        self.problems.push(Problem {
            severity,
            file: self.file.clone(),
            path: path.to_owned(),
            at,
            message,
        });
    }

    fn error(&mut self, path: &str, at: Position, message: String) {
        self.push(Severity::Error, path, at, message);
    }

    fn warning(&mut self, path: &str, at: Position, message: String) {
        self.push(Severity::Warning, path, at, message);
    }

    fn errors(&self) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count()
    }

    /// The entries of the file's root mapping, or `None` after reporting
    /// why not (not YAML, empty, not a mapping).
    fn document(&mut self, text: &str, list_key: &str) -> Option<Vec<(Node, Node)>> {
        let root = match yaml::parse(text) {
            Ok(root) => root,
            Err(e) if e.limit => {
                self.error("", e.at, e.message);
                return None;
            }
            Err(e) => {
                self.error("", e.at, format!("not valid YAML: {}", e.message));
                return None;
            }
        };
        let Some(root) = root else {
            self.error(
                "",
                Position { line: 1, col: 1 },
                format!("the file is empty; expected a mapping with `{list_key}:`"),
            );
            return None;
        };
        let kind = root.kind_name();
        let Kind::Map(entries) = root.kind else {
            self.error(
                "",
                root.at,
                format!("expected a mapping with `{list_key}:`, found {kind}"),
            );
            return None;
        };
        Some(entries)
    }

    /// A mapping's entries with duplicate keys and non-scalar keys reported;
    /// unknown keys reported against `known`.
    fn fields<'n>(
        &mut self,
        path: &str,
        entries: &'n [(Node, Node)],
        known: &[&str],
    ) -> Vec<(&'n str, &'n Node, Position)> {
        let mut seen: HashMap<&str, Position> = HashMap::new();
        let mut out = Vec::new();
        for (key, value) in entries {
            let Some(name) = key.as_str() else {
                self.error(
                    path,
                    key.at,
                    format!("a key must be a plain name, found {}", key.kind_name()),
                );
                continue;
            };
            let here = join(path, name);
            if let Some(first) = seen.insert(name, key.at) {
                self.error(
                    &here,
                    key.at,
                    format!("duplicate key `{name}` (first at line {})", first.line),
                );
                continue;
            }
            if !known.contains(&name) {
                let hint = closest(name, known)
                    .map(|k| format!("; did you mean `{k}`?"))
                    .unwrap_or_default();
                self.error(&here, key.at, format!("unknown key `{name}`{hint}"));
                continue;
            }
            out.push((name, value, key.at));
        }
        out
    }

    /// The fields of a list item that must be a mapping (`what` names it
    /// in the message when it is not), as [`Ctx::fields`] gives them.
    fn item_fields<'n>(
        &mut self,
        path: &str,
        item: &'n Node,
        what: &str,
        known: &[&str],
    ) -> Option<Vec<(&'n str, &'n Node, Position)>> {
        let Kind::Map(entries) = &item.kind else {
            self.error(
                path,
                item.at,
                format!("expected {what}, found {}", item.kind_name()),
            );
            return None;
        };
        Some(self.fields(path, entries, known))
    }

    fn string(&mut self, path: &str, node: &Node) -> Option<String> {
        match &node.kind {
            Kind::Scalar { text, .. } if !node.is_null() => Some(text.clone()),
            _ => {
                self.error(
                    path,
                    node.at,
                    format!("expected a string, found {}", node.kind_name()),
                );
                None
            }
        }
    }

    fn list<'n>(&mut self, path: &str, node: &'n Node) -> Option<&'n [Node]> {
        match &node.kind {
            Kind::Seq(items) => Some(items),
            _ => {
                let hint = if node.is_null() {
                    " (write `[]` for an empty list, or leave the key out)"
                } else {
                    ""
                };
                self.error(
                    path,
                    node.at,
                    format!("expected a list, found {}{hint}", node.kind_name()),
                );
                None
            }
        }
    }

    /// A list of strings, each checked by `check`; `None` if the node is
    /// not a list (bad items are reported and left out).
    fn strings<T>(
        &mut self,
        path: &str,
        node: &Node,
        mut check: impl FnMut(&mut Self, &str, Position, &str) -> Option<T>,
    ) -> Option<Vec<T>> {
        let items = self.list(path, node)?;
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let here = format!("{path}[{i}]");
            if let Some(text) = self.string(&here, item)
                && let Some(v) = check(self, &here, item.at, &text)
            {
                out.push(v);
            }
        }
        Some(out)
    }

    fn ip(&mut self, path: &str, at: Position, text: &str) -> Option<IpAddr> {
        match text.trim().parse::<IpAddr>() {
            Ok(ip) => Some(normalize(ip)),
            Err(_) => {
                let hint = if text.contains('/') {
                    "; CIDR blocks go in `cidr_list`"
                } else {
                    ""
                };
                self.error(
                    path,
                    at,
                    format!("`{text}` is not an IPv4 or IPv6 address{hint}"),
                );
                None
            }
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The known key nearest to a misspelt one, if it is near enough.
fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .map(|k| (distance(name, k), *k))
        .filter(|&(d, k)| d <= 2.max(k.len() / 4))
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over bytes (keys are ASCII).
fn distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.as_bytes().iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Reads a registry file: the bots without errors, and every problem.
pub(super) fn registry(file: &Arc<str>, text: &str) -> (Vec<(usize, Bot)>, Vec<Problem>) {
    let mut cx = Ctx {
        file,
        problems: Vec::new(),
    };
    let Some(entries) = cx.document(text, "bots") else {
        return (Vec::new(), cx.problems);
    };
    let mut bots = Vec::new();
    let mut names: HashMap<String, Position> = HashMap::new();
    for (key, node, _) in cx.fields("", &entries, &["bots"]) {
        let Some(items) = cx.list(key, node) else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let path = format!("bots[{i}]");
            let before = cx.errors();
            let Some(bot) = read_bot(&mut cx, &path, item) else {
                continue;
            };
            if let Some(first) = names.get(&bot.name) {
                cx.error(
                    &join(&path, "name"),
                    bot.origin.at,
                    format!(
                        "duplicate bot name `{}` (first at line {}); names are unique in a file",
                        bot.name, first.line
                    ),
                );
                continue;
            }
            names.insert(bot.name.clone(), bot.origin.at);
            if cx.errors() == before {
                bots.push((i, bot));
            }
        }
    }
    if !entries.iter().any(|(k, _)| k.as_str() == Some("bots")) {
        cx.error(
            "",
            Position { line: 1, col: 1 },
            "no `bots:` list in the file".to_owned(),
        );
    }
    cx.problems.sort_by_key(|p| p.at);
    (bots, cx.problems)
}

fn read_bot(cx: &mut Ctx<'_>, path: &str, node: &Node) -> Option<Bot> {
    let Kind::Map(entries) = &node.kind else {
        cx.error(
            path,
            node.at,
            format!(
                "expected a bot (a mapping with `name:`), found {}",
                node.kind_name()
            ),
        );
        return None;
    };
    let fields = cx.fields(path, entries, &BOT_KEYS);
    let name = bot_name(cx, path, node, &fields)?;
    let mut bot = Bot::new(
        name,
        Origin {
            file: cx.file.clone(),
            at: node.at,
        },
    );
    let mut places = Places {
        bot: node.at,
        masks: None,
        format: None,
        refresh: None,
        provenance: Vec::new(),
        hosts: Vec::new(),
        hosts_written: 0,
        hosts_at: None,
        each_mask: Vec::new(),
    };
    for &(key, value, key_at) in &fields {
        let here = join(path, key);
        match key {
            "name" => {}
            "fcrdns_hosts" => read_hosts(cx, &here, (value, key_at), &mut bot, &mut places),
            "ip_list" => bot.ip_list = cx.strings(&here, value, Ctx::ip),
            "cidr_list" => bot.cidr_list = cidrs(cx, &here, value, &bot.name),
            "ip_ranges" => bot.ip_ranges = ranges(cx, &here, value, &bot.name),
            "category" => {
                if let Some(text) = cx.string(&here, value) {
                    bot.category = category(cx, &here, value.at, &text);
                }
            }
            "operator" => bot.operator = operator(cx, &here, value),
            "url" => {
                bot.url = cx
                    .string(&here, value)
                    .and_then(|u| web_url(cx, &here, value.at, &u));
            }
            "ranges_url" => {
                bot.ranges_url = cx
                    .string(&here, value)
                    .and_then(|u| web_url(cx, &here, value.at, &u));
            }
            "ranges_format" => {
                places.format = Some(key_at);
                check_format(cx, &here, value);
            }
            "ranges_refresh" => {
                places.refresh = Some(key_at);
                bot.ranges_refresh = refresh(cx, &here, value);
            }
            "provenance" => {
                let records = provenance(cx, &here, value);
                places.provenance = records.iter().map(|&(_, at, i)| (at, i)).collect();
                bot.provenance = records.into_iter().map(|(p, _, _)| p).collect();
            }
            "signature_agents" => bot.signature_agents = signature_agents(cx, &here, value),
            "signature_keys" => bot.signature_keys = signature_keys(cx, &here, value),
            "renders" => bot.renders = boolean(cx, &here, value),
            "robots_tokens" => {
                bot.robots_tokens = cx.strings(&here, value, token).unwrap_or_default();
            }
            "rdns_masks" => read_masks(cx, &here, (value, key_at), &mut bot, &mut places),
            _ => unreachable!("fields() lets through only known keys"),
        }
    }
    cross_checks(cx, path, &bot, &places);
    for &(key, value, _) in &fields {
        if matches!(key, "ip_list" | "ip_ranges" | "cidr_list")
            && matches!(&value.kind, Kind::Seq(items) if items.is_empty())
        {
            cx.error(
                &join(path, key),
                value.at,
                format!("an empty `{key}` lets no address pass; leave the key out instead"),
            );
        }
    }
    Some(bot)
}

/// The `name` of a bot, trimmed: there, a string, not empty, with no
/// control character.
fn bot_name(
    cx: &mut Ctx<'_>,
    path: &str,
    node: &Node,
    fields: &[(&str, &Node, Position)],
) -> Option<String> {
    let Some(&(_, name_node, _)) = fields.iter().find(|(k, _, _)| *k == "name") else {
        cx.error(path, node.at, "a bot needs a `name`".to_owned());
        return None;
    };
    let name = cx.string(&join(path, "name"), name_node)?;
    let name = name.trim().to_owned();
    if let Some(c) = name.chars().find(|&c| is_control(c)) {
        cx.error(
            &join(path, "name"),
            name_node.at,
            format!(
                "the name {name:?} holds the control character U+{:04X}; names are shown in reports and logs, so they hold none",
                u32::from(c)
            ),
        );
        return None;
    }
    if name.is_empty() {
        cx.error(
            &join(path, "name"),
            name_node.at,
            "the name is empty".to_owned(),
        );
        return None;
    }
    Some(name)
}

/// Reads `fcrdns_hosts` (its value, and where its key is) into `bot`, and
/// where it and its entries are into `places`.
fn read_hosts(
    cx: &mut Ctx<'_>,
    here: &str,
    (value, key_at): (&Node, Position),
    bot: &mut Bot,
    places: &mut Places,
) {
    let name = bot.name.clone();
    let hosts = cx.strings(here, value, |cx, p, at, s| {
        host(cx, p, at, s, false, &name).map(|h| (h, at))
    });
    places.hosts_at = Some(key_at);
    if let Kind::Seq(items) = &value.kind {
        places.hosts_written = items.len();
    }
    if let Some(hosts) = hosts {
        places.hosts = hosts.iter().map(|&(_, at)| at).collect();
        bot.fcrdns_hosts = Some(hosts.into_iter().map(|(h, _)| h).collect());
    }
}

/// Reads `rdns_masks` (its value, and where its key is) into `bot`, and
/// where it and its entries are into `places`.
fn read_masks(
    cx: &mut Ctx<'_>,
    here: &str,
    (value, key_at): (&Node, Position),
    bot: &mut Bot,
    places: &mut Places,
) {
    places.masks = Some(key_at);
    let name = bot.name.clone();
    let masks = cx
        .strings(here, value, |cx, p, at, s| {
            host(cx, p, at, s, true, &name).map(|h| (h, at))
        })
        .unwrap_or_default();
    places.each_mask = masks.iter().map(|&(_, at)| at).collect();
    bot.rdns_masks = masks.into_iter().map(|(m, _)| m).collect();
}

/// The `cidr_list` of the bot `name`: each entry a CIDR block of a width
/// [`width`] accepts.
fn cidrs(cx: &mut Ctx<'_>, here: &str, value: &Node, name: &str) -> Option<Vec<Cidr>> {
    cx.strings(here, value, |cx, p, at, s| match Cidr::parse(s) {
        Ok(c) => {
            let (first, last) = c.bounds();
            let span = Span::of(first, last);
            width(cx, p, at, &format!("`{c}`"), span, name).then_some(c)
        }
        Err(e) => {
            cx.error(p, at, e.to_string());
            None
        }
    })
}

/// The category named `text`, or `None` (reported) for an unknown one.
fn category(cx: &mut Ctx<'_>, here: &str, at: Position, text: &str) -> Option<Category> {
    let category = Category::from_name(text);
    if category.is_none() {
        let names: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
        cx.error(
            here,
            at,
            format!("unknown category `{text}`; one of: {}", names.join(", ")),
        );
    }
    category
}

/// The `operator`; one holding a control character is reported.
fn operator(cx: &mut Ctx<'_>, here: &str, value: &Node) -> Option<String> {
    let operator = cx.string(here, value);
    if let Some(op) = &operator
        && let Some(c) = op.chars().find(|&c| is_control(c))
    {
        cx.error(
            here,
            value.at,
            format!(
                "the operator {op:?} holds the control character U+{:04X}; it is shown in reports, so it holds none",
                u32::from(c)
            ),
        );
    }
    operator
}

/// The `ranges_refresh`: a period such as `7d`.
fn refresh(cx: &mut Ctx<'_>, here: &str, value: &Node) -> Option<RefreshPeriod> {
    let text = cx.string(here, value)?;
    match RefreshPeriod::parse(&text) {
        Ok(p) => Some(p),
        Err(message) => {
            cx.error(here, value.at, message);
            None
        }
    }
}

/// The `provenance` records, each with where its `of` is (or the record,
/// when `of` is left out) and its place in the list; bad records are
/// reported and left out.
fn provenance(cx: &mut Ctx<'_>, here: &str, value: &Node) -> Vec<(Provenance, Position, usize)> {
    let Some(items) = cx.list(here, value) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("{here}[{i}]");
        let Some(fields) = cx.item_fields(
            &path,
            item,
            "a record `{source: …, confirmed: YYYY-MM-DD}`",
            &PROVENANCE_KEYS,
        ) else {
            continue;
        };
        let get = |k: &str| fields.iter().find(|(n, _, _)| *n == k).map(|(_, v, _)| *v);
        let before = cx.errors();
        let mut of = (ProvenanceOf::Entry, item.at);
        if let Some(node) = get("of")
            && let Some(text) = cx.string(&join(&path, "of"), node)
        {
            match ProvenanceOf::from_name(text.trim()) {
                Some(o) => of = (o, node.at),
                None => {
                    let names: Vec<&str> = ProvenanceOf::ALL.iter().map(|o| o.as_str()).collect();
                    cx.error(
                        &join(&path, "of"),
                        node.at,
                        format!(
                            "`{text}` is not what a record can be of; one of: {}",
                            names.join(", ")
                        ),
                    );
                }
            }
        }
        let source = match get("source") {
            Some(node) => cx.string(&join(&path, "source"), node).and_then(|text| {
                ProvenanceSource::parse(&text)
                    .map_err(|m| cx.error(&join(&path, "source"), node.at, m))
                    .ok()
            }),
            None => {
                cx.error(
                    &path,
                    item.at,
                    "a provenance record needs a `source`".to_owned(),
                );
                None
            }
        };
        let confirmed = match get("confirmed") {
            Some(node) => cx.string(&join(&path, "confirmed"), node).and_then(|text| {
                parse_date(&text)
                    .map_err(|m| cx.error(&join(&path, "confirmed"), node.at, m))
                    .ok()
            }),
            None => {
                cx.error(
                    &path,
                    item.at,
                    "a provenance record needs the day it was `confirmed` (YYYY-MM-DD)".to_owned(),
                );
                None
            }
        };
        let listed_as = get("as").and_then(|node| {
            let text = cx.string(&join(&path, "as"), node)?;
            let text = text.trim().to_owned();
            if text.is_empty() || text.chars().any(is_control) {
                cx.error(
                    &join(&path, "as"),
                    node.at,
                    format!("{text:?} is not a name a source lists a bot under"),
                );
                return None;
            }
            Some(text)
        });
        if let (Some(source), Some(confirmed)) = (source, confirmed)
            && cx.errors() == before
        {
            out.push((
                Provenance {
                    of: of.0,
                    source,
                    listed_as,
                    confirmed,
                },
                of.1,
                i,
            ));
        }
    }
    out
}

/// Reports a `ranges_format` other than the one format.
fn check_format(cx: &mut Ctx<'_>, here: &str, value: &Node) {
    if let Some(text) = cx.string(here, value)
        && text != RangesFormat::GoogleJson.as_str()
    {
        cx.error(
            here,
            value.at,
            format!("unknown ranges format `{text}`; the one format is `google-json`"),
        );
    }
}

/// The `signature_agents`: web URLs with no query or fragment.
fn signature_agents(cx: &mut Ctx<'_>, here: &str, value: &Node) -> Vec<String> {
    cx.strings(here, value, |cx, p, at, u| {
        let u = web_url(cx, p, at, u)?;
        if crate::webbotauth::keys_url(&u).is_none() {
            cx.error(
                p,
                at,
                format!("`{u}` cannot be a signature agent: it has a query or fragment"),
            );
            return None;
        }
        Some(u)
    })
    .unwrap_or_default()
}

/// A `true` or `false`.
fn boolean(cx: &mut Ctx<'_>, here: &str, value: &Node) -> Option<bool> {
    let text = cx.string(here, value)?;
    match text.trim() {
        "true" => Some(true),
        "false" => Some(false),
        other => {
            cx.error(
                here,
                value.at,
                format!("`{other}` is neither true nor false"),
            );
            None
        }
    }
}

/// The `signature_keys`: Ed25519 public keys, trimmed.
fn signature_keys(cx: &mut Ctx<'_>, here: &str, value: &Node) -> Vec<String> {
    cx.strings(
        here,
        value,
        |cx, p, at, x| match crate::webbotauth::ed25519_key(x.trim()) {
            Ok(_) => Some(x.trim().to_owned()),
            Err(reason) => {
                cx.error(
                    p,
                    at,
                    format!(
                        "`{x}` is not an Ed25519 public key (the JWK `x`, base64url): {reason}"
                    ),
                );
                None
            }
        },
    )
    .unwrap_or_default()
}

/// A control character, or one that reorders text on display (the
/// bidirectional marks, embeddings, overrides and isolates).
fn is_control(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Where a bot's fields are, for the checks between fields.
struct Places {
    bot: Position,
    masks: Option<Position>,
    format: Option<Position>,
    /// Where the `ranges_refresh` key is.
    refresh: Option<Position>,
    /// Where the `of` of each accepted provenance record is, and its place
    /// in the list as written.
    provenance: Vec<(Position, usize)>,
    /// Where each accepted `fcrdns_hosts` entry is.
    hosts: Vec<Position>,
    /// How many entries `fcrdns_hosts` has as written, refused ones too.
    hosts_written: usize,
    /// Where the `fcrdns_hosts` key is.
    hosts_at: Option<Position>,
    each_mask: Vec<Position>,
}

/// Checks between fields of one bot.
fn cross_checks(cx: &mut Ctx<'_>, path: &str, bot: &Bot, places: &Places) {
    let at = places.bot;
    if let Some(masks_at) = places.masks {
        match &bot.fcrdns_hosts {
            None => cx.error(
                &join(path, "rdns_masks"),
                masks_at,
                "`rdns_masks` refine `fcrdns_hosts`, which this bot does not have (write `fcrdns_hosts: []` for any host)".to_owned(),
            ),
            Some(hosts) if !hosts.is_empty() => {
                for (i, mask) in bot.rdns_masks.iter().enumerate() {
                    if !hosts.iter().any(|h| suffix_on_label(mask, h)) {
                        cx.error(
                            &format!("{path}.rdns_masks[{i}]"),
                            places.each_mask.get(i).copied().unwrap_or(masks_at),
                            format!("mask `{mask}` does not end with any of `fcrdns_hosts`, so no name can match both"),
                        );
                    }
                }
            }
            Some(_) => {}
        }
    }
    if let Some(format_at) = places.format
        && bot.ranges_url.is_none()
    {
        cx.error(
            &join(path, "ranges_format"),
            format_at,
            "`ranges_format` without `ranges_url`".to_owned(),
        );
    }
    if let Some(refresh_at) = places.refresh
        && bot.ranges_url.is_none()
    {
        cx.error(
            &join(path, "ranges_refresh"),
            refresh_at,
            "`ranges_refresh` without `ranges_url`: it is the refresh period of the bot's feed"
                .to_owned(),
        );
    }
    let methods = bot.methods();
    for (record, &(record_at, i)) in bot.provenance.iter().zip(&places.provenance) {
        let had = match record.of {
            ProvenanceOf::Entry => true,
            ProvenanceOf::Renders => bot.renders.is_some(),
            of => methods.contains(&of),
        };
        if !had {
            cx.error(
                &format!("{path}.provenance[{i}].of"),
                record_at,
                format!("a record of `{}`, which this bot does not have", record.of),
            );
        }
    }
    if let Some(hosts) = &bot.fcrdns_hosts {
        for (i, host) in hosts.iter().enumerate() {
            if let Some(shared) = SHARED_HOSTING.iter().find(|s| suffix_on_label(host, s)) {
                let message = format!(
                    "`{host}` is under `{shared}`, where any customer of the provider gets forward-confirmed names: trusting it lets anyone there pass as `{}`",
                    bot.name
                );
                // A search engine's verdicts gate access and ranking decisions:
                // an error. For other crawlers the operator may document no
                // better method; still worth a warning.
                let here = format!("{path}.fcrdns_hosts[{i}]");
                let host_at = places.hosts.get(i).copied().unwrap_or(at);
                if matches!(bot.category, Some(Category::Search) | None) {
                    cx.error(&here, host_at, message);
                } else {
                    cx.warning(&here, host_at, message);
                }
            }
        }
        if hosts.is_empty() && places.hosts_written > 0 {
            let refused = match places.hosts_written {
                1 => "its only entry was refused".to_owned(),
                n => format!("all {n} of its entries were refused"),
            };
            cx.warning(
                &join(path, "fcrdns_hosts"),
                places.hosts_at.unwrap_or(at),
                format!("`fcrdns_hosts` has no host left: {refused}, so the bot is left out; it is not taken for `fcrdns_hosts: []`, which would accept any forward-confirmed host name"),
            );
        } else if hosts.is_empty() && bot.rdns_masks.is_empty() {
            cx.warning(
                &join(path, "fcrdns_hosts"),
                at,
                "`fcrdns_hosts: []` accepts any forward-confirmed host name; pair it with IP lists or masks if the operator documents them".to_owned(),
            );
        }
    }
}

/// Whether `name` is `suffix` or ends with `.suffix`.
pub(crate) fn suffix_on_label(name: &str, suffix: &str) -> bool {
    name.len() >= suffix.len()
        && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
        && (name.len() == suffix.len() || name.as_bytes()[name.len() - suffix.len() - 1] == b'.')
}

/// Whether `name` (lower case) is a public suffix of the Public Suffix
/// List, a name under which anyone may register one: of its ICANN section
/// (`co.uk`, `in-addr.arpa`) or of its private section (`github.io`).
pub(crate) fn public_suffix(name: &str) -> Option<psl::Type> {
    let suffix = psl::suffix(name.as_bytes())?;
    let typ = suffix.typ()?;
    (suffix.trim().as_bytes() == name.as_bytes()).then_some(typ)
}

/// How the Public Suffix List files a suffix, for messages.
fn section(typ: psl::Type) -> &'static str {
    match typ {
        psl::Type::Icann => "",
        psl::Type::Private => {
            " (of the Public Suffix List's private section: the names under it belong to different customers)"
        }
    }
}

/// A host name (or a mask with `*`), lowercased, without a trailing dot.
fn host(
    cx: &mut Ctx<'_>,
    path: &str,
    at: Position,
    text: &str,
    mask: bool,
    bot: &str,
) -> Option<String> {
    let name = text.trim().trim_end_matches('.').to_ascii_lowercase();
    if let Some(message) = malformed(text, &name, mask).or_else(|| registrable(&name, mask, bot)) {
        cx.error(path, at, message);
        return None;
    }
    Some(name)
}

/// What is wrong with the form of the host name (or mask) `name`, as
/// written `text`: empty, a URL, a pattern or a leading dot where a
/// suffix goes, an invalid label, a single label.
fn malformed(text: &str, name: &str, mask: bool) -> Option<String> {
    let what = if mask { "mask" } else { "host name" };
    if name.is_empty() && !text.trim().is_empty() {
        return Some(format!(
            "`{text}` is the DNS root: every host name would pass"
        ));
    }
    if name.is_empty() {
        return Some(format!("an empty {what}"));
    }
    if name.contains("://") || name.contains('/') {
        return Some(format!(
            "`{text}` is a URL; write the {what} alone (`googlebot.com`)"
        ));
    }
    if !mask && name.starts_with('.') {
        return Some(format!(
            "`{text}`: write the suffix without a leading dot; it is matched on label boundaries"
        ));
    }
    if !mask && name.contains('*') {
        return Some(format!(
            "`{text}`: `fcrdns_hosts` are suffixes, not patterns; patterns go in `rdns_masks`"
        ));
    }
    for label in name.split('.') {
        let ok = !label.is_empty()
            && label.len() <= 63
            && label.bytes().all(|b| {
                b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || (mask && b == b'*')
            })
            && !label.starts_with('-')
            && !label.ends_with('-');
        if !ok {
            return Some(format!("`{text}` is not a valid {what} (label `{label}`)"));
        }
    }
    if !name.contains('.') {
        let message = if mask {
            format!(
                "`{text}` is a single label: a mask names the host's own domain too (`crawl-*.example.com`)"
            )
        } else {
            format!("`{text}` is a top-level domain: every host name under it would pass")
        };
        return Some(message);
    }
    None
}

/// Why anyone could register a name that `name` (a host suffix, or a mask)
/// accepts and pass as `bot`: it is a public suffix, or a mask's open
/// label is right under one.
fn registrable(name: &str, mask: bool, bot: &str) -> Option<String> {
    if !mask {
        if let Some(typ) = public_suffix(name) {
            return Some(format!(
                "`{name}` is a public suffix{}: anyone can register a name under it (`attacker.{name}`) and pass as `{bot}`",
                section(typ)
            ));
        }
    } else if let Some(cut) = name.rfind('*') {
        // The labels after the last one with a `*` are fixed; if they are a
        // public suffix, the wildcard label is anyone's to register.
        let fixed = name[cut..].split_once('.').map_or("", |(_, rest)| rest);
        let open = if fixed.is_empty() {
            None
        } else {
            public_suffix(fixed)
        };
        if let Some(typ) = open {
            let example = name.replacen('*', "attacker", 1).replace('*', "1");
            return Some(format!(
                "mask `{name}` leaves a label open right under the public suffix `{fixed}`{}: anyone can register a name that matches (`{example}`) and pass as `{bot}`",
                section(typ)
            ));
        }
    }
    None
}

fn token(cx: &mut Ctx<'_>, path: &str, at: Position, text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() || t.bytes().any(|b| b.is_ascii_control()) {
        cx.error(
            path,
            at,
            format!("`{text}` is not a product token (one word, as in `User-agent: Googlebot`)"),
        );
        return None;
    }
    let word_end = t
        .bytes()
        .position(|b| !(b.is_ascii_alphabetic() || b == b'_' || b == b'-'))
        .unwrap_or(t.len());
    if word_end < t.len() {
        let read = if word_end == 0 {
            "nothing".to_owned()
        } else {
            format!("`{}`", &t[..word_end])
        };
        cx.warning(
            path,
            at,
            format!("`{t}` has characters outside RFC 9309's product token (letters, `_`, `-`): robots that follow it read {read}"),
        );
    }
    Some(t.to_owned())
}

fn web_url(cx: &mut Ctx<'_>, path: &str, at: Position, text: &str) -> Option<String> {
    match url::Url::parse(text.trim()) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
            Some(text.trim().to_owned())
        }
        _ => {
            cx.error(path, at, format!("`{text}` is not an http(s) URL"));
            None
        }
    }
}

/// Checks how wide a block or range is: wider than any operator publishes
/// is an error (and `false`), suspiciously wide a warning.
fn width(cx: &mut Ctx<'_>, path: &str, at: Position, what: &str, span: Span, bot: &str) -> bool {
    if span.too_wide() {
        cx.error(
            path,
            at,
            format!(
                "{what} spans {span}: wider than any operator publishes for its crawlers (a /{} at most), so anyone there would pass as `{bot}`",
                span.widest()
            ),
        );
        return false;
    }
    if span.wide() {
        cx.warning(
            path,
            at,
            format!(
                "{what} spans {span}: wider than operators usually publish for their crawlers; check that all of it is `{bot}`'s"
            ),
        );
    }
    true
}

fn ranges(cx: &mut Ctx<'_>, path: &str, node: &Node, bot: &str) -> Option<Vec<IpRange>> {
    let items = cx.list(path, node)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let here = format!("{path}[{i}]");
        let Some(fields) =
            cx.item_fields(&here, item, "a range `{min: …, max: …}`", &["min", "max"])
        else {
            continue;
        };
        let mut end = |key: &str| -> Option<IpAddr> {
            let Some(&(_, node, _)) = fields.iter().find(|(k, _, _)| *k == key) else {
                cx.error(&here, item.at, format!("a range needs `{key}`"));
                return None;
            };
            let p = join(&here, key);
            let text = cx.string(&p, node)?;
            cx.ip(&p, node.at, &text)
        };
        let (min, max) = (end("min"), end("max"));
        let (Some(min), Some(max)) = (min, max) else {
            continue;
        };
        let max_at = fields
            .iter()
            .find(|(k, _, _)| *k == "max")
            .map_or(item.at, |(_, n, _)| n.at);
        if min.is_ipv4() != max.is_ipv4() {
            cx.error(
                &join(&here, "max"),
                max_at,
                format!("`{min}` and `{max}` are of different families"),
            );
        } else if min > max {
            cx.error(
                &join(&here, "min"),
                item.at,
                format!("min `{min}` is greater than max `{max}`"),
            );
        } else if width(
            cx,
            &here,
            item.at,
            &format!("`{min}` – `{max}`"),
            Span::of(min, max),
            bot,
        ) {
            out.push(IpRange { min, max });
        }
    }
    Some(out)
}

/// Reads a `uap_extras.yaml` file.
pub(super) fn extras(file: &Arc<str>, text: &str) -> (Vec<UaExtra>, Vec<Problem>) {
    let mut cx = Ctx {
        file,
        problems: Vec::new(),
    };
    let Some(entries) = cx.document(text, "user_agent_parsers") else {
        return (Vec::new(), cx.problems);
    };
    let mut out = Vec::new();
    for (key, node, _) in cx.fields("", &entries, &["user_agent_parsers"]) {
        let Some(items) = cx.list(key, node) else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let path = format!("user_agent_parsers[{i}]");
            let Some(fields) = cx.item_fields(
                &path,
                item,
                "a parser (a mapping with `regex:`)",
                &EXTRA_KEYS,
            ) else {
                continue;
            };
            let get = |k: &str| fields.iter().find(|(n, _, _)| *n == k).map(|(_, v, _)| *v);
            let Some(regex_node) = get("regex") else {
                cx.error(&path, item.at, "a parser needs a `regex`".to_owned());
                continue;
            };
            let Some(regex) = cx.string(&join(&path, "regex"), regex_node) else {
                continue;
            };
            let family_replacement = match get("family_replacement") {
                Some(n) => match cx.string(&join(&path, "family_replacement"), n) {
                    Some(f) => Some(f),
                    None => continue,
                },
                None => None,
            };
            let groups = match regex_syntax::Parser::new().parse(&regex) {
                Ok(hir) => hir.properties().explicit_captures_len(),
                Err(e) => {
                    cx.error(
                        &join(&path, "regex"),
                        regex_node.at,
                        format!(
                            "not a valid regular expression: {}",
                            first_line(&e.to_string())
                        ),
                    );
                    continue;
                }
            };
            let needs_group = family_replacement
                .as_deref()
                .is_none_or(|f| f.contains("$1"));
            if needs_group && groups == 0 {
                cx.error(
                    &join(&path, "regex"),
                    regex_node.at,
                    "the family comes from capture group 1, but the regex has no group".to_owned(),
                );
                continue;
            }
            out.push(UaExtra {
                regex,
                family_replacement,
                origin: Origin {
                    file: file.clone(),
                    at: item.at,
                },
                index: i,
            });
        }
    }
    cx.problems.sort_by_key(|p| p.at);
    (out, cx.problems)
}

/// Whether the file's first top-level key is `user_agent_parsers`.
pub(super) fn is_extras(text: &str) -> bool {
    yaml::first_key(text).as_deref() == Some("user_agent_parsers")
}

fn first_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .unwrap_or(text)
        .trim()
}

/// An extra must name a registered bot: its `family_replacement`, or else
/// every text its capture group 1 can match, when that is a finite set of
/// literals. A group that can match unbounded text cannot be checked here;
/// the classifier then checks each match at run time.
pub(super) fn check_extra_names(
    extra: &UaExtra,
    bots: &HashMap<String, usize>,
    problems: &mut Vec<Problem>,
) {
    let families: Vec<String> = match &extra.family_replacement {
        Some(f) if !f.contains('$') => vec![f.clone()],
        _ => match group_one_literals(&extra.regex) {
            Some(lits) => match &extra.family_replacement {
                Some(f) => lits.iter().map(|l| f.replace("$1", l)).collect(),
                None => lits,
            },
            None => return,
        },
    };
    for family in families {
        if !bots.contains_key(&family) {
            problems.push(Problem {
                severity: Severity::Error,
                file: extra.origin.file.clone(),
                path: format!(
                    "user_agent_parsers[{}].{}",
                    extra.index,
                    if extra.family_replacement.is_some() {
                        "family_replacement"
                    } else {
                        "regex"
                    }
                ),
                at: extra.origin.at,
                message: format!(
                    "the parser `{}` names the family `{family}`, which is no bot in the registry",
                    extra.regex
                ),
            });
        }
    }
}

/// The finite set of texts capture group 1 of `regex` matches, if finite
/// and small.
fn group_one_literals(regex: &str) -> Option<Vec<String>> {
    use regex_syntax::hir::{Hir, HirKind};
    fn find(h: &Hir) -> Option<&Hir> {
        match h.kind() {
            HirKind::Capture(c) if c.index == 1 => Some(&c.sub),
            HirKind::Capture(c) => find(&c.sub),
            HirKind::Concat(v) | HirKind::Alternation(v) => v.iter().find_map(find),
            HirKind::Repetition(r) => find(&r.sub),
            _ => None,
        }
    }
    fn expand(h: &Hir) -> Option<Vec<String>> {
        match h.kind() {
            HirKind::Empty => Some(vec![String::new()]),
            HirKind::Literal(l) => Some(vec![String::from_utf8(l.0.to_vec()).ok()?]),
            HirKind::Capture(c) => expand(&c.sub),
            HirKind::Alternation(v) => {
                let mut out = Vec::new();
                for h in v {
                    out.extend(expand(h)?);
                }
                Some(out)
            }
            HirKind::Concat(v) => {
                let mut acc = vec![String::new()];
                for h in v {
                    let next = expand(h)?;
                    acc = acc
                        .iter()
                        .flat_map(|a| next.iter().map(move |n| format!("{a}{n}")))
                        .collect();
                    if acc.len() > 64 {
                        return None;
                    }
                }
                Some(acc)
            }
            _ => None,
        }
    }
    let hir = regex_syntax::Parser::new().parse(regex).ok()?;
    expand(find(&hir)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_match_on_label_boundaries() {
        assert!(suffix_on_label("crawl-1.googlebot.com", "googlebot.com"));
        assert!(suffix_on_label("googlebot.com", "googlebot.com"));
        assert!(suffix_on_label("CRAWL.GoogleBot.com", "googlebot.com"));
        assert!(!suffix_on_label("evilgooglebot.com", "googlebot.com"));
        assert!(!suffix_on_label(
            "crawl.googlebot.com.evil.example",
            "googlebot.com"
        ));
        assert!(!suffix_on_label("com", "googlebot.com"));
    }

    #[test]
    fn misspelt_keys_get_a_suggestion() {
        assert_eq!(closest("fcrdns_host", &BOT_KEYS), Some("fcrdns_hosts"));
        assert_eq!(closest("cidr", &BOT_KEYS), None);
        assert_eq!(closest("ip_range", &BOT_KEYS), Some("ip_ranges"));
    }

    #[test]
    fn group_one_literals_are_expanded() {
        assert_eq!(
            group_one_literals(r"(Yandex(?:Bot|Images))/").unwrap(),
            ["YandexBot", "YandexImages"]
        );
        assert_eq!(group_one_literals(r"(\w+bot)/"), None);
        assert_eq!(group_one_literals(r"DuckDuckGo/\d"), None);
    }
}
