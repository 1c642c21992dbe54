-- Webhooks, SQLite dialect. migrations/postgres/0009_webhooks.sql is the same change in
-- PostgreSQL's dialect: change both together (tests/store_schema.rs compares them).
--
-- `webhooks`: one row per `[[webhooks]]` entry ever configured, by `key` (a digest of its URL;
-- the URL and secret stay in config.toml). `active` while configured; `all_feeds` when it has
-- no `feeds` list, else `webhook_feeds` names its feeds. Both are rewritten from the
-- configuration at start and on every reload.
--
-- `webhook_deliveries`: one row per (webhook, article), written in the transaction that stores
-- the article, so a stored article never lacks its deliveries. `state`: `pending` (sent
-- `attempts` times without success; due from `next_attempt_at`), `delivered` (a 2xx answer
-- at `delivered_at`), `failed` (given up after the last attempt). `last_error` says why the
-- last attempt failed. Timestamps are RFC 3339 text in UTC.

CREATE TABLE webhooks (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    key       TEXT    NOT NULL UNIQUE,
    active    BOOLEAN NOT NULL DEFAULT TRUE,
    all_feeds BOOLEAN NOT NULL DEFAULT TRUE
);

CREATE TABLE webhook_feeds (
    webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    feed_id    INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    PRIMARY KEY (webhook_id, feed_id)
);

CREATE TABLE webhook_deliveries (
    webhook_id      INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    article_id      INTEGER NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    state           TEXT    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT    NOT NULL,
    delivered_at    TEXT,
    last_error      TEXT,
    created_at      TEXT    NOT NULL,
    PRIMARY KEY (webhook_id, article_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (state, next_attempt_at);
