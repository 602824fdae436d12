//! Merging the stores of a shared crawl's workers into one store, which
//! reads like the store of a single crawl (the audit runs on it).
//!
//! Each worker numbers its URLs in its own store; the merge gives every
//! URL one id (in the order the inputs are given, then each input's
//! order) and rewrites every reference to a URL (`url_id`, `source_id`,
//! `target_id`) through it. A URL's state is the most advanced any worker
//! recorded (fetched, then skipped, then queued), its depth the least,
//! how it was found the finder's (not `claimed`). A page fetched by two
//! workers (one killed after committing it, before its lease was
//! finished) is kept once, from the first input that has it, with that
//! input's links; the other is counted. robots.txt files are kept once
//! per origin; robots decisions once per URL; throttle events, site
//! verifications and sitemap entries all. Tables the merge does not know
//! (a newer schema) are copied the same way: their URL columns rewritten,
//! an `id` primary key renumbered.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};

use crate::error::Error;
use crate::readings::{BodyHash, TextReading};
use crate::store::Store;

/// What a merge did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Stores read.
    pub inputs: usize,
    /// URLs in the merged store.
    pub urls: u64,
    /// Pages in the merged store.
    pub pages: u64,
    /// Pages fetched more than once (by workers that died after committing
    /// them), kept once.
    pub duplicate_pages: u64,
    /// Links in the merged store.
    pub links: u64,
    /// URLs still queued (the crawl was stopped before it was done).
    pub queued: u64,
}

impl std::fmt::Display for MergeReport {
    /// `N store(s) merged: N URLs, N pages, N links, N URL(s) still
    /// queued, N page(s) fetched twice kept once`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} store(s) merged: {} URLs, {} pages, {} links, {} URL(s) still queued, \
             {} page(s) fetched twice kept once",
            self.inputs, self.urls, self.pages, self.links, self.queued, self.duplicate_pages
        )
    }
}

/// Tables whose rows refer to URLs, handled with care; any other table
/// but `urls` and `meta` is copied generically.
const URL_COLUMNS: [&str; 3] = ["url_id", "source_id", "target_id"];

/// Merges `inputs` (stores of the workers of one crawl) into a new store
/// at `out` (module docs).
///
/// # Errors
/// [`Error`] naming the file: `out` exists, an input is not a
/// crawl store, the inputs are of different crawls (another seed) or
/// their SimHash fingerprints read the page text another way, or
/// SQLite fails (nothing is left half-written: `out` is removed).
pub fn merge_stores(out: &Path, inputs: &[PathBuf]) -> Result<MergeReport, Error> {
    if inputs.is_empty() {
        return Err(Error {
            path: out.to_owned(),
            message: "no stores to merge".into(),
        });
    }
    let mut seed: Option<(String, &Path)> = None;
    // The SimHash text reading of the first store: fingerprints of two
    // readings are never put side by side.
    let mut reading: Option<(TextReading, &Path)> = None;
    // The body hash of the first store: equal bodies of two stores must
    // have equal hashes for the audit's duplicates.
    let mut hash: Option<(BodyHash, &Path)> = None;
    for input in inputs {
        // Opening brings an older store up to this version (and checks
        // it is a crawl store at all).
        let store = Store::open(input)?;
        let this = store.meta("seed")?.ok_or_else(|| Error {
            path: input.clone(),
            message: "not a crawl (no seed recorded)".into(),
        })?;
        let read = TextReading::of_store(store.meta(TextReading::META)?.as_deref());
        same_as_first(&mut reading, read, input, |read, first, at| {
            format!(
                "its SimHash fingerprints read the page text as {}, not as {} as {}'s do: \
                 stores of one reading only",
                read.name(),
                first.name(),
                at.display()
            )
        })?;
        let kind = BodyHash::of_store(store.meta(BodyHash::META)?.as_deref());
        same_as_first(&mut hash, kind, input, |kind, first, at| {
            format!(
                "its pages' content_hash is {}, not {} as {}'s is: stores of one hash only",
                kind.name(),
                first.name(),
                at.display()
            )
        })?;
        same_as_first(&mut seed, this, input, |this, first, at| {
            format!(
                "a crawl of {this}, not of {first} as {} is: stores of one crawl only",
                at.display()
            )
        })?;
    }
    let store = Store::create(out)?;
    let result = merge_into(&store, inputs);
    drop(store);
    if result.is_err() {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", out.display()));
        }
    }
    result
}

/// Keeps the first input's `value` in `first`; an input whose value
/// differs is an error naming it, with `why(value, first value, first
/// input)`.
fn same_as_first<'a, T: PartialEq>(
    first: &mut Option<(T, &'a Path)>,
    value: T,
    input: &'a Path,
    why: impl FnOnce(&T, &T, &Path) -> String,
) -> Result<(), Error> {
    match first {
        None => {
            *first = Some((value, input));
            Ok(())
        }
        Some((f, at)) if *f != value => Err(Error {
            path: input.to_path_buf(),
            message: why(&value, f, at),
        }),
        Some(_) => Ok(()),
    }
}

fn merge_into(store: &Store, inputs: &[PathBuf]) -> Result<MergeReport, Error> {
    let out = store.path().to_owned();
    let conn = store.connection();
    let mut report = MergeReport {
        inputs: inputs.len(),
        ..MergeReport::default()
    };
    let mut states: Vec<String> = Vec::new();
    let mut workers: Vec<String> = Vec::new();
    for (n, input) in inputs.iter().enumerate() {
        let fail = |what: &str, e: &rusqlite::Error| Error {
            path: input.clone(),
            message: format!("cannot merge it into {}: {what}: {e}", out.display()),
        };
        conn.execute(
            "ATTACH DATABASE ?1 AS src",
            params![input.display().to_string()],
        )
        .map_err(|e| fail("cannot attach it", &e))?;
        let merged = merge_one(conn, n == 0).map_err(|e| fail("SQLite failed", &e));
        let detach = conn
            .execute_batch("DETACH DATABASE src")
            .map_err(|e| fail("cannot detach it", &e));
        let (dups, state, worker) = merged?;
        detach?;
        report.duplicate_pages += dups;
        states.push(state);
        workers.push(format!(
            "{}{}",
            input.display(),
            worker.map(|w| format!(" ({w})")).unwrap_or_default()
        ));
    }
    let fail = |what: &str, e: &rusqlite::Error| Error {
        path: out.clone(),
        message: format!("{what}: {e}"),
    };
    let state = if states.iter().all(|s| s == "finished") {
        "finished"
    } else {
        "stopped"
    };
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('state', ?1), ('merged_from', ?2)",
        params![state, workers.join("\n")],
    )
    .map_err(|e| fail("cannot write the merge's meta", &e))?;
    store.build_indexes()?;
    let count = |sql: &str| -> Result<u64, Error> {
        conn.query_row(sql, [], |r| r.get::<_, i64>(0))
            .map(|n| u64::try_from(n).unwrap_or_default())
            .map_err(|e| fail("cannot count", &e))
    };
    report.urls = count("SELECT count(*) FROM urls")?;
    report.pages = count("SELECT count(*) FROM pages")?;
    report.links = count("SELECT count(*) FROM links")?;
    report.queued = count("SELECT count(*) FROM urls WHERE state = 'queued'")?;
    Ok(report)
}

/// Merges the attached `src` into `main` in one transaction. Returns the
/// duplicate pages, the input's crawl state and its worker's name.
fn merge_one(
    conn: &Connection,
    first: bool,
) -> Result<(u64, String, Option<String>), rusqlite::Error> {
    conn.execute_batch("BEGIN")?;
    let result = merge_tables(conn, first);
    match result {
        Ok(r) => {
            conn.execute_batch("COMMIT")?;
            Ok(r)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

fn merge_tables(
    conn: &Connection,
    first: bool,
) -> Result<(u64, String, Option<String>), rusqlite::Error> {
    conn.execute_batch(
        "DROP TABLE IF EXISTS temp.map; DROP TABLE IF EXISTS temp.fresh;
         CREATE TEMP TABLE map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
         CREATE TEMP TABLE fresh (id INTEGER PRIMARY KEY);
         INSERT INTO main.urls (url, depth, found_by, state, skip_reason, skip_detail)
             SELECT url, depth, found_by, state, skip_reason, skip_detail FROM src.urls
             WHERE url NOT IN (SELECT url FROM main.urls) ORDER BY id;
         INSERT INTO temp.map (old, new)
             SELECT s.id, m.id FROM src.urls s JOIN main.urls m ON m.url = s.url;
         UPDATE main.urls SET state = s.state, skip_reason = s.skip_reason,
                skip_detail = s.skip_detail
             FROM src.urls s WHERE s.url = main.urls.url
             AND (CASE s.state WHEN 'fetched' THEN 3 WHEN 'skipped' THEN 2 ELSE 1 END)
               > (CASE main.urls.state WHEN 'fetched' THEN 3 WHEN 'skipped' THEN 2 ELSE 1 END);
         UPDATE main.urls SET depth = min(main.urls.depth, s.depth),
                found_by = CASE WHEN main.urls.found_by = 'claimed' THEN s.found_by
                                ELSE main.urls.found_by END
             FROM src.urls s WHERE s.url = main.urls.url;
         INSERT INTO temp.fresh (id)
             SELECT DISTINCT m.new FROM src.pages p JOIN temp.map m ON m.old = p.url_id
             WHERE m.new NOT IN (SELECT url_id FROM main.pages);",
    )?;
    let src_pages: i64 = conn.query_row("SELECT count(*) FROM src.pages", [], |r| r.get(0))?;
    let fresh: i64 = conn.query_row("SELECT count(*) FROM temp.fresh", [], |r| r.get(0))?;
    let tables: Vec<String> = {
        let mut stmt = conn.prepare(
            "SELECT name FROM src.sqlite_master WHERE type = 'table' \
             AND name NOT IN ('urls', 'meta') AND name NOT LIKE 'sqlite_%' \
             AND name IN (SELECT name FROM main.sqlite_master WHERE type = 'table') \
             ORDER BY name",
        )?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?
    };
    for table in &tables {
        copy_table(conn, table)?;
    }
    if first {
        conn.execute_batch(
            "INSERT OR IGNORE INTO main.meta (key, value)
                 SELECT key, value FROM src.meta
                 WHERE key NOT IN ('schema_version', 'state', 'worker', 'coordinator');",
        )?;
    }
    conn.execute_batch(
        "UPDATE main.meta SET value = s.value FROM src.meta s
             WHERE s.key = 'started_at' AND main.meta.key = 'started_at' AND s.value < main.meta.value;
         UPDATE main.meta SET value = s.value FROM src.meta s
             WHERE s.key = 'ended_at' AND main.meta.key = 'ended_at' AND s.value > main.meta.value;
         INSERT OR IGNORE INTO main.meta (key, value)
             SELECT key, value FROM src.meta WHERE key = 'ended_at';",
    )?;
    let meta = |key: &str| -> Result<Option<String>, rusqlite::Error> {
        conn.query_row("SELECT value FROM src.meta WHERE key = ?1", [key], |r| {
            r.get(0)
        })
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })
    };
    let state = meta("state")?.unwrap_or_else(|| "running".into());
    let worker = meta("worker")?;
    Ok((
        u64::try_from(src_pages - fresh).unwrap_or_default(),
        state,
        worker,
    ))
}

/// Copies one table of `src` into `main`: URL columns through the map,
/// an integer `id` key renumbered, rows of pages already there (and
/// their links) left out.
fn copy_table(conn: &Connection, table: &str) -> Result<(), rusqlite::Error> {
    let columns: Vec<(String, bool)> = {
        let mut stmt = conn.prepare(&format!("PRAGMA main.table_info(\"{table}\")"))?;
        stmt.query_map([], |r| {
            Ok((r.get::<_, String>(1)?, r.get::<_, i64>(5)? > 0))
        })?
        .collect::<Result<_, _>>()?
    };
    let src_columns: Vec<String> = {
        let mut stmt = conn.prepare(&format!("PRAGMA src.table_info(\"{table}\")"))?;
        stmt.query_map([], |r| r.get::<_, String>(1))?
            .collect::<Result<_, _>>()?
    };
    let mut names = Vec::new();
    let mut values = Vec::new();
    let mut joins = String::new();
    let mut filters = Vec::new();
    for (i, (name, key)) in columns.iter().enumerate() {
        if !src_columns.contains(name) || (name == "id" && *key) {
            continue;
        }
        names.push(format!("\"{name}\""));
        if URL_COLUMNS.contains(&name.as_str()) {
            let alias = format!("m{i}");
            joins.push_str(&format!(
                " LEFT JOIN temp.map {alias} ON {alias}.old = t.\"{name}\""
            ));
            values.push(format!("{alias}.new"));
            // A reference the input could not resolve stays unresolved;
            // one it could must be rewritten.
            filters.push(format!("(t.\"{name}\" IS NULL OR {alias}.new IS NOT NULL)"));
        } else {
            values.push(format!("t.\"{name}\""));
        }
    }
    if table == "pages" || table == "links" {
        let column = if table == "pages" {
            "url_id"
        } else {
            "source_id"
        };
        let i = columns.iter().position(|(n, _)| n == column).unwrap_or(0);
        filters.push(format!("m{i}.new IN (SELECT id FROM temp.fresh)"));
    }
    let filter = if filters.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", filters.join(" AND "))
    };
    let verb = if table == "site_verifications" {
        // The same verification, read by every worker, once.
        filters.push(format!(
            "NOT EXISTS (SELECT 1 FROM main.\"{table}\" v WHERE v.origin = t.origin \
             AND v.verified_at = t.verified_at AND v.token_fingerprint = t.token_fingerprint)"
        ));
        "INSERT"
    } else {
        "INSERT OR IGNORE"
    };
    let filter = if table == "site_verifications" {
        format!(" WHERE {}", filters.join(" AND "))
    } else {
        filter
    };
    // Rows in the order they were written (`links` has no row id: its key's
    // order, the page and the link's place on it).
    let order = if table == "links" {
        "t.source_id, t.position"
    } else {
        "t.rowid"
    };
    conn.execute_batch(&format!(
        "{verb} INTO main.\"{table}\" ({}) SELECT {} FROM src.\"{table}\" t{joins}{filter} ORDER BY {order};",
        names.join(", "),
        values.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link_kind::LinkKind;
    use crate::store::{Batch, LinkRecord, NewUrl, PageRecord, Skip, UrlState};

    #[test]
    fn a_merge_reads_as_one_line() {
        let report = MergeReport {
            inputs: 3,
            urls: 120,
            pages: 100,
            duplicate_pages: 2,
            links: 900,
            queued: 20,
        };
        assert_eq!(
            report.to_string(),
            "3 store(s) merged: 120 URLs, 100 pages, 900 links, 20 URL(s) still queued, \
             2 page(s) fetched twice kept once"
        );
    }

    fn url(id: u64, path: &str, found_by: &'static str, state: UrlState) -> NewUrl {
        NewUrl {
            id,
            url: format!("https://example.com{path}"),
            depth: 1,
            found_by,
            state,
            skip: (state == UrlState::Skipped).then(|| Skip {
                reason: "nofollow",
                detail: "rel=nofollow".into(),
            }),
        }
    }

    fn page(id: u64) -> PageRecord {
        PageRecord {
            url_id: id,
            fetched_at: "2026-01-01T00:00:00Z".into(),
            status: Some(200),
            ..PageRecord::default()
        }
    }

    fn link(source: u64, target: u64) -> LinkRecord {
        LinkRecord {
            source,
            target: Some(target),
            target_text: None,
            kind: LinkKind::A,
            anchor: None,
            rel: None,
            followed: true,
            // A page's links each have their own place.
            position: u32::try_from(target).expect("small"),
            same_page: false,
        }
    }

    fn store(path: &Path, batch: &Batch) {
        let mut s = Store::create(path).expect("create");
        s.write(batch).expect("write");
    }

    #[test]
    fn resources_follow_their_pages_and_are_kept_once_per_url() {
        use crate::resources::{PageResourceRecord, ResourceKind, ResourceRecord};
        let dir = std::env::temp_dir().join(format!("botwarden-merge-res-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let meta = vec![("seed".to_owned(), "https://example.com/".to_owned())];
        let used = |source: u64, url: &str| PageResourceRecord {
            source,
            position: 0,
            kind: ResourceKind::Image,
            url: format!("https://example.com{url}"),
        };
        let answered = |url: &str, status: u16| ResourceRecord {
            url: format!("https://example.com{url}"),
            kind: ResourceKind::Image,
            checked_at: "2026-11-29T00:00:00Z".to_owned(),
            method: Some("HEAD"),
            status: Some(status),
            content_type: None,
            size: Some(10),
            size_capped: false,
            blocked: None,
            error: None,
            elapsed_ms: Some(1.0),
        };
        // Worker one fetched / (id 1), worker two /a (its id 1 too); both
        // use /x.png, asked by each (the first input's answer is kept).
        let inputs: Vec<PathBuf> = [("a.db", "/", "/a.png", 200), ("b.db", "/a", "/b.png", 404)]
            .iter()
            .map(|(name, page_path, other, status)| {
                let path = dir.join(name);
                let mut s = Store::create(&path).expect("create");
                s.write(&Batch {
                    new_urls: vec![url(1, page_path, "seed", UrlState::Fetched)],
                    pages: vec![page(1)],
                    page_resources: vec![
                        used(1, "/x.png"),
                        PageResourceRecord {
                            position: 1,
                            ..used(1, other)
                        },
                    ],
                    meta: meta.clone(),
                    ..Batch::default()
                })
                .expect("write");
                s.write_resources(&[answered("/x.png", *status), answered(other, *status)])
                    .expect("resources");
                path
            })
            .collect();
        let out = dir.join("merged.db");
        merge_stores(&out, &inputs).expect("merge");
        let merged = Store::open(&out).expect("open");
        let rows = |sql: &str| -> Vec<String> {
            let mut st = merged.connection().prepare(sql).expect("sql");
            st.query_map([], |r| r.get::<_, String>(0))
                .expect("rows")
                .collect::<Result<_, _>>()
                .expect("rows")
        };
        assert_eq!(
            rows(
                "SELECT u.url || ' uses ' || p.url FROM page_resources p \
                 JOIN urls u ON u.id = p.source_id ORDER BY 1"
            ),
            [
                "https://example.com/ uses https://example.com/a.png",
                "https://example.com/ uses https://example.com/x.png",
                "https://example.com/a uses https://example.com/b.png",
                "https://example.com/a uses https://example.com/x.png",
            ]
        );
        assert_eq!(
            rows("SELECT url || ' ' || status FROM resources ORDER BY url"),
            [
                "https://example.com/a.png 200",
                "https://example.com/b.png 404",
                "https://example.com/x.png 200",
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn ids_are_remapped_states_advance_and_a_page_fetched_twice_is_kept_once() {
        let dir = std::env::temp_dir().join(format!("botwarden-merge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let meta = vec![
            ("seed".to_owned(), "https://example.com/".to_owned()),
            ("state".to_owned(), "finished".to_owned()),
        ];
        // Worker one: the seed fetched, /a queued, /b met through nofollow.
        let a = dir.join("a.db");
        store(
            &a,
            &Batch {
                new_urls: vec![
                    url(1, "/", "seed", UrlState::Fetched),
                    url(2, "/a", "link", UrlState::Queued),
                    url(3, "/b", "link", UrlState::Skipped),
                ],
                pages: vec![page(1)],
                links: vec![link(1, 2), link(1, 3)],
                meta: meta.clone(),
                ..Batch::default()
            },
        );
        // Worker two: fetched /a (leased, found by the other) and the seed
        // again (the other's lease ran out after its commit); found /c.
        let b = dir.join("b.db");
        store(
            &b,
            &Batch {
                new_urls: vec![
                    url(1, "/", "seed", UrlState::Fetched),
                    url(2, "/a", "claimed", UrlState::Fetched),
                    url(3, "/c", "link", UrlState::Queued),
                ],
                pages: vec![page(1), page(2)],
                links: vec![link(1, 2), link(2, 3)],
                meta,
                ..Batch::default()
            },
        );
        let out = dir.join("merged.db");
        let report = merge_stores(&out, &[a.clone(), b]).expect("merge");
        assert_eq!(
            report,
            MergeReport {
                inputs: 2,
                urls: 4,
                pages: 2,
                duplicate_pages: 1,
                links: 3,
                queued: 1,
            }
        );
        let merged = Store::open(&out).expect("open");
        let c = merged.connection();
        let rows = |sql: &str| -> Vec<String> {
            let mut st = c.prepare(sql).expect("sql");
            st.query_map([], |r| r.get::<_, String>(0))
                .expect("rows")
                .collect::<Result<_, _>>()
                .expect("rows")
        };
        assert_eq!(
            rows("SELECT url || ' ' || state || ' ' || found_by FROM urls ORDER BY url"),
            [
                "https://example.com/ fetched seed",
                "https://example.com/a fetched link",
                "https://example.com/b skipped link",
                "https://example.com/c queued link",
            ]
        );
        assert_eq!(
            rows(
                "SELECT s.url || ' -> ' || t.url FROM links l JOIN urls s ON s.id = l.source_id \
                 JOIN urls t ON t.id = l.target_id ORDER BY 1"
            ),
            [
                "https://example.com/ -> https://example.com/a",
                "https://example.com/ -> https://example.com/b",
                "https://example.com/a -> https://example.com/c",
            ]
        );
        assert_eq!(
            merged.meta("state").expect("meta").as_deref(),
            Some("finished")
        );
        // A store beside `a` whose meta says `meta` is refused: the error
        // names the store and holds `words`, and nothing is written.
        let refused = |name: &str, meta: &[(&str, &str)], words: &[&str]| {
            let other = dir.join(name);
            store(
                &other,
                &Batch {
                    meta: meta
                        .iter()
                        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                        .collect(),
                    ..Batch::default()
                },
            );
            let err =
                merge_stores(&dir.join("no.db"), &[a.clone(), other.clone()]).expect_err("refused");
            assert!(
                matches!(&err, Error { path, message } if *path == other
                    && words.iter().all(|w| message.contains(w))),
                "{err}"
            );
            assert!(!dir.join("no.db").exists());
        };
        // Stores of another crawl.
        refused("other.db", &[("seed", "https://other.example/")], &[]);
        // Stores whose fingerprints read the text another way (a store
        // that does not name its reading has the older one).
        refused(
            "newer.db",
            &[
                ("seed", "https://example.com/"),
                (TextReading::META, TextReading::Scan.name()),
            ],
            &["markup-scan"],
        );
        // Stores whose bodies are hashed another way (a store that does
        // not name its hash has FNV-1a).
        refused(
            "hashed.db",
            &[
                ("seed", "https://example.com/"),
                (BodyHash::META, BodyHash::Xxh3.name()),
            ],
            &["xxh3-64", "fnv1a-64"],
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
