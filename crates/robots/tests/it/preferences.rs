//! Usage preferences against the sources' own examples: the table of
//! draft-ietf-aipref-attach-05 §3.4 (Figure 2), the statements of
//! draft-ietf-aipref-vocab-07 §6, Cloudflare's managed robots.txt (the
//! published example for crawlstop.com, abridged), crawler-commons'
//! file-wide test file, and a real file (lobste.rs) whose `Content-Signal`
//! stands between groups. Each expected answer was worked out by hand from
//! the source's text, not taken from the code.

use botwarden_robots::prefs::{Preference, Purpose, Reading, Statement, Vocabulary};
use botwarden_robots::{
    Profile, RobotMatcher, Robots, RobotsTxt, TokenChain, compare, compare_fixed, fix,
};

use Preference::{Allowed as Y, Refused as N, Unstated as U};

/// The preferences (search, train-ai, ai-input) of `agent` at `path`
/// under a reading, and whether it may fetch the path; the full compile's
/// answer and the one-robot compile's must agree.
fn usage(file: &str, agent: &str, path: &str, reading: Reading) -> (bool, [Preference; 3]) {
    let txt = RobotsTxt::parse(file);
    let chain = TokenChain::parse(agent);
    let robots = Robots::new(&txt, &Profile::RFC9309);
    let full = robots.matcher(&chain).usage(path);
    let one = RobotMatcher::new(&txt, &Profile::RFC9309, &chain).usage(path);
    assert_eq!(full, one, "{agent} {path}");
    (
        full.fetch,
        full.reading(reading).clone().map(|a| a.preference),
    )
}

const ATTACH_FIGURE_2: &str = "User-Agent: *\n\
    Allow: /\n\
    Disallow: /never/\n\
    Content-Usage: train-ai=n\n\
    Content-Usage: /ai-ok/ train-ai=y\n\
    \n\
    User-Agent: ExampleBot\n\
    Allow: /\n\
    Content-Usage: train-ai=y\n";

#[test]
fn the_attach_drafts_table() {
    // "ExampleBot ... can obtain all content, and gets usage preference
    // train-ai=y"; all other crawlers use the first group.
    for path in ["/test", "/never/test", "/ai-ok/test"] {
        assert_eq!(
            usage(ATTACH_FIGURE_2, "ExampleBot", path, Reading::Group),
            (true, [U, Y, U])
        );
    }
    // | /test | yes | train-ai=n |, | /never/test | no | N/A |,
    // | /ai-ok/test | yes | train-ai=y |.
    assert_eq!(
        usage(ATTACH_FIGURE_2, "otherbot", "/test", Reading::Group),
        (true, [U, N, U])
    );
    assert!(!usage(ATTACH_FIGURE_2, "otherbot", "/never/test", Reading::Group).0);
    assert_eq!(
        usage(ATTACH_FIGURE_2, "otherbot", "/ai-ok/test", Reading::Group),
        (true, [U, Y, U])
    );
    // Without a Content-Signal line, both readings agree.
    for path in ["/test", "/ai-ok/test"] {
        let txt = RobotsTxt::parse(ATTACH_FIGURE_2);
        let robots = Robots::new(&txt, &Profile::RFC9309);
        assert!(
            !robots
                .matcher(&TokenChain::parse("otherbot"))
                .usage(path)
                .disagree()
        );
    }
}

#[test]
fn the_deciding_lines_are_named() {
    let txt = RobotsTxt::parse(ATTACH_FIGURE_2);
    let robots = Robots::new(&txt, &Profile::RFC9309);
    let m = robots.matcher(&TokenChain::parse("otherbot"));
    assert_eq!(m.usage("/test").group[1].lines, [4]);
    assert_eq!(m.usage("/ai-ok/x").group[1].lines, [5]);
    assert!(m.usage("/test").group[0].lines.is_empty());
}

#[test]
fn lines_of_one_path_combine_and_any_refusal_wins() {
    let file = "User-agent: *\nContent-Usage: /a train-ai=y\nContent-Usage: /a train-ai=n, search=y\n\
                Content-Usage: /a/b search=n\nContent-Usage: /*.pdf$ train-ai=n\n";
    assert_eq!(usage(file, "x", "/a", Reading::Group), (true, [Y, N, U]));
    // The longer path decides alone: lines of different lengths do not
    // combine.
    assert_eq!(usage(file, "x", "/a/b", Reading::Group), (true, [N, U, U]));
    // Wildcards as in Allow and Disallow.
    assert_eq!(
        usage(file, "x", "/doc.pdf", Reading::Group),
        (true, [U, N, U])
    );
    assert_eq!(
        usage(file, "x", "/doc.pdf?x", Reading::Group),
        (true, [U, U, U])
    );
}

#[test]
fn the_vocab_drafts_statements() {
    let read = |s: &str| {
        let s = Statement::read(Vocabulary::Aipref, s);
        [Purpose::Search, Purpose::TrainAi].map(|p| s.preference(p))
    };
    // §6: "allow training, disallow search".
    assert_eq!(read("train-ai=y, search=n"), [N, Y]);
    // "results in all preferences being unknown": the last `train-ai` is
    // a Boolean, the last `search` a String.
    assert_eq!(
        read(r#"train-ai=y, train-ai, search=n, search="n""#),
        [U, U]
    );
    // "carries no parameters, and a preference to allow the usage".
    assert_eq!(read("train-ai;allow=n, train-ai=y"), [U, Y]);
    // An upper-case key fails the whole dictionary.
    assert_eq!(read("search=n, Train-AI=n"), [U, U]);
    // Unknown labels are ignored, and `yes` is no value of this vocabulary.
    assert_eq!(read("train-genai=n, search=yes"), [U, U]);
}

/// Cloudflare's published managed robots.txt for crawlstop.com, the
/// policy's comment block abridged.
const CLOUDFLARE: &str = "# As a condition of accessing this website, you agree to abide by the\n\
    # following content signals:\n\
    \n\
    # BEGIN Cloudflare Managed content\n\
    \n\
    User-Agent: *\n\
    Content-signal: search=yes, ai-train=no\n\
    Allow: /\n\
    \n\
    User-agent: Amazonbot\n\
    Disallow: /\n\
    \n\
    User-agent: GPTBot\n\
    Disallow: /\n\
    \n\
    # END Cloudflare Managed Content\n\
    User-agent: *\n\
    Disallow: /lp\n\
    Disallow: /feedback\n\
    \n\
    User-agent: Googlebot\n\
    Disallow: /search\n\
    \n\
    Sitemap: https://www.crawlstop.com/sitemap.xml\n";

#[test]
fn a_cloudflare_managed_file() {
    // The site's `*` group merges with Cloudflare's: the signal applies.
    assert_eq!(
        usage(CLOUDFLARE, "somebot", "/blog", Reading::Group),
        (true, [Y, N, U])
    );
    assert!(!usage(CLOUDFLARE, "somebot", "/lp", Reading::Group).0);
    // GPTBot may fetch nothing.
    assert!(!usage(CLOUDFLARE, "GPTBot", "/blog", Reading::Group).0);
    // Googlebot has a group of its own: by group it reads no signal;
    // crawler-commons' file-wide reading gives it Cloudflare's.
    assert_eq!(
        usage(CLOUDFLARE, "Googlebot", "/blog", Reading::Group),
        (true, [U, U, U])
    );
    assert_eq!(
        usage(CLOUDFLARE, "Googlebot", "/blog", Reading::FileWide),
        (true, [Y, N, U])
    );
}

#[test]
fn the_fixer_keeps_a_managed_block_and_the_preferences() {
    let txt = RobotsTxt::parse(CLOUDFLARE);
    let fixed = fix(&txt);
    let block = fixed.managed().expect("the block is recognised");
    assert_eq!((block.begin, block.end), (4, 16));
    let head: String = CLOUDFLARE
        .lines()
        .take(16)
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(fixed.text.starts_with(&head), "{}", fixed.text);
    // Nothing of the site's part moved above the end marker.
    let after: Vec<&str> = fixed.text.lines().skip(16).collect();
    for line in ["Disallow: /lp", "Disallow: /feedback", "Disallow: /search"] {
        assert!(after.contains(&line), "{line} in {after:?}");
    }
    assert!(
        fixed.changes.iter().all(|c| c.line > 16),
        "{:?}",
        fixed.changes
    );
    let eq = compare_fixed(&txt, &fixed);
    assert!(eq.holds(), "{:?}", eq.unintended().collect::<Vec<_>>());
    // The fixed file is fixed.
    assert!(fix(&RobotsTxt::parse(fixed.text.as_bytes())).is_unchanged());
}

#[test]
fn the_check_sees_a_preference_changed() {
    let before = RobotsTxt::parse(ATTACH_FIGURE_2);
    let after =
        RobotsTxt::parse(ATTACH_FIGURE_2.replace("/ai-ok/ train-ai=y", "/ai-ok/ train-ai=n"));
    let eq = compare(&before, &after);
    assert!(!eq.holds());
    let d = eq.unintended().next().expect("a difference");
    let p = d.preference.expect("a preference difference");
    assert_eq!((p.purpose, p.before, p.after), (Purpose::TrainAi, Y, N));
    assert_eq!(d.path, "/ai-ok/");
    // Moving a Content-Signal out of its group changes the group reading.
    let before = RobotsTxt::parse("User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n");
    let after = RobotsTxt::parse("Content-Signal: ai-train=no\nUser-agent: *\nAllow: /\n");
    let eq = compare(&before, &after);
    assert!(
        eq.unintended()
            .all(|d| d.preference.is_some_and(|p| p.reading == Reading::Group))
    );
    assert!(!eq.holds());
}

/// crawler-commons' `extensions-group-merging.txt` (first lines): a
/// `Content-Signal` before any group, "global scope, affects all
/// user-agents".
const CRAWLER_COMMONS: &str = "Content-Signal: search=yes,ai-train=yes,ai-input=yes  # global scope, affects all user-agents\n\
    \n\
    User-agent: *\n\
    Allow: /llms.txt\n\
    \n\
    User-agent: mybot\n\
    Disallow: /private/\n";

#[test]
fn a_signal_before_the_first_group() {
    for agent in ["mybot", "anyotherbot"] {
        assert_eq!(
            usage(CRAWLER_COMMONS, agent, "/", Reading::FileWide),
            (true, [Y, Y, Y])
        );
        assert_eq!(
            usage(CRAWLER_COMMONS, agent, "/", Reading::Group),
            (true, [U, U, U])
        );
    }
}

/// lobste.rs' robots.txt (abridged): the signal follows the rules of the
/// group naming the search engines, before `User-agent: *`.
const LOBSTERS: &str = "User-agent: Applebot\nUser-agent: GoogleBot\nAllow: /\nDisallow: /search\n\n\
    Content-Signal: ai-input=no, ai-train=no, search=yes\n\n\
    User-agent: *\nCrawl-delay: 1\nDisallow: /\n";

#[test]
fn a_signal_between_groups() {
    assert_eq!(
        usage(LOBSTERS, "googlebot", "/s/x", Reading::Group),
        (true, [Y, N, N])
    );
    assert_eq!(
        usage(LOBSTERS, "otherbot", "/s/x", Reading::Group),
        (false, [U, U, U])
    );
    assert_eq!(
        usage(LOBSTERS, "otherbot", "/s/x", Reading::FileWide),
        (false, [Y, N, N])
    );
}

#[test]
fn no_preference_line_is_called_unknown() {
    use botwarden_robots::check;
    for file in [
        ATTACH_FIGURE_2,
        CLOUDFLARE,
        CRAWLER_COMMONS,
        LOBSTERS,
        "User-agent: *\nLLM-Policy: /llms.txt\n",
    ] {
        let found = check(&RobotsTxt::parse(file));
        assert!(
            found.iter().all(|d| d.lint.code != "R028"),
            "{:?}",
            found.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    }
}

#[test]
fn the_checker_does_not_advise_merging_across_a_managed_block() {
    use botwarden_robots::check;
    let found = check(&RobotsTxt::parse(CLOUDFLARE));
    let dup = found
        .iter()
        .find(|d| d.lint.code == "R004")
        .expect("the two `*` groups are named");
    let help = dup.help.as_deref().unwrap_or_default();
    assert!(help.contains("Cloudflare's managed content"), "{help}");
    assert!(!help.contains("merge the groups"), "{help}");
}

/// A file of very many preference lines: every answer looks at every line,
/// so the checker's table and the fixer's proof ask fewer robots and paths,
/// and the proof says it is partial; each answer names at most
/// `LINES_NAMED` deciding lines.
#[test]
fn very_many_preference_lines_are_answered_within_bounds() {
    use botwarden_robots::prefs::LINES_NAMED;
    use botwarden_robots::{USAGE_ROWS, UsageTable};
    let mut file = String::from("User-agent: *\n");
    for i in 0..20_000 {
        file.push_str(&format!(
            "Content-Usage: /p{i}/x train-ai=n\nContent-Signal: ai-train=no\n"
        ));
    }
    for i in 0..300 {
        file.push_str(&format!(
            "User-agent: bot{}\nDisallow: /q\n",
            "x".repeat(i % 26 + 1)
        ));
    }
    let txt = RobotsTxt::parse(file.as_bytes());
    let robots = Robots::new(&txt, &Profile::RFC9309);
    let lines = robots.preference_lines().len();
    assert_eq!(lines, 40_000);
    let agents: Vec<String> = (0..50).map(|i| format!("bot{i}")).collect();
    let table = UsageTable::new(&robots, &agents);
    assert!(
        table.rows.len() < USAGE_ROWS && !table.rows.is_empty(),
        "{}",
        table.rows.len()
    );
    assert!(table.rows.len() * lines <= 5_000_000 + lines);
    assert!(table.omitted > 0);
    let a = robots.matcher(&TokenChain::parse("x")).usage("/");
    assert_eq!(a.group[1].lines.len(), LINES_NAMED);
    // Compared with itself: no difference, and a partial proof.
    let eq = compare(&txt, &txt);
    assert!(eq.holds());
    assert!(
        eq.unasked
            .iter()
            .any(|u| u.profile.name == "rfc9309" && (u.robots > 0 || u.paths > 0))
    );
}

/// aipref-attach makes `Content-Usage` a rule of RFC 9309 (`rule =/
/// content-usage`): under the rfc9309 profile it ends a group's user-agent
/// lines, so two groups of preferences alone stay two; profiles that skip
/// unknown lines (Google's) read one group, as before.
#[test]
fn a_preference_line_ends_the_user_agent_lines_under_rfc9309() {
    let file =
        "User-agent: a\nContent-Usage: train-ai=n\n\nUser-agent: b\nContent-Usage: train-ai=y\n";
    assert_eq!(usage(file, "a", "/", Reading::Group), (true, [U, N, U]));
    assert_eq!(usage(file, "b", "/", Reading::Group), (true, [U, Y, U]));
    let txt = RobotsTxt::parse(file);
    assert_eq!(Robots::new(&txt, &Profile::RFC9309).groups().len(), 2);
    assert_eq!(Robots::new(&txt, &Profile::GOOGLE).groups().len(), 1);
}
