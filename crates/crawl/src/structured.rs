//! What the audit reads of a page's JSON-LD beyond whether it parses: the
//! items of a type whose rich result needs properties they lack, and the
//! vocabularies their `@context`s name.
//!
//! The items judged are a block's top-level objects and the members of
//! their `@graph`; an object nested as another's property value (an
//! `Offer` under `offers`, a `Product` under a review's `itemReviewed`) is
//! that item's property, not an item of its own, and is judged only where
//! the table below asks for it (a breadcrumb's `ListItem`s, a FAQ's
//! questions and answers). Types are read from `@type`, a string or an
//! array, with a `schema:` or `http(s)://schema.org/` prefix or without.
//!
//! The table, after Google Search Central's structured data documentation
//! (each type's page is quoted in `docs/audit.md`):
//!
//! | type | required |
//! |---|---|
//! | `Product` | `name`; one of `offers`, `review`, `aggregateRating` |
//! | `BreadcrumbList` | `itemListElement`; each `ListItem`: `position`, `name` (on it or on its `item`), `item` but on the last |
//! | `FAQPage` | `mainEntity`; each `Question`: `name`, `acceptedAnswer`; each answer: `text` |
//! | `Recipe` | `name`, `image` |
//! | `Event` | `name`, `startDate`, `location` |
//! | `JobPosting` | `title`, `description`, `datePosted`, `hiringOrganization`; `jobLocation` unless `jobLocationType` is `TELECOMMUTE` |
//!
//! `Article` and `Organization` are not in it: Google requires none of
//! their properties. A property is present when its value is not `null`,
//! `""`, `[]` nor `{}`.

use serde_json::{Map, Value};

use crate::quality::{MAX_CONTEXTS, Quality};

/// What one JSON-LD block adds to the page's facts: its items that lack
/// required properties (counted, the first named with the block's number
/// `block`, from 1), and its items' contexts.
pub(crate) fn read_block(q: &mut Quality, block: usize, value: &Value) {
    for item in top_items(value) {
        if let Some(context) = item.get("@context").map(context_key)
            && !context.is_empty()
            && !q.jsonld_contexts.contains(&context)
            && q.jsonld_contexts.len() < MAX_CONTEXTS
        {
            q.jsonld_contexts.push(context);
        }
        for node in std::iter::once(item).chain(graph(item)) {
            for lack in lacks(node) {
                q.jsonld_missing += 1;
                q.jsonld_missing_first
                    .get_or_insert_with(|| format!("block {block}: {lack}"));
            }
        }
    }
}

/// A block's top-level objects: the block itself, or an array's members.
fn top_items(value: &Value) -> Vec<&Map<String, Value>> {
    match value {
        Value::Object(o) => vec![o],
        Value::Array(a) => a.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    }
}

/// The objects of an item's `@graph`.
fn graph(item: &Map<String, Value>) -> impl Iterator<Item = &Map<String, Value>> {
    item.get("@graph")
        .into_iter()
        .flat_map(as_list)
        .filter_map(Value::as_object)
}

/// A value as a list: an array's members, or the value alone.
fn as_list(value: &Value) -> &[Value] {
    match value {
        Value::Array(a) => a,
        other => std::slice::from_ref(other),
    }
}

/// Whether a property is there with a value (not `null`, `""`, `[]`,
/// `{}`).
fn present(node: &Map<String, Value>, key: &str) -> bool {
    match node.get(key) {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(_) => true,
    }
}

/// A node's types, without a schema.org prefix.
fn types(node: &Map<String, Value>) -> Vec<&str> {
    node.get("@type")
        .into_iter()
        .flat_map(as_list)
        .filter_map(Value::as_str)
        .map(|t| {
            let t = t.trim();
            ["https://schema.org/", "http://schema.org/", "schema:"]
                .iter()
                .find_map(|p| t.strip_prefix(p))
                .unwrap_or(t)
        })
        .collect()
}

/// What a node lacks, one sentence per type of the table it has
/// (`Product lacks name`).
fn lacks(node: &Map<String, Value>) -> Vec<String> {
    types(node)
        .into_iter()
        .filter_map(|t| {
            let missing = required(t, node)?;
            (!missing.is_empty()).then(|| format!("{t} lacks {}", missing.join(", ")))
        })
        .collect()
}

/// The required properties a node of type `t` lacks, `None` for a type
/// outside the table.
fn required(t: &str, node: &Map<String, Value>) -> Option<Vec<String>> {
    let plain = |keys: &[&str]| -> Vec<String> {
        keys.iter()
            .filter(|k| !present(node, k))
            .map(|k| (*k).to_owned())
            .collect()
    };
    Some(match t {
        "Product" => {
            let mut m = plain(&["name"]);
            if !["offers", "review", "aggregateRating"]
                .iter()
                .any(|k| present(node, k))
            {
                m.push("offers, review or aggregateRating".to_owned());
            }
            m
        }
        "Recipe" => plain(&["name", "image"]),
        "Event" => plain(&["name", "startDate", "location"]),
        "JobPosting" => job_posting(
            node,
            plain(&["title", "description", "datePosted", "hiringOrganization"]),
        ),
        "BreadcrumbList" => breadcrumbs(node),
        "FAQPage" => faq(node),
        _ => return None,
    })
}

/// A job posting's location, unless it is remote work.
fn job_posting(node: &Map<String, Value>, mut missing: Vec<String>) -> Vec<String> {
    let remote = node
        .get("jobLocationType")
        .into_iter()
        .flat_map(as_list)
        .filter_map(Value::as_str)
        .any(|t| t.trim().eq_ignore_ascii_case("TELECOMMUTE"));
    if !remote && !present(node, "jobLocation") {
        missing.push("jobLocation".to_owned());
    }
    missing
}

/// The members of a property that lists parts (one value or an array),
/// `None` when it is missing.
fn members<'a>(node: &'a Map<String, Value>, key: &str) -> Option<&'a [Value]> {
    present(node, key).then(|| node.get(key).map_or(&[][..], as_list))
}

/// A breadcrumb list's items: each a `ListItem` with a position and a
/// name, and an `item` but for the last.
fn breadcrumbs(node: &Map<String, Value>) -> Vec<String> {
    let Some(items) = members(node, "itemListElement") else {
        return vec!["itemListElement".to_owned()];
    };
    let mut missing = Vec::new();
    for (i, element) in items.iter().enumerate() {
        let last = i + 1 == items.len();
        let lacked: Vec<&str> = match element.as_object() {
            None => vec!["position", "name"],
            Some(li) => {
                let named = present(li, "name")
                    || li
                        .get("item")
                        .and_then(Value::as_object)
                        .is_some_and(|o| present(o, "name"));
                let mut l = Vec::new();
                if !present(li, "position") {
                    l.push("position");
                }
                if !named {
                    l.push("name");
                }
                if !last && !present(li, "item") {
                    l.push("item");
                }
                l
            }
        };
        missing.extend(
            lacked
                .iter()
                .map(|k| format!("{k} in itemListElement {}", i + 1)),
        );
    }
    missing
}

/// A FAQ page's questions: each named, with an accepted answer that has a
/// text.
fn faq(node: &Map<String, Value>) -> Vec<String> {
    let Some(questions) = members(node, "mainEntity") else {
        return vec!["mainEntity".to_owned()];
    };
    let mut missing = Vec::new();
    for (i, q) in questions.iter().enumerate() {
        let n = i + 1;
        let Some(q) = q.as_object() else {
            missing.push(format!("name in mainEntity {n}"));
            continue;
        };
        if !present(q, "name") {
            missing.push(format!("name in mainEntity {n}"));
        }
        if !present(q, "acceptedAnswer") {
            missing.push(format!("acceptedAnswer in mainEntity {n}"));
            continue;
        }
        let answers = q.get("acceptedAnswer").map_or(&[][..], as_list);
        if answers
            .iter()
            .any(|a| a.as_object().is_none_or(|a| !present(a, "text")))
        {
            missing.push(format!("acceptedAnswer text in mainEntity {n}"));
        }
    }
    missing
}

/// The vocabularies a `@context` names, normalized and joined by ` + `:
/// its strings and an object's `@vocab` (`{"@language": "en"}` names
/// none); schema.org by any scheme, `www.` or path is `schema.org`.
fn context_key(context: &Value) -> String {
    let mut names: Vec<String> = as_list(context)
        .iter()
        .filter_map(|c| match c {
            Value::String(s) => Some(s.as_str()),
            Value::Object(o) => o.get("@vocab").and_then(Value::as_str),
            _ => None,
        })
        .map(vocabulary)
        .filter(|v| !v.is_empty())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.join(" + ")
}

/// A vocabulary's IRI without its scheme, `www.` and trailing `/` or `#`,
/// in lower case; any IRI of schema.org is `schema.org`.
fn vocabulary(iri: &str) -> String {
    let lower = iri.trim().to_ascii_lowercase();
    let rest = ["https://", "http://"]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .unwrap_or(&lower);
    let rest = rest.strip_prefix("www.").unwrap_or(rest);
    if rest == "schema.org" || rest.starts_with("schema.org/") || rest.starts_with("schema.org#") {
        return "schema.org".to_owned();
    }
    rest.trim_end_matches(['/', '#']).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Quality {
        let mut q = Quality::default();
        read_block(&mut q, 1, &serde_json::from_str(json).expect("json"));
        q
    }

    #[test]
    fn required_properties_by_type_in_graphs_and_arrays() {
        let q = read(r#"{"@type": "Product", "name": "x"}"#);
        assert_eq!(
            q.jsonld_missing_first.as_deref(),
            Some("block 1: Product lacks offers, review or aggregateRating")
        );
        let q = read(
            r#"[{"@type": ["Product", "Thing"], "name": "x", "review": {"@type": "Review"}},
                {"@type": "Article"}, {"@type": "Organization"},
                {"@type": "Review", "itemReviewed": {"@type": "Product"}}]"#,
        );
        assert_eq!((q.jsonld_missing, q.jsonld_missing_first), (0, None));
        let q = read(
            r#"{"@context": "https://schema.org", "@graph": [
                {"@type": "BreadcrumbList", "itemListElement": [
                    {"@type": "ListItem", "position": 1, "name": "a", "item": "/a"},
                    {"@type": "ListItem", "item": {"@id": "/b", "name": "b"}},
                    {"@type": "ListItem", "position": 3, "name": "c"}]},
                {"@type": "schema:Recipe", "name": "r"},
                {"@type": "JobPosting", "title": "t", "description": "d", "datePosted": "2026-01-01",
                 "hiringOrganization": {"name": "o"}, "jobLocationType": "TELECOMMUTE"}]}"#,
        );
        assert_eq!(q.jsonld_missing, 2);
        assert_eq!(
            q.jsonld_missing_first.as_deref(),
            Some("block 1: BreadcrumbList lacks position in itemListElement 2")
        );
        let q = read(
            r#"{"@type": "FAQPage", "mainEntity": [
                {"@type": "Question", "name": "q", "acceptedAnswer": {"@type": "Answer", "text": "a"}},
                {"@type": "Question", "name": "q", "acceptedAnswer": {"@type": "Answer", "text": ""}}]}"#,
        );
        assert_eq!(
            q.jsonld_missing_first.as_deref(),
            Some("block 1: FAQPage lacks acceptedAnswer text in mainEntity 2")
        );
        for odd in [
            "1",
            "null",
            "[1, \"x\", null]",
            r#"{"@type": 5}"#,
            r#"{"@type": "Event", "name": {}}"#,
        ] {
            let _ = read(odd);
        }
        assert_eq!(
            read(r#"{"@type": "Event", "name": {}}"#)
                .jsonld_missing_first
                .as_deref(),
            Some("block 1: Event lacks name, startDate, location")
        );
    }

    #[test]
    fn contexts_are_told_apart_by_vocabulary() {
        let mut q = Quality::default();
        for (i, json) in [
            r#"{"@context": "http://schema.org", "@type": "Thing"}"#,
            r#"{"@context": "https://www.schema.org/", "@type": "Thing"}"#,
            r#"{"@context": ["https://schema.org", {"@language": "en"}], "@type": "Thing"}"#,
            r#"{"@context": {"@language": "en"}, "@type": "Thing"}"#,
            r#"{"@type": "Thing"}"#,
        ]
        .iter()
        .enumerate()
        {
            read_block(&mut q, i + 1, &serde_json::from_str(json).expect("json"));
        }
        assert_eq!(q.jsonld_contexts, ["schema.org"]);
        read_block(
            &mut q,
            6,
            &serde_json::from_str(r#"{"@context": {"@vocab": "https://example.org/v/"}}"#)
                .expect("json"),
        );
        assert_eq!(q.jsonld_contexts, ["schema.org", "example.org/v"]);
    }
}
