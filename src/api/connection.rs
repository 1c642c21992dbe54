//! One client connection, HTTP/1 or HTTP/2, from accept to close; its requests carry the
//! client's address ([`ClientAddress`]).
//!
//! Owns the promise that no connection stays open without use: one that moves no byte in
//! either direction for [`ApiTimeouts::header`] is shut down: before its first request, between
//! requests (keep-alive), or half-way through a head sent byte by byte (hyper's header-read
//! timeout, HTTP/1). hyper's own timer alone does not cover it: the protocol detection reads
//! the first bytes without a timeout and HTTP/2 has no idle timeout. A connection being shut
//! down (idle, or the server stopping) lets its requests in flight answer, within
//! [`ApiTimeouts::request`], and is then dropped.
//!
//! [`ApiTimeouts::header`]: crate::config::ApiTimeouts::header
//! [`ApiTimeouts::request`]: crate::config::ApiTimeouts::request

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::sync::CancellationToken;

use super::attempts::ClientAddress;
use crate::config::ApiTimeouts;

/// Serves `stream` until the client closes it, it falls idle or `stop` fires. `slot` is the
/// connection's share of `[api] max_connections`, given back when this returns.
pub(super) async fn serve(
    stream: TcpStream,
    app: Router,
    timeouts: ApiTimeouts,
    stop: CancellationToken,
    slot: OwnedSemaphorePermit,
) {
    // Each request carries its client's address: failed authentications are counted per client.
    let app = match stream.peer_addr() {
        Ok(peer) => app.layer(axum::Extension(ClientAddress(peer.ip()))),
        Err(_) => app,
    };
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        stream,
        activity: activity.clone(),
    });
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(timeouts.header);
    let mut connection =
        std::pin::pin!(builder.serve_connection(io, TowerToHyperService::new(app)));
    let why = tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, "API connection ended");
            }
            return;
        }
        () = activity.idle_for(timeouts.header) => "idle",
        () = stop.cancelled() => "stopping",
    };
    connection.as_mut().graceful_shutdown();
    if tokio::time::timeout(timeouts.request, connection)
        .await
        .is_err()
    {
        tracing::debug!(why, "API connection dropped with a request unanswered");
    }
    drop(slot);
}

/// When the connection last moved a byte, in milliseconds since it opened.
struct Activity {
    opened: Instant,
    last: AtomicU64,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            opened: Instant::now(),
            last: AtomicU64::new(0),
        }
    }

    fn touch(&self) {
        let since_opened = u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(since_opened, Ordering::Relaxed);
    }

    /// Returns once the connection has moved no byte for `limit`.
    async fn idle_for(&self, limit: Duration) {
        loop {
            let last = self.opened + Duration::from_millis(self.last.load(Ordering::Relaxed));
            let deadline = last + limit;
            if Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline.into()).await;
        }
    }
}

/// The socket, noting in [`Activity`] each read or write that moved bytes.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.stream).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.activity.touch();
        }
        poll
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write(cx, buf);
        if matches!(poll, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch();
        }
        poll
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        if matches!(poll, Poll::Ready(Ok(written)) if written > 0) {
            this.activity.touch();
        }
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
