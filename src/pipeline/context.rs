//! What every poll shares ([`Context`]: the configuration, the store, the fetcher, and what is
//! in flight across polls) and what one feed's configuration asks of its poll
//! ([`FeedSettings`], with the page type a page of it is configured as).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crate::config::{Config, FeedConfig};
use crate::extract::Algorithm;
use crate::extract::page_type::PageType;
use crate::fetch::{Fetcher, RequestOptions};
use crate::store::{FeedRecord, Store};

/// What every poll needs. Cheap to clone; a reload builds a new one (keeping `in_flight`).
#[derive(Clone)]
pub struct Context {
    pub config: Arc<Config>,
    pub store: Store,
    pub fetcher: Fetcher,
    /// Article URLs being downloaded right now, so that two feeds polled at the same time
    /// that carry the same article download it once.
    pub in_flight: InFlight,
}

/// Pages that may be downloading or downloaded and waiting for extraction, per core.
const PAGES_PER_CORE: usize = 8;

/// What is in flight across all polls: the article URLs claimed by the poll that downloads
/// them, the permits to extract a page, and the permits to hold a page's bytes.
#[derive(Clone)]
pub struct InFlight(
    Arc<Mutex<HashSet<String>>>,
    Arc<tokio::sync::Semaphore>,
    Arc<tokio::sync::Semaphore>,
);

impl Default for InFlight {
    /// As many extractions at once as the machine has cores: a page waiting for its turn holds
    /// only its bytes, not a parsed DOM (tens of times its size), and the async runtime's
    /// threads are not crowded out by dozens of extraction threads, which would stretch every
    /// database transaction they drive. At most [`PAGES_PER_CORE`] pages per core from the
    /// start of their download to the end of their extraction: without that bound, every
    /// feed polled at once (`[fetch] concurrency` × the articles of a feed in parallel)
    /// would hold a downloaded page waiting for its turn, and memory would follow the
    /// configuration rather than the machine.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        InFlight(
            Default::default(),
            Arc::new(tokio::sync::Semaphore::new(cores)),
            Arc::new(tokio::sync::Semaphore::new(cores * PAGES_PER_CORE)),
        )
    }
}

/// Releases a claimed URL when dropped (also when the poll is abandoned).
pub(super) struct Claim {
    set: InFlight,
    url: String,
}

impl InFlight {
    /// Waits for a turn to extract a page; the turn ends when the permit is dropped.
    pub(super) async fn extraction_permit(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.1.clone().acquire_owned().await.ok()
    }

    /// Waits for the right to download a page and hold its bytes until it is extracted.
    pub(super) async fn page_permit(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.2.clone().acquire_owned().await.ok()
    }

    pub(super) fn claim(&self, url: &str) -> Option<Claim> {
        let mut set = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        set.insert(url.to_string()).then(|| Claim {
            set: self.clone(),
            url: url.to_string(),
        })
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut set = self
            .set
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        set.remove(&self.url);
    }
}

/// What one feed's configuration asks of its poll, resolved against the global settings.
pub(super) struct FeedSettings<'a> {
    /// The feed's row id.
    pub(super) id: i64,
    pub(super) config: &'a FeedConfig,
    /// Sent with each of the feed's requests.
    pub(super) options: Arc<RequestOptions>,
    /// The feed's `algorithm`, else `[extract] algorithm`.
    pub(super) algorithm: Algorithm,
    /// The feed's `images`, else `[images] download`.
    pub(super) download_images: bool,
    /// The feed's `page_type`: what its entries' pages are, when the user knows it.
    pub(super) page_type: Option<PageType>,
}

impl FeedSettings<'_> {
    pub(super) fn new<'a>(
        ctx: &Context,
        feed: &FeedRecord,
        config: &'a FeedConfig,
    ) -> FeedSettings<'a> {
        FeedSettings {
            id: feed.id,
            config,
            options: Arc::new(RequestOptions::for_feed(config)),
            algorithm: config.algorithm.unwrap_or(ctx.config.extract.algorithm),
            download_images: config.images.unwrap_or(ctx.config.images.download),
            page_type: config.page_type,
        }
    }

    /// The page type configured for a page of this feed at `url`: its `[[sites]]` entry's
    /// `page_type`, the more specific, else the feed's; `None`: the detector decides.
    pub(super) fn page_type_for(&self, ctx: &Context, url: &url::Url) -> Option<PageType> {
        ctx.config.sites.page_type_for(url).or(self.page_type)
    }

    /// The tags this feed gives the article of an entry with tags `entry_tags`: the entry's
    /// own, then the feed's `tags`, one of each whatever its case.
    pub(super) fn article_tags(&self, entry_tags: &[String]) -> Vec<String> {
        crate::feed::tags::normalize(entry_tags.iter().chain(&self.config.tags))
    }
}
