-- How each raw page is compressed, SQLite dialect. migrations/postgres/0005_raw_page_encoding.sql
-- is the same change in PostgreSQL's dialect: change both together (tests/store_schema.rs
-- compares them).
--
-- `raw_page` was gzip (level 6) until now; new rows are zstd, which compresses as well at a
-- fraction of the CPU. Every reader decodes a row by its own `raw_encoding`, so rows written
-- before this migration stay readable as they are: `gzip` or `zstd`.

ALTER TABLE articles ADD COLUMN raw_encoding TEXT NOT NULL DEFAULT 'gzip';
