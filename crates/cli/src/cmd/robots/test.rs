//! `botwarden robots test`: whether a robot may fetch URLs.
//!
//! The file is compiled for the one robot asked about
//! ([`RobotMatcher`]): only the groups its token chain can select. URLs on
//! standard input are read in large blocks and answered in place, and the
//! answers go through one buffered writer, so that a plain answer costs no
//! allocation.

use std::io::{BufWriter, ErrorKind, Read, Write};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use botwarden_robots::prefs::{self, Reading, UsageAnswer};
use botwarden_robots::{Applies, Profile, Reason, RobotMatcher, RobotsTxt, TokenChain};
use clap::Args;
use serde::Serialize;

use super::source::{Source, parse_profile};
use crate::format::Format;

/// `--format` of `robots test` and `robots fetch`.
pub(crate) fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    Format::parser("`allowed<TAB>url` lines", "One JSON object per line")
}

/// Arguments of `botwarden robots test`.
#[derive(Debug, Args)]
pub(crate) struct TestArgs {
    /// The robots.txt file, or `-` for standard input.
    file: String,
    /// Product tokens, most specific first, comma-separated
    /// (`botwarden-phone,botwarden`); `*` is always tried last.
    #[arg(long, short = 'a', value_name = "TOKEN[,TOKEN...]")]
    agent: String,
    /// How to read the file: rfc9309, google, bing, yandex, strict.
    #[arg(long, short = 'p', default_value = "rfc9309", value_parser = parse_profile)]
    profile: &'static Profile,
    /// Say which group, rule and line decided.
    #[arg(long)]
    explain: bool,
    /// Answer the usage preferences too (`search`, `train-ai`,
    /// `ai-input`) from `Content-Usage` and `Content-Signal`, under the
    /// group reading (aipref-attach) and, where it differs, crawler-commons'
    /// file-wide reading of `Content-Signal`.
    #[arg(long)]
    usage: bool,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = format_parser())]
    format: Format,
    /// The matching work allowed, in bytes of URL walked by wildcard rules
    /// per byte of URL read (about how many wildcard rules a URL may meet
    /// on average); 0 for no bound. A file of very many wildcard rules
    /// makes each URL cost its length times those rules: the bound stops
    /// such a run with an error after a few seconds instead of hours.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MATCH_WORK)]
    max_match_work: u64,
    /// URLs or paths to test (default: one per line on standard input).
    urls: Vec<String>,
}

/// The default of `--max-match-work`: a URL of a real file meets a few
/// wildcard rules, rarely a hundred; 8 MiB of wildcard rules makes every
/// URL meet hundreds of thousands, and reaches the bound within seconds
/// whatever the URLs.
const DEFAULT_MAX_MATCH_WORK: u64 = 256;

/// Matching work allowed whatever the URLs: a fraction of a second.
const MATCH_WORK_SLACK: u64 = 1 << 26;

/// Bytes of standard input read at once.
const BLOCK: usize = 256 * 1024;

#[allow(clippy::print_stderr)]
pub(crate) fn run(args: &TestArgs) -> Result<ExitCode> {
    let chain = TokenChain::parse(&args.agent);
    if chain.tokens().is_empty() && args.agent.trim() != "*" {
        bail!("--agent needs at least one product token (e.g. --agent botwarden-phone,botwarden)");
    }
    for token in chain.invalid_tokens() {
        eprintln!(
            "botwarden: warning: '{token}' is not a product token ([A-Za-z_-]+); \
             robots that compare product tokens never match it"
        );
    }
    if args.file == "-" && args.urls.is_empty() {
        bail!("the robots.txt is read from standard input, so give the URLs as arguments");
    }
    let body = Source::read(&args.file)?.body;
    let txt = RobotsTxt::parse(body);
    let matcher = RobotMatcher::new(&txt, args.profile, &chain);
    let mut report = Report {
        out: BufWriter::with_capacity(BLOCK, std::io::stdout().lock()),
        txt: &txt,
        matcher: &matcher,
        chain: &chain,
        args,
        work: Work {
            start: botwarden_robots::wildcard_walk(),
            urls: 0,
            answered: 0,
        },
    };
    if args.urls.is_empty() {
        let blank = for_each_line(std::io::stdin().lock(), |url| report.answer(url))?;
        if blank > 0 {
            eprintln!("botwarden: note: skipped {blank} blank line(s) of standard input");
        }
    } else {
        for url in &args.urls {
            report.answer(url)?;
        }
    }
    report
        .out
        .flush()
        .context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}

/// Calls `each` with every line of `input`, trimmed, reading it in blocks
/// of [`BLOCK`] bytes (a longer line grows the buffer); returns how many
/// blank lines were skipped.
fn for_each_line(mut input: impl Read, mut each: impl FnMut(&str) -> Result<()>) -> Result<u64> {
    let mut buf = vec![0u8; BLOCK];
    let (mut filled, mut number, mut blank) = (0usize, 0u64, 0u64);
    let mut line = |bytes: &[u8], number: u64| -> Result<()> {
        let text = std::str::from_utf8(bytes).with_context(|| {
            format!("cannot read URL line {number} from standard input: it is not UTF-8")
        })?;
        match text.trim() {
            "" => blank += 1,
            url => each(url)?,
        }
        Ok(())
    };
    // Bytes before `searched` hold no line break.
    let mut searched = 0;
    loop {
        let n = match input.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(e).with_context(|| {
                    format!("cannot read URL line {} from standard input", number + 1)
                });
            }
        };
        let eof = n == 0;
        filled += n;
        let mut start = 0;
        while let Some(end) = memchr::memchr(b'\n', &buf[searched..filled]) {
            number += 1;
            line(&buf[start..searched + end], number)?;
            start = searched + end + 1;
            searched = start;
        }
        if eof {
            if start < filled {
                number += 1;
                line(&buf[start..filled], number)?;
            }
            return Ok(blank);
        }
        // Keep the unfinished line; make room if it fills the buffer.
        if start > 0 {
            buf.copy_within(start..filled, 0);
            filled -= start;
        }
        searched = filled;
        if filled == buf.len() {
            buf.resize(2 * buf.len(), 0);
        }
    }
}

struct Report<'a, W: Write> {
    out: W,
    txt: &'a RobotsTxt,
    matcher: &'a RobotMatcher,
    chain: &'a TokenChain,
    args: &'a TestArgs,
    work: Work,
}

/// The matching work of a run, against `--max-match-work`.
struct Work {
    /// [`botwarden_robots::wildcard_walk`] when the run began.
    start: u64,
    /// Bytes of URL read so far.
    urls: u64,
    /// URLs answered.
    answered: u64,
}

/// One JSON answer.
#[derive(Serialize)]
struct Answer<'a> {
    url: &'a str,
    allowed: bool,
    profile: &'a str,
    agent: &'a str,
    rule: Option<String>,
    line: Option<u32>,
    /// The token whose groups applied (`*` for the default group).
    group: Option<&'a str>,
    /// Why, in words.
    reason: String,
    /// The usage preferences, with `--usage`.
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<serde_json::Value>,
}

/// The usage preferences of one answer as text: `search=y train-ai=n
/// ai-input=-`, with the deciding lines under `--explain`, then the
/// file-wide reading where it differs; `n/a` where the robot may not fetch.
fn usage_text(a: &UsageAnswer, explain: bool) -> String {
    if !a.fetch {
        return "usage n/a (may not fetch)".to_owned();
    }
    let reading = |answers: &[prefs::Answer; 3]| {
        answers
            .iter()
            .map(|x| match (explain, x.lines.as_slice()) {
                (true, [first, ..]) => format!("{}={} (line {first})", x.purpose, x.preference),
                _ => format!("{}={}", x.purpose, x.preference),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let group = reading(a.reading(Reading::Group));
    if a.disagree() {
        format!(
            "{group}\tfile-wide: {}",
            reading(a.reading(Reading::FileWide))
        )
    } else {
        group
    }
}

/// The usage preferences of one answer as JSON.
fn usage_json(a: &UsageAnswer) -> serde_json::Value {
    let reading = |answers: &[prefs::Answer; 3]| {
        answers
            .iter()
            .map(|x| {
                (
                    x.purpose.as_str().to_owned(),
                    serde_json::json!({ "preference": x.preference.as_str(), "lines": x.lines }),
                )
            })
            .collect::<serde_json::Map<_, _>>()
    };
    serde_json::json!({
        "applies": a.fetch,
        "group": reading(a.reading(Reading::Group)),
        "file_wide": reading(a.reading(Reading::FileWide)),
        "disagree": a.disagree(),
    })
}

impl<W: Write> Report<'_, W> {
    fn answer(&mut self, url: &str) -> Result<()> {
        let d = self.matcher.check(url);
        let verdict: &[u8] = if d.allowed {
            b"allowed\t"
        } else {
            b"disallowed\t"
        };
        let written = match self.args.format {
            Format::Text if self.args.usage => {
                let usage = usage_text(&self.matcher.usage(url), self.args.explain);
                if self.args.explain {
                    let why = d.explain(self.matcher, self.txt, self.chain);
                    self.out
                        .write_all(verdict)
                        .and_then(|()| writeln!(self.out, "{url}\t{why}\t{usage}"))
                } else {
                    self.out
                        .write_all(verdict)
                        .and_then(|()| writeln!(self.out, "{url}\t{usage}"))
                }
            }
            Format::Text if self.args.explain => {
                let why = d.explain(self.matcher, self.txt, self.chain);
                self.out
                    .write_all(verdict)
                    .and_then(|()| writeln!(self.out, "{url}\t{why}"))
            }
            Format::Text => self
                .out
                .write_all(verdict)
                .and_then(|()| self.out.write_all(url.as_bytes()))
                .and_then(|()| self.out.write_all(b"\n")),
            Format::Json => {
                let (rule, line) = match d.reason {
                    Reason::Rule { index, line } => (
                        Some(self.matcher.rule_as_written(self.txt, index)),
                        Some(line),
                    ),
                    _ => (None, None),
                };
                let answer = Answer {
                    url,
                    allowed: d.allowed,
                    profile: self.args.profile.name,
                    agent: &self.args.agent,
                    rule,
                    line,
                    group: match self.matcher.applies() {
                        Applies::Token(t) => Some(t.as_str()),
                        Applies::Star => Some("*"),
                        Applies::Nothing => None,
                    },
                    reason: d.explain(self.matcher, self.txt, self.chain).to_string(),
                    usage: self
                        .args
                        .usage
                        .then(|| usage_json(&self.matcher.usage(url))),
                };
                serde_json::to_writer(&mut self.out, &answer)
                    .map_err(std::io::Error::from)
                    .and_then(|()| self.out.write_all(b"\n"))
            }
        };
        written.context("cannot write to standard output")?;
        self.bound_work(url)
    }

    /// An error once the matching work is over `--max-match-work`.
    fn bound_work(&mut self, url: &str) -> Result<()> {
        let work = &mut self.work;
        work.answered += 1;
        work.urls = work
            .urls
            .saturating_add(u64::try_from(url.len()).unwrap_or(u64::MAX) + 1);
        let walked = botwarden_robots::wildcard_walk() - work.start;
        let factor = self.args.max_match_work;
        if factor == 0
            || walked
                <= factor
                    .saturating_mul(work.urls)
                    .saturating_add(MATCH_WORK_SLACK)
        {
            return Ok(());
        }
        self.out
            .flush()
            .context("cannot write to standard output")?;
        bail!(
            "stopped after {} URL(s): matching them walked {walked} bytes of URL against the \
             wildcard rules of {}, more than {factor} per byte of URL; each URL costs its \
             length times the wildcard rules it meets (--max-match-work 0 lifts the bound)",
            work.answered,
            self.args.file,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives back at most `step` bytes per call.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn lines_of(input: &[u8], step: usize) -> Result<(Vec<String>, u64)> {
        let mut seen = Vec::new();
        let blank = for_each_line(Trickle { data: input, step }, |l| {
            seen.push(l.to_owned());
            Ok(())
        })?;
        Ok((seen, blank))
    }

    #[test]
    fn lines_across_blocks_endings_and_blanks() {
        let long = "/x".repeat(BLOCK);
        let input = format!("/a\r\n\n  /b  \n{long}\n\n/c");
        for step in [1, 3, 7, BLOCK - 1, BLOCK, 4 * BLOCK] {
            let (seen, blank) = lines_of(input.as_bytes(), step).expect("valid input");
            assert_eq!(seen, ["/a", "/b", long.as_str(), "/c"], "step {step}");
            assert_eq!(blank, 2, "step {step}");
        }
        assert_eq!(lines_of(b"", 5).expect("empty").0.len(), 0);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_named() {
        let err = lines_of(b"/a\n/b\xff\n", 2).expect_err("not UTF-8");
        assert!(format!("{err:#}").contains("line 2"), "{err:#}");
    }
}
