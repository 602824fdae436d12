//! The classifier's false positives on browser lists and recall on crawler
//! lists, with the default registry, on lists kept apart: *tuning* lists,
//! whose errors were read while the rules were written, and *held-out*
//! lists, of which only the figures below are ever read.
//!
//! | list | role | source (licence) |
//! |---|---|---|
//! | uap-core tests, browser families | tuning, browsers | `../shared/corpus/ua/` (Apache-2.0) |
//! | `testdata/conformance/ua-browsers.txt` | tuning, browsers | written for botwarden |
//! | device-detector fixtures, browsers; apps | tuning, browsers | PyPI `device-detector` 6.5.1, Matomo's fixtures (LGPL-3.0) |
//! | woothee testsets, browsers | tuning, browsers (held out until its first reading) | npm `woothee` 1.11.1 (Apache-2.0) |
//! | crawler-user-agents, arcjet, uap-core `Spider` | tuning, crawlers | `../shared/corpus/ua/derived/` (MIT, MIT, Apache-2.0) |
//! | Crawler-Detect devices | held out, browsers | PyPI `crawlerdetect` 0.4.2 (MIT) |
//! | fake-useragent | held out, browsers | PyPI `fake-useragent` 2.2.0 (Apache-2.0) |
//! | intoli user-agents | held out, browsers | npm `user-agents` 2.1.198 (BSD-2-Clause) |
//! | top-user-agents | held out, browsers | npm `top-user-agents` 2.1.138 (MIT) |
//! | Crawler-Detect crawlers | held out, crawlers | PyPI `crawlerdetect` 0.4.2 (MIT) |
//! | device-detector fixtures, bots | held out, crawlers | PyPI `device-detector` 6.5.1 (LGPL-3.0) |
//! | woothee testsets, crawlers | held out, crawlers | npm `woothee` 1.11.1 (Apache-2.0) |
//!
//! A User-Agent of a browser list is a false positive when it is
//! classified as a bot of any kind (a registered bot, a crawler, a library,
//! a scanner: anything but a browser); one of a crawler list is recognised
//! when it is. Each list is counted without duplicates.
//!
//! The packages are fetched, not kept in the repository: `scripts/ua-precision`
//! downloads them into `$CARGO_TARGET_DIR/ua-precision` and runs this test
//! (`BOTWARDEN_UA_PRECISION` names that folder). It prints the table and
//! writes it, with every error of the tuning lists, to `report.md` there.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use botwarden_verify::{BotKind, Classifier, Registry};
use serde::Deserialize;

use crate::classify::{browsers, own_browsers};
use crate::ua_corpus::{CRAWLER_LISTS, crawler_list};

/// The most share of a held-out browser list classified as a bot, and the
/// least share of a held-out crawler list recognised, in percent.
const BROWSER_CEILING: f64 = 1.0;
const RECALL_FLOOR: f64 = 90.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Tuning,
    HeldOut,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Browsers,
    Crawlers,
}

struct List {
    name: String,
    role: Role,
    class: Class,
    uas: Vec<String>,
}

impl List {
    fn new(name: &str, role: Role, class: Class, uas: impl IntoIterator<Item = String>) -> Self {
        let mut seen = HashSet::new();
        let uas = uas
            .into_iter()
            .map(|ua| ua.trim().to_owned())
            .filter(|ua| !ua.is_empty() && seen.insert(ua.clone()))
            .collect();
        Self {
            name: name.to_owned(),
            role,
            class,
            uas,
        }
    }
}

fn read(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run scripts/ua-precision, which fetches the lists)",
            path.display()
        )
    });
    String::from_utf8_lossy(&bytes).into_owned()
}

fn lines(path: &Path) -> Vec<String> {
    read(path).lines().map(str::to_owned).collect()
}

/// One case of Matomo's device-detector fixtures.
#[derive(Deserialize)]
struct DeviceDetectorCase {
    user_agent: Option<serde_json::Value>,
    client: Option<DeviceDetectorClient>,
    bot: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct DeviceDetectorClient {
    #[serde(rename = "type")]
    kind: Option<String>,
}

fn as_text(v: Option<serde_json::Value>) -> Option<String> {
    match v? {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Matomo's fixtures: the browsers (clients of the type browser), the
/// apps people use (mobile app, media player, PIM, messaging), and the
/// bots (`bots.yml`).
fn device_detector(dir: &Path) -> [Vec<String>; 3] {
    let fixtures = dir.join(
        "device-detector-6.5.1/device_detector-6.5.1/device_detector/tests/fixtures/upstream",
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap_or_else(|e| panic!("{}: {e}", fixtures.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml"))
        .collect();
    files.sort();
    let [mut browsers, mut apps, mut bots] = [Vec::new(), Vec::new(), Vec::new()];
    for file in files {
        let cases: Vec<DeviceDetectorCase> = serde_saphyr::from_str(&read(&file))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let is_bots = file.file_name().is_some_and(|n| n == "bots.yml");
        for case in cases {
            let Some(ua) = as_text(case.user_agent) else {
                continue;
            };
            if is_bots || case.bot.is_some() {
                bots.push(ua);
                continue;
            }
            match case.client.and_then(|c| c.kind).as_deref() {
                Some("browser") => browsers.push(ua),
                Some("mobile app" | "mediaplayer" | "pim" | "messaging") => apps.push(ua),
                _ => {}
            }
        }
    }
    [browsers, apps, bots]
}

#[derive(Deserialize)]
struct WootheeCase {
    target: Option<serde_json::Value>,
    category: Option<String>,
}

/// woothee's testsets: browsers (categories pc, smartphone, mobilephone,
/// appliance) and crawlers.
fn woothee(dir: &Path) -> (Vec<String>, Vec<String>) {
    let sets = dir.join("woothee-1.11.1/package/woothee/testsets");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&sets)
        .unwrap_or_else(|e| panic!("{}: {e}", sets.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let (mut browsers, mut crawlers) = (Vec::new(), Vec::new());
    for file in files {
        let cases: Vec<WootheeCase> = serde_saphyr::from_str(&read(&file))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for case in cases {
            let Some(ua) = as_text(case.target) else {
                continue;
            };
            match case.category.as_deref() {
                Some("pc" | "smartphone" | "mobilephone" | "appliance") => browsers.push(ua),
                Some("crawler") => crawlers.push(ua),
                _ => {}
            }
        }
    }
    (browsers, crawlers)
}

fn json_lines_field(path: &Path, field: &str) -> Vec<String> {
    read(path)
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            v.get(field)?.as_str().map(str::to_owned)
        })
        .collect()
}

fn json_array(path: &Path, field: Option<&str>) -> Vec<String> {
    let v: serde_json::Value =
        serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    v.as_array()
        .expect("a JSON array")
        .iter()
        .filter_map(|x| match field {
            Some(f) => x.get(f)?.as_str().map(str::to_owned),
            None => x.as_str().map(str::to_owned),
        })
        .collect()
}

/// Every list, tuning lists first.
fn lists(shared: &Path, dir: &Path) -> Vec<List> {
    use Class::{Browsers, Crawlers};
    use Role::{HeldOut, Tuning};
    let [dd_browsers, dd_apps, dd_bots] = device_detector(dir);
    let (woothee_browsers, woothee_crawlers) = woothee(dir);
    let crawlerdetect =
        dir.join("crawlerdetect-0.4.2/crawlerdetect-0.4.2/tests/fixtures/user_agent");
    let mut out = vec![
        List::new(
            "uap-core tests, browser families",
            Tuning,
            Browsers,
            browsers(shared).into_iter().map(|c| c.user_agent_string),
        ),
        List::new("ua-browsers.txt", Tuning, Browsers, own_browsers()),
        List::new(
            "device-detector fixtures, browsers",
            Tuning,
            Browsers,
            dd_browsers,
        ),
        List::new("device-detector fixtures, apps", Tuning, Browsers, dd_apps),
    ];
    for list in CRAWLER_LISTS {
        out.push(List::new(
            list.trim_end_matches(".txt"),
            Tuning,
            Crawlers,
            crawler_list(shared, list),
        ));
    }
    out.extend([
        List::new(
            "Crawler-Detect devices",
            HeldOut,
            Browsers,
            lines(&crawlerdetect.join("devices.txt")),
        ),
        List::new(
            "woothee testsets, browsers",
            Tuning,
            Browsers,
            woothee_browsers,
        ),
        List::new(
            "fake-useragent",
            HeldOut,
            Browsers,
            json_lines_field(
                &dir.join("fake-useragent-2.2.0/fake_useragent/data/browsers.jsonl"),
                "useragent",
            ),
        ),
        List::new(
            "intoli user-agents",
            HeldOut,
            Browsers,
            json_array(
                &dir.join("user-agents-2.1.198/package/dist/user-agents.json"),
                Some("userAgent"),
            ),
        ),
        List::new(
            "top-user-agents",
            HeldOut,
            Browsers,
            json_array(
                &dir.join("top-user-agents-2.1.138/package/src/index.json"),
                None,
            ),
        ),
        List::new(
            "Crawler-Detect crawlers",
            HeldOut,
            Crawlers,
            lines(&crawlerdetect.join("crawlers.txt")),
        ),
        List::new("device-detector fixtures, bots", HeldOut, Crawlers, dd_bots),
        List::new(
            "woothee testsets, crawlers",
            HeldOut,
            Crawlers,
            woothee_crawlers,
        ),
    ]);
    out
}

/// The folder `scripts/ua-precision` fetched the lists into.
fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BOTWARDEN_UA_PRECISION") {
        return PathBuf::from(dir);
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(
            || botwarden_testdata::workspace().join("target"),
            PathBuf::from,
        )
        .join("ua-precision")
}

#[test]
#[ignore = "needs the lists scripts/ua-precision fetches; run that script"]
fn lists_kept_apart() {
    let Some(shared) = crate::ua_corpus::shared("User-Agent precision") else {
        return;
    };
    let dir = data_dir();
    let c = Classifier::for_registry(&Registry::builtin()).expect("the default registry builds");
    let mut table = String::from(
        "| list | role | User-Agents | false positives (browsers) or recognised (crawlers) | share | of them scanners or attacks |\n\
         |---|---|---:|---:|---:|---:|\n",
    );
    let mut errors = String::new();
    let mut tuning = String::new();
    let mut failures = Vec::new();
    for list in lists(&shared, &dir) {
        let mut hits = 0;
        let mut security = 0;
        let mut wrong = Vec::new();
        for ua in &list.uas {
            let got = c.classify(ua);
            if got.is_bot() {
                hits += 1;
                security += usize::from(got.kind == Some(BotKind::Security));
            }
            if got.is_bot() == (list.class == Class::Browsers) {
                wrong.push(ua);
            }
            if list.role == Role::Tuning && got.is_bot() {
                writeln!(tuning, "{}\t{}\t{ua}", list.name, c.explain(ua)).unwrap();
            }
        }
        let share = 100.0 * hits as f64 / list.uas.len().max(1) as f64;
        let role = match (list.role, list.class) {
            (Role::Tuning, Class::Browsers) => "tuning, browsers",
            (Role::Tuning, Class::Crawlers) => "tuning, crawlers",
            (Role::HeldOut, Class::Browsers) => "held out, browsers",
            (Role::HeldOut, Class::Crawlers) => "held out, crawlers",
        };
        writeln!(
            table,
            "| {} | {role} | {} | {hits} | {share:.2} % | {security} |",
            list.name,
            list.uas.len()
        )
        .unwrap();
        if list.role == Role::Tuning && !wrong.is_empty() {
            let what = match list.class {
                Class::Browsers => "browsers classified as bots",
                Class::Crawlers => "crawlers missed",
            };
            writeln!(errors, "\n## {}: {} {what}\n", list.name, wrong.len()).unwrap();
            for ua in wrong {
                writeln!(errors, "- `{}`: {}", ua.replace('`', "'"), c.explain(ua)).unwrap();
            }
        }
        if list.role == Role::HeldOut {
            match list.class {
                Class::Browsers if share > BROWSER_CEILING => {
                    failures.push(format!("{}: {share:.2} % of browsers are bots", list.name));
                }
                Class::Crawlers if share < RECALL_FLOOR => {
                    failures.push(format!("{}: recall {share:.2} %", list.name));
                }
                _ => {}
            }
        }
    }
    eprintln!("{table}");
    let report = dir.join("report.md");
    std::fs::write(
        &report,
        format!("# User-Agent precision and recall\n\n{table}{errors}"),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", report.display()));
    let hits = dir.join("tuning-bots.tsv");
    std::fs::write(&hits, tuning).unwrap_or_else(|e| panic!("{}: {e}", hits.display()));
    eprintln!(
        "the tuning lists' errors: {}; their bots, with the rule that found each: {}",
        report.display(),
        hits.display()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
