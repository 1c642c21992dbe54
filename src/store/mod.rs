//! The article database: one interface over SQLite and PostgreSQL (sqlx).
//!
//! Owns the connection pool, the migrations (`migrations/sqlite`, `migrations/postgres`, run
//! on connect) and every statement gleaner sends. The schema is a public interface for
//! downstream consumers (ARCHITECTURE.md, "The database"). Statements are written once with
//! `$N` placeholders, which both backends accept; the few that differ are `Dialects` pairs,
//! kept side by side in `sql.rs` so the two cannot drift, and every test in `tests/store.rs`
//! runs on both.
//!
//! Timestamps are truncated to whole microseconds when written (PostgreSQL's precision), so a
//! value reads back equal on either backend.

mod api_reads;
mod articles;
pub mod claims;
mod entries;
mod feeds;
pub mod model;
mod sql;

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, SubsecRound, Utc};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::config::DatabaseTarget;

pub use api_reads::StoreCounts;
pub use articles::Reextraction;
pub use model::*;

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

/// Everything that can go wrong talking to the database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("connecting to {target}: {source}")]
    Connect {
        target: String,
        #[source]
        source: sqlx::Error,
    },
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
    /// Article writes waiting to share a transaction (`articles.rs`).
    writes: std::sync::Arc<articles::ArticleWrites>,
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

impl Store {
    /// Connects (creating an SQLite file and its directory when missing) and runs the
    /// migrations.
    pub async fn connect(target: &DatabaseTarget) -> Result<Store, StoreError> {
        let store = Self::connect_without_migrating(target).await?;
        store.migrate().await?;
        Ok(store)
    }

    /// Connects without touching the schema.
    pub async fn connect_without_migrating(target: &DatabaseTarget) -> Result<Store, StoreError> {
        let described = target.display_redacted();
        let connect_error = |source| StoreError::Connect {
            target: described.clone(),
            source,
        };
        let pool = match target {
            DatabaseTarget::Sqlite { path } => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                        target: described.clone(),
                        source,
                    })?;
                }
                let options = SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .foreign_keys(true)
                    .busy_timeout(Duration::from_secs(30));
                let pool = SqlitePoolOptions::new()
                    .max_connections(8)
                    .acquire_timeout(Duration::from_secs(30))
                    .connect_with(options)
                    .await
                    .map_err(connect_error)?;
                Pool::Sqlite(pool)
            }
            DatabaseTarget::Postgres { url } => {
                let options = PgConnectOptions::from_str(url).map_err(connect_error)?;
                let pool = PgPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(Duration::from_secs(30))
                    .connect_with(options)
                    .await
                    .map_err(connect_error)?;
                Pool::Postgres(pool)
            }
        };
        Ok(Store {
            pool,
            target: described,
            writes: Default::default(),
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

/// A timestamp as the database keeps it: UTC, whole microseconds.
pub fn db_time(instant: DateTime<Utc>) -> DateTime<Utc> {
    instant.trunc_subsecs(6)
}

/// The current time, as the database keeps it.
pub fn now() -> DateTime<Utc> {
    db_time(Utc::now())
}
