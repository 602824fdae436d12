//! `security/http-page`: pages served over plain HTTP on a site that
//! serves HTTPS.

use foldhash::HashMap;

use crate::{Context, Finding, HTML_PAGE};

declare_check! {
    /// ## What it finds
    /// Every HTML page the crawl fetched over `http://` that answered
    /// `200` (not a redirect to HTTPS) on a host whose pages the crawl
    /// also fetched over `https://` (ports aside: `http://example.com/`
    /// and `https://example.com/` are one site), with the first HTTPS page
    /// of that host in `related`. A host served only over HTTP is not
    /// reported: that is a choice of the whole site, not a page left
    /// behind.
    ///
    /// ## Why it matters
    /// The page reaches visitors unencrypted and unauthenticated on a
    /// site that can do better: anyone on the way can read or change it,
    /// browsers mark it "not secure", and search engines see two versions
    /// of the site, splitting its links between them.
    ///
    /// ## Fix
    /// Redirect every `http://` URL to its `https://` twin with a `301`
    /// (and send `Strict-Transport-Security`), and link the HTTPS URLs.
    "security/http-page", Warning, "HTML pages served over plain HTTP on a site that serves HTTPS"
}

pub(crate) fn check(cx: &Context<'_>) -> Result<Vec<Finding>, rusqlite::Error> {
    let pages: Vec<(String, String)> = cx.rows(
        &format!(
            "SELECT u.url, lower(coalesce(substr(u.url, 1, instr(u.url, ':') - 1), ''))
             FROM pages p JOIN urls u ON u.id = p.url_id WHERE {HTML_PAGE} ORDER BY u.id"
        ),
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    // The first HTTPS page of each host.
    let mut secure: HashMap<String, &str> = HashMap::default();
    for (url, scheme) in &pages {
        if scheme == "https"
            && let Some(host) = host_of(url)
        {
            secure.entry(host).or_insert(url);
        }
    }
    Ok(pages
        .iter()
        .filter(|(_, scheme)| scheme == "http")
        .filter_map(|(url, _)| {
            let twin = secure.get(&host_of(url)?)?;
            let mut f = Finding::new(
                url.clone(),
                format!("served over plain HTTP on a site that serves HTTPS ({twin})"),
            );
            f.related = vec![(*twin).to_owned()];
            Some(f)
        })
        .collect())
}

/// A URL's host, in lower case.
fn host_of(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()?
        .host_str()
        .map(str::to_ascii_lowercase)
}

#[cfg(test)]
mod tests {
    use botwarden_store::{Batch, NewUrl, PageRecord, Store, UrlState};

    use crate::Audit;

    /// A site served over HTTPS with one page left on HTTP; near misses:
    /// an HTTP URL that redirects to HTTPS, an HTTP site with no HTTPS
    /// page, an HTTP answer that is not HTML, an HTTP page that failed.
    #[test]
    fn an_http_page_of_an_https_site_is_reported_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("botwarden-http-page-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let mut store = Store::create(&dir.join("crawl.db")).expect("store");
        let pages: [(&str, u16, &str); 7] = [
            ("https://example.com/", 200, "text/html"),
            ("https://example.com:8443/other-port", 200, "text/html"),
            ("http://example.com/left-behind", 200, "text/html"),
            ("http://example.com/moved", 301, "text/html"),
            ("http://example.com/data.json", 200, "application/json"),
            ("http://example.com/gone", 404, "text/html"),
            ("http://plain.example/", 200, "text/html"),
        ];
        let mut batch = Batch::default();
        for (id, (url, status, kind)) in (1u64..).zip(pages) {
            batch.new_urls.push(NewUrl {
                id,
                url: url.to_owned(),
                depth: 0,
                found_by: "link",
                state: UrlState::Fetched,
                skip: None,
            });
            batch.pages.push(PageRecord {
                url_id: id,
                status: Some(status),
                content_type: Some(kind.to_owned()),
                body_read: true,
                ..PageRecord::default()
            });
        }
        store.write(&batch).expect("write");
        let report = Audit::default().run(&store).expect("audit");
        let found: Vec<(&str, Vec<&str>)> = report
            .check("security/http-page")
            .expect("check")
            .findings
            .iter()
            .map(|f| (f.url.as_str(), f.related.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            found,
            [("http://example.com/left-behind", vec!["https://example.com/"])]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
