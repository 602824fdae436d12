//! `botwarden robots ...`: one module per subcommand.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use check::CheckArgs;
use fetch::FetchArgs;
use fix::FixArgs;
use test::TestArgs;

mod check;
mod fetch;
mod fix;
pub(crate) mod source;
mod test;

/// robots.txt commands.
#[derive(Debug, Subcommand)]
pub(crate) enum RobotsCommand {
    /// Answer, for each URL, whether a robot may fetch it.
    ///
    /// URLs come from the arguments, or else one per line on standard input;
    /// each may be a full URL or a path. Prints `allowed<TAB>url` or
    /// `disallowed<TAB>url` per URL.
    Test(TestArgs),
    /// Tell how each robot reads a file and what is wrong with it.
    ///
    /// Prints rustc-style diagnostics with stable codes, errors first and one
    /// per root cause (`--verbose` lists each), then the interpretation
    /// matrix: for every robot the file names (and `*`, Googlebot, Bingbot,
    /// Yandex), under every profile, the decision for each path the rules
    /// mention (at most 40 rows where robots disagree, the rest counted).
    /// JSON and SARIF keep every finding. Exit 0 when there is no error, 1
    /// when there is (or a warning, with `--deny warnings`), 2 on usage or
    /// I/O errors.
    Check(CheckArgs),
    /// Fetch a site's robots.txt and say what each robot makes of the answer.
    ///
    /// Prints the redirect chain with timings, the status, type, encoding and
    /// size of the body, what was cut, warnings, and the decision of each
    /// robot (full allow, full disallow, parse, retry later, cached copy).
    /// Exits 0 whenever a decision could be made, network errors included;
    /// 2 on usage errors and refused addresses.
    Fetch(FetchArgs),
    /// Write a corrected file that provably means the same to every robot.
    ///
    /// The fixed file goes to standard output (or `-o OUT`); the changes and
    /// the differential check (every profile, every robot the files name,
    /// every path their rules mention) go to standard error. Exit 1 if the
    /// check finds a change of meaning that no fix intends.
    Fix(FixArgs),
}

pub(crate) fn run(command: RobotsCommand) -> Result<ExitCode> {
    match command {
        RobotsCommand::Test(args) => test::run(&args),
        RobotsCommand::Check(args) => check::run(&args),
        RobotsCommand::Fetch(args) => fetch::run(&args),
        RobotsCommand::Fix(args) => fix::run(&args),
    }
}
