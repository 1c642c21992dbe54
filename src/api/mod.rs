//! The HTTP API: JSON over HTTP (axum) for people and downstream consumers.
//!
//! Owns the router ([`router`]) and the server loop ([`serve`], which stops gracefully when
//! its cancellation token fires). Routes are read-only except the claims work queue:
//!
//! | route | file |
//! |---|---|
//! | `GET /feeds`, `/articles`, `/articles/{id}`, `/articles/{id}/images`, `/images/{sha256}`, `/search` | [`articles`] |
//! | `POST /claims`, `GET /claims?consumer=`, `POST /claims/{article_id}/done`, `GET /claims/{article_id}` | [`claims`] |
//! | `GET /outputs/{name}.atom`, `/outputs/{name}.json`, `/outputs/{name}/images/{key}/{sha256}` (the output's key, never the token) | [`outputs`] |
//! | `/mcp`: the MCP tools over streamable HTTP | [`crate::mcp::http_service`] |
//! | `GET /healthz`, `GET /metrics` (never authenticated) | [`ops`] |
//! | `/ui/…`: the web view (a session cookie instead of the bearer token) | [`ui`] |
//!
//! Every error is JSON `{"error": "..."}` with its status code ([`error`]); when `[api].token`
//! is set every route but the two operator ones needs `Authorization: Bearer <token>`
//! ([`auth`]; a client that fails too often waits, [`attempts`]; a reload that changes the token replaces it at once, [`auth::ApiToken`]); every
//! route answers only to the host names of its listener ([`hosts`], a
//! guard against DNS rebinding). What a request may take (its body, a database slot, its time) is [`limits`];
//! what a connection may take (idle time, the `[api] max_connections` cap) is [`connection`]
//! and [`serve`]. `docs/api.md` is the reference.

pub mod articles;
pub mod attempts;
pub mod auth;
pub mod claims;
mod connection;
pub mod error;
mod hosts;
mod limits;
pub mod ops;
pub mod outputs;
pub mod ui;

use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
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

/// The API's routes over `store`, authenticated by `token` (which a reload may replace).
pub fn router(store: Store, api: &ApiConfig, token: auth::ApiToken) -> Router {
    let mut protected = Router::new()
        .route("/feeds", get(articles::feeds))
        .route("/articles", get(articles::list))
        .route("/articles/{id}", get(articles::article))
        .route("/articles/{id}/images", get(articles::images))
        .route("/images/{sha256}", get(articles::image_blob))
        .route("/search", get(articles::search))
        .route("/claims", post(claims::claim).get(claims::of_consumer))
        .route("/claims/{article_id}", get(claims::of_article))
        .route("/claims/{article_id}/done", post(claims::done))
        .route_service("/mcp", crate::mcp::http_service(store.clone(), api));
    // Innermost first: a request waits for a database slot only once its body is in, and
    // for neither before its token is checked. The web view's pages share the slots.
    let slots = limits::database_slots();
    // One count of failed authentications for the bearer check and the sign-in form.
    let attempts = attempts::FailedAttempts::default();
    let web_view = ui::routes(store.clone(), token.clone(), attempts.clone())
        .route_layer(middleware::from_fn_with_state(
            slots.clone(),
            limits::limit_database_use,
        ))
        .route_layer(middleware::from_fn_with_state(
            api.timeouts.body,
            limits::read_body_first,
        ));
    protected = protected
        .route_layer(middleware::from_fn_with_state(
            slots.clone(),
            limits::limit_database_use,
        ))
        .route_layer(middleware::from_fn_with_state(
            api.timeouts.body,
            limits::read_body_first,
        ));
    protected = protected.route_layer(middleware::from_fn_with_state(
        auth::Access {
            token,
            attempts: attempts.clone(),
        },
        auth::require_token,
    ));
    // Feed readers send no token: the outputs check their own keys, and share the slots.
    let outputs = Router::new()
        .route("/outputs/{file}", get(outputs::document))
        .route("/outputs/{name}/images/{key}/{sha256}", get(outputs::image))
        .route_layer(middleware::from_fn_with_state(
            slots.clone(),
            limits::limit_database_use,
        ))
        .with_state(outputs::OutputsState {
            store: store.clone(),
            outputs: std::sync::Arc::new(api.outputs.clone()),
            public_url: api.public_url.clone(),
            attempts: attempts.clone(),
        });
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        .merge(protected)
        .with_state(ApiState { store })
        .merge(outputs)
        .merge(web_view)
        .route_layer(middleware::from_fn_with_state(
            api.timeouts.request,
            limits::limit_request_time,
        ))
        .route_layer(middleware::from_fn_with_state(
            hosts::AllowedHosts::of_listener(api.listen),
            hosts::require_allowed_host,
        ))
        .route_layer(middleware::from_fn(observe))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
}

/// Serves the API on `listener` until `shutdown` fires, then lets requests in flight finish.
/// At most `[api] max_connections` connections are served at once: the next ones wait in the
/// listen queue until one closes, and no connection stays open without use
/// ([`connection`]). A failed `accept` (out of file descriptors, say) is logged and retried.
pub async fn serve(
    listener: tokio::net::TcpListener,
    store: Store,
    api: ApiConfig,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let token = auth::ApiToken::new(api.token.as_deref());
    serve_with_token(listener, store, api, token, shutdown).await
}

/// [`serve`] with the token read from `token`, a handle the caller keeps to replace the token
/// on a configuration reload (`api.token` is not read).
pub async fn serve_with_token(
    listener: tokio::net::TcpListener,
    store: Store,
    api: ApiConfig,
    token: auth::ApiToken,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let address = listener.local_addr()?;
    let token_set = token.check().is_some();
    let app = router(store, &api, token);
    let capacity = connection_cap(api.max_connections).clamp(1, Semaphore::MAX_PERMITS);
    tracing::info!(
        %address,
        authenticated = token_set,
        max_connections = capacity,
        "API listening"
    );
    let slots = std::sync::Arc::new(Semaphore::new(capacity));
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot,
            () = shutdown.cancelled() => break,
        };
        let Ok(slot) = slot else { break };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        match accepted {
            Ok((stream, _remote)) => {
                tokio::spawn(connection::serve(
                    stream,
                    app.clone(),
                    api.timeouts,
                    shutdown.clone(),
                    slot,
                ));
            }
            Err(error) => {
                // Out of file descriptors, usually: wait for connections to end.
                tracing::warn!(%error, "API: cannot accept a connection");
                tokio::time::sleep(ACCEPT_RETRY).await;
            }
        }
    }
    // New connections are refused from here; those open finish their requests.
    drop(listener);
    let all = u32::try_from(capacity).unwrap_or(u32::MAX);
    let _every_connection_closed = slots.acquire_many(all).await;
    tracing::info!(%address, "API stopped");
    Ok(())
}

/// The pause after a failed `accept` (usually: out of file descriptors).
const ACCEPT_RETRY: std::time::Duration = std::time::Duration::from_millis(100);

/// File descriptors left to everything but API connections: the database pool, downloads,
/// log files, the listener.
const DESCRIPTORS_KEPT: usize = 128;

/// `configured`, lowered when the open-files limit (soft `RLIMIT_NOFILE`) could not hold it
/// and [`DESCRIPTORS_KEPT`] besides: API clients never take the descriptors ingestion needs.
fn connection_cap(configured: usize) -> usize {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct it is given.
        let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
        if read && limit.rlim_cur != libc::RLIM_INFINITY {
            let open_files = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
            let serving = open_files.saturating_sub(DESCRIPTORS_KEPT).max(1);
            if serving < configured {
                tracing::warn!(
                    configured,
                    open_files,
                    serving,
                    "[api] max_connections lowered to fit the open-files limit \
                     (raise it: ulimit -n, or LimitNOFILE in the service unit)"
                );
                return serving;
            }
        }
    }
    configured
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

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(unix)]
    fn the_connection_cap_leaves_descriptors_to_the_rest() {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct it is given.
        assert_eq!(
            unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
            0
        );
        let cap = super::connection_cap(usize::MAX);
        if limit.rlim_cur != libc::RLIM_INFINITY {
            let open_files = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
            assert_eq!(
                cap,
                open_files.saturating_sub(super::DESCRIPTORS_KEPT).max(1)
            );
        }
        assert_eq!(super::connection_cap(2), 2);
    }
}
