//! The article database: one interface over SQLite and PostgreSQL (sqlx).
//!
//! Owns the connection pool, the migrations (`migrations/sqlite`, `migrations/postgres`, run
//! on connect) and every statement gleaner sends. The schema is a public interface for
//! downstream consumers (ARCHITECTURE.md, "The database"). Statements are written once with
//! `$N` placeholders, which both backends accept; the few that differ are `Dialects` pairs,
//! kept side by side in `sql.rs` so the two cannot drift, and every test in `tests/store/store.rs`
//! runs on both.
//!
//! Timestamps are truncated to whole microseconds when written (PostgreSQL's precision), so a
//! value reads back equal on either backend.

mod api_reads;
mod articles;
pub mod claims;
mod duplicates;
mod entries;
mod feeds;
mod health;
pub mod kinds;
pub mod model;
mod output_items;
mod ownership;
mod record;
mod retention;
mod search;
mod sql;
mod tcp;
mod templates;
#[doc(hidden)]
pub mod testing;
mod webhooks;

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use chrono::{DateTime, SubsecRound, Utc};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::config::DatabaseTarget;

pub use api_reads::{
    LISTED_AUTHOR_CHARS, LISTED_TITLE_CHARS, LISTING_BUDGET_BYTES, StoreCounts, TotalsSince,
    fit_listing,
};
pub use articles::{PageFields, word_count};
pub use duplicates::{DUPLICATE_WINDOW, candidates_statement};
pub use feeds::{LeasedFeed, OVERDUE_FIRINGS, OverdueFeed, TakenLease, overdue_since};
pub use health::{FailingWrite, WriteFailureKind, WriteKind};
pub use kinds::{FailureKind, OwnKind, PollStatus, Stage};
pub use model::*;
pub use output_items::OutputItemHead;
pub use ownership::publishes;
pub use record::{ArticleRecord, ImageRecord};
pub use retention::{PrunePreview, Pruned};
pub use search::{
    MAX_QUERY_CHARS, MAX_QUERY_TERMS, MAX_QUERY_WORDS_IN_ALL, SearchQuery, SearchQueryError,
    SearchScope,
};
pub use templates::SiteSummary;
pub use webhooks::{
    DeliveryOutcome, DeliveryRecord, DeliveryState, DueDelivery, GivenUpDelivery, given_up_message,
    parse_given_up_message,
};

/// How long an SQLite statement waits for another process's lock before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The exclusive lock under which one process sets an SQLite database up (creates the file,
/// turns WAL on, migrates): a `flock` on the file's directory, never on the file itself,
/// whose POSIX locks SQLite owns. Released when dropped. Nothing to hold on PostgreSQL.
struct SetupLock(#[allow(dead_code)] Option<std::fs::File>);

impl SetupLock {
    async fn take(target: &DatabaseTarget) -> Result<SetupLock, StoreError> {
        let DatabaseTarget::Sqlite { path } = target else {
            return Ok(SetupLock(None));
        };
        let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(dir) => dir.to_path_buf(),
            None => std::path::PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir).map_err(|source| StoreError::CreateDir {
            target: target.display_redacted(),
            source,
        })?;
        let locked = tokio::task::spawn_blocking(move || {
            let directory = std::fs::File::open(&dir)?;
            directory.lock()?;
            Ok(directory)
        })
        .await
        .unwrap_or_else(|joined| Err(std::io::Error::other(joined)));
        let directory = locked.map_err(|source| StoreError::Io {
            context: "locking the database directory for setup",
            source,
        })?;
        Ok(SetupLock(Some(directory)))
    }
}

/// Which database engine a [`Store`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A statement whose text differs between the backends.
pub(crate) struct Dialects {
    pub sqlite: &'static str,
    pub postgres: &'static str,
}

/// How long the first connection to PostgreSQL may take before gleaner says the server is
/// unreachable: a server on the network answers in milliseconds, and waiting for the pool's
/// 30 s only delays the message.
pub const FIRST_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the first connection failed: explained ([`StoreError::Unreachable`],
/// [`StoreError::NoSuchDatabase`]) or left as sqlx said it.
enum ProbeError {
    Store(StoreError),
    Sqlx(sqlx::Error),
}

/// Opens and closes one connection, so that the usual mistakes (server down, wrong host or
/// port, database not created) end quickly with what to check.
async fn probe_postgres(options: &PgConnectOptions) -> Result<(), ProbeError> {
    use sqlx::{ConnectOptions as _, Connection as _};
    let unreachable = |reason: String| {
        ProbeError::Store(StoreError::Unreachable {
            host: options.get_host().to_string(),
            port: options.get_port(),
            reason,
        })
    };
    let connected = tokio::time::timeout(FIRST_CONNECT_TIMEOUT, options.connect()).await;
    match connected {
        Err(_elapsed) => Err(unreachable(format!(
            "no answer within {} s",
            FIRST_CONNECT_TIMEOUT.as_secs()
        ))),
        Ok(Ok(connection)) => {
            // Closing politely is a courtesy: a failure here changes nothing.
            let _ = connection.close().await;
            Ok(())
        }
        Ok(Err(sqlx::Error::Io(io))) => Err(unreachable(io.to_string())),
        Ok(Err(sqlx::Error::Database(db))) if db.code().as_deref() == Some("3D000") => {
            Err(ProbeError::Store(StoreError::NoSuchDatabase {
                name: options
                    .get_database()
                    .unwrap_or(options.get_username())
                    .to_string(),
            }))
        }
        Ok(Err(other)) => Err(ProbeError::Sqlx(other)),
    }
}

/// Everything that can go wrong talking to the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("connecting to {target}: {source}")]
    Connect {
        target: String,
        #[source]
        source: sqlx::Error,
    },
    /// The PostgreSQL server could not be reached (refused, unknown host, or no answer within
    /// [`FIRST_CONNECT_TIMEOUT`]).
    #[error(
        "cannot reach PostgreSQL at {host}:{port} ({reason}): check that the server is running \
         and that the host and port in database.url (or GLEANER_DATABASE_URL) are right"
    )]
    Unreachable {
        host: String,
        port: u16,
        reason: String,
    },
    /// A command that only reads found no SQLite file: reads never create one.
    #[error(
        "no database at {} yet: `gleaner poll` (one cycle) or `gleaner run` (the service) creates it",
        path.display()
    )]
    NoDatabaseYet { path: std::path::PathBuf },
    /// The server answered, but the database named in the URL does not exist.
    #[error("database {name} does not exist; create it with createdb {name}")]
    NoSuchDatabase { name: String },
    #[error("creating the directory of {target}: {source}")]
    CreateDir {
        target: String,
        #[source]
        source: std::io::Error,
    },
    #[error("migrating {target}: {source}")]
    Migrate {
        target: String,
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    #[error("{context}: {source}")]
    Query {
        context: &'static str,
        #[source]
        source: sqlx::Error,
    },
    #[error("refused search query: {0}")]
    SearchQuery(#[from] SearchQueryError),
    #[error("the search did not end within its budget of {budget:?}; use fewer or rarer words")]
    SearchTimedOut { budget: Duration },
    #[error("{context}: {source}")]
    Io {
        context: &'static str,
        #[source]
        source: std::io::Error,
    },
}

/// Attaches what the store was doing to a sqlx error.
pub(crate) trait QueryContext<T> {
    fn context(self, context: &'static str) -> Result<T, StoreError>;
}

impl<T> QueryContext<T> for Result<T, sqlx::Error> {
    fn context(self, context: &'static str) -> Result<T, StoreError> {
        self.map_err(|source| StoreError::Query { context, source })
    }
}

#[derive(Debug, Clone)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// The article database. Cheap to clone: clones share one pool.
#[derive(Debug, Clone)]
pub struct Store {
    pool: Pool,
    target: String,
    /// How long one search may run.
    search_budget: Duration,
    /// Article writes waiting to share a transaction (`articles.rs`).
    writes: std::sync::Arc<articles::ArticleWrites>,
    /// Site template models parsed last (`templates.rs`).
    templates: std::sync::Arc<templates::TemplateCache>,
    /// The kinds of write failing now, and the connections thrown away (`health.rs`).
    health: Arc<health::WriteHealth>,
    /// SQLite: the size cap every connection applies when it is handed out
    /// ([`Store::cap_sqlite_size`]); [`SizeCap::NEVER_SET`] in service.
    size_cap: Arc<AtomicU8>,
}

/// A cap on an SQLite file's size ([`Store::cap_sqlite_size`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeCap {
    /// The file cannot grow: a write that needs a new page fails as on a full disk.
    AtCurrentSize = 1,
    /// The file grows again as the disk allows.
    Lifted = 2,
}

impl SizeCap {
    /// No cap was ever set: nothing to apply.
    const NEVER_SET: u8 = 0;
}

/// Applies the cap of [`Store::cap_sqlite_size`], when one was ever set.
async fn apply_size_cap(
    connection: &mut sqlx::SqliteConnection,
    cap: &AtomicU8,
) -> Result<(), sqlx::Error> {
    let statement = match cap.load(Ordering::Relaxed) {
        SizeCap::NEVER_SET => return Ok(()),
        state if state == SizeCap::AtCurrentSize as u8 => sql::CAP_SIZE_AT_CURRENT,
        _ => sql::LIFT_SIZE_CAP,
    };
    sqlx::query(statement).execute(connection).await.map(drop)
}

/// Runs `$body` with `$pool` bound to the backend's pool; the body is written once and
/// compiled for each backend.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.pool {
            $crate::store::Pool::Sqlite($pool) => $body,
            $crate::store::Pool::Postgres($pool) => $body,
        }
    };
}
pub(crate) use on_pool;

/// `sql::UPDATE_FEED_ENTRY` with one attempt at an entry bound, on either backend: the one
/// write of an entry's outcome, alone or inside a transaction.
macro_rules! update_entry_attempt {
    ($entry_id:expr, $attempt:expr) => {{
        let attempt: &$crate::store::EntryAttempt = $attempt;
        sqlx::query($crate::store::sql::UPDATE_FEED_ENTRY)
            .bind($entry_id)
            .bind(attempt.state.as_str())
            .bind(attempt.attempts)
            .bind($crate::store::db_time(attempt.next_attempt_at))
            .bind(&attempt.error)
            .bind(attempt.state.is_waiting())
    }};
}
pub(crate) use update_entry_attempt;

impl Store {
    /// Connects (creating an SQLite file and its directory when missing) and runs the
    /// migrations.
    /// Processes that start together on one database wait for each other: on SQLite the
    /// setup (file creation, WAL mode, migrations) runs under an exclusive lock on the file's
    /// directory, on PostgreSQL the migrations run under sqlx's advisory lock.
    pub async fn connect(target: &DatabaseTarget) -> Result<Store, StoreError> {
        let _setup = SetupLock::take(target).await?;
        let store = Self::connect_without_migrating(target).await?;
        if !store.schema_is_current().await {
            store.migrate().await?;
        }
        Ok(store)
    }

    /// Connects for a command that only reads. As [`Store::connect`], except that a missing
    /// SQLite file is [`StoreError::NoDatabaseYet`], never created (nor its directory); and
    /// when connecting fails on an SQLite file this process cannot write (a read-only file or
    /// directory), the file is opened read-only and immutable instead, provided its schema is
    /// current.
    pub async fn connect_for_reading(target: &DatabaseTarget) -> Result<Store, StoreError> {
        if let DatabaseTarget::Sqlite { path } = target
            && !path.exists()
        {
            return Err(StoreError::NoDatabaseYet { path: path.clone() });
        }
        let error = match Self::connect(target).await {
            Ok(store) => return Ok(store),
            Err(error) => error,
        };
        let DatabaseTarget::Sqlite { path } = target else {
            return Err(error);
        };
        if !path.is_file() {
            return Err(error);
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .read_only(true)
            .immutable(true)
            .busy_timeout(BUSY_TIMEOUT);
        let Ok(pool) = SqlitePoolOptions::new()
            .max_connections(2)
            .acquire_timeout(BUSY_TIMEOUT)
            .connect_with(options)
            .await
        else {
            return Err(error);
        };
        let store = Store {
            pool: Pool::Sqlite(pool),
            target: target.display_redacted(),
            search_budget: search::DEFAULT_SEARCH_BUDGET,
            writes: Default::default(),
            templates: Default::default(),
            health: Default::default(),
            size_cap: Default::default(),
        };
        if store.schema_is_current().await {
            tracing::debug!(database = %store.target, "opened read-only");
            Ok(store)
        } else {
            store.close().await;
            Err(error)
        }
    }

    /// True when every migration this binary knows is applied, unchanged.
    async fn schema_is_current(&self) -> bool {
        let migrator = match &self.pool {
            Pool::Sqlite(_) => sqlx::migrate!("migrations/sqlite"),
            Pool::Postgres(_) => sqlx::migrate!("migrations/postgres"),
        };
        let known: Vec<(i64, Vec<u8>)> = migrator
            .iter()
            .map(|migration| (migration.version, migration.checksum.to_vec()))
            .collect();
        let applied: Result<Vec<(i64, Vec<u8>)>, _> = on_pool!(self, pool => {
            sqlx::query_as(sql::APPLIED_MIGRATIONS).fetch_all(pool).await
        });
        applied.is_ok_and(|applied| applied == known)
    }

    /// Connects without touching the schema.
    pub async fn connect_without_migrating(target: &DatabaseTarget) -> Result<Store, StoreError> {
        let described = target.display_redacted();
        let health = Arc::new(health::WriteHealth::default());
        let size_cap = Arc::new(AtomicU8::new(SizeCap::NEVER_SET));
        let pool = match target {
            DatabaseTarget::Sqlite { path } => {
                Pool::Sqlite(open_sqlite_pool(path, &described, &health, &size_cap).await?)
            }
            DatabaseTarget::Postgres { url } => {
                Pool::Postgres(open_postgres_pool(url, &described, &health).await?)
            }
        };
        Ok(Store {
            pool,
            target: described,
            search_budget: search::DEFAULT_SEARCH_BUDGET,
            writes: Default::default(),
            templates: Default::default(),
            health,
            size_cap,
        })
    }

    /// Creates or upgrades the schema; safe to run any number of times.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        let result = match &self.pool {
            Pool::Sqlite(pool) => sqlx::migrate!("migrations/sqlite").run(pool).await,
            Pool::Postgres(pool) => sqlx::migrate!("migrations/postgres").run(pool).await,
        };
        result.map_err(|source| StoreError::Migrate {
            target: self.target.clone(),
            source,
        })
    }

    /// The names of the migrations applied so far, in order.
    pub async fn applied_migrations(&self) -> Result<Vec<String>, StoreError> {
        let sql = "SELECT description FROM _sqlx_migrations WHERE success ORDER BY version";
        on_pool!(self, pool => sqlx::query_scalar(sql).fetch_all(pool).await)
            .context("listing applied migrations")
    }

    pub fn backend(&self) -> Backend {
        match self.pool {
            Pool::Sqlite(_) => Backend::Sqlite,
            Pool::Postgres(_) => Backend::Postgres,
        }
    }

    /// Where this store lives, without any password: safe to log.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        on_pool!(self, pool => sqlx::query("SELECT 1").execute(pool).await.map(drop))
            .context("pinging the database")?;
        Ok(())
    }

    /// Caps an SQLite file at its size, or lifts the cap: while capped, a write that would
    /// grow the file fails with "database or disk is full", as on a full disk. Every
    /// connection applies it when it is next handed out. For fault tests; nothing on
    /// PostgreSQL.
    pub async fn cap_sqlite_size(&self, cap: SizeCap) -> Result<(), StoreError> {
        let Pool::Sqlite(pool) = &self.pool else {
            return Ok(());
        };
        self.size_cap.store(cap as u8, Ordering::Relaxed);
        // Through the pool, so that the connection that answers has the cap too.
        pool.acquire()
            .await
            .map(drop)
            .context("capping the database's size")
    }

    /// The kinds of write whose last attempt failed, with when and why.
    pub fn failing_writes(&self) -> Vec<FailingWrite> {
        self.health.failing_writes()
    }

    /// Connections closed because they were given back with a transaction in an unknown
    /// state, since the store was opened.
    pub fn discarded_connections(&self) -> u64 {
        self.health.discarded_connections()
    }

    /// Notes how an attempt of `write` went (see `health.rs`); the result passes through.
    pub(crate) fn noted<T>(
        &self,
        write: WriteKind,
        result: Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.health.note(write, result)
    }

    /// Closes the pool, waiting for connections to be returned.
    pub async fn close(&self) {
        on_pool!(self, pool => pool.close().await)
    }

    /// The statement that begins a write transaction. On SQLite it takes the write lock up
    /// front (`BEGIN IMMEDIATE`), so a transaction that reads before it writes waits on the
    /// busy timeout instead of failing when another writer got there first.
    fn begin_write(&self) -> &'static str {
        self.sql(&sql::BEGIN_WRITE)
    }

    fn sql(&self, dialects: &Dialects) -> &'static str {
        match self.backend() {
            Backend::Sqlite => dialects.sqlite,
            Backend::Postgres => dialects.postgres,
        }
    }
}

/// The pool's `after_release` check: a connection given back with a transaction still
/// counted open is closed, and counted, instead of failing every later `BEGIN`.
fn discard_unsettled<C: sqlx::Connection>(
    health: Arc<health::WriteHealth>,
) -> impl for<'c> Fn(
    &'c mut C,
    sqlx::pool::PoolConnectionMetadata,
) -> futures::future::BoxFuture<'c, Result<bool, sqlx::Error>>
+ Send
+ Sync
+ 'static {
    move |connection, _| {
        let health = health.clone();
        Box::pin(async move {
            let settled = health::transaction_settled(connection).await;
            if !matches!(settled, Ok(true)) {
                health.connection_discarded();
                tracing::warn!(
                    "a database connection was given back inside a transaction; closed, a new one replaces it"
                );
            }
            settled
        })
    }
}

/// A timestamp as the database keeps it: UTC, whole microseconds.
pub fn db_time(instant: DateTime<Utc>) -> DateTime<Utc> {
    instant.trunc_subsecs(6)
}

/// The current time, as the database keeps it.
pub fn now() -> DateTime<Utc> {
    db_time(Utc::now())
}

/// The SQLite file's pool: WAL, foreign keys, the size cap applied on every connection.
async fn open_sqlite_pool(
    path: &std::path::Path,
    described: &str,
    health: &Arc<health::WriteHealth>,
    size_cap: &Arc<AtomicU8>,
) -> Result<sqlx::SqlitePool, StoreError> {
    let connect_error = |source| StoreError::Connect {
        target: described.to_owned(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
            target: described.to_owned(),
            source,
        })?;
    }
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT);
    let (cap_on_connect, cap_on_acquire) = (size_cap.clone(), size_cap.clone());
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        .acquire_timeout(Duration::from_secs(30))
        .after_connect(move |connection, _| {
            let cap = cap_on_connect.clone();
            Box::pin(async move { apply_size_cap(connection, &cap).await })
        })
        .before_acquire(move |connection, _| {
            let cap = cap_on_acquire.clone();
            Box::pin(async move { apply_size_cap(connection, &cap).await.map(|()| true) })
        })
        .after_release(discard_unsettled(health.clone()))
        .connect_with(options)
        .await
        .map_err(connect_error)?;
    Ok(pool)
}

/// The PostgreSQL pool, the server probed first and Nagle's algorithm off on TCP.
async fn open_postgres_pool(
    url: &str,
    described: &str,
    health: &Arc<health::WriteHealth>,
) -> Result<sqlx::PgPool, StoreError> {
    let connect_error = |source| StoreError::Connect {
        target: described.to_owned(),
        source,
    };
    let options = PgConnectOptions::from_str(url)
        .map_err(connect_error)?
        // The server's NOTICEs (`… already exists, skipping` on every migration
        // run) are not the operator's business; warnings and errors still come.
        .options([("client_min_messages", "warning")]);
    probe_postgres(&options).await.map_err(|err| match err {
        ProbeError::Store(err) => err,
        ProbeError::Sqlx(source) => connect_error(source),
    })?;
    // Through a Unix socket there is no Nagle to turn off.
    let servers = match options.get_socket() {
        Some(_) => Vec::new(),
        None => tcp::server_addresses(options.get_host(), options.get_port()).await,
    };
    let servers = std::sync::Arc::new(servers);
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .after_connect(move |_connection, _metadata| {
            let servers = servers.clone();
            Box::pin(async move {
                match tcp::disable_nagle(&servers) {
                    Ok(changed) => tracing::trace!(changed, "TCP_NODELAY set"),
                    Err(error) => tracing::warn!(
                        %error,
                        "cannot set TCP_NODELAY on the PostgreSQL connections; \
                         large statements may wait for delayed acknowledgements"
                    ),
                }
                Ok(())
            })
        })
        .acquire_timeout(Duration::from_secs(30))
        .after_release(discard_unsettled(health.clone()))
        .connect_with(options)
        .await
        .map_err(connect_error)?;
    Ok(pool)
}
