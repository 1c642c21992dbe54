-- SQLite's full-text index is written once per batch of stored articles instead of by a
-- trigger per article (migrations/sqlite/0011_search_index_per_batch.sql). PostgreSQL's
-- search vector is computed from the row itself, so this step changes nothing here; it
-- exists in both dialects because tests/store_schema.rs asks them for the same migrations.
SELECT 1;
