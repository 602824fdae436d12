//! Servers that want credentials or speak TLS, for the tests of secrets:
//! certificates of a private CA made with `openssl` (Debian package
//! `openssl`), and a `redis-server` with `requirepass`, on a plain or a TLS
//! port (Debian's `redis-server` is built with TLS). NATS servers with
//! authorization or TLS are [`crate::nats::NatsServer::start_with_config`].

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::process::{TempDir, free_port, program};

/// Longest a server may take to come up.
const START: Duration = Duration::from_secs(30);

/// A private CA, a server certificate it signed for `127.0.0.1` and
/// `localhost`, and a client certificate; the files are removed on drop.
#[derive(Debug)]
pub struct Certs {
    temp: TempDir,
}

impl Certs {
    /// Makes the CA and the certificates (P-256 keys, valid two days).
    ///
    /// # Panics
    /// When `openssl` is missing or fails.
    #[must_use]
    pub fn generate() -> Self {
        let temp = TempDir::new("certs");
        let dir = temp.path();
        let ext = dir.join("ext.cnf");
        std::fs::write(
            &ext,
            "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n\
             extendedKeyUsage=serverAuth,clientAuth\n\
             subjectAltName=IP:127.0.0.1,DNS:localhost\n",
        )
        .expect("write ext.cnf");
        let key = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        openssl(
            dir,
            &["req", "-x509"],
            &key,
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=botwarden test CA",
            ],
        );
        for name in ["server", "client"] {
            let (k, csr, pem) = (
                format!("{name}.key"),
                format!("{name}.csr"),
                format!("{name}.pem"),
            );
            openssl(
                dir,
                &["req"],
                &key,
                &[
                    "-keyout",
                    &k,
                    "-out",
                    &csr,
                    "-subj",
                    &format!("/CN=botwarden test {name}"),
                ],
            );
            openssl(
                dir,
                &["x509", "-req"],
                &[],
                &[
                    "-in",
                    &csr,
                    "-CA",
                    "ca.pem",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-out",
                    &pem,
                    "-days",
                    "2",
                    "-extfile",
                    "ext.cnf",
                ],
            );
        }
        Self { temp }
    }

    /// The CA's certificate (PEM).
    #[must_use]
    pub fn ca(&self) -> PathBuf {
        self.temp.path().join("ca.pem")
    }

    /// The server's certificate (PEM), for `127.0.0.1` and `localhost`.
    #[must_use]
    pub fn server_cert(&self) -> PathBuf {
        self.temp.path().join("server.pem")
    }

    /// The server's private key (PEM).
    #[must_use]
    pub fn server_key(&self) -> PathBuf {
        self.temp.path().join("server.key")
    }

    /// A client certificate (PEM) the CA signed.
    #[must_use]
    pub fn client_cert(&self) -> PathBuf {
        self.temp.path().join("client.pem")
    }

    /// The client certificate's private key (PEM).
    #[must_use]
    pub fn client_key(&self) -> PathBuf {
        self.temp.path().join("client.key")
    }
}

fn openssl(dir: &Path, command: &[&str], key: &[&str], args: &[&str]) {
    let bin = program("BOTWARDEN_OPENSSL", "openssl", "openssl");
    let out = Command::new(&bin)
        .args(command)
        .args(key)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (the Debian package is `openssl`)", bin.display()));
    assert!(
        out.status.success(),
        "openssl {command:?} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A `redis-server` that wants a password, on a plain or a TLS port.
#[derive(Debug)]
pub struct SecuredRedis {
    child: Option<Child>,
    addr: SocketAddr,
    tls: bool,
    temp: TempDir,
}

impl SecuredRedis {
    /// Starts a standalone server on a free loopback port that wants
    /// `password` (`requirepass`); with `certs`, the port speaks TLS only
    /// (the server's certificate, no client certificate asked for).
    ///
    /// # Panics
    /// When `redis-server` is missing or does not come up in 30 s.
    #[must_use]
    pub fn start(password: &str, certs: Option<&Certs>) -> Self {
        let temp = TempDir::new("redis-secured");
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port();
            match spawn_redis(temp.path(), port, password, certs) {
                Ok(child) => {
                    return Self {
                        child: Some(child),
                        addr: SocketAddr::from(([127, 0, 0, 1], port)),
                        tls: certs.is_some(),
                        temp,
                    };
                }
                Err(log) => last = log,
            }
        }
        panic!("redis-server found no free port in five tries; its last log: {last}")
    }

    /// The server's address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `redis://127.0.0.1:PORT/` (`rediss://` on TLS), without the
    /// password.
    #[must_use]
    pub fn url(&self) -> String {
        let scheme = if self.tls { "rediss" } else { "redis" };
        format!("{scheme}://{}/", self.addr)
    }

    /// The server's log file.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.temp.path().join("redis.log")).unwrap_or_default()
    }

    /// Kills the server (SIGKILL).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts `redis-server` in `dir` on `port` and waits until it is ready;
/// `Err(its log)` when the port was taken.
fn spawn_redis(
    dir: &Path,
    port: u16,
    password: &str,
    certs: Option<&Certs>,
) -> Result<Child, String> {
    let mut config = format!(
        "bind 127.0.0.1\nprotected-mode no\ndir {}\nsave \"\"\nappendonly no\n\
         logfile redis.log\nrequirepass \"{password}\"\n",
        dir.display()
    );
    match certs {
        Some(c) => config.push_str(&format!(
            "port 0\ntls-port {port}\ntls-cert-file {}\ntls-key-file {}\n\
             tls-ca-cert-file {}\ntls-auth-clients no\n",
            c.server_cert().display(),
            c.server_key().display(),
            c.ca().display()
        )),
        None => config.push_str(&format!("port {port}\n")),
    }
    let conf = dir.join("redis.conf");
    std::fs::write(&conf, config).expect("write redis.conf");
    let log = dir.join("redis.log");
    let _ = std::fs::remove_file(&log);
    let bin = program("BOTWARDEN_REDIS_SERVER", "redis-server", "redis-server");
    let mut child = Command::new(&bin)
        .arg(&conf)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (the Debian package is `redis-server`)",
                bin.display()
            )
        });
    let deadline = Instant::now() + START;
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("Ready to accept connections") {
            return Ok(child);
        }
        if child.try_wait().ok().flatten().is_some() {
            assert!(
                text.contains("Address already in use"),
                "redis-server exited at start; its log: {text}"
            );
            return Err(text);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("redis-server did not start in {START:?}; its log: {text}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for SecuredRedis {
    fn drop(&mut self) {
        self.kill();
    }
}
