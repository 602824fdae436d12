//! A real NATS server with JetStream on loopback for the tests of logs
//! verified centrally: `nats-server -js` (Debian package `nats-server`,
//! installed by `scripts/setup`; `BOTWARDEN_NATS_SERVER` names another
//! binary) on a free port, its store in a temporary directory. The process
//! is killed when the handle is dropped; [`NatsServer::restart`] starts it
//! again on the same port and store, as after a crash.

use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::process::{TempDir, free_port, program};

/// Longest the server may take to accept connections.
const START: Duration = Duration::from_secs(30);

/// One `nats-server -js` process.
#[derive(Debug)]
pub struct NatsServer {
    child: Option<Child>,
    addr: SocketAddr,
    bin: PathBuf,
    temp: TempDir,
    config: Option<PathBuf>,
}

impl NatsServer {
    /// Starts a server with JetStream on a free loopback port.
    ///
    /// # Panics
    /// When `nats-server` is missing or does not accept connections in 30 s.
    #[must_use]
    pub fn start() -> Self {
        let bin = program("BOTWARDEN_NATS_SERVER", "nats-server", "nats-server");
        let temp = TempDir::new("nats");
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let mut server = Self {
            child: None,
            addr,
            bin,
            temp,
            config: None,
        };
        server.spawn();
        server
    }

    /// Starts a server as [`NatsServer::start`] does, with `config` (the
    /// server's configuration format: `authorization { … }`, `tls { … }`)
    /// read as its configuration file; the command line's port, address,
    /// JetStream store and log file win over it.
    ///
    /// # Panics
    /// As [`NatsServer::start`].
    #[must_use]
    pub fn start_with_config(config: &str) -> Self {
        let bin = program("BOTWARDEN_NATS_SERVER", "nats-server", "nats-server");
        let temp = TempDir::new("nats");
        let file = temp.path().join("nats.conf");
        std::fs::write(&file, config).expect("write nats.conf");
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let mut server = Self {
            child: None,
            addr,
            bin,
            temp,
            config: Some(file),
        };
        server.spawn();
        server
    }

    fn spawn(&mut self) {
        let store = self.temp.path().join("jetstream");
        let log = self.temp.path().join("nats.log");
        let mut command = Command::new(&self.bin);
        if let Some(config) = &self.config {
            command.arg("-c").arg(config);
        }
        let child = command
            .args(["-js", "-a", "127.0.0.1", "-p"])
            .arg(self.addr.port().to_string())
            .arg("-sd")
            .arg(&store)
            .arg("-l")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (the Debian package is `nats-server`)",
                    self.bin.display()
                )
            });
        self.child = Some(child);
        let deadline = Instant::now() + START;
        while TcpStream::connect_timeout(&self.addr, Duration::from_millis(200)).is_err() {
            assert!(
                Instant::now() < deadline,
                "nats-server on {} did not accept connections in {START:?}; its log: {}",
                self.addr,
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `nats://127.0.0.1:PORT`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("nats://{}", self.addr)
    }

    /// The server's log.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.temp.path().join("nats.log")).unwrap_or_default()
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the server if it runs and starts it again on the same port
    /// and JetStream store.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}
