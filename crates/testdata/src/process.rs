//! What the tests' server processes share: free loopback ports, the
//! program to start (an environment variable or the `PATH`), and a
//! temporary directory removed on drop.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

/// A free TCP port on 127.0.0.1, as the system hands it out, and never
/// one this process was given before: the system may hand the same free
/// port out twice in a row, and a server given two ports (Redis' client
/// and cluster-bus ports) would then fail to bind the second.
///
/// # Panics
/// When no port can be bound.
#[must_use]
pub fn free_port() -> u16 {
    static GIVEN: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    let mut given = GIVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("bind a free loopback port");
        if given.insert(port) {
            return port;
        }
    }
}

/// The program `env` names, or `name` found on the `PATH` (and in
/// `/usr/sbin`, where Debian puts servers).
///
/// # Panics
/// When there is none, naming the Debian package to install.
#[must_use]
pub fn program(env: &str, name: &str, package: &str) -> PathBuf {
    if let Some(p) = std::env::var_os(env) {
        return PathBuf::from(p);
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect())
        .unwrap_or_default();
    dirs.extend(["/usr/sbin", "/usr/bin"].map(PathBuf::from));
    dirs.into_iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{name} not found: install the Debian package `{package}` \
             (scripts/setup does), or set {env} to the program"
            )
        })
}

/// A fresh directory under the system's temporary directory, removed
/// with everything in it when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `botwarden-PREFIX-PID-N`.
    ///
    /// # Panics
    /// When the directory cannot be created.
    #[must_use]
    pub fn new(prefix: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("botwarden-{prefix}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("create {}: {e}", path.display()));
        Self(path)
    }

    /// The directory.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
