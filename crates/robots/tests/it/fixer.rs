//! The fixer over real files: every file of the shared corpora
//! (`corpus/robots`, `corpus/robots-tricky`, not `*.tsv`) and of Protego's
//! 4,231-file test corpus is fixed. For every file: nothing panics; fixing
//! the fixed file changes nothing; the file is unchanged exactly when no
//! change is recorded; and the differential check finds no unintended
//! difference. Every path the check makes is asked: no real file comes near
//! the work bound past which the check samples.
//!
//! Counts are printed: files, files changed, changes by kind, intended
//! differences by profile and change. A second test tampers with fixed
//! files and requires the check to report the tampering, so that it cannot
//! pass silently.
//!
//! A property test feeds the fixer files made of the lines that trouble
//! readers most (misspellings, missing colons, NUL bytes, bytes that are not
//! UTF-8, the start of a byte-order mark, comments, blank lines, HTML) with
//! the same checks.
//!
//! The Protego corpus is not shared: `scripts/protego-corpus` downloads it
//! into `target/protego-corpus` (or set `BOTWARDEN_PROTEGO_CORPUS`). When a
//! corpus is absent its suite is skipped loudly, and fails under CI.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use botwarden_robots::{ChangeKind, Explanation, RobotsTxt, compare, compare_fixed, fix};
use proptest::prelude::*;
use proptest::test_runner::Config;

use crate::support::{files, protego, shared};

/// What the fixer did over a corpus.
#[derive(Default)]
struct Tally {
    files: usize,
    changed: usize,
    changes: BTreeMap<ChangeKind, usize>,
    /// Intended differences by profile and change.
    intended: BTreeMap<(String, ChangeKind), usize>,
    proven: usize,
    probed: usize,
    checks: usize,
    failures: Vec<String>,
    slowest: (Duration, String),
}

impl Tally {
    fn file(&mut self, name: &str, body: &[u8]) {
        let start = Instant::now();
        let txt = RobotsTxt::parse(body);
        let fixed = fix(&txt);
        let eq = compare_fixed(&txt, &fixed);
        let took = start.elapsed();
        if took > self.slowest.0 {
            self.slowest = (took, name.to_owned());
        }
        self.files += 1;
        self.changed += usize::from(!fixed.is_unchanged());
        for c in &fixed.changes {
            *self.changes.entry(c.kind).or_default() += 1;
        }
        self.proven += eq.proven;
        self.probed += eq.probed;
        self.checks += eq.checks;
        for ((profile, kind), n) in &eq.intended_by_change {
            *self
                .intended
                .entry(((*profile).to_owned(), *kind))
                .or_default() += n;
        }
        for d in eq.unintended() {
            if let Explanation::Unintended { why } = &d.reason {
                self.failures.push(format!(
                    "{name}: [{}] {} {}: {why}",
                    d.profile, d.agent, d.path
                ));
            }
        }
        if eq.unintended_found > eq.unintended().count() {
            self.failures.push(format!(
                "{name}: {} unintended differences in all",
                eq.unintended_found
            ));
        }
        // Real files are far from the work bound: every path is asked.
        if !eq.is_complete() {
            self.failures
                .push(format!("{name}: the proof is partial: {:?}", eq.unasked));
        }
        if fixed.is_unchanged() != (fixed.text.as_bytes() == body) {
            self.failures.push(format!(
                "{name}: {} changes recorded, text {}",
                fixed.changes.len(),
                if fixed.text.as_bytes() == body {
                    "unchanged"
                } else {
                    "changed"
                }
            ));
        }
        let again = fix(&RobotsTxt::parse(fixed.text.as_str()));
        if again.text != fixed.text || !again.is_unchanged() {
            self.failures.push(format!(
                "{name}: fixing the fixed file changes it again: {:?}",
                again.changes
            ));
        }
    }

    fn report(&self, label: &str) {
        let changes: Vec<String> = self
            .changes
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let intended: Vec<String> = self
            .intended
            .iter()
            .map(|((p, k), n)| format!("{p}/{k} {n}"))
            .collect();
        eprintln!(
            "fixer {label}: {} files, {} changed; slowest {} in {:.2?}\n  \
             changes by kind: {}\n  \
             intended differences by profile/change: {}\n  \
             (profile, robot) pairs proven alike {}, probed {}; decisions compared {}; \
             unintended {}",
            self.files,
            self.changed,
            self.slowest.1,
            self.slowest.0,
            changes.join(", "),
            if intended.is_empty() {
                "none".to_owned()
            } else {
                intended.join(", ")
            },
            self.proven,
            self.probed,
            self.checks,
            self.failures.len(),
        );
        assert!(
            self.failures.is_empty(),
            "{label}: {} failures, first ones:\n{}",
            self.failures.len(),
            self.failures
                .iter()
                .take(20)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

fn fix_dir(label: &str, dirs: &[PathBuf]) -> Tally {
    let mut tally = Tally::default();
    for dir in dirs {
        for path in files(dir) {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let body = std::fs::read(&path).unwrap_or_else(|e| panic!("read {name}: {e}"));
            tally.file(&name, &body);
        }
    }
    tally.report(label);
    tally
}

#[test]
fn shared_corpus_files_are_fixed_and_decide_as_before() {
    let Some(shared) = shared("fixer corpus") else {
        return;
    };
    let dirs = ["robots", "robots-tricky"].map(|f| shared.join("corpus").join(f));
    let tally = fix_dir("shared", &dirs);
    assert!(tally.files >= 425 + 149, "{} files", tally.files);
    assert!(
        tally.changed > tally.files / 2,
        "most real files need a fix"
    );
    for kind in [
        ChangeKind::KeySpelling,
        ChangeKind::RulesReordered,
        ChangeKind::GroupsMerged,
        ChangeKind::DisallowAdded,
        ChangeKind::YandexGroupCreated,
    ] {
        assert!(tally.changes.contains_key(&kind), "no {kind} in the corpus");
    }
}

#[test]
fn protego_corpus_files_are_fixed_and_decide_as_before() {
    let Some(dir) = protego("fixer (protego)") else {
        return;
    };
    let tally = fix_dir("protego", &[dir]);
    assert!(
        tally.files >= 4_000,
        "protego: {} files, Protego 0.7.0 ships 4,231",
        tally.files
    );
}

/// A fixed file with one rule turned around: `Disallow: /x` written
/// `Allow: /x`, or the other way round.
fn tamper(text: &str) -> Option<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let at = lines.iter().position(|l| {
        (l.starts_with("Disallow: /") || l.starts_with("Allow: /")) && l.len() > "Allow: /".len()
    })?;
    lines[at] = match lines[at].strip_prefix("Disallow: ") {
        Some(rest) => format!("Allow: {rest}"),
        None => format!("Disallow: {}", &lines[at]["Allow: ".len()..]),
    };
    Some(lines.join("\n") + "\n")
}

#[test]
fn a_tampered_fix_is_caught() {
    let Some(shared) = shared("fixer tampering") else {
        return;
    };
    let mut tried = 0;
    let mut caught = 0;
    for path in files(&shared.join("corpus/robots")).iter().step_by(7) {
        let body = std::fs::read(path).expect("read corpus file");
        let before = RobotsTxt::parse(body);
        let fixed = fix(&before);
        let Some(tampered) = tamper(&fixed.text) else {
            continue;
        };
        tried += 1;
        let eq = compare(&before, &RobotsTxt::parse(tampered.as_str()));
        if !eq.holds() {
            caught += 1;
            assert!(eq.intended().next().is_none(), "{}", path.display());
        }
        // The untampered fix holds: every difference is the fixer's.
        let proof = compare_fixed(&before, &fixed);
        assert!(proof.holds(), "{}", path.display());
    }
    eprintln!("fixer tampering: {caught} of {tried} tampered files caught");
    assert!(tried >= 40, "{tried} files tried");
    // A rule turned around changes some decision unless a rule with the
    // same pattern and the other verdict shadows it.
    assert!(caught * 10 >= tried * 9, "{caught} of {tried} caught");
}

/// One line from the parts that trouble readers: a key (spelt right,
/// misspelt, a prefix, unknown, not ASCII), a separator, a value, a
/// comment, a line ending.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let key = prop::sample::select(vec![
        &b"User-agent"[..],
        b"user-agent",
        b"useragent",
        b"User agent",
        b"Disallow",
        b"disalow",
        b"Disallowed",
        b"Allow",
        b"Sitemap",
        b"Host",
        b"Clean-param",
        b"Crawl-delay",
        b"crawldelay",
        b"Request-rate",
        b"Noindex",
        b"",
        b"\xEF\xBB",
        b"\xEF",
    ]);
    let sep = prop::sample::select(vec![&b": "[..], b":", b" ", b" : ", b"\t"]);
    let value = prop::sample::select(vec![
        &b"*"[..],
        b"a",
        b"Yandex",
        b"YandexBot",
        b"googlebot",
        b"bingbot",
        b"msnbot",
        b"/",
        b"/a",
        b"/a/b",
        b"/a*",
        b"/*.php$",
        b"",
        b"/%61",
        b"/\xff",
        b"/a\x00b",
        b"5",
        b"e.example",
        b"ref /",
        b"* x",
        b"*bot",
        b"a b",
    ]);
    let tail = prop::sample::select(vec![&b""[..], b"", b" # c", b"#", b"  ", b" # \xc2\xa0"]);
    let end = prop::sample::select(vec![
        &b"\n"[..],
        b"\n",
        b"\r\n",
        b"\r",
        b"\n\n",
        b"\n# note\n",
        b"\n<html>\n",
        b"\n\x00\n",
    ]);
    (key, sep, value, tail, end).prop_map(|(k, s, v, t, e)| [k, s, v, t, e].concat())
}

fn config() -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(2_000),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn troublesome_files_are_fixed_and_decide_as_before(
        lines in prop::collection::vec(line(), 0..14),
        cut in any::<bool>(),
    ) {
        let mut body = lines.concat();
        if cut {
            body.pop();
        }
        let mut tally = Tally::default();
        tally.file("generated", &body);
        prop_assert!(
            tally.failures.is_empty(),
            "{:?}\n{}",
            String::from_utf8_lossy(&body),
            tally.failures.join("\n")
        );
    }
}
