//! Site templates in the database: the `site_templates` table, one row per site.
//!
//! The model itself ([`SiteTemplate`], `src/extract/cascade/template.rs`) is pure; this module reads
//! it before a page of the site is extracted ([`Store::site_template`]) and adds stored
//! pages to it ([`Store::learn_site_page`]) in one transaction that holds the row, so replicas
//! on one database learn from each other's pages without losing any; the pages stored while
//! one write runs are learned together by the next (a group commit). A model that no longer
//! reads (written by a different version, damaged by hand) is started afresh.
//!
//! A model is tens of kilobytes of JSON; reading and parsing it for every page of a site
//! cost more than the page's extraction. Each process keeps the models it parsed last
//! ([`TemplateCache`]) with their version, the row's `pages`, which every learned page
//! raises under the row's lock: the database sends the model only when its version differs
//! from the one held, that is when another process (a replica) changed it since.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

use super::{QueryContext, Store, StoreError, now, on_pool, sql};
use crate::extract::template::{Applied, PageObservation, SiteTemplate, TemplateParams};

/// One site's row, for `gleaner sites`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
pub struct SiteSummary {
    /// The host of the site's articles, without `www.`.
    pub site: String,
    /// Pages the model has learned.
    pub pages: i64,
    /// Fingerprints in the model.
    pub fingerprints: i64,
    /// Fingerprints that count as template.
    pub template_blocks: i64,
    /// Pages the model removed something from.
    pub applied_pages: i64,
    /// Blocks it removed from them, and their bytes of text.
    pub removed_blocks: i64,
    pub removed_bytes: i64,
    pub updated_at: DateTime<Utc>,
}

/// The models this process parsed last, by site, each with its version (`pages`), and the
/// pages waiting to be learned.
#[derive(Debug, Default)]
pub(super) struct TemplateCache {
    models: Mutex<HashMap<String, (i64, Arc<SiteTemplate>)>>,
    /// Pages stored and not yet learned, in the order they were stored.
    queued: Mutex<Vec<Lesson>>,
    /// Held by the one task that writes what is queued.
    writer: tokio::sync::Mutex<()>,
}

/// One stored page for its site's model.
#[derive(Debug)]
struct Lesson {
    site: String,
    observation: PageObservation,
    applied: Option<Applied>,
}

/// Sites whose models a process keeps parsed; past it the cache starts afresh (a model is
/// bounded in size, so this bounds the memory).
const CACHED_SITES: usize = 256;

/// The version a process asks the database with when it holds no model: never a row's.
const NO_VERSION: i64 = -1;

impl TemplateCache {
    /// The model held for `site`, with its version.
    fn get(&self, site: &str) -> Option<(i64, Arc<SiteTemplate>)> {
        let models = self.models.lock().ok()?;
        models.get(site).cloned()
    }

    /// The model held for `site`, no longer held: its next version replaces it.
    fn take(&self, site: &str) -> Option<(i64, Arc<SiteTemplate>)> {
        self.models.lock().ok()?.remove(site)
    }

    fn queue(&self, lesson: Lesson) {
        self.queued
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(lesson);
    }

    /// Everything queued, by site (sites by name, so that every writer holds their rows in
    /// one order), each site's pages in the order they were stored.
    fn take_queued(&self) -> Vec<(String, Vec<Lesson>)> {
        let queued = std::mem::take(
            &mut *self
                .queued
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        let mut by_site: std::collections::BTreeMap<String, Vec<Lesson>> = Default::default();
        for lesson in queued {
            by_site.entry(lesson.site.clone()).or_default().push(lesson);
        }
        by_site.into_iter().collect()
    }

    fn put(&self, site: &str, version: i64, model: Arc<SiteTemplate>) {
        if let Ok(mut models) = self.models.lock() {
            if models.len() >= CACHED_SITES && !models.contains_key(site) {
                models.clear();
            }
            models.insert(site.to_string(), (version, model));
        }
    }
}

/// The model of a row read with [`sql::SELECT_SITE_TEMPLATE_UNLESS_HELD`]: the one held when
/// the row sent none (its version is the held one), else the row's.
fn current_model(
    site: &str,
    held: Option<(i64, Arc<SiteTemplate>)>,
    row: (i64, Option<String>),
) -> Option<Arc<SiteTemplate>> {
    match (held, row) {
        (Some((held_version, model)), (version, None)) if held_version == version => Some(model),
        (_, (_, text)) => read_model(site, text).map(Arc::new),
    }
}

fn read_model(site: &str, text: Option<String>) -> Option<SiteTemplate> {
    let text = text?;
    match SiteTemplate::from_json(&text) {
        Ok(model) => Some(model),
        Err(error) => {
            tracing::warn!(site, %error, "unreadable site template; starting afresh");
            None
        }
    }
}

impl Store {
    /// The model of a site, if it has one.
    pub async fn site_template(&self, site: &str) -> Result<Option<Arc<SiteTemplate>>, StoreError> {
        let held = self.templates.get(site);
        let row: Option<(i64, Option<String>)> = on_pool!(self, pool => {
            sqlx::query_as(sql::SELECT_SITE_TEMPLATE_UNLESS_HELD)
                .bind(site)
                .bind(held.as_ref().map_or(NO_VERSION, |(version, _)| *version))
                .fetch_optional(pool)
                .await
        })
        .context("reading a site template")?;
        let Some(row) = row else {
            return Ok(None);
        };
        let version = row.0;
        let model = current_model(site, held, row);
        if let Some(model) = &model {
            self.templates.put(site, version, Arc::clone(model));
        }
        Ok(model)
    }

    /// Adds one stored page to its site's model, with what the model removed from it.
    ///
    /// Pages stored while another page's lesson is being written wait and are learned
    /// together, one transaction per site (a group commit: the model, tens of kilobytes, is
    /// written once for all of them, and nothing waits for a timer or is left to flush at
    /// shutdown). When this returns, the page is in the model, or the write failed and was
    /// reported: a model is an aid to extraction, and a lost lesson loses no article.
    pub async fn learn_site_page(
        &self,
        site: &str,
        observation: PageObservation,
        applied: Option<Applied>,
    ) -> Result<(), StoreError> {
        self.templates.queue(Lesson {
            site: site.to_string(),
            observation,
            applied,
        });
        let _writer = self.templates.writer.lock().await;
        // Empty when a writer before this one took this page with its own. The caller
        // reports its own site's failure; another site's is reported here.
        let mut result = Ok(());
        for (queued_site, lessons) in self.templates.take_queued() {
            match self.learn_site_pages(&queued_site, &lessons).await {
                Err(error) if queued_site == site => result = Err(error),
                Err(error) => {
                    tracing::warn!(site = queued_site, pages = lessons.len(), %error,
                        "cannot update the site template");
                }
                Ok(()) => {}
            }
        }
        result
    }

    /// Adds pages of one site to its model in one transaction that holds the site's row, so
    /// replicas on one database learn from each other's pages without losing any.
    async fn learn_site_pages(&self, site: &str, lessons: &[Lesson]) -> Result<(), StoreError> {
        let params = TemplateParams::default();
        let select = self.sql(&sql::SELECT_SITE_TEMPLATE_UNLESS_HELD_FOR_UPDATE);
        let applied: Vec<Applied> = lessons.iter().filter_map(|l| l.applied).collect();
        let applied_pages = applied.iter().filter(|a| a.removed_blocks > 0).count();
        let removed_blocks: usize = applied.iter().map(|a| a.removed_blocks).sum();
        let removed_bytes: usize = applied.iter().map(|a| a.removed_bytes).sum();
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        on_pool!(self, pool => {
            let mut tx = pool
                .begin_with(self.begin_write())
                .await
                .context("beginning a transaction")?;
            // Taken, not copied: the model is changed in place and held again after the
            // commit (a failed transaction leaves nothing held, and the next read parses).
            let held = self.templates.take(site);
            let held_version = held.as_ref().map_or(NO_VERSION, |(version, _)| *version);
            // The row is held from here: its version cannot move until the commit.
            let mut row: Option<(i64, Option<String>)> = sqlx::query_as(select)
                .bind(site)
                .bind(held_version)
                .fetch_optional(&mut *tx)
                .await
                .context("reading a site template")?;
            if row.is_none() {
                // The site's first pages: create the row (or wait for the one another
                // process is creating), then hold it.
                sqlx::query(sql::CREATE_SITE_TEMPLATE)
                    .bind(site)
                    .bind(SiteTemplate::default().to_json())
                    .bind(now())
                    .execute(&mut *tx)
                    .await
                    .context("creating a site template")?;
                row = sqlx::query_as(select)
                    .bind(site)
                    .bind(held_version)
                    .fetch_optional(&mut *tx)
                    .await
                    .context("reading a site template")?;
            }
            let mut model = row
                .and_then(|row| current_model(site, held, row))
                .map(Arc::unwrap_or_clone)
                .unwrap_or_default();
            for lesson in lessons {
                model.learn(&lesson.observation, &params);
            }
            let new_version = i64::try_from(model.pages).unwrap_or(i64::MAX);
            sqlx::query(sql::UPSERT_SITE_TEMPLATE)
                .bind(site)
                .bind(new_version)
                .bind(count(model.blocks.len()))
                .bind(count(model.template_size(&params)))
                .bind(model.to_json())
                .bind(now())
                .bind(count(applied_pages))
                .bind(count(removed_blocks))
                .bind(count(removed_bytes))
                .execute(&mut *tx)
                .await
                .context("writing a site template")?;
            tx.commit().await.context("committing a site template")?;
            self.templates.put(site, new_version, Arc::new(model));
            Ok::<(), StoreError>(())
        })
    }

    /// Every site with a model, by name.
    pub async fn site_summaries(&self) -> Result<Vec<SiteSummary>, StoreError> {
        on_pool!(self, pool => {
            sqlx::query_as(sql::LIST_SITE_TEMPLATES).fetch_all(pool).await
        })
        .context("listing site templates")
    }
}
