//! One attempt at one entry of a feed: the feed's filters, the page downloaded and stored
//! (`page`), or the failure recorded and what it makes of the entry: tried again after a
//! doubling wait, or given up (and stored from the entry's own text when it has enough).

use chrono::{DateTime, Utc};

use super::context::{Context, FeedSettings};
use super::failure::{StepFailure, record};
use super::page::{
    PageOutcome, candidate, download_and_store, store_feed_entry, store_instead_of_page,
};
use super::transcript::store_from_transcript;
use crate::config::{ContentSource, EntriesConfig};
use crate::extract::Verdict as PageVerdict;
use crate::filter::{Blocked, Candidate, Decision};
use crate::metrics;
use crate::store::OwnKind;
use crate::store::{EntryAttempt, EntryState, InsertOutcome, PendingEntry, now};

/// What became of one attempt at an entry.
pub(super) enum EntryOutcome {
    Stored {
        failed_images: usize,
    },
    Known,
    /// Another poll is downloading the same URL right now; the entry stays due.
    Busy,
    Failed,
    /// Turned away by the feed's filters.
    Blocked,
}

/// One attempt at one entry; its outcome is written back to the entry. An attempt cut short
/// (the poll abandoned) writes nothing, and the entry stays due. The feed's filters judge the
/// entry first: one they turn away is never downloaded.
pub(super) async fn process_entry(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
) -> EntryOutcome {
    // The summary is HTML (a text summary escaped: `AT&amp;T`): rules read its words.
    let summary_text = entry.summary.as_deref().map(crate::feed::plain_text);
    let judged = Candidate {
        text: summary_text.as_deref(),
        ..candidate(entry, None)
    };
    if let Decision::Blocked(reason) = settings.config.filters.judge(&judged) {
        return block(ctx, entry, &reason).await;
    }
    let Some(_claim) = ctx.in_flight.claim(&entry.url) else {
        return EntryOutcome::Busy;
    };
    // Another feed may have stored the same article since this entry was remembered.
    let outcome = match ctx
        .store
        .known_article(entry.feed_id, entry.guid.as_deref(), &entry.url)
        .await
    {
        Ok(Some(id)) => return list_known(ctx, settings, entry, id).await,
        Ok(None) => match transcribed(ctx, settings, entry).await {
            Some(outcome) => outcome,
            // `content = "feed"`: the entry's own text is the article, and the page is not
            // read.
            None if settings.config.content == ContentSource::Feed => {
                store_feed_entry(ctx, settings, entry).await
            }
            None => download_and_store(ctx, settings, entry).await,
        },
        Err(error) => Err(StepFailure::database(error)),
    };
    match outcome {
        Ok(page) => page_outcome(ctx, entry, page).await,
        Err(failure) => entry_failed(ctx, settings, entry, failure).await,
    }
}

/// An episode that names a transcript stored from it ([`store_from_transcript`]); `None`
/// when it names none or the transcript could not be read, and always with
/// `content = "page"` (the page only).
async fn transcribed(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
) -> Option<Result<PageOutcome, StepFailure>> {
    if settings.config.content == ContentSource::Page {
        return None;
    }
    store_from_transcript(ctx, settings, entry).await
}

/// Records a failed attempt and writes what it makes of the entry. An entry given up whose
/// feed entry carries enough text of its own is stored from that text instead of being lost,
/// with the verdict the failures gave the page (`not_found` after a 404 or 410, else
/// `blocked`: the page could not be had).
async fn entry_failed(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
    failure: StepFailure,
) -> EntryOutcome {
    tracing::warn!(url = %entry.url, stage = failure.stage.as_str(), kind = %failure.kind, error = %failure.message, "article failed");
    record(ctx, Some(entry.feed_id), Some(&entry.url), &failure).await;
    let mut attempt = after_failure(&ctx.config.entries, entry, &failure, now());
    // `content = "page"`: the entry's text never stands in for the page.
    if attempt.state == EntryState::GivenUp && settings.config.content != ContentSource::Page {
        let verdict = failure.verdict.unwrap_or(PageVerdict::Blocked);
        match store_instead_of_page(ctx, settings, entry, verdict).await {
            Some(Ok(page)) => return page_outcome(ctx, entry, page).await,
            Some(Err(other)) => {
                record(ctx, Some(entry.feed_id), Some(&entry.url), &other).await;
                // A database that failed the store leaves the entry due, uncounted.
                if other.is_database() {
                    attempt = after_failure(&ctx.config.entries, entry, &other, now());
                }
            }
            None => {}
        }
    }
    if attempt.state == EntryState::GivenUp {
        give_up(ctx, entry, &attempt, &failure).await;
    }
    settle(ctx, entry, attempt).await;
    EntryOutcome::Failed
}

/// What a stored (or blocked) page makes of its entry.
async fn page_outcome(ctx: &Context, entry: &PendingEntry, page: PageOutcome) -> EntryOutcome {
    match page {
        // The article's transaction settled the entry too.
        PageOutcome::Stored(InsertOutcome::Inserted(id), failed_images) => {
            metrics::article_stored();
            tracing::debug!(article = id, url = %entry.url, "article stored");
            EntryOutcome::Stored { failed_images }
        }
        PageOutcome::Stored(InsertOutcome::Duplicate(_), _) => {
            settle(ctx, entry, EntryAttempt::stored(entry.attempts, now())).await;
            EntryOutcome::Known
        }
        PageOutcome::Blocked(reason) => block(ctx, entry, &reason).await,
    }
}

/// An entry whose article is stored already (another feed's, or its own under another URL
/// form): the feed lists it from now on, with what its entry says of it, and the entry is
/// settled, the article taking the feed's tags. A database that refuses leaves the entry due.
async fn list_known(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
    article_id: i64,
) -> EntryOutcome {
    let attempt = EntryAttempt::stored(entry.attempts, now());
    let tags = settings.article_tags(&entry.tags);
    if let Err(error) = ctx
        .store
        .list_known_article((entry, &tags), article_id, &attempt)
        .await
    {
        tracing::warn!(url = %entry.url, %error, "cannot record a feed's listing; the entry stays due");
    }
    EntryOutcome::Known
}

/// Records an entry the filters turned away; it is not due again.
async fn block(ctx: &Context, entry: &PendingEntry, reason: &Blocked) -> EntryOutcome {
    tracing::debug!(url = %entry.url, %reason, "entry blocked by the feed's filters");
    metrics::entry_blocked();
    if let Err(error) = ctx
        .store
        .block_entry(entry.id, &reason.to_string(), now())
        .await
    {
        tracing::warn!(url = %entry.url, %error, "cannot record a blocked entry; it stays due");
    }
    EntryOutcome::Blocked
}

/// What a failed attempt makes of an entry: tried again after `[fetch] article_retry_seconds`,
/// doubling with each failure, until `[fetch] article_retries` retries have failed too; a
/// database failure is waited out without counting.
pub(super) fn after_failure(
    config: &EntriesConfig,
    entry: &PendingEntry,
    failure: &StepFailure,
    at: DateTime<Utc>,
) -> EntryAttempt {
    let error = Some(format!("{}: {}", failure.kind, failure.message));
    let waited = |failures: i64| {
        let doublings = u32::try_from(failures.saturating_sub(1).clamp(0, 20)).unwrap_or(20);
        let wait = config.retry_after.saturating_mul(1 << doublings);
        at + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::days(365))
    };
    if failure.is_database() {
        let state = if entry.attempts == 0 {
            EntryState::Pending
        } else {
            EntryState::Retrying
        };
        return EntryAttempt {
            state,
            attempts: entry.attempts,
            next_attempt_at: waited(1),
            error,
        };
    }
    let attempts = entry.attempts + 1;
    let exhausted = attempts > i64::from(config.retries)
        || failure.attempts_cap().is_some_and(|cap| attempts >= cap);
    let state = if failure.is_final() || exhausted {
        EntryState::GivenUp
    } else {
        EntryState::Retrying
    };
    EntryAttempt {
        state,
        attempts,
        next_attempt_at: waited(attempts),
        error,
    }
}

/// Writes an attempt's outcome; when the database refuses, the entry stays due and the next
/// poll tries it again (a stored article is then found and the entry settled).
async fn settle(ctx: &Context, entry: &PendingEntry, attempt: EntryAttempt) {
    if let Err(error) = ctx.store.record_entry_attempt(entry.id, &attempt).await {
        tracing::warn!(url = %entry.url, %error, "cannot record an entry attempt; it stays due");
    }
}

/// Records that an entry is left alone from now on, for `gleaner failures`.
async fn give_up(ctx: &Context, entry: &PendingEntry, attempt: &EntryAttempt, last: &StepFailure) {
    let failure = StepFailure::own(
        last.stage,
        OwnKind::GivenUp,
        format!(
            "{}: given up after {} failed attempts; last: {}: {}",
            entry.url, attempt.attempts, last.kind, last.message
        ),
    );
    tracing::warn!(url = %entry.url, attempts = attempt.attempts, "article given up");
    record(ctx, Some(entry.feed_id), Some(&entry.url), &failure).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{FailureKind, Stage};
    use std::time::Duration;

    fn entry(attempts: i64) -> PendingEntry {
        PendingEntry {
            id: 1,
            feed_id: 1,
            guid: None,
            url: "https://example.org/a".into(),
            title: String::new(),
            author: None,
            summary: None,
            content: None,
            published_at: None,
            attempts,
            enclosures: Vec::new(),
            tags: Vec::new(),
        }
    }

    fn config() -> EntriesConfig {
        EntriesConfig {
            retry_after: Duration::from_secs(300),
            retries: 2,
            max_per_feed: 500,
        }
    }

    #[test]
    fn failed_entries_back_off_doubling_then_are_given_up() {
        let at = now();
        let failure = StepFailure::new(
            Stage::Page,
            crate::fetch::FetchErrorKind::HttpStatus,
            "HTTP 503",
        );
        let waits: Vec<(EntryState, i64)> = (0..3)
            .map(|attempts| {
                let next = after_failure(&config(), &entry(attempts), &failure, at);
                (next.state, (next.next_attempt_at - at).num_seconds())
            })
            .collect();
        assert_eq!(
            waits,
            [
                (EntryState::Retrying, 300),
                (EntryState::Retrying, 600),
                (EntryState::GivenUp, 1200),
            ]
        );
    }

    #[test]
    fn pages_that_are_not_articles_are_retried_as_their_verdict_allows() {
        let at = now();
        let given_up_after = |verdict: PageVerdict| {
            let failure = StepFailure::not_an_article(verdict, "not an article");
            (0..10)
                .find(|&attempts| {
                    after_failure(&config(), &entry(attempts), &failure, at).state
                        == EntryState::GivenUp
                })
                .map(|attempts| attempts + 1)
        };
        // A challenge may clear: the whole policy (`article_retries` = 2 retries).
        assert_eq!(given_up_after(PageVerdict::Blocked), Some(3));
        for verdict in [
            PageVerdict::NotFound,
            PageVerdict::NeedsJavascript,
            PageVerdict::Consent,
            PageVerdict::Login,
            PageVerdict::NotArticle,
        ] {
            assert_eq!(given_up_after(verdict), Some(2), "{verdict}");
        }
        let failure = StepFailure::not_an_article(PageVerdict::NotFound, "gone");
        assert_eq!(failure.kind, FailureKind::Verdict(PageVerdict::NotFound));
        assert_eq!(failure.kind.as_str(), "not_found");
        assert_eq!(failure.stage, Stage::Extract);
    }

    #[test]
    fn database_failures_do_not_count_and_timeouts_give_up_at_once() {
        let at = now();
        let database = StepFailure::own(Stage::Store, OwnKind::Database, "gone");
        let next = after_failure(&config(), &entry(1), &database, at);
        assert_eq!((next.state, next.attempts), (EntryState::Retrying, 1));
        let timeout = StepFailure::own(Stage::Extract, OwnKind::ExtractTimeout, "slow");
        let next = after_failure(&config(), &entry(0), &timeout, at);
        assert_eq!(next.state, EntryState::GivenUp);
    }
}
