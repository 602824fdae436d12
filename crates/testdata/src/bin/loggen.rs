//! `loggen`: writes a large, realistic combined-format access log to
//! standard output, replaying the real lines of `../shared/corpus/logs`.
//!
//! `loggen [LINES] [--ips N] [--seed S] [--garbage-every N]`

use std::io::Write;
use std::process::ExitCode;

use botwarden_testdata::loggen::{Options, generate, shared_seeds};

fn main() -> ExitCode {
    let mut options = Options::default();
    let mut args = std::env::args().skip(1);
    let mut bad = None;
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .and_then(|v| v.replace('_', "").parse::<u64>().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        let r = match a.as_str() {
            "--ips" => value("--ips").map(|v| options.ips = v as u32),
            "--seed" => value("--seed").map(|v| options.seed = v),
            "--garbage-every" => value("--garbage-every").map(|v| options.garbage_every = v),
            "--queries" => value("--queries").map(|v| options.queries = v as u32),
            n => n
                .replace('_', "")
                .parse()
                .map(|v| options.lines = v)
                .map_err(|_| format!("unknown argument {n}")),
        };
        if let Err(e) = r {
            bad = Some(e);
            break;
        }
    }
    let result = bad.map_or_else(
        || {
            let seeds = shared_seeds().map_err(|e| e.to_string())?;
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            generate(&seeds, &options, &mut lock).map_err(|e| e.to_string())?;
            lock.flush().map_err(|e| e.to_string())
        },
        Err,
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("loggen: {e}");
            }
            ExitCode::from(2)
        }
    }
}
