//! `[[sites]]`: per-site extraction rules (CSS selectors), compiled and checked at load, and
//! the page type a site's pages are (`page_type = "forum"`).
//!
//! Owns [`SiteRulesConfig`], the compiled rules of every entry, the configured page types and
//! the lookup by host; what a rule does to a page is `extract::rules`.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use serde::Deserialize;
use toml::Spanned;

use super::ConfigError;
use crate::extract::page_type::PageType;
use crate::extract::rules::{self, SiteRules};

/// Every `[[sites]]` entry, compiled.
#[derive(Debug, Clone, Default)]
pub struct SiteRulesConfig {
    /// The entries with `content` or `remove` selectors.
    pub sites: Vec<Arc<SiteRules>>,
    /// The entries with a `page_type`.
    pub page_types: Vec<SitePageType>,
}

/// A `[[sites]]` entry's `page_type`, with the entry's host pattern (its compiled rules: an
/// entry with only a `page_type` has rules that do nothing, and is not among
/// [`SiteRulesConfig::sites`]).
#[derive(Debug, Clone)]
pub struct SitePageType {
    pub site: Arc<SiteRules>,
    pub page_type: PageType,
}

impl AsRef<SiteRules> for SitePageType {
    fn as_ref(&self) -> &SiteRules {
        &self.site
    }
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

    /// The `page_type` configured for the host of `url`: an exact host first, else the
    /// longest `*.` pattern, as for the rules.
    pub fn page_type_for(&self, url: &url::Url) -> Option<PageType> {
        let chosen = rules::rules_for(&self.page_types, url.host_str()?)?;
        self.page_types
            .iter()
            .find(|entry| std::ptr::eq(entry.site.as_ref(), chosen))
            .map(|entry| entry.page_type)
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
    page_type: Option<Spanned<String>>,
}

/// A selector that matches no element: the rules an entry with only a `page_type` is
/// compiled with, so that its host is checked as any entry's is.
const MATCHES_NOTHING: &str = ":not(*)";

/// Compiles every entry; a bad host, selector or page type is refused at its place, a host
/// given twice too (each entry's first error goes to `errors`, and the next entry is
/// compiled). An entry with only a `page_type` has no rules.
pub(super) fn validate(
    raw: Vec<RawSite>,
    at: impl Fn(Range<usize>, String) -> ConfigError,
    errors: &mut Vec<ConfigError>,
) -> SiteRulesConfig {
    let mut hosts = HashSet::new();
    let mut config = SiteRulesConfig::default();
    for site in raw {
        let (compiled, page_type) = match compile_site(&site, &mut hosts, &at) {
            Ok(compiled) => compiled,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        let compiled = Arc::new(compiled);
        if let Some(page_type) = page_type {
            config.page_types.push(SitePageType {
                site: compiled.clone(),
                page_type,
            });
        }
        if has_rules(&site) {
            config.sites.push(compiled);
        }
    }
    config
}

fn has_rules(site: &RawSite) -> bool {
    !site.content.is_empty() || !site.remove.is_empty()
}

/// One entry's rules and its page type, given the hosts of the entries before it.
fn compile_site(
    site: &RawSite,
    hosts: &mut HashSet<String>,
    at: &impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<(SiteRules, Option<PageType>), ConfigError> {
    let key = format!("[[sites]] page_type of `{}`", site.host.get_ref().trim());
    let page_type = super::feed::page_type(site.page_type.as_ref(), &key, at)?;
    if !has_rules(site) && page_type.is_none() {
        return Err(at(
            site.host.span(),
            "[[sites]] give `content`, `remove`, `page_type` or several of them".to_string(),
        ));
    }
    let compiled = if !has_rules(site) && page_type.is_some() {
        compile(site, &[], &[MATCHES_NOTHING.to_string()], at)?
    } else {
        compile(site, &texts(&site.content), &texts(&site.remove), at)?
    };
    if !hosts.insert(compiled.host.clone()) {
        return Err(at(
            site.host.span(),
            format!("[[sites]] host: `{}` has rules twice", compiled.host),
        ));
    }
    Ok((compiled, page_type))
}

fn texts(list: &[Spanned<String>]) -> Vec<String> {
    list.iter()
        .map(|s| s.get_ref().trim().to_string())
        .collect()
}

/// The entry's rules from `content` and `remove`; an error points at the selector (or host)
/// it is about.
fn compile(
    site: &RawSite,
    content: &[String],
    remove: &[String],
    at: &impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<SiteRules, ConfigError> {
    SiteRules::new(site.host.get_ref(), content, remove).map_err(|error| {
        let span = match error.key {
            "content" => site.content.get(error.index).map(Spanned::span),
            "remove" => site.remove.get(error.index).map(Spanned::span),
            _ => None,
        };
        let span = span.unwrap_or_else(|| site.host.span());
        at(span, format!("[[sites]] {error}"))
    })
}
