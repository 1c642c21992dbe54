-- Articles listed by several feeds, and near-duplicate clusters that follow their articles,
-- PostgreSQL dialect. migrations/sqlite/0017_article_feeds.sql is the same change in
-- SQLite's dialect: change both together (tests/store_schema.rs compares them).
--
-- `article_feeds`: one row per (feed, article) the feed lists, with that feed's own title,
-- author, date, summary and GUID: an article belongs to every feed that lists it, and each
-- feed's listing shows what that feed said of it (`author` and `published_at`: the feed's,
-- else the page's). `listed_at`: when the feed first listed it.
-- `articles.feed_id` and the article's own title, author, date, summary and GUID are those of
-- one member, its owner: the feed that publishes it (served from the article's own site) or
-- one marked trusted, else the first feed that listed it. Removing a feed deletes its rows
-- here; an article goes only when no feed lists it any more.
--
-- `feeds.trusted`: `trusted = true` in the feed's configuration. A trusted feed's article
-- becomes its near-duplicate cluster's representative.
--
-- `articles.duplicate_of` now names the cluster's representative, which changes when a
-- better one is stored and when the representative is deleted (its members then point at
-- the next one). Members left pointing at a pruned article by earlier versions point at the
-- first remaining member.

CREATE TABLE article_feeds (
    feed_id      BIGINT  NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    article_id   BIGINT  NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    guid         TEXT,
    title        TEXT    NOT NULL,
    author       TEXT,
    published_at TIMESTAMPTZ,
    summary      TEXT,
    summary_text TEXT,
    listed_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (feed_id, article_id)
);
CREATE INDEX article_feeds_article_idx ON article_feeds (article_id);
CREATE INDEX article_feeds_guid_idx ON article_feeds (feed_id, guid) WHERE guid IS NOT NULL;

INSERT INTO article_feeds (feed_id, article_id, guid, title, author, published_at, summary,
                           summary_text, listed_at)
SELECT feed_id, id, guid, title, author, published_at, summary, summary_text, fetched_at
FROM articles;

ALTER TABLE feeds ADD COLUMN trusted BOOLEAN NOT NULL DEFAULT FALSE;

CREATE TEMPORARY TABLE cluster_repair AS
    SELECT a.duplicate_of AS old_id, MIN(a.id) AS new_id FROM articles a
    WHERE a.duplicate_of IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM articles r WHERE r.id = a.duplicate_of)
    GROUP BY a.duplicate_of;
UPDATE articles
SET duplicate_of = (SELECT r.new_id FROM cluster_repair r WHERE r.old_id = articles.duplicate_of)
WHERE duplicate_of IN (SELECT old_id FROM cluster_repair);
UPDATE articles SET duplicate_of = NULL WHERE duplicate_of = id;
DROP TABLE cluster_repair;
