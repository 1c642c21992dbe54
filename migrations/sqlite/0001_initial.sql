-- gleaner schema, SQLite dialect. migrations/postgres/0001_initial.sql is the same schema in
-- PostgreSQL's dialect: change both together (tests/store_schema.rs compares them).
-- Timestamps are RFC 3339 text in UTC; raw pages are gzip.

CREATE TABLE feeds (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    name            TEXT    NOT NULL UNIQUE,
    url             TEXT    NOT NULL,
    schedule        TEXT    NOT NULL,
    active          BOOLEAN NOT NULL DEFAULT TRUE,
    title           TEXT,
    site_url        TEXT,
    etag            TEXT,
    last_modified   TEXT,
    last_polled_at  TEXT,
    last_status     TEXT,
    last_error      TEXT,
    error_count     INTEGER NOT NULL DEFAULT 0,
    next_due_at     TEXT,
    created_at      TEXT    NOT NULL
);
CREATE INDEX feeds_next_due_idx ON feeds (next_due_at);

CREATE TABLE articles (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    feed_id          INTEGER NOT NULL REFERENCES feeds (id),
    guid             TEXT,
    url              TEXT    NOT NULL UNIQUE,
    canonical_url    TEXT,
    title            TEXT    NOT NULL,
    author           TEXT,
    summary          TEXT,
    published_at     TEXT,
    fetched_at       TEXT    NOT NULL,
    language         TEXT,
    extractor        TEXT    NOT NULL,
    confidence       REAL    NOT NULL,
    text             TEXT    NOT NULL,
    html             TEXT    NOT NULL,
    word_count       INTEGER NOT NULL,
    content_hash     TEXT    NOT NULL,
    raw_page         BLOB,
    raw_content_type TEXT,
    UNIQUE (feed_id, guid)
);
CREATE INDEX articles_feed_idx ON articles (feed_id, id);
CREATE INDEX articles_fetched_idx ON articles (fetched_at);
CREATE INDEX articles_published_idx ON articles (published_at);

CREATE TABLE image_blobs (
    sha256     TEXT    PRIMARY KEY,
    mime       TEXT    NOT NULL,
    size       INTEGER NOT NULL,
    bytes      BLOB    NOT NULL,
    created_at TEXT    NOT NULL
);

CREATE TABLE images (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    article_id INTEGER NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    url        TEXT    NOT NULL,
    alt        TEXT,
    caption    TEXT,
    width      INTEGER,
    height     INTEGER,
    mime       TEXT,
    size       INTEGER,
    sha256     TEXT    REFERENCES image_blobs (sha256),
    UNIQUE (article_id, position)
);
CREATE INDEX images_sha256_idx ON images (sha256);

CREATE TABLE failures (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    occurred_at TEXT    NOT NULL,
    feed_id     INTEGER REFERENCES feeds (id),
    article_url TEXT,
    stage       TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    message     TEXT    NOT NULL
);
CREATE INDEX failures_occurred_idx ON failures (occurred_at);
CREATE INDEX failures_feed_idx ON failures (feed_id, occurred_at);
CREATE INDEX failures_article_idx ON failures (article_url);

-- Full-text search over title + text: an external-content FTS5 index kept by triggers.
CREATE VIRTUAL TABLE articles_fts USING fts5 (
    title, text,
    content = 'articles', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER articles_fts_after_insert AFTER INSERT ON articles BEGIN
    INSERT INTO articles_fts (rowid, title, text) VALUES (new.id, new.title, new.text);
END;
CREATE TRIGGER articles_fts_after_delete AFTER DELETE ON articles BEGIN
    INSERT INTO articles_fts (articles_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
END;
CREATE TRIGGER articles_fts_after_update AFTER UPDATE OF title, text ON articles BEGIN
    INSERT INTO articles_fts (articles_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
    INSERT INTO articles_fts (rowid, title, text) VALUES (new.id, new.title, new.text);
END;
