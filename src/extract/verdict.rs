//! What a page is: an article, a teaser, or one of the pages that stand where an article
//! should (a bot challenge, an application shell, a soft 404, a consent or login wall, a
//! parked domain). The verdict is part of every [`Extraction`](super::Extraction), and the
//! pipeline stores from the page only what [`Verdict::is_article`] accepts.
//!
//! The names are the contract of `../specs/cli.md` ("Extraction"): stored, exported, served
//! and counted in metrics by [`Verdict::as_str`].

use std::fmt;
use std::str::FromStr;

use super::{Extraction, Page};

/// What a page was found to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Verdict {
    /// A page whose main content is an article.
    #[default]
    Article,
    /// A real lead, then a subscription or registration prompt.
    Teaser,
    /// A bot challenge, captcha, access-denied or rate-limit page.
    Blocked,
    /// An application shell with no content of its own.
    NeedsJavascript,
    /// A page saying the article does not exist, whatever its status.
    NotFound,
    /// A cookie or consent wall.
    Consent,
    /// A login wall.
    Login,
    /// A parked domain, an age gate, a geo block, an empty body.
    NotArticle,
}

impl Verdict {
    /// Every verdict, articles first.
    pub const ALL: [Verdict; 8] = [
        Verdict::Article,
        Verdict::Teaser,
        Verdict::Blocked,
        Verdict::NeedsJavascript,
        Verdict::NotFound,
        Verdict::Consent,
        Verdict::Login,
        Verdict::NotArticle,
    ];

    /// The stored and printed name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Article => "article",
            Verdict::Teaser => "teaser",
            Verdict::Blocked => "blocked",
            Verdict::NeedsJavascript => "needs_javascript",
            Verdict::NotFound => "not_found",
            Verdict::Consent => "consent",
            Verdict::Login => "login",
            Verdict::NotArticle => "not_article",
        }
    }

    /// An article or a teaser: something of the story itself is on the page.
    pub fn is_article(self) -> bool {
        matches!(self, Verdict::Article | Verdict::Teaser)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a verdict.
#[derive(Debug, thiserror::Error)]
#[error("unknown verdict `{0}`")]
pub struct UnknownVerdict(pub String);

impl FromStr for Verdict {
    type Err = UnknownVerdict;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownVerdict(s.to_string()))
    }
}

impl serde::Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The verdict on `page`, given what extraction found on it (`None`: nothing).
pub fn judge(_page: &Page, extraction: Option<&Extraction>) -> Verdict {
    match extraction {
        Some(extraction) if !extraction.text.trim().is_empty() => Verdict::Article,
        _ => Verdict::NotArticle,
    }
}
