-- What the page says about itself when the feed does not, PostgreSQL dialect.
-- migrations/sqlite/0007_page_metadata.sql is the same change in the other dialect: change both
-- together (tests/store_schema.rs compares them).
--
-- `author` and `published_at` are filled from the page when the feed entry has none; the
-- `*_source` columns say where each value was read: `feed`, `json-ld` (schema.org JSON-LD),
-- `open-graph` (`og:*`, `article:*`) or `meta` (another `<meta>`). NULL when there is no value.

ALTER TABLE articles ADD COLUMN author_source TEXT;
ALTER TABLE articles ADD COLUMN published_source TEXT;
ALTER TABLE articles ADD COLUMN lead_image_url TEXT;
ALTER TABLE articles ADD COLUMN lead_image_source TEXT;
ALTER TABLE articles ADD COLUMN site_name TEXT;
ALTER TABLE articles ADD COLUMN site_name_source TEXT;
