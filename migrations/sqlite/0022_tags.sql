-- Each article's tags, SQLite dialect. migrations/postgres/0022_tags.sql is the same change in
-- PostgreSQL's dialect: change both together (tests/store_schema.rs compares them).
--
-- `article_tags`: one row per (article, tag): the categories its feed entry gave (RSS
-- `<category>`, Atom `category@term`, JSON Feed `tags`) and the feed's configured `tags`, of
-- each feed that lists it (added when it first lists it), in the spelling first met; tags
-- that differ only by case are one. The rows go with their article (ON DELETE CASCADE).
-- `article_tags_tag_idx` finds a tag's articles whatever its case; a listing's tag filter
-- checks each row it reads on the primary key instead, so that a page still reads in id
-- order.
-- `feed_entries.tags`: a JSON array of the entry's own tags, kept until its article is
-- stored; `[]` on rows remembered before this migration.

CREATE TABLE article_tags (
    article_id INTEGER NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    tag        TEXT    NOT NULL,
    PRIMARY KEY (article_id, tag)
);
CREATE INDEX article_tags_tag_idx ON article_tags (lower(tag), article_id);

ALTER TABLE feed_entries ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
