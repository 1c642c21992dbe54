-- Site templates, PostgreSQL dialect. migrations/sqlite/0006_site_templates.sql is the same
-- change in SQLite's dialect: change both together (tests/store_schema.rs compares them).
--
-- One row per site (the host of an article's address, without `www.`): the template model
-- learned from the site's stored pages (`model`, JSON: the page count and the block
-- fingerprints with how many pages each occurred on and when last; see
-- src/extract/template.rs), kept up to date as articles are stored and read before each
-- extraction, by every replica. `pages` pages learned; `fingerprints` in the model,
-- `template_blocks` of them counting as template; `applied_pages` pages the model removed
-- something from: `removed_blocks` blocks holding `removed_bytes` bytes of text in all.

CREATE TABLE site_templates (
    site            TEXT        PRIMARY KEY,
    pages           BIGINT      NOT NULL DEFAULT 0,
    fingerprints    BIGINT      NOT NULL DEFAULT 0,
    template_blocks BIGINT      NOT NULL DEFAULT 0,
    applied_pages   BIGINT      NOT NULL DEFAULT 0,
    removed_blocks  BIGINT      NOT NULL DEFAULT 0,
    removed_bytes   BIGINT      NOT NULL DEFAULT 0,
    model           TEXT        NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);
