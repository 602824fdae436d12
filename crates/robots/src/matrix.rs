//! The interpretation matrix: how each robot reads a file under each
//! profile, for the paths the file's own rules mention.

use crate::directive::DirectiveName;
use crate::lint::{example_path, star_robot};
use crate::parse::RobotsTxt;
use crate::profile::Profile;
use crate::robots::{Reason, Robots};
use crate::token::TokenChain;

/// Robots every matrix includes, besides those the file names and `*`.
pub const DEFAULT_AGENTS: [&str; 3] = ["Googlebot", "Bingbot", "Yandex"];

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
/// robots), under every profile, for every path the rules mention and `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    /// The profiles, in column order.
    pub profiles: Vec<&'static Profile>,
    agents: Vec<String>,
    paths: Vec<String>,
    /// Row-major: robot, then path, then profile.
    cells: Vec<Cell>,
}

impl Matrix {
    /// Builds the matrix of `txt` for `profiles`, with `agents` added to the
    /// robots the file names.
    #[must_use]
    pub fn new(txt: &RobotsTxt, profiles: &[&'static Profile], agents: &[&str]) -> Matrix {
        let compiled: Vec<Robots> = profiles.iter().map(|p| Robots::new(txt, p)).collect();
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
                    let token: String = value
                        .chars()
                        .take_while(|&c| c.is_ascii() && crate::token::is_token_byte(c as u8))
                        .collect();
                    if value.trim() == "*" || value.starts_with("* ") {
                        add("*", &mut robots);
                    } else if !token.is_empty() {
                        add(&token, &mut robots);
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
        add("*", &mut robots);
        for a in DEFAULT_AGENTS.iter().chain(agents) {
            add(a, &mut robots);
        }
        let star = star_robot(&compiled.iter().collect::<Vec<_>>());
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
        let width = compiled.len();
        let mut cells = vec![
            Cell {
                allowed: true,
                line: None,
            };
            robots.len() * paths.len() * width
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
        Matrix {
            profiles: profiles.to_vec(),
            agents: robots,
            paths,
            cells,
        }
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
}
