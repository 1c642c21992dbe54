//! The two dialects of the schema cannot drift: same migrations, same tables, same columns.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::TestDb;

type Schema = BTreeMap<String, BTreeSet<String>>;

/// Objects that exist on one backend only, by design: SQLite's FTS5 tables, PostgreSQL's
/// generated tsvector column, and each engine's bookkeeping.
fn is_backend_specific(table: &str, column: Option<&str>) -> bool {
    table.starts_with("articles_fts")
        || table.starts_with("sqlite_")
        || (table == "articles" && column == Some("search"))
}

fn migration_names(dir: &str) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

#[test]
fn both_dialects_have_the_same_migrations() -> anyhow::Result<()> {
    let sqlite = migration_names("migrations/sqlite")?;
    let postgres = migration_names("migrations/postgres")?;
    assert!(!sqlite.is_empty());
    assert_eq!(sqlite, postgres);
    Ok(())
}

async fn sqlite_schema() -> anyhow::Result<Schema> {
    let db = TestDb::sqlite().await?;
    let gleaner::config::DatabaseTarget::Sqlite { path } = &db.target else {
        anyhow::bail!("not SQLite");
    };
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display())).await?;
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
         WHERE m.type = 'table'",
    )
    .fetch_all(&pool)
    .await?;
    Ok(collect(rows))
}

async fn postgres_schema(db: &TestDb) -> anyhow::Result<Schema> {
    let gleaner::config::DatabaseTarget::Postgres { url } = &db.target else {
        anyhow::bail!("not PostgreSQL");
    };
    let pool = sqlx::PgPool::connect(url).await?;
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text FROM information_schema.columns
         WHERE table_schema = current_schema()",
    )
    .fetch_all(&pool)
    .await?;
    Ok(collect(rows))
}

fn collect(rows: Vec<(String, String)>) -> Schema {
    let mut schema = Schema::new();
    for (table, column) in rows {
        if !is_backend_specific(&table, Some(&column)) {
            schema.entry(table).or_default().insert(column);
        }
    }
    schema
}

#[tokio::test]
async fn both_dialects_have_the_same_tables_and_columns() -> anyhow::Result<()> {
    let sqlite = sqlite_schema().await?;
    for table in [
        "feeds",
        "articles",
        "images",
        "image_blobs",
        "failures",
        "_sqlx_migrations",
    ] {
        assert!(sqlite.contains_key(table), "SQLite has {table}");
    }
    let Some(db) = TestDb::postgres("both_dialects_have_the_same_tables_and_columns").await? else {
        return Ok(());
    };
    let postgres = postgres_schema(&db).await?;
    assert_eq!(sqlite, postgres);
    Ok(())
}

#[tokio::test]
async fn postgres_compresses_articles_and_site_models_with_lz4_where_the_server_can()
-> anyhow::Result<()> {
    let Some(db) = TestDb::postgres("postgres_compresses_html_and_text_with_lz4").await? else {
        return Ok(());
    };
    let gleaner::config::DatabaseTarget::Postgres { url } = &db.target else {
        anyhow::bail!("not PostgreSQL");
    };
    let pool = sqlx::PgPool::connect(url).await?;
    // A server without LZ4 refuses the setting; the migration then keeps pglz.
    let lz4 = sqlx::query("SET default_toast_compression = 'lz4'")
        .execute(&pool)
        .await
        .is_ok();
    let methods: Vec<(String, String)> = sqlx::query_as(
        "SELECT attname::text, attcompression::text FROM pg_attribute
         WHERE (attrelid = 'articles'::regclass AND attname IN ('html', 'text', 'search'))
            OR (attrelid = 'site_templates'::regclass AND attname = 'model')
         ORDER BY attname",
    )
    .fetch_all(&pool)
    .await?;
    let expected = if lz4 { "l" } else { "" };
    assert_eq!(
        methods,
        ["html", "model", "search", "text"]
            .map(|column| (column.to_string(), expected.to_string()))
            .to_vec()
    );
    Ok(())
}
