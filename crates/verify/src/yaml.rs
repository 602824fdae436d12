//! A small YAML tree with positions, for validation that names the line.
//!
//! The registry is read through this tree rather than through serde so that
//! validation can report *every* problem (not just the first), with its path
//! and line, and so that duplicate keys — which YAML libraries usually
//! resolve silently, last one wins — are reported instead of lost.
//!
//! Only what a registry needs is kept: scalars (as text, with whether they
//! were quoted), sequences and mappings. Anchors and aliases are expanded,
//! within bounds: a document may hold at most [`MAX_NODES`] nodes and
//! [`MAX_SCALAR_BYTES`] bytes of scalar text once its aliases are expanded,
//! nested at most [`MAX_DEPTH`] deep, so that a few hundred bytes of nested
//! aliases (the "billion laughs") are refused at the alias that crosses a
//! bound, before anything is copied. Every YAML text the crate reads —
//! registries, extras and uap-core's `regexes.yaml` ([`serde_options`]) —
//! has these bounds.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

/// The most nodes (scalars, sequences, mappings) a YAML document may hold
/// once its aliases are expanded. The default registry holds a few
/// thousand, uap-core's `regexes.yaml` about ten thousand.
pub(crate) const MAX_NODES: usize = 250_000;

/// The deepest a YAML document may nest (a registry nests four deep).
pub(crate) const MAX_DEPTH: usize = 64;

/// The most bytes of scalar text a YAML document may hold once its aliases
/// are expanded.
pub(crate) const MAX_SCALAR_BYTES: usize = 64 << 20;

/// `serde-saphyr` options with the bounds above, for the YAML read through
/// serde.
pub(crate) fn serde_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = MAX_NODES;
    budget.max_depth = MAX_DEPTH;
    budget.max_total_scalar_bytes = MAX_SCALAR_BYTES;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = MAX_NODES;
    options.alias_limits.max_replay_stack_depth = MAX_DEPTH;
    options
}

/// A place in the source text: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Position {
    /// Line, counting from 1.
    pub line: usize,
    /// Column, counting from 1.
    pub col: usize,
}

impl Position {
    fn of(span: &Span) -> Position {
        Position {
            line: span.start.line(),
            col: span.start.col() + 1,
        }
    }
}

/// A YAML node with where it starts.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) at: Position,
    pub(crate) kind: Kind,
}

/// What a node holds.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// A scalar as written (after YAML unescaping).
    Scalar {
        /// Its text.
        text: String,
        /// Plain (unquoted) scalars may mean null, booleans or numbers.
        plain: bool,
    },
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in document order, duplicates kept.
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The scalar's text, when this is a scalar.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// Whether this is YAML's null (`~`, `null`, or nothing).
    pub(crate) fn is_null(&self) -> bool {
        matches!(&self.kind, Kind::Scalar { text, plain: true }
            if text.is_empty() || text == "~" || text.eq_ignore_ascii_case("null"))
    }

    /// A word for the node's type, for error messages.
    pub(crate) fn kind_name(&self) -> &'static str {
        match &self.kind {
            Kind::Scalar { .. } if self.is_null() => "null",
            Kind::Scalar { .. } => "a scalar",
            Kind::Seq(_) => "a list",
            Kind::Map(_) => "a mapping",
        }
    }
}

/// A YAML text that cannot be read: not YAML, or past a bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub(crate) at: Position,
    pub(crate) message: String,
    /// Past [`MAX_NODES`], [`MAX_DEPTH`] or [`MAX_SCALAR_BYTES`] rather
    /// than invalid.
    pub(crate) limit: bool,
}

/// Parses the first document of `text`; `Ok(None)` for an empty stream.
/// A second document is an error: a registry is one document.
pub(crate) fn parse(text: &str) -> Result<Option<Node>, SyntaxError> {
    let mut parser = Parser::new_from_str(text);
    let mut builder = Builder::default();
    let mut documents = 0usize;
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| SyntaxError {
            at: Position {
                line: e.marker().line(),
                col: e.marker().col() + 1,
            },
            message: e.info().to_owned(),
            limit: false,
        })?;
        if let Event::DocumentStart(_) = event {
            documents += 1;
            if documents > 1 {
                return Err(SyntaxError {
                    at: Position::of(&span),
                    message: "a second YAML document; a registry file holds one".to_owned(),
                    limit: false,
                });
            }
            continue;
        }
        builder.event(event, &span)?;
    }
    Ok(builder.root)
}

/// An open collection: the node, its anchor id, and what its finished
/// children hold.
struct Open {
    node: Node,
    anchor: usize,
    size: Size,
}

/// What a finished node holds: nodes, scalar bytes, and its height (1 for a
/// scalar or an empty collection).
#[derive(Debug, Clone, Copy, Default)]
struct Size {
    nodes: usize,
    bytes: usize,
    height: usize,
}

/// The first key of the document's root mapping, read without building the
/// tree; `None` when the root is no mapping, its first key no scalar, or
/// the text is not YAML before that key.
pub(crate) fn first_key(text: &str) -> Option<String> {
    let mut parser = Parser::new_from_str(text);
    let mut in_root = false;
    while let Some(Ok((event, _))) = parser.next_event() {
        match event {
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => {}
            Event::MappingStart(..) if !in_root => in_root = true,
            Event::Scalar(key, ..) if in_root => return Some(key.into_owned()),
            _ => return None,
        }
    }
    None
}

/// Builds the tree from parser events.
#[derive(Default)]
struct Builder {
    stack: Vec<Open>,
    /// A mapping key waiting for its value, per open mapping (by depth).
    keys: Vec<Option<Node>>,
    anchors: HashMap<usize, (Node, Size)>,
    root: Option<Node>,
    /// Nodes and scalar bytes so far, aliases expanded.
    total: Size,
}

impl Builder {
    fn event(&mut self, event: Event<'_>, span: &Span) -> Result<(), SyntaxError> {
        let at = Position::of(span);
        match event {
            Event::Scalar(text, style, anchor, _tag) => {
                let size = Size {
                    nodes: 1,
                    bytes: text.len(),
                    height: 1,
                };
                self.admit(at, size, false)?;
                let node = Node {
                    at,
                    kind: Kind::Scalar {
                        text: text.into_owned(),
                        plain: style == ScalarStyle::Plain,
                    },
                };
                self.complete(node, anchor, size);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let size = Size {
                    nodes: 1,
                    bytes: 0,
                    height: 1,
                };
                self.admit(at, size, false)?;
                let kind = match event {
                    Event::SequenceStart(..) => Kind::Seq(Vec::new()),
                    _ => Kind::Map(Vec::new()),
                };
                self.stack.push(Open {
                    node: Node { at, kind },
                    anchor,
                    size,
                });
                self.keys.push(None);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(open) = self.stack.pop() {
                    self.keys.pop();
                    self.complete(open.node, open.anchor, open.size);
                }
            }
            Event::Alias(id) => {
                let Some(&(_, size)) = self.anchors.get(&id) else {
                    return Err(SyntaxError {
                        at,
                        message: "an alias to an unknown anchor".to_owned(),
                        limit: false,
                    });
                };
                self.admit(at, size, true)?;
                // Keep the alias's own position, so errors point at the use.
                let node = Node {
                    at,
                    ..self.anchors[&id].0.clone()
                };
                self.complete(node, 0, size);
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentStart(_) => {}
            Event::DocumentEnd => {}
        }
        Ok(())
    }

    /// Counts a node of `size` about to be added at the current depth, or
    /// refuses it past a bound.
    fn admit(&mut self, at: Position, size: Size, alias: bool) -> Result<(), SyntaxError> {
        let what = if alias {
            format!(
                "the alias here expands to {} nodes nested {} deep, so the document ",
                size.nodes, size.height
            )
        } else {
            "the document ".to_owned()
        };
        let over = |message: String| SyntaxError {
            at,
            message,
            limit: true,
        };
        if self.stack.len() + size.height > MAX_DEPTH {
            return Err(over(format!(
                "{what}would nest deeper than {MAX_DEPTH} levels (the limit for a YAML file)"
            )));
        }
        let nodes = self.total.nodes.saturating_add(size.nodes);
        if nodes > MAX_NODES {
            return Err(over(format!(
                "{what}would hold more than {MAX_NODES} nodes with its aliases expanded (the limit for a YAML file)"
            )));
        }
        let bytes = self.total.bytes.saturating_add(size.bytes);
        if bytes > MAX_SCALAR_BYTES {
            return Err(over(format!(
                "{what}would hold more than {} MiB of text with its aliases expanded (the limit for a YAML file)",
                MAX_SCALAR_BYTES >> 20
            )));
        }
        self.total.nodes = nodes;
        self.total.bytes = bytes;
        Ok(())
    }

    /// A finished node goes into its parent (or becomes the root).
    fn complete(&mut self, node: Node, anchor: usize, size: Size) {
        if anchor != 0 {
            self.anchors.insert(anchor, (node.clone(), size));
        }
        let Some(parent) = self.stack.last_mut() else {
            if self.root.is_none() {
                self.root = Some(node);
            }
            return;
        };
        parent.size.nodes += size.nodes;
        parent.size.bytes += size.bytes;
        parent.size.height = parent.size.height.max(size.height + 1);
        match &mut parent.node.kind {
            Kind::Seq(items) => items.push(node),
            Kind::Map(entries) => {
                let slot = self
                    .keys
                    .last_mut()
                    .expect("one key slot per open collection");
                match slot.take() {
                    None => *slot = Some(node),
                    Some(key) => entries.push((key, node)),
                }
            }
            Kind::Scalar { .. } => unreachable!("scalars are never open"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_duplicates_and_positions() {
        let root = parse("a: 1\nb:\n  - x\n  - 'y'\na: 2\n").unwrap().unwrap();
        let Kind::Map(entries) = &root.kind else {
            panic!("a mapping")
        };
        let keys: Vec<_> = entries.iter().map(|(k, _)| k.as_str().unwrap()).collect();
        assert_eq!(keys, ["a", "b", "a"]);
        assert_eq!(entries[2].0.at, Position { line: 5, col: 1 });
        let Kind::Seq(items) = &entries[1].1.kind else {
            panic!("a list")
        };
        assert_eq!(items[1].at, Position { line: 4, col: 5 });
        assert!(matches!(&items[1].kind, Kind::Scalar { plain: false, .. }));
    }

    #[test]
    fn expands_aliases_and_rejects_two_documents() {
        let root = parse("a: &x [1, 2]\nb: *x\n").unwrap().unwrap();
        let Kind::Map(entries) = &root.kind else {
            panic!("a mapping")
        };
        assert!(matches!(&entries[1].1.kind, Kind::Seq(v) if v.len() == 2));
        assert_eq!(parse("").unwrap().map(|n| n.kind_name()), None);
        let err = parse("a: 1\n---\nb: 2\n").unwrap_err();
        assert_eq!(err.at.line, 2);
        let err = parse("a: [1, 2\n").unwrap_err();
        assert!(err.at.line >= 1, "{err:?}");
    }

    /// Nine levels of ten aliases: under 1 KB, 10^9 nodes expanded.
    pub(crate) fn laughs(list_key: &str) -> String {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        text.push_str(&format!("{list_key}: *a9\n"));
        text
    }

    #[test]
    fn the_first_key_is_read_without_the_tree() {
        assert_eq!(
            first_key("user_agent_parsers:\n  - regex: x\n").as_deref(),
            Some("user_agent_parsers")
        );
        assert_eq!(first_key("bots: []\n").as_deref(), Some("bots"));
        assert_eq!(first_key("- a\n"), None);
        assert_eq!(first_key("{[a]: 1}"), None);
        assert_eq!(first_key(""), None);
        // The aliases after the first key are never expanded.
        assert_eq!(first_key(&laughs("bots")).as_deref(), Some("a0"));
    }

    #[test]
    fn alias_expansion_is_bounded_in_nodes() {
        let text = laughs("bots");
        assert!(text.len() < 1024);
        let err = parse(&text).unwrap_err();
        assert!(err.limit);
        // a0 to a4 hold 123,455 nodes; the second alias of a4 (111,111
        // nodes) crosses 250,000.
        assert_eq!(err.at, Position { line: 6, col: 15 });
        assert!(
            err.message.starts_with(
                "the alias here expands to 111111 nodes nested 6 deep, so the document would hold \
                 more than 250000 nodes"
            ),
            "{}",
            err.message
        );
    }

    #[test]
    fn nesting_is_bounded_with_and_without_aliases() {
        let deep = format!(
            "{}x{}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        let err = parse(&deep).unwrap_err();
        assert!(
            err.limit && err.message.contains("nest deeper than 64 levels"),
            "{err:?}"
        );
        let fits = format!(
            "{}x{}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(parse(&fits).is_ok());
        // An alias of a node 40 deep, placed 30 deep.
        let inner = format!("{}x{}", "[".repeat(40), "]".repeat(40));
        let text = format!("a: &a {inner}\nb: {}*a{}\n", "[".repeat(30), "]".repeat(30));
        let err = parse(&text).unwrap_err();
        assert!(
            err.limit && err.message.contains("nested 41 deep"),
            "{err:?}"
        );
        assert_eq!(err.at.line, 2);
    }

    #[test]
    fn aliased_text_is_bounded_in_bytes() {
        let long = "x".repeat(1 << 20);
        let text = format!("a: &a '{long}'\nb: [{}]\n", ["*a"; 70].join(", "));
        let err = parse(&text).unwrap_err();
        assert!(err.limit && err.message.contains("64 MiB"), "{err:?}");
        // Below the bound, aliases still expand.
        let text = format!("a: &a '{long}'\nb: [{}]\n", ["*a"; 10].join(", "));
        assert!(parse(&text).is_ok());
    }

    #[test]
    fn serde_reads_have_the_same_bounds() {
        let text = laughs("user_agent_parsers");
        let err = serde_saphyr::from_str_with_options::<serde_json::Value>(&text, serde_options())
            .unwrap_err();
        assert!(
            err.to_string().contains("alias replay limit exceeded"),
            "{err}"
        );
    }
}
