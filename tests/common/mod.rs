//! Test helpers shared by the integration tests: fresh databases on both backends.
//!
//! SQLite: a new file in a temporary directory per test. PostgreSQL: a new schema per test in
//! the database named by `GLEANER_TEST_POSTGRES_URL` (a database of its own for a test that
//! reads what is database-wide), dropped when the test ends; without that variable the
//! PostgreSQL variant of a test reports that it was skipped and passes.

#![allow(dead_code)]

pub mod farm;
pub mod faults;

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use gleaner::config::{Config, DatabaseTarget};
use gleaner::store::Store;
use sqlx::Connection;

pub const POSTGRES_URL_ENV: &str = "GLEANER_TEST_POSTGRES_URL";

/// The migrations' names in the order they apply, as `Store::applied_migrations` lists them.
pub const MIGRATIONS: &[&str] = &[
    "initial",
    "claims",
    "feed leases",
    "feed entries",
    "raw page encoding",
    "site templates",
    "page metadata",
    "blocked entries",
    "webhooks",
    "text compression",
    "search index per batch",
    "summary text",
    "verdict quality",
    "forgetting",
    "near duplicates",
    "article feeds",
    "lease generations",
    "page types",
    "enclosures and kinds",
    "search syntax",
    "tags",
];

/// The `gleaner` binary, run in `dir` with none of the caller's settings: no
/// `GLEANER_CONFIG`, `GLEANER_DATABASE_URL` or `RUST_LOG` leaks in from the environment.
pub fn gleaner_in(dir: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_gleaner"));
    command
        .current_dir(dir)
        .env_remove("GLEANER_CONFIG")
        .env_remove("GLEANER_DATABASE_URL")
        .env_remove("RUST_LOG");
    command
}

/// Sends signal `name` (`TERM`, `HUP`, …) to a child process, as `kill -NAME` does.
pub fn send_signal(child: &std::process::Child, name: &str) -> anyhow::Result<()> {
    let status = std::process::Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()?;
    anyhow::ensure!(status.success(), "kill -{name}");
    Ok(())
}

/// A fresh, migrated database that is removed when dropped.
pub struct TestDb {
    pub store: Store,
    pub target: DatabaseTarget,
    cleanup: Cleanup,
}

enum Cleanup {
    Sqlite(#[allow(dead_code)] tempfile::TempDir),
    Postgres { admin_url: String, schema: String },
    PostgresDatabase { admin_url: String, database: String },
}

impl TestDb {
    pub async fn sqlite() -> anyhow::Result<TestDb> {
        let dir = tempfile::tempdir()?;
        let target = DatabaseTarget::Sqlite {
            path: dir.path().join("gleaner.db"),
        };
        let store = Store::connect(&target).await?;
        Ok(TestDb {
            store,
            target,
            cleanup: Cleanup::Sqlite(dir),
        })
    }

    /// `None` (after saying so on standard error) when no PostgreSQL is configured.
    pub async fn postgres(test: &str) -> anyhow::Result<Option<TestDb>> {
        let Some(admin_url) = postgres_url() else {
            skipped(test);
            return Ok(None);
        };
        let schema = unique_name("gleaner_test");
        run_admin(&admin_url, format!("CREATE SCHEMA {schema}")).await?;
        let target = DatabaseTarget::Postgres {
            url: with_search_path(&admin_url, &schema),
        };
        let store = Store::connect(&target).await?;
        Ok(Some(TestDb {
            store,
            target,
            cleanup: Cleanup::Postgres { admin_url, schema },
        }))
    }

    /// Like [`TestDb::postgres`], in a database of its own rather than a schema: for a test
    /// that reads what is database-wide, such as `NOTIFY`, which the other tests' schemas
    /// would send into too.
    pub async fn postgres_own_database(test: &str) -> anyhow::Result<Option<TestDb>> {
        let Some(admin_url) = postgres_url() else {
            skipped(test);
            return Ok(None);
        };
        let database = unique_name("gleaner_test_db");
        run_admin(&admin_url, format!("CREATE DATABASE {database}")).await?;
        let mut url = url::Url::parse(&admin_url)?;
        url.set_path(&database);
        let target = DatabaseTarget::Postgres {
            url: url.to_string(),
        };
        let store = Store::connect(&target).await?;
        Ok(Some(TestDb {
            store,
            target,
            cleanup: Cleanup::PostgresDatabase {
                admin_url,
                database,
            },
        }))
    }

    /// The database URL a `config.toml` or `GLEANER_DATABASE_URL` would name.
    pub fn url(&self) -> String {
        match &self.target {
            DatabaseTarget::Sqlite { path } => format!("sqlite://{}", path.display()),
            DatabaseTarget::Postgres { url } => url.clone(),
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let (admin_url, statement) = match &self.cleanup {
            Cleanup::Sqlite(_) => return,
            Cleanup::Postgres { admin_url, schema } => (
                admin_url.clone(),
                format!("DROP SCHEMA IF EXISTS {schema} CASCADE"),
            ),
            Cleanup::PostgresDatabase {
                admin_url,
                database,
            } => (
                admin_url.clone(),
                format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
            ),
        };
        // Drop runs inside the test's runtime: do the async cleanup on a thread of its own.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(run_admin(&admin_url, statement))
        })
        .join();
    }
}

/// Runs one statement on the server `admin_url` names, on a connection of its own.
async fn run_admin(admin_url: &str, statement: String) -> anyhow::Result<()> {
    let mut admin = sqlx::PgConnection::connect(admin_url).await?;
    sqlx::query(sqlx::AssertSqlSafe(statement))
        .execute(&mut admin)
        .await?;
    admin.close().await?;
    Ok(())
}

pub fn postgres_url() -> Option<String> {
    std::env::var(POSTGRES_URL_ENV)
        .ok()
        .filter(|url| !url.trim().is_empty())
}

/// Says on the real standard error (past the test harness's capture) that a test did not run.
pub fn skipped(test: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {test} on PostgreSQL ({POSTGRES_URL_ENV} is not set)"
    );
}

/// A name unique to this process and call, safe as an SQL identifier.
pub fn unique_name(prefix: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{prefix}_{}_{}_{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Adds `search_path=<schema>` to a PostgreSQL URL's connection options.
fn with_search_path(url: &str, schema: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-c%20search_path%3D{schema}")
}

/// Runs each named `async fn(Store) -> anyhow::Result<()>` of the calling file once on a
/// fresh SQLite database (`sqlite::NAME`) and once on a fresh PostgreSQL schema
/// (`postgres::NAME`).
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() -> anyhow::Result<()> {
                    let db = $crate::common::TestDb::sqlite().await?;
                    super::$name(db.store.clone()).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() -> anyhow::Result<()> {
                    let Some(db) = $crate::common::TestDb::postgres(stringify!($name)).await? else {
                        return Ok(());
                    };
                    super::$name(db.store.clone()).await
                }
            )*
        }
    };
}

/// Like [`on_both_backends!`], but each test receives the whole [`TestDb`] (to name its URL in
/// a configuration).
#[macro_export]
macro_rules! on_both_databases {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() -> anyhow::Result<()> {
                    super::$name($crate::common::TestDb::sqlite().await?).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() -> anyhow::Result<()> {
                    let Some(db) = $crate::common::TestDb::postgres(stringify!($name)).await? else {
                        return Ok(());
                    };
                    super::$name(db).await
                }
            )*
        }
    };
}

/// Every stored article (up to 10,000), after checking that no URL is stored twice.
pub async fn distinct_articles(
    store: &Store,
) -> anyhow::Result<Vec<gleaner::store::ArticleSummary>> {
    let rows = store
        .list_articles(&gleaner::store::ArticleFilter {
            limit: 10_000,
            ..Default::default()
        })
        .await?;
    let mut urls = std::collections::HashSet::new();
    for row in &rows {
        anyhow::ensure!(urls.insert(row.url.as_str()), "{} stored twice", row.url);
    }
    Ok(rows)
}

/// One `poll --once --all` cycle: its totals and each feed's report, by feed name.
pub async fn poll(
    ctx: &gleaner::pipeline::Context,
) -> anyhow::Result<(
    gleaner::daemon::PollSummary,
    Vec<gleaner::pipeline::FeedReport>,
)> {
    let mut reports = Vec::new();
    let summary = gleaner::daemon::poll_once(
        ctx,
        true,
        &tokio_util::sync::CancellationToken::new(),
        |_| {},
        |r| reports.push(r.clone()),
    )
    .await?;
    reports.sort_by(|a, b| a.feed.cmp(&b.feed));
    Ok((summary, reports))
}

/// The path of a file under `tests/`.
pub fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(relative)
}

/// A configuration for a test, following `config.toml`'s defaults: each test sets only the
/// keys it is about.
pub struct TestConfig {
    database_url: String,
    tables: toml::Table,
    /// Each feed's name, URL and other keys.
    feeds: Vec<(String, String, toml::Table)>,
}

impl TestConfig {
    pub fn new(db: &TestDb) -> TestConfig {
        TestConfig {
            database_url: db.url(),
            tables: toml::Table::new(),
            feeds: Vec::new(),
        }
    }

    /// Fetching from the loopback farm: private networks allowed, no politeness delay, no
    /// robots.txt, short timeouts.
    pub fn loopback_farm(self) -> TestConfig {
        self.set("fetch", "allow_private_networks", true)
            .set("fetch", "per_host_delay_ms", 0)
            .set("fetch", "respect_robots_txt", false)
            .set("fetch", "timeout_seconds", 2)
    }

    pub fn feed(mut self, name: &str, url: impl Into<String>) -> TestConfig {
        self.feeds
            .push((name.to_string(), url.into(), toml::Table::new()));
        self
    }

    /// Sets a key of the feed added last.
    pub fn feed_set(mut self, key: &str, value: impl Into<toml::Value>) -> TestConfig {
        if let Some((_, _, keys)) = self.feeds.last_mut() {
            keys.insert(key.to_string(), value.into());
        }
        self
    }

    pub fn set(mut self, table: &str, key: &str, value: impl Into<toml::Value>) -> TestConfig {
        let entry = self
            .tables
            .entry(table.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let toml::Value::Table(table) = entry {
            table.insert(key.to_string(), value.into());
        }
        self
    }

    /// Appends one `[[name]]` table (`[[webhooks]]`, `[[sites]]`) with these keys.
    pub fn table_array(mut self, name: &str, keys: &[(&str, toml::Value)]) -> TestConfig {
        let table: toml::Table = keys
            .iter()
            .map(|(key, value)| (key.to_string(), value.clone()))
            .collect();
        let entry = self
            .tables
            .entry(name.to_string())
            .or_insert_with(|| toml::Value::Array(Vec::new()));
        if let toml::Value::Array(tables) = entry {
            tables.push(toml::Value::Table(table));
        }
        self
    }

    /// The configuration file's text.
    pub fn text(&self) -> String {
        let mut text = toml::to_string(&self.tables).unwrap_or_default();
        for (name, url, keys) in &self.feeds {
            text.push_str(&format!("\n[[feeds]]\nname = {name:?}\nurl = {url:?}\n"));
            for (key, value) in keys {
                text.push_str(&format!("{key} = {value}\n"));
            }
        }
        text
    }

    /// The configuration, with the test database as `GLEANER_DATABASE_URL` would name it.
    pub fn parse(&self) -> anyhow::Result<Config> {
        Ok(Config::parse(
            &self.text(),
            std::path::Path::new("config.toml"),
            Some(&self.database_url),
        )?)
    }

    /// Writes `config.toml` (naming the test database) into `dir`; returns its path.
    pub fn write(&self, dir: &std::path::Path) -> anyhow::Result<PathBuf> {
        let path = dir.join("config.toml");
        let database = format!("[database]\nurl = {:?}\n\n", self.database_url);
        std::fs::write(&path, database + &self.text())?;
        Ok(path)
    }
}
