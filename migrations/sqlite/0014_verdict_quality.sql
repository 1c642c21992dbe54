-- What each stored article's page was and how good its text is likely to be, and the feed
-- entry's own text, SQLite dialect. migrations/postgres/0014_verdict_quality.sql is the same
-- change in PostgreSQL's dialect: change both together (tests/store_schema.rs compares them).
--
-- `articles.verdict`: what the page was (`extract::Verdict`): `article` or `teaser` when the
-- text is the page's; with `extractor = 'feed'` the text is the feed entry's own, and the
-- verdict still says what the page was (`teaser`, `blocked`, `not_found`, …). Rows stored
-- before this migration were stored as articles: `article`.
-- `articles.quality`: the extraction's expected F1, in [0, 1]; NULL for rows stored before
-- this migration (`gleaner reextract` gives them one).
-- `feed_entries.content`: the entry's full content as the feed gave it (RSS
-- `content:encoded`, Atom `content`, JSON Feed `content_html`/`content_text`), kept while
-- the entry waits so that a retry can store it instead of a page that is not an article;
-- cleared once the entry is settled.

ALTER TABLE articles ADD COLUMN verdict TEXT NOT NULL DEFAULT 'article';
ALTER TABLE articles ADD COLUMN quality REAL;
ALTER TABLE feed_entries ADD COLUMN content TEXT;
