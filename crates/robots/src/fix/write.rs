//! Writing the fixed file: header, groups (one blank line before each, none
//! inside), sitemaps, trailing comments; every line with its origin.

use crate::parse::RobotsTxt;

use super::Log;
use super::arrange::Model;
use super::read::{Item, Piece, What};
use crate::change::{ChangeKind, NO_GROUP, Origin};

/// Lines whose only change is white space or blank lines around them.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Spacing {
    pub(super) lines: usize,
    pub(super) first: Option<u32>,
}

/// The text of the fixed file and where each of its lines comes from.
#[derive(Debug)]
pub(super) struct Written {
    pub(super) text: String,
    pub(super) origins: Vec<Origin>,
    pub(super) whitespace: Spacing,
}

struct Writer<'a> {
    model: &'a Model,
    text: String,
    origins: Vec<Origin>,
    /// Per original line: a blank line written again.
    used: Vec<bool>,
    last_blank: bool,
}

impl Writer<'_> {
    fn push(&mut self, origin: Origin, line: &str) {
        // Google skips each of the first three bytes of a file that equals
        // the byte-order mark's byte at that place. A comment whose first
        // character is not ASCII can put such a byte (the `BF` of U+FFFD)
        // at place 2; after `# ` it cannot, as UTF-8 never starts a
        // character with `BB` or `BF`.
        if self.text.is_empty()
            && let Some(rest) = line.strip_prefix('#')
            && rest.as_bytes().first().is_some_and(|b| !b.is_ascii())
        {
            self.text.push_str("# ");
            self.text.push_str(rest);
            self.text.push('\n');
            self.origins.push(origin);
            self.last_blank = false;
            return;
        }
        self.text.push_str(line);
        self.text.push('\n');
        self.origins.push(origin);
        self.last_blank = line.is_empty();
    }

    /// A blank line; `reuse` is the original blank line it stands for (0:
    /// none).
    fn blank(&mut self, reuse: u32) {
        if let Some(u) = self.used.get_mut(reuse as usize) {
            *u = reuse > 0;
        }
        self.push(
            Origin {
                line: reuse,
                group: NO_GROUP,
                copy: false,
            },
            "",
        );
    }

    /// The blank line before a section whose first original line is
    /// `first`: the blank line that stood before it, if any. Gives whether
    /// the file had that blank line (or nothing comes before the section).
    fn separator(&mut self, first: u32) -> bool {
        if self.origins.is_empty() {
            return true;
        }
        let model = self.model;
        let before = first.checked_sub(1).filter(|&b| {
            b > 0
                && model.blank[b as usize]
                && !self.used[b as usize]
                && !model.blank_in_group[b as usize]
        });
        self.blank(before.unwrap_or(0));
        before.is_some()
    }

    fn item(&mut self, item: &Item, group: u32, copy: bool) {
        for c in &item.comments {
            self.push(
                Origin {
                    line: c.line,
                    group,
                    copy: false,
                },
                &c.text,
            );
        }
        if let Some(o) = &item.out {
            self.push(
                Origin {
                    line: o.line,
                    group,
                    copy: copy && o.line > 0,
                },
                &o.text,
            );
        }
    }

    /// Header or trailer: runs of blank lines written as one, none first
    /// in the file, none last.
    fn pieces(&mut self, pieces: &[Piece]) {
        let mut pending: Option<u32> = None;
        for p in pieces {
            match p {
                Piece::Blank(n) => {
                    if pending.is_none() && !self.origins.is_empty() && !self.last_blank {
                        pending = Some(*n);
                    }
                }
                Piece::Comment(o) => {
                    if let Some(b) = pending.take() {
                        self.blank(b);
                    }
                    self.push(
                        Origin {
                            line: o.line,
                            group: NO_GROUP,
                            copy: false,
                        },
                        &o.text,
                    );
                }
                Piece::Item(item) => {
                    if let Some(b) = pending.take() {
                        self.blank(b);
                    }
                    self.item(item, NO_GROUP, false);
                }
            }
        }
    }
}

/// Writes the model; logs the blank lines added before groups and gives the
/// lines changed in white space only.
pub(super) fn write(txt: &RobotsTxt, model: &Model, log: &mut Log) -> Written {
    let lines = txt.lines().len();
    let mut w = Writer {
        model,
        text: String::with_capacity(txt.bytes().len() + 64),
        origins: Vec::with_capacity(lines + 16),
        used: vec![false; lines + 1],
        last_blank: false,
    };
    w.pieces(&model.header);
    for g in &model.groups {
        let first = g.agents.first().map_or(0, Item::first_line);
        if !w.separator(first) && !g.created {
            let line = g.agents.first().map_or(0, Item::line);
            log.push(
                line,
                ChangeKind::BlankLineAdded,
                0,
                g.id,
                format!("a blank line added before the group at line {line}"),
            );
        }
        for a in &g.agents {
            w.item(a, g.id, false);
        }
        for m in &g.members {
            let copy = g.created && matches!(m.what, What::Rule { .. } | What::Extension { .. });
            w.item(m, g.id, copy);
        }
    }
    let mut spacing = Spacing::default();
    let mut marked = vec![false; lines + 1];
    let mut mark = |n: u32, spacing: &mut Spacing| {
        if let Some(m) = marked.get_mut(n as usize)
            && !*m
        {
            *m = true;
            spacing.lines += 1;
            spacing.first = Some(spacing.first.map_or(n, |f| f.min(n)));
        }
    };
    if let Some(s) = model.sitemaps.first()
        && !w.separator(s.first_line())
        && !model.sitemap_moved
    {
        mark(s.line(), &mut spacing);
    }
    for s in &model.sitemaps {
        w.item(s, NO_GROUP, false);
    }
    w.pieces(&model.trailer);

    for (out, origin) in w.text.lines().zip(&w.origins) {
        let Some(line) = txt.line(origin.line) else {
            continue;
        };
        if !origin.copy
            && out.as_bytes() != txt.slice(line.span)
            && !log.touched[origin.line as usize]
        {
            mark(origin.line, &mut spacing);
        }
    }
    for n in 1..=lines {
        if model.blank[n] && !w.used[n] && !model.blank_in_group[n] {
            mark(u32::try_from(n).unwrap_or(u32::MAX), &mut spacing);
        }
    }
    Written {
        text: w.text,
        origins: w.origins,
        whitespace: spacing,
    }
}
