//! A directory tree of empty files (the ACAP tree) as one announced value:
//! read from the tree the analysing node wrote, checked by name and size
//! on both sides, and written by a follower as a new generation swapped in
//! whole ([`botwarden_logs::write_acap_dirs`]).
//!
//! The value is the tree's entries separated by NUL bytes, sorted: `SUB/`
//! for a subdirectory, `SUB/NAME` for an empty file in it. Names are
//! [plain names](super::is_plain_name), which never hold `/` or NUL, so
//! the form reads back one way only. The [`ACAP_MARKER`] at the top is
//! implied: every tree written has it.

use std::fs;
use std::path::Path;

use botwarden_logs::{ACAP_MARKER, AcapDirs};

use super::is_plain_name;
use crate::Error;

/// Entries named in a refusal, at most.
const SAMPLES: usize = 3;

/// How large an announced tree may be; the announcer and every follower
/// check it, and refuse a larger tree whole (a tree cut short would drop
/// addresses a web server relies on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeLimits {
    /// Subdirectories and files together.
    pub max_entries: usize,
    /// The announced value's bytes.
    pub max_bytes: usize,
}

impl Default for TreeLimits {
    /// Four million entries and 128 MiB: about two million verified
    /// addresses of one bot each.
    fn default() -> Self {
        Self {
            max_entries: 4_000_000,
            max_bytes: 128 << 20,
        }
    }
}

/// A tree of empty files: its name (the directory's, a plain name) and
/// each subdirectory with the files it holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExportTree {
    /// The directory name.
    pub name: String,
    /// Subdirectory → the names of its empty files.
    pub dirs: AcapDirs,
}

/// What was left out of an export, and why: a whole file or tree
/// (`entries` `None`), or some entries of a tree (the rest was taken).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The file or tree name, as given.
    pub name: String,
    /// How many entries of the tree were left out; `None`: all of it.
    pub entries: Option<usize>,
    /// Why, with the first few entries concerned.
    pub reason: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.entries {
            None => write!(f, "{:?} refused: {}", self.name, self.reason),
            Some(n) => write!(
                f,
                "{} entries of tree {:?} left out: {}",
                n, self.name, self.reason
            ),
        }
    }
}

/// Entries left out of a tree: counted, the first few kept by name.
#[derive(Debug, Default)]
struct LeftOut {
    count: usize,
    samples: Vec<String>,
}

impl LeftOut {
    fn add(&mut self, entry: impl FnOnce() -> String) {
        self.count += 1;
        if self.samples.len() < SAMPLES {
            self.samples.push(entry());
        }
    }

    fn refusal(self, tree: &str) -> Option<Refused> {
        (self.count > 0).then(|| Refused {
            name: tree.to_owned(),
            entries: Some(self.count),
            reason: format!(
                "not an empty file or a subdirectory with a plain name ({}{})",
                self.samples.join(", "),
                if self.count > self.samples.len() {
                    ", …"
                } else {
                    ""
                }
            ),
        })
    }
}

impl ExportTree {
    /// Subdirectories and files together.
    #[must_use]
    pub fn entries(&self) -> usize {
        self.dirs.len()
            + self
                .dirs
                .values()
                .map(std::collections::BTreeSet::len)
                .sum::<usize>()
    }

    /// The files of the tree.
    #[must_use]
    pub fn files(&self) -> usize {
        self.dirs
            .values()
            .map(std::collections::BTreeSet::len)
            .sum()
    }

    /// Reads the tree at `dir` (a link to a generation is followed), named
    /// by `dir`'s last component. Only subdirectories and the empty files
    /// in them with [plain names](super::is_plain_name) are taken, and the
    /// [`ACAP_MARKER`] at the top; anything else (another file at the top,
    /// a deeper directory, a file with bytes, a symbolic link, a name that
    /// is not plain) is left out and counted in the [`Refused`] returned.
    ///
    /// # Errors
    /// [`Error::Io`] naming the path when the tree cannot be read;
    /// [`Error::Invalid`] when its name is not plain or it is larger than
    /// `limits`.
    pub fn read(dir: &Path, limits: &TreeLimits) -> Result<(ExportTree, Option<Refused>), Error> {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !is_plain_name(&name) {
            return Err(Error::Invalid {
                what: format!("export tree {}", dir.display()),
                message: "does not end in a plain directory name".into(),
            });
        }
        let io = |path: &Path, operation: &str| {
            let path = path.to_path_buf();
            let operation = operation.to_owned();
            move |source| Error::Io {
                path,
                operation,
                source,
            }
        };
        let mut tree = ExportTree {
            name: name.clone(),
            dirs: AcapDirs::new(),
        };
        let mut left_out = LeftOut::default();
        let mut entries = 0usize;
        let mut bytes = 0usize;
        let mut count = |len: usize| -> Result<(), Error> {
            entries += 1;
            bytes += len + 1;
            if entries > limits.max_entries || bytes > limits.max_bytes {
                return Err(too_large(&name, limits));
            }
            Ok(())
        };
        for top in fs::read_dir(dir).map_err(io(dir, "list the tree"))? {
            let top = top.map_err(io(dir, "list the tree"))?;
            let path = top.path();
            let kind = top.file_type().map_err(io(&path, "read the type of"))?;
            let Some(sub) = top.file_name().to_str().map(str::to_owned) else {
                left_out.add(|| top.file_name().to_string_lossy().into_owned());
                continue;
            };
            if sub == ACAP_MARKER && kind.is_file() {
                continue;
            }
            if !kind.is_dir() || !is_plain_name(&sub) {
                left_out.add(|| sub.clone());
                continue;
            }
            count(sub.len() + 1)?;
            let mut names = std::collections::BTreeSet::new();
            for file in fs::read_dir(&path).map_err(io(&path, "list the directory"))? {
                let file = file.map_err(io(&path, "list the directory"))?;
                let file_path = file.path();
                let meta = fs::symlink_metadata(&file_path)
                    .map_err(io(&file_path, "read the metadata of"))?;
                let shown = || format!("{sub}/{}", file.file_name().to_string_lossy());
                match file.file_name().to_str() {
                    Some(n) if meta.is_file() && meta.len() == 0 && is_plain_name(n) => {
                        count(sub.len() + 1 + n.len())?;
                        names.insert(n.to_owned());
                    }
                    _ => left_out.add(shown),
                }
            }
            tree.dirs.insert(sub, names);
        }
        let refused = left_out.refusal(&name);
        Ok((tree, refused))
    }

    /// The announced value (module docs).
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (sub, names) in &self.dirs {
            out.extend_from_slice(sub.as_bytes());
            out.extend_from_slice(b"/\0");
            for name in names {
                out.extend_from_slice(sub.as_bytes());
                out.push(b'/');
                out.extend_from_slice(name.as_bytes());
                out.push(0);
            }
        }
        out
    }

    /// Reads an announced value back: entries that do not read (not
    /// UTF-8, not `SUB/` or `SUB/NAME` of plain names, a file in a
    /// subdirectory not announced) are left out and counted.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the value is larger than `limits`.
    pub fn decode(
        name: &str,
        bytes: &[u8],
        limits: &TreeLimits,
    ) -> Result<(ExportTree, Option<Refused>), Error> {
        if bytes.len() > limits.max_bytes {
            return Err(too_large(name, limits));
        }
        let mut tree = ExportTree {
            name: name.to_owned(),
            dirs: AcapDirs::new(),
        };
        let mut left_out = LeftOut::default();
        let mut entries = 0usize;
        for record in bytes.split(|&b| b == 0).filter(|r| !r.is_empty()) {
            entries += 1;
            if entries > limits.max_entries {
                return Err(too_large(name, limits));
            }
            let shown = || String::from_utf8_lossy(record).into_owned();
            let Some((sub, file)) = std::str::from_utf8(record)
                .ok()
                .and_then(|r| r.split_once('/'))
            else {
                left_out.add(shown);
                continue;
            };
            if !is_plain_name(sub) || sub == ACAP_MARKER {
                left_out.add(shown);
            } else if file.is_empty() {
                tree.dirs.entry(sub.to_owned()).or_default();
            } else if !is_plain_name(file) {
                left_out.add(shown);
            } else if let Some(names) = tree.dirs.get_mut(sub) {
                names.insert(file.to_owned());
            } else {
                left_out.add(shown);
            }
        }
        let refused = left_out.refusal(name);
        Ok((tree, refused))
    }
}

fn too_large(name: &str, limits: &TreeLimits) -> Error {
    Error::Invalid {
        what: format!("export tree {name:?}"),
        message: format!(
            "larger than {} entries or {} bytes; refused whole",
            limits.max_entries, limits.max_bytes
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> ExportTree {
        let mut dirs = AcapDirs::new();
        dirs.insert(
            "all-ok-bots".into(),
            ["192.0.2.1", "2001:db8::1"].map(String::from).into(),
        );
        dirs.insert("Googlebot".into(), ["192.0.2.1".to_owned()].into());
        dirs.insert("suspect-bots".into(), Default::default());
        ExportTree {
            name: "acap".into(),
            dirs,
        }
    }

    #[test]
    fn a_tree_reads_back_as_it_was_announced() {
        let t = tree();
        let (back, refused) =
            ExportTree::decode("acap", &t.encode(), &TreeLimits::default()).expect("within limits");
        assert_eq!(back, t);
        assert_eq!(refused, None);
        assert_eq!((t.entries(), t.files()), (6, 3));
    }

    #[test]
    fn entries_that_are_not_plain_names_are_left_out_and_counted() {
        let value = b"all-ok-bots/\0all-ok-bots/192.0.2.1\0all-ok-bots/../x\0../etc/\0\
                      .botwarden-acap/\0nodir/192.0.2.2\0noslash\0\xff/\0";
        let (back, refused) =
            ExportTree::decode("acap", value, &TreeLimits::default()).expect("within limits");
        assert_eq!(back.dirs.len(), 1);
        assert_eq!(back.files(), 1);
        let refused = refused.expect("a refusal");
        assert_eq!(refused.entries, Some(6), "{refused}");
        assert!(refused.reason.contains("all-ok-bots/../x"), "{refused}");
    }

    #[test]
    fn a_tree_over_its_limits_is_refused_whole() {
        let value = tree().encode();
        let few = TreeLimits {
            max_entries: 5,
            max_bytes: 1 << 20,
        };
        assert!(ExportTree::decode("acap", &value, &few).is_err());
        let small = TreeLimits {
            max_entries: 100,
            max_bytes: value.len() - 1,
        };
        assert!(ExportTree::decode("acap", &value, &small).is_err());
    }
}
