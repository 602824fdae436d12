//! Integration tests of the service: each starts it on a free loopback
//! port, in process, and asks it over HTTP.

mod api;
mod cache;
mod gate;
mod haproxy;
mod hostile;
mod limits;
mod memory;
mod ops;
mod page;
mod rewrite_map;
mod signed;
mod webbotauth;

use std::net::SocketAddr;

use botwarden_serve::{Config, Service};
use tokio::sync::oneshot;

/// A registry with one bot verified by reverse DNS.
pub(crate) const REGISTRY: &str = "\
bots:
  - name: Searchbot
    category: search
    robots_tokens: [Searchbot]
    fcrdns_hosts: [searchbot.example]
";

/// A service running on a free port of 127.0.0.1 until dropped (then shut
/// down gracefully).
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    _dir: Option<TempDir>,
}

impl Running {
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Stops it and waits until it has stopped.
    pub(crate) async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.expect("the server task ends cleanly");
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A temporary directory, removed on drop.
pub(crate) struct TempDir(pub(crate) std::path::PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("botwarden-serve-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A configuration with the test registry only and no published ranges
/// directory of the machine's.
pub(crate) fn config(dir: &TempDir) -> Config {
    let registry = dir.0.join("registry.yaml");
    std::fs::write(&registry, REGISTRY).expect("write registry");
    let mut config = Config::default();
    config.no_default_registry = true;
    config.registry = vec![registry];
    config.ranges_dir = Some(dir.0.join("ranges"));
    config.listen = SocketAddr::from(([127, 0, 0, 1], 0));
    config
}

/// Starts the service with `config` on the current runtime.
pub(crate) async fn start(config: Config, dir: Option<TempDir>) -> Running {
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("bound");
    let service = Service::new(config).expect("the service starts");
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        service
            .run(listener, async {
                let _ = stopped.await;
            })
            .await
            .expect("serves");
    });
    Running {
        addr,
        stop: Some(stop),
        task: Some(task),
        _dir: dir,
    }
}

/// A plain HTTP client (no proxy from the environment).
pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client")
}
