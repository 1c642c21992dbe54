-- Each article's tags, PostgreSQL dialect. migrations/sqlite/0022_tags.sql is the same change
-- in SQLite's dialect, with the table explained: change both together (tests/store_schema.rs
-- compares them).

CREATE TABLE article_tags (
    article_id BIGINT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    tag        TEXT   NOT NULL,
    PRIMARY KEY (article_id, tag)
);
CREATE INDEX article_tags_tag_idx ON article_tags (lower(tag), article_id);

ALTER TABLE feed_entries ADD COLUMN tags JSONB NOT NULL DEFAULT '[]'::jsonb;
