//! Full-text search: the query syntax, its bounds, and the time budget of one search.
//!
//! Owns [`SearchQuery`], one syntax read the same on both databases: words (all must match),
//! `OR` between alternatives (uppercase; a lowercase "or" is a word), `"exact phrases"`,
//! `-excluded` words or phrases, and `prefix*`. The parse is a small tree (alternatives of
//! required and excluded terms) rendered to FTS5 syntax on SQLite and to `to_tsquery` text on
//! PostgreSQL; every word is quoted in both, so that no input is a syntax error of either
//! engine, and the text is only ever bound, never formatted into SQL. Words are matched
//! stemmed (English on SQLite's `porter` tokenizer; the article's language where PostgreSQL has
//! a dictionary for it, migrations/postgres/0021_search_syntax.sql). A query that cannot be
//! read (an unclosed quote, `OR` with nothing on one side, only exclusions, a lone `*`) is an
//! error ([`SearchQueryError`]), never an empty answer.
//!
//! A query longer than [`MAX_QUERY_CHARS`], with more than [`MAX_QUERY_TERMS`] distinct words
//! or more than [`MAX_QUERY_WORDS_IN_ALL`] words in all its alternatives is refused too,
//! because ranking and snippets cost grows with the square of the terms on pages that hold
//! them often. A word repeated within an alternative counts once. Whatever the words, one search
//! stops after the store's search budget ([`DEFAULT_SEARCH_BUDGET`]): a progress handler on
//! SQLite, `statement_timeout` on PostgreSQL. A search whose future is dropped (the client
//! went away) is interrupted too.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Pool, QueryContext, SearchHit, Store, StoreError, sql};
use crate::extract::page_type::PageType;

/// The longest query text accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 256;
/// The most distinct words a query may hold.
pub const MAX_QUERY_TERMS: usize = 8;
/// The most words a query may hold counting those repeated in several alternatives, each of
/// which is searched for again (`a b OR a c`: four).
pub const MAX_QUERY_WORDS_IN_ALL: usize = 2 * MAX_QUERY_TERMS;
/// How long one search may run before it is stopped.
pub const DEFAULT_SEARCH_BUDGET: Duration = Duration::from_secs(10);
/// SQLite virtual-machine steps between two checks of the budget.
const PROGRESS_STEPS: i32 = 1_000;
/// The operator between alternatives; only this spelling, so that "or" stays a word.
const OR: &str = "OR";

/// Why a query text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchQueryError {
    #[error("the query is {chars} characters long; at most {MAX_QUERY_CHARS} are allowed")]
    TooLong { chars: usize },
    #[error("the query has {terms} distinct words; at most {MAX_QUERY_TERMS} are allowed")]
    TooManyTerms { terms: usize },
    #[error(
        "the query has {words} words counting each alternative's; at most \
         {MAX_QUERY_WORDS_IN_ALL} are allowed"
    )]
    TooManyWordsInAll { words: usize },
    #[error("the query has no word to search for")]
    Empty,
    #[error("a quote (\") is opened and never closed")]
    UnclosedQuote,
    #[error("a quoted phrase (\"\") holds no word")]
    EmptyPhrase,
    #[error("OR needs a word or phrase on each side")]
    DanglingOr,
    #[error("`-` must be followed by the word or phrase it excludes, as in `-python`")]
    NothingExcluded,
    #[error(
        "only excluded words: each alternative needs a word or phrase to look for \
         besides its `-` exclusions"
    )]
    OnlyExclusions,
    #[error("`*` alone matches nothing: it ends a word to match its prefix, as in `electr*`")]
    LoneStar,
    #[error("`*` may only end a single word, as in `electr*` (found in `{0}`)")]
    MisplacedStar(String),
}

/// What one term matches. Words are lowercase runs of letters and digits, the way both
/// indexes split text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Term {
    /// The word, stemmed.
    Word(String),
    /// Any word that starts with this one.
    Prefix(String),
    /// These words, next to each other, in this order.
    Phrase(Vec<String>),
}

impl Term {
    fn words(&self) -> &[String] {
        match self {
            Term::Word(word) | Term::Prefix(word) => std::slice::from_ref(word),
            Term::Phrase(words) => words,
        }
    }
}

/// A term that must appear, or must not (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Clause {
    excluded: bool,
    term: Term,
}

/// One alternative: every required term appears, no excluded one does. Never without a
/// required term.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Group {
    required: Vec<Term>,
    excluded: Vec<Term>,
}

impl Group {
    fn add(&mut self, clause: Clause) {
        let list = match clause.excluded {
            true => &mut self.excluded,
            false => &mut self.required,
        };
        if !list.contains(&clause.term) {
            list.push(clause.term);
        }
    }

    fn is_empty(&self) -> bool {
        self.required.is_empty() && self.excluded.is_empty()
    }
}

/// A readable search query within the bounds: alternatives joined by `OR`, at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    groups: Vec<Group>,
}

impl SearchQuery {
    /// Reads free text in the search syntax (see the module documentation). Refuses text
    /// beyond the bounds and text it cannot read, saying which.
    pub fn parse(text: &str) -> Result<SearchQuery, SearchQueryError> {
        let chars = text.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(SearchQueryError::TooLong { chars });
        }
        let mut groups = vec![Group::default()];
        for token in tokens(text)? {
            match token {
                Token::Or => {
                    if groups.last().is_none_or(Group::is_empty) {
                        return Err(SearchQueryError::DanglingOr);
                    }
                    groups.push(Group::default());
                }
                Token::Clause(clause) => {
                    if let Some(group) = groups.last_mut() {
                        group.add(clause);
                    }
                }
            }
        }
        let query = SearchQuery::checked(groups)?;
        let terms = query.distinct_words();
        if terms > MAX_QUERY_TERMS {
            return Err(SearchQueryError::TooManyTerms { terms });
        }
        let words = query.words_in_all();
        if words > MAX_QUERY_WORDS_IN_ALL {
            return Err(SearchQueryError::TooManyWordsInAll { words });
        }
        Ok(query)
    }

    /// The groups as read, refused when one cannot be searched for.
    fn checked(groups: Vec<Group>) -> Result<SearchQuery, SearchQueryError> {
        if groups.iter().all(Group::is_empty) {
            return Err(SearchQueryError::Empty);
        }
        if groups.last().is_some_and(Group::is_empty) {
            return Err(SearchQueryError::DanglingOr);
        }
        if groups.iter().any(|group| group.required.is_empty()) {
            return Err(SearchQueryError::OnlyExclusions);
        }
        Ok(SearchQuery { groups })
    }

    /// The distinct words of every term, the measure of the bound.
    fn distinct_words(&self) -> usize {
        let mut words: Vec<&str> = Vec::new();
        for group in &self.groups {
            for term in group.required.iter().chain(&group.excluded) {
                for word in term.words() {
                    if !words.contains(&word.as_str()) {
                        words.push(word);
                    }
                }
            }
        }
        words.len()
    }

    /// The words of every alternative, each alternative's counted again.
    fn words_in_all(&self) -> usize {
        self.groups
            .iter()
            .flat_map(|group| group.required.iter().chain(&group.excluded))
            .map(|term| term.words().len())
            .sum()
    }

    /// FTS5 syntax that cannot be a syntax error: every word quoted, a prefix as `"word"*`,
    /// a phrase as `"a b"`; an alternative with exclusions as `(…) NOT (…)`.
    fn to_fts5(&self) -> String {
        let alternatives: Vec<String> = self
            .groups
            .iter()
            .map(|group| {
                let required = join(&group.required, " ", fts5_term);
                match group.excluded.as_slice() {
                    [] => required,
                    excluded => format!("({required}) NOT ({})", join(excluded, " OR ", fts5_term)),
                }
            })
            .collect();
        parenthesized_if_several(alternatives, " OR ")
    }

    /// `to_tsquery` text with the same meaning: every word a quoted lexeme, a prefix as
    /// `'word':*`, a phrase as `'a' <-> 'b'`, an exclusion as `!`. It names no text search
    /// configuration: the store reads it with the one of each article's language.
    fn to_tsquery(&self) -> String {
        let alternatives: Vec<String> = self
            .groups
            .iter()
            .map(|group| {
                let required = group.required.iter().map(tsquery_term);
                let excluded = group
                    .excluded
                    .iter()
                    .map(|term| format!("!{}", tsquery_term(term)));
                required.chain(excluded).collect::<Vec<_>>().join(" & ")
            })
            .collect();
        parenthesized_if_several(alternatives, " | ")
    }
}

/// A piece of the query text: the `OR` operator or one term.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Or,
    Clause(Clause),
}

/// Splits the text at whitespace and quotes into `OR`s and terms. A bare piece of
/// punctuation (`&`, `(`) holds no word and is passed over, as the indexes pass over it.
fn tokens(text: &str) -> Result<Vec<Token>, SearchQueryError> {
    let mut tokens = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let (excluded, body) = match rest.strip_prefix('-') {
            Some(body) => (true, body),
            None => (false, rest),
        };
        let (term, after) = match body.strip_prefix('"') {
            Some(quoted) => {
                let (inside, after) = quoted
                    .split_once('"')
                    .ok_or(SearchQueryError::UnclosedQuote)?;
                (Some(phrase(inside)?), after)
            }
            None => {
                let end = body
                    .find(|c: char| c.is_whitespace() || c == '"')
                    .unwrap_or(body.len());
                let (piece, after) = body.split_at(end);
                if piece == OR && !excluded {
                    tokens.push(Token::Or);
                    rest = after.trim_start();
                    continue;
                }
                (bare(piece)?, after)
            }
        };
        match term {
            Some(term) => tokens.push(Token::Clause(Clause { excluded, term })),
            None if excluded => return Err(SearchQueryError::NothingExcluded),
            None => {}
        }
        rest = after.trim_start();
    }
    Ok(tokens)
}

/// The words of a quoted phrase; one word is that word.
fn phrase(inside: &str) -> Result<Term, SearchQueryError> {
    let mut words = words_of(inside);
    match words.len() {
        0 => Err(SearchQueryError::EmptyPhrase),
        1 => Ok(Term::Word(words.remove(0))),
        _ => Ok(Term::Phrase(words)),
    }
}

/// An unquoted piece: a word, a prefix (`word*`), or the words of a joined piece (`e-mail`)
/// as a phrase, as the indexes read it; `None` for punctuation alone.
fn bare(piece: &str) -> Result<Option<Term>, SearchQueryError> {
    let (stem, prefix) = match piece.strip_suffix('*') {
        Some(stem) => (stem, true),
        None => (piece, false),
    };
    if stem.contains('*') {
        return Err(SearchQueryError::MisplacedStar(piece.to_string()));
    }
    let mut words = words_of(stem);
    match (words.len(), prefix) {
        (0, true) => Err(SearchQueryError::LoneStar),
        (0, false) => Ok(None),
        (1, true) => Ok(Some(Term::Prefix(words.remove(0)))),
        (1, false) => Ok(Some(Term::Word(words.remove(0)))),
        (_, true) => Err(SearchQueryError::MisplacedStar(piece.to_string())),
        (_, false) => Ok(Some(Term::Phrase(words))),
    }
}

/// Lowercase runs of letters and digits: the words the indexes hold.
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn join(terms: &[Term], separator: &str, render: fn(&Term) -> String) -> String {
    terms.iter().map(render).collect::<Vec<_>>().join(separator)
}

fn parenthesized_if_several(alternatives: Vec<String>, separator: &str) -> String {
    match alternatives.len() {
        1 => alternatives.concat(),
        _ => alternatives
            .iter()
            .map(|alternative| format!("({alternative})"))
            .collect::<Vec<_>>()
            .join(separator),
    }
}

fn fts5_term(term: &Term) -> String {
    let quoted = |words: &[String]| format!("\"{}\"", words.join(" ").replace('"', "\"\""));
    match term {
        Term::Word(word) => quoted(std::slice::from_ref(word)),
        Term::Prefix(word) => format!("{}*", quoted(std::slice::from_ref(word))),
        Term::Phrase(words) => quoted(words),
    }
}

fn tsquery_term(term: &Term) -> String {
    let lexeme = |word: &str| format!("'{}'", word.replace('\\', "\\\\").replace('\'', "''"));
    match term {
        Term::Word(word) => lexeme(word),
        Term::Prefix(word) => format!("{}:*", lexeme(word)),
        Term::Phrase(words) => {
            let words: Vec<String> = words.iter().map(|word| lexeme(word)).collect();
            format!("({})", words.join(" <-> "))
        }
    }
}

/// True for the error a stopped statement gives: SQLite's `SQLITE_INTERRUPT` (9),
/// PostgreSQL's `query_canceled` (57014).
fn is_interruption(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => matches!(db.code().as_deref(), Some("9" | "57014")),
        _ => false,
    }
}

/// What a search is limited to: the articles one feed lists, and those of one page type.
/// The default is everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchScope {
    /// A feed's name; a name no feed has matches nothing.
    pub feed: Option<String>,
    pub page_type: Option<PageType>,
}

/// A scope as the statements bind it: the feed's id, the page type's name.
struct Bound {
    feed_id: Option<i64>,
    page_type: Option<&'static str>,
}

impl Bound {
    fn is_everything(&self) -> bool {
        self.feed_id.is_none() && self.page_type.is_none()
    }
}

impl Store {
    /// [`Store::search_in`] over every article.
    pub async fn search(&self, text: &str, limit: i64) -> Result<Vec<SearchHit>, StoreError> {
        self.search_in(text, &SearchScope::default(), limit).await
    }

    /// Full-text search over titles and texts, best match first: the articles that match one
    /// of the query's alternatives (every required term, in any order, any case, stemmed; no
    /// excluded one). A query that cannot be read or is beyond the bounds is
    /// [`StoreError::SearchQuery`]; a search longer than the store's budget stops with
    /// [`StoreError::SearchTimedOut`]. Only the articles of `scope` are searched, before the
    /// limit: a feed's best matches, not the best matches that happen to be the feed's.
    pub async fn search_in(
        &self,
        text: &str,
        scope: &SearchScope,
        limit: i64,
    ) -> Result<Vec<SearchHit>, StoreError> {
        let query = SearchQuery::parse(text)?;
        let limit = limit.max(0);
        let feed_id = match &scope.feed {
            Some(name) => match self.feed_id(name).await? {
                Some(id) => Some(id),
                None => return Ok(Vec::new()),
            },
            None => None,
        };
        let bound = Bound {
            feed_id,
            page_type: scope.page_type.map(PageType::as_str),
        };
        let budget = self.search_budget;
        let result = match &self.pool {
            Pool::Sqlite(pool) => {
                search_sqlite(pool, &query.to_fts5(), &bound, limit, budget).await
            }
            Pool::Postgres(pool) => {
                search_postgres(pool, &query.to_tsquery(), &bound, limit, budget).await
            }
        };
        match result {
            Err(error) if is_interruption(&error) => Err(StoreError::SearchTimedOut {
                budget: self.search_budget,
            }),
            other => other.context("searching articles"),
        }
    }
}

/// One search on its own connection, interrupted by a progress handler once the budget is
/// spent or once this future is dropped. A connection whose search did not end normally is
/// closed rather than returned to the pool, so its handler never stops anyone else's query.
async fn search_sqlite(
    pool: &sqlx::SqlitePool,
    fts5: &str,
    scope: &Bound,
    limit: i64,
    budget: Duration,
) -> Result<Vec<SearchHit>, sqlx::Error> {
    let mut guarded = Interruptible::acquire(pool).await?;
    let alive = Arc::new(());
    let watched = Arc::downgrade(&alive);
    let deadline = Instant::now() + budget;
    guarded
        .connection
        .lock_handle()
        .await?
        .set_progress_handler(PROGRESS_STEPS, move || {
            watched.strong_count() > 0 && Instant::now() < deadline
        });
    let hits = if scope.is_everything() {
        sqlx::query_as(sql::SEARCH.sqlite)
            .bind(fts5)
            .bind(limit)
            .fetch_all(&mut *guarded.connection)
            .await?
    } else {
        sqlx::query_as(sql::SEARCH_SCOPED.sqlite)
            .bind(fts5)
            .bind(limit)
            .bind(scope.feed_id)
            .bind(scope.page_type)
            .fetch_all(&mut *guarded.connection)
            .await?
    };
    guarded
        .connection
        .lock_handle()
        .await?
        .remove_progress_handler();
    guarded.finished = true;
    drop(alive);
    Ok(hits)
}

/// One search on its own connection whose `statement_timeout` is the budget for the time of
/// the search. No transaction: a cancelled `BEGIN` could leave one open on a pooled
/// connection. A connection whose search did not end normally (the future dropped, the
/// timeout hit) is closed, so neither its timeout nor a half-read answer reaches anyone else.
async fn search_postgres(
    pool: &sqlx::PgPool,
    tsquery: &str,
    scope: &Bound,
    limit: i64,
    budget: Duration,
) -> Result<Vec<SearchHit>, sqlx::Error> {
    let mut guarded = Interruptible::acquire(pool).await?;
    let millis = budget.as_millis().clamp(1, i32::MAX as u128) as i32;
    sqlx::query(sql::SET_STATEMENT_TIMEOUT)
        .bind(millis.to_string())
        .execute(&mut *guarded.connection)
        .await?;
    let hits = if scope.is_everything() {
        sqlx::query_as(sql::SEARCH.postgres)
            .bind(tsquery)
            .bind(limit)
            .fetch_all(&mut *guarded.connection)
            .await?
    } else {
        sqlx::query_as(sql::SEARCH_SCOPED.postgres)
            .bind(tsquery)
            .bind(limit)
            .bind(scope.feed_id)
            .bind(scope.page_type)
            .fetch_all(&mut *guarded.connection)
            .await?
    };
    sqlx::query(sql::RESET_STATEMENT_TIMEOUT)
        .execute(&mut *guarded.connection)
        .await?;
    guarded.finished = true;
    Ok(hits)
}

/// A pooled connection set up for one search (a progress handler, a statement timeout):
/// returned to the pool once the search undid that setup, closed when dropped before.
struct Interruptible<DB: sqlx::Database> {
    connection: sqlx::pool::PoolConnection<DB>,
    finished: bool,
}

impl<DB: sqlx::Database> Interruptible<DB> {
    async fn acquire(pool: &sqlx::Pool<DB>) -> Result<Self, sqlx::Error> {
        Ok(Interruptible {
            connection: pool.acquire().await?,
            finished: false,
        })
    }
}

impl<DB: sqlx::Database> Drop for Interruptible<DB> {
    fn drop(&mut self) {
        if !self.finished {
            self.connection.close_on_drop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_QUERY_TERMS, SearchQuery, SearchQueryError};

    fn fts5(text: &str) -> Result<String, SearchQueryError> {
        SearchQuery::parse(text).map(|query| query.to_fts5())
    }

    fn tsquery(text: &str) -> Result<String, SearchQueryError> {
        SearchQuery::parse(text).map(|query| query.to_tsquery())
    }

    #[test]
    fn words_are_all_required_and_always_quoted() {
        assert_eq!(fts5("rust  async"), Ok("\"rust\" \"async\"".into()));
        assert_eq!(tsquery("rust  async"), Ok("'rust' & 'async'".into()));
        assert_eq!(fts5("Rust AND or"), Ok("\"rust\" \"and\" \"or\"".into()));
        assert_eq!(tsquery("rust or not"), Ok("'rust' & 'or' & 'not'".into()));
        assert_eq!(fts5("NEAR & ( rust"), Ok("\"near\" \"rust\"".into()));
        assert_eq!(fts5("e-mail a.b"), Ok("\"e mail\" \"a b\"".into()));
        assert_eq!(tsquery("e-mail"), Ok("('e' <-> 'mail')".into()));
        assert_eq!(tsquery("l'été"), Ok("('l' <-> 'été')".into()));
    }

    #[test]
    fn uppercase_or_joins_alternatives_of_all_their_words() {
        assert_eq!(
            fts5("electric OR stadia"),
            Ok("(\"electric\") OR (\"stadia\")".into())
        );
        assert_eq!(
            tsquery("electric car OR stadia"),
            Ok("('electric' & 'car') | ('stadia')".into())
        );
        assert_eq!(
            fts5("a OR b OR c").map(|q| q.matches(" OR ").count()),
            Ok(2)
        );
    }

    #[test]
    fn phrases_exclusions_and_prefixes() {
        assert_eq!(
            fts5("\"Rust  Async\" book"),
            Ok("\"rust async\" \"book\"".into())
        );
        assert_eq!(tsquery("\"rust async\""), Ok("('rust' <-> 'async')".into()));
        assert_eq!(fts5("\"rust\""), Ok("\"rust\"".into()));
        assert_eq!(
            fts5("rust -python"),
            Ok("(\"rust\") NOT (\"python\")".into())
        );
        assert_eq!(
            fts5("rust -python -\"go lang\""),
            Ok("(\"rust\") NOT (\"python\" OR \"go lang\")".into())
        );
        assert_eq!(
            tsquery("rust -\"go lang\""),
            Ok("'rust' & !('go' <-> 'lang')".into())
        );
        assert_eq!(tsquery("-OR rust"), Ok("'rust' & !'or'".into()));
        assert_eq!(fts5("electr*"), Ok("\"electr\"*".into()));
        assert_eq!(
            tsquery("electr* -stad*"),
            Ok("'electr':* & !'stad':*".into())
        );
    }

    #[test]
    fn unreadable_queries_say_what_is_wrong() {
        let refused = |text: &str| SearchQuery::parse(text).err();
        assert_eq!(
            refused("\"rust async"),
            Some(SearchQueryError::UnclosedQuote)
        );
        assert_eq!(refused("\"(*"), Some(SearchQueryError::UnclosedQuote));
        assert_eq!(refused("rust \"\""), Some(SearchQueryError::EmptyPhrase));
        assert_eq!(refused("rust OR"), Some(SearchQueryError::DanglingOr));
        assert_eq!(refused("OR rust"), Some(SearchQueryError::DanglingOr));
        assert_eq!(refused("rust OR OR go"), Some(SearchQueryError::DanglingOr));
        assert_eq!(refused("OR"), Some(SearchQueryError::DanglingOr));
        assert_eq!(refused("-rust"), Some(SearchQueryError::OnlyExclusions));
        assert_eq!(refused("-rust -go"), Some(SearchQueryError::OnlyExclusions));
        assert_eq!(
            refused("go OR -rust"),
            Some(SearchQueryError::OnlyExclusions)
        );
        assert_eq!(
            refused("rust - go"),
            Some(SearchQueryError::NothingExcluded)
        );
        assert_eq!(refused("*"), Some(SearchQueryError::LoneStar));
        assert_eq!(refused("rust *"), Some(SearchQueryError::LoneStar));
        assert_eq!(
            refused("ru*st"),
            Some(SearchQueryError::MisplacedStar("ru*st".into()))
        );
        assert_eq!(
            refused("e-ma*"),
            Some(SearchQueryError::MisplacedStar("e-ma*".into()))
        );
        assert_eq!(refused(""), Some(SearchQueryError::Empty));
        assert_eq!(refused("  ( & ) "), Some(SearchQueryError::Empty));
    }

    #[test]
    fn repeated_words_count_once_and_too_many_are_refused() {
        let repeated = "word ".repeat(30) + &"Word. ".repeat(10);
        let query = SearchQuery::parse(&repeated).expect("40 times one word is one term");
        assert_eq!(query.to_fts5(), "\"word\"");
        let many: Vec<String> = (0..=MAX_QUERY_TERMS).map(|i| format!("w{i}")).collect();
        let refused = Err(SearchQueryError::TooManyTerms {
            terms: MAX_QUERY_TERMS + 1,
        });
        assert_eq!(SearchQuery::parse(&many.join(" ")), refused);
        assert_eq!(SearchQuery::parse(&many.join(" OR ")), refused);
        assert_eq!(
            SearchQuery::parse(&format!("\"{}\"", many.join(" "))),
            refused
        );
        let alternatives = ["a b"; 9].join(" OR ");
        assert_eq!(
            SearchQuery::parse(&alternatives),
            Err(SearchQueryError::TooManyWordsInAll { words: 18 })
        );
        assert!(SearchQuery::parse(&["a b"; 8].join(" OR ")).is_ok());
        assert!(matches!(
            SearchQuery::parse(&"a".repeat(300)),
            Err(SearchQueryError::TooLong { chars: 300 })
        ));
        assert!(matches!(
            SearchQuery::parse(&"\"".repeat(300)),
            Err(SearchQueryError::TooLong { chars: 300 })
        ));
    }
}
