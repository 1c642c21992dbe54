-- How PostgreSQL compresses the article's HTML, text and search vector, and a site's template
-- model, PostgreSQL dialect.
-- migrations/sqlite/0010_text_compression.sql is the same step for SQLite, which compresses
-- nothing (tests/store_schema.rs asks both dialects for the same migrations).
--
-- TOAST compressed these with pglz, the default: `html`, `text` and the `search` vector of
-- every article, and the site's template model, which is rewritten as each of the site's
-- articles is stored. On a first poll of real pages that was about a fifth of the server's
-- CPU per article (docs/performance.md). LZ4 compresses
-- them nearly as well at a fraction of the CPU. Only new values are written with it; a
-- value stored before stays pglz, and PostgreSQL reads either. A server built without LZ4
-- support, or older than 14 (no per-column compression), keeps pglz: the block below then
-- changes nothing rather than failing the migration.
DO $$
BEGIN
    ALTER TABLE articles ALTER COLUMN html SET COMPRESSION lz4;
    ALTER TABLE articles ALTER COLUMN text SET COMPRESSION lz4;
    ALTER TABLE articles ALTER COLUMN search SET COMPRESSION lz4;
    ALTER TABLE site_templates ALTER COLUMN model SET COMPRESSION lz4;
EXCEPTION
    WHEN feature_not_supported OR syntax_error OR invalid_parameter_value THEN
        RAISE NOTICE 'lz4 compression not available: articles keep pglz';
END
$$;
