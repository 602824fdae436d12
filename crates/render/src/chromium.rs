//! The browser: started on demand, supervised, closed with the crawl.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use botwarden_crawl::{
    RenderFuture, RenderJob, RenderOutcome, RenderedPage, Renderer, ResourceGate,
};
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::handler::viewport::Viewport;
use futures_util::StreamExt as _;
use tokio::sync::{Mutex, Semaphore};
use tokio::task::JoinHandle;

use crate::tab::{self, TabConfig};

/// Why the browser could not be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No Chromium binary at the path given or on the `PATH`.
    #[error(
        "{0}: no Chromium there; install the Debian package `chromium` (scripts/setup does), or name the binary with --chromium"
    )]
    NotFound(String),
    /// The browser did not start, or its DevTools connection failed.
    #[error("Chromium ({binary}) did not start: {message}")]
    Launch {
        /// The binary.
        binary: String,
        /// What failed.
        message: String,
    },
}

/// How pages are rendered.
#[derive(Debug, Clone)]
pub struct ChromiumConfig {
    /// The Chromium binary.
    pub binary: PathBuf,
    /// Pages rendered at once at most.
    pub tabs: usize,
    /// The longest a page may take, from opening it to reading it.
    pub budget: Duration,
    /// How long no request may be in flight before the page is read.
    pub quiet: Duration,
    /// The `User-Agent` the page's scripts see (`navigator.userAgent`).
    pub user_agent: String,
    /// The window's width and height, in CSS pixels.
    pub window: (u32, u32),
}

impl ChromiumConfig {
    /// Two tabs, 20 s a page, 500 ms of quiet, a 1280×1024 window.
    #[must_use]
    pub fn new(binary: PathBuf, user_agent: String) -> ChromiumConfig {
        ChromiumConfig {
            binary,
            tabs: 2,
            budget: Duration::from_secs(20),
            quiet: Duration::from_millis(500),
            user_agent,
            window: (1280, 1024),
        }
    }
}

/// `chromium` on the `PATH` (Debian's package), or `None`.
#[must_use]
pub fn default_binary() -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .flat_map(|d| ["chromium", "chromium-browser", "google-chrome"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

/// Headless Chromium rendering pages for a crawl (crate docs).
pub struct Chromium {
    config: ChromiumConfig,
    tabs: Semaphore,
    session: Mutex<Option<Session>>,
    /// Browsers started, the first included.
    launches: AtomicU32,
}

/// A running browser.
struct Session {
    browser: Browser,
    handler: JoinHandle<()>,
    profile: PathBuf,
}

impl Chromium {
    /// Starts the browser, so that a missing or broken one is known
    /// before the crawl.
    ///
    /// # Errors
    /// [`Error::NotFound`] without a binary, [`Error::Launch`] when it
    /// does not start.
    pub async fn start(config: ChromiumConfig) -> Result<Arc<Chromium>, Error> {
        if !config.binary.is_file() {
            return Err(Error::NotFound(config.binary.display().to_string()));
        }
        let chromium = Arc::new(Chromium {
            tabs: Semaphore::new(config.tabs.max(1)),
            config,
            session: Mutex::new(None),
            launches: AtomicU32::new(0),
        });
        let session = chromium.launch().await?;
        *chromium.session.lock().await = Some(session);
        Ok(chromium)
    }

    /// Browsers started so far (more than one: the browser died and was
    /// started again).
    #[must_use]
    pub fn launches(&self) -> u32 {
        self.launches.load(Ordering::Relaxed)
    }

    /// Closes the browser and removes its profile.
    pub async fn close(&self) {
        if let Some(mut s) = self.session.lock().await.take() {
            s.shut().await;
        }
    }

    async fn launch(&self) -> Result<Session, Error> {
        let n = self.launches.fetch_add(1, Ordering::Relaxed);
        let profile = std::env::temp_dir().join(format!(
            "botwarden-chromium-{}-{n}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos())
        ));
        let fail = |message: String| Error::Launch {
            binary: self.config.binary.display().to_string(),
            message,
        };
        let config = browser_config(&self.config, &profile).map_err(fail)?;
        let (browser, mut handler) = Browser::launch(config)
            .await
            .map_err(|e| fail(e.to_string()))?;
        // The connection's events are read for as long as it lasts; an
        // event the protocol crate cannot read is passed over.
        let handler = tokio::spawn(async move { while handler.next().await.is_some() {} });
        Ok(Session {
            browser,
            handler,
            profile,
        })
    }

    /// Opens a tab in the running browser, starting it again if it died.
    async fn open_tab(&self) -> Result<chromiumoxide::Page, String> {
        let mut session = self.session.lock().await;
        if session.as_ref().is_none_or(|s| s.handler.is_finished()) {
            if let Some(mut dead) = session.take() {
                dead.shut().await;
            }
            *session = Some(self.launch().await.map_err(|e| e.to_string())?);
        }
        let s = session.as_ref().ok_or("no browser")?;
        s.browser
            .new_page("about:blank")
            .await
            .map_err(|e| format!("a tab could not be opened: {e}"))
    }

    async fn render_page(self: Arc<Self>, job: RenderJob, gate: ResourceGate) -> RenderedPage {
        let Ok(_permit) = self.tabs.acquire().await else {
            return failed("the browser was closed", Duration::ZERO);
        };
        let started = Instant::now();
        // A browser that died during the render is started again and the
        // page rendered once more.
        for attempt in 0..2 {
            let page = match self.open_tab().await {
                Ok(p) => p,
                Err(why) if attempt == 0 => {
                    self.mark_dead().await;
                    let _ = why;
                    continue;
                }
                Err(why) => return failed(&why, started.elapsed()),
            };
            let config = TabConfig {
                budget: self.config.budget,
                quiet: self.config.quiet,
                user_agent: &self.config.user_agent,
            };
            let rendered = tab::render(page, &job, &gate, &config).await;
            if rendered.outcome == RenderOutcome::Failed && attempt == 0 && self.is_dead().await {
                self.mark_dead().await;
                continue;
            }
            return rendered;
        }
        failed("the browser died twice", started.elapsed())
    }

    async fn is_dead(&self) -> bool {
        self.session
            .lock()
            .await
            .as_ref()
            .is_none_or(|s| s.handler.is_finished())
    }

    async fn mark_dead(&self) {
        if let Some(mut s) = self.session.lock().await.take() {
            s.shut().await;
        }
    }
}

impl Renderer for Chromium {
    fn tabs(&self) -> usize {
        self.config.tabs.max(1)
    }

    fn render(self: Arc<Self>, job: RenderJob, gate: ResourceGate) -> RenderFuture {
        Box::pin(self.render_page(job, gate))
    }
}

impl Session {
    /// Closes the browser (killed if it does not close), removes its
    /// profile.
    async fn shut(&mut self) {
        let closed = tokio::time::timeout(Duration::from_secs(5), self.browser.close()).await;
        if !matches!(closed, Ok(Ok(_))) {
            let _ = self.browser.kill().await;
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), self.browser.wait()).await;
        self.handler.abort();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// The browser's settings: headless, no sandbox (the crawl runs it on
/// its own pages' bytes only), nothing fetched of its own (no component
/// updates, no background networking), every request intercepted. Its
/// own network goes to a proxy that is a closed port of this machine,
/// loopback included: what the browser might try beside its requests (a
/// connection opened ahead of one, a preconnect) reaches no host.
fn browser_config(config: &ChromiumConfig, profile: &Path) -> Result<BrowserConfig, String> {
    let (width, height) = config.window;
    BrowserConfig::builder()
        .chrome_executable(&config.binary)
        .new_headless_mode()
        .no_sandbox()
        .user_data_dir(profile)
        .window_size(width, height)
        .viewport(Viewport {
            width,
            height,
            ..Viewport::default()
        })
        .enable_request_intercept()
        .launch_timeout(Duration::from_secs(30))
        .request_timeout(config.budget + Duration::from_secs(10))
        // Flags without their dashes: the builder writes them.
        .args([
            "disable-gpu",
            "disable-quic",
            "disable-dev-shm-usage",
            "no-first-run",
            "disable-background-networking",
            "disable-component-update",
            "disable-sync",
            "mute-audio",
            "hide-scrollbars",
            "dns-prefetch-disable",
            "proxy-server=http://127.0.0.1:9",
            "proxy-bypass-list=<-loopback>",
        ])
        .build()
}

fn failed(why: &str, elapsed: Duration) -> RenderedPage {
    RenderedPage {
        outcome: RenderOutcome::Failed,
        error: Some(why.to_owned()),
        html: None,
        final_url: None,
        requests: Vec::new(),
        elapsed,
    }
}
