-- Near-duplicate articles: the same story stored from several feeds or sites, PostgreSQL
-- dialect. migrations/sqlite/0016_near_duplicates.sql is the same change in SQLite's
-- dialect: change both together (tests/store_schema.rs compares them).
--
-- `articles.fingerprint`: the MinHash signature of the article's text (`fingerprint.rs`:
-- 64 values of 4 bytes, little-endian); NULL when the text is too short to have one, and for
-- rows stored before this migration until `gleaner reextract` gives them one.
-- `articles.duplicate_of`: NULL, or the id of the first article of the cluster this one
-- repeats; every member points at the first, the first at nothing. Set once, when the
-- article is stored; no foreign key: it keeps naming the first article after that one is
-- pruned, so that the cluster's members still agree.
-- `article_band_keys`: one row per band of each fingerprint, so that a new article's
-- candidates are an index lookup on `band_key`; the index on `article_id` lets a pruned
-- article take its rows with it.

ALTER TABLE articles ADD COLUMN fingerprint BYTEA;
ALTER TABLE articles ADD COLUMN duplicate_of BIGINT;
CREATE INDEX articles_duplicate_of_idx ON articles (duplicate_of) WHERE duplicate_of IS NOT NULL;

CREATE TABLE article_band_keys (
    band_key   BIGINT NOT NULL,
    article_id BIGINT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    PRIMARY KEY (band_key, article_id)
);
CREATE INDEX article_band_keys_article_idx ON article_band_keys (article_id);

-- `webhooks.skip_duplicates`: the receiver takes one article per cluster (its first).
ALTER TABLE webhooks ADD COLUMN skip_duplicates BOOLEAN NOT NULL DEFAULT FALSE;
