//! The fixer's reading of a file: every line becomes part of the header, a
//! group, a sitemap, the Yandex-only lines, or the trailer, with the
//! comments that belong to it.
//!
//! The fixer reads as the most lenient robots do, so that the fixed file
//! says what they read: every spelling Google accepts (misspellings and
//! keys that only start with a name), a missing colon, a (possibly partial)
//! byte-order mark skipped, a NUL byte ending the line; groups end at a rule
//! or a group-member extension (`crawl-delay`, `request-rate`,
//! `visit-time`), and blank lines mean nothing (RFC 9309 §2.1).

use std::borrow::Cow;

use crate::directive::{DirectiveName, Spelling};
use crate::parse::{LineKind, RobotsTxt, Separator, Span, split_line, trim_span};
use crate::profile::Profile;
use crate::token::AgentName;

use super::Log;
use crate::change::{ChangeKind, Mask, NO_GROUP, mask_of, profile_names};

/// A line to write and the original line it comes from (0 when added).
#[derive(Debug, Clone)]
pub(super) struct Out {
    pub(super) line: u32,
    pub(super) text: String,
}

/// What an item's directive is.
#[derive(Debug, Clone)]
pub(super) enum What {
    /// A `user-agent` line; `key` is its product token in lower case, or
    /// `*`; `lower` the whole value in lower case.
    Agent { key: String, lower: String },
    /// An `allow` or `disallow` with its value as written.
    Rule { allow: bool, value: Vec<u8> },
    /// `crawl-delay`, `request-rate` or `visit-time`, and the profiles that
    /// read it as written.
    Extension { read_by: Mask },
    /// `host`.
    Host,
    /// `clean-param`.
    CleanParam,
    /// `sitemap`.
    Sitemap,
    /// An unknown directive, `robot-version` or `comment`: kept where it is.
    Other,
    /// No directive: comment lines only (a line turned into a comment is
    /// one).
    Note,
}

/// A directive with the comment lines written before it.
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub(super) comments: Vec<Out>,
    pub(super) out: Option<Out>,
    pub(super) what: What,
}

impl Item {
    /// The first original line of the item (its first comment, if any).
    pub(super) fn first_line(&self) -> u32 {
        self.comments
            .first()
            .or(self.out.as_ref())
            .map_or(0, |o| o.line)
    }

    /// The directive's original line.
    pub(super) fn line(&self) -> u32 {
        self.out.as_ref().map_or(0, |o| o.line)
    }
}

/// A part of the header or trailer.
#[derive(Debug, Clone)]
pub(super) enum Piece {
    /// A blank line.
    Blank(u32),
    /// A directive (with its comments) that stays in the header.
    Item(Item),
    /// A comment line.
    Comment(Out),
}

/// A group as read: its user-agent lines and its members.
#[derive(Debug, Clone, Default)]
pub(super) struct RawGroup {
    pub(super) agents: Vec<Item>,
    pub(super) members: Vec<Item>,
}

/// Everything the fixer read.
#[derive(Debug, Default)]
pub(super) struct Reading {
    pub(super) header: Vec<Piece>,
    pub(super) groups: Vec<RawGroup>,
    pub(super) sitemaps: Vec<Item>,
    /// `host` and `clean-param` lines before the first user-agent.
    pub(super) loose: Vec<Item>,
    pub(super) trailer: Vec<Piece>,
    /// Per original line (index = number): the group it belongs to.
    pub(super) group_of_line: Vec<u32>,
    /// Per original line: a blank line inside a group.
    pub(super) blank_in_group: Vec<bool>,
    /// Per original line: blank as the fixer sees it.
    pub(super) blank: Vec<bool>,
    /// The last line holding a directive that is not a sitemap.
    pub(super) last_member: u32,
}

/// How the fixer sees one line: the partial byte-order mark and the part
/// after a NUL byte removed.
struct View<'t> {
    bytes: Cow<'t, [u8]>,
    span: Span,
    kind: LineKind,
    comment: Option<Span>,
}

impl<'t> View<'t> {
    fn of(txt: &'t RobotsTxt, index: usize, log: &mut Log) -> View<'t> {
        let line = &txt.lines()[index];
        let bytes = txt.bytes();
        let mut span = line.span;
        let nul = memchr::memchr(0, &bytes[span.range()]);
        if let Some(at) = nul {
            span.end = span.start + at;
        }
        // Google skips each of the first three bytes that matches the
        // byte-order mark at its position (a whole mark is already gone).
        const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
        let bom = !txt.has_bom()
            && index == 0
            && (span.start..span.end.min(3)).any(|i| bytes[i] == BOM[i]);
        if nul.is_none() && !bom {
            return View {
                bytes: Cow::Borrowed(bytes),
                span,
                kind: line.kind,
                comment: line.comment,
            };
        }
        let own: Vec<u8> = (span.start..span.end)
            .filter(|&i| !(bom && i < 3 && bytes[i] == BOM[i]))
            .map(|i| bytes[i])
            .collect();
        let n = line.number;
        if bom {
            let mask = mask_of(|p| !p.partial_bom);
            log.push(
                n,
                ChangeKind::Bom,
                mask,
                NO_GROUP,
                format!(
                    "the start of a byte-order mark removed from line 1 ({} skip it, {} read it as part of the line)",
                    profile_names(mask_of(|p| p.partial_bom)),
                    profile_names(mask)
                ),
            );
        }
        if nul.is_some() {
            let mask = mask_of(|p| !p.nul_ends_line);
            log.push(
                n,
                ChangeKind::Nul,
                mask,
                NO_GROUP,
                format!(
                    "the rest of line {n} after a NUL byte dropped ({} end the line there, {} read on)",
                    profile_names(mask_of(|p| p.nul_ends_line)),
                    profile_names(mask)
                ),
            );
        }
        let whole = Span::new(0, own.len());
        let parts = split_line(&own, whole);
        View {
            bytes: Cow::Owned(own),
            span: whole,
            kind: parts.kind,
            comment: parts.comment,
        }
    }

    fn slice(&self, span: Span) -> &[u8] {
        &self.bytes[span.range()]
    }

    /// The text before the comment, trimmed.
    fn body(&self) -> &[u8] {
        let end = self.comment.map_or(self.span.end, |c| c.start);
        self.slice(trim_span(&self.bytes, Span::new(self.span.start, end)))
    }

    /// The whole line, trimmed.
    fn trimmed(&self) -> &[u8] {
        self.slice(trim_span(&self.bytes, self.span))
    }
}

/// The white space the parser trims around keys, values and comments.
fn is_blank_char(c: char) -> bool {
    u8::try_from(c).is_ok_and(crate::parse::is_space)
}

/// Text for writing: invalid UTF-8 shown as U+FFFD.
fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// A rule's value with bytes that are not UTF-8 percent-encoded, which is
/// how every robot compares them.
fn encode_invalid(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 8);
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let len = e.error_len().unwrap_or(bad.len());
                for b in &bad[..len] {
                    out.push_str(&format!("%{b:02X}"));
                }
                rest = &bad[len..];
            }
        }
    }
}

/// A user-agent value's key as product-token robots read it: `*`, or the
/// leading run of `[A-Za-z_-]` in lower case.
fn agent_key(value: &[u8]) -> String {
    AgentName::lower_token(value).unwrap_or_else(|| "*".to_owned())
}

/// The reader's state.
struct Reader<'l> {
    log: &'l mut Log,
    r: Reading,
    /// Comments and blank lines since the last directive.
    pending: Vec<Piece>,
    /// Blank lines in a group not yet known to be inside it.
    open_blanks: Vec<u32>,
    current: Option<usize>,
    /// Whether the current group has members (a user-agent line starts a
    /// new group).
    in_body: bool,
}

/// Reads `txt` as the fixer does, logging the changes that concern single
/// lines.
pub(super) fn read(txt: &RobotsTxt, log: &mut Log) -> Reading {
    let lines = txt.lines().len();
    let mut reader = Reader {
        log,
        r: Reading {
            group_of_line: vec![NO_GROUP; lines + 1],
            blank_in_group: vec![false; lines + 1],
            blank: vec![false; lines + 1],
            ..Reading::default()
        },
        pending: Vec::new(),
        open_blanks: Vec::new(),
        current: None,
        in_body: false,
    };
    for index in 0..lines {
        let view = View::of(txt, index, reader.log);
        reader.line(txt, index, &view);
    }
    reader.finish()
}

impl Reader<'_> {
    fn line(&mut self, txt: &RobotsTxt, index: usize, view: &View<'_>) {
        let n = txt.lines()[index].number;
        match view.kind {
            LineKind::Blank => {
                self.r.blank[n as usize] = true;
                self.pending.push(Piece::Blank(n));
            }
            LineKind::Comment => {
                let text = self.text(n, view.comment.map_or(&[][..], |c| view.slice(c)));
                let text = text.trim_end_matches(is_blank_char).to_owned();
                self.pending.push(Piece::Comment(Out { line: n, text }));
            }
            LineKind::Unparsed => self.unparsed(n, view),
            // No robot reads an unknown key, and one with bytes outside
            // ASCII is kept as a comment: written back on the first line, its
            // bytes (or the U+FFFD that replaces invalid ones) could stand
            // where Google skips bytes that look like a byte-order mark, so
            // the fixed file would read differently the next time.
            LineKind::Directive(d)
                if d.name == DirectiveName::Unknown && !view.slice(d.key).is_ascii() =>
            {
                self.unparsed(n, view);
            }
            LineKind::Directive(d) => self.directive(n, view, d),
        }
    }

    /// A line no robot reads as a directive, kept as a comment.
    fn unparsed(&mut self, n: u32, view: &View<'_>) {
        let text = format!("# {}", self.text(n, view.trimmed()));
        self.log.push(
            n,
            ChangeKind::UnparsedCommented,
            0,
            NO_GROUP,
            format!(
                "line {n} is not a directive any robot reads, nor a comment; it is now a comment"
            ),
        );
        self.pending.push(Piece::Comment(Out { line: n, text }));
    }

    /// Text of some bytes of line `n`, logging bytes that are not UTF-8.
    fn text<'b>(&mut self, n: u32, bytes: &'b [u8]) -> Cow<'b, str> {
        let text = lossy(bytes);
        if matches!(text, Cow::Owned(_)) {
            self.log_invalid(n, false);
        }
        text
    }

    fn log_invalid(&mut self, n: u32, rule: bool) {
        let how = if rule {
            "percent-encoded, as robots compare them"
        } else {
            "replaced with U+FFFD"
        };
        self.log.push(
            n,
            ChangeKind::InvalidUtf8,
            0,
            NO_GROUP,
            format!("bytes that are not UTF-8 on line {n} {how}"),
        );
    }

    fn directive(&mut self, n: u32, view: &View<'_>, d: crate::parse::Directive) {
        let name = d.name;
        let in_group = self.current.is_some();
        let member = matches!(
            name,
            DirectiveName::Allow
                | DirectiveName::Disallow
                | DirectiveName::CrawlDelay
                | DirectiveName::RequestRate
                | DirectiveName::VisitTime
        );
        if member && !in_group {
            // No robot reads a group member before the first user-agent.
            let text = format!("# {}", self.text(n, view.trimmed()));
            let comments = self.take_pending(false);
            self.log.push(
                n,
                ChangeKind::OrphanCommented,
                0,
                NO_GROUP,
                format!(
                    "line {n} stands before any user-agent line, so no robot reads it; it is now a comment"
                ),
            );
            self.r.header.push(Piece::Item(Item {
                comments,
                out: Some(Out { line: n, text }),
                what: What::Note,
            }));
            return;
        }
        let starts_group = name == DirectiveName::UserAgent && (!in_group || self.in_body);
        let continues = in_group && !starts_group && name != DirectiveName::Sitemap;
        let mut comments = self.take_pending(continues);
        if starts_group {
            self.settle_blanks(false);
        } else if name == DirectiveName::UserAgent || member || (in_group && name.is_preference()) {
            self.settle_blanks(true);
        }
        if let Some(c) = view.comment {
            let text = self
                .text(n, view.slice(c))
                .trim_end_matches(is_blank_char)
                .to_owned();
            comments.push(Out { line: n, text });
            self.log.push(
                n,
                ChangeKind::CommentMoved,
                0,
                NO_GROUP,
                format!("the comment after the directive on line {n} moved to its own line before it (1994 standard)"),
            );
        }
        let group = if starts_group {
            self.r.groups.push(RawGroup::default());
            self.current = Some(self.r.groups.len() - 1);
            self.in_body = false;
            self.r.groups.len() - 1
        } else {
            self.current.unwrap_or(usize::MAX)
        };
        let group_id = u32::try_from(group).unwrap_or(NO_GROUP);
        let (text, what) = self.written(n, view, d, group_id);
        let item = Item {
            comments,
            out: Some(Out { line: n, text }),
            what,
        };
        if !matches!(item.what, What::Sitemap) {
            self.r.last_member = n;
        }
        match (&item.what, self.current) {
            (What::Sitemap, _) => self.r.sitemaps.push(item),
            (What::Host | What::CleanParam, None) => self.r.loose.push(item),
            // Unknown directives before the first group (group members
            // there were commented out above).
            (_, None) => self.r.header.push(Piece::Item(item)),
            (What::Agent { .. }, Some(g)) => {
                self.r.group_of_line[n as usize] = group_id;
                self.r.groups[g].agents.push(item);
            }
            (_, Some(g)) => {
                // Preference lines are members too (RFC 9309 as
                // aipref-attach updates it), but never orphans: before the
                // first group some robots still read a `Content-Signal`.
                if member || name.is_preference() {
                    self.r.group_of_line[n as usize] = group_id;
                    self.in_body = true;
                }
                self.r.groups[g].members.push(item);
            }
        }
    }

    /// The line as written and what it is; logs key, colon and encoding
    /// changes.
    fn written(
        &mut self,
        n: u32,
        view: &View<'_>,
        d: crate::parse::Directive,
        group: u32,
    ) -> (String, What) {
        let name = d.name;
        let value = view.slice(d.value);
        let Some(display) = name.display() else {
            let text = self.text(n, view.body()).into_owned();
            return (text, What::Other);
        };
        let raw_key = view.slice(d.key);
        // Only user-agent lines, rules and extensions shape what robots
        // decide; a sitemap or `host` read or not changes no decision.
        let shapes = matches!(
            name,
            DirectiveName::UserAgent
                | DirectiveName::Allow
                | DirectiveName::Disallow
                | DirectiveName::CrawlDelay
                | DirectiveName::RequestRate
                | DirectiveName::VisitTime
        );
        let key: Cow<'_, str> = if d.spelling == Spelling::Exact {
            lossy(raw_key)
        } else {
            let unread = mask_of(|p| !p.spellings.contains(&d.spelling));
            let how = match d.spelling {
                Spelling::Prefix => "only starts with the name",
                _ => "is a common misspelling",
            };
            self.log.push(
                n,
                ChangeKind::KeySpelling,
                if shapes { unread } else { 0 },
                group,
                format!(
                    "`{}` on line {n} {how}; written `{display}`, which every robot reads ({} did not read it)",
                    lossy(raw_key),
                    profile_names(unread)
                ),
            );
            Cow::Borrowed(display)
        };
        if d.separator == Separator::Whitespace {
            let unread = mask_of(|p| !p.missing_colon);
            self.log.push(
                n,
                ChangeKind::MissingColon,
                if shapes { unread } else { 0 },
                group,
                format!(
                    "the colon after `{key}` on line {n} was missing; added ({} did not read the line)",
                    profile_names(unread)
                ),
            );
        }
        let value_text: Cow<'_, str> = if name.is_rule() {
            let text = lossy(value);
            if matches!(text, Cow::Owned(_)) {
                self.log_invalid(n, true);
                Cow::Owned(encode_invalid(value))
            } else {
                text
            }
        } else {
            self.text(n, value)
        };
        let text = if value_text.is_empty() {
            format!("{key}:")
        } else {
            format!("{key}: {value_text}")
        };
        let what = match name {
            DirectiveName::UserAgent => What::Agent {
                key: agent_key(value),
                lower: value_text.to_lowercase(),
            },
            DirectiveName::Allow | DirectiveName::Disallow => What::Rule {
                allow: name == DirectiveName::Allow,
                value: value.to_vec(),
            },
            DirectiveName::CrawlDelay | DirectiveName::RequestRate | DirectiveName::VisitTime => {
                What::Extension {
                    read_by: mask_of(|p: &Profile| {
                        p.reads(name, d.spelling, d.separator == Separator::Colon)
                    }),
                }
            }
            DirectiveName::Host => What::Host,
            DirectiveName::CleanParam => What::CleanParam,
            DirectiveName::Sitemap => What::Sitemap,
            _ => What::Other,
        };
        (text, what)
    }

    /// The comments to attach to the next directive. Comments separated
    /// from it by a blank line stay where they are: in the header before
    /// the first group, at the end of the current group otherwise, unless
    /// the directive `continues` that group (the blank line is inside it).
    /// In groups, blank lines wait to be classified.
    fn take_pending(&mut self, continues: bool) -> Vec<Out> {
        let mut pending = std::mem::take(&mut self.pending);
        let split = if continues {
            0
        } else {
            pending
                .iter()
                .rposition(|p| matches!(p, Piece::Blank(_)))
                .map_or(0, |i| i + 1)
        };
        let touching = pending.split_off(split);
        let comments = |pieces: Vec<Piece>| -> Vec<Out> {
            pieces
                .into_iter()
                .filter_map(|p| match p {
                    Piece::Comment(o) => Some(o),
                    _ => None,
                })
                .collect()
        };
        let Some(g) = self.current else {
            self.r.header.extend(pending);
            return comments(touching);
        };
        for p in pending.iter().chain(&touching) {
            if let Piece::Blank(n) = p {
                self.open_blanks.push(*n);
            }
        }
        let staying = comments(pending);
        if !staying.is_empty() {
            self.r.groups[g].members.push(Item {
                comments: staying,
                out: None,
                what: What::Note,
            });
        }
        comments(touching)
    }

    /// Classifies the open blank lines: inside the current group (removed,
    /// and logged) or between groups.
    fn settle_blanks(&mut self, inside: bool) {
        let blanks = std::mem::take(&mut self.open_blanks);
        if !inside || blanks.is_empty() {
            return;
        }
        let group = self
            .current
            .and_then(|g| u32::try_from(g).ok())
            .unwrap_or(NO_GROUP);
        let mask = mask_of(|p| p.grouping == crate::profile::Grouping::BlankLineRecords);
        let mut k = 0;
        while k < blanks.len() {
            let first = blanks[k];
            let mut last = first;
            while k + 1 < blanks.len() && blanks[k + 1] == last + 1 {
                k += 1;
                last = blanks[k];
            }
            k += 1;
            for b in first..=last {
                self.r.blank_in_group[b as usize] = true;
            }
            let lines = if first == last {
                format!("line {first}")
            } else {
                format!("lines {first}–{last}")
            };
            self.log.push(
                first,
                ChangeKind::BlankLineInGroup,
                mask,
                group,
                format!(
                    "the blank {lines} inside a group removed ({} end a record at a blank line and did not read the group's lines after it)",
                    profile_names(mask)
                ),
            );
        }
    }

    fn finish(mut self) -> Reading {
        self.settle_blanks(false);
        self.r.trailer = std::mem::take(&mut self.pending);
        self.r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_in_rules_are_percent_encoded() {
        assert_eq!(encode_invalid(b"/a\xffb/\xe3\x83"), "/a%FFb/%E3%83");
        assert_eq!(encode_invalid("/ツ".as_bytes()), "/ツ");
    }

    #[test]
    fn agent_keys() {
        assert_eq!(agent_key(b"Googlebot/2.1"), "googlebot");
        assert_eq!(agent_key(b"* "), "*");
        assert_eq!(agent_key(b"*"), "*");
        assert_eq!(agent_key(b"*bot"), "");
    }
}
