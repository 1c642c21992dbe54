//! Page types: what kind of page a feed entry links to, and the posts of a thread.
//!
//! Owns [`PageType`], the stored vocabulary of page types (an article, a forum thread,
//! documentation, a product, a shop's collection, a listing of items, a service page), and
//! [`Post`], one post of a forum thread as extraction hands it to the store; the detector
//! ([`detect`]).

pub mod detect;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What kind of page this is; an unsure reading is [`PageType::Article`], so that article
/// pages are extracted as they always were.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageType {
    /// A news story, blog post or essay: one author's text under a headline.
    #[default]
    Article,
    /// A discussion thread: an opening post and its replies.
    Forum,
    /// A product page: one item's name, description and specifications.
    Product,
    /// A shop's category page: a grid of product cards.
    Collection,
    /// An index of items that are not for sale: stories, recipes, jobs, homes, a list.
    Listing,
    /// Documentation: a manual's page, a reference, a tutorial.
    Documentation,
    /// A service or landing page: what a business offers, in sections.
    Service,
}

impl PageType {
    /// Every page type, in the order reports list them.
    pub const ALL: [PageType; 7] = [
        PageType::Article,
        PageType::Forum,
        PageType::Product,
        PageType::Collection,
        PageType::Listing,
        PageType::Documentation,
        PageType::Service,
    ];

    /// The stored and shown name.
    pub fn as_str(self) -> &'static str {
        match self {
            PageType::Article => "article",
            PageType::Forum => "forum",
            PageType::Product => "product",
            PageType::Collection => "collection",
            PageType::Listing => "listing",
            PageType::Documentation => "documentation",
            PageType::Service => "service",
        }
    }
}

impl fmt::Display for PageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a page type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown page type {0:?} (expected one of: article, forum, product, collection, listing, documentation, service)"
)]
pub struct UnknownPageType(pub String);

impl FromStr for PageType {
    type Err = UnknownPageType;

    fn from_str(name: &str) -> Result<PageType, UnknownPageType> {
        PageType::ALL
            .into_iter()
            .find(|page_type| page_type.as_str() == name)
            .ok_or_else(|| UnknownPageType(name.to_string()))
    }
}

/// One post of a forum thread, in page order: who wrote it, when, and its text.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Post {
    /// The author's name as the page shows it.
    pub author: Option<String>,
    /// When it was posted, RFC 3339 where the page gives a machine-readable time, else as shown.
    pub published_at: Option<String>,
    /// The post's body as plain text, paragraphs separated by one blank line.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for page_type in PageType::ALL {
            assert_eq!(page_type.as_str().parse::<PageType>(), Ok(page_type));
        }
        assert!("thread".parse::<PageType>().is_err());
    }
}
