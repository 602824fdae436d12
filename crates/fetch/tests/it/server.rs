//! Test servers on 127.0.0.1: a real HTTP/1.1 server (hyper) answering from
//! a routing function, and raw TCP servers for misbehaviour.

use std::convert::Infallible;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What a request looks like to a routing function.
pub(crate) struct Asked<'a> {
    pub(crate) path: &'a str,
    pub(crate) query: &'a str,
    /// `127.0.0.1:port`.
    pub(crate) host: &'a str,
    /// `GET`, `HEAD`, …
    pub(crate) method: &'a str,
}

/// An answer.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: Vec<u8>,
    /// How long to wait before answering.
    pub(crate) delay: Duration,
}

impl Reply {
    pub(crate) fn new(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            delay: Duration::ZERO,
        }
    }

    pub(crate) fn text(body: impl Into<Vec<u8>>) -> Reply {
        Reply::new(200)
            .header("content-type", "text/plain")
            .body(body)
    }

    pub(crate) fn header(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }

    pub(crate) fn body(mut self, body: impl Into<Vec<u8>>) -> Reply {
        self.body = body.into();
        self
    }

    /// Answers after `delay`.
    pub(crate) fn delayed(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    fn into_response(self) -> Response<Full<Bytes>> {
        let mut response = Response::builder().status(self.status);
        for (name, value) in self.headers {
            response = response.header(name, value);
        }
        response
            .body(Full::new(Bytes::from(self.body)))
            .expect("a valid response")
    }
}

type Route = dyn Fn(&Asked<'_>) -> Reply + Send + Sync;

/// A real HTTP server on 127.0.0.1, running on the current runtime.
pub(crate) struct Server {
    pub(crate) addr: SocketAddr,
}

impl Server {
    pub(crate) async fn start(
        route: impl Fn(&Asked<'_>) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local address");
        let route: Arc<Route> = Arc::new(route);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let route = Arc::clone(&route);
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<Incoming>| {
                        let host = request
                            .headers()
                            .get("host")
                            .and_then(|h| h.to_str().ok())
                            .unwrap_or_default();
                        let asked = Asked {
                            path: request.uri().path(),
                            query: request.uri().query().unwrap_or(""),
                            host,
                            method: request.method().as_str(),
                        };
                        let reply = route(&asked);
                        let delay = reply.delay;
                        let response = reply.into_response();
                        async move {
                            if !delay.is_zero() {
                                tokio::time::sleep(delay).await;
                            }
                            Ok::<_, Infallible>(response)
                        }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Server { addr }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// What a raw server does with each connection.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Misbehaviour {
    /// Reads the request, then drops the connection without a word.
    Drop,
    /// Reads the request, sends headers and part of the body, then stalls.
    StallBody,
    /// Reads the request and never answers.
    StallHeaders,
}

/// A raw TCP server on 127.0.0.1 that misbehaves.
pub(crate) async fn raw(misbehaviour: Misbehaviour) -> SocketAddr {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                match misbehaviour {
                    Misbehaviour::Drop => drop(stream),
                    Misbehaviour::StallBody => {
                        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\
                                    Content-Length: 1000\r\n\r\nUser-agent: *\n";
                        let _ = stream.write_all(head.as_bytes()).await;
                        let _ = stream.flush().await;
                        tokio::time::sleep(Duration::from_secs(5)).await;
                    }
                    Misbehaviour::StallHeaders => {
                        tokio::time::sleep(Duration::from_secs(5)).await;
                    }
                }
            });
        }
    });
    addr
}

pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).expect("gzip");
    e.finish().expect("gzip")
}

pub(crate) fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).expect("zlib");
    e.finish().expect("zlib")
}

/// A brotli stream of uncompressed meta-blocks (RFC 7932 §9.2): valid
/// brotli that any decoder reads, written without an encoder.
pub(crate) fn brotli_stored(data: &[u8]) -> Vec<u8> {
    let mut w = BitWriter::default();
    w.put(0, 1); // WBITS: 16
    for block in data.chunks(1 << 16) {
        w.put(0, 1); // ISLAST
        w.put(0, 2); // MNIBBLES: 4
        w.put(block.len() as u64 - 1, 16); // MLEN - 1
        w.put(1, 1); // ISUNCOMPRESSED
        w.align();
        w.out.extend_from_slice(block);
    }
    w.put(1, 1); // ISLAST
    w.put(1, 1); // ISLASTEMPTY
    w.align();
    w.out
}

#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    bits: u32,
}

impl BitWriter {
    fn put(&mut self, value: u64, bits: u32) {
        self.acc |= value << self.bits;
        self.bits += bits;
        while self.bits >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.bits -= 8;
        }
    }

    fn align(&mut self) {
        if self.bits > 0 {
            self.out.push(self.acc as u8);
            self.acc = 0;
            self.bits = 0;
        }
    }
}
