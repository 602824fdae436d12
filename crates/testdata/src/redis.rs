//! Real Redis servers on loopback for the tests of shared state: one
//! standalone server, or a Redis Cluster of several primaries, each a
//! `redis-server` process (Debian package `redis-server`, installed by
//! `scripts/setup`; `BOTWARDEN_REDIS_SERVER` names another binary, e.g.
//! Valkey's) on free ports, with its files in a temporary directory.
//! Every process is killed when its handle is dropped.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::process::{TempDir, free_port, program};

/// Longest a server or the cluster may take to come up.
const START: Duration = Duration::from_secs(30);

/// One `redis-server` process.
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    addr: SocketAddr,
    bus_port: u16,
    dir: PathBuf,
    _temp: Option<TempDir>,
}

impl RedisServer {
    /// Starts a standalone server on a free loopback port.
    ///
    /// # Panics
    /// When `redis-server` is missing or does not answer `PING` in 30 s.
    #[must_use]
    pub fn start() -> Self {
        let temp = TempDir::new("redis");
        let dir = temp.path().to_path_buf();
        let mut server = Self::spawn(&dir, false);
        server._temp = Some(temp);
        server
    }

    /// Starts a server in `dir`; when it cannot bind a port it was given
    /// (another process took it between the choice and the bind), again
    /// with new ports, up to five times.
    fn spawn(dir: &Path, cluster: bool) -> Self {
        let mut log = String::new();
        for _ in 0..5 {
            match Self::try_spawn(dir, cluster) {
                Ok(server) => return server,
                Err(text) if text.contains("Address already in use") => log = text,
                Err(text) => panic!(
                    "redis-server in {} exited at start; its log: {text}",
                    dir.display()
                ),
            }
        }
        panic!("redis-server found no free port in five tries; its last log: {log}")
    }

    fn try_spawn(dir: &Path, cluster: bool) -> Result<Self, String> {
        let bin = program("BOTWARDEN_REDIS_SERVER", "redis-server", "redis-server");
        let port = free_port();
        let bus_port = free_port();
        std::fs::create_dir_all(dir).expect("redis directory");
        let mut config = format!(
            "port {port}\nbind 127.0.0.1\nprotected-mode no\ndir {}\n\
             save \"\"\nappendonly no\nlogfile redis.log\n",
            dir.display()
        );
        if cluster {
            config.push_str(&format!(
                "cluster-enabled yes\ncluster-port {bus_port}\n\
                 cluster-config-file nodes.conf\ncluster-node-timeout 2000\n"
            ));
        }
        let conf = dir.join("redis.conf");
        std::fs::write(&conf, config).expect("write redis.conf");
        let _ = std::fs::remove_file(dir.join("redis.log"));
        let child = Command::new(&bin)
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
        let mut server = Self {
            child: Some(child),
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            bus_port,
            dir: dir.to_path_buf(),
            _temp: None,
        };
        let deadline = Instant::now() + START;
        while command(server.addr, &["PING"]).as_deref() != Some("+PONG") {
            if !server.is_running() {
                return Err(server.log());
            }
            assert!(
                Instant::now() < deadline,
                "redis-server on {} did not answer PING in {START:?}; its log: {}",
                server.addr,
                std::fs::read_to_string(dir.join("redis.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(server)
    }

    /// The server's address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `redis://127.0.0.1:PORT/`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("redis://{}/", self.addr)
    }

    /// Sends one command (arguments without spaces or line breaks) and
    /// returns the first line of the answer, e.g. `+OK`, `:3`, `$5`.
    #[must_use]
    pub fn command(&self, args: &[&str]) -> Option<String> {
        command(self.addr, args)
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the server (SIGKILL) and starts it again on the same port
    /// with the same configuration and no data: a crash of a server
    /// without persistence (no AOF, no snapshot yet). A cluster node keeps
    /// its cluster configuration (`nodes.conf`: its id and slots), as such
    /// a node does; this waits until it answers `PING` and, in a cluster,
    /// until it reports `cluster_state:ok` again.
    ///
    /// # Panics
    /// When the server does not come back in 30 s.
    pub fn restart_empty(&mut self) {
        self.kill();
        for name in ["dump.rdb", "appendonly.aof"] {
            let _ = std::fs::remove_file(self.dir.join(name));
        }
        let _ = std::fs::remove_dir_all(self.dir.join("appendonlydir"));
        self.start_again();
    }

    /// Starts the killed server again, on its port, from what it left in
    /// its directory.
    ///
    /// # Panics
    /// When the server does not come back in 30 s.
    pub fn start_again(&mut self) {
        self.kill();
        let bin = program("BOTWARDEN_REDIS_SERVER", "redis-server", "redis-server");
        let conf = self.dir.join("redis.conf");
        let cluster = std::fs::read_to_string(&conf)
            .unwrap_or_default()
            .contains("cluster-enabled yes");
        let deadline = Instant::now() + START;
        loop {
            let child = Command::new(&bin)
                .arg(&conf)
                .current_dir(&self.dir)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
            self.child = Some(child);
            while command(self.addr, &["PING"]).as_deref() != Some("+PONG")
                && self.is_running()
                && Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            if self.is_running() {
                break;
            }
            // The port may still be held for a moment after the kill.
            assert!(
                Instant::now() < deadline,
                "redis-server on {} did not start again; its log: {}",
                self.addr,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        while cluster
            && !info(self.addr, &["CLUSTER", "INFO"])
                .is_some_and(|text| text.contains("cluster_state:ok"))
        {
            assert!(
                Instant::now() < deadline,
                "the cluster node on {} did not rejoin in {START:?}",
                self.addr
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the process still runs.
    #[must_use]
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| c.try_wait().ok().flatten().is_none())
    }

    /// The server's log file.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A Redis Cluster of `n` primaries without replicas, its 16384 slots
/// split evenly, on free loopback ports.
#[derive(Debug)]
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
    _temp: TempDir,
}

impl RedisCluster {
    /// Starts `n` (at least 3, as Redis requires) cluster-enabled servers,
    /// assigns the slots, joins them and waits until every node reports
    /// `cluster_state:ok`.
    ///
    /// # Panics
    /// When a server does not start or the cluster does not form in 30 s.
    #[must_use]
    pub fn start(n: usize) -> Self {
        assert!(n >= 3, "a Redis Cluster needs at least 3 primaries");
        let temp = TempDir::new("redis-cluster");
        let nodes: Vec<RedisServer> = (0..n)
            .map(|i| RedisServer::spawn(&temp.path().join(format!("node{i}")), true))
            .collect();
        // Slots first, then the handshake: the same steps
        // `redis-cli --cluster create` takes, with core commands only.
        let per = 16384 / n;
        for (i, node) in nodes.iter().enumerate() {
            let first = i * per;
            let last = if i + 1 == n { 16383 } else { first + per - 1 };
            let range = format!("{first} {last}");
            let mut args = vec!["CLUSTER", "ADDSLOTSRANGE"];
            args.extend(range.split(' '));
            assert_eq!(
                node.command(&args).as_deref(),
                Some("+OK"),
                "ADDSLOTSRANGE on {}",
                node.addr
            );
        }
        let first = &nodes[0];
        for node in &nodes[1..] {
            let port = node.addr.port().to_string();
            let bus = node.bus_port.to_string();
            assert_eq!(
                first
                    .command(&["CLUSTER", "MEET", "127.0.0.1", &port, &bus])
                    .as_deref(),
                Some("+OK"),
                "CLUSTER MEET {}",
                node.addr
            );
        }
        let deadline = Instant::now() + START;
        loop {
            let ok = nodes.iter().all(|node| {
                info(node.addr, &["CLUSTER", "INFO"]).is_some_and(|text| {
                    text.contains("cluster_state:ok")
                        && text.contains(&format!("cluster_known_nodes:{n}"))
                })
            });
            if ok {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the Redis Cluster did not form in {START:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { nodes, _temp: temp }
    }

    /// The nodes, in the order of their slot ranges.
    #[must_use]
    pub fn nodes(&self) -> &[RedisServer] {
        &self.nodes
    }

    /// The nodes, to kill one.
    pub fn nodes_mut(&mut self) -> &mut [RedisServer] {
        &mut self.nodes
    }

    /// The index of the node that holds `key` (`CLUSTER KEYSLOT`, the
    /// slot ranges in order).
    ///
    /// # Panics
    /// When the first node does not answer.
    #[must_use]
    pub fn node_of(&self, key: &str) -> usize {
        let slot: usize = self.nodes[0]
            .command(&["CLUSTER", "KEYSLOT", key])
            .and_then(|l| l.strip_prefix(':').and_then(|n| n.parse().ok()))
            .expect("CLUSTER KEYSLOT");
        (slot / (16384 / self.nodes.len())).min(self.nodes.len() - 1)
    }

    /// `redis://ADDR/` of every node, comma-separated: the seed list a
    /// cluster client takes.
    #[must_use]
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }
}

/// Sends one command in RESP and returns the first line of the answer.
fn command(addr: SocketAddr, args: &[&str]) -> Option<String> {
    let mut reader = send(addr, args)?;
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    Some(line.trim_end().to_string())
}

/// Sends one command whose answer is a bulk string and returns its text.
fn info(addr: SocketAddr, args: &[&str]) -> Option<String> {
    let mut reader = send(addr, args)?;
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let len: usize = line.trim_end().strip_prefix('$')?.parse().ok()?;
    let mut body = vec![0; len + 2];
    std::io::Read::read_exact(&mut reader, &mut body).ok()?;
    body.truncate(len);
    String::from_utf8(body).ok()
}

fn send(addr: SocketAddr, args: &[&str]) -> Option<BufReader<TcpStream>> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut out = format!("*{}\r\n", args.len());
    for a in args {
        out.push_str(&format!("${}\r\n{a}\r\n", a.len()));
    }
    stream.write_all(out.as_bytes()).ok()?;
    Some(BufReader::new(stream))
}
