-- Site templates, SQLite dialect. migrations/postgres/0006_site_templates.sql is the same
-- change in PostgreSQL's dialect: change both together (tests/store_schema.rs compares them).
--
-- One row per site (the host of an article's address, without `www.`): the template model
-- learned from the site's stored pages (`model`, JSON: the page count and the block
-- fingerprints with how many pages each occurred on and when last; see
-- src/extract/template.rs), kept up to date as articles are stored and read before each
-- extraction, by every replica. `pages` pages learned; `fingerprints` in the model,
-- `template_blocks` of them counting as template; `applied_pages` pages the model removed
-- something from: `removed_blocks` blocks holding `removed_bytes` bytes of text in all. Timestamps are RFC 3339 text in UTC.

CREATE TABLE site_templates (
    site            TEXT    PRIMARY KEY,
    pages           INTEGER NOT NULL DEFAULT 0,
    fingerprints    INTEGER NOT NULL DEFAULT 0,
    template_blocks INTEGER NOT NULL DEFAULT 0,
    applied_pages   INTEGER NOT NULL DEFAULT 0,
    removed_blocks  INTEGER NOT NULL DEFAULT 0,
    removed_bytes   INTEGER NOT NULL DEFAULT 0,
    model           TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL
);
