//! Headless Chromium for the tests of HTML pages: the DOM after loading and
//! a screenshot, from the Debian package `chromium` (`scripts/setup`
//! installs it) or the binary `BOTWARDEN_CHROMIUM` names.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a page may take to load and render.
const LIMIT: Duration = Duration::from_secs(90);

/// The Chromium binary: `BOTWARDEN_CHROMIUM`, or `chromium` on the `PATH`.
///
/// # Panics
/// When there is none, naming the package to install.
#[must_use]
pub fn binary() -> PathBuf {
    if let Some(p) = std::env::var_os("BOTWARDEN_CHROMIUM") {
        return PathBuf::from(p);
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("chromium"))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| {
            panic!(
                "chromium not found: install the Debian package `chromium` \
                 (scripts/setup does), or set BOTWARDEN_CHROMIUM to a Chromium binary"
            )
        })
}

/// Opens `url` (`file://…` or `http://…`) in headless Chromium with a
/// window of `width`×`height`, writes a screenshot to `png`, and returns
/// the DOM after loading. The browser's profile lives beside `png` and is
/// removed afterwards.
///
/// # Panics
/// When Chromium cannot start or takes longer than 90 s.
#[must_use]
pub fn render(url: &str, png: &Path, width: u32, height: u32) -> String {
    let bin = binary();
    let profile = png.with_extension("profile");
    let mut child = Command::new(&bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
        ])
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--dump-dom")
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e} (the Debian package is `chromium`)", bin.display()));
    // The DOM is read while Chromium writes it: a page larger than the
    // pipe's buffer would otherwise hold Chromium back from exiting.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut dom = Vec::new();
        stdout.read_to_end(&mut dom).map(|_| dom)
    });
    let deadline = Instant::now() + LIMIT;
    while child.try_wait().expect("wait for chromium").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within {} s", LIMIT.as_secs());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let dom = reader
        .join()
        .expect("reader thread")
        .expect("chromium's output");
    let _ = std::fs::remove_dir_all(&profile);
    String::from_utf8_lossy(&dom).into_owned()
}

/// Width and height of a PNG, from its `IHDR` chunk.
///
/// # Panics
/// When `png` is not a PNG.
#[must_use]
pub fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(
        png.len() > 24 && png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "not a PNG"
    );
    assert_eq!(&png[12..16], b"IHDR", "a PNG starts with its IHDR chunk");
    let word = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    (word(16), word(20))
}
