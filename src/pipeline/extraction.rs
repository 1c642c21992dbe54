//! The extraction step, shared by the pipeline and `gleaner reextract`: a raw page, with its
//! entry's title (and, in a poll, the entry's own text), the site's `[[sites]]` rules and
//! template model, becomes what the stored article takes from it ([`PageFields`]).
//!
//! - [`extract_page`] extracts (blocking CPU work) and says what it saw: a content rule that
//!   matched nothing, the extractor's time in the metrics.
//! - [`off_runtime`] runs such work on the blocking pool, holding one of the extraction
//!   permits (as many as cores), within `[extract] timeout_seconds`: past it the work is
//!   stopped, and its permit given back ([`crate::budget`]).
//! - [`page_fields`] makes the stored fields: control characters stripped, the language, the
//!   feed's author and date before the page's, what the page says of itself, the images, the
//!   page type (the feed's or site's configured one before the detector's) and a thread's
//!   posts.
//! - [`cap_text`] and [`cap_html`] cut text and HTML to `[extract] max_text_bytes`.
//!
//! So an article extracted again gets what a fresh poll would give it, and whatever the
//! stored article gains from its page is added here once.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use url::Url;

use super::context::InFlight;
use crate::extract::metadata::{MetadataSource, PageMetadata, Sourced};
use crate::extract::rules::SiteRules;
use crate::extract::template::SiteTemplate;
use crate::extract::{
    Algorithm, EntryHints, Extraction, SiteKnowledge, SitePageExtraction, extract_site_page,
};
use crate::metrics;
use crate::store::{ArticleMetadata, NewImage, PageFields, PageType, Post};

/// A page's bytes as they came, with what is needed to read them.
#[derive(Debug, Clone, Copy)]
pub struct RawPage<'a> {
    pub bytes: &'a [u8],
    /// The charset the response named, if any.
    pub charset: Option<&'a str>,
    /// The address the page was read from (after redirects): links and images resolve
    /// against it, and it names the site.
    pub url: Option<&'a Url>,
}

/// How a site's pages are extracted: the algorithm, and what is known of the site.
#[derive(Debug, Clone)]
pub struct SiteSetup {
    pub algorithm: Algorithm,
    pub template: Option<std::sync::Arc<SiteTemplate>>,
    pub rules: Option<std::sync::Arc<SiteRules>>,
}

/// Extracts one page as it is stored. Blocking: run it through [`off_runtime`].
pub fn extract_page(
    page: RawPage<'_>,
    hints: EntryHints<'_>,
    site: &SiteSetup,
) -> SitePageExtraction {
    let started = Instant::now();
    let extracted = extract_site_page(
        page.bytes,
        page.charset,
        page.url,
        hints,
        site.algorithm,
        SiteKnowledge {
            template: site.template.as_deref(),
            rules: site.rules.as_deref(),
        },
    );
    report_rule_miss(site.rules.as_deref(), extracted.rule_missed);
    if let Ok(extraction) = &extracted.extraction {
        // The cascade starts with CUTER: anything else means it fell back.
        let fell_back =
            site.algorithm == Algorithm::Auto && extraction.algorithm != Algorithm::Cuter;
        metrics::extraction_finished(
            extraction.algorithm.name(),
            started.elapsed().as_secs_f64(),
            fell_back,
        );
    }
    extracted
}

/// A `[[sites]]` rule whose `content` matched nothing is said once per site, not per page.
fn report_rule_miss(rules: Option<&SiteRules>, missed: bool) {
    if let Some(rules) = rules.filter(|rules| missed && rules.first_miss()) {
        tracing::warn!(
            site = %rules.host,
            "the site's content rule matched nothing; the generic algorithm extracts its pages \
             until it matches (said once)"
        );
    }
}

/// Why work sent to the blocking pool brought nothing back.
#[derive(Debug, thiserror::Error)]
pub enum OffRuntimeError {
    #[error("extraction took longer than {0:?}")]
    Timeout(Duration),
    #[error("extraction panicked: {0}")]
    Panicked(String),
}

/// Runs `job` (extraction and the CPU work around it) on the blocking pool, holding an
/// extraction permit while it runs, within `budget`: past it, the job stops at its next
/// checkpoint ([`crate::budget`]: the long loops of parsing, the statistics pass, rendering
/// and sanitizing), which drops the permit, and the caller has its timeout at the budget
/// whether or not the job has stopped yet. A panic in it becomes an error.
pub async fn off_runtime<T: Send + 'static>(
    in_flight: &InFlight,
    budget: Duration,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, OffRuntimeError> {
    let permit = in_flight.extraction_permit().await;
    let deadline = Instant::now() + budget;
    let joined = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        crate::budget::within(deadline, job)
    });
    match tokio::time::timeout(budget, joined).await {
        Err(_) | Ok(Ok(Err(crate::budget::Exceeded))) => Err(OffRuntimeError::Timeout(budget)),
        Ok(Err(error)) => Err(OffRuntimeError::Panicked(error.to_string())),
        Ok(Ok(Ok(done))) => Ok(done),
    }
}

/// What the feed entry said of its article: it goes before what the page says.
#[derive(Debug, Clone, Default)]
pub struct FeedFacts {
    pub author: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    /// The page type its feed or site is configured with: it goes before the detector's.
    pub page_type: Option<PageType>,
}

/// The stored fields of a page's extraction: its text and HTML without control characters,
/// its images (without bytes), the author and date (the feed's, else the page's) and what the
/// page says of itself.
pub fn page_fields(extraction: Extraction, page: &PageMetadata, feed: FeedFacts) -> PageFields {
    let page_type = feed.page_type.unwrap_or(extraction.page_type);
    let facts = Facts::of(feed, page);
    PageFields {
        extractor: extraction.algorithm.name().to_string(),
        confidence: extraction.confidence,
        verdict: extraction.verdict,
        quality: extraction.quality,
        language: extraction.language,
        text: strip_controls(&extraction.text),
        html: strip_controls(&extraction.html),
        author: facts.author,
        published_at: facts.published_at,
        metadata: facts.metadata,
        images: extraction.images.into_iter().map(NewImage::from).collect(),
        page_type,
        posts: extraction
            .posts
            .into_iter()
            .map(strip_post_controls)
            .collect(),
    }
}

/// A post as stored: its author, date and text without control characters.
fn strip_post_controls(post: Post) -> Post {
    Post {
        author: post.author.as_deref().map(strip_controls),
        published_at: post.published_at.as_deref().map(strip_controls),
        text: strip_controls(&post.text),
    }
}

/// Author and date (the feed's, else the page's) and what the page says of itself.
pub(super) struct Facts {
    pub(super) author: Option<String>,
    pub(super) published_at: Option<DateTime<Utc>>,
    pub(super) metadata: ArticleMetadata,
}

impl Facts {
    pub(super) fn of(feed: FeedFacts, page: &PageMetadata) -> Facts {
        let author = feed_first(feed.author, page.author.clone());
        let published = feed_first(feed.published_at, page.published_at.clone());
        Facts {
            metadata: ArticleMetadata {
                author_source: source_of(&author),
                published_source: source_of(&published),
                lead_image_url: page.lead_image.as_ref().map(|i| i.value.clone()),
                lead_image_source: source_of(&page.lead_image),
                site_name: page.site_name.as_ref().map(|n| strip_controls(&n.value)),
                site_name_source: source_of(&page.site_name),
            },
            author: author.map(|a| strip_controls(&a.value)),
            published_at: published.map(|p| p.value),
        }
    }
}

/// Where a value was read, as stored.
fn source_of<T>(value: &Option<Sourced<T>>) -> Option<String> {
    value.as_ref().map(|v| v.source.as_str().to_string())
}

/// The feed's value when it has one, else the page's.
fn feed_first<T>(feed: Option<T>, page: Option<Sourced<T>>) -> Option<Sourced<T>> {
    feed.map(|value| Sourced {
        value,
        source: MetadataSource::Feed,
    })
    .or(page)
}

/// Text as stored: C0 and C1 control characters (terminal escapes among them) removed, but
/// newlines and tabs kept.
pub fn strip_controls(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect()
}

/// Text and HTML cut to at most `max` bytes each, in place; what was cut ("text 91234 →
/// 65536 bytes, …"), when anything was.
pub fn cap_stored(text: &mut String, html: &mut String, max: usize) -> Option<String> {
    let capped_text = cap_text(text, max);
    let capped_html = cap_html(html, max);
    if capped_text.is_none() && capped_html.is_none() {
        return None;
    }
    let sizes = format!(
        "text {} → {} bytes, HTML {} → {} bytes (max_text_bytes {max})",
        text.len(),
        capped_text.as_ref().map_or(text.len(), String::len),
        html.len(),
        capped_html.as_ref().map_or(html.len(), String::len),
    );
    if let Some(capped) = capped_text {
        *text = capped;
    }
    if let Some(capped) = capped_html {
        *html = capped;
    }
    Some(sizes)
}

/// `text` cut to at most `max` bytes, when it is longer: at the last paragraph break (a blank
/// line) in the second half of the allowance, else the last line break or space there, else
/// at a character boundary.
/// Cuts a thread's posts to `max` bytes of text in all: the posts that fit whole, then the
/// next one cut ([`cap_text`]); true when anything was cut.
pub fn cap_posts(posts: &mut Vec<Post>, max: usize) -> bool {
    let mut left = max;
    for (index, post) in posts.iter_mut().enumerate() {
        if post.text.len() <= left {
            left -= post.text.len();
            continue;
        }
        if let Some(cut) = cap_text(&post.text, left).filter(|cut| !cut.is_empty()) {
            post.text = cut;
            posts.truncate(index + 1);
        } else {
            posts.truncate(index);
        }
        return true;
    }
    false
}

pub fn cap_text(text: &str, max: usize) -> Option<String> {
    if text.len() <= max {
        return None;
    }
    let allowed = &text[..text.floor_char_boundary(max)];
    let end = ["\n\n", "\n", " "]
        .iter()
        .find_map(|separator| {
            allowed
                .rfind(separator)
                .filter(|&at| at >= allowed.len() / 2)
        })
        .unwrap_or(allowed.len());
    Some(allowed[..end].trim_end().to_string())
}

/// Sanitized `html` cut to at most `max` bytes, when it is longer: after the last closed
/// paragraph in the second half of the allowance, else before the last tag in it; the
/// sanitizer then closes the elements left open (and drops a tag cut in an attribute), and
/// the cut moves back by what that added until the result fits.
pub fn cap_html(html: &str, max: usize) -> Option<String> {
    if html.len() <= max {
        return None;
    }
    let mut limit = max;
    loop {
        let allowed = &html[..html.floor_char_boundary(limit)];
        let end = allowed
            .rfind("</p>")
            .map(|at| at + "</p>".len())
            .filter(|&end| end >= allowed.len() / 2)
            .or_else(|| allowed.rfind('<'))
            .unwrap_or(0);
        let capped = crate::tidy::sanitize(&html[..end]);
        if capped.len() <= max || end == 0 {
            return Some(capped);
        }
        limit = end - (capped.len() - max).min(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_stripped_but_newlines_and_tabs_kept() {
        assert_eq!(
            strip_controls("a\u{1b}[31mred\u{7}\u{0}\u{9b}b\n\tc"),
            "a[31mredb\n\tc"
        );
    }

    #[test]
    fn long_text_is_cut_at_a_paragraph_and_html_stays_well_formed() {
        let paragraph = "Ein langer Absatz über Äpfel und Birnen. ".repeat(20);
        let text = vec![paragraph.trim_end(); 100].join("\n\n");
        assert_eq!(cap_text(&text, text.len()), None);
        let Some(cut) = cap_text(&text, 10_000) else {
            panic!("a longer text is cut");
        };
        assert!(cut.len() <= 10_000 && cut.len() > 5_000, "{}", cut.len());
        assert!(text.starts_with(&cut) && text[cut.len()..].starts_with("\n\n"));
        let one_word = "ü".repeat(5000);
        let cut = cap_text(&one_word, 1001).unwrap_or_default();
        assert_eq!(cut.len(), 1000, "at a character boundary");

        let html = format!(
            "<ul>{}</ul>",
            "<li><p>a <a href=\"https://example.org/x\">link</a> and text</p></li>".repeat(500)
        );
        let Some(cut) = cap_html(&html, 4_000) else {
            panic!("a longer HTML is cut");
        };
        assert!(cut.len() <= 4_000 && cut.len() > 2_000, "{}", cut.len());
        assert!(cut.ends_with("</p></li></ul>"), "{cut}");
        assert_eq!(crate::tidy::sanitize(&cut), cut, "well formed");
    }
}
