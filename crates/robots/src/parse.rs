//! The lossless parser: every line of a robots.txt file with its span, number,
//! line ending, key, value and comment.

use std::borrow::Cow;
use std::ops::Range;

use crate::directive::{DirectiveName, Spelling, classify_key};

/// A byte range in the original file, `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    #[must_use]
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// Length in bytes.
    #[must_use]
    pub const fn len(self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no byte.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The span as a `Range<usize>`.
    #[must_use]
    pub const fn range(self) -> Range<usize> {
        self.start..self.end
    }
}

/// How a line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
    /// A lone `\r`.
    Cr,
    /// The last line of a file that does not end with a line break.
    None,
}

impl LineEnding {
    /// The bytes of this ending.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
            LineEnding::Cr => "\r",
            LineEnding::None => "",
        }
    }
}

/// How the key of a directive is separated from its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Separator {
    /// `key: value`, the standard form.
    Colon,
    /// `key value`: the colon is missing and white space stands in its
    /// place. Google accepts this when the line has exactly two words.
    Whitespace,
}

/// One `key: value` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Directive {
    /// The key, trimmed.
    pub key: Span,
    /// The value, trimmed, without the comment.
    pub value: Span,
    /// What separates key and value.
    pub separator: Separator,
    /// The directive the key names.
    pub name: DirectiveName,
    /// How the key was spelled: exactly, misspelt, or as a prefix.
    pub spelling: Spelling,
}

/// What a line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Nothing but white space.
    Blank,
    /// Only a comment (possibly indented).
    Comment,
    /// A `key: value` directive, possibly followed by a comment.
    Directive(Directive),
    /// Text that is neither a directive nor a comment: no `:` and not two
    /// words separated by white space.
    Unparsed,
}

/// One line of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number.
    pub number: u32,
    /// The line's bytes without its line ending.
    pub span: Span,
    /// How the line ends.
    pub ending: LineEnding,
    /// What the line holds.
    pub kind: LineKind,
    /// The comment, from `#` to the end of the line, if any.
    pub comment: Option<Span>,
}

/// A problem found while reading the bytes of the file, independent of any
/// profile. The checker turns these into diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ByteIssue {
    /// A sequence that is not valid UTF-8 starts at this offset; it is
    /// decoded as U+FFFD wherever text is shown.
    InvalidUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
        /// Number of bytes in the invalid sequence.
        len: usize,
    },
    /// A NUL byte at this offset (C-based parsers stop reading the line here).
    Nul {
        /// Offset of the NUL byte.
        offset: usize,
    },
}

/// A parsed robots.txt file that keeps every byte of the original.
///
/// Parsing never fails: every line is classified (see [`LineKind`]) and
/// every problem with the bytes is recorded in [`RobotsTxt::byte_issues`].
#[derive(Debug, Clone)]
pub struct RobotsTxt {
    bytes: Vec<u8>,
    lines: Vec<Line>,
    bom: bool,
    issues: Vec<ByteIssue>,
    /// Where columns are counted from in long lines, built on the first
    /// [`RobotsTxt::position`] that needs it.
    columns: std::sync::OnceLock<Vec<Checkpoint>>,
}

/// A place in a long line and the characters before it in its line: a
/// column is counted from the nearest one, so that finding it costs at
/// most [`CHECKPOINT_EVERY`] bytes however long the line.
#[derive(Debug, Clone, Copy)]
struct Checkpoint {
    offset: usize,
    chars: usize,
}

/// Bytes between two checkpoints (about: each is put on the first byte
/// that starts a character, so that the counts before and after add up).
const CHECKPOINT_EVERY: usize = 256;

/// Bytes trimmed around keys and values: space, tab, vertical tab, form feed.
pub(crate) const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

pub(crate) fn trim_span(bytes: &[u8], mut span: Span) -> Span {
    while span.start < span.end && is_space(bytes[span.start]) {
        span.start += 1;
    }
    while span.end > span.start && is_space(bytes[span.end - 1]) {
        span.end -= 1;
    }
    span
}

/// The parts of one line's content (`bytes[span]`), as offsets into `bytes`.
pub(crate) struct LineParts {
    pub(crate) kind: LineKind,
    pub(crate) comment: Option<Span>,
}

/// Splits one line into key, value and comment.
///
/// The rules: a `#` starts a comment; the rest is trimmed; the key ends at the
/// first `:`; without a `:`, a line of exactly two words separated by white
/// space is read as `key value`.
pub(crate) fn split_line(bytes: &[u8], span: Span) -> LineParts {
    let content = &bytes[span.range()];
    let hash = memchr::memchr(b'#', content).map(|i| span.start + i);
    let before = &bytes[span.start..hash.unwrap_or(span.end)];
    let colon = memchr::memchr(b':', before).map(|i| span.start + i);
    split_parts(bytes, span, hash, colon)
}

/// [`split_line`] once the first `#` of the line and the first `:` before
/// it are known.
#[inline]
fn split_parts(bytes: &[u8], span: Span, hash: Option<usize>, colon: Option<usize>) -> LineParts {
    let comment = hash.map(|h| Span::new(h, span.end));
    let body = trim_span(bytes, Span::new(span.start, hash.unwrap_or(span.end)));
    if body.is_empty() {
        let kind = if comment.is_some() {
            LineKind::Comment
        } else {
            LineKind::Blank
        };
        return LineParts { kind, comment };
    }
    let text = &bytes[body.range()];
    // The colon is never in the white space trimmed off the body.
    let (key, value, separator) = if let Some(colon) = colon {
        (
            trim_span(bytes, Span::new(body.start, colon)),
            trim_span(bytes, Span::new(colon + 1, body.end)),
            Separator::Colon,
        )
    } else if let Some(ws) = text.iter().position(|&b| b == b' ' || b == b'\t') {
        let ws = body.start + ws;
        let value = trim_span(bytes, Span::new(ws, body.end));
        if bytes[value.range()]
            .iter()
            .any(|&b| b == b' ' || b == b'\t')
        {
            return LineParts {
                kind: LineKind::Unparsed,
                comment,
            };
        }
        (Span::new(body.start, ws), value, Separator::Whitespace)
    } else {
        return LineParts {
            kind: LineKind::Unparsed,
            comment,
        };
    };
    let (name, spelling) = classify_key(&bytes[key.range()]);
    LineParts {
        kind: LineKind::Directive(Directive {
            key,
            value,
            separator,
            name,
            spelling,
        }),
        comment,
    }
}

/// Whether a body starts with the UTF-8 byte order mark.
pub(crate) fn has_bom(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0xEF, 0xBB, 0xBF])
}

/// Every byte of a word set to 1.
const ONES: u64 = 0x0101_0101_0101_0101;

/// The high bit of each byte of `w` that is zero (exact up to the first
/// zero byte, which is all a scan needs: the lowest set bit is right).
#[inline]
const fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & (ONES << 7)
}

/// The high bit of each byte of `w` that a line scan stops at: `\n`, `\r`,
/// `#`, `:` (exact up to the first such byte).
#[inline]
const fn special_bytes(w: u64) -> u64 {
    zero_bytes(w ^ (ONES * b'\n' as u64))
        | zero_bytes(w ^ (ONES * b'\r' as u64))
        | zero_bytes(w ^ (ONES * b'#' as u64))
        | zero_bytes(w ^ (ONES * b':' as u64))
}

/// The first `\n`, `\r`, `#` or `:` at or after `from`: eight bytes at a
/// time, then byte by byte.
#[inline]
fn next_special(bytes: &[u8], mut from: usize) -> Option<usize> {
    while let Some(chunk) = bytes.get(from..from + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let hits = special_bytes(u64::from_le_bytes(word));
        if hits != 0 {
            return Some(from + (hits.trailing_zeros() / 8) as usize);
        }
        from += 8;
    }
    bytes[from..]
        .iter()
        .position(|&b| matches!(b, b'\n' | b'\r' | b'#' | b':'))
        .map(|k| from + k)
}

/// One line found by [`RawLines`].
pub(crate) struct RawLine {
    pub(crate) number: u32,
    /// The line without its ending.
    pub(crate) span: Span,
    pub(crate) ending: LineEnding,
    /// The first `#`.
    hash: Option<usize>,
    /// The first `:` before any `#`.
    colon: Option<usize>,
}

impl RawLine {
    /// What the line holds, as [`split_line`] reads it.
    #[inline]
    pub(crate) fn parts(&self, bytes: &[u8]) -> LineParts {
        split_parts(bytes, self.span, self.hash, self.colon)
    }
}

/// The lines of a body, after a byte order mark, as [`RobotsTxt::parse`]
/// splits them, for readers that need no tree. One pass over each line's
/// bytes, a word at a time, finds its end, its first `#` and the first `:`
/// before it: lines are short, so this beats a vector search per character.
pub(crate) struct RawLines<'a> {
    bytes: &'a [u8],
    pos: usize,
    number: u32,
}

impl<'a> RawLines<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> RawLines<'a> {
        RawLines {
            bytes,
            pos: if has_bom(bytes) { 3 } else { 0 },
            number: 0,
        }
    }
}

impl Iterator for RawLines<'_> {
    type Item = RawLine;

    #[inline]
    fn next(&mut self) -> Option<RawLine> {
        let bytes = self.bytes;
        let start = self.pos;
        if start >= bytes.len() {
            return None;
        }
        self.number = self.number.saturating_add(1);
        let mut colon = None;
        let mut hash = None;
        let mut i = start;
        let end = loop {
            match next_special(bytes, i) {
                None => break None,
                Some(k) => {
                    i = k;
                    match bytes[i] {
                        b':' => {
                            colon = colon.or(Some(i));
                            i += 1;
                        }
                        b'#' => {
                            // Only the end of the line matters now.
                            hash = Some(i);
                            break memchr::memchr2(b'\n', b'\r', &bytes[i..]).map(|k| i + k);
                        }
                        _ => break Some(i),
                    }
                }
            }
        };
        let (span_end, ending, next) = match end {
            Some(e) if bytes[e] == b'\n' => (e, LineEnding::Lf, e + 1),
            Some(e) if bytes.get(e + 1) == Some(&b'\n') => (e, LineEnding::CrLf, e + 2),
            Some(e) => (e, LineEnding::Cr, e + 1),
            None => (bytes.len(), LineEnding::None, bytes.len()),
        };
        self.pos = next;
        Some(RawLine {
            number: self.number,
            span: Span::new(start, span_end),
            ending,
            hash,
            colon,
        })
    }
}

impl RobotsTxt {
    /// Parses a robots.txt body. Never fails; see [`RobotsTxt::byte_issues`]
    /// and the [`LineKind`] of each line for what could not be read.
    #[must_use]
    pub fn parse(bytes: impl Into<Vec<u8>>) -> RobotsTxt {
        let bytes = bytes.into();
        let bom = has_bom(&bytes);
        let mut lines = Vec::with_capacity(bytes.len() / 24 + 1);
        for line in RawLines::new(&bytes) {
            let parts = line.parts(&bytes);
            lines.push(Line {
                number: line.number,
                span: line.span,
                ending: line.ending,
                kind: parts.kind,
                comment: parts.comment,
            });
        }
        let issues = byte_issues(&bytes);
        RobotsTxt {
            bytes,
            lines,
            bom,
            issues,
            columns: std::sync::OnceLock::new(),
        }
    }

    /// The original bytes.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Every line, in order.
    #[must_use]
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }

    /// The line with this 1-based number.
    #[must_use]
    pub fn line(&self, number: u32) -> Option<&Line> {
        self.lines.get((number as usize).checked_sub(1)?)
    }

    /// Whether the file starts with a UTF-8 byte order mark.
    #[must_use]
    pub fn has_bom(&self) -> bool {
        self.bom
    }

    /// Invalid UTF-8 sequences and NUL bytes, in file order.
    #[must_use]
    pub fn byte_issues(&self) -> &[ByteIssue] {
        &self.issues
    }

    /// The text of a span; invalid UTF-8 is shown as U+FFFD.
    #[must_use]
    pub fn text(&self, span: Span) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes[span.range()])
    }

    /// The raw bytes of a span.
    #[must_use]
    pub fn slice(&self, span: Span) -> &[u8] {
        &self.bytes[span.range()]
    }

    /// The 1-based line and column (in characters, an invalid UTF-8
    /// sequence counting as the one U+FFFD it is shown as) of a byte
    /// offset. The column costs the length of the line up to the offset:
    /// callers that only need the line use [`RobotsTxt::line_of`].
    #[must_use]
    pub fn position(&self, offset: usize) -> (u32, u32) {
        match self.line_index(offset).and_then(|i| self.lines.get(i)) {
            Some(line) => {
                let upto = offset.min(line.span.end).max(line.span.start);
                let mut from = Checkpoint {
                    offset: line.span.start,
                    chars: 0,
                };
                if upto - line.span.start > CHECKPOINT_EVERY {
                    let marks = self
                        .columns
                        .get_or_init(|| checkpoints(&self.bytes, &self.lines));
                    let i = marks.partition_point(|c| c.offset <= upto);
                    if let Some(mark) = i.checked_sub(1).map(|i| marks[i])
                        && mark.offset >= line.span.start
                    {
                        from = mark;
                    }
                }
                let col = from.chars + char_count(&self.bytes[from.offset..upto]);
                (line.number, u32::try_from(col + 1).unwrap_or(u32::MAX))
            }
            None => (1, 1),
        }
    }

    /// The 1-based line of a byte offset, in time logarithmic in the
    /// number of lines.
    #[must_use]
    pub fn line_of(&self, offset: usize) -> u32 {
        self.line_index(offset)
            .and_then(|i| self.lines.get(i))
            .map_or(1, |l| l.number)
    }

    fn line_index(&self, offset: usize) -> Option<usize> {
        Some(
            self.lines
                .partition_point(|l| l.span.start <= offset)
                .saturating_sub(1),
        )
    }

    /// The directives of the file, with their lines.
    pub fn directives(&self) -> impl Iterator<Item = (&Line, &Directive)> {
        self.lines.iter().filter_map(|l| match &l.kind {
            LineKind::Directive(d) => Some((l, d)),
            _ => None,
        })
    }
}

/// The checkpoints of every line longer than [`CHECKPOINT_EVERY`], in
/// file order. A checkpoint is on a byte that is not a UTF-8 continuation
/// byte: no sequence, valid or not, runs across such a byte, so counting
/// the characters before it and from it adds up to counting them all.
fn checkpoints(bytes: &[u8], lines: &[Line]) -> Vec<Checkpoint> {
    let mut marks = Vec::new();
    for line in lines.iter().filter(|l| l.span.len() > CHECKPOINT_EVERY) {
        let (mut at, mut chars) = (line.span.start, 0);
        let mut next = at + CHECKPOINT_EVERY;
        while next < line.span.end {
            while next < line.span.end && bytes[next] & 0xC0 == 0x80 {
                next += 1;
            }
            if next >= line.span.end {
                break;
            }
            chars += char_count(&bytes[at..next]);
            marks.push(Checkpoint {
                offset: next,
                chars,
            });
            at = next;
            next = at + CHECKPOINT_EVERY;
        }
    }
    marks
}

/// Characters in `bytes` as `String::from_utf8_lossy` reads them (each
/// maximal invalid sequence one U+FFFD), without building the string.
fn char_count(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|chunk| {
            let valid = chunk.valid();
            // ASCII is one character a byte; count the rest by lead bytes.
            valid.len() - valid.bytes().filter(|b| b & 0xC0 == 0x80).count()
                + usize::from(!chunk.invalid().is_empty())
        })
        .sum()
}

fn byte_issues(bytes: &[u8]) -> Vec<ByteIssue> {
    let mut issues = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        match std::str::from_utf8(&bytes[pos..]) {
            Ok(_) => break,
            Err(e) => {
                let at = pos + e.valid_up_to();
                let len = e.error_len().unwrap_or(bytes.len() - at);
                issues.push(ByteIssue::InvalidUtf8 { offset: at, len });
                pos = at + len;
            }
        }
    }
    issues.extend(memchr::memchr_iter(0, bytes).map(|offset| ByteIssue::Nul { offset }));
    issues.sort_by_key(|i| match i {
        ByteIssue::InvalidUtf8 { offset, .. } | ByteIssue::Nul { offset } => *offset,
    });
    issues
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<LineKind> {
        RobotsTxt::parse(src)
            .lines()
            .iter()
            .map(|l| l.kind)
            .collect()
    }

    #[test]
    fn line_endings_are_kept() {
        let txt = RobotsTxt::parse("a: 1\r\nb: 2\rc: 3\nd: 4");
        let endings: Vec<_> = txt.lines().iter().map(|l| l.ending).collect();
        assert_eq!(
            endings,
            [
                LineEnding::CrLf,
                LineEnding::Cr,
                LineEnding::Lf,
                LineEnding::None
            ]
        );
        let rebuilt: Vec<u8> = txt
            .lines()
            .iter()
            .flat_map(|l| {
                let mut v = txt.slice(l.span).to_vec();
                v.extend_from_slice(l.ending.as_str().as_bytes());
                v
            })
            .collect();
        assert_eq!(rebuilt, txt.bytes());
    }

    #[test]
    fn key_value_comment() {
        let txt = RobotsTxt::parse("  Disallow :  /a b # note\n");
        let line = &txt.lines()[0];
        let LineKind::Directive(d) = line.kind else {
            panic!("not a directive: {line:?}")
        };
        assert_eq!(txt.text(d.key), "Disallow");
        assert_eq!(txt.text(d.value), "/a b");
        assert_eq!(d.name, DirectiveName::Disallow);
        assert_eq!(txt.text(line.comment.unwrap()), "# note");
    }

    #[test]
    fn missing_colon_needs_exactly_two_words() {
        assert!(matches!(
            kinds("disallow /x")[0],
            LineKind::Directive(Directive {
                separator: Separator::Whitespace,
                ..
            })
        ));
        assert_eq!(kinds("user agent foo")[0], LineKind::Unparsed);
        assert_eq!(kinds("disallow")[0], LineKind::Unparsed);
    }

    #[test]
    fn blank_and_comment_lines() {
        assert_eq!(kinds(" \t\n# c\n"), [LineKind::Blank, LineKind::Comment]);
    }

    #[test]
    fn bom_and_invalid_utf8_are_recorded() {
        let txt = RobotsTxt::parse(b"\xEF\xBB\xBFuser-agent: a\xff\n".to_vec());
        assert!(txt.has_bom());
        assert_eq!(txt.lines()[0].span.start, 3);
        assert_eq!(
            txt.byte_issues(),
            [ByteIssue::InvalidUtf8 { offset: 16, len: 1 }]
        );
    }

    #[test]
    fn char_count_reads_as_lossy_decoding_does() {
        for bytes in [
            &b""[..],
            b"abc",
            "é✓😀".as_bytes(),
            b"\xff\xfe",
            b"a\xe2\x82b",
            b"\xf0\x9f\x98",
            b"\xc3\xa9\xff\xc3",
        ] {
            assert_eq!(
                char_count(bytes),
                String::from_utf8_lossy(bytes).chars().count(),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn columns_of_long_lines_are_counted_as_from_the_line_start() {
        // Long lines of every kind of byte: ASCII, multi-byte, invalid,
        // sequences cut short, so checkpoints fall in every place.
        let mut bytes = b"User-agent: *\nDisallow: /".to_vec();
        for i in 0..3000u32 {
            match i % 7 {
                0 => bytes.extend_from_slice("é".as_bytes()),
                1 => bytes.push(0xff),
                2 => bytes.extend_from_slice(&[0xe2, 0x82]),
                3 => bytes.extend_from_slice("😀".as_bytes()),
                4 => bytes.push(0),
                _ => bytes.push(b'a'),
            }
        }
        bytes.extend_from_slice(b"\nAllow: /x\n");
        let txt = RobotsTxt::parse(bytes.clone());
        for offset in (0..=bytes.len()).step_by(13).chain([bytes.len() - 3]) {
            let (line, col) = txt.position(offset);
            let start = txt.lines()[line as usize - 1].span.start;
            let upto = offset.min(txt.lines()[line as usize - 1].span.end);
            let want = String::from_utf8_lossy(&bytes[start..upto]).chars().count() + 1;
            assert_eq!(col as usize, want, "offset {offset}");
        }
    }

    #[test]
    fn line_of_is_positions_line() {
        let txt = RobotsTxt::parse(&b"a: 1\r\nb: \xff2\rc: 3\nd: 4"[..]);
        for offset in 0..=txt.bytes().len() + 2 {
            assert_eq!(txt.line_of(offset), txt.position(offset).0, "{offset}");
        }
    }

    #[test]
    fn position_counts_characters() {
        let txt = RobotsTxt::parse("a: 1\nbé: 2\n");
        assert_eq!(txt.position(5), (2, 1));
        assert_eq!(txt.position(9), (2, 4));
    }
}
