-- Feed entries, SQLite dialect. migrations/postgres/0004_feed_entries.sql is the same change in
-- PostgreSQL's dialect: change both together (tests/store_schema.rs compares them).
--
-- Every entry of a fetched feed document is written here, `pending`, before the feed's new
-- ETag/Last-Modified are saved: once the validators hide the document behind 304 answers, this
-- row is what remembers the entry. A row carries all the pipeline needs to process the entry
-- without the feed document. `state`: `pending` (never tried, or its poll was cut short),
-- `retrying` (failed `attempts` times; tried again from `next_attempt_at`), `stored` (its
-- article is in `articles`), `given_up` (failed too often, or failed in a way that would fail
-- again). Timestamps are RFC 3339 text in UTC.

CREATE TABLE feed_entries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    feed_id         INTEGER NOT NULL REFERENCES feeds (id),
    guid            TEXT,
    url             TEXT    NOT NULL,
    title           TEXT    NOT NULL,
    author          TEXT,
    summary         TEXT,
    published_at    TEXT,
    state           TEXT    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT    NOT NULL,
    last_error      TEXT,
    first_seen_at   TEXT    NOT NULL,
    UNIQUE (feed_id, url)
);
CREATE INDEX feed_entries_due_idx ON feed_entries (feed_id, state, next_attempt_at);
