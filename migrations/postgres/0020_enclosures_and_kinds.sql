-- Each entry's enclosures and media, and what kind of entry each article came from,
-- PostgreSQL dialect. migrations/sqlite/0020_enclosures_and_kinds.sql is the same change in
-- SQLite's dialect, with the columns explained: change both together (tests/store_schema.rs
-- compares them).

ALTER TABLE feed_entries ADD COLUMN enclosures JSONB NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE articles ADD COLUMN enclosures JSONB NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE articles ADD COLUMN kind TEXT NOT NULL DEFAULT 'article';
