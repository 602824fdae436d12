//! The frame of a User-Agent: whether it is a browser's or an app's whole
//! User-Agent, into which an app may have put its own name, and where the
//! device's name stands in it.
//!
//! A browser's User-Agent is `Mozilla/5.0 (platform; …) engine/…
//! browser/…`; an in-app browser, a webview or a desktop app built on a
//! browser engine keeps that frame and adds its own product (`…
//! Safari/537.36 Viber/19.3.0.0`, `… Chrome/114.0 Electron/25.9.2 …`). An
//! old phone's browser names its profile (`Profile/MIDP-2.0`,
//! `UP.Browser/6.2`); an app names its platform in the comment after its
//! own product (`Podcast/1.0 (iPhone; iOS 16.1)`, `Dalvik/2.1.0 (Linux;
//! U; Android 11; …)`). Such User-Agents are people's, whatever name the
//! app gives itself: only a crawler's own evidence (a crawler word, a
//! contact address, a registered bot, injected code) makes them a bot's,
//! never a word that apps' names hold too.
//!
//! A phone's model stands in its platform comment after the Android
//! version, up to its build (`(Linux; Android 13; Discovery SE Build/…)`,
//! `Instagram 307.0 Android (33/13; 450dpi; …; samsung; SM-S908B; …)`).
//! Models are named freely (`M bot 60`, `Spider 8`, `MAJESTIC TAB 371`,
//! `GT-S5830 - Forum: http://…`), so nothing found there counts.

use std::ops::Range;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// What kind of whole User-Agent a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FrameKind {
    /// `Mozilla/x.y (platform; …)` with a browser engine, or Internet
    /// Explorer's `Mozilla/4.0 (compatible; MSIE 6.0; Windows …)`, or
    /// `Opera/9.80 (platform; …) Presto/…`.
    Browser,
    /// An old phone's browser: its Java profile (`MIDP`, `CLDC`) or its
    /// browser (`UP.Browser`, `UCWEB`, `Opera Mini`, `NetFront`, `Obigo`,
    /// `MAUI`, …).
    Phone,
    /// `Name/version (… platform …)`: an app's or an old browser's product
    /// first, then a comment that names the platform it runs on.
    App,
}

/// The frame of one User-Agent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Frame {
    /// The kind of whole User-Agent it is, or `None` for one of no
    /// browser's or app's frame.
    pub(crate) kind: Option<FrameKind>,
    /// Where a phone's model stands: the entries of the platform comment
    /// after the Android version, or the comment after `Android`.
    pub(crate) device: Option<Range<usize>>,
    /// Where the first product's name ends, for an app's frame (to check
    /// that the name is not a library's or a bot's).
    pub(crate) first_name: Option<Range<usize>>,
}

/// Platforms, as browsers and apps name them in their comments (found as
/// written). Also what spares `Mozilla/x.y (compatible; X; platform)` from
/// having no browser's shape.
pub(crate) const PLATFORMS: &[&str] = &[
    "Windows",
    "Win95",
    "Win98",
    "Win 9x",
    "WinNT",
    "Win32",
    "Win16",
    "Win3",
    "Macintosh",
    "Mac OS",
    "Mac_PowerPC",
    "Mac_PPC",
    "Mac_68",
    "X11",
    "Linux",
    "Android",
    "iPhone",
    "iPad",
    "iPod",
    "iOS",
    "CrOS",
    "BlackBerry",
    "BB10",
    "PlayBook",
    "Tizen",
    "KaiOS",
    "KAIOS",
    "webOS",
    "Web0S",
    "Symbian",
    "SymbOS",
    "Series40",
    "Series60",
    "PalmOS",
    "PalmSource",
    "Sailfish",
    "Amiga",
    "AROS",
    "MorphOS",
    "BeOS",
    "Haiku",
    "OS/2",
    "RISC OS",
    "RISCOS",
    "SunOS",
    "Solaris",
    "IRIX",
    "HP-UX",
    "AIX",
    "FreeBSD",
    "OpenBSD",
    "NetBSD",
    "DragonFly",
    "OpenVMS",
    "Unix",
    "UNIX",
    "NeXT",
    "QNX",
    "PlayStation",
    "Nintendo",
    "Xbox",
    "SmartTV",
    "SMART-TV",
    "Fuchsia",
    "Ubuntu",
    "Fedora",
];

/// Browser engines (found as written).
const ENGINES: &[&str] = &[
    "AppleWebKit",
    "Gecko/",
    "like Gecko",
    "KHTML",
    "Presto/",
    "Trident/",
    "Goanna/",
    "Servo/",
];

/// Old phones' browsers and Java profiles (found as written).
pub(crate) const PHONE_MARKS: &[&str] = &[
    "MIDP",
    "CLDC",
    "UP.Browser",
    "UP.Link",
    "UCWEB",
    "UCBrowser",
    "Opera Mini",
    "NetFront",
    "Obigo",
    "MAUI",
    "Teleca",
    "Openwave",
    "Polaris",
    "DoCoMo/",
    "KDDI-",
    "SoftBank/",
    "Vodafone/",
    "J-PHONE/",
    "BREW",
    "Series60",
    "Series40",
];

/// What the marks of a User-Agent are found for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Platform,
    Engine,
    Phone,
}

/// The platforms, engines and phones' marks, found in one pass.
pub(crate) struct Marks {
    automaton: AhoCorasick,
    classes: Vec<Class>,
}

/// How a User-Agent starts: a browser's product and its comment, or an
/// app's.
enum Lead {
    /// `Mozilla/x.y (` or `Opera/x.y (`: where the comment starts (its
    /// `(`), and its text.
    Browser {
        open: usize,
        comment: Range<usize>,
        opera: bool,
    },
    /// `Name/version (` or `Name version (`: where the name ends, and the
    /// comment's text.
    App {
        name_end: usize,
        comment: Range<usize>,
    },
    None,
}

/// The text of the parenthesised comment that starts at `open` (a `(`),
/// without its parentheses (to the end of the text when it is not
/// closed). Nested parentheses are kept.
fn comment(ua: &str, open: usize) -> Range<usize> {
    let mut depth = 0usize;
    for (i, b) in ua.bytes().enumerate().skip(open) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return open + 1..i;
                }
            }
            _ => {}
        }
    }
    open + 1..ua.len()
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// How `ua` starts.
fn lead(ua: &str) -> Lead {
    let browser = match strip_prefix_ignore_case(ua, "Mozilla/") {
        Some(rest) => Some((rest, false)),
        None => ua.strip_prefix("Opera/").map(|rest| (rest, true)),
    };
    if let Some((rest, opera)) = browser {
        let version_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let after = rest[version_end..].trim_start();
        if !after.starts_with('(') {
            return Lead::None;
        }
        let open = ua.len() - after.len();
        return Lead::Browser {
            open,
            comment: comment(ua, open),
            opera,
        };
    }
    let Some(open) = ua.find('(') else {
        return Lead::None;
    };
    let head = &ua[..open];
    // `Name/version` or `Name version`.
    let name_end = head.find('/').or_else(|| {
        let space = head.find(' ')?;
        head[space + 1..]
            .starts_with(|c: char| c.is_ascii_digit())
            .then_some(space)
    });
    match name_end {
        Some(name_end) if name_end > 0 => Lead::App {
            name_end,
            comment: comment(ua, open),
        },
        _ => Lead::None,
    }
}

impl Marks {
    pub(crate) fn new() -> Result<Self, aho_corasick::BuildError> {
        let lists = [
            (Class::Platform, PLATFORMS),
            (Class::Engine, ENGINES),
            (Class::Phone, PHONE_MARKS),
        ];
        let mut patterns = Vec::new();
        let mut classes = Vec::new();
        for (class, list) in lists {
            patterns.extend_from_slice(list);
            classes.extend(std::iter::repeat_n(class, list.len()));
        }
        let automaton = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .build(&patterns)?;
        Ok(Self { automaton, classes })
    }

    /// The frame of `ua`.
    #[cfg(test)]
    pub(crate) fn frame(&self, ua: &str) -> Frame {
        let mut frame = Frame::device_only(ua);
        self.read_kind(ua, &mut frame);
        frame
    }

    /// Reads the kind of frame of `ua` (and the first product's name, for
    /// an app's) into `frame`.
    pub(crate) fn read_kind(&self, ua: &str, frame: &mut Frame) {
        let lead = lead(ua);
        let comment = match &lead {
            Lead::Browser { comment, .. } | Lead::App { comment, .. } => comment.clone(),
            Lead::None => 0..0,
        };
        let engines_from = match lead {
            Lead::Browser { open, .. } => open,
            _ => ua.len(),
        };
        let (mut platform, mut engine, mut phone) = (false, false, false);
        for m in self.automaton.find_overlapping_iter(ua) {
            match self.classes[m.pattern().as_usize()] {
                Class::Platform => {
                    platform |= m.start() >= comment.start && m.end() <= comment.end;
                }
                Class::Engine => engine |= m.start() >= engines_from,
                Class::Phone => phone = true,
            }
        }
        frame.kind = match lead {
            Lead::Browser { opera, .. }
                if platform && (opera || engine || internet_explorer(&ua[comment])) =>
            {
                Some(FrameKind::Browser)
            }
            _ if phone => Some(FrameKind::Phone),
            Lead::App { name_end, .. } if platform => {
                frame.first_name = Some(0..name_end);
                Some(FrameKind::App)
            }
            _ => None,
        };
    }
}

/// Whether a first comment is Internet Explorer's, or a browser's that
/// copies it (`compatible; MSIE 6.0; Windows NT 5.1`).
fn internet_explorer(comment: &str) -> bool {
    let mut entries = comment.split(';').map(str::trim);
    entries
        .next()
        .is_some_and(|e| e.eq_ignore_ascii_case("compatible"))
        && entries.any(|e| e.starts_with("MSIE "))
}

impl Frame {
    /// A frame of no kind yet, with where `ua`'s phone model stands.
    pub(crate) fn device_only(ua: &str) -> Frame {
        Frame {
            device: device(ua),
            ..Frame::default()
        }
    }

    /// Whether `at` lies in the device's name.
    pub(crate) fn in_device(&self, at: &Range<usize>) -> bool {
        self.device
            .as_ref()
            .is_some_and(|d| at.start >= d.start && at.start < d.end)
    }
}

/// Where a phone's model stands: the entries after `Android …` in a
/// comment, up to its build's entry or else its end, or the whole comment
/// right after `Android`.
fn device(ua: &str) -> Option<Range<usize>> {
    let mut from = 0;
    while let Some(at) = ua[from..].find("Android") {
        let at = from + at;
        from = at + "Android".len();
        if ua
            .as_bytes()
            .get(from)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            continue;
        }
        let before = ua[..at].trim_end().as_bytes().last().copied();
        let after = ua[from..].trim_start();
        if matches!(before, Some(b'(' | b';')) {
            // An entry of a comment: the model follows, to the comment's end.
            let start = from + ua[from..].find([';', ')'])?;
            if ua.as_bytes()[start] == b')' {
                return None;
            }
            // To the entry of the build (`Build/NRD90M`) if there is one:
            // what follows it is not the model (`…; Pixel 2
            // Build/OPD3.170816.012; Storebot-Google/1.0)`).
            let mut end = comment_end(ua, start);
            if let Some(build) = ua[start..end].find("Build/") {
                let build = start + build;
                end = ua[build..end].find(';').map_or(end, |semi| build + semi);
            }
            return (start + 1 < end).then_some(start + 1..end);
        }
        if after.starts_with('(') {
            // `Android (…)`: an app's comment of device details.
            let open = ua.len() - after.len();
            return Some(comment(ua, open));
        }
    }
    None
}

/// Where the comment that `at` is in ends (its `)`), or the end of `ua`.
fn comment_end(ua: &str, at: usize) -> usize {
    let mut depth = 0usize;
    for (i, b) in ua.bytes().enumerate().skip(at) {
        match b {
            b'(' => depth += 1,
            b')' if depth == 0 => return i,
            b')' => depth -= 1,
            _ => {}
        }
    }
    ua.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(ua: &str) -> Option<FrameKind> {
        Marks::new().unwrap().frame(ua).kind
    }

    fn device_of(ua: &str) -> Option<&str> {
        Marks::new().unwrap().frame(ua).device.map(|d| &ua[d])
    }

    #[test]
    fn browsers_in_app_browsers_and_desktop_apps() {
        for ua in [
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
             Chrome/120.0.0.0 Safari/537.36",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
            "Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko",
            "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)",
            "Opera/9.80 (Windows NT 6.1; U; en) Presto/2.12.388 Version/12.16",
            "Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) \
             AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/110.0.5481.153 Mobile \
             Safari/537.36 Viber/19.3.0.0",
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like \
             Gecko) Code/1.84.2 Chrome/114.0.5735.289 Electron/25.9.2 Safari/537.36",
        ] {
            assert_eq!(kind(ua), Some(FrameKind::Browser), "{ua}");
        }
        for ua in [
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            "Mozilla/5.0 (compatible; IBrowse 3.0; AmigaOS4.0)",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) python-requests/2.31",
            "Mozilla/5.0",
        ] {
            assert_ne!(kind(ua), Some(FrameKind::Browser), "{ua}");
        }
    }

    #[test]
    fn phones_and_apps() {
        assert_eq!(
            kind("Nokia6230/2.0 (04.44) Profile/MIDP-2.0 Configuration/CLDC-1.1"),
            Some(FrameKind::Phone)
        );
        assert_eq!(
            kind("NCSA_Mosaic/2.7b5 (X11;Linux 2.6.7 i686) libwww/2.12 modified"),
            Some(FrameKind::App)
        );
        assert_eq!(
            kind("Dalvik/2.1.0 (Linux; U; Android 11; SM-A105F Build/RP1A.200720.012)"),
            Some(FrameKind::App)
        );
        assert_eq!(kind("curl/8.5.0"), None);
        assert_eq!(kind("Foo/1.0 (+https://example.com/bot)"), None);
        assert_eq!(kind("NetPositive/2.2"), None);
    }

    #[test]
    fn the_device_of_a_phone() {
        assert_eq!(
            device_of(
                "Mozilla/5.0 (Linux; Android 7.0; M bot 60 Build/NRD90M) AppleWebKit/537.36 \
                 (KHTML, like Gecko) Chrome/58.0 Mobile Safari/537.36"
            ),
            Some(" M bot 60 Build/NRD90M")
        );
        assert_eq!(
            device_of(
                "Mozilla/5.0 (Linux; U; Android 4.0.3; en-us; Ainol Novo 7 Aurora \
                 (TabletWarehouseUSA.com) Build/IML74K) AppleWebKit/534.30"
            ),
            Some(" en-us; Ainol Novo 7 Aurora (TabletWarehouseUSA.com) Build/IML74K")
        );
        assert_eq!(
            device_of("Instagram 307.0 Android (33/13; 450dpi; samsung; SM-S908B; b0q)"),
            Some("33/13; 450dpi; samsung; SM-S908B; b0q")
        );
        assert_eq!(
            device_of(
                "Mozilla/5.0 (Linux; Android 8.0; Pixel 2 Build/OPD3.170816.012; \
                 Storebot-Google/1.0) AppleWebKit/537.36"
            ),
            Some(" Pixel 2 Build/OPD3.170816.012")
        );
        assert_eq!(
            device_of("Mozilla/5.0 (Linux; Android 10) AppleWebKit/537.36"),
            None
        );
        assert_eq!(device_of("Mozilla/5.0 (compatible; AndroidBot/1.0)"), None);
    }
}
