//! Fuzz target `prefs`: usage preferences.
//!
//! The input is `body [NUL tail]` as for `robots`: the body is a robots.txt
//! file, the tail's first line a token chain and its next lines paths. For
//! every byte string the RFC 9651 parsers (Dictionary and List) and both
//! vocabularies' readers must return without panicking; a Dictionary that
//! parses must parse again to the same members when written back. For the
//! body, under every profile, the full compile's and the one-robot
//! compile's usage answers must be the same for every path, and a refused
//! or allowed preference must name its deciding lines, each a preference
//! line of the file.

#![no_main]

use botwarden_robots::prefs::sf::{Member, parse_dictionary, parse_list};
use botwarden_robots::prefs::{Preference, Statement, Vocabulary};
use botwarden_robots::{Profile, RobotMatcher, Robots, RobotsTxt, TokenChain};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (body, tail) = match data.iter().rposition(|&b| b == 0) {
        Some(nul) => (&data[..nul], &data[nul + 1..]),
        None => (data, &[][..]),
    };
    let text = String::from_utf8_lossy(data);
    if let Ok(members) = parse_dictionary(&text) {
        let written: Vec<String> = members.iter().map(|(k, m)| write(k, m)).collect();
        let again = parse_dictionary(&written.join(", ")).expect("a written dictionary parses");
        assert_eq!(again.len(), members.len());
    }
    let _ = parse_list(&text);
    for v in [Vocabulary::Aipref, Vocabulary::ContentSignal] {
        let _ = Statement::read(v, &text);
    }

    let tail = String::from_utf8_lossy(tail);
    let mut lines = tail.split('\n');
    let chain = TokenChain::parse(lines.next().unwrap_or("examplebot"));
    let mut paths: Vec<String> = lines.take(8).map(str::to_owned).collect();
    paths.extend(["/".to_owned(), "/a/b?c".to_owned()]);
    let txt = RobotsTxt::parse(body);
    for profile in Profile::ALL {
        let robots = Robots::new(&txt, profile);
        let full = robots.matcher(&chain);
        let one = RobotMatcher::new(&txt, profile, &chain);
        let pref_lines: Vec<u32> = robots.preference_lines().iter().map(|l| l.line).collect();
        for l in robots.preference_lines() {
            if let Some(p) = &l.path {
                paths.push(p.clone());
            }
        }
        for path in &paths {
            let a = full.usage(path);
            assert_eq!(a, one.usage(path), "{} {path}", profile.name);
            for answer in a.group.iter().chain(&a.file_wide) {
                assert_eq!(answer.lines.is_empty(), answer.preference == Preference::Unstated);
                assert!(answer.lines.iter().all(|n| pref_lines.contains(n)));
            }
        }
    }
});

/// A member written back as RFC 9651 text (items only; an inner list is
/// written as a boolean, which parses too).
fn write(key: &str, m: &Member) -> String {
    match m.item() {
        Some(b) => {
            let value = match b {
                botwarden_robots::prefs::sf::Bare::String(s) => {
                    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
                }
                other => other.to_string(),
            };
            format!("{key}={value}")
        }
        None => format!("{key}=?1"),
    }
}
