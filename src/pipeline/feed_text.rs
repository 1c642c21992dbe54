//! The feed entry's own text as the article's second source, and the choice between it and
//! the page.
//!
//! Owns [`FeedText`] (an entry's content, else its summary, tidied and rendered as a page's
//! article is: the same sanitizing policy, its `<img>` the article's images) and [`choose`]:
//! the page's extraction is stored when its verdict is `article`, or `teaser` with at least as
//! many words as the entry's text; the entry's text is stored, with the page's verdict kept,
//! when it has [`MIN_FEED_WORDS`] and the page is not an article, is a shorter teaser, or is an
//! article whose quality estimate is below [`TRUSTED_QUALITY`] with fewer words than the
//! entry's text (the extraction is likely a fragment of what the feed carries whole);
//! otherwise a page that is not an article is a failure whose kind is its verdict.

use url::Url;

use super::failure::StepFailure;
use crate::extract::{self, ExtractError, Extraction, Image, Page, Verdict};
use crate::store::word_count;
use crate::store::{EntryKind, OwnKind, Stage, StoredSummary};

/// Words an entry's own text needs to stand for the article: fewer is a summary or a lead,
/// not the article a reader wants instead of the page.
pub(super) const MIN_FEED_WORDS: i64 = 100;

/// An article extraction estimated at least this good is stored from the page whatever the
/// feed carries: on the suite, pages estimated at 0.9 or more have a mean F1 of 0.956, those
/// below about 0.85 (`docs/algorithms.md`, "The quality estimate").
pub(super) const TRUSTED_QUALITY: f64 = 0.8;

/// The most bytes of an entry's content, and of its summary, that are rendered or stored: a
/// book chapter is a tenth of it, and sanitizing costs time in proportion to it.
pub(super) const MAX_ENTRY_TEXT_BYTES: usize = 1 << 20;

/// `text` cut to [`MAX_ENTRY_TEXT_BYTES`] at a character boundary (a tag cut in two is then
/// dropped by the sanitizer, and the elements left open are closed).
pub(super) fn bounded(text: &str) -> &str {
    &text[..text.floor_char_boundary(MAX_ENTRY_TEXT_BYTES)]
}

/// An entry's summary as stored, from at most [`MAX_ENTRY_TEXT_BYTES`] of it. CPU work (a
/// parse and a serialization): call it off the async runtime.
pub(super) fn stored_summary(summary: Option<&str>) -> StoredSummary {
    StoredSummary::of(summary.map(bounded))
}

/// A feed entry's own text, tidied as a page's article is.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FeedText {
    pub(super) text: String,
    pub(super) html: String,
    pub(super) images: Vec<Image>,
    pub(super) language: Option<String>,
    pub(super) words: i64,
    /// What the entry is: a post's text (a titleless entry's) is the whole post, and a video's
    /// or an episode's is its description, whatever their length.
    pub(super) kind: EntryKind,
}

impl FeedText {
    /// The entry's content, or its summary when that has more words, rendered against
    /// `base` (the article's URL); `None` when the entry has neither. CPU work (a parse per
    /// text): call it off the async runtime.
    pub(super) fn of_entry(
        content: Option<&str>,
        summary: Option<&str>,
        base: Option<&Url>,
    ) -> Option<FeedText> {
        crate::stages::measure(crate::stages::Stage::FeedText, || {
            let content = content.map(|content| FeedText::render(content, base));
            if content
                .as_ref()
                .is_some_and(|content| content.words >= MIN_FEED_WORDS)
            {
                return content;
            }
            let summary = summary.map(|summary| FeedText::render(summary, base));
            match (content, summary) {
                (Some(content), Some(summary)) if summary.words > content.words => Some(summary),
                (content, summary) => content.or(summary),
            }
        })
    }

    /// Plain paragraphs (separated by one blank line: a transcript's) rendered as a feed's
    /// text is.
    pub(super) fn of_paragraphs(text: &str, base: Option<&Url>) -> FeedText {
        let mut html = String::with_capacity(text.len() + 64);
        for paragraph in text.split("\n\n") {
            html.push_str("<p>");
            crate::tidy::escape_into(&mut html, paragraph, false);
            html.push_str("</p>");
        }
        FeedText::render(&html, base)
    }

    /// Renders one text of the feed: its every block, as `alltext` renders a page.
    fn render(body: &str, base: Option<&Url>) -> FeedText {
        let body = bounded(body);
        let html = if looks_like_markup(body) {
            format!("<html><body>{body}</body></html>")
        } else {
            plain_paragraphs(body)
        };
        let page = Page::parse(html.as_bytes(), Some("utf-8"), base, None);
        let rendered = extract::auto::extract_alltext(&page);
        FeedText {
            words: word_count(&rendered.text),
            language: extract::language::page_language(&page.document, &rendered.text),
            text: rendered.text,
            html: rendered.html,
            images: rendered.images,
            kind: EntryKind::Article,
        }
    }

    /// The text of an entry of `kind` ([`EntryKind::of_entry`]).
    pub(super) fn for_entry(self, kind: EntryKind) -> FeedText {
        FeedText { kind, ..self }
    }

    /// Long enough to be stored instead of the page: [`MIN_FEED_WORDS`], or any words of an
    /// entry that is its own text (a post told whole, a video's or an episode's description:
    /// not an excerpt of a page).
    pub(super) fn is_enough(&self) -> bool {
        self.words >= MIN_FEED_WORDS || (self.kind != EntryKind::Article && self.words > 0)
    }

    /// A video's or an audio episode's text.
    fn is_media(&self) -> bool {
        matches!(self.kind, EntryKind::Video | EntryKind::Audio)
    }
}

/// Whether a feed text is HTML rather than plain text (JSON Feed's `content_text`): it has a
/// tag, a comment or an entity.
fn looks_like_markup(body: &str) -> bool {
    let bytes = body.as_bytes();
    let tag = bytes.windows(2).any(|pair| {
        pair[0] == b'<' && (pair[1].is_ascii_alphabetic() || matches!(pair[1], b'/' | b'!'))
    });
    tag || (body.contains('&') && body.contains(';'))
}

/// Plain text as HTML: a paragraph per blank-line-separated block, markup characters escaped.
fn plain_paragraphs(body: &str) -> String {
    let mut html = String::from("<html><body>");
    for paragraph in body.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        html.push_str("<p>");
        crate::tidy::escape_into(&mut html, paragraph, false);
        html.push_str("</p>");
    }
    html.push_str("</body></html>");
    html
}

/// Where a stored article's text comes from.
#[derive(Debug)]
pub(super) enum Source {
    /// The page's extraction; its verdict is `article` or `teaser`.
    Page(Extraction),
    /// The entry's own text, and the verdict on the page that was not taken.
    Feed(FeedText, Verdict),
}

impl Source {
    /// The text that would be stored.
    pub(super) fn text(&self) -> &str {
        match self {
            Source::Page(extraction) => &extraction.text,
            Source::Feed(feed, _) => &feed.text,
        }
    }
}

/// The page's extraction or the entry's text (see the module doc); `url` names the page in a
/// failure's message.
pub(super) fn choose(
    extraction: Result<Extraction, ExtractError>,
    feed: Option<FeedText>,
    url: &str,
) -> Result<Source, StepFailure> {
    let feed = feed.filter(FeedText::is_enough);
    let feed = match feed {
        Some(feed) if feed.is_media() => return Ok(choose_for_media(extraction, feed)),
        other => other,
    };
    let verdict = match extraction {
        Ok(extraction) if extraction.verdict == Verdict::Article => {
            return Ok(match feed {
                Some(feed)
                    if extraction.quality < TRUSTED_QUALITY
                        && feed.words > word_count(&extraction.text) =>
                {
                    Source::Feed(feed, Verdict::Article)
                }
                _ => Source::Page(extraction),
            });
        }
        Ok(extraction) if extraction.verdict == Verdict::Teaser => {
            return Ok(match feed {
                Some(feed) if feed.words > word_count(&extraction.text) => {
                    Source::Feed(feed, Verdict::Teaser)
                }
                _ => Source::Page(extraction),
            });
        }
        Ok(extraction) => extraction.verdict,
        Err(ExtractError::NoContent { verdict, .. }) => verdict,
    };
    if let Some(feed) = feed {
        return Ok(Source::Feed(feed, verdict));
    }
    if verdict.is_article() {
        // Nothing extracted from a page judged an article: no verdict to give as the kind.
        return Err(StepFailure::own(
            Stage::Extract,
            OwnKind::NoContent,
            format!("{url}: no article text found on the page"),
        ));
    }
    Err(StepFailure::not_an_article(
        verdict,
        format!(
            "{url}: the page is not an article ({verdict}), and the feed entry has fewer than \
             {MIN_FEED_WORDS} words of its own to store instead"
        ),
    ))
}

/// [`choose`] for a video or an audio episode: its own text is its description, and its page
/// (a player, a script's shell) stands in only where it holds a longer article (a transcript,
/// a write-up).
fn choose_for_media(extraction: Result<Extraction, ExtractError>, feed: FeedText) -> Source {
    let verdict = match extraction {
        Ok(extraction)
            if extraction.verdict == Verdict::Article
                && word_count(&extraction.text) > feed.words =>
        {
            return Source::Page(extraction);
        }
        Ok(extraction) => extraction.verdict,
        Err(ExtractError::NoContent { verdict, .. }) => verdict,
    };
    Source::Feed(feed, verdict)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize) -> String {
        (0..n).map(|i| format!("word{i} ")).collect()
    }

    fn extraction(verdict: Verdict, text: &str) -> Extraction {
        Extraction {
            algorithm: extract::Algorithm::Cuter,
            title: None,
            text: text.to_string(),
            html: format!("<p>{text}</p>"),
            images: Vec::new(),
            confidence: 0.9,
            language: None,
            verdict,
            quality: 0.9,
            page_type: Default::default(),
            posts: Vec::new(),
        }
    }

    fn feed(n: usize) -> Option<FeedText> {
        FeedText::of_entry(Some(&format!("<p>{}</p>", words(n))), None, None)
    }

    fn chosen(source: Result<Source, StepFailure>) -> Result<(&'static str, Verdict), String> {
        match source {
            Ok(Source::Page(extraction)) => Ok(("page", extraction.verdict)),
            Ok(Source::Feed(_, verdict)) => Ok(("feed", verdict)),
            Err(failure) => Err(failure.kind.to_string()),
        }
    }

    #[test]
    fn a_page_that_is_not_an_article_gives_way_to_a_long_feed_text_or_fails_by_its_verdict() {
        let blocked = || Ok(extraction(Verdict::Blocked, "Just a moment..."));
        assert_eq!(
            chosen(choose(blocked(), feed(150), "u")),
            Ok(("feed", Verdict::Blocked))
        );
        assert_eq!(
            chosen(choose(blocked(), feed(99), "u")),
            Err("blocked".into())
        );
        assert_eq!(chosen(choose(blocked(), None, "u")), Err("blocked".into()));
        let shell = || {
            Err(ExtractError::NoContent {
                algorithm: extract::Algorithm::Auto,
                verdict: Verdict::NeedsJavascript,
            })
        };
        assert_eq!(
            chosen(choose(shell(), feed(100), "u")),
            Ok(("feed", Verdict::NeedsJavascript))
        );
        assert_eq!(
            chosen(choose(shell(), None, "u")),
            Err("needs_javascript".into())
        );
    }

    #[test]
    fn an_article_page_is_stored_from_the_page_unless_doubtful_and_a_teaser_from_the_longer_text() {
        let article = || Ok(extraction(Verdict::Article, &words(20)));
        assert_eq!(
            chosen(choose(article(), feed(500), "u")),
            Ok(("page", Verdict::Article))
        );
        let doubtful = |n| {
            let mut extraction = extraction(Verdict::Article, &words(n));
            extraction.quality = 0.5;
            Ok(extraction)
        };
        assert_eq!(
            chosen(choose(doubtful(60), feed(150), "u")),
            Ok(("feed", Verdict::Article))
        );
        assert_eq!(
            chosen(choose(doubtful(200), feed(150), "u")),
            Ok(("page", Verdict::Article))
        );
        assert_eq!(
            chosen(choose(doubtful(20), feed(99), "u")),
            Ok(("page", Verdict::Article))
        );
        let teaser = |n| Ok(extraction(Verdict::Teaser, &words(n)));
        assert_eq!(
            chosen(choose(teaser(60), feed(150), "u")),
            Ok(("feed", Verdict::Teaser))
        );
        assert_eq!(
            chosen(choose(teaser(200), feed(150), "u")),
            Ok(("page", Verdict::Teaser))
        );
        assert_eq!(
            chosen(choose(teaser(30), feed(50), "u")),
            Ok(("page", Verdict::Teaser))
        );
    }

    #[test]
    fn feed_text_is_tidied_with_its_images_and_plain_text_keeps_its_paragraphs() {
        let base = Url::parse("https://news.example/a/1").ok();
        let html = format!(
            "<p onclick=\"x()\">{}</p><script>alert(1)</script>\
             <figure><img src=\"/img/1.jpg\" alt=\"A photo\"></figure><p>{}</p>",
            words(60),
            words(60)
        );
        let feed = FeedText::of_entry(Some(&html), None, base.as_ref());
        let feed = feed.expect("rendered");
        assert_eq!(feed.words, 120);
        assert!(!feed.html.contains("script") && !feed.html.contains("onclick"));
        assert!(!feed.text.contains("alert"));
        let urls: Vec<&str> = feed.images.iter().map(|i| i.url.as_str()).collect();
        assert_eq!(urls, ["https://news.example/img/1.jpg"]);

        let plain = FeedText::of_entry(None, Some("1 < 2 and 3 > 2.\n\nThree four."), None);
        let plain = plain.expect("rendered");
        assert_eq!(plain.text, "1 < 2 and 3 > 2.\n\nThree four.");
    }

    #[test]
    fn the_longer_of_content_and_summary_is_taken() {
        let short = format!("<p>{}</p>", words(10));
        let long = format!("<p>{}</p>", words(120));
        let taken = |content: Option<&str>, summary: Option<&str>| {
            FeedText::of_entry(content, summary, None).map(|f| f.words)
        };
        assert_eq!(taken(Some(&short), Some(&long)), Some(120));
        assert_eq!(taken(Some(&long), Some(&short)), Some(120));
        assert_eq!(taken(None, Some(&short)), Some(10));
        assert_eq!(taken(None, None), None);
    }
}
