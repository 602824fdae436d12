//! The usage preferences of a file, robot by robot and path by path: the
//! checker's view beside the interpretation matrix (it asks the robots the
//! matrix asks, so it sits above `prefs`, beside `matrix`).

use crate::lint::{example_path, star_robot};
use crate::robots::Robots;
use crate::token::TokenChain;

use crate::prefs::{Preference, UsageAnswer};

/// Rows a table holds at most (robots × paths); past it, the first robots
/// and paths in order.
pub const USAGE_ROWS: usize = 2_000;

/// Preference lines looked at, at most, to fill a table (each row's answer
/// looks at every line): a file of very many preference lines gets fewer
/// rows.
const TABLE_WORK: usize = 5_000_000;

/// One robot and one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageRow {
    /// The robot as the matrix names it (`*` for robots without a group of
    /// their own).
    pub agent: String,
    /// The path asked.
    pub path: String,
    /// Its preferences under both readings.
    pub answer: UsageAnswer,
}

impl UsageRow {
    /// Whether a row says anything: the robot may fetch the path, and a
    /// preference is stated for it.
    #[must_use]
    pub fn is_telling(&self) -> bool {
        self.answer.fetch && self.answer.is_stated()
    }
}

/// The preferences of a file for some robots at `/` and at every path its
/// `Content-Usage` lines name, read with `robots`' grouping; empty when the
/// file states none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageTable {
    /// Robot by robot, then path by path.
    pub rows: Vec<UsageRow>,
    /// Rows left out past [`USAGE_ROWS`] (or fewer, for a file of very
    /// many preference lines).
    pub omitted: usize,
}

impl UsageTable {
    /// The table of `robots` for `agents` (`*` stands for a robot no group
    /// names).
    #[must_use]
    pub fn new(robots: &Robots, agents: &[String]) -> UsageTable {
        let lines = robots.preference_lines();
        if lines.is_empty() {
            return UsageTable::default();
        }
        let mut paths = vec!["/".to_owned()];
        paths.extend(
            lines
                .iter()
                .filter_map(|l| l.path.as_deref().map(example_path)),
        );
        paths.sort();
        paths.dedup();
        let star = star_robot(&[robots]);
        let total = agents.len() * paths.len();
        let most = USAGE_ROWS.min((TABLE_WORK / lines.len()).max(1));
        let mut rows = Vec::with_capacity(total.min(most));
        'robots: for agent in agents {
            let chain = if agent == "*" {
                star.clone()
            } else {
                TokenChain::parse(agent)
            };
            let m = robots.matcher(&chain);
            for path in &paths {
                if rows.len() == most {
                    break 'robots;
                }
                rows.push(UsageRow {
                    agent: agent.clone(),
                    path: path.clone(),
                    answer: m.usage(path),
                });
            }
        }
        UsageTable {
            omitted: total - rows.len(),
            rows,
        }
    }

    /// Whether the file states no preference.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// A cell: the preference under one reading, with its deciding lines
/// (`n:4`), or `n/a` where the robot may not fetch the path.
#[must_use]
pub fn usage_cell(answer: &UsageAnswer, preference: Preference, lines: &[u32]) -> String {
    if !answer.fetch {
        return "n/a".to_owned();
    }
    match lines {
        [] => preference.as_str().to_owned(),
        [line, ..] => format!("{preference}:{line}"),
    }
}
