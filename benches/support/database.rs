//! The database a store bench fills and measures: an SQLite file, or a PostgreSQL database
//! created for the run on the server that `GLEANER_BENCH_POSTGRES_URL` names, then dropped.
//! Included by path (`#[path = "support/database.rs"]`) by the benches that need one; each
//! uses what it needs of it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use gleaner::config::DatabaseTarget;
use sqlx::{AssertSqlSafe, Connection as _};

/// Which store a bench runs against (`--backend sqlite|postgres`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The backend `--backend` names; SQLite when it is not given.
    pub fn from_arg(value: Option<&str>) -> anyhow::Result<Backend> {
        match value {
            None | Some("sqlite") => Ok(Backend::Sqlite),
            Some("postgres") => Ok(Backend::Postgres),
            Some(other) => anyhow::bail!("unknown backend {other}: sqlite or postgres"),
        }
    }

    /// The name `--backend` takes, for the bench's report.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

/// A fresh database for one bench run.
pub struct BenchDatabase {
    pub target: DatabaseTarget,
    /// PostgreSQL: the server's URL the database was created from, and its name.
    created: Option<(String, String)>,
}

impl BenchDatabase {
    /// A database named `name`: the file `{dir}/{name}.db`, or a PostgreSQL database of that
    /// name (letters, digits and `_` only: it is written into `CREATE DATABASE`).
    pub async fn create(backend: Backend, dir: &Path, name: &str) -> anyhow::Result<BenchDatabase> {
        if backend == Backend::Sqlite {
            return Ok(BenchDatabase {
                target: DatabaseTarget::Sqlite {
                    path: dir.join(format!("{name}.db")),
                },
                created: None,
            });
        }
        anyhow::ensure!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "a bench database's name is letters, digits and `_`: {name:?}"
        );
        let admin = std::env::var("GLEANER_BENCH_POSTGRES_URL")
            .context("set GLEANER_BENCH_POSTGRES_URL for --backend postgres")?;
        let mut connection = sqlx::PgConnection::connect(&admin).await?;
        sqlx::query(AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut connection)
            .await
            .context("creating the bench database")?;
        let mut url = url::Url::parse(&admin)?;
        url.set_path(name);
        Ok(BenchDatabase {
            target: DatabaseTarget::Postgres {
                url: url.to_string(),
            },
            created: Some((admin, name.to_string())),
        })
    }

    /// Where the database is: the file's path or the database's URL.
    pub fn location(&self) -> String {
        match &self.target {
            DatabaseTarget::Sqlite { path } => path.display().to_string(),
            DatabaseTarget::Postgres { url } => url.clone(),
        }
    }

    /// Removes the SQLite file (with its `-wal` and `-shm`) or drops the PostgreSQL database.
    pub async fn remove(self) -> anyhow::Result<()> {
        if let DatabaseTarget::Sqlite { path } = &self.target {
            for suffix in ["", "-wal", "-shm"] {
                let file = PathBuf::from(format!("{}{suffix}", path.display()));
                if file.exists() {
                    std::fs::remove_file(&file)
                        .with_context(|| format!("removing {}", file.display()))?;
                }
            }
        }
        if let Some((admin, name)) = self.created {
            let mut connection = sqlx::PgConnection::connect(&admin).await?;
            sqlx::query(AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .execute(&mut connection)
            .await
            .context("dropping the bench database")?;
        }
        Ok(())
    }

    /// The bench's own SQLite connection, with the options the bench sets for its fill or
    /// its reads.
    pub async fn sqlite(
        &self,
        options: impl FnOnce(sqlx::sqlite::SqliteConnectOptions) -> sqlx::sqlite::SqliteConnectOptions,
    ) -> anyhow::Result<sqlx::SqliteConnection> {
        let DatabaseTarget::Sqlite { path } = &self.target else {
            anyhow::bail!("not an SQLite database");
        };
        let connect = options(sqlx::sqlite::SqliteConnectOptions::new().filename(path));
        Ok(sqlx::SqliteConnection::connect_with(&connect).await?)
    }

    /// The bench's own PostgreSQL connection.
    pub async fn postgres(&self) -> anyhow::Result<sqlx::PgConnection> {
        let DatabaseTarget::Postgres { url } = &self.target else {
            anyhow::bail!("not a PostgreSQL database");
        };
        Ok(sqlx::PgConnection::connect(url).await?)
    }
}
