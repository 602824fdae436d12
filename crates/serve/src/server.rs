//! The server loop: connections accepted (at most `max_connections`),
//! each served by hyper (HTTP/1.1, and HTTP/2 with prior knowledge) and
//! closed when it sends no request within `header_timeout`; `GET /verify`
//! answered directly, every other request through the router.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower_service::Service as _;

use crate::connections::{Activity, Busy, Sending};
use crate::gate;
use crate::metrics::Route;
use crate::router::tracked;
use crate::state::{Inner, Shared};

/// The most bytes hyper buffers of an HTTP/1.1 connection's input: a
/// request line and headers (permalinks' targets are under 64 KiB), or
/// body bytes not yet taken.
const HTTP1_BUFFER: usize = 80 * 1024;
/// HTTP/2 flow control: the bytes of request bodies a client may send on
/// one connection, and on one stream, before the service has taken them.
const HTTP2_CONNECTION_WINDOW: u32 = 256 * 1024;
const HTTP2_STREAM_WINDOW: u32 = 128 * 1024;
/// The most bytes of one HTTP/2 request's header fields, decoded.
const HTTP2_HEADER_LIST: u32 = 16 * 1024;
/// The most bytes of an answer queued on one HTTP/2 stream.
const HTTP2_SEND_BUFFER: usize = 64 * 1024;

/// Serves `app` on `listener` until `shutdown` completes, then stops
/// taking connections and waits for the requests in flight.
pub(crate) async fn serve(
    inner: Shared,
    app: Router,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let http = Arc::new(http(&inner));
    // Connections watch `stop`; `serve` returns once every one of them
    // has dropped its receiver.
    let (stop, stopping) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of descriptors or a connection reset before
                    // it was taken: wait a little rather than spin.
                    tracing::warn!(error = %e, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(activity) = inner.connections.open(&inner.metrics) else {
            // Full, and every connection has a request in flight.
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection = Connection {
            inner: Arc::clone(&inner),
            app: app.clone(),
            http: Arc::clone(&http),
            activity,
            peer,
        };
        tokio::spawn(connection.serve(stream, stopping.clone()));
    }
    drop(stopping);
    let _ = stop.send(true);
    stop.closed().await;
}

/// hyper's server with the service's bounds. `header_timeout` is kept
/// by each connection's watchdog (no request in flight for that long:
/// closed), which covers a request whose headers come slowly: no timer
/// per request.
fn http(inner: &Inner) -> Builder<TokioExecutor> {
    let mut http = Builder::new(TokioExecutor::new());
    http.http1()
        .header_read_timeout(None)
        .max_buf_size(HTTP1_BUFFER);
    http.http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(inner.config.http2_max_streams)
        .initial_connection_window_size(HTTP2_CONNECTION_WINDOW)
        .initial_stream_window_size(HTTP2_STREAM_WINDOW)
        .max_header_list_size(HTTP2_HEADER_LIST)
        .max_send_buf_size(HTTP2_SEND_BUFFER);
    http
}

/// One connection accepted: counted among those open until it ends.
struct Connection {
    inner: Shared,
    app: Router,
    http: Arc<Builder<TokioExecutor>>,
    activity: Arc<Activity>,
    peer: SocketAddr,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.inner.connections.close(self.activity.id);
    }
}

impl Connection {
    /// Serves the connection's requests until it ends, sends no request
    /// within `header_timeout`, is told to make room, or the service
    /// stops (then the requests in flight are finished).
    async fn serve(self, stream: TcpStream, mut stopping: watch::Receiver<bool>) {
        let peer = self.peer;
        let idle_limit = Duration::from_secs_f64(self.inner.config.header_timeout);
        let service = {
            let (inner, app, watched) = (
                Arc::clone(&self.inner),
                self.app.clone(),
                Arc::clone(&self.activity),
            );
            hyper::service::service_fn(move |request: Request<Incoming>| {
                let busy = Busy::begin(&watched);
                let app = (!is_direct(&request)).then(|| app.clone());
                answer(Arc::clone(&inner), app, peer, request, busy)
            })
        };
        let connection = self.http.serve_connection(TokioIo::new(stream), service);
        let mut connection = std::pin::pin!(connection);
        tokio::select! {
            done = connection.as_mut() => {
                if let Err(e) = done {
                    tracing::debug!(%peer, error = %e, "connection ended");
                }
                return;
            }
            () = self.activity.idle_for(idle_limit) => {
                tracing::debug!(%peer, "closed a connection that sent no request within header_timeout");
                return;
            }
            () = self.activity.close.notified() => {
                tracing::debug!(%peer, "closed an idle connection to make room (max_connections)");
                return;
            }
            _ = stopping.changed() => {}
        }
        connection.as_mut().graceful_shutdown();
        if let Err(e) = connection.await {
            tracing::debug!(%peer, error = %e, "connection ended");
        }
    }
}

/// One request's answer: through the router `app`, or without one
/// (`GET /verify`) directly; the request is [`Busy`] until its answer's
/// body is written.
async fn answer(
    inner: Shared,
    app: Option<Router>,
    peer: SocketAddr,
    mut request: Request<Incoming>,
    busy: Busy,
) -> Result<Response, std::convert::Infallible> {
    let Some(mut app) = app else {
        let response = direct(&inner, peer.ip(), &request).await;
        // Its body is empty: written with the head.
        drop(busy);
        return Ok(response);
    };
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(peer));
    let response = app.call(request).await?;
    // Busy until the body is written out.
    Ok(response.map(|body| axum::body::Body::new(Sending::new(body, busy))))
}

/// Whether the connection loop answers `request` itself, past the
/// router: `GET /verify`, the request web servers send for every request
/// they serve.
fn is_direct(request: &Request<Incoming>) -> bool {
    request.method() == Method::GET && request.uri().path() == "/verify"
}

/// `GET /verify` answered by the connection loop: what the router's
/// route gives (the same handler's work, count, log and `request_timeout`)
/// without its routing, layers and boxed futures.
async fn direct(inner: &Shared, peer: IpAddr, request: &Request<Incoming>) -> Response {
    let answer = gate::verify_request(inner, peer, request.uri().query(), request.headers());
    tracked(inner, Route::VERIFY, &Method::GET, false, answer).await
}
