//! The settings a crawl's store keeps: the options that shape the crawl,
//! read from the command line, written to the store, and read back when
//! the crawl resumes.

use anyhow::{Context, Result, bail};
use botwarden_crawl::{CHANGES_META, ChangeRule, CrawlSettings, SETTINGS_META};
use botwarden_store::Store;
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, Parser};

use super::args::CrawlArgs;

/// The options a crawl's store keeps ([`CrawlSettings`]): every one that
/// shapes the crawl, by clap id, as written, and how it may change on
/// resume (`None`: it may not).
const SETTINGS: &[(&str, &str, Option<ChangeRule>)] = &[
    ("url", "URL", None),
    ("max_urls", "--max-urls", Some(ChangeRule::Raise)),
    ("max_depth", "--max-depth", None),
    ("platform", "--platform", None),
    ("essential", "--essential", None),
    ("as_tokens", "--as", None),
    ("profile", "--profile", None),
    ("robots_file", "--robots-file", None),
    (
        "site_secret_file",
        "--site-secret-file",
        Some(ChangeRule::Any),
    ),
    ("parallel", "--parallel", Some(ChangeRule::Any)),
    ("delay", "--delay", Some(ChangeRule::Any)),
    ("scope", "--scope", None),
    ("include", "--include", None),
    ("exclude", "--exclude", None),
    ("follow_nofollow", "--follow-nofollow", None),
    ("sitemaps", "--sitemaps", None),
    ("sitemap", "--sitemap", None),
    ("resources", "--resources", None),
    ("info_url", "--info-url", None),
    ("allow_private", "--allow-private", Some(ChangeRule::Any)),
    ("timeout", "--timeout", Some(ChangeRule::Any)),
    ("max_bytes", "--max-bytes", None),
    ("fresh_connections", "--fresh-connections", None),
    ("http2_prior_knowledge", "--http2-prior-knowledge", None),
    ("ca_cert", "--ca-cert", Some(ChangeRule::Any)),
    ("nameserver", "--nameserver", Some(ChangeRule::Any)),
    ("sign_key", "--sign-key", None),
    ("signature_agent", "--signature-agent", None),
    ("signature_agent_form", "--signature-agent-form", None),
    ("render", "--render", None),
    ("render_tabs", "--render-tabs", Some(ChangeRule::Any)),
    ("render_budget", "--render-budget", Some(ChangeRule::Any)),
    ("chromium", "--chromium", Some(ChangeRule::Any)),
];

/// Options whose values are files: kept as absolute paths, so that a crawl
/// resumed from another directory reads the same files.
const PATH_OPTIONS: &[&str] = &[
    "robots_file",
    "site_secret_file",
    "ca_cert",
    "sign_key",
    "chromium",
];

/// The value(s) of an option as given or defaulted, as text.
fn raw_values(matches: &ArgMatches, id: &str) -> Vec<String> {
    let values: Vec<String> = matches
        .get_raw(id)
        .map(|v| v.map(|s| s.to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    if PATH_OPTIONS.contains(&id) {
        values
            .into_iter()
            .map(|v| std::path::absolute(&v).map_or(v, |p| p.display().to_string()))
            .collect()
    } else {
        values
    }
}

/// The settings of a crawl started with `matches`.
pub(super) fn settings_of(matches: &ArgMatches) -> CrawlSettings {
    CrawlSettings::new(
        SETTINGS
            .iter()
            .map(|(id, option, _)| ((*option).to_owned(), raw_values(matches, id)))
            .collect(),
    )
}

/// The arguments of a crawl resumed from `store`: the stored settings,
/// with the options given again (equal, or changed where they may; each
/// change recorded in the store), and the URLs --retry-skipped names
/// queued again. `None` for a store written before settings were kept:
/// the options given are used.
#[allow(clippy::print_stderr)]
pub(super) fn resumed_args(
    given: &CrawlArgs,
    matches: Option<&ArgMatches>,
    store: &mut Store,
) -> Result<Option<CrawlArgs>> {
    let path = store.path().display().to_string();
    let stored = match store.meta(SETTINGS_META)? {
        Some(text) => Some(CrawlSettings::from_meta(&text).with_context(|| {
            format!("{path}: the crawl's settings cannot be read (meta '{SETTINGS_META}')")
        })?),
        None => None,
    };
    let now = jiff::Timestamp::now().to_string();
    let resumed = match (stored, matches) {
        (Some(stored), Some(matches)) => {
            let explicit: Vec<(&str, Vec<String>)> = SETTINGS
                .iter()
                .filter(|(id, _, _)| matches.value_source(id) == Some(ValueSource::CommandLine))
                .map(|(id, option, _)| (*option, raw_values(matches, id)))
                .collect();
            let rule = |option: &str| {
                SETTINGS
                    .iter()
                    .find(|(_, o, _)| *o == option)
                    .and_then(|(_, _, r)| *r)
            };
            let (settings, changes) = stored
                .resume(explicit.iter().map(|(o, v)| (*o, v.as_slice())), rule)
                .with_context(|| format!("cannot resume the crawl in {path}"))?;
            for change in &changes {
                store.append_meta(CHANGES_META, &change.line(&now))?;
            }
            store.set_meta(SETTINGS_META, &settings.to_meta())?;
            let raised = changes
                .iter()
                .find(|c| c.option == "--max-urls")
                .and_then(|c| {
                    let n = |v: &[String]| v.first()?.parse::<u64>().ok();
                    Some(n(&c.after)? - n(&c.before)?)
                });
            if let Some(more) = raised.filter(|n| *n > 0) {
                let requeued = store.requeue_skipped("max-urls", Some(more))?;
                if requeued > 0 {
                    eprintln!(
                        "botwarden: --max-urls raised: {requeued} URL(s) skipped at the old limit queued again"
                    );
                }
            }
            Some(args_of(&settings, given, &path, true)?)
        }
        (None, _) => {
            eprintln!(
                "botwarden: warning: {path} keeps no settings (written by an older botwarden): \
                 the crawl resumes with the options given now"
            );
            None
        }
        (Some(_), None) => None,
    };
    for reason in &given.retry_skipped {
        let n = store.requeue_skipped(reason, None)?;
        store.append_meta(
            CHANGES_META,
            &format!("{now}\t--retry-skipped\t{reason}\t{n}\n"),
        )?;
        eprintln!("botwarden: {n} URL(s) skipped as {reason} queued again");
    }
    Ok(resumed)
}

/// The crawl's arguments from its settings, with what is not a setting
/// (the store, the output, the workers) as given: a new crawl runs with
/// them too, so that it and its resumptions read the same values (files
/// by absolute path).
pub(super) fn args_of(
    settings: &CrawlSettings,
    given: &CrawlArgs,
    path: &str,
    resume: bool,
) -> Result<CrawlArgs> {
    let command = crate::Cli::command();
    let crawl = command
        .find_subcommand("crawl")
        .context("the crawl command")?;
    let mut argv: Vec<String> = vec!["botwarden".into(), "crawl".into()];
    for (id, option, _) in SETTINGS {
        let values = settings.get(option).unwrap_or(&[]);
        let Some(arg) = crawl.get_arguments().find(|a| a.get_id() == id) else {
            continue;
        };
        let Some(long) = arg.get_long() else {
            // The start URL, a positional.
            argv.extend(values.iter().cloned());
            continue;
        };
        if matches!(arg.get_action(), clap::ArgAction::SetTrue) {
            if values.iter().any(|v| v == "true") {
                argv.push(format!("--{long}"));
            }
            continue;
        }
        for v in values {
            argv.push(format!("--{long}={v}"));
        }
    }
    let mut argv: Vec<std::ffi::OsString> = argv.into_iter().map(Into::into).collect();
    if let Some(db) = &given.db {
        argv.push("--db".into());
        argv.push(db.clone().into_os_string());
    }
    if resume {
        argv.push("--resume".into());
    }
    let parsed = crate::Cli::try_parse_from(&argv)
        .with_context(|| format!("{path}: the crawl's stored settings are not valid options"))?;
    let crate::Command::Crawl(mut args) = parsed.command else {
        bail!("{path}: the crawl's stored settings are not a crawl's");
    };
    args.db.clone_from(&given.db);
    args.format = given.format;
    args.audit = given.audit;
    args.check_external = given.check_external;
    args.retry_skipped.clone_from(&given.retry_skipped);
    args.workers = given.workers;
    args.redis.clone_from(&given.redis);
    args.crawl_name.clone_from(&given.crawl_name);
    args.lease = given.lease;
    args.redis_wait = given.redis_wait;
    args.redis_access.clone_from(&given.redis_access);
    Ok(*args)
}
