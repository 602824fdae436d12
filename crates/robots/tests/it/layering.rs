//! The crate's modules import one another without cycles: each decision
//! has one home, and a module's vocabulary sits below the modules that use
//! it (the fixer and the differential check share `change`, and neither
//! imports the other).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Per top-level module of `src/`, the other top-level modules its code
/// (outside its tests) names through `crate::`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("list src") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).expect("under src");
            let top = rel
                .components()
                .next()
                .and_then(|c| c.as_os_str().to_str())
                .expect("a name")
                .trim_end_matches(".rs")
                .to_owned();
            if top == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read a module");
            // Code only: not the tests, not comments (documentation links
            // name items, such as the function `crate::fix()`).
            let code: String = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            let deps = graph.entry(top.clone()).or_default();
            for (at, _) in code.match_indices("crate::") {
                let name: String = code[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() && name != top {
                    deps.insert(name);
                }
            }
        }
    }
    // Names that are items re-exported at the root, not modules.
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| modules.contains(d));
    }
    graph
}

#[test]
fn modules_import_one_another_without_cycles() {
    let graph = imports();
    assert!(graph.contains_key("change") && graph.contains_key("fix"));
    assert!(!graph["fix"].contains("equivalence"), "{:?}", graph["fix"]);
    assert!(
        !graph["equivalence"].contains("fix"),
        "{:?}",
        graph["equivalence"]
    );
    // Depth-first search for a path back to where it started.
    fn cycle(
        graph: &BTreeMap<String, BTreeSet<String>>,
        at: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == at) {
            let mut found = path[i..].to_vec();
            found.push(at.to_owned());
            return Some(found);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_owned());
        for next in &graph[at] {
            if let Some(c) = cycle(graph, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(at.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for start in graph.keys() {
        if let Some(c) = cycle(&graph, start, &mut Vec::new(), &mut done) {
            panic!("modules import one another in a cycle: {}", c.join(" → "));
        }
    }
}
