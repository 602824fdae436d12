//! `structure/url-hygiene`: URLs with upper case, underscores, many
//! parameters, great length or characters outside ASCII.

use url::Url;

use crate::{Context, Finding};

/// URLs longer than this many characters are reported.
pub(crate) const MAX_LEN: usize = 115;

/// URLs with more query parameters than this are reported.
pub(crate) const MAX_PARAMS: usize = 3;

declare_check! {
    /// ## What it finds
    /// Every URL of the site that the crawl fetched (and that answered
    /// anything) whose path has upper-case letters or underscores, whose
    /// query has more than 3 parameters, that is longer than 115
    /// characters, or whose path or query holds characters outside ASCII
    /// (percent-encoded bytes above `%7F`). One finding per URL, naming
    /// every problem.
    ///
    /// ## Why it matters
    /// Paths are case-sensitive: `/Page` and `/page` are two URLs, and
    /// links that mix them make duplicates. Search engines read hyphens as
    /// word separators, not underscores. Long URLs and many parameters
    /// are cut in results, hard to share and a sign of facets that
    /// multiply pages. Non-ASCII characters are escaped differently by
    /// different tools, which makes more variants.
    ///
    /// ## Fix
    /// Use short, lower-case, hyphenated paths; redirect the old forms;
    /// keep filters and tracking out of indexable URLs.
    "structure/url-hygiene", Notice, "URLs with upper case, underscores, many parameters, great length or non-ASCII characters"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let rows = cx.rows(
        "SELECT u.id, u.url FROM pages p JOIN urls u ON u.id = p.url_id
         WHERE p.status IS NOT NULL ORDER BY u.id",
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
    )?;
    let mut out = Vec::new();
    for (id, url) in rows {
        let problems = problems(&url);
        if !problems.is_empty() {
            out.push(cx.linked_finding(id, url, problems.join("; "))?);
        }
    }
    Ok(out)
}

/// What is wrong with a URL, in words.
pub(crate) fn problems(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(u) = Url::parse(url) else {
        return out;
    };
    let path = u.path();
    // Escapes (`%C3%A9`) are upper case by rule: only the letters count.
    let mut letters = path.chars();
    let mut upper = false;
    while let Some(c) = letters.next() {
        if c == '%' {
            letters.next();
            letters.next();
        } else if c.is_ascii_uppercase() {
            upper = true;
        }
    }
    if upper {
        out.push("upper case in the path".to_owned());
    }
    if path.contains('_') {
        out.push("underscores in the path".to_owned());
    }
    let params = u.query_pairs().count();
    if params > MAX_PARAMS {
        out.push(format!("{params} query parameters (limit {MAX_PARAMS})"));
    }
    if url.len() > MAX_LEN {
        out.push(format!("{} characters long (limit {MAX_LEN})", url.len()));
    }
    let escaped = format!("{path}?{}", u.query().unwrap_or_default());
    let non_ascii = escaped.as_bytes().windows(3).any(|w| {
        w[0] == b'%'
            && std::str::from_utf8(&w[1..])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .is_some_and(|b| b >= 0x80)
    });
    if non_ascii {
        out.push("characters outside ASCII".to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_problem_is_named() {
        assert!(problems("https://example.com/a-page?x=1&y=2&z=3").is_empty());
        assert_eq!(
            problems("https://example.com/My_Page"),
            ["upper case in the path", "underscores in the path"]
        );
        assert_eq!(
            problems("https://example.com/?a=1&b=2&c=3&d=4"),
            ["4 query parameters (limit 3)"]
        );
        assert_eq!(
            problems("https://example.com/caf%C3%A9"),
            ["characters outside ASCII"]
        );
        let long = format!("https://example.com/{}", "a".repeat(100));
        assert_eq!(problems(&long), ["120 characters long (limit 115)"]);
    }
}
