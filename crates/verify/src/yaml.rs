//! A small YAML tree with positions, for validation that names the line.
//!
//! The registry is read through this tree rather than through serde so that
//! validation can report *every* problem (not just the first), with its path
//! and line, and so that duplicate keys — which YAML libraries usually
//! resolve silently, last one wins — are reported instead of lost.
//!
//! Only what a registry needs is kept: scalars (as text, with whether they
//! were quoted), sequences and mappings. Anchors and aliases are expanded.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

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

/// A YAML syntax error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub(crate) at: Position,
    pub(crate) message: String,
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
        })?;
        if let Event::DocumentStart(_) = event {
            documents += 1;
            if documents > 1 {
                return Err(SyntaxError {
                    at: Position::of(&span),
                    message: "a second YAML document; a registry file holds one".to_owned(),
                });
            }
            continue;
        }
        builder.event(event, &span)?;
    }
    Ok(builder.root)
}

/// Builds the tree from parser events.
#[derive(Default)]
struct Builder {
    /// Open collections: the node and, per collection, its anchor id.
    stack: Vec<(Node, usize)>,
    /// A mapping key waiting for its value, per open mapping (by depth).
    keys: Vec<Option<Node>>,
    anchors: HashMap<usize, Node>,
    root: Option<Node>,
}

impl Builder {
    fn event(&mut self, event: Event<'_>, span: &Span) -> Result<(), SyntaxError> {
        let at = Position::of(span);
        match event {
            Event::Scalar(text, style, anchor, _tag) => {
                let node = Node {
                    at,
                    kind: Kind::Scalar {
                        text: text.into_owned(),
                        plain: style == ScalarStyle::Plain,
                    },
                };
                self.complete(node, anchor);
            }
            Event::SequenceStart(anchor, _) => {
                self.stack.push((
                    Node {
                        at,
                        kind: Kind::Seq(Vec::new()),
                    },
                    anchor,
                ));
                self.keys.push(None);
            }
            Event::MappingStart(anchor, _) => {
                self.stack.push((
                    Node {
                        at,
                        kind: Kind::Map(Vec::new()),
                    },
                    anchor,
                ));
                self.keys.push(None);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((node, anchor)) = self.stack.pop() {
                    self.keys.pop();
                    self.complete(node, anchor);
                }
            }
            Event::Alias(id) => {
                let Some(node) = self.anchors.get(&id).cloned() else {
                    return Err(SyntaxError {
                        at,
                        message: "an alias to an unknown anchor".to_owned(),
                    });
                };
                // Keep the alias's own position, so errors point at the use.
                self.complete(Node { at, ..node }, 0);
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentStart(_) => {}
            Event::DocumentEnd => {}
        }
        Ok(())
    }

    /// A finished node goes into its parent (or becomes the root).
    fn complete(&mut self, node: Node, anchor: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        let Some((parent, _)) = self.stack.last_mut() else {
            if self.root.is_none() {
                self.root = Some(node);
            }
            return;
        };
        match &mut parent.kind {
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
}
