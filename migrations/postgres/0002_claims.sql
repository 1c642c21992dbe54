-- Consumers' work queue, PostgreSQL dialect. migrations/sqlite/0002_claims.sql is the same
-- table in SQLite's dialect: change both together (tests/store_schema.rs compares them).
--
-- One row per (consumer, article) once that consumer has claimed the article. `lease` counts
-- the claims and is the token a worker hands back when it is done (a stale token is refused);
-- `lease_until` is when the current claim expires (NULL once done); `result` is the consumer's
-- JSON output.

CREATE TABLE claims (
    consumer    TEXT        NOT NULL,
    article_id  BIGINT      NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    lease       BIGINT      NOT NULL,
    claimed_at  TIMESTAMPTZ NOT NULL,
    lease_until TIMESTAMPTZ,
    done_at     TIMESTAMPTZ,
    result      JSONB,
    PRIMARY KEY (consumer, article_id)
);
CREATE INDEX claims_article_idx ON claims (article_id);
