-- How each raw page is compressed, PostgreSQL dialect. migrations/sqlite/0005_raw_page_encoding.sql
-- is the same change in SQLite's dialect: change both together (tests/store_schema.rs compares
-- them).
--
-- `raw_page` was gzip (level 6) until now; new rows are zstd, which compresses as well at a
-- fraction of the CPU. Every reader decodes a row by its own `raw_encoding`, so rows written
-- before this migration stay readable as they are: `gzip` or `zstd`. A constant default adds
-- the column without rewriting the table.

ALTER TABLE articles ADD COLUMN raw_encoding TEXT NOT NULL DEFAULT 'gzip';

-- The bytes are compressed already: TOAST stores them out of line without compressing them a
-- second time (0001 says so too; repeated here so that the rule stands next to the encoding).
ALTER TABLE articles ALTER COLUMN raw_page SET STORAGE EXTERNAL;
