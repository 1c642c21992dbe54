//! What can go wrong in a poll, in the words the failures table, the logs and the metrics use.
//!
//! Owns `StepFailure`, one failure of one step, which also decides how an entry's retries
//! treat it; its stage and kind are the store's vocabulary ([`Stage`], [`FailureKind`]).
//!
//! A page judged not to be an article fails at stage `extract` with its verdict's name as the
//! kind (`blocked`, `not_found`, …; `extract::Verdict::as_str`). A bot challenge or a rate
//! limit may clear: it is retried like any failure. Every other verdict is the page's own
//! answer and would be the same again: given up after [`VERDICT_ATTEMPTS`] attempts.

use super::context::Context;
use crate::extract::Verdict;
use crate::fetch::FetchError;
use crate::metrics;
use crate::store::{FailureKind, NewFailure, OwnKind, Stage};

/// Attempts at a page judged `not_found`, `needs_javascript`, `consent`, `login` or
/// `not_article` before its entry is given up: one more try covers an article whose page went
/// live after its feed entry, and a wall shown once; more would ask the same of a page that
/// answered.
pub(super) const VERDICT_ATTEMPTS: i64 = 2;

/// A failure of one step, as recorded in the failures table.
#[derive(Debug)]
pub(super) struct StepFailure {
    pub(super) stage: Stage,
    pub(super) kind: FailureKind,
    pub(super) message: String,
    /// What the failure says the page is: the verdict on a page that is not an article, or
    /// what an HTTP status tells of it (`blocked`, `not_found`); `None` when it says nothing.
    pub(super) verdict: Option<Verdict>,
}

impl StepFailure {
    pub(super) fn new(stage: Stage, kind: impl Into<FailureKind>, message: impl ToString) -> Self {
        StepFailure {
            stage,
            kind: kind.into(),
            message: message.to_string(),
            verdict: None,
        }
    }

    /// A page judged `verdict`, which is not an article.
    pub(super) fn not_an_article(verdict: Verdict, message: impl ToString) -> Self {
        StepFailure {
            verdict: Some(verdict),
            ..StepFailure::new(Stage::Extract, verdict, message)
        }
    }

    /// A page that could not be downloaded; a status of a bot wall, access denial or rate
    /// limit says `blocked`, a 404 or 410 says `not_found`.
    pub(super) fn page_fetch(error: &FetchError) -> Self {
        let verdict = match error.status() {
            Some(404 | 410) => Some(Verdict::NotFound),
            Some(401 | 403 | 429 | 451 | 503) => Some(Verdict::Blocked),
            _ => None,
        };
        StepFailure {
            verdict,
            ..StepFailure::new(Stage::Page, error.kind(), error)
        }
    }

    pub(super) fn own(stage: Stage, kind: OwnKind, message: impl ToString) -> Self {
        StepFailure::new(stage, kind, message)
    }

    pub(super) fn database(error: crate::store::StoreError) -> Self {
        StepFailure::own(Stage::Store, OwnKind::Database, error)
    }

    /// Failures that say nothing about the page: the entry waits, its attempts not counted.
    pub(super) fn is_database(&self) -> bool {
        self.kind == FailureKind::Own(OwnKind::Database)
    }

    /// Failures that would happen again on every try: the entry is given up at once.
    pub(super) fn is_final(&self) -> bool {
        matches!(
            self.kind,
            FailureKind::Own(OwnKind::ExtractTimeout | OwnKind::BadUrl)
        )
    }

    /// The attempts after which an entry that failed so is given up, when fewer than
    /// `[fetch] article_retries` allow: a page judged not an article for a reason that waiting
    /// does not change ([`VERDICT_ATTEMPTS`]).
    pub(super) fn attempts_cap(&self) -> Option<i64> {
        match (self.stage, self.verdict) {
            (Stage::Extract, Some(verdict)) if verdict != Verdict::Blocked => {
                Some(VERDICT_ATTEMPTS)
            }
            _ => None,
        }
    }
}

/// Records a failure in the failures table and the metrics; a failure to record it is
/// logged.
pub(super) async fn record(
    ctx: &Context,
    feed_id: Option<i64>,
    article_url: Option<&str>,
    failure: &StepFailure,
) {
    metrics::failure(failure.stage.as_str(), failure.kind.as_str());
    let row = failure_row(feed_id, article_url, failure);
    if let Err(error) = ctx.store.record_failure(&row).await {
        tracing::error!(%error, "could not record a failure");
    }
}

/// The row that records `failure`.
pub(super) fn failure_row(
    feed_id: Option<i64>,
    article_url: Option<&str>,
    failure: &StepFailure,
) -> NewFailure {
    NewFailure {
        feed_id,
        article_url: article_url.map(str::to_string),
        stage: failure.stage,
        kind: failure.kind,
        message: failure.message.clone(),
    }
}
