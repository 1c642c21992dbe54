-- When each remembered feed entry was last listed by its feed, SQLite dialect.
-- migrations/postgres/0015_entry_last_seen.sql is the same change in the other dialect: change
-- both together (tests/store_schema.rs compares them).
--
-- `feed_entries.last_seen_at`: set every time a read of the feed document lists the entry
-- (NULL for rows remembered before this migration: their `first_seen_at` stands in). A
-- settled entry (stored, given up, blocked) that its feed stopped listing is forgotten some
-- time later (`Store::forget_entries`); one still listed is kept, so that its page is not
-- downloaded again even after its article was pruned.

ALTER TABLE feed_entries ADD COLUMN last_seen_at TEXT;
