//! ai.robots.txt's agents in the default registry: every name of the
//! snapshot in `data/ai-robots-txt/` is carried by one entry, imported from
//! the snapshot's commit, and `Classifier::classify` names that entry, with
//! its category, for a User-Agent holding the name.

use std::collections::HashMap;

use botwarden_verify::{Bot, Classifier, ProvenanceSource, Registry};

const ROBOTS_JSON: &str = include_str!("../../data/ai-robots-txt/robots.json");
const SOURCE_MD: &str = include_str!("../../data/ai-robots-txt/SOURCE.md");
const KNOWN_USER_AGENTS: &str = include_str!("ai_robots_uas.tsv");

/// The least share of robots.json's names that must be answered with the
/// right bot and category.
const FLOOR: f64 = 0.95;

/// robots.json's names, in the file's order.
fn names() -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_str(ROBOTS_JSON).expect("robots.json is JSON");
    let map = doc.as_object().expect("an object keyed by name");
    // serde_json's map is sorted unless told otherwise; the order does not
    // matter to the checks.
    map.keys().cloned().collect()
}

/// The commit the snapshot is of, from its SOURCE.md.
fn commit() -> String {
    SOURCE_MD
        .lines()
        .find_map(|l| l.strip_prefix("- commit: "))
        .expect("SOURCE.md names the commit")
        .trim()
        .to_owned()
}

/// robots.json's name → the entry that carries it, from the entries'
/// provenance records of ai.robots.txt (the name is `as`, or else the
/// entry's), each with the commit it was imported from.
fn carriers(registry: &Registry) -> HashMap<String, Vec<(&Bot, String)>> {
    let mut out: HashMap<String, Vec<(&Bot, String)>> = HashMap::new();
    for bot in registry.bots() {
        for record in &bot.provenance {
            if let ProvenanceSource::AiRobotsTxt { commit } = &record.source {
                let name = record.listed_as.clone().unwrap_or_else(|| bot.name.clone());
                out.entry(name).or_default().push((bot, commit.clone()));
            }
        }
    }
    out
}

#[test]
fn every_name_is_carried_by_one_entry_imported_from_the_snapshot() {
    let registry = Registry::builtin();
    let carriers = carriers(&registry);
    let commit = commit();
    let names = names();
    let mut wrong = Vec::new();
    for name in &names {
        match carriers.get(name).map(Vec::as_slice) {
            Some([(_, c)]) if *c == commit => {}
            Some([(bot, c)]) => wrong.push(format!("{name}: {} cites commit {c}", bot.name)),
            Some(more) => wrong.push(format!("{name}: carried by {} entries", more.len())),
            None => wrong.push(format!("{name}: no entry carries it")),
        }
    }
    // And no entry cites a name robots.json no longer has.
    for name in carriers.keys() {
        if !names.contains(name) {
            wrong.push(format!("{name}: cited, but not in robots.json"));
        }
    }
    assert!(
        wrong.is_empty(),
        "run scripts/import-ai-robots:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn classify_names_the_right_bot_and_category_for_ai_robots_txt_names() {
    let registry = Registry::builtin();
    let carriers = carriers(&registry);
    let classifier = Classifier::for_registry(&registry).expect("a classifier");
    let known: HashMap<&str, &str> = KNOWN_USER_AGENTS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut cols = l.splitn(3, '\t');
            let name = cols.next().expect("a name");
            let ua = cols.nth(1).expect("a User-Agent");
            (name, ua)
        })
        .collect();
    // robots.json's distinct names: names differing only in case are one.
    let mut seen = Vec::<String>::new();
    let mut misses = Vec::new();
    let mut total = 0;
    for name in names() {
        if seen.iter().any(|s| s.eq_ignore_ascii_case(&name)) {
            continue;
        }
        seen.push(name.clone());
        total += 1;
        let bot = carriers[&name][0].0;
        let ua = known.get(name.as_str()).map_or_else(
            || format!("Mozilla/5.0 (compatible; {name}/1.0)"),
            |u| (*u).to_owned(),
        );
        let c = classifier.classify(&ua);
        let want_category = bot.category.map(|c| c.as_str());
        let got = (c.bot.map(|b| b.name), c.category);
        if got != (Some(bot.name.as_str()), want_category) {
            misses.push(format!(
                "{name}: {ua:?} gives {got:?}, want ({}, {want_category:?})",
                bot.name
            ));
        }
    }
    let right = total - misses.len();
    let share = right as f64 / total as f64;
    eprintln!(
        "ai.robots.txt: {right} of {total} names ({:.1}%) classified as their entry, with its category; misses:\n{}",
        100.0 * share,
        misses.join("\n")
    );
    assert!(total > 100, "robots.json holds {total} distinct names");
    assert!(share >= FLOOR, "{right} of {total}:\n{}", misses.join("\n"));
}
