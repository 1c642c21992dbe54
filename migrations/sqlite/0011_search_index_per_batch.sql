-- The full-text index is written once per batch of stored articles instead of by a trigger
-- per article. FTS5 flushes its pending terms into a new segment at every statement
-- savepoint, and a trigger gives each article insert one: a batch of N articles wrote N
-- segments and merged them. `Store::write_batch` now inserts the batch's rows into
-- `articles_fts` in one statement, last in the transaction that stores them. Deletes and
-- updates keep their triggers (one row at a time: retention and re-extraction).
DROP TRIGGER IF EXISTS articles_fts_after_insert;
