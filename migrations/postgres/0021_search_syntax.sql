-- Search finds the forms of a word, in the article's own language where PostgreSQL has a
-- stemmer for it, with the one syntax of `store::search` (migrations/sqlite/0021_search_syntax.sql
-- is the same step for SQLite).
--
-- The search vector was built with 'simple' (no stemming). It is now built with the text
-- search configuration of the article's stored language (`language`, an ISO 639-1 code):
-- one of PostgreSQL's Snowball stemmers where it has one (those every server since 12
-- ships), 'simple' for other languages, English for an article of no known language.
-- English is `gleaner_english`: the Snowball English stemmer without stop words, so that
-- "the" or "-the" mean on PostgreSQL what they mean on SQLite's `porter` index, which has
-- none.
--
-- Each vector also holds a marker lexeme naming its configuration (`'~ <oid>'`: the parser
-- never makes a lexeme with a space). `gleaner_search_query` reads the query's text with
-- every configuration and joins the readings as `(marker & reading) | …`: one tsquery that
-- the GIN index answers, in which each article is matched by the reading of its own
-- language only (an exclusion read with another language's stemmer would otherwise let it
-- in). A reading left with no lexeme (only another language's stop words) matches nothing.
CREATE TEXT SEARCH DICTIONARY gleaner_english_stem (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION gleaner_english (COPY = english);
ALTER TEXT SEARCH CONFIGURATION gleaner_english
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
    WITH gleaner_english_stem;

-- The configuration of each language code; codes not listed read as 'simple'.
CREATE FUNCTION gleaner_search_configs() RETURNS TABLE (language text, config regconfig)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT
    AS $$
    VALUES ('', 'gleaner_english'::regconfig), ('en', 'gleaner_english'), ('da', 'danish'),
           ('nl', 'dutch'), ('fi', 'finnish'), ('fr', 'french'), ('de', 'german'),
           ('hu', 'hungarian'), ('it', 'italian'), ('no', 'norwegian'), ('nb', 'norwegian'),
           ('nn', 'norwegian'), ('pt', 'portuguese'), ('ro', 'romanian'), ('ru', 'russian'),
           ('es', 'spanish'), ('sv', 'swedish'), ('tr', 'turkish')
    $$;

-- The configuration an article of `language` is searched with (`en-GB` reads as `en`).
CREATE FUNCTION gleaner_search_config(language text) RETURNS regconfig
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT
    AS $$
    SELECT coalesce(
        (SELECT c.config FROM gleaner_search_configs() c
         WHERE c.language = lower(split_part(replace(coalesce($1, ''), '_', '-'), '-', 1))),
        'simple'::regconfig)
    $$;

-- The lexeme that marks a vector built with `config`.
CREATE FUNCTION gleaner_search_marker(config regconfig) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT '~ ' || $1::oid::text $$;

CREATE AGGREGATE gleaner_tsquery_or (tsquery) (SFUNC = tsquery_or, STYPE = tsquery);

-- `query` (tsquery text naming no configuration, built by `SearchQuery::to_tsquery`) read
-- with every configuration, each reading limited to the articles built with it.
CREATE FUNCTION gleaner_search_query(query text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT
    AS $$
    SELECT gleaner_tsquery_or(quote_literal(gleaner_search_marker(config))::tsquery && reading)
    FROM (SELECT config, to_tsquery(config, $1) AS reading
          FROM (SELECT config FROM gleaner_search_configs()
                UNION SELECT 'simple'::regconfig) configs) readings
    WHERE numnode(reading) > 0
    $$;

ALTER TABLE articles DROP COLUMN search;
ALTER TABLE articles ADD COLUMN search TSVECTOR GENERATED ALWAYS AS (
    setweight(to_tsvector(gleaner_search_config(language), coalesce(title, '')), 'A') ||
    setweight(to_tsvector(gleaner_search_config(language), left(coalesce(text, ''), 262144)),
              'B') ||
    array_to_tsvector(ARRAY[gleaner_search_marker(gleaner_search_config(language))])
) STORED;
CREATE INDEX articles_search_idx ON articles USING GIN (search);
-- As migration 0010: LZ4 where the server has it, else pglz.
DO $$
BEGIN
    ALTER TABLE articles ALTER COLUMN search SET COMPRESSION lz4;
EXCEPTION
    WHEN feature_not_supported OR syntax_error OR invalid_parameter_value THEN
        RAISE NOTICE 'lz4 compression not available: the search vector keeps pglz';
END
$$;
