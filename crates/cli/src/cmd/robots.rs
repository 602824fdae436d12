//! `botwarden robots ...`

use std::io::{BufRead, BufWriter, Read, Write};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use botwarden_robots::{
    Applies, Decision, LineKind, Matcher, Profile, Reason, Robots, RobotsTxt, TokenChain,
};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

/// robots.txt commands.
#[derive(Debug, Subcommand)]
pub(crate) enum RobotsCommand {
    /// Answer, for each URL, whether a robot may fetch it.
    ///
    /// URLs come from the arguments, or else one per line on standard input;
    /// each may be a full URL or a path. Prints `allowed<TAB>url` or
    /// `disallowed<TAB>url` per URL.
    Test(TestArgs),
    /// Fetch a site's robots.txt and say what each robot makes of the answer.
    ///
    /// Prints the redirect chain with timings, the status, type, encoding and
    /// size of the body, what was cut, warnings, and the decision of each
    /// robot (full allow, full disallow, parse, retry later, cached copy).
    /// Exits 0 whenever a decision could be made, network errors included;
    /// 2 on usage errors and refused addresses.
    Fetch(super::robots_fetch::FetchArgs),
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// `allowed<TAB>url` lines.
    Text,
    /// One JSON object per line.
    Json,
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
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// URLs or paths to test (default: one per line on standard input).
    urls: Vec<String>,
}

fn parse_profile(name: &str) -> Result<&'static Profile, String> {
    Profile::by_name(name).ok_or_else(|| {
        let names: Vec<_> = Profile::ALL.iter().map(|p| p.name).collect();
        format!("unknown profile '{name}' (known: {})", names.join(", "))
    })
}

pub(crate) fn run(command: RobotsCommand) -> Result<ExitCode> {
    match command {
        RobotsCommand::Test(args) => test(&args),
        RobotsCommand::Fetch(args) => super::robots_fetch::run(&args),
    }
}

/// Reads a robots.txt from a path or `-`.
fn read_source(file: &str) -> Result<(String, Vec<u8>)> {
    if file == "-" {
        let mut body = Vec::new();
        std::io::stdin()
            .read_to_end(&mut body)
            .context("cannot read robots.txt from standard input")?;
        return Ok(("<stdin>".to_owned(), body));
    }
    let body = std::fs::read(file).with_context(|| format!("cannot read robots.txt '{file}'"))?;
    Ok((file.to_owned(), body))
}

#[allow(clippy::print_stderr)]
fn test(args: &TestArgs) -> Result<ExitCode> {
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
    let (_, body) = read_source(&args.file)?;
    let txt = RobotsTxt::parse(body);
    let robots = Robots::new(&txt, args.profile);
    let matcher = robots.matcher(&chain);
    let out = std::io::stdout().lock();
    let mut report = Report {
        out: BufWriter::new(out),
        txt: &txt,
        robots: &robots,
        matcher: &matcher,
        args,
    };
    if args.urls.is_empty() {
        let mut blank = 0u64;
        for (n, line) in std::io::stdin().lock().lines().enumerate() {
            let line = line
                .with_context(|| format!("cannot read URL line {} from standard input", n + 1))?;
            let url = line.trim();
            if url.is_empty() {
                blank += 1;
                continue;
            }
            report.answer(url)?;
        }
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

struct Report<'a, W: Write> {
    out: W,
    txt: &'a RobotsTxt,
    robots: &'a Robots,
    matcher: &'a Matcher<'a>,
    args: &'a TestArgs,
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
    group: Option<String>,
    /// Why, in words.
    reason: String,
}

impl<W: Write> Report<'_, W> {
    fn answer(&mut self, url: &str) -> Result<()> {
        let d = self.matcher.check(url);
        let verdict = if d.allowed { "allowed" } else { "disallowed" };
        match self.args.format {
            Format::Text if self.args.explain => {
                writeln!(self.out, "{verdict}\t{url}\t{}", self.explain(&d))
            }
            Format::Text => writeln!(self.out, "{verdict}\t{url}"),
            Format::Json => {
                let (rule, line) = match d.reason {
                    Reason::Rule { index, line } => (Some(self.rule_text(index)), Some(line)),
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
                        Applies::Token(t) => Some(t.clone()),
                        Applies::Star => Some("*".to_owned()),
                        Applies::Nothing => None,
                    },
                    reason: self.explain(&d),
                };
                let json = serde_json::to_string(&answer).context("cannot encode JSON")?;
                writeln!(self.out, "{json}")
            }
        }
        .context("cannot write to standard output")
    }

    /// The rule as written in the file (`Disallow: /private`).
    fn rule_text(&self, index: u32) -> String {
        let rule = self.robots.rule(index);
        let written = self.txt.line(rule.line).and_then(|l| match l.kind {
            LineKind::Directive(d) => Some(format!(
                "{}: {}",
                self.txt.text(d.key),
                self.txt.text(d.value)
            )),
            _ => None,
        });
        match (written, rule.derived) {
            (Some(w), false) => w,
            (Some(w), true) => format!("{w} (read as {rule})"),
            (None, _) => rule.to_string(),
        }
    }

    fn explain(&self, d: &Decision) -> String {
        let group = || {
            let who = match self.matcher.applies() {
                Applies::Token(t) => t.as_str(),
                Applies::Star => "*",
                Applies::Nothing => return "no group".to_owned(),
            };
            let lines: Vec<String> = self
                .matcher
                .groups()
                .map(|g| g.line().to_string())
                .collect();
            let s = if lines.len() == 1 { "" } else { "s" };
            format!("group for '{who}' (line{s} {})", lines.join(", "))
        };
        match d.reason {
            Reason::Rule { index, line } => {
                format!(
                    "{}, rule '{}' at line {line}",
                    group(),
                    self.rule_text(index)
                )
            }
            Reason::NoRuleMatched => format!("{}, no rule matched", group()),
            Reason::NoGroup => {
                let names = self.args.agent.replace(',', ", ");
                format!("no group names {names} or '*'")
            }
            Reason::RobotsTxt => {
                format!("/robots.txt is always allowed ({})", self.args.profile.name)
            }
        }
    }
}
