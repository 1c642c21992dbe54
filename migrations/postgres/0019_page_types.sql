-- What kind of page each stored article is, and a forum thread's posts, PostgreSQL dialect.
-- migrations/sqlite/0019_page_types.sql is the same change in SQLite's dialect: change both
-- together (tests/store_schema.rs compares them).
--
-- `articles.page_type`: `extract::PageType` (`article`, `forum`, `product`, `collection`,
-- `listing`, `documentation`, `service`): what the page was detected as, or what its feed's
-- or site's `page_type` says. Rows stored before this migration were stored as articles:
-- `article`. Indexed with the id, so that a listing of one type reads one page of rows.
-- `articles.posts`: a forum thread's posts in page order, a JSON array of
-- `{"author", "published_at", "text"}` (`extract::page_type::Post`); `[]` on every other
-- page. A column of the article's row, so the posts go wherever the row goes (a prune, a
-- purge) and are replaced with the text by `gleaner reextract`. Compressed like the text
-- (migration 0010) where the server has LZ4.

ALTER TABLE articles ADD COLUMN page_type TEXT NOT NULL DEFAULT 'article';
ALTER TABLE articles ADD COLUMN posts JSONB NOT NULL DEFAULT '[]'::jsonb;
CREATE INDEX articles_page_type_idx ON articles (page_type, id);

DO $$
BEGIN
    ALTER TABLE articles ALTER COLUMN posts SET COMPRESSION lz4;
EXCEPTION
    WHEN feature_not_supported OR syntax_error OR invalid_parameter_value THEN
        RAISE NOTICE 'lz4 compression not available: posts keep pglz';
END
$$;
