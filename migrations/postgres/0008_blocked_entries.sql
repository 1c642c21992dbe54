-- Blocked feed entries, PostgreSQL dialect. migrations/sqlite/0008_blocked_entries.sql is the same
-- change in SQLite's dialect: change both together (tests/store_schema.rs compares them).
--
-- A feed's `keep` / `block` filters may turn an entry away before its page is downloaded (or,
-- for a `text:` rule the entry alone cannot answer, after extraction). Such an entry keeps its
-- row in `feed_entries` with the state `blocked`, so that later polls neither judge it again
-- nor download it; `blocked_by` says why: the block rule that matched, or that no keep rule did.

ALTER TABLE feed_entries ADD COLUMN blocked_by TEXT;
