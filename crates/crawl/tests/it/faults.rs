//! A fault-injecting HTTP server on 127.0.0.1, an axum app, for the
//! crawler's tests: each request is answered by a script.
//!
//! The script language: a path's answers are a list of [`Act`]s, the
//! path's first request gets the first, its second the second, and the last
//! repeats ([`Script::path`]); what no path names is decided by a function
//! of the path, the path's request index and the server's request index
//! ([`Script::fallback`]). An act is a status, headers (`Retry-After`
//! among them), a body (bytes, or any number of zero bytes streamed), a
//! delay before the answer, or a reset of the connection instead of an
//! answer; and a [`Gate`] an act waits for or opens, to order what happens
//! on different servers without a clock.
//!
//! The server counts what the tests assert: connections accepted, bytes
//! written to the sockets, and every request (path, indexes, connection,
//! HTTP version, when it came).

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::connect_info::Connected;
use axum::extract::{ConnectInfo, Request, State};
use axum::response::Response;
use axum::serve::{IncomingStream, Listener};
use hyper::body::{Bytes, Frame};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// What the server does with one request.
#[derive(Debug, Clone)]
pub(crate) struct Act {
    status: u16,
    headers: Vec<(String, String)>,
    body: Payload,
    delay: Duration,
    reset: bool,
    waits_for: Option<Gate>,
    opens: Option<Gate>,
}

/// A gate, shut until an act opens it; acts wait for it before answering.
#[derive(Debug, Clone)]
pub(crate) struct Gate(Arc<tokio::sync::watch::Sender<bool>>);

impl Gate {
    pub(crate) fn new() -> Gate {
        Gate(Arc::new(tokio::sync::watch::channel(false).0))
    }

    pub(crate) fn is_open(&self) -> bool {
        *self.0.borrow()
    }
}

#[derive(Debug, Clone)]
enum Payload {
    Bytes(Vec<u8>),
    /// This many zero bytes, streamed in chunks.
    Zeros(u64),
}

impl Act {
    /// An empty answer with `status`.
    pub(crate) fn status(status: u16) -> Act {
        Act {
            status,
            headers: Vec::new(),
            body: Payload::Bytes(Vec::new()),
            delay: Duration::ZERO,
            reset: false,
            waits_for: None,
            opens: None,
        }
    }

    /// `200`, `text/plain`.
    pub(crate) fn text(body: &str) -> Act {
        Act::status(200)
            .header("content-type", "text/plain")
            .body(body)
    }

    /// `200`, an HTML page with `body` in its `<body>`.
    pub(crate) fn html(body: &str) -> Act {
        Act::status(200)
            .header("content-type", "text/html; charset=utf-8")
            .body(format!(
                "<!doctype html><html><head><title>t</title></head><body>{body}</body></html>"
            ))
    }

    /// The connection is reset (RST) once the request is read: no answer.
    pub(crate) fn reset() -> Act {
        Act {
            reset: true,
            ..Act::status(200)
        }
    }

    /// A header.
    pub(crate) fn header(mut self, name: &str, value: impl Into<String>) -> Act {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// `Retry-After: value`.
    pub(crate) fn retry_after(self, value: &str) -> Act {
        self.header("retry-after", value)
    }

    /// The body.
    pub(crate) fn body(mut self, body: impl Into<Vec<u8>>) -> Act {
        self.body = Payload::Bytes(body.into());
        self
    }

    /// A body of `n` zero bytes, streamed (with its `Content-Length`).
    pub(crate) fn zeros(mut self, n: u64) -> Act {
        self.body = Payload::Zeros(n);
        self
    }

    /// Answers only once `gate` is open.
    pub(crate) fn waits_for(mut self, gate: &Gate) -> Act {
        self.waits_for = Some(gate.clone());
        self
    }

    /// Opens `gate` as it answers.
    pub(crate) fn opens(mut self, gate: &Gate) -> Act {
        self.opens = Some(gate.clone());
        self
    }

    /// Waits this long before answering (or resetting).
    pub(crate) fn delay(mut self, delay: Duration) -> Act {
        self.delay = delay;
        self
    }
}

/// Which request an act answers: the path, its request index (from 0) among
/// the requests for that path, and among all the server's requests.
pub(crate) struct Asked<'a> {
    pub(crate) path: &'a str,
    pub(crate) index: usize,
    pub(crate) global: usize,
}

type Fallback = dyn Fn(&Asked<'_>) -> Act + Send + Sync;

/// The answers of a server.
pub(crate) struct Script {
    paths: HashMap<String, Vec<Act>>,
    fallback: Box<Fallback>,
}

impl Script {
    /// Every request answered `404`.
    pub(crate) fn new() -> Script {
        Script {
            paths: HashMap::new(),
            fallback: Box::new(|_| Act::status(404)),
        }
    }

    /// The answers for `path` (without the query), in order; the last
    /// repeats.
    pub(crate) fn path(mut self, path: &str, acts: impl IntoIterator<Item = Act>) -> Script {
        let acts: Vec<Act> = acts.into_iter().collect();
        assert!(!acts.is_empty(), "a path needs at least one act");
        self.paths.insert(path.to_owned(), acts);
        self
    }

    /// The answer to a request for a path not named.
    pub(crate) fn fallback(
        mut self,
        f: impl Fn(&Asked<'_>) -> Act + Send + Sync + 'static,
    ) -> Script {
        self.fallback = Box::new(f);
        self
    }
}

/// One request, as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) path: String,
    /// The connection it came on, from 1 in the order accepted.
    pub(crate) connection: u64,
    /// `HTTP/1.1`, `HTTP/2.0`.
    pub(crate) version: String,
    /// When the request came.
    pub(crate) at: Instant,
    /// When it was answered (or reset).
    pub(crate) answered: Option<Instant>,
}

#[derive(Default)]
struct Counters {
    accepted: AtomicU64,
    written: AtomicU64,
    seen: Mutex<Vec<Seen>>,
    per_path: Mutex<HashMap<String, usize>>,
}

/// A running fault server.
pub(crate) struct FaultServer {
    pub(crate) addr: SocketAddr,
    counters: Arc<Counters>,
}

impl FaultServer {
    /// Serves `script` on 127.0.0.1 (HTTP/1.1, and HTTP/2 to a client that
    /// starts with its preface: h2c with prior knowledge).
    pub(crate) async fn start(script: Script) -> FaultServer {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local address");
        let counters = Arc::new(Counters::default());
        let state = App {
            script: Arc::new(script),
            counters: Arc::clone(&counters),
        };
        let app = Router::new().fallback(answer).with_state(state);
        let listener = Tapping {
            inner: listener,
            counters: Arc::clone(&counters),
        };
        tokio::spawn(async move {
            let _ = axum::serve(listener, app.into_make_service_with_connect_info::<Conn>()).await;
        });
        FaultServer { addr, counters }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Connections accepted so far.
    pub(crate) fn connections(&self) -> u64 {
        self.counters.accepted.load(Ordering::SeqCst)
    }

    /// Bytes written to all connections so far (heads and bodies).
    pub(crate) fn written(&self) -> u64 {
        self.counters.written.load(Ordering::SeqCst)
    }

    /// Every request so far, in the order they came.
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.counters.seen.lock().expect("seen").clone()
    }

    /// Requests for `path` so far.
    pub(crate) fn hits(&self, path: &str) -> usize {
        self.counters
            .per_path
            .lock()
            .expect("per path")
            .get(path)
            .copied()
            .unwrap_or(0)
    }
}

#[derive(Clone)]
struct App {
    script: Arc<Script>,
    counters: Arc<Counters>,
}

async fn answer(
    State(app): State<App>,
    ConnectInfo(conn): ConnectInfo<Conn>,
    request: Request,
) -> Response {
    let path = request.uri().path().to_owned();
    let (index, global, slot) = {
        let mut per_path = app.counters.per_path.lock().expect("per path");
        let n = per_path.entry(path.clone()).or_insert(0);
        let index = *n;
        *n += 1;
        let mut seen = app.counters.seen.lock().expect("seen");
        seen.push(Seen {
            path: path.clone(),
            connection: conn.0.id,
            version: format!("{:?}", request.version()),
            at: Instant::now(),
            answered: None,
        });
        (index, seen.len() - 1, seen.len() - 1)
    };
    let act = match app.script.paths.get(&path) {
        Some(acts) => acts[index.min(acts.len() - 1)].clone(),
        None => (app.script.fallback)(&Asked {
            path: &path,
            index,
            global,
        }),
    };
    if let Some(gate) = &act.waits_for {
        let mut open = gate.0.subscribe();
        let _ = open.wait_for(|o| *o).await;
    }
    if !act.delay.is_zero() {
        tokio::time::sleep(act.delay).await;
    }
    if let Some(gate) = &act.opens {
        gate.0.send_replace(true);
    }
    app.counters.seen.lock().expect("seen")[slot].answered = Some(Instant::now());
    if act.reset {
        // The answer below is never written: the connection's next write
        // fails and the socket closes with a reset.
        conn.0.killed.store(true, Ordering::SeqCst);
    }
    let mut response = Response::builder().status(act.status);
    for (name, value) in &act.headers {
        response = response.header(name, value);
    }
    let body = match act.body {
        Payload::Bytes(b) => Body::from(b),
        Payload::Zeros(n) => {
            response = response.header("content-length", n.to_string());
            Body::new(Zeros { left: n })
        }
    };
    response.body(body).expect("a valid response")
}

/// `n` zero bytes, 64 KiB at a time.
struct Zeros {
    left: u64,
}

static CHUNK: [u8; 65_536] = [0; 65_536];

impl hyper::body::Body for Zeros {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let n = self.left.min(CHUNK.len() as u64);
        self.left -= n;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
            &CHUNK[..n as usize],
        )))))
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        hyper::body::SizeHint::with_exact(self.left)
    }
}

/// One accepted connection, as the handler knows it.
#[derive(Clone)]
struct Conn(Arc<ConnState>);

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "connection {}", self.0.id)
    }
}

struct ConnState {
    id: u64,
    killed: AtomicBool,
}

impl Connected<IncomingStream<'_, Tapping>> for Conn {
    fn connect_info(stream: IncomingStream<'_, Tapping>) -> Conn {
        stream.remote_addr().clone()
    }
}

/// The listener: counts connections and taps their writes.
struct Tapping {
    inner: TcpListener,
    counters: Arc<Counters>,
}

impl Listener for Tapping {
    type Io = Tapped;
    type Addr = Conn;

    async fn accept(&mut self) -> (Tapped, Conn) {
        loop {
            match self.inner.accept().await {
                Ok((stream, _)) => {
                    let id = self.counters.accepted.fetch_add(1, Ordering::SeqCst) + 1;
                    let conn = Conn(Arc::new(ConnState {
                        id,
                        killed: AtomicBool::new(false),
                    }));
                    let io = Tapped {
                        stream,
                        conn: conn.clone(),
                        counters: Arc::clone(&self.counters),
                    };
                    return (io, conn);
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<Conn> {
        Ok(Conn(Arc::new(ConnState {
            id: 0,
            killed: AtomicBool::new(false),
        })))
    }
}

/// A connection whose writes are counted, and that a reset act kills.
struct Tapped {
    stream: TcpStream,
    conn: Conn,
    counters: Arc<Counters>,
}

impl Tapped {
    fn killed(&self) -> Option<io::Error> {
        if !self.conn.0.killed.load(Ordering::SeqCst) {
            return None;
        }
        // Closing with a zero linger sends RST instead of FIN.
        let _ = self.stream.set_zero_linger();
        Some(io::Error::from(io::ErrorKind::ConnectionReset))
    }
}

impl AsyncRead for Tapped {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(e) = self.killed() {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Tapped {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Some(e) = self.killed() {
            return Poll::Ready(Err(e));
        }
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &polled {
            self.counters.written.fetch_add(*n as u64, Ordering::SeqCst);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(e) = self.killed() {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
