//! What clients can hold: request bodies that stall, connections that send nothing or idle
//! between requests, more connections than `[api] max_connections`, a handler past its
//! deadline. Raw TCP clients, since the point is what a well-behaved client never does.

use std::time::Duration;

use anyhow::Context as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{App, seed};
use crate::common::TestDb;

/// How long a test waits for what the server must do at once (an answer, a close) before it
/// calls it a hang: far beyond any timeout these tests configure.
const HANG: Duration = Duration::from_secs(20);

/// Reads from `stream` until `needle` has arrived; the bytes read.
async fn read_until(stream: &mut TcpStream, needle: &str) -> anyhow::Result<String> {
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    tokio::time::timeout(HANG, async {
        while !String::from_utf8_lossy(&seen).contains(needle) {
            let read = stream.read(&mut buffer).await?;
            anyhow::ensure!(
                read > 0,
                "closed before {needle:?}: {}",
                String::from_utf8_lossy(&seen)
            );
            seen.extend_from_slice(&buffer[..read]);
        }
        anyhow::Ok(())
    })
    .await
    .with_context(|| format!("no {needle:?} from the server"))??;
    Ok(String::from_utf8_lossy(&seen).into_owned())
}

/// Waits for the server to close `stream` (end of stream, or a reset); what it sent before.
async fn closed_by_server(stream: &mut TcpStream) -> anyhow::Result<String> {
    let mut seen = Vec::new();
    match tokio::time::timeout(HANG, stream.read_to_end(&mut seen)).await {
        Ok(_ended_or_reset) => Ok(String::from_utf8_lossy(&seen).into_owned()),
        Err(_) => anyhow::bail!(
            "the server kept the connection open; it sent {:?}",
            String::from_utf8_lossy(&seen)
        ),
    }
}

/// A `POST /claims` whose head is sent and whose body stops after a few bytes. The head asks
/// for `100 Continue`, which the server sends once it starts reading the body: from then on
/// the request is wherever it waits for its body.
async fn stalled_claim(app: &App) -> anyhow::Result<TcpStream> {
    let mut stream = TcpStream::connect(app.address()).await?;
    stream
        .write_all(
            b"POST /claims HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\nExpect: 100-continue\r\n\r\n",
        )
        .await?;
    read_until(&mut stream, "100 Continue").await?;
    stream.write_all(b"{\"consumer\": \"st").await?;
    Ok(stream)
}

/// Twice as many stalled claim bodies as there are database slots: the data routes answer
/// meanwhile, because a body is read before its request waits for a slot.
pub async fn stalled_bodies_hold_no_database_slot(db: TestDb) -> anyhow::Result<()> {
    seed(&db.store, 3).await?;
    let app = App::spawn_with(&db.store, None, |api| {
        api.timeouts.body = Duration::from_secs(600);
    })
    .await?;
    let mut stalled = Vec::new();
    for _ in 0..2 * gleaner::api::DATABASE_SLOTS {
        stalled.push(stalled_claim(&app).await?);
    }
    for path in ["/articles", "/feeds", "/search?q=story"] {
        let (status, body) = tokio::time::timeout(HANG, app.get_json(path))
            .await
            .with_context(|| format!("{path} waited behind stalled bodies"))??;
        assert_eq!(status, 200, "{path}: {body}");
    }
    drop(stalled);
    app.stop().await
}

/// A body that does not arrive within its time is answered 408, JSON, and the connection
/// closed; the next requests are served as usual.
pub async fn a_body_too_slow_is_answered_408(db: TestDb) -> anyhow::Result<()> {
    seed(&db.store, 1).await?;
    let app = App::spawn_with(&db.store, None, |api| {
        api.timeouts.body = Duration::from_millis(300);
    })
    .await?;
    let mut stream = stalled_claim(&app).await?;
    let answer = closed_by_server(&mut stream).await?;
    assert!(answer.contains("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"error\""), "{answer}");
    assert!(answer.contains("did not arrive within"), "{answer}");
    assert_eq!(app.claim("summarizer", 5, 60).await?.len(), 1);
    app.stop().await
}

/// A handler still running at the request deadline is stopped and answered 503: here a
/// claim waiting for a write lock another process holds on the SQLite file.
pub async fn a_request_past_its_deadline_is_answered_503() -> anyhow::Result<()> {
    use sqlx::Connection as _;
    let db = TestDb::sqlite().await?;
    seed(&db.store, 1).await?;
    let app = App::spawn_with(&db.store, None, |api| {
        api.timeouts.request = Duration::from_millis(300);
    })
    .await?;
    let mut locker = sqlx::SqliteConnection::connect(&db.url()).await?;
    sqlx::query("BEGIN IMMEDIATE").execute(&mut locker).await?;
    let body = serde_json::json!({ "consumer": "summarizer" });
    let answer = tokio::time::timeout(HANG, app.post_json("/claims", &body)).await;
    sqlx::query("ROLLBACK").execute(&mut locker).await?;
    let (status, body) = answer.context("the claim outlived its deadline")??;
    assert_eq!(status, 503, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("not answered within"),
        "{body}"
    );
    // The lock is gone: the same claim goes through.
    assert_eq!(app.claim("summarizer", 5, 60).await?.len(), 1);
    app.stop().await
}

/// Connections that never send a byte, one that stops half-way through its head, and one
/// idle after a request are all closed by the server after the header timeout.
pub async fn idle_connections_are_closed() -> anyhow::Result<()> {
    let db = TestDb::sqlite().await?;
    let app = App::spawn_with(&db.store, None, |api| {
        api.timeouts.header = Duration::from_millis(300);
    })
    .await?;
    let mut silent = Vec::new();
    for _ in 0..50 {
        silent.push(TcpStream::connect(app.address()).await?);
    }
    let mut half_sent = TcpStream::connect(app.address()).await?;
    half_sent.write_all(b"GET /healthz HT").await?;
    let mut kept_alive = TcpStream::connect(app.address()).await?;
    kept_alive
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await?;
    let answer = closed_by_server(&mut kept_alive).await?;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    for stream in &mut silent {
        assert_eq!(closed_by_server(stream).await?, "");
    }
    closed_by_server(&mut half_sent).await?;
    let (status, body) = app.get_json("/healthz").await?;
    assert_eq!(status, 200, "{body}");
    app.stop().await
}

/// With `max_connections` connections open, the next one waits (its request unanswered)
/// until one of them closes; then it is served.
pub async fn connections_beyond_the_cap_wait_their_turn() -> anyhow::Result<()> {
    let db = TestDb::sqlite().await?;
    let cap = 3;
    let app = App::spawn_with(&db.store, None, |api| {
        api.max_connections = cap;
        api.timeouts.header = Duration::from_secs(600);
    })
    .await?;
    let mut held = Vec::new();
    for _ in 0..cap {
        held.push(TcpStream::connect(app.address()).await?);
    }
    let health = tokio::spawn({
        let request = app.client.get(app.url("/healthz"));
        async move { request.send().await }
    });
    // A bounded look for what must not happen: an answer while the cap is reached.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !health.is_finished(),
        "a connection beyond the cap was served"
    );
    held.pop();
    let response = tokio::time::timeout(HANG, health)
        .await
        .context("still waiting after a connection closed")???;
    assert_eq!(response.status(), 200);
    drop(held);
    app.stop().await
}
