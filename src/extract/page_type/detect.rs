//! The page-type detector: what kind of page a parsed page is, from the marks its markup
//! leaves. Unsure is [`PageType::Article`].

use scraper::Html;
use url::Url;

use super::PageType;
use crate::extract::dom::DomStats;

/// The page's type, from its DOM, the statistics pass and its address.
pub fn detect(_document: &Html, _stats: &DomStats, _base: Option<&Url>) -> PageType {
    PageType::Article
}
