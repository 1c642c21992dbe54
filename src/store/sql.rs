//! Every statement the store sends, in one place.
//!
//! Plain `&str` constants run unchanged on both backends (`$N` placeholders, `ON CONFLICT`,
//! `RETURNING` and `TRUE` are common to SQLite ≥ 3.35 and PostgreSQL). [`Dialects`] pairs are
//! the statements that must differ; their two texts stand next to each other on purpose.
//! Values are only ever bound, never formatted into SQL. Over 600 lines on purpose: one
//! file holds every statement, so that the SQL is read and reviewed in one place.

use super::Dialects;

// --- dialect pairs ---

pub(super) const BEGIN_WRITE: Dialects = Dialects {
    sqlite: "BEGIN IMMEDIATE",
    postgres: "BEGIN",
};

/// Serializes article inserts so that ids become visible in increasing order. On PostgreSQL
/// identity values are taken at insert time but transactions may commit out of order, and a
/// consumer reading `after_id = N` would then skip a smaller id committed late. The advisory
/// lock is held to the end of the transaction. SQLite already has a single writer.
pub(super) const LOCK_ARTICLE_CURSOR: Dialects = Dialects {
    sqlite: "SELECT 1",
    postgres: "SELECT pg_advisory_xact_lock(7460032165418217)",
};

/// The stages of PostgreSQL's search after its newest matches (`recent`, written by each
/// statement with its own scope): the configuration and query of each language among them,
/// read once; the best `$2` ranked; their texts and snippets. `$feed` is the feed a hit names.
macro_rules! postgres_ranked_hits {
    ($feed:literal) => {
        concat!(
            "readings AS MATERIALIZED (
                      SELECT d.language, c.config, to_tsquery(c.config, $1) AS query
                      FROM (SELECT DISTINCT language FROM recent) d,
                           LATERAL (SELECT gleaner_search_config(d.language) AS config) c),
                  ranked AS MATERIALIZED (
                      SELECT r.id, g.config, g.query,
                             ts_rank(a.search, g.query, 1)::float8 AS score
                      FROM recent r
                      JOIN readings g ON g.language IS NOT DISTINCT FROM r.language
                      JOIN articles a ON a.id = r.id
                      ORDER BY score DESC, r.id DESC
                      LIMIT $2)
             SELECT a.id, f.name AS feed, a.url, substr(a.title, 1, 1024) AS title,
                    a.published_at,
                    ts_headline(k.config, left(a.text, 262144), k.query,
                        'StartSel=«, StopSel=», MaxWords=30, MinWords=12, MaxFragments=2')
                        AS snippet,
                    k.score
             FROM ranked k
             JOIN articles a ON a.id = k.id
             JOIN feeds f ON f.id = ",
            $feed,
            "
             ORDER BY k.score DESC, k.id DESC"
        )
    };
}

/// Full-text search: `$1` the query (FTS5 syntax on SQLite, `to_tsquery` text naming no
/// configuration on PostgreSQL, both built by `SearchQuery`), `$2` the limit. Both rank title
/// matches above body matches; snippets, the costly part, are made for the returned hits only.
/// Both rank the newest 500 matches, so that the two give the same hits: ranking reads every
/// ranked match (PostgreSQL's stored vector, SQLite's doclist entry), and a word in half the
/// articles made ranking them all take seconds on PostgreSQL and 60 ms on SQLite at 100,000
/// articles (docs/performance.md#web-view). SQLite takes the newest 500 matches walking the
/// FTS5 index backwards by rowid (`bm25` computed for those only), then makes snippets for
/// the best. PostgreSQL finds the matches with `gleaner_search_query` (the query read in each
/// article's language, migrations/postgres/0021_search_syntax.sql), read once in `FROM`; it
/// ranks and highlights each hit with the query read in that hit's language; a backward scan
/// of the primary key finds the newest matches of a common word, the GIN index those of a
/// rare one. Each stage is a materialized CTE so that PostgreSQL does each thing once and
/// only where needed: the language's configuration and query are read once per language
/// among the matches (`gleaner_search_config` is a function call per row, 50 µs each, which
/// the planner cannot inline), and the text is read only for the returned hits (a sort's
/// input computes every column it carries: the texts of all 500 were read before).
/// Titles are cut to `api_reads::LISTED_TITLE_CHARS` characters.
pub(super) const SEARCH: Dialects = Dialects {
    sqlite: "WITH recent AS (SELECT rowid AS id, bm25(articles_fts, 4.0, 1.0) AS rank
                             FROM articles_fts
                             WHERE articles_fts MATCH $1
                             ORDER BY rowid DESC
                             LIMIT 500),
                  top AS (SELECT id, rank FROM recent ORDER BY rank, id DESC LIMIT $2)
             SELECT a.id, f.name AS feed, a.url, substr(a.title, 1, 1024) AS title,
                    a.published_at, snippet(articles_fts, 1, '«', '»', '…', 24) AS snippet,
                    -top.rank AS score
             FROM top
             CROSS JOIN articles_fts
             JOIN articles a ON a.id = top.id
             JOIN feeds f ON f.id = a.feed_id
             WHERE articles_fts MATCH $1 AND articles_fts.rowid = top.id
             ORDER BY top.rank, a.id DESC",
    postgres: concat!(
        "WITH recent AS MATERIALIZED (
                      SELECT m.id, m.language
                      FROM articles m, gleaner_search_query($1) mq
                      WHERE m.search @@ mq
                      ORDER BY m.id DESC
                      LIMIT 500), ",
        postgres_ranked_hits!("a.feed_id")
    ),
};

/// [`SEARCH`] within a scope: the articles feed `$3` lists (`article_feeds`, as a feed's
/// listing), of page type `$4`; either may be NULL. The scope is applied before the limit, so
/// a feed's best matches are found however many other feeds match better. A hit names the
/// scoped feed when there is one. Kept apart from [`SEARCH`] rather than made one statement
/// with NULL scopes: the unscoped search (the API's, MCP's, the CLI's) keeps a plan with no
/// per-row scope test.
pub(super) const SEARCH_SCOPED: Dialects = Dialects {
    sqlite: "WITH recent AS (SELECT articles_fts.rowid AS id,
                                    bm25(articles_fts, 4.0, 1.0) AS rank
                             FROM articles_fts
                             JOIN articles ta ON ta.id = articles_fts.rowid
                             WHERE articles_fts MATCH $1
                               AND ($3 IS NULL OR EXISTS (SELECT 1 FROM article_feeds own
                                                          WHERE own.feed_id = $3
                                                            AND own.article_id = ta.id))
                               AND ($4 IS NULL OR ta.page_type = $4)
                             ORDER BY articles_fts.rowid DESC
                             LIMIT 500),
                  top AS (SELECT id, rank FROM recent ORDER BY rank, id DESC LIMIT $2)
             SELECT a.id, f.name AS feed, a.url, substr(a.title, 1, 1024) AS title,
                    a.published_at, snippet(articles_fts, 1, '«', '»', '…', 24) AS snippet,
                    -top.rank AS score
             FROM top
             CROSS JOIN articles_fts
             JOIN articles a ON a.id = top.id
             JOIN feeds f ON f.id = COALESCE($3, a.feed_id)
             WHERE articles_fts MATCH $1 AND articles_fts.rowid = top.id
             ORDER BY top.rank, a.id DESC",
    postgres: concat!(
        "WITH recent AS MATERIALIZED (
                      SELECT m.id, m.language
                      FROM articles m, gleaner_search_query($1) mq
                      WHERE m.search @@ mq
                        AND ($3::bigint IS NULL
                             OR EXISTS (SELECT 1 FROM article_feeds own
                                        WHERE own.feed_id = $3::bigint
                                          AND own.article_id = m.id))
                        AND ($4::text IS NULL OR m.page_type = $4::text)
                      ORDER BY m.id DESC
                      LIMIT 500), ",
        postgres_ranked_hits!("COALESCE($3::bigint, a.feed_id)")
    ),
};

// --- feeds ---

pub(super) const DEACTIVATE_ALL_FEEDS: &str = "UPDATE feeds SET active = FALSE WHERE active";

/// Adds a configured feed or refreshes it (`$6`: trusted). A changed URL drops the
/// conditional-GET state of the old one; a changed schedule makes the scheduler compute the
/// next due time again.
pub(super) const UPSERT_FEED: &str = "
    INSERT INTO feeds (name, url, schedule, active, created_at, host, trusted)
    VALUES ($1, $2, $3, TRUE, $4, $5, $6)
    ON CONFLICT (name) DO UPDATE SET
        trusted = excluded.trusted,
        etag = CASE WHEN feeds.url = excluded.url THEN feeds.etag ELSE NULL END,
        last_modified = CASE WHEN feeds.url = excluded.url THEN feeds.last_modified ELSE NULL END,
        next_due_at = CASE WHEN feeds.schedule = excluded.schedule AND feeds.url = excluded.url
                           THEN feeds.next_due_at ELSE NULL END,
        url = excluded.url,
        schedule = excluded.schedule,
        host = excluded.host,
        active = TRUE";

/// The columns of a feed row with its polling state, unqualified so that `SELECT … FROM feeds
/// f` and `UPDATE feeds … RETURNING` share them.
macro_rules! feed_columns {
    () => {
        "id, name, url, schedule, active, title, site_url, etag, last_modified, last_polled_at,
         last_status, last_error, error_count, next_due_at, created_at"
    };
}

/// A feed row with its polling state; `$articles` is its article count (or a constant where
/// the count is not needed) and `$rest` the clauses after `FROM feeds f`.
macro_rules! select_feeds {
    ($articles:literal, $rest:literal) => {
        concat!(
            "SELECT ",
            feed_columns!(),
            ", ",
            $articles,
            " AS articles FROM feeds f ",
            $rest
        )
    };
}

pub(super) const SELECT_FEEDS: &str = select_feeds!(
    "(SELECT COUNT(*) FROM article_feeds m WHERE m.feed_id = f.id)",
    "ORDER BY f.name"
);

pub(super) const SELECT_FEED_BY_NAME: &str = select_feeds!(
    "(SELECT COUNT(*) FROM article_feeds m WHERE m.feed_id = f.id)",
    "WHERE f.name = $1"
);

/// Leases the active feeds due at `$2` (every active one when `$5` is true) that nobody holds
/// (no lease, or one that lapsed before `$2`) and whose host no other owner holds a feed of,
/// to owner `$1` until `$3`, never polled first, then the most overdue, at most `$4`; returns
/// them with the lease's generation (one more than the feed's previous lease). `$lock` is PostgreSQL's `FOR UPDATE SKIP LOCKED`, so that a row being written is
/// skipped instead of waited for; SQLite has a single writer and needs none.
macro_rules! lease_feeds {
    ($lock:literal) => {
        concat!(
            "UPDATE feeds SET lease_owner = $1, lease_until = $3,
                              lease_generation = lease_generation + 1
             WHERE id IN (
                 SELECT candidate.id FROM feeds candidate
                 WHERE candidate.active
                   AND ($5 OR candidate.next_due_at IS NULL OR candidate.next_due_at <= $2)
                   AND (candidate.lease_until IS NULL OR candidate.lease_until <= $2)
                   AND NOT EXISTS (SELECT 1 FROM feeds held
                                   WHERE held.host = candidate.host AND held.lease_owner <> $1
                                     AND held.lease_until > $2)
                 ORDER BY candidate.next_due_at IS NOT NULL, candidate.next_due_at, candidate.id
                 LIMIT $4 ",
            $lock,
            ")
             RETURNING ",
            feed_columns!(),
            ", CAST(0 AS BIGINT) AS articles, lease_generation"
        )
    };
}

pub(super) const LEASE_FEEDS: Dialects = Dialects {
    sqlite: lease_feeds!(""),
    postgres: lease_feeds!("FOR UPDATE OF candidate SKIP LOCKED"),
};

/// Serializes leasing, so that two replicas never take feeds of one host at the same instant
/// (each statement's snapshot would miss the other's leases). Held to the end of the
/// transaction; SQLite already has a single writer.
pub(super) const LOCK_FEED_LEASES: Dialects = Dialects {
    sqlite: "SELECT 1",
    postgres: "SELECT pg_advisory_xact_lock(7460032165418218)",
};

/// Extends to `$2` the leases owner `$1` holds on the feeds of `$3`, a JSON array of ids: the
/// feeds it is polling, never every row it owns (a lease it could not give back must lapse).
pub(super) const RENEW_FEED_LEASES: Dialects = Dialects {
    sqlite: "UPDATE feeds SET lease_until = $2
             WHERE lease_owner = $1 AND id IN (SELECT value FROM json_each($3))",
    postgres: "UPDATE feeds SET lease_until = $2
               WHERE lease_owner = $1
                 AND id IN (SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST($3 AS json)))",
};

/// Gives feed `$1` back, if owner `$2` still holds the lease of generation `$3` on it (never
/// a lease the owner took since).
pub(super) const RELEASE_FEED_LEASE: &str =
    "UPDATE feeds SET lease_owner = NULL, lease_until = NULL
    WHERE id = $1 AND lease_owner = $2 AND lease_generation = $3";

/// Gives back every feed owner `$1` holds.
pub(super) const RELEASE_ALL_FEED_LEASES: &str =
    "UPDATE feeds SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1";

/// The active feeds due at `$2` (every active one when `$3` is true) that a process other
/// than `$1` holds, itself or through another feed of its host (a host is polled by one
/// process at a time): each with the holder and when that lease lapses, the latest first.
pub(super) const SELECT_LEASED_ELSEWHERE: &str = "
    SELECT feed.name, held.lease_owner, held.lease_until FROM feeds feed
    JOIN feeds held ON held.id = feed.id OR held.host = feed.host
    WHERE feed.active
      AND ($3 OR feed.next_due_at IS NULL OR feed.next_due_at <= $2)
      AND held.lease_owner IS NOT NULL AND held.lease_owner <> $1 AND held.lease_until > $2
    ORDER BY feed.name, held.lease_until DESC";

/// The earliest moment an active feed can be leased: its due time, or later when another
/// replica's lease runs past it.
pub(super) const SELECT_NEXT_DUE: &str = "
    SELECT MIN(CASE WHEN lease_until IS NOT NULL AND lease_until > next_due_at
                    THEN lease_until ELSE next_due_at END)
    FROM feeds WHERE active AND next_due_at IS NOT NULL";

/// Active feeds due before `$1`, or due at once (no next due time: new, or a changed URL or
/// schedule): the candidates for being overdue.
pub(super) const SELECT_PAST_DUE_FEEDS: &str = "
    SELECT name, schedule, next_due_at, last_polled_at, created_at FROM feeds
    WHERE active AND (next_due_at IS NULL OR next_due_at < $1)";

pub(super) const RECORD_FEED_POLL: &str = "
    UPDATE feeds SET
        last_polled_at = $2,
        last_status = $3,
        last_error = $4,
        error_count = CASE WHEN $4 IS NULL THEN 0 ELSE error_count + 1 END,
        etag = $5,
        last_modified = $6,
        title = COALESCE($7, title),
        site_url = COALESCE($8, site_url),
        next_due_at = $9
    WHERE id = $1";

pub(super) const SET_FEED_NEXT_DUE: &str = "UPDATE feeds SET next_due_at = $2 WHERE id = $1";

// --- feed entries ---

/// Remembers entry `$2`..`$7` (guid, url, title, author, summary, published), `$12` (its
/// content), `$13` (its enclosures, JSON) and `$14` (its tags, JSON) of feed `$1` in state `$8` (pending), due at `$9`. An entry the feed already has
/// (same URL) keeps its state, with one exception: while it waits (`$8`, `$10`: retrying) or
/// was settled as stored (`$11`) under a GUID that its new one (`$2`) extends with its URL.
/// Older versions took entries that share a GUID but not a link for one entry, and stored
/// one article for all of them; each is now due again under its own identity (the one
/// already stored is found by its URL, and not downloaded again).
pub(super) const INSERT_FEED_ENTRY: &str = "
    INSERT INTO feed_entries (feed_id, guid, url, title, author, summary, published_at, state,
                              attempts, next_attempt_at, first_seen_at, content, last_seen_at,
                              enclosures, tags)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, $9, $12, $9, $13, $14)
    ON CONFLICT (feed_id, url) DO UPDATE SET
        guid = excluded.guid,
        state = excluded.state,
        attempts = 0,
        next_attempt_at = excluded.next_attempt_at,
        last_error = NULL,
        content = excluded.content,
        enclosures = excluded.enclosures,
        tags = excluded.tags
    WHERE feed_entries.state IN ($8, $10, $11)
      AND excluded.guid = feed_entries.guid || ' ' || feed_entries.url";

/// Marks feed `$1`'s entries whose URLs are in `$3` (a JSON array) as listed by its document
/// read at `$2`.
pub(super) const MARK_ENTRIES_SEEN: Dialects = Dialects {
    sqlite: "UPDATE feed_entries SET last_seen_at = $2
             WHERE feed_id = $1 AND url IN (SELECT value FROM json_each($3))",
    postgres: "UPDATE feed_entries SET last_seen_at = $2
               WHERE feed_id = $1
                 AND url IN (SELECT value FROM json_array_elements_text(CAST($3 AS json)))",
};

/// Forgets the settled entries (states `$2`, `$3`, `$4`) last listed before `$1` that their
/// feed no longer lists: the feed's document was read since without them. An entry still
/// listed is kept whatever its age. Rows remembered before `last_seen_at` existed count as
/// seen when first seen.
pub(super) const FORGET_ENTRIES: &str = "
    DELETE FROM feed_entries
    WHERE state IN ($2, $3, $4)
      AND COALESCE(last_seen_at, first_seen_at) < $1
      AND COALESCE(last_seen_at, first_seen_at) < (
          SELECT MAX(COALESCE(listed.last_seen_at, listed.first_seen_at))
          FROM feed_entries listed WHERE listed.feed_id = feed_entries.feed_id)";

/// Feed `$1`'s entries in state `$2` or `$3` whose attempt time has come by `$4`, in the
/// order they were first seen (oldest first), at most `$5`.
pub(super) const SELECT_DUE_ENTRIES: &str = "
    SELECT id, feed_id, guid, url, title, author, summary, content, published_at, attempts,
           enclosures, tags
    FROM feed_entries
    WHERE feed_id = $1 AND state IN ($2, $3) AND next_attempt_at <= $4
    ORDER BY id
    LIMIT $5";

/// The earliest attempt time of feed `$1`'s entries in state `$2` or `$3`.
pub(super) const SELECT_NEXT_ENTRY_ATTEMPT: &str = "
    SELECT MIN(next_attempt_at) FROM feed_entries WHERE feed_id = $1 AND state IN ($2, $3)";

/// Entry `$1`'s attempt: state `$2`, attempts `$3`, next attempt `$4`, error `$5`; its content
/// is kept only while `$6` (the entry still waits), since a settled entry never reads it.
pub(super) const UPDATE_FEED_ENTRY: &str = "
    UPDATE feed_entries SET state = $2, attempts = $3, next_attempt_at = $4, last_error = $5,
                            content = CASE WHEN $6 THEN content ELSE NULL END
    WHERE id = $1";

/// Entry `$1` turned away by a filter: state `$2`, the reason `$3`, settled at `$4`.
pub(super) const BLOCK_FEED_ENTRY: &str = "
    UPDATE feed_entries SET state = $2, blocked_by = $3, next_attempt_at = $4, last_error = NULL,
                            content = NULL
    WHERE id = $1";

/// The reason entry `$1` of feed `$2` was blocked, if it was.
pub(super) const SELECT_ENTRY_BLOCKED_BY: &str =
    "SELECT blocked_by FROM feed_entries WHERE feed_id = $1 AND url = $2";

/// How many entries of feed `$1` are in state `$2`.
pub(super) const COUNT_FEED_ENTRIES: &str =
    "SELECT COUNT(*) FROM feed_entries WHERE feed_id = $1 AND state = $2";

// --- failures ---

pub(super) const INSERT_FAILURE: &str = "
    INSERT INTO failures (occurred_at, feed_id, article_url, stage, kind, message)
    VALUES ($1, $2, $3, $4, $5, $6)";

/// The failure, unless the same one (feed, stage, kind, message) is recorded already.
pub(super) const INSERT_FAILURE_ONCE: &str = "
    INSERT INTO failures (occurred_at, feed_id, article_url, stage, kind, message)
    SELECT $1, $2, $3, $4, $5, $6
    WHERE NOT EXISTS (
        SELECT 1 FROM failures
        WHERE feed_id = $2 AND stage = $4 AND kind = $5 AND message = $6
    )";

pub(super) const SELECT_RECENT_FAILURES: &str = "
    SELECT fl.id, fl.occurred_at, f.name AS feed, fl.article_url, fl.stage, fl.kind, fl.message
    FROM failures fl
    LEFT JOIN feeds f ON f.id = fl.feed_id
    ORDER BY fl.id DESC
    LIMIT $1";

pub(super) const SELECT_MATCHING_FAILURES: &str = "
    SELECT fl.id, fl.occurred_at, f.name AS feed, fl.article_url, fl.stage, fl.kind, fl.message
    FROM failures fl
    LEFT JOIN feeds f ON f.id = fl.feed_id
    WHERE ($1 IS NULL OR f.name = $1)
      AND ($2 IS NULL OR fl.stage = $2)
      AND ($3 IS NULL OR fl.occurred_at >= $3)
    ORDER BY fl.id DESC
    LIMIT $4";

// --- articles ---

/// The columns and values of a new article; `$19` is how `raw_page` is compressed, `$29` the
/// text's fingerprint, `$30` the representative of the cluster it repeats, `$31` the page
/// type, `$32` a thread's posts (JSON), `$33` the entry's enclosures (JSON) and `$34` its kind.
macro_rules! insert_article {
    () => {
        "INSERT INTO articles (feed_id, guid, url, canonical_url, title, author, summary,
                               published_at, fetched_at, language, extractor, confidence, text,
                               html, word_count, content_hash, raw_page, raw_content_type,
                               raw_encoding, author_source, published_source, lead_image_url,
                               lead_image_source, site_name, site_name_source, summary_text,
                               verdict, quality, fingerprint, duplicate_of,
                               page_type, posts, enclosures, kind)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
                 $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30,
                 $31, $32, $33, $34)
         ON CONFLICT DO NOTHING
         RETURNING id"
    };
}

/// Inserts an article, returning its id (no row when it is a duplicate). On PostgreSQL the
/// same statement tells listeners about it (`LISTEN gleaner_articles`, payload: the id):
/// inside the inserting transaction, so delivered only if the article commits, and without a
/// round trip of its own while the cursor lock is held. SQLite has no notifications.
pub(super) const INSERT_ARTICLE: Dialects = Dialects {
    sqlite: insert_article!(),
    postgres: concat!(
        "WITH inserted AS (",
        insert_article!(),
        ") SELECT id, pg_notify('gleaner_articles', id::text)::text AS announced FROM inserted"
    ),
};

/// SQLite: the full-text rows of the articles a batch stored, ids `$1` to `$2` (one writer at
/// a time, so every id in the range is the batch's). One statement per batch, last in its
/// transaction: FTS5 writes a segment at every statement savepoint, and a row per statement
/// (the trigger it replaces) wrote a segment per article and merged them
/// (migrations/sqlite/0011_search_index_per_batch.sql). PostgreSQL's search vector is a
/// generated column.
pub(super) const INDEX_STORED_ARTICLES: &str = "
    INSERT INTO articles_fts (rowid, title, text)
    SELECT id, title, text FROM articles WHERE id BETWEEN $1 AND $2 ORDER BY id";

/// The stored article that an entry would duplicate: same normalized URL, or one that the
/// same feed lists under the same GUID. Two lookups, each on its index, whatever the planner
/// thinks of the table's size (an `OR` of the two got sequential scans on a young table); a
/// NULL `$3` finds nothing by GUID.
pub(super) const SELECT_KNOWN_ARTICLE: &str = "
    SELECT id FROM (
        SELECT id FROM articles WHERE url = $1
        UNION ALL
        SELECT article_id AS id FROM article_feeds WHERE feed_id = $2 AND guid = $3
    ) known
    ORDER BY id
    LIMIT 1";

// --- the feeds that list an article ---

/// Feed `$1` lists article `$2` as `$3`..`$8` (guid, title, author, published, summary HTML,
/// summary text) since `$9`; a feed that listed it before keeps what it said first. An empty
/// title is the article's; a missing author or date the page's (not another feed's).
pub(super) const INSERT_ARTICLE_FEED: &str = "
    INSERT INTO article_feeds (feed_id, article_id, guid, title, author, published_at, summary,
                               summary_text, listed_at)
    SELECT $1, a.id, $3, CASE WHEN $4 = '' THEN a.title ELSE $4 END,
           COALESCE($5, CASE WHEN a.author_source = 'feed' THEN NULL ELSE a.author END),
           COALESCE($6, CASE WHEN a.published_source = 'feed' THEN NULL ELSE a.published_at END),
           $7, $8, $9
    FROM articles a WHERE a.id = $2
    ON CONFLICT (feed_id, article_id) DO NOTHING";

/// Article `$1`'s URL with its owner feed's host and trust, and feed `$2`'s: whether `$2`
/// has a better claim to the article's own fields (`store::ownership`).
pub(super) const SELECT_OWNERSHIP: &str = "
    SELECT a.url, owner.id, owner.host, owner.trusted, claimant.host, claimant.trusted
    FROM articles a
    JOIN feeds owner ON owner.id = a.feed_id
    JOIN feeds claimant ON claimant.id = $2
    WHERE a.id = $1";

/// Article `$1` takes feed `$2`'s fields as its own (that feed listed it: `article_feeds`).
/// The GUID is dropped when the feed has another article under it; where author or date
/// were read stays when the value does, and is the feed otherwise.
pub(super) const TAKE_OWNERSHIP: &str = "
    UPDATE articles SET
        feed_id = m.feed_id,
        guid = CASE WHEN EXISTS (SELECT 1 FROM articles o
                                 WHERE o.feed_id = m.feed_id AND o.guid = m.guid
                                   AND o.id <> articles.id)
                    THEN NULL ELSE m.guid END,
        title = m.title,
        author = m.author,
        author_source = CASE WHEN m.author IS NULL THEN NULL
                             WHEN m.author = articles.author THEN articles.author_source
                             ELSE 'feed' END,
        published_at = m.published_at,
        published_source = CASE WHEN m.published_at IS NULL THEN NULL
                                WHEN m.published_at = articles.published_at
                                THEN articles.published_source
                                ELSE 'feed' END,
        summary = m.summary,
        summary_text = m.summary_text
    FROM article_feeds m
    WHERE articles.id = $1 AND m.article_id = $1 AND m.feed_id = $2";

/// [`SELECT_KNOWN_ARTICLE`]'s article, and whether feed `$2` lists it.
pub(super) const SELECT_KNOWN_LISTING: &str = "
    SELECT known.id, EXISTS (SELECT 1 FROM article_feeds m
                             WHERE m.feed_id = $2 AND m.article_id = known.id) AS listed
    FROM (
        SELECT id FROM articles WHERE url = $1
        UNION ALL
        SELECT article_id AS id FROM article_feeds WHERE feed_id = $2 AND guid = $3
    ) known
    ORDER BY known.id
    LIMIT 1";

pub(super) const INSERT_IMAGE_BLOB: &str = "
    INSERT INTO image_blobs (sha256, mime, size, bytes, created_at)
    VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (sha256) DO NOTHING";

pub(super) const INSERT_IMAGE: &str = "
    INSERT INTO images (article_id, position, url, alt, caption, width, height, mime, size,
                        sha256)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

/// All the images of article `$1` in one statement (PostgreSQL): `$2`.. are arrays of
/// positions, URLs, alts, captions, widths, heights, media types, sizes and SHA-256s.
pub(super) const INSERT_IMAGES_UNNEST: &str = "
    INSERT INTO images (article_id, position, url, alt, caption, width, height, mime, size,
                        sha256)
    SELECT $1, image.position, image.url, image.alt, image.caption, image.width, image.height,
           image.mime, image.size, image.sha256
    FROM UNNEST($2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::BIGINT[], $7::BIGINT[],
                $8::TEXT[], $9::BIGINT[], $10::TEXT[])
         AS image (position, url, alt, caption, width, height, mime, size, sha256)";

pub(super) const UPDATE_EXTRACTION: &str = "
    UPDATE articles
    SET extractor = $2, confidence = $3, text = $4, html = $5, word_count = $6,
        content_hash = $7, verdict = $8, quality = $9, language = $10, author = $11,
        published_at = $12, author_source = $13, published_source = $14,
        lead_image_url = $15, lead_image_source = $16, site_name = $17, site_name_source = $18,
        fingerprint = $19,
        page_type = $20, posts = $21
    WHERE id = $1";

pub(super) const DELETE_ARTICLE_IMAGES: &str = "DELETE FROM images WHERE article_id = $1";

/// The earlier articles a new one may repeat: those fetched at or after `$1` that share a band
/// key with it (`$2`.., one per band: `fingerprint::BANDS`), with their cluster and
/// fingerprint; the latest 64 at most. The band keys' index finds them, whatever the table's
/// size; the article's primary key then reads each.
pub(super) static SELECT_DUPLICATE_CANDIDATES: std::sync::LazyLock<&'static str> =
    std::sync::LazyLock::new(|| {
        let keys = (2..2 + crate::fingerprint::BANDS)
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ");
        leak(format!(
            "SELECT a.id, a.duplicate_of, a.fingerprint FROM articles a
             WHERE a.id IN (SELECT article_id FROM article_band_keys WHERE band_key IN ({keys}))
               AND a.fetched_at >= $1 AND a.fingerprint IS NOT NULL
             ORDER BY a.id DESC
             LIMIT 64"
        ))
    });

/// The band keys of article `$1`: `$2`.., one per band.
pub(super) static INSERT_BAND_KEYS: std::sync::LazyLock<&'static str> = std::sync::LazyLock::new(
    || {
        let rows = (2..2 + crate::fingerprint::BANDS)
            .map(|n| format!("(${n}, $1)"))
            .collect::<Vec<_>>()
            .join(", ");
        leak(format!(
            "INSERT INTO article_band_keys (band_key, article_id) VALUES {rows} ON CONFLICT DO NOTHING"
        ))
    },
);

/// A statement built once at first use, from the number of bands, and kept for the process's
/// life (sqlx takes statements as `&'static str`).
fn leak(statement: String) -> &'static str {
    Box::leak(statement.into_boxed_str())
}

pub(super) const DELETE_BAND_KEYS: &str = "DELETE FROM article_band_keys WHERE article_id = $1";

/// The stored articles of the cluster whose first article is `$1`: the first and those that
/// point at it.
pub(super) const SELECT_FEED_ID: &str = "SELECT id FROM feeds WHERE name = $1";

/// The representative of the cluster that `$1` represents (or represented, before it was
/// deleted): among its stored members, an article a trusted feed lists, then one that
/// another member's page led to (its final URL after redirects), then the first stored.
pub(super) const ELECT_REPRESENTATIVE: &str = "
    SELECT c.id FROM articles c
    WHERE c.id = $1 OR c.duplicate_of = $1
    ORDER BY CASE WHEN EXISTS (SELECT 1 FROM article_feeds m JOIN feeds f ON f.id = m.feed_id
                               WHERE m.article_id = c.id AND f.trusted)
                  THEN 0 ELSE 1 END,
             CASE WHEN EXISTS (SELECT 1 FROM articles o
                               WHERE (o.id = $1 OR o.duplicate_of = $1) AND o.id <> c.id
                                 AND o.canonical_url = c.url)
                  THEN 0 ELSE 1 END,
             c.id
    LIMIT 1";

/// The cluster that `$1` represented is represented by `$2`: every member points at it, and
/// it at nothing.
pub(super) const REPOINT_CLUSTER: &str = "
    UPDATE articles SET duplicate_of = CASE WHEN id = $2 THEN NULL ELSE $2 END
    WHERE id = $1 OR duplicate_of = $1 OR id = $2";

/// The clusters whose representative is no longer stored: the id their members name.
pub(super) const SELECT_ORPHANED_CLUSTERS: &str = "
    SELECT DISTINCT a.duplicate_of FROM articles a
    WHERE a.duplicate_of IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM articles r WHERE r.id = a.duplicate_of)
    ORDER BY a.duplicate_of";

/// The representative of the cluster article `$1` repeats, if it repeats one.
pub(super) const SELECT_DUPLICATE_OF: &str = "SELECT duplicate_of FROM articles WHERE id = $1";

pub(super) const SELECT_CLUSTER_MEMBERS: &str = "
    SELECT id FROM articles WHERE id = $1
    UNION ALL
    SELECT id FROM articles WHERE duplicate_of = $1
    ORDER BY id";

/// Article `a`'s tags as a JSON array (`[]` when it has none), read on `article_tags`' primary
/// key; the store sorts them.
macro_rules! tags_of {
    (sqlite) => {
        "(SELECT json_group_array(t.tag) FROM article_tags t WHERE t.article_id = a.id) AS tags"
    };
    (postgres) => {
        "(SELECT COALESCE(json_agg(t.tag), '[]'::json) FROM article_tags t
          WHERE t.article_id = a.id) AS tags"
    };
}

macro_rules! select_article {
    ($dialect:ident) => {
        concat!(
            "SELECT a.id, a.feed_id, f.name AS feed, a.guid, a.url, a.canonical_url, a.title,
                    a.author, a.summary, a.summary_text, a.published_at, a.fetched_at, a.language,
                    a.extractor, a.confidence, a.verdict, a.quality, a.text, a.html,
                    a.word_count, a.content_hash, a.author_source, a.published_source,
                    a.lead_image_url, a.lead_image_source, a.site_name, a.site_name_source,
                    a.duplicate_of, a.page_type, a.posts, a.enclosures, a.kind, ",
            tags_of!($dialect),
            "
             FROM articles a
             JOIN feeds f ON f.id = a.feed_id
             WHERE a.id = $1"
        )
    };
}

pub(super) const SELECT_ARTICLE: Dialects = Dialects {
    sqlite: select_article!(sqlite),
    postgres: select_article!(postgres),
};

/// Stores tag `$2` of article `$1`, unless the article has it already in any case.
pub(super) const INSERT_ARTICLE_TAG: &str = "
    INSERT INTO article_tags (article_id, tag)
    SELECT $1, $2
    WHERE NOT EXISTS (SELECT 1 FROM article_tags t
                      WHERE t.article_id = $1 AND lower(t.tag) = lower($2))";

/// The raw page of article `$1` with its `Content-Type` and how it is compressed.
pub(super) const SELECT_RAW_PAGE: &str =
    "SELECT raw_page, raw_content_type, raw_encoding FROM articles WHERE id = $1";

/// Listings: `$1` the feed's id, `$2` fetched at or after, `$3` id greater than, `$4` limit, `$5`
/// the least quality (an article without one passes), `$6` id less than, `$7` the page type,
/// `$8` a tag (any case); a NULL filter matches everything. Each order, with and without a feed, is a statement of its own, and
/// the id bounds are ranges whatever their values, so that each is planned on its index (the
/// primary key, or `article_feeds`' (feed, article)) and reads one page of rows. A row's
/// `cluster_size` counts its cluster's stored articles: the representative and those that
/// point at it (two lookups on indexes, per listed row). `$rows` (`all`, `typed` or `feed`)
/// names the rows: `list_from!` names the listed article `a` and `$own` the row whose title,
/// author and date are shown; `$id` is the column the order and the id bounds read. Titles
/// and authors are cut to `api_reads::LISTED_TITLE_CHARS` and `LISTED_AUTHOR_CHARS`
/// characters.
macro_rules! list_articles {
    ($dialect:ident, $order:literal, $own:literal, $rows:ident, $id:literal) => {
        concat!(
            "SELECT a.id, f.name AS feed, a.url, substr(",
            $own,
            ".title, 1, 1024) AS title, substr(",
            $own,
            ".author, 1, 256) AS author, ",
            $own,
            ".published_at,
                    a.fetched_at, a.extractor, a.word_count, a.verdict, a.quality, a.duplicate_of,
                    (SELECT COUNT(*) FROM articles d
                     WHERE d.duplicate_of = COALESCE(a.duplicate_of, a.id))
                    + (SELECT COUNT(*) FROM articles d
                       WHERE d.id = COALESCE(a.duplicate_of, a.id)) AS cluster_size,
                    a.page_type, ",
            tags_of!($dialect),
            "
             FROM ",
            list_from!($rows),
            "
               AND ($2 IS NULL OR a.fetched_at >= $2)
               AND ",
            $id,
            " > COALESCE($3, 0)
               AND ($5 IS NULL OR a.quality IS NULL OR a.quality >= $5)
               AND ",
            $id,
            " < COALESCE($6, 9223372036854775807)
               AND ($7 IS NULL OR a.page_type = $7)
               AND ($8 IS NULL OR EXISTS (SELECT 1 FROM article_tags t
                                          WHERE t.article_id = a.id
                                            AND lower(t.tag) = lower($8)))
             ORDER BY ",
            $id,
            " ",
            $order,
            " LIMIT $4"
        )
    };
}

/// `all`: every article, with its own fields (its owner feed's). `typed`: the articles of
/// one page type `$7`, planned on `articles_page_type_idx (page_type, id)`, which the `OR` of
/// the general statement hides, so that a page of a rare type does not scan the table.
/// `feed`: the articles feed `$1` lists (looked up first), with that feed's title, author and
/// date, read on `article_feeds`' primary key (feed, article).
macro_rules! list_from {
    (all) => {
        "articles a JOIN feeds f ON f.id = a.feed_id WHERE $1 IS NULL"
    };
    (typed) => {
        "articles a JOIN feeds f ON f.id = a.feed_id WHERE $1 IS NULL AND a.page_type = $7"
    };
    (feed) => {
        "article_feeds own JOIN articles a ON a.id = own.article_id
         JOIN feeds f ON f.id = own.feed_id
         WHERE own.feed_id = $1"
    };
}

/// One listing in both dialects (they differ in how the tags are read).
macro_rules! listing {
    ($($rest:tt)*) => {
        Dialects {
            sqlite: list_articles!(sqlite, $($rest)*),
            postgres: list_articles!(postgres, $($rest)*),
        }
    };
}

pub(super) const LIST_ARTICLES_NEWEST_FIRST: Dialects = listing!("DESC", "a", all, "a.id");
pub(super) const LIST_ARTICLES_ASCENDING: Dialects = listing!("ASC", "a", all, "a.id");
pub(super) const LIST_TYPE_ARTICLES_NEWEST_FIRST: Dialects = listing!("DESC", "a", typed, "a.id");
pub(super) const LIST_TYPE_ARTICLES_ASCENDING: Dialects = listing!("ASC", "a", typed, "a.id");
pub(super) const LIST_FEED_ARTICLES_NEWEST_FIRST: Dialects =
    listing!("DESC", "own", feed, "own.article_id");
pub(super) const LIST_FEED_ARTICLES_ASCENDING: Dialects =
    listing!("ASC", "own", feed, "own.article_id");

pub(super) const SELECT_ARTICLE_IMAGES: &str = "
    SELECT position, url, alt, caption, width, height, mime, size, sha256
    FROM images
    WHERE article_id = $1
    ORDER BY position";

// --- an outbound feed's page, in batches: `$1` the article ids, a JSON array ---

/// `a.id` is one of `$1`'s ids.
macro_rules! among_ids {
    (sqlite, $column:literal) => {
        concat!($column, " IN (SELECT value FROM json_each($1))")
    };
    (postgres, $column:literal) => {
        concat!(
            $column,
            " IN (SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST($1 AS json)))"
        )
    };
}

/// What an output's items show of their articles, but the bodies: the columns
/// `select_article!` reads for them.
macro_rules! select_output_item_heads {
    ($dialect:ident) => {
        concat!(
            "SELECT a.id, a.url, a.canonical_url, a.title, a.author, a.published_at,
                    a.fetched_at, a.extractor, a.content_hash, a.lead_image_url, ",
            tags_of!($dialect),
            "
             FROM articles a
             WHERE ",
            among_ids!($dialect, "a.id")
        )
    };
}

pub(super) const SELECT_OUTPUT_ITEM_HEADS: Dialects = Dialects {
    sqlite: select_output_item_heads!(sqlite),
    postgres: select_output_item_heads!(postgres),
};

/// The HTML bodies of the articles of `$1`.
pub(super) const SELECT_ARTICLE_BODIES: Dialects = Dialects {
    sqlite: concat!(
        "SELECT a.id, a.html FROM articles a WHERE ",
        among_ids!(sqlite, "a.id")
    ),
    postgres: concat!(
        "SELECT a.id, a.html FROM articles a WHERE ",
        among_ids!(postgres, "a.id")
    ),
};

/// The images of the articles of `$1`, each article's in page order ([`SELECT_ARTICLE_IMAGES`]).
macro_rules! select_images_of_articles {
    ($dialect:ident) => {
        concat!(
            "SELECT article_id, position, url, alt, caption, width, height, mime, size, sha256
             FROM images
             WHERE ",
            among_ids!($dialect, "article_id"),
            "
             ORDER BY article_id, position"
        )
    };
}

pub(super) const SELECT_IMAGES_OF_ARTICLES: Dialects = Dialects {
    sqlite: select_images_of_articles!(sqlite),
    postgres: select_images_of_articles!(postgres),
};

/// Consumer `$2`'s claims of the articles of `$1`.
macro_rules! select_claims_of_articles {
    ($dialect:ident) => {
        concat!(
            "SELECT consumer, article_id, lease, claimed_at, lease_until, done_at, result
             FROM claims
             WHERE consumer = $2 AND ",
            among_ids!($dialect, "article_id")
        )
    };
}

pub(super) const SELECT_CLAIMS_OF_ARTICLES: Dialects = Dialects {
    sqlite: select_claims_of_articles!(sqlite),
    postgres: select_claims_of_articles!(postgres),
};

pub(super) const SELECT_IMAGE_BLOB: &str =
    "SELECT sha256, mime, size, bytes FROM image_blobs WHERE sha256 = $1";

/// Bounds the next statements of this session (PostgreSQL): `$1` milliseconds, as text.
pub(super) const SET_STATEMENT_TIMEOUT: &str = "SELECT set_config('statement_timeout', $1, false)";

/// Gives this session back the configured statement timeout (PostgreSQL).
pub(super) const RESET_STATEMENT_TIMEOUT: &str = "RESET statement_timeout";

/// SQLite: this connection may not grow the file past its size (`max_page_count` is never
/// set below the file's size). A PRAGMA takes no bound value, hence two constants.
pub(super) const CAP_SIZE_AT_CURRENT: &str = "PRAGMA max_page_count = 1";

/// SQLite: the largest `max_page_count`, as when no cap was set.
pub(super) const LIFT_SIZE_CAP: &str = "PRAGMA max_page_count = 4294967294";

/// The migrations applied so far, in order: version and checksum.
pub(super) const APPLIED_MIGRATIONS: &str =
    "SELECT version, checksum FROM _sqlx_migrations WHERE success ORDER BY version";

// --- site templates ---

/// One site's model with its version (`pages`, which every change raises), the model
/// itself only when its version is not `$2`, the one the process holds parsed already.
pub(super) const SELECT_SITE_TEMPLATE_UNLESS_HELD: &str = "SELECT pages,
        CASE WHEN pages = $2 THEN NULL ELSE model END
    FROM site_templates WHERE site = $1";

/// The same, read to change it: on PostgreSQL the row is locked to the end of the
/// transaction, so two replicas learning pages of one site take turns; SQLite's
/// `BEGIN IMMEDIATE` already made the transaction the only writer.
pub(super) const SELECT_SITE_TEMPLATE_UNLESS_HELD_FOR_UPDATE: Dialects = Dialects {
    sqlite: SELECT_SITE_TEMPLATE_UNLESS_HELD,
    postgres: "SELECT pages,
        CASE WHEN pages = $2 THEN NULL ELSE model END
    FROM site_templates WHERE site = $1 FOR UPDATE",
};

/// A site's row with an empty model `$2`, unless it has one: a row that does not exist
/// cannot be locked, so two replicas learning a site's first pages would each write a model
/// of their own pages and the second would overwrite the first. On PostgreSQL this waits for
/// a row another transaction is inserting, and then does nothing.
pub(super) const CREATE_SITE_TEMPLATE: &str = "INSERT INTO site_templates (site, model, updated_at)
    VALUES ($1, $2, $3) ON CONFLICT (site) DO NOTHING";

/// `$1` site, `$2` pages, `$3` fingerprints, `$4` template blocks, `$5` model, `$6` time,
/// `$7`–`$9` the page's own application (0 or 1 page, blocks, bytes), added to the totals.
pub(super) const UPSERT_SITE_TEMPLATE: &str = "INSERT INTO site_templates
        (site, pages, fingerprints, template_blocks, model, updated_at,
         applied_pages, removed_blocks, removed_bytes)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
    ON CONFLICT (site) DO UPDATE SET
        pages = excluded.pages,
        fingerprints = excluded.fingerprints,
        template_blocks = excluded.template_blocks,
        model = excluded.model,
        updated_at = excluded.updated_at,
        applied_pages = site_templates.applied_pages + excluded.applied_pages,
        removed_blocks = site_templates.removed_blocks + excluded.removed_blocks,
        removed_bytes = site_templates.removed_bytes + excluded.removed_bytes";

pub(super) const LIST_SITE_TEMPLATES: &str = "SELECT site, pages, fingerprints, template_blocks,
        applied_pages, removed_blocks, removed_bytes, updated_at
    FROM site_templates ORDER BY site";

// --- retention: `prune`, `[retention]`, `feeds remove --purge` ---

/// Articles fetched before `$1`, their images and claims with them (`ON DELETE CASCADE`).
pub(super) const DELETE_ARTICLES_BEFORE: &str = "DELETE FROM articles WHERE fetched_at < $1";

/// The ids of the articles fetched before `$1` (what `DELETE_ARTICLES_BEFORE` deletes).
pub(super) const SELECT_ARTICLES_BEFORE: &str =
    "SELECT id FROM articles WHERE fetched_at < $1 ORDER BY id";

/// The ids of the articles whose raw pages `DROP_RAW_PAGES_BEFORE` drops.
pub(super) const SELECT_RAW_PAGES_BEFORE: &str =
    "SELECT id FROM articles WHERE fetched_at < $1 AND raw_page IS NOT NULL ORDER BY id";

/// The raw pages of articles fetched before `$1`.
pub(super) const DROP_RAW_PAGES_BEFORE: &str =
    "UPDATE articles SET raw_page = NULL WHERE fetched_at < $1 AND raw_page IS NOT NULL";

/// Image bytes no stored image refers to any more.
pub(super) const DELETE_ORPHAN_IMAGE_BLOBS: &str = "
    DELETE FROM image_blobs
    WHERE NOT EXISTS (SELECT 1 FROM images i WHERE i.sha256 = image_blobs.sha256)";

/// Feed `$1` lists nothing any more.
pub(super) const DELETE_FEED_LISTINGS: &str = "DELETE FROM article_feeds WHERE feed_id = $1";

/// The articles feed `$1` owns that other feeds list, with each of those feeds (host, trust),
/// the first to list it first: the candidates to own it next.
pub(super) const SELECT_ADOPTERS: &str = "
    SELECT a.id, a.url, m.feed_id, f.host, f.trusted
    FROM articles a
    JOIN article_feeds m ON m.article_id = a.id
    JOIN feeds f ON f.id = m.feed_id
    WHERE a.feed_id = $1 AND m.feed_id <> $1
    ORDER BY a.id, m.listed_at, m.feed_id";

/// The articles feed `$1` owns: after its listings went and the shared ones were adopted,
/// those no other feed lists.
pub(super) const DELETE_FEED_ARTICLES: &str = "DELETE FROM articles WHERE feed_id = $1";
pub(super) const DELETE_FEED_ENTRIES: &str = "DELETE FROM feed_entries WHERE feed_id = $1";
pub(super) const DELETE_FEED_FAILURES: &str = "DELETE FROM failures WHERE feed_id = $1";
pub(super) const DELETE_FEED: &str = "DELETE FROM feeds WHERE id = $1";

// --- webhooks: the configured webhooks and the delivery queue ---

/// Every webhook inactive, removed at `$1` unless it was removed before.
pub(super) const DEACTIVATE_ALL_WEBHOOKS: &str =
    "UPDATE webhooks SET active = FALSE, removed_at = COALESCE(removed_at, $1)";

/// A configured webhook by `key`: active, `$2` for all feeds, `$3` skipping duplicates; its id.
pub(super) const UPSERT_WEBHOOK: &str = "
    INSERT INTO webhooks (key, active, all_feeds, skip_duplicates) VALUES ($1, TRUE, $2, $3)
    ON CONFLICT (key) DO UPDATE SET active = TRUE, all_feeds = excluded.all_feeds,
                                    skip_duplicates = excluded.skip_duplicates,
                                    removed_at = NULL
    RETURNING id";

/// Webhooks removed from the configuration before `$1`, with their deliveries and feeds.
pub(super) const DELETE_REMOVED_WEBHOOKS: &str =
    "DELETE FROM webhooks WHERE NOT active AND removed_at < $1";

pub(super) const DELETE_WEBHOOK_FEEDS: &str = "DELETE FROM webhook_feeds WHERE webhook_id = $1";

/// Webhook `$1` takes the articles of the feed named `$2`.
pub(super) const INSERT_WEBHOOK_FEED: &str = "
    INSERT INTO webhook_feeds (webhook_id, feed_id)
    SELECT $1, id FROM feeds WHERE name = $2
    ON CONFLICT DO NOTHING";

/// One delivery of article `$1` (now listed by feed `$3`) per active webhook that takes the
/// feed's articles, due at `$2`, in state `$4`: run in the transaction that stores the
/// article, or that a feed starts listing it in. `$5`: the representative of the cluster the
/// article repeats (NULL: none). A webhook with `skip_duplicates` leaves a copy out only when
/// it takes the representative too: one limited to some feeds judges copies among the
/// articles of those feeds, and never loses one of its feeds' stories to another feed's copy.
pub(super) const ENQUEUE_DELIVERIES: &str = "
    INSERT INTO webhook_deliveries
        (webhook_id, article_id, state, attempts, next_attempt_at, created_at)
    SELECT w.id, $1, $4, 0, $2, $2 FROM webhooks w
    WHERE w.active
      AND (w.all_feeds OR EXISTS (
          SELECT 1 FROM webhook_feeds f WHERE f.webhook_id = w.id AND f.feed_id = $3))
      AND NOT (w.skip_duplicates AND $5 IS NOT NULL AND (w.all_feeds OR EXISTS (
          SELECT 1 FROM webhook_feeds f JOIN article_feeds m ON m.feed_id = f.feed_id
          WHERE f.webhook_id = w.id AND m.article_id = $5)))
    ON CONFLICT DO NOTHING";

/// Article `$1` became its cluster's representative when the one before was deleted: one
/// delivery, due at `$2` in state `$3`, per active webhook with `skip_duplicates` that takes
/// one of the feeds listing it (and did not have it already).
pub(super) const ENQUEUE_REPRESENTATIVE: &str = "
    INSERT INTO webhook_deliveries
        (webhook_id, article_id, state, attempts, next_attempt_at, created_at)
    SELECT w.id, $1, $3, 0, $2, $2 FROM webhooks w
    WHERE w.active AND w.skip_duplicates
      AND (w.all_feeds OR EXISTS (
          SELECT 1 FROM webhook_feeds f JOIN article_feeds m ON m.feed_id = f.feed_id
          WHERE f.webhook_id = w.id AND m.article_id = $1))
    ON CONFLICT DO NOTHING";

/// Deliveries in state `$1` due at `$2` of active webhooks, the most overdue first, at most `$3`.
pub(super) const DUE_DELIVERIES: &str = "
    SELECT d.webhook_id, w.key AS webhook_key, d.article_id, d.attempts
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE w.active AND d.state = $1 AND d.next_attempt_at <= $2
    ORDER BY d.next_attempt_at, d.article_id
    LIMIT $3";

/// Takes delivery (`$1`, `$2`) seen with `$3` attempts in state `$4`: one more attempt,
/// not due again before `$5` (another process that saw the same row changes nothing).
pub(super) const CLAIM_DELIVERY: &str = "
    UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = $5
    WHERE webhook_id = $1 AND article_id = $2 AND attempts = $3 AND state = $4";

/// The outcome of an attempt: state `$3`, next attempt `$4`, delivered at `$5`, error `$6`.
pub(super) const SETTLE_DELIVERY: &str = "
    UPDATE webhook_deliveries
    SET state = $3, next_attempt_at = $4, delivered_at = $5, last_error = $6
    WHERE webhook_id = $1 AND article_id = $2";

/// How many deliveries of active webhooks are in state `$1`.
pub(super) const COUNT_DELIVERIES: &str = "
    SELECT COUNT(*) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE w.active AND d.state = $1";

/// When the next delivery in state `$1` of an active webhook is due.
pub(super) const NEXT_DELIVERY_DUE: &str = "
    SELECT d.next_attempt_at
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE w.active AND d.state = $1
    ORDER BY d.next_attempt_at LIMIT 1";

/// A given-up delivery as a failure at stage `$3`, kind `$4`, message `$5`, against the feed
/// and URL of article `$2` (none when the article is gone).
pub(super) const INSERT_DELIVERY_FAILURE: &str = "
    INSERT INTO failures (occurred_at, feed_id, article_url, stage, kind, message)
    SELECT $1, a.feed_id, a.url, $3, $4, $5
    FROM (SELECT 1 AS one) AS given_up LEFT JOIN articles a ON a.id = $2";

/// How many failures at stage `$1` occurred since `$2`.
pub(super) const COUNT_FAILURES_SINCE: &str = "
    SELECT COUNT(*) FROM failures WHERE stage = $1 AND occurred_at >= $2";

/// The failures at stage `$1`, kind `$2` since `$3` (NULL: all), oldest first: id and message.
pub(super) const SELECT_GIVEN_UP_FAILURES: &str = "
    SELECT id, message FROM failures
    WHERE stage = $1 AND kind = $2 AND ($3 IS NULL OR occurred_at >= $3)
    ORDER BY id";

/// Delivery (webhook key `$1`, article `$2`) due again from `$4` in state `$3`, attempts anew.
pub(super) const REQUEUE_DELIVERY: &str = "
    UPDATE webhook_deliveries
    SET state = $3, attempts = 0, next_attempt_at = $4, delivered_at = NULL, last_error = NULL
    WHERE article_id = $2 AND webhook_id = (SELECT id FROM webhooks WHERE key = $1)";

/// Failure `$1` removed.
pub(super) const DELETE_FAILURE: &str = "DELETE FROM failures WHERE id = $1";

/// Every delivery, by article then webhook.
pub(super) const SELECT_DELIVERIES: &str = "
    SELECT w.key AS webhook_key, d.article_id, d.state, d.attempts, d.delivered_at,
           d.last_error
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    ORDER BY d.article_id, w.key";
