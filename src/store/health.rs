//! What the store knows of its own health: which kinds of write are failing now, and how many
//! connections it threw away, for `/healthz` and `/metrics`.
//!
//! A kind of write ([`WriteKind`]) is failing from its first failed attempt until an attempt of
//! the same kind succeeds (a lease renewed in place, or a failure row that fits in a page,
//! does not show that articles can be stored again), or any write succeeds after a lost
//! connection or a read-only database. A kind not tried again for [`FORGET_AFTER`] is
//! forgotten: nothing says whether it still fails.
//! A connection returned to the pool while it still counts a transaction open (an
//! error at `BEGIN`, at a statement SQLite answered by rolling back on its own, at `COMMIT`
//! or `ROLLBACK`) is closed instead of being handed out again, so one full disk does not
//! poison the pool ([`transaction_settled`]).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{StoreError, now};

/// How long a failing kind of write that is not tried again stays failing.
pub(super) const FORGET_AFTER: chrono::Duration = chrono::Duration::hours(1);

/// A kind of write the store watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WriteKind {
    /// The feed list made to match the configuration.
    FeedList,
    /// Feed leases taken, renewed and given back.
    Leases,
    /// A feed's poll outcome and due time, written in place.
    FeedState,
    /// Failure rows (`gleaner failures`).
    Failures,
    /// Articles with their images and entries.
    Articles,
    /// Feed entries remembered, and each attempt's outcome written back.
    Entries,
    /// Claims of the API's queue.
    Claims,
}

impl WriteKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WriteKind::FeedList => "feed_list",
            WriteKind::Leases => "leases",
            WriteKind::FeedState => "feed_state",
            WriteKind::Failures => "failures",
            WriteKind::Articles => "articles",
            WriteKind::Entries => "entries",
            WriteKind::Claims => "claims",
        }
    }
}

impl Serialize for WriteKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Why a write failed, in a word an operator can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteFailureKind {
    /// The disk or the database's size limit is full.
    Full,
    /// The database takes no writes (a read-only file, a standby after failover).
    ReadOnly,
    /// Reading or writing the file or the connection failed.
    Io,
    /// No connection could be had, or the server went away.
    Unavailable,
    Other,
}

impl WriteFailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WriteFailureKind::Full => "full",
            WriteFailureKind::ReadOnly => "read_only",
            WriteFailureKind::Io => "io",
            WriteFailureKind::Unavailable => "unavailable",
            WriteFailureKind::Other => "other",
        }
    }

    /// SQLite's primary result codes and PostgreSQL's SQLSTATE classes, read from the error.
    pub fn of(error: &StoreError) -> WriteFailureKind {
        let StoreError::Query { source, .. } = error else {
            return WriteFailureKind::Other;
        };
        match source {
            sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::Protocol(_) => {
                WriteFailureKind::Io
            }
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => {
                WriteFailureKind::Unavailable
            }
            sqlx::Error::Database(database) => {
                let code = database.code().unwrap_or_default();
                // SQLite's extended codes keep the primary one in the low byte.
                let sqlite = database
                    .try_downcast_ref::<sqlx::sqlite::SqliteError>()
                    .and_then(|_| code.parse::<i64>().ok())
                    .map(|code| code & 0xff);
                match (sqlite, code.get(..2)) {
                    (Some(13), _) | (None, Some("53")) => WriteFailureKind::Full,
                    (Some(8), _) | (None, Some("25")) => WriteFailureKind::ReadOnly,
                    (Some(10 | 14), _) | (None, Some("58")) => WriteFailureKind::Io,
                    (None, Some("08" | "57")) => WriteFailureKind::Unavailable,
                    _ => WriteFailureKind::Other,
                }
            }
            _ => WriteFailureKind::Other,
        }
    }

    /// Whether any write's success shows this cause gone: a connection that works, a
    /// database that takes writes. Room for one write is no room for another.
    fn cleared_by_any_write(self) -> bool {
        matches!(
            self,
            WriteFailureKind::Unavailable | WriteFailureKind::ReadOnly
        )
    }
}

impl Serialize for WriteFailureKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A kind of write whose last attempt failed: what `/healthz` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailingWrite {
    pub write: WriteKind,
    /// The first failure since the last success.
    pub since: DateTime<Utc>,
    /// The latest failure.
    pub last_failure_at: DateTime<Utc>,
    /// Why the latest failure happened.
    pub kind: WriteFailureKind,
    /// Failures since the last success.
    pub failures: u64,
}

/// The store's memory of its writes; shared by the clones of one [`super::Store`].
#[derive(Debug, Default)]
pub(super) struct WriteHealth {
    failing: Mutex<BTreeMap<WriteKind, FailingWrite>>,
    discarded_connections: AtomicU64,
}

impl WriteHealth {
    fn failing(&self) -> std::sync::MutexGuard<'_, BTreeMap<WriteKind, FailingWrite>> {
        // A panic elsewhere while noting leaves a usable map.
        self.failing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Notes one attempt of `write`; the result passes through.
    pub(super) fn note<T>(
        &self,
        write: WriteKind,
        result: Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match &result {
            Ok(_) => self.failing().retain(|failed, failure| {
                let cleared = *failed == write || failure.kind.cleared_by_any_write();
                if cleared {
                    tracing::info!(
                        write = failed.as_str(),
                        failures = failure.failures,
                        "the database takes these writes again"
                    );
                }
                !cleared
            }),
            Err(error) => {
                let (at, kind) = (now(), WriteFailureKind::of(error));
                let mut failing = self.failing();
                let entry = failing.entry(write).or_insert(FailingWrite {
                    write,
                    since: at,
                    last_failure_at: at,
                    kind,
                    failures: 0,
                });
                entry.last_failure_at = at;
                entry.kind = kind;
                entry.failures += 1;
            }
        }
        result
    }

    /// The kinds of write failing now.
    pub(super) fn failing_writes(&self) -> Vec<FailingWrite> {
        let mut failing = self.failing();
        let forgotten = now() - FORGET_AFTER;
        failing.retain(|_, failure| failure.last_failure_at > forgotten);
        failing.values().cloned().collect()
    }

    pub(super) fn connection_discarded(&self) {
        self.discarded_connections.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn discarded_connections(&self) -> u64 {
        self.discarded_connections.load(Ordering::Relaxed)
    }
}

/// The pool's check of a connection given back: `false` (close it) when it still counts a
/// transaction open. A dropped transaction's rollback may still be queued on the
/// connection, so it is let through first (a ping waits behind it).
pub(super) async fn transaction_settled<C: sqlx::Connection>(
    connection: &mut C,
) -> Result<bool, sqlx::Error> {
    if !connection.is_in_transaction() {
        return Ok(true);
    }
    connection.ping().await?;
    Ok(!connection.is_in_transaction())
}
