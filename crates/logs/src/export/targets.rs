//! Writing every export a run asks for, in one call.

use std::path::PathBuf;
use std::time::SystemTime;

use crate::Error;

use super::{
    ListFilter, Listed, Standing, apache_rewrite_map, haproxy_map, json_list, nginx_geo,
    plain_list, write_acap_tree, write_atomic,
};

/// Where each export goes; `None` skips it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Targets {
    /// The ACAP file tree.
    pub acap: Option<PathBuf>,
    /// The Apache `RewriteMap` text file.
    pub apache_map: Option<PathBuf>,
    /// The nginx `geo` include.
    pub nginx_geo: Option<PathBuf>,
    /// The HAProxy map.
    pub haproxy_map: Option<PathBuf>,
    /// Verified addresses, one per line.
    pub verified_list: Option<PathBuf>,
    /// Spoofing addresses, one per line.
    pub spoofed_list: Option<PathBuf>,
    /// Every listed address as a JSON array.
    pub json: Option<PathBuf>,
}

impl Targets {
    /// Whether no export is asked for.
    pub fn is_empty(&self) -> bool {
        *self == Targets::default()
    }

    /// Every export, as files named `STEM.map` (Apache), `STEM.geo`
    /// (nginx), `STEM.haproxy` (HAProxy), `STEM.txt` (the verified
    /// addresses), `STEM.json` and the ACAP tree `STEM/`, all in `dir`:
    /// the lists of one finding (`logs analyze --crawl
    /// --export-ignoring-robots DIR` writes the bots that ignore
    /// robots.txt so).
    #[must_use]
    pub fn in_dir(dir: &std::path::Path, stem: &str) -> Targets {
        let file = |ext: &str| Some(dir.join(format!("{stem}{ext}")));
        Targets {
            acap: file(""),
            apache_map: file(".map"),
            nginx_geo: file(".geo"),
            haproxy_map: file(".haproxy"),
            verified_list: file(".txt"),
            spoofed_list: None,
            json: file(".json"),
        }
    }

    /// Writes every export asked for, each atomically; returns one line per
    /// export written, for a log. Stops at the first that fails.
    pub fn write(&self, entries: &[Listed]) -> Result<Vec<String>, Error> {
        let now = SystemTime::now();
        let mut done = Vec::new();
        if let Some(dir) = &self.acap {
            let s = write_acap_tree(dir, entries)?;
            done.push(format!(
                "{}: {} verified, {} spoofed, {} other addresses; {} bots",
                dir.display(),
                s.verified,
                s.spoofed,
                s.other,
                s.bots
            ));
        }
        let texts: [(&Option<PathBuf>, &dyn Fn() -> String); 6] = [
            (&self.apache_map, &|| apache_rewrite_map(entries, now)),
            (&self.nginx_geo, &|| nginx_geo(entries, now)),
            (&self.haproxy_map, &|| haproxy_map(entries, now)),
            (&self.verified_list, &|| {
                plain_list(
                    entries,
                    &ListFilter {
                        standing: Some(Standing::Verified),
                        bot: None,
                    },
                )
            }),
            (&self.spoofed_list, &|| {
                plain_list(
                    entries,
                    &ListFilter {
                        standing: Some(Standing::Spoofed),
                        bot: None,
                    },
                )
            }),
            (&self.json, &|| json_list(entries)),
        ];
        for (path, text) in texts {
            if let Some(path) = path {
                write_atomic(path, text().as_bytes())?;
                done.push(format!("{}: written", path.display()));
            }
        }
        Ok(done)
    }
}
