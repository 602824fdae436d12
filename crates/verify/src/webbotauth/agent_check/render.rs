//! The text report of `check-agent`, and the advice on the signer's form.

use std::fmt::{self, Write as _};

use super::{AgentCheck, FormVerdict, Outcome, Reader, ReaderVerdict};

fn cell(v: &ReaderVerdict) -> String {
    if v.because.is_empty() {
        v.outcome.as_str().to_owned()
    } else {
        format!("{} ({})", v.outcome.as_str(), v.because.join(", "))
    }
}

/// The signer setting to use: a form every reader verifies if there is
/// one, else what each form gets; and whether the directory lets any
/// reader have the keys.
pub(super) fn advice(forms: &[FormVerdict], directory: &[ReaderVerdict]) -> String {
    let all = |f: &FormVerdict| f.verdicts.iter().all(|v| v.outcome == Outcome::Verifies);
    let mut out = match forms.iter().find(|f| all(f)) {
        Some(f) => format!(
            "`--signature-agent-form {}` verifies under all three readings",
            f.form
        ),
        None => {
            let mut s = "no Signature-Agent form verifies under all three readings: ".to_owned();
            let parts: Vec<String> = forms
                .iter()
                .map(|f| {
                    let good: Vec<&str> = f
                        .verdicts
                        .iter()
                        .filter(|v| v.outcome == Outcome::Verifies)
                        .map(|v| v.reader.as_str())
                        .collect();
                    let maybe: Vec<&str> = f
                        .verdicts
                        .iter()
                        .filter(|v| v.outcome == Outcome::Depends)
                        .map(|v| v.reader.as_str())
                        .collect();
                    let mut p = format!(
                        "`--signature-agent-form {}` verifies under {}",
                        f.form,
                        if good.is_empty() {
                            "none".to_owned()
                        } else {
                            good.join(", ")
                        }
                    );
                    if !maybe.is_empty() {
                        let _ = write!(p, " and may under {}", maybe.join(", "));
                    }
                    p
                })
                .collect();
            s.push_str(&parts.join("; "));
            s.push_str(
                " (sign for the verifiers your requests meet: string for sites behind \
                 Cloudflare, dictionary for the draft)",
            );
            s
        }
    };
    let failing: Vec<&str> = directory
        .iter()
        .filter(|v| v.outcome == Outcome::Fails)
        .map(|v| v.reader.as_str())
        .collect();
    if !failing.is_empty() {
        let _ = write!(
            out,
            "; but the directory fails under {} first (findings above)",
            failing.join(", ")
        );
    }
    out
}

impl fmt::Display for AgentCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "agent {}", self.agent)?;
        writeln!(f, "directory {}: {}", self.directory, self.summary)?;
        for k in &self.keys {
            write!(f, "  key {} ({})", k.keyid, k.alg)?;
            if let Some(kid) = &k.kid
                && kid != &k.keyid
            {
                write!(f, " kid {kid}")?;
            }
            writeln!(
                f,
                "{}",
                if k.signed {
                    ", signs the directory"
                } else {
                    ""
                }
            )?;
        }
        if let Some(s) = &self.sample {
            write!(
                f,
                "sample: {}, signature {} covering {}",
                s.check,
                s.label.as_deref().unwrap_or("-"),
                if s.components.is_empty() {
                    "-".to_owned()
                } else {
                    s.components.join(" ")
                }
            )?;
            if let Some(form) = s.agent_form {
                write!(f, ", Signature-Agent as {form}")?;
            }
            writeln!(f)?;
        }
        writeln!(f)?;
        if self.findings.is_empty() {
            writeln!(f, "no findings")?;
        }
        for x in &self.findings {
            write!(
                f,
                "{} {} {}: {}",
                x.code,
                x.severity.as_str(),
                x.name,
                x.message
            )?;
            if !x.effects.is_empty() {
                let e: Vec<String> = x
                    .effects
                    .iter()
                    .map(|(r, e)| {
                        format!(
                            "{} {}",
                            r.as_str(),
                            match e {
                                super::Effect::Fails => "fails",
                                super::Effect::Depends => "may fail",
                            }
                        )
                    })
                    .collect();
                write!(f, " [{}]", e.join(", "))?;
            }
            writeln!(f)?;
        }
        writeln!(f)?;
        let width = Reader::ALL
            .iter()
            .map(|r| r.title().len())
            .max()
            .unwrap_or(0);
        let cells: Vec<String> = self.directory_verdicts.iter().map(cell).collect();
        let dir_width = cells.iter().map(String::len).max().unwrap_or(0).max(9);
        write!(f, "{:width$}  {:dir_width$}", "", "directory")?;
        if self.sample_verdicts.is_some() {
            write!(f, "  sample")?;
        }
        writeln!(f)?;
        for (i, r) in Reader::ALL.iter().enumerate() {
            write!(f, "{:width$}  {:dir_width$}", r.title(), cells[i])?;
            if let Some(s) = &self.sample_verdicts {
                write!(f, "  {}", cell(&s[i]))?;
            }
            writeln!(f)?;
        }
        writeln!(f)?;
        writeln!(f, "signer: {}", self.advice)
    }
}
