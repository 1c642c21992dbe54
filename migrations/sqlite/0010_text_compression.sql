-- How the article's HTML and text are compressed, SQLite dialect: SQLite stores values as
-- they are, so this step changes nothing here. migrations/postgres/0010_text_compression.sql
-- moves PostgreSQL's TOAST compression of `html` and `text` from pglz to LZ4; the step exists
-- in both dialects because tests/store_schema.rs asks them for the same migrations.
SELECT 1;
