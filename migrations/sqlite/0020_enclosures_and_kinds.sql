-- Each entry's enclosures and media, and what kind of entry each article came from, SQLite
-- dialect. migrations/postgres/0020_enclosures_and_kinds.sql is the same change in
-- PostgreSQL's dialect: change both together (tests/store_schema.rs compares them).
--
-- `feed_entries.enclosures` and `articles.enclosures`: a JSON array of
-- `{"url", "media_type", "length", "duration_seconds", "thumbnail_url"}`
-- (`store::Enclosure`), in the feed's order: RSS `<enclosure>`, Atom `rel="enclosure"`
-- links, Media RSS `media:content` with its group's thumbnail and duration (iTunes
-- `itunes:duration`). The entry keeps them until its article is stored; the article keeps
-- them as a column of its row, so they go wherever the row goes. `[]` when there are none,
-- and on rows stored before this migration.
-- `articles.kind`: what the feed entry is (`article`, `video`, `audio`, `post`); `article`
-- on rows stored before this migration.

ALTER TABLE feed_entries ADD COLUMN enclosures TEXT NOT NULL DEFAULT '[]';
ALTER TABLE articles ADD COLUMN enclosures TEXT NOT NULL DEFAULT '[]';
ALTER TABLE articles ADD COLUMN kind TEXT NOT NULL DEFAULT 'article';
