//! The interpretation matrix: how each robot reads a file under each
//! profile, for the paths the file's own rules mention. Its size is bounded
//! ([`MATRIX_ROWS`], [`MATRIX_WORK`]): past the bound, an even spread of
//! robots and paths is asked, and the matrix says so.

use crate::analysis::Analysis;
use crate::directive::DirectiveName;
use crate::lint::{example_path, star_robot};
use crate::parse::RobotsTxt;
use crate::profile::{AgentMatch, Profile};
use crate::robots::{Reason, Robots};
use crate::token::{AgentName, TokenChain};

/// Robots every matrix includes, besides those the file names and `*`.
pub const DEFAULT_AGENTS: [&str; 3] = ["Googlebot", "Bingbot", "Yandex"];

/// Rows a matrix holds at most. Past it (or past [`MATRIX_WORK`]), an even
/// spread of the robots the file names and of its paths is asked, and the
/// matrix says so ([`Matrix::is_sampled`]).
pub const MATRIX_ROWS: usize = 20_000;

/// The work a matrix may take, in units of about one rule tried against a
/// path or one user-agent line compared with a robot's name: a path may be
/// tried against every wildcard rule, and robots that match names as
/// substrings try every user-agent line.
pub const MATRIX_WORK: u64 = 20_000_000;

/// One profile's decision in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Whether the robot may fetch the path.
    pub allowed: bool,
    /// The line of the deciding rule, if a rule decided.
    pub line: Option<u32>,
}

/// One robot and one path, under every profile of the matrix: a view into
/// a [`Matrix`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row<'a> {
    /// The robot as the file names it (or `*`, or a default robot).
    pub agent: &'a str,
    /// The path, as a crawler would request it.
    pub path: &'a str,
    /// One cell per profile, in [`Matrix::profiles`] order.
    pub cells: &'a [Cell],
}

impl Row<'_> {
    /// Whether the profiles reach different decisions.
    #[must_use]
    pub fn disagree(&self) -> bool {
        self.cells
            .iter()
            .any(|c| c.allowed != self.cells[0].allowed)
    }
}

/// Decisions for every robot named in a file (and `*`, and the default
/// robots), under every profile, for every path the rules mention and `/`;
/// for an even spread of them when there are more rows than
/// [`MATRIX_ROWS`] or they would take more than [`MATRIX_WORK`]
/// ([`Matrix::is_sampled`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    /// The profiles, in column order.
    pub profiles: Vec<&'static Profile>,
    agents: Vec<String>,
    paths: Vec<String>,
    /// Robots and paths before sampling.
    total: (usize, usize),
    /// Row-major: robot, then path, then profile.
    cells: Vec<Cell>,
}

impl Matrix {
    /// Builds the matrix of `txt` for `profiles`, with `agents` added to the
    /// robots the file names.
    #[must_use]
    pub fn new(txt: &RobotsTxt, profiles: &[&'static Profile], agents: &[&str]) -> Matrix {
        Analysis::new(txt).matrix(profiles, agents)
    }
}

impl Analysis<'_> {
    /// The interpretation matrix of the file ([`Matrix::new`]), on the
    /// compiled forms this analysis shares; a profile that is not built in
    /// is compiled here.
    #[must_use]
    pub fn matrix(&self, profiles: &[&'static Profile], agents: &[&str]) -> Matrix {
        let txt = self.txt();
        let own: Vec<Option<Robots>> = profiles
            .iter()
            .map(|p| self.robots(p).is_none().then(|| Robots::new(txt, p)))
            .collect();
        let compiled: Vec<&Robots> = profiles
            .iter()
            .zip(&own)
            .filter_map(|(p, own)| own.as_ref().or_else(|| self.robots(p)))
            .collect();
        let (mut robots, mut paths, named) = robots_and_paths(txt, agents);
        let total = (robots.len(), paths.len());
        let (rows, most) = bounds(txt, profiles);
        let (a, p) = fit(robots.len(), paths.len(), rows, most);
        // The robots the matrix always asks (`*`, the defaults, those
        // given) before an even spread of those the file names; every path
        // sampled evenly, `/` first.
        if a < robots.len() {
            let (file, always) = robots.split_at(named.min(robots.len()));
            let always_kept = always.len().min(a);
            let mut kept = spread(file.to_vec(), a - always_kept, |_| {});
            kept.extend(always[..always_kept].iter().cloned());
            robots = kept;
        }
        if p < paths.len() {
            paths = spread(paths, p, |_| {});
        }
        let star = star_robot(&compiled);
        let chains: Vec<TokenChain> = robots
            .iter()
            .map(|a| {
                if a == "*" {
                    star.clone()
                } else {
                    TokenChain::parse(a)
                }
            })
            .collect();
        let cells = cells(&compiled, &chains, &paths);
        Matrix {
            profiles: profiles.to_vec(),
            agents: robots,
            paths,
            total,
            cells,
        }
    }
}

/// The robots of a matrix of `txt` (those the file names, then `*`, the
/// [`DEFAULT_AGENTS`] and `agents`, case-insensitively distinct), its paths
/// (`/`, then an example of each rule's pattern), and how many of the
/// robots the file names.
fn robots_and_paths(txt: &RobotsTxt, agents: &[&str]) -> (Vec<String>, Vec<String>, usize) {
    let mut robots: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut add = |name: &str, robots: &mut Vec<String>| {
        if seen.insert(name.to_ascii_lowercase()) {
            robots.push(name.to_owned());
        }
    };
    let mut paths = vec!["/".to_owned()];
    let mut seen_paths = std::collections::HashSet::from(["/".to_owned()]);
    for (_, d) in txt.directives() {
        let value = txt.text(d.value);
        match d.name {
            DirectiveName::UserAgent => {
                match AgentName::read(value.as_bytes(), AgentMatch::ProductToken) {
                    AgentName::Every => add("*", &mut robots),
                    AgentName::Named(b"") => {}
                    AgentName::Named(token) => {
                        add(&String::from_utf8_lossy(token), &mut robots);
                    }
                }
            }
            DirectiveName::Allow | DirectiveName::Disallow if !value.is_empty() => {
                let path = example_path(&value);
                if seen_paths.insert(path.clone()) {
                    paths.push(path);
                }
            }
            _ => {}
        }
    }
    let named = robots.len() - usize::from(robots.iter().any(|r| r == "*"));
    add("*", &mut robots);
    for a in DEFAULT_AGENTS.iter().chain(agents) {
        add(a, &mut robots);
    }
    (robots, paths, named)
}

/// The rows a matrix of `txt` under `profiles` may hold within
/// [`MATRIX_WORK`] (at most [`MATRIX_ROWS`]), and the robots it may ask.
fn bounds(txt: &RobotsTxt, profiles: &[&'static Profile]) -> (usize, usize) {
    // What one row costs: one lookup per profile, which may try every
    // wildcard rule; what one robot costs: robots that match names as
    // substrings compare it with every user-agent line.
    let (mut wild, mut lines) = (0u64, 0u64);
    for (_, d) in txt.directives() {
        match d.name {
            DirectiveName::UserAgent => lines += 1,
            DirectiveName::Allow | DirectiveName::Disallow => {
                let v = txt.slice(d.value);
                wild += u64::from(v.ends_with(b"$") || v.contains(&b'*'));
            }
            _ => {}
        }
    }
    let row: u64 = profiles
        .iter()
        .map(|p| 1 + if p.wildcards { wild } else { 0 })
        .sum();
    let robot: u64 = profiles
        .iter()
        .map(|p| {
            1 + if p.agent_match == AgentMatch::Substring {
                lines
            } else {
                0
            }
        })
        .sum();
    let rows = usize::try_from(MATRIX_WORK / 2 / row.max(1))
        .unwrap_or(usize::MAX)
        .clamp(1, MATRIX_ROWS);
    let most = usize::try_from(MATRIX_WORK / 2 / robot.max(1)).unwrap_or(usize::MAX);
    (rows, most)
}

/// The decisions of each robot of `chains` on each of `paths` under each
/// compiled profile, row-major: robot, then path, then profile.
fn cells(compiled: &[&Robots], chains: &[TokenChain], paths: &[String]) -> Vec<Cell> {
    let width = compiled.len();
    let mut cells = vec![
        Cell {
            allowed: true,
            line: None,
        };
        chains.len() * paths.len() * width
    ];
    // One profile at a time, paths in sorted order: each compiled file's
    // tables stay in cache and consecutive searches land near each other.
    let mut sorted: Vec<usize> = (0..paths.len()).collect();
    sorted.sort_by(|&a, &b| paths[a].cmp(&paths[b]));
    for (p, robots_p) in compiled.iter().enumerate() {
        for (a, chain) in chains.iter().enumerate() {
            let m = robots_p.matcher(chain);
            for &k in &sorted {
                let d = m.check_path(paths[k].as_bytes());
                cells[(a * paths.len() + k) * width + p] = Cell {
                    allowed: d.allowed,
                    line: match d.reason {
                        Reason::Rule { line, .. } => Some(line),
                        _ => None,
                    },
                };
            }
        }
    }
    cells
}

impl Matrix {
    /// Whether only some of the robots or paths were asked: the file holds
    /// more than [`MATRIX_ROWS`] rows, or asking them all would take more
    /// than [`MATRIX_WORK`].
    #[must_use]
    pub fn is_sampled(&self) -> bool {
        self.total != (self.agents.len(), self.paths.len())
    }

    /// The robots there would be rows for without sampling.
    #[must_use]
    pub fn total_agents(&self) -> usize {
        self.total.0
    }

    /// The paths there would be rows for without sampling.
    #[must_use]
    pub fn total_paths(&self) -> usize {
        self.total.1
    }

    /// The robots, in row order.
    #[must_use]
    pub fn agents(&self) -> &[String] {
        &self.agents
    }

    /// The paths, in row order within each robot.
    #[must_use]
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// Every row: robot by robot, paths in file order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = Row<'_>> + Clone {
        let width = self.profiles.len();
        let per_agent = self.paths.len();
        (0..self.agents.len() * per_agent).map(move |i| Row {
            agent: &self.agents[i / per_agent],
            path: &self.paths[i % per_agent],
            cells: &self.cells[i * width..(i + 1) * width],
        })
    }

    /// The rows where profiles disagree.
    pub fn disagreements(&self) -> impl Iterator<Item = Row<'_>> {
        self.rows().filter(Row::disagree)
    }
}

/// How many robots and paths to keep of `robots × paths` for at most
/// `rows` rows and `most` robots: as many as there are when they fit, else
/// about as many robots as paths (fewer of the one there are fewer of).
fn fit(robots: usize, paths: usize, rows: usize, most: usize) -> (usize, usize) {
    let most = most.max(1);
    if robots.saturating_mul(paths) <= rows && robots <= most {
        return (robots, paths);
    }
    let mut a = robots.min(most).min(rows.isqrt().max(1));
    let p = paths.min((rows / a).max(1));
    if p == paths {
        a = robots.min(most).min((rows / p).max(1));
    }
    (a, p)
}

/// `k` of `items`, evenly spread (the first among them); the others are
/// passed to `dropped`.
pub(crate) fn spread<T>(items: Vec<T>, k: usize, mut dropped: impl FnMut(&T)) -> Vec<T> {
    let n = items.len();
    if k >= n {
        return items;
    }
    let mut keep = vec![false; n];
    for i in 0..k {
        keep[i * n / k] = true;
    }
    items
        .into_iter()
        .zip(keep)
        .filter_map(|(item, kept)| {
            if !kept {
                dropped(&item);
            }
            kept.then_some(item)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_star_row_obeys_star_under_strict_substring_matching_too() {
        let txt =
            RobotsTxt::parse("User-agent: bot\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n");
        let m = Matrix::new(&txt, &Profile::ALL, &[]);
        for path in ["/a", "/b"] {
            let row = m.rows().find(|r| r.agent == "*" && r.path == path).unwrap();
            assert!(!row.disagree(), "{row:?}");
            assert_eq!(row.cells[0].allowed, path == "/a");
        }
    }

    #[test]
    fn rows_cover_named_robots_star_and_defaults() {
        let txt = RobotsTxt::parse(
            "User-agent: examplebot\nDisallow: /a\n\nUser-agent: *\nDisallow: /*.pdf$\n",
        );
        let m = Matrix::new(&txt, &Profile::ALL, &[]);
        let agents: Vec<&str> = m
            .rows()
            .map(|r| r.agent)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(
            agents,
            ["*", "Bingbot", "Googlebot", "Yandex", "examplebot"]
        );
        assert_eq!(m.rows().len(), 5 * 3, "robots × {{/, /a, /x.pdf}}");
        let pdf = m
            .rows()
            .find(|r| r.agent == "Googlebot" && r.path == "/x.pdf")
            .unwrap();
        assert!(pdf.disagree(), "strict reads the wildcard literally");
        let strict = m.profiles.iter().position(|p| p.name == "strict").unwrap();
        assert!(pdf.cells[strict].allowed);
        assert_eq!(
            pdf.cells[0],
            Cell {
                allowed: false,
                line: Some(5)
            }
        );
        let a = m
            .rows()
            .find(|r| r.agent == "examplebot" && r.path == "/a")
            .unwrap();
        assert!(!a.disagree());
    }

    #[test]
    fn a_matrix_past_its_bound_is_an_even_sample_that_says_so() {
        let mut text = String::new();
        for i in 0..400 {
            let name: String = format!("{i:03}")
                .bytes()
                .map(|b| char::from(b'a' + (b - b'0')))
                .collect();
            text.push_str(&format!("User-agent: bot{name}\nDisallow: /p{i}/\n\n"));
        }
        let txt = RobotsTxt::parse(text.as_str());
        let m = Matrix::new(&txt, &Profile::ALL, &["extrabot"]);
        assert_eq!(m.total_agents(), 400 + 5);
        assert_eq!(m.total_paths(), 401);
        assert!(m.is_sampled());
        assert!(m.rows().len() <= MATRIX_ROWS, "{}", m.rows().len());
        assert!(m.rows().len() * 2 > MATRIX_ROWS, "{}", m.rows().len());
        for always in ["*", "Googlebot", "Bingbot", "Yandex", "extrabot"] {
            assert!(m.agents().iter().any(|a| a == always), "{always}");
        }
        assert_eq!(m.paths()[0], "/");
        assert!(m.agents().iter().any(|a| a == "botaaa"));
        // Every row still answers as the robot's group says.
        let row = m
            .rows()
            .find(|r| r.agent == "botaaa" && r.path == "/")
            .expect("botaaa × /");
        assert!(row.cells.iter().all(|c| c.allowed));
    }

    #[test]
    fn wildcard_rules_make_rows_dearer() {
        let mut text = String::from("User-agent: *\n");
        for i in 0..5_000 {
            text.push_str(&format!("Disallow: /*a{i}*b$\n"));
        }
        let txt = RobotsTxt::parse(text.as_str());
        let m = Matrix::new(&txt, &Profile::ALL, &[]);
        assert!(m.is_sampled());
        let tries = m.rows().len() as u64 * (4 * 5_000 + 5);
        assert!(tries <= MATRIX_WORK, "{} rows", m.rows().len());
        assert!(m.rows().len() >= 100, "{} rows", m.rows().len());
    }

    #[test]
    fn fit_keeps_what_fits() {
        assert_eq!(fit(5, 10, 100, 100), (5, 10));
        assert_eq!(fit(10_000, 10_000, 10_000, usize::MAX), (100, 100));
        assert_eq!(fit(5, 100_000, 10_000, usize::MAX), (5, 2_000));
        assert_eq!(fit(100_000, 3, 9_000, usize::MAX), (3_000, 3));
        assert_eq!(fit(100_000, 3, 9_000, 50), (50, 3));
    }
}
