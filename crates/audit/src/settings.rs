//! Which checks run and how much evidence a finding keeps: ruff's
//! `select` and `ignore`, by code or group, from flags or the `[audit]`
//! section of `botwarden.toml` (`docs/audit.md`).

use std::path::Path;

use serde::Deserialize;

use super::{CHECKS, DEFAULT_MAX_DEPTH};
use crate::error::Error;

/// The configuration file the CLI reads from the current directory when
/// no `--config` names one.
pub const CONFIG_FILE: &str = "botwarden.toml";

/// A finding of the JSON and CSV lists at most this many related URLs and
/// links by default; `related_count` and `link_count` count them all.
pub const DEFAULT_MAX_EVIDENCE: usize = 100;

/// Which checks run. A selector is a check's code
/// (`content/near-duplicate`), a group, the part of codes before the `/`
/// (`links`), or `ALL`. A check runs when the most specific selector that
/// names it is in `select` (`select` empty: every check is selected, as by
/// `ALL`); of a selector as specific in both lists, `ignore` wins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    select: Vec<String>,
    ignore: Vec<String>,
}

impl Selection {
    /// A selection of these selectors.
    ///
    /// # Errors
    /// [`Error::Settings`] naming the first selector that is no
    /// check's code, no group and not `ALL`.
    pub fn new(select: Vec<String>, ignore: Vec<String>) -> Result<Selection, Error> {
        for (list, selectors) in [("select", &select), ("ignore", &ignore)] {
            for (i, s) in selectors.iter().enumerate() {
                if specificity(s, None).is_none() {
                    return Err(Error::Settings {
                        input: format!("{list}[{i}]"),
                        message: unknown(s),
                    });
                }
            }
        }
        Ok(Selection { select, ignore })
    }

    /// Whether the check with this code runs.
    #[must_use]
    pub fn includes(&self, code: &str) -> bool {
        let best = |list: &[String]| list.iter().filter_map(|s| specificity(s, Some(code))).max();
        let selected = if self.select.is_empty() {
            Some(0)
        } else {
            best(&self.select)
        };
        match (selected, best(&self.ignore)) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(s), Some(i)) => s > i,
        }
    }
}

/// How specifically `selector` names `code` (2 the code, 1 its group, 0
/// `ALL`), or `None` when it does not; with no code, whether it names any
/// check.
fn specificity(selector: &str, code: Option<&str>) -> Option<u8> {
    let names = |c: &str| -> Option<u8> {
        if selector == "ALL" {
            Some(0)
        } else if selector == c {
            Some(2)
        } else if c.split_once('/').is_some_and(|(g, _)| g == selector) {
            Some(1)
        } else {
            None
        }
    };
    match code {
        Some(c) => names(c),
        None => CHECKS.iter().filter_map(|c| names(c.code)).max(),
    }
}

/// The error for a selector that names nothing.
fn unknown(selector: &str) -> String {
    let mut groups: Vec<&str> = CHECKS
        .iter()
        .filter_map(|c| c.code.split_once('/').map(|(g, _)| g))
        .collect();
    groups.sort_unstable();
    groups.dedup();
    let close = CHECKS
        .iter()
        .map(|c| c.code)
        .find(|c| c.ends_with(&format!("/{selector}")));
    let hint = match close {
        Some(c) => format!("; did you mean {c}?"),
        None => String::new(),
    };
    format!(
        "'{selector}' is no check's code, no group and not ALL (groups: {}; the codes are in docs/audit.md){hint}",
        groups.join(", ")
    )
}

/// The audit's settings as given: each may be missing, so that flags
/// can override a file key by key ([`AuditSettings::or`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AuditSettings {
    /// Selectors of the checks to run (`ALL` if none).
    pub select: Option<Vec<String>>,
    /// Selectors of the checks not to run.
    pub ignore: Option<Vec<String>>,
    /// Related URLs and links a finding lists at most in the JSON and CSV.
    pub max_evidence: Option<usize>,
    /// Pages deeper than this are reported (`structure/deep-page`).
    pub max_depth: Option<u32>,
}

/// A configuration file: only its `[audit]` section is read here.
#[derive(Deserialize)]
struct ConfigFile {
    #[serde(default)]
    audit: AuditSettings,
}

impl AuditSettings {
    /// The `[audit]` section of a configuration file's text (other
    /// sections are left to their readers); `path` names it in errors.
    ///
    /// # Errors
    /// [`Error::Settings`] when the TOML does not parse, a key of
    /// `[audit]` is unknown or of the wrong type, or a selector names
    /// nothing.
    pub fn from_toml(text: &str, path: &Path) -> Result<AuditSettings, Error> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| Error::Settings {
            input: path.display().to_string(),
            message: e.to_string().trim_end().to_owned(),
        })?;
        file.audit.selection().map_err(|e| match e {
            Error::Settings { input, message } => Error::Settings {
                input: format!("{}: [audit] {input}", path.display()),
                message,
            },
            other => other,
        })?;
        Ok(file.audit)
    }

    /// These settings, each missing one taken from `file`: flags over the
    /// file, key by key.
    #[must_use]
    pub fn or(self, file: AuditSettings) -> AuditSettings {
        AuditSettings {
            select: self.select.or(file.select),
            ignore: self.ignore.or(file.ignore),
            max_evidence: self.max_evidence.or(file.max_evidence),
            max_depth: self.max_depth.or(file.max_depth),
        }
    }

    /// The checks these settings run.
    ///
    /// # Errors
    /// As [`Selection::new`].
    pub fn selection(&self) -> Result<Selection, Error> {
        Selection::new(
            self.select.clone().unwrap_or_default(),
            self.ignore.clone().unwrap_or_default(),
        )
    }

    /// The evidence cap ([`DEFAULT_MAX_EVIDENCE`] unless given).
    #[must_use]
    pub fn max_evidence(&self) -> usize {
        self.max_evidence.unwrap_or(DEFAULT_MAX_EVIDENCE)
    }

    /// The depth limit ([`DEFAULT_MAX_DEPTH`] unless given).
    #[must_use]
    pub fn max_depth(&self) -> u32 {
        self.max_depth.unwrap_or(DEFAULT_MAX_DEPTH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(select: &[&str], ignore: &[&str]) -> Selection {
        let v = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect();
        Selection::new(v(select), v(ignore)).expect("valid")
    }

    #[test]
    fn the_most_specific_selector_decides() {
        let all = sel(&[], &[]);
        assert!(CHECKS.iter().all(|c| all.includes(c.code)));
        let links = sel(&["links"], &["links/empty-href"]);
        assert!(links.includes("links/broken-internal"));
        assert!(!links.includes("links/empty-href"));
        assert!(!links.includes("content/near-duplicate"));
        // A code selected beats its group ignored.
        let back = sel(&["content/near-duplicate"], &["content"]);
        assert!(back.includes("content/near-duplicate"));
        assert!(!back.includes("content/missing-title"));
        // As specific in both: ignored.
        let tie = sel(&["links"], &["links"]);
        assert!(!tie.includes("links/broken-internal"));
        let ignored = sel(&[], &["content/near-duplicate"]);
        assert!(!ignored.includes("content/near-duplicate"));
        assert!(ignored.includes("content/exact-duplicate"));
    }

    #[test]
    fn unknown_selectors_are_named() {
        let e = Selection::new(vec!["near-duplicate".into()], vec![]).expect_err("unknown");
        let text = e.to_string();
        assert!(
            text.starts_with("select[0]: 'near-duplicate' is no check's code"),
            "{text}"
        );
        assert!(
            text.contains("did you mean content/near-duplicate?"),
            "{text}"
        );
        assert!(Selection::new(vec![], vec!["link".into()]).is_err());
        assert!(Selection::new(vec!["ALL".into()], vec![]).is_ok());
    }

    #[test]
    fn the_file_section_and_flags_over_it() {
        let path = Path::new("botwarden.toml");
        let file = AuditSettings::from_toml(
            "[serve]\nlisten = \"x\"\n[audit]\nselect = [\"links\"]\nmax-evidence = 5\n",
            path,
        )
        .expect("parse");
        assert_eq!(file.max_evidence(), 5);
        let flags = AuditSettings {
            ignore: Some(vec!["links/empty-href".into()]),
            max_evidence: Some(7),
            ..AuditSettings::default()
        };
        let merged = flags.or(file);
        assert_eq!(merged.select.as_deref(), Some(&["links".to_owned()][..]));
        assert_eq!(merged.max_evidence(), 7);
        assert_eq!(merged.max_depth(), DEFAULT_MAX_DEPTH);
        let bad = AuditSettings::from_toml("[audit]\nselekt = []\n", path).expect_err("bad key");
        assert!(bad.to_string().starts_with("botwarden.toml"), "{bad}");
        let bad = AuditSettings::from_toml("[audit]\nignore = [\"nope\"]\n", path)
            .expect_err("bad selector");
        assert!(
            bad.to_string()
                .starts_with("botwarden.toml: [audit] ignore[0]: 'nope'"),
            "{bad}"
        );
        assert_eq!(
            AuditSettings::from_toml("", path).expect("empty"),
            AuditSettings::default()
        );
    }
}
