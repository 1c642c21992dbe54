//! Setting a database up: processes that start together on a fresh database all succeed
//! (SQLite and PostgreSQL; a read on SQLite that comes before the file exists says there is
//! no database yet), and a read-only SQLite file can still be read.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use anyhow::Context as _;
use gleaner::config::DatabaseTarget;
use gleaner::store::Store;
use sqlx::Connection as _;

const BINARY: &str = env!("CARGO_BIN_EXE_gleaner");

/// How many processes or connections start at once.
const RACERS: usize = 10;

const CONFIG: &str = "[[feeds]]\nname = \"news\"\nurl = \"https://news.example/feed\"\n";

fn gleaner(dir: &Path, database_url: &str) -> Command {
    let mut command = common::gleaner_in(dir);
    command.env("GLEANER_DATABASE_URL", database_url);
    command
}

/// `gleaner migrate` and read commands started together on `database_url`: each command
/// with its output.
fn race_processes(
    dir: &Path,
    database_url: &str,
) -> anyhow::Result<Vec<(&'static [&'static str], Output)>> {
    let commands: [&'static [&'static str]; 3] = [&["migrate"], &["export"], &["articles", "list"]];
    let children: Vec<(&[&str], std::process::Child)> = (0..RACERS)
        .map(|n| {
            let args = commands[n % commands.len()];
            gleaner(dir, database_url)
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .map(|child| (args, child))
        })
        .collect::<Result<_, _>>()?;
    Ok(children
        .into_iter()
        .map(|(args, child)| child.wait_with_output().map(|output| (args, output)))
        .collect::<Result<_, _>>()?)
}

/// Every `migrate` sets the file up or finds it set up; a read never creates it, so one that
/// comes before the file exists says there is no database yet, and nothing else.
#[test]
fn processes_starting_together_on_a_fresh_sqlite_file_all_succeed() -> anyhow::Result<()> {
    for _ in 0..3 {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("config.toml"), CONFIG)?;
        let url = format!("sqlite://{}", dir.path().join("data/gleaner.db").display());
        for (args, output) in race_processes(dir.path(), &url)? {
            let err = String::from_utf8_lossy(&output.stderr);
            let no_database_yet = args != ["migrate"] && err.contains("no database at");
            assert!(
                output.status.success() || no_database_yet,
                "{args:?}: {:?}: {err}",
                output.status
            );
        }
        let read = gleaner(dir.path(), &url).arg("export").output()?;
        assert!(read.status.success(), "{read:?}");
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_racing_on_a_fresh_database_all_succeed() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let sqlite = DatabaseTarget::Sqlite {
        path: dir.path().join("gleaner.db"),
    };
    race_connections(&sqlite).await?;
    let Some(admin_url) = common::postgres_url() else {
        common::skipped("connections_racing_on_a_fresh_database_all_succeed");
        return Ok(());
    };
    let schema = common::unique_name("gleaner_setup");
    let mut admin = sqlx::PgConnection::connect(&admin_url).await?;
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .execute(&mut admin)
        .await?;
    let separator = if admin_url.contains('?') { '&' } else { '?' };
    let postgres = DatabaseTarget::Postgres {
        url: format!("{admin_url}{separator}options=-c%20search_path%3D{schema}"),
    };
    let raced = race_connections(&postgres).await;
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
        .execute(&mut admin)
        .await?;
    raced
}

async fn race_connections(target: &DatabaseTarget) -> anyhow::Result<()> {
    let mut racers = tokio::task::JoinSet::new();
    for _ in 0..RACERS {
        let target = target.clone();
        racers.spawn(async move { Store::connect(&target).await });
    }
    while let Some(connected) = racers.join_next().await {
        let store = connected?.with_context(|| target.display_redacted())?;
        assert_eq!(store.applied_migrations().await?.len(), migrations_known());
        store.close().await;
    }
    Ok(())
}

fn migrations_known() -> usize {
    std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite"))
        .map(|dir| dir.count())
        .unwrap_or(0)
}

/// The read commands on an SQLite file that the user running them cannot write (0444 in a
/// 0555 directory), run as `nobody` since root ignores file permissions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_sqlite_file_can_be_read() -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let setpriv = Path::new("/usr/bin/setpriv");
    let is_root = std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt as _;
        m.uid() == 0
    });
    if !setpriv.exists() || !is_root {
        eprintln!("skipped: a_read_only_sqlite_file_can_be_read needs root and setpriv");
        return Ok(());
    }
    let root = tempfile::tempdir()?;
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755))?;
    std::fs::write(root.path().join("config.toml"), CONFIG)?;
    let data = root.path().join("data");
    let path = data.join("gleaner.db");
    let store = Store::connect(&DatabaseTarget::Sqlite { path: path.clone() }).await?;
    let config = gleaner::config::Config::parse(CONFIG, &root.path().join("config.toml"), None)?;
    store.sync_feeds(&config.feeds).await?;
    store.close().await;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444))?;
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o555))?;

    // What the writer left: on a loaded machine its `-wal` and `-shm` have been seen to stay
    // after its pool closed. The commands below must add nothing to it.
    let before = directory_names(&data)?;
    let url = format!("sqlite://{}", path.display());
    for args in [
        vec!["articles", "list"],
        vec!["articles", "search", "word"],
        vec!["export"],
        vec!["feeds"],
        vec!["failures"],
    ] {
        let output = Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", BINARY])
            .args(&args)
            .current_dir(root.path())
            .env("GLEANER_DATABASE_URL", &url)
            .env_remove("GLEANER_CONFIG")
            .env_remove("RUST_LOG")
            .output()?;
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // Nothing was created beside the file.
    let after = directory_names(&data)?;
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755))?;
    assert_eq!(after, before);
    assert!(before.contains(&"gleaner.db".to_string()), "{before:?}");
    Ok(())
}

/// The names in a directory, sorted.
fn directory_names(dir: &std::path::Path) -> std::io::Result<Vec<String>> {
    let mut names = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<Vec<String>>>()?;
    names.sort();
    Ok(names)
}
