//! The HTTP API: JSON over HTTP (axum) for people and downstream consumers.
//!
//! Owns the router ([`router`]) and the server loop ([`serve`], which stops gracefully when
//! its cancellation token fires). Routes are read-only except the claims work queue:
//!
//! | route | file |
//! |---|---|
//! | `GET /feeds`, `/articles`, `/articles/{id}`, `/articles/{id}/images`, `/images/{sha256}`, `/search` | [`articles`] |
//! | `POST /claims`, `POST /claims/{article_id}/done`, `GET /claims/{article_id}` | [`claims`] |
//! | `GET /healthz`, `GET /metrics` (never authenticated) | [`ops`] |
//!
//! Every error is JSON `{"error": "..."}` with its status code ([`error`]); request bodies are
//! limited to [`MAX_BODY_BYTES`]; when `[api].token` is set every route but the two operator
//! ones needs `Authorization: Bearer <token>` ([`auth`]). `docs/api.md` is the reference.

pub mod articles;
pub mod auth;
pub mod claims;
pub mod error;
pub mod ops;

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulConnection, GracefulShutdown};
use hyper_util::service::TowerToHyperService;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::config::ApiConfig;
use crate::store::Store;
use error::ApiError;

/// The largest request body accepted (claims and done reports are small JSON).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// How many requests of the data routes run at once. Each holds at most one database
/// connection, so the API never takes more than this many of the pool (SQLite's has 8,
/// PostgreSQL's 16): ingestion and `/healthz` always find one. Others wait their turn.
pub const DATABASE_SLOTS: usize = 4;

/// What every handler reads: the store (cheap to clone, one shared pool).
#[derive(Debug, Clone)]
pub struct ApiState {
    pub store: Store,
}

/// The API's routes over `store`, authenticated as `api` says.
pub fn router(store: Store, api: &ApiConfig) -> Router {
    let mut protected = Router::new()
        .route("/feeds", get(articles::feeds))
        .route("/articles", get(articles::list))
        .route("/articles/{id}", get(articles::article))
        .route("/articles/{id}/images", get(articles::images))
        .route("/images/{sha256}", get(articles::image_blob))
        .route("/search", get(articles::search))
        .route("/claims", post(claims::claim))
        .route("/claims/{article_id}", get(claims::of_article))
        .route("/claims/{article_id}/done", post(claims::done));
    // Inside the token check: an unauthenticated request never waits for a slot.
    protected = protected.route_layer(middleware::from_fn_with_state(
        Arc::new(Semaphore::new(DATABASE_SLOTS)),
        limit_database_use,
    ));
    if let Some(token) = api.token.as_deref() {
        protected = protected.route_layer(middleware::from_fn_with_state(
            auth::TokenCheck::new(token),
            auth::require_token,
        ));
    }
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        .merge(protected)
        .route_layer(middleware::from_fn(observe))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(ApiState { store })
}

/// Serves the API on `listener` until `shutdown` fires, then lets requests in flight finish.
/// A connection that has not sent a whole request head within [`HEADER_READ_TIMEOUT`] is
/// closed, so idle or trickling clients cannot hold connections open.
pub async fn serve(
    listener: tokio::net::TcpListener,
    store: Store,
    api: ApiConfig,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let address = listener.local_addr()?;
    let app = router(store, &api);
    tracing::info!(%address, authenticated = api.token.is_some(), "API listening");
    let connections = GracefulShutdown::new();
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        match stream {
            Ok((stream, _remote)) => {
                let connection = serve_connection(stream, app.clone());
                tokio::spawn(connections.watch(connection));
            }
            Err(error) => {
                // Out of file descriptors, usually: wait for connections to end.
                tracing::warn!(%error, "API: cannot accept a connection");
                tokio::time::sleep(ACCEPT_RETRY).await;
            }
        }
    }
    connections.shutdown().await;
    tracing::info!(%address, "API stopped");
    Ok(())
}

/// How long a client may take to send a request head (line and headers).
pub const HEADER_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// The pause after a failed `accept` (usually: out of file descriptors).
const ACCEPT_RETRY: std::time::Duration = std::time::Duration::from_millis(100);

/// One connection, HTTP/1 or HTTP/2, with the header-read timeout.
fn serve_connection(
    stream: tokio::net::TcpStream,
    app: Router,
) -> impl GracefulConnection<Output = Result<(), Box<dyn std::error::Error + Send + Sync>>> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    builder
        .serve_connection_with_upgrades(TokioIo::new(stream), TowerToHyperService::new(app))
        .into_owned()
}

/// Runs the request once one of the [`DATABASE_SLOTS`] is free. A client that goes away while
/// waiting or running drops this future, and with it the slot and the query.
async fn limit_database_use(
    State(slots): State<Arc<Semaphore>>,
    request: Request,
    next: Next,
) -> Response {
    let Ok(_slot) = slots.acquire().await else {
        return ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the API is stopping")
            .into_response();
    };
    next.run(request).await
}

/// Counts and logs each routed request (method, route pattern, status; never headers).
async fn observe(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_string())
        .unwrap_or_default();
    let response = next.run(request).await;
    let status = response.status().as_u16();
    crate::metrics::api_request(&route, status);
    tracing::debug!(
        %method,
        route,
        status,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "API request"
    );
    response
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such route (see docs/api.md)")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "this method is not allowed on this route",
    )
}
