//! What a link of a page is ([`LinkKind`]): written by the crawler to the
//! `links` table's `kind` column, read back by the audit.

/// What a link of a page is: the element or header it was read from. The
/// store keeps it as text ([`LinkKind::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkKind {
    /// `<a href>` (`a`).
    A,
    /// `<area href>` (`area`).
    Area,
    /// `<iframe src>` or `<frame src>` (`iframe`).
    Iframe,
    /// A redirect's `Location` (`redirect`).
    Redirect,
    /// A canonical, of the HTML or of a `Link` header (`canonical`).
    Canonical,
    /// An hreflang alternate (`hreflang`).
    Hreflang,
    /// A refresh, of the HTML or of a header (`refresh`).
    Refresh,
    /// A sitemap's `<loc>` (`sitemap`).
    Sitemap,
}

impl LinkKind {
    /// Every kind, in the order of their indexes ([`LinkKind::index`]).
    pub const ALL: [LinkKind; 8] = [
        LinkKind::A,
        LinkKind::Area,
        LinkKind::Iframe,
        LinkKind::Redirect,
        LinkKind::Canonical,
        LinkKind::Hreflang,
        LinkKind::Refresh,
        LinkKind::Sitemap,
    ];

    /// The kinds of the links a page's body holds (`a`, `area`, `iframe`):
    /// the site's own links, which a visitor follows.
    pub const SITE: [LinkKind; 3] = [LinkKind::A, LinkKind::Area, LinkKind::Iframe];

    /// The kind as the store writes it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            LinkKind::A => "a",
            LinkKind::Area => "area",
            LinkKind::Iframe => "iframe",
            LinkKind::Redirect => "redirect",
            LinkKind::Canonical => "canonical",
            LinkKind::Hreflang => "hreflang",
            LinkKind::Refresh => "refresh",
            LinkKind::Sitemap => "sitemap",
        }
    }

    /// The kind the store wrote as `text`; `None` for no kind known.
    #[must_use]
    pub fn of_store(text: &str) -> Option<LinkKind> {
        LinkKind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// Its place in [`LinkKind::ALL`].
    #[must_use]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// Whether it is one of the [`LinkKind::SITE`] kinds.
    #[must_use]
    pub const fn is_site_link(self) -> bool {
        matches!(self, LinkKind::A | LinkKind::Area | LinkKind::Iframe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_read_back_as_written_and_indexed_in_order() {
        for (i, kind) in LinkKind::ALL.into_iter().enumerate() {
            assert_eq!(LinkKind::of_store(kind.as_str()), Some(kind));
            assert_eq!(usize::from(kind.index()), i);
        }
        assert_eq!(LinkKind::of_store("frame"), None);
        let site: Vec<LinkKind> = LinkKind::ALL
            .into_iter()
            .filter(|k| k.is_site_link())
            .collect();
        assert_eq!(site, LinkKind::SITE);
    }
}
