//! `[[sites]]`: per-site extraction rules (CSS selectors), compiled and checked at load.
//!
//! Owns [`SiteRulesConfig`], the compiled rules of every entry and the lookup by host; what a
//! rule does to a page is `extract::rules`.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use serde::Deserialize;
use toml::Spanned;

use super::ConfigError;
use crate::extract::rules::{self, SiteRules};

/// Every `[[sites]]` entry, compiled.
#[derive(Debug, Clone, Default)]
pub struct SiteRulesConfig {
    pub sites: Vec<Arc<SiteRules>>,
}

impl SiteRulesConfig {
    /// The rules for the host of `url`: an exact host first, else the longest `*.` pattern.
    pub fn for_url(&self, url: &url::Url) -> Option<Arc<SiteRules>> {
        let host = url.host_str()?;
        let chosen = rules::rules_for(&self.sites, host)?;
        self.sites
            .iter()
            .find(|rules| std::ptr::eq(rules.as_ref(), chosen))
            .cloned()
    }
}

/// `[[sites]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSite {
    host: Spanned<String>,
    #[serde(default)]
    content: Vec<Spanned<String>>,
    #[serde(default)]
    remove: Vec<Spanned<String>>,
}

/// Compiles every entry; a bad host or selector is refused at its place, a host given twice
/// too.
pub(super) fn validate(
    raw: Vec<RawSite>,
    at: impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<SiteRulesConfig, ConfigError> {
    let mut hosts = HashSet::new();
    let mut sites = Vec::with_capacity(raw.len());
    for site in raw {
        let texts = |list: &[Spanned<String>]| -> Vec<String> {
            list.iter()
                .map(|s| s.get_ref().trim().to_string())
                .collect()
        };
        let compiled = SiteRules::new(
            site.host.get_ref(),
            &texts(&site.content),
            &texts(&site.remove),
        )
        .map_err(|error| {
            let span = match error.key {
                "content" => site.content.get(error.index).map(Spanned::span),
                "remove" => site.remove.get(error.index).map(Spanned::span),
                _ => None,
            };
            let span = span.unwrap_or_else(|| site.host.span());
            at(span, format!("[[sites]] {error}"))
        })?;
        if !hosts.insert(compiled.host.clone()) {
            return Err(at(
                site.host.span(),
                format!("[[sites]] host: `{}` has rules twice", compiled.host),
            ));
        }
        sites.push(Arc::new(compiled));
    }
    Ok(SiteRulesConfig { sites })
}
