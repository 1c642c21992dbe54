-- Search finds the forms of a word: the full-text index is rebuilt with the `porter`
-- tokenizer (English stemming) around `unicode61`, so that "running" finds "runs" and "run".
-- Everything else about the index stays as migrations 0001 and 0011 made it: external
-- content (`articles`), diacritics removed, rows written once per stored batch
-- (`sql::INDEX_STORED_ARTICLES`), deletes and updates kept by triggers. The triggers name the
-- table, so they are dropped with it and made again; `rebuild` indexes every stored article.
-- migrations/postgres/0021_search_syntax.sql is the same step for PostgreSQL.
DROP TRIGGER IF EXISTS articles_fts_after_delete;
DROP TRIGGER IF EXISTS articles_fts_after_update;
DROP TABLE articles_fts;
CREATE VIRTUAL TABLE articles_fts USING fts5 (
    title, text,
    content = 'articles', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER articles_fts_after_delete AFTER DELETE ON articles BEGIN
    INSERT INTO articles_fts (articles_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
END;
CREATE TRIGGER articles_fts_after_update AFTER UPDATE OF title, text ON articles BEGIN
    INSERT INTO articles_fts (articles_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
    INSERT INTO articles_fts (rowid, title, text) VALUES (new.id, new.title, new.text);
END;
INSERT INTO articles_fts (articles_fts) VALUES ('rebuild');
