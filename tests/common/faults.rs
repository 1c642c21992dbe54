//! Faults a test puts into its database from outside the code under test, on a connection of
//! its own: writes the database refuses, leases a vanished replica holds, rows an older version
//! left.

use chrono::{DateTime, Utc};
use gleaner::config::DatabaseTarget;
use sqlx::Connection as _;

use super::TestDb;

/// A feed's lease as [`set_lease`] writes it.
struct Lease<'a> {
    name: &'a str,
    owner: Option<&'a str>,
    until: Option<DateTime<Utc>>,
}

const SET_LEASE: &str = "UPDATE feeds SET lease_owner = $2, lease_until = $3 WHERE name = $1";

/// Runs `statements` (one per string), then writes `lease`, on `connection` (a connection of
/// either backend: the steps are the same, the types differ).
macro_rules! run_on {
    ($connection:expr, $statements:expr, $lease:expr) => {{
        let mut connection = $connection;
        for statement in $statements {
            sqlx::raw_sql(sqlx::AssertSqlSafe(*statement))
                .execute(&mut connection)
                .await?;
        }
        if let Some(lease) = $lease {
            sqlx::query(SET_LEASE)
                .bind(lease.name)
                .bind(lease.owner)
                .bind(lease.until)
                .execute(&mut connection)
                .await?;
        }
        connection.close().await?;
    }};
}

/// Runs `statements` (one per string), then writes `lease`.
async fn execute(db: &TestDb, statements: &[&str], lease: Option<Lease<'_>>) -> anyhow::Result<()> {
    match &db.target {
        DatabaseTarget::Sqlite { path } => {
            let url = format!("sqlite://{}", path.display());
            run_on!(
                sqlx::SqliteConnection::connect(&url).await?,
                statements,
                &lease
            );
        }
        DatabaseTarget::Postgres { url } => {
            run_on!(sqlx::PgConnection::connect(url).await?, statements, &lease);
        }
    }
    Ok(())
}

/// Runs one statement directly, as an older version of gleaner would have left a row or a
/// schema.
pub async fn raw_execute(db: &TestDb, statement: &str) -> anyhow::Result<()> {
    execute(db, &[statement], None).await
}

/// Makes the database refuse (or take again) every release of a feed lease: the write at the
/// end of a poll failing, as in a failover, a killed connection or a full disk.
pub async fn refuse_lease_releases(db: &TestDb, refuse: bool) -> anyhow::Result<()> {
    let sqlite = matches!(db.target, DatabaseTarget::Sqlite { .. });
    let statements: &[&str] = match (sqlite, refuse) {
        (true, true) => &[
            "CREATE TRIGGER refuse_release BEFORE UPDATE OF lease_owner ON feeds
             WHEN NEW.lease_owner IS NULL
             BEGIN SELECT RAISE(ABORT, 'the test refuses releases'); END",
        ],
        (true, false) => &["DROP TRIGGER refuse_release"],
        (false, true) => &[
            "CREATE FUNCTION refuse_release() RETURNS trigger LANGUAGE plpgsql AS
             $$ BEGIN RAISE EXCEPTION 'the test refuses releases'; END $$",
            "CREATE TRIGGER refuse_release BEFORE UPDATE OF lease_owner ON feeds
             FOR EACH ROW WHEN (NEW.lease_owner IS NULL) EXECUTE FUNCTION refuse_release()",
        ],
        (false, false) => &[
            "DROP TRIGGER refuse_release ON feeds",
            "DROP FUNCTION refuse_release()",
        ],
    };
    execute(db, statements, None).await
}

/// Sets feed `name`'s lease: held by `owner` until `until`, or by nobody. A lease held by a
/// replica that no longer runs keeps the feed from everyone else until it lapses.
pub async fn set_lease(
    db: &TestDb,
    name: &str,
    holder: Option<(&str, DateTime<Utc>)>,
) -> anyhow::Result<()> {
    let lease = Lease {
        name,
        owner: holder.map(|(owner, _)| owner),
        until: holder.map(|(_, until)| gleaner::store::db_time(until)),
    };
    execute(db, &[], Some(lease)).await
}
