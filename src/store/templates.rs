//! Site templates in the database: the `site_templates` table, one row per site.
//!
//! The model itself ([`SiteTemplate`], `src/extract/template.rs`) is pure; this module reads
//! it before a page of the site is extracted ([`Store::site_template`]) and adds a stored
//! page to it ([`Store::learn_site_page`]) in one transaction that holds the row, so replicas
//! on one database learn from each other's pages without losing any. A model that no longer
//! reads (written by a different version, damaged by hand) is started afresh.

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
    pub async fn site_template(&self, site: &str) -> Result<Option<SiteTemplate>, StoreError> {
        let text: Option<String> = on_pool!(self, pool => {
            sqlx::query_scalar(sql::SELECT_SITE_TEMPLATE)
                .bind(site)
                .fetch_optional(pool)
                .await
        })
        .context("reading a site template")?;
        Ok(read_model(site, text))
    }

    /// Adds one stored page to its site's model, with what the model removed from it, in
    /// one transaction that holds the site's row.
    pub async fn learn_site_page(
        &self,
        site: &str,
        observation: &PageObservation,
        applied: Option<Applied>,
    ) -> Result<(), StoreError> {
        let params = TemplateParams::default();
        let select = self.sql(&sql::SELECT_SITE_TEMPLATE_FOR_UPDATE);
        let applied_pages = i64::from(applied.is_some_and(|a| a.removed_blocks > 0));
        let applied = applied.unwrap_or_default();
        on_pool!(self, pool => {
            let mut tx = pool
                .begin_with(self.begin_write())
                .await
                .context("beginning a transaction")?;
            let text: Option<String> = sqlx::query_scalar(select)
                .bind(site)
                .fetch_optional(&mut *tx)
                .await
                .context("reading a site template")?;
            let mut model = read_model(site, text).unwrap_or_default();
            model.learn(observation, &params);
            sqlx::query(sql::UPSERT_SITE_TEMPLATE)
                .bind(site)
                .bind(i64::try_from(model.pages).unwrap_or(i64::MAX))
                .bind(i64::try_from(model.blocks.len()).unwrap_or(i64::MAX))
                .bind(i64::try_from(model.template_size(&params)).unwrap_or(i64::MAX))
                .bind(model.to_json())
                .bind(now())
                .bind(applied_pages)
                .bind(i64::try_from(applied.removed_blocks).unwrap_or(i64::MAX))
                .bind(i64::try_from(applied.removed_bytes).unwrap_or(i64::MAX))
                .execute(&mut *tx)
                .await
                .context("writing a site template")?;
            tx.commit().await.context("committing a site template")?;
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
