-- Consumers' work queue, SQLite dialect. migrations/postgres/0002_claims.sql is the same table
-- in PostgreSQL's dialect: change both together (tests/store_schema.rs compares them).
--
-- One row per (consumer, article) once that consumer has claimed the article. `lease` counts
-- the claims and is the token a worker hands back when it is done (a stale token is refused);
-- `lease_until` is when the current claim expires (NULL once done); `result` is the consumer's
-- JSON output, kept as text. Timestamps are RFC 3339 text in UTC.

CREATE TABLE claims (
    consumer    TEXT    NOT NULL,
    article_id  INTEGER NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    lease       INTEGER NOT NULL,
    claimed_at  TEXT    NOT NULL,
    lease_until TEXT,
    done_at     TEXT,
    result      TEXT,
    PRIMARY KEY (consumer, article_id)
);
CREATE INDEX claims_article_idx ON claims (article_id);
