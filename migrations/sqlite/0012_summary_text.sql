-- The plain text of an article's summary, SQLite dialect. migrations/postgres/0012_summary_text.sql
-- is the same change in PostgreSQL's dialect: change both together (tests/store_schema.rs compares
-- them).
--
-- From this version on, `summary` holds the feed entry's summary sanitized with the article's
-- policy (tidy::sanitize: no script, no event handler, no foreign scheme), and `summary_text`
-- its plain text, for consumers that show text. Articles stored before keep the summary as the
-- feed gave it, and no text.

ALTER TABLE articles ADD COLUMN summary_text TEXT;
