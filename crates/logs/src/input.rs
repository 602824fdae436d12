//! Where lines come from: files (plain or gzip, found by glob) and
//! standard input, read in large chunks and split at newlines.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;

use crate::Error;

/// Lines longer than this many bytes are counted as failed
/// (`line-too-long`) and not kept in memory.
pub const MAX_LINE: usize = 1 << 20;

/// One input of an analysis.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Input {
    /// A file; gzip is recognised by its magic bytes, not its name.
    Path(PathBuf),
    /// Standard input (given as `-`).
    Stdin,
}

impl Input {
    /// The name reports use: the path as given, or `-`.
    pub fn name(&self) -> String {
        match self {
            Input::Path(p) => p.display().to_string(),
            Input::Stdin => "-".to_owned(),
        }
    }

    /// Opens the input, decompressing gzip. Returns the reader and whether
    /// it was gzip.
    pub fn open(&self) -> io::Result<(Box<dyn Read + Send>, bool)> {
        let raw: Box<dyn Read + Send> = match self {
            Input::Path(p) => Box::new(File::open(p)?),
            Input::Stdin => Box::new(io::stdin()),
        };
        sniff_gzip(raw)
    }

    /// The size in bytes on disk, when it is a file (for progress).
    pub fn size(&self) -> Option<u64> {
        match self {
            Input::Path(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Input::Stdin => None,
        }
    }
}

/// Wraps a reader in a gzip decoder when its first two bytes are gzip's
/// magic number.
pub fn sniff_gzip(mut raw: Box<dyn Read + Send>) -> io::Result<(Box<dyn Read + Send>, bool)> {
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match raw.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let prefix = io::Cursor::new(head[..got].to_vec());
    let joined: Box<dyn Read + Send> = Box::new(prefix.chain(raw));
    if got == 2 && head == [0x1f, 0x8b] {
        Ok((Box::new(MultiGzDecoder::new(joined)), true))
    } else {
        Ok((joined, false))
    }
}

/// Turns command-line arguments into inputs: `-` is standard input, an
/// existing path is itself, and anything else with `*`, `?` or `[` is a
/// glob whose matches are taken in sorted order. Duplicates are dropped.
///
/// # Errors
/// [`Error::StdinTwice`], [`Error::Missing`] for a path that cannot be
/// read, [`Error::Pattern`] for a bad glob and [`Error::NoMatch`] for one
/// that matches no file, each naming the argument.
pub fn expand_inputs(args: &[String]) -> Result<Vec<Input>, Error> {
    let mut out: Vec<Input> = Vec::new();
    let push = |input: Input, out: &mut Vec<Input>| {
        if !out.contains(&input) {
            out.push(input);
        }
    };
    for arg in args {
        if arg == "-" {
            if out.contains(&Input::Stdin) {
                return Err(Error::StdinTwice);
            }
            out.push(Input::Stdin);
            continue;
        }
        let path = Path::new(arg);
        if path.exists() || !arg.contains(['*', '?', '[']) {
            if let Err(source) = std::fs::metadata(path) {
                return Err(Error::Missing {
                    path: arg.clone(),
                    source,
                });
            }
            push(Input::Path(path.to_path_buf()), &mut out);
            continue;
        }
        let paths = glob::glob(arg).map_err(|e| Error::Pattern {
            pattern: arg.clone(),
            message: e.msg.to_owned(),
        })?;
        let mut found: Vec<PathBuf> = paths
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .collect();
        if found.is_empty() {
            return Err(Error::NoMatch {
                pattern: arg.clone(),
            });
        }
        found.sort();
        for p in found {
            push(Input::Path(p), &mut out);
        }
    }
    Ok(out)
}

/// What [`LineReader::next_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A line, without its `\n` (a `\r` before it is kept for the parser).
    Text(&'a [u8]),
    /// A line longer than [`MAX_LINE`]; its bytes were dropped.
    TooLong,
}

impl<'a> Line<'a> {
    /// The line's bytes, or `None` for a line too long to keep.
    pub fn text(self) -> Option<&'a [u8]> {
        match self {
            Line::Text(t) => Some(t),
            Line::TooLong => None,
        }
    }
}

/// Splits a reader into lines, reading large chunks and handing out
/// slices of its buffer. A last line without a newline is still a line.
/// Memory stays within [`MAX_LINE`] plus one chunk whatever the input.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    chunk: usize,
    /// Bytes consumed from `inner`.
    consumed: u64,
}

impl<R: Read> LineReader<R> {
    /// A reader over `inner` with 256 KiB chunks.
    pub fn new(inner: R) -> LineReader<R> {
        LineReader::with_chunk(inner, 256 * 1024)
    }

    /// A reader with the given chunk size.
    pub fn with_chunk(inner: R, chunk: usize) -> LineReader<R> {
        LineReader {
            inner,
            buf: Vec::new(),
            start: 0,
            end: 0,
            eof: false,
            chunk: chunk.max(1),
            consumed: 0,
        }
    }

    /// Bytes read from the underlying reader so far.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Whether the underlying reader has reported its end. In follow mode
    /// a reader at its end can be asked again: the next call reads anew.
    pub fn at_eof(&self) -> bool {
        self.eof && self.start == self.end
    }

    /// Bytes held that are not yet a whole line (a line being written).
    pub fn pending(&self) -> usize {
        self.end - self.start
    }

    /// The underlying reader.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The next line, or `None` at the end of the input. With `partial`
    /// false, bytes after the last newline are held back at the end (for
    /// following a file that is being written); with it true they are
    /// the last line.
    pub fn next_line_with(&mut self, partial: bool) -> io::Result<Option<Line<'_>>> {
        let mut scanned = self.start;
        let mut too_long = false;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[scanned..self.end]) {
                let nl = scanned + i;
                let line_start = self.start;
                self.start = nl + 1;
                if too_long {
                    return Ok(Some(Line::TooLong));
                }
                return Ok(Some(Line::Text(&self.buf[line_start..nl])));
            }
            scanned = self.end;
            if self.end - self.start > MAX_LINE {
                // Drop what we have of the over-long line and keep looking
                // for its end.
                too_long = true;
                self.start = self.end;
                scanned = self.end;
            }
            let rel = scanned - self.start;
            if self.eof_reached()? {
                if self.start < self.end && (partial || too_long) {
                    let line_start = self.start;
                    self.start = self.end;
                    if too_long {
                        return Ok(Some(Line::TooLong));
                    }
                    return Ok(Some(Line::Text(&self.buf[line_start..self.end])));
                }
                if too_long {
                    return Ok(Some(Line::TooLong));
                }
                return Ok(None);
            }
            // Reading moved the unfinished line to the front.
            scanned = self.start + rel;
        }
    }

    /// The next line; the last line need not end in a newline.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.next_line_with(true)
    }

    /// Reads one more chunk; true when the reader is at its end.
    fn eof_reached(&mut self) -> io::Result<bool> {
        // Move the unfinished line to the front before growing.
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() < self.end + self.chunk {
            self.buf.resize(self.end + self.chunk, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(true);
                }
                Ok(n) => {
                    self.eof = false;
                    self.end += n;
                    self.consumed += n as u64;
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}
