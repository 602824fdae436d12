//! `links/non-descriptive-anchor`: links whose text says nothing of
//! their target ("click here", "read more").

use crate::{Context, Finding};

declare_check! {
    /// ## What it finds
    /// Every HTML page with `<a>` links to other pages whose whole text,
    /// trimmed, in lower case and without a final `.`, `:`, `…`, `»` or
    /// `>`, is one of the generic phrases below (English, French, German,
    /// Spanish, Italian, Portuguese, Dutch), with the phrases used and how
    /// many links. Text around the link is not read: "click here" alone
    /// is reported, "click here for the price list" is not.
    ///
    /// `click here`, `click`, `here`, `read more`, `more`, `learn more`,
    /// `more info`, `more information`, `see more`, `this page`, `this
    /// link`, `link`, `continue`, `continue reading`, `details`, `go`;
    /// `cliquez ici`, `ici`, `en savoir plus`, `lire la suite`, `plus`;
    /// `hier klicken`, `hier`, `mehr`, `weiterlesen`, `mehr erfahren`;
    /// `haga clic aquí`, `haz clic aquí`, `aquí`, `leer más`, `más`;
    /// `clicca qui`, `qui`, `leggi di più`, `di più`; `clique aqui`,
    /// `aqui`, `saiba mais`, `leia mais`; `klik hier`, `lees meer`,
    /// `meer`.
    ///
    /// ## Why it matters
    /// Screen-reader users move from link to link and hear only their
    /// text; search engines read it as a description of the target.
    /// "Read more" tells neither anything.
    ///
    /// ## Fix
    /// Put the target's subject in the link ("Read the pricing guide").
    "links/non-descriptive-anchor", Notice, "links whose text is generic (\"click here\", \"read more\")"
}

/// The generic phrases, lower case.
pub(crate) const GENERIC: &[&str] = &[
    "click here", "click", "here", "read more", "more", "learn more", "more info",
    "more information", "see more", "this page", "this link", "link", "continue",
    "continue reading", "details", "go", "cliquez ici", "ici", "en savoir plus",
    "lire la suite", "plus", "hier klicken", "hier", "mehr", "weiterlesen", "mehr erfahren",
    "haga clic aquí", "haz clic aquí", "aquí", "leer más", "más", "clicca qui", "qui",
    "leggi di più", "di più", "clique aqui", "aqui", "saiba mais", "leia mais", "klik hier",
    "lees meer", "meer",
];

/// The anchor text as compared: trimmed, lower case, a final mark of
/// punctuation or an arrow left out.
pub(crate) fn normalized(anchor: &str) -> String {
    anchor
        .trim()
        .trim_end_matches(['.', ':', '…', '»', '>', '›', '→'])
        .trim()
        .to_lowercase()
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let mut st = cx.conn.prepare(
        "SELECT l.source_id, u.url, l.anchor FROM links l JOIN urls u ON u.id = l.source_id
         WHERE l.kind = 'a' AND l.same_page = 0 AND l.anchor IS NOT NULL AND l.anchor != ''
           AND length(l.anchor) <= 40
         ORDER BY l.source_id, l.position",
    )?;
    let mut rows = st.query([])?;
    let mut out: Vec<Finding> = Vec::new();
    let mut current: Option<(i64, Vec<String>, usize)> = None;
    let mut urls: Vec<String> = Vec::new();
    while let Some(r) = rows.next()? {
        let (id, url, anchor): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let text = normalized(&anchor);
        if !GENERIC.contains(&text.as_str()) {
            continue;
        }
        match &mut current {
            Some((cur, phrases, n)) if *cur == id => {
                *n += 1;
                if !phrases.contains(&text) {
                    phrases.push(text);
                }
            }
            _ => {
                if let Some(done) = current.take() {
                    out.push(finding(urls.pop().unwrap_or_default(), done));
                }
                urls.push(url);
                current = Some((id, vec![text], 1));
            }
        }
    }
    if let Some(done) = current.take() {
        out.push(finding(urls.pop().unwrap_or_default(), done));
    }
    Ok(out)
}

fn finding(url: String, (_, phrases, n): (i64, Vec<String>, usize)) -> Finding {
    let mut f = Finding::new(
        url,
        format!("{n} link(s) with generic text: {}", phrases.iter().map(|p| format!("\"{p}\"")).collect::<Vec<_>>().join(", ")),
    );
    f.related = phrases;
    f
}
