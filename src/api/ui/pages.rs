//! The pages of the web view: each reads the store through the functions the JSON API uses
//! and fills one template (`templates/ui/`). Values are formatted here; the templates only
//! place them, escaped.

use askama::Template;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use chrono::{DateTime, Duration, SecondsFormat, Utc};

use super::{Chrome, PageError, SignedIn, UiState, render};
use crate::api::articles::{Params, path_id, with_stored_images};
use crate::api::error::ApiError;
use crate::store::claims::ClaimResult;
use crate::store::{
    Article, ArticleFilter, ArticleSummary, FailureFilter, FeedRecord, LISTING_BUDGET_BYTES,
    PageType, Post, SearchHit, StoredImage, TotalsSince, Verdict, fit_listing,
};

/// Articles per page of a listing, and hits of a search.
pub const PAGE_SIZE: i64 = 50;
/// Articles on the overview.
const RECENT: i64 = 20;

/// One line of an article listing.
pub struct ArticleRow {
    pub id: i64,
    pub title: String,
    pub feed: String,
    pub time: String,
    pub time_iso: String,
    pub words: i64,
    pub quality: Option<String>,
    /// What sets the article apart: `teaser`, `feed text: blocked`.
    pub mark: Option<String>,
    /// `3 copies` on a story told three times.
    pub copies: Option<String>,
    /// The page type when the page is not an article: `forum`, `product`, ….
    pub page_type: Option<String>,
}

impl From<&ArticleSummary> for ArticleRow {
    fn from(article: &ArticleSummary) -> ArticleRow {
        let at = article.published_at.unwrap_or(article.fetched_at);
        let mark = match (
            article.extractor == crate::store::FEED_EXTRACTOR,
            article.verdict == Verdict::Article.as_str(),
        ) {
            (true, _) => Some(format!("feed text: {}", article.verdict)),
            (false, false) => Some(article.verdict.clone()),
            (false, true) => None,
        };
        ArticleRow {
            id: article.id,
            title: article.title.clone(),
            feed: article.feed.clone(),
            time: when(at),
            time_iso: at.to_rfc3339_opts(SecondsFormat::Secs, true),
            words: article.word_count,
            quality: article.quality.map(|q| format!("{q:.2}")),
            mark,
            copies: (article.cluster_size > 1).then(|| format!("{} copies", article.cluster_size)),
            page_type: (article.page_type != PageType::Article.as_str())
                .then(|| article.page_type.clone()),
        }
    }
}

fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M").to_string()
}

fn maybe_when(at: Option<DateTime<Utc>>) -> String {
    at.map_or_else(|| "–".to_string(), when)
}

#[derive(Template)]
#[template(path = "ui/index.html")]
struct IndexPage {
    chrome: Chrome,
    totals: TotalsSince,
    feeds: usize,
    failing: Vec<FeedRecord>,
    recent: Vec<ArticleRow>,
}

/// `GET /ui/`: the last day's totals, the failing feeds, the newest articles.
pub async fn index(
    State(state): State<UiState>,
    signed_in: SignedIn,
) -> Result<Response, PageError> {
    let totals = state
        .store
        .totals_since(Utc::now() - Duration::days(1))
        .await?;
    let feeds = state.store.feeds().await?;
    let mut recent = state
        .store
        .list_articles(&ArticleFilter {
            limit: RECENT,
            ..Default::default()
        })
        .await?;
    fit_listing(&mut recent, LISTING_BUDGET_BYTES);
    let active = feeds.iter().filter(|feed| feed.active).count();
    let failing = feeds
        .into_iter()
        .filter(|feed| feed.active && feed.error_count > 0)
        .collect();
    render(&IndexPage {
        chrome: state.chrome(signed_in),
        totals,
        feeds: active,
        failing,
        recent: recent.iter().map(ArticleRow::from).collect(),
    })
}

/// A piece of a search snippet: matched words are marked.
pub struct SnippetPiece {
    pub text: String,
    pub matched: bool,
}

/// One search hit, its snippet cut at the store's `«…»` marks.
pub struct HitRow {
    pub id: i64,
    pub title: String,
    pub feed: String,
    pub time: Option<String>,
    pub snippet: Vec<SnippetPiece>,
}

impl From<SearchHit> for HitRow {
    fn from(hit: SearchHit) -> HitRow {
        HitRow {
            id: hit.id,
            title: hit.title,
            feed: hit.feed,
            time: hit.published_at.map(when),
            snippet: snippet_pieces(&hit.snippet),
        }
    }
}

/// `a «b» c` as `a `, `b` (matched), ` c`.
fn snippet_pieces(snippet: &str) -> Vec<SnippetPiece> {
    let mut pieces = Vec::new();
    let mut rest = snippet;
    while let Some(start) = rest.find('«') {
        let (before, after) = rest.split_at(start);
        let after = &after['«'.len_utf8()..];
        let (matched, next) = after.split_once('»').unwrap_or((after, ""));
        pieces.push(SnippetPiece {
            text: before.to_string(),
            matched: false,
        });
        pieces.push(SnippetPiece {
            text: matched.to_string(),
            matched: true,
        });
        rest = next;
    }
    pieces.push(SnippetPiece {
        text: rest.to_string(),
        matched: false,
    });
    pieces.retain(|piece| !piece.text.is_empty());
    pieces
}

#[derive(Template)]
#[template(path = "ui/articles.html")]
struct ArticlesPage {
    chrome: Chrome,
    query: Option<String>,
    feed: Option<String>,
    /// The page type the listing is narrowed to.
    page_type: Option<String>,
    page_type_names: Vec<String>,
    feed_names: Vec<String>,
    message: Option<String>,
    hits: Vec<HitRow>,
    rows: Vec<ArticleRow>,
    next_before_id: Option<i64>,
}

/// `GET /ui/articles?q=&feed=&page_type=&before_id=`: a search (best match first), or the
/// newest articles, of one feed or all, of one page type or all, a page at a time.
pub async fn articles(
    State(state): State<UiState>,
    signed_in: SignedIn,
    RawQuery(query): RawQuery,
) -> Result<Response, PageError> {
    let params = Params::parse(query.as_deref());
    let text = |name: &str| {
        params
            .get(name)
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .map(str::to_string)
    };
    let (q, feed) = (text("q"), text("feed"));
    let before_id = match text("before_id").map(|id| id.parse::<i64>()) {
        Some(Ok(id)) if id > 0 => Some(id),
        Some(_) => {
            let refusal = ApiError::bad_request("before_id must be a positive integer");
            return Err(refusal.into());
        }
        None => None,
    };
    let page_type = text("page_type")
        .map(|name| name.parse::<PageType>())
        .transpose()
        .map_err(|unknown| PageError::from(ApiError::bad_request(unknown.to_string())))?;
    let feed_names = state
        .store
        .feeds()
        .await?
        .into_iter()
        .map(|f| f.name)
        .collect();
    let mut page = ArticlesPage {
        chrome: state.chrome(signed_in),
        query: q.clone(),
        feed: feed.clone(),
        page_type: page_type.map(|t| t.as_str().to_string()),
        page_type_names: PageType::ALL.map(|t| t.as_str().to_string()).to_vec(),
        feed_names,
        message: None,
        hits: Vec::new(),
        rows: Vec::new(),
        next_before_id: None,
    };
    if let Some(q) = q {
        let scope = crate::store::SearchScope {
            feed: feed.clone(),
            page_type,
        };
        match state.store.search_in(&q, &scope, PAGE_SIZE).await {
            Ok(mut hits) => {
                fit_listing(&mut hits, LISTING_BUDGET_BYTES);
                page.hits = hits.into_iter().map(HitRow::from).collect();
            }
            Err(crate::store::StoreError::SearchQuery(error)) => {
                page.message = Some(error.to_string());
            }
            Err(error) => return Err(error.into()),
        }
        return render(&page);
    }
    let mut rows = state
        .store
        .list_articles(&ArticleFilter {
            feed,
            before_id,
            limit: PAGE_SIZE,
            page_type,
            ..Default::default()
        })
        .await?;
    let cut = fit_listing(&mut rows, LISTING_BUDGET_BYTES);
    page.next_before_id = (cut || rows.len() as i64 == PAGE_SIZE)
        .then(|| rows.last().map(|row| row.id))
        .flatten();
    page.rows = rows.iter().map(ArticleRow::from).collect();
    render(&page)
}

#[derive(Template)]
#[template(path = "ui/article.html")]
struct ArticlePage {
    chrome: Chrome,
    article: Article,
    published: String,
    quality: Option<String>,
    source_url: String,
    /// The stored, sanitized body, its stored images served from `/ui/images/`.
    body: String,
    /// A forum thread's posts, shown instead of the body.
    posts: Vec<PostView>,
    /// The entry's enclosures and media, as links.
    media: Vec<MediaLink>,
    /// What consumers reported about the article.
    results: Vec<ResultView>,
}

/// One consumer's result on the reading view: who, when, its `summary` when the result has
/// one as a string, and the whole JSON.
pub struct ResultView {
    pub consumer: String,
    pub done_at: String,
    pub summary: Option<String>,
    /// The result, pretty-printed; empty when the consumer posted none.
    pub json: String,
}

impl ResultView {
    fn of(result: &ClaimResult) -> ResultView {
        let value = result.result.as_ref();
        ResultView {
            consumer: result.consumer.clone(),
            done_at: maybe_when(Some(result.done_at)),
            summary: value
                .and_then(|value| value.get("summary"))
                .and_then(serde_json::Value::as_str)
                .map(str::to_string),
            json: value
                .and_then(|value| serde_json::to_string_pretty(value).ok())
                .unwrap_or_default(),
        }
    }
}

/// One enclosure of a video or an episode on the reading view: its address (http or https
/// only: a feed's `javascript:` address is no link) and what it is.
pub struct MediaLink {
    pub url: String,
    /// Media type, duration and size, as far as the feed gave them: `audio/mpeg · 42:10 ·
    /// 31.4 MB`.
    pub label: String,
}

impl MediaLink {
    fn of(enclosure: &crate::store::Enclosure) -> Option<MediaLink> {
        let url = url::Url::parse(&enclosure.url).ok()?;
        if !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        let mut parts = vec![
            enclosure
                .media_type
                .clone()
                .unwrap_or_else(|| "media".into()),
        ];
        parts.extend(enclosure.duration_text());
        if let Some(bytes) = enclosure.length.filter(|&bytes| bytes > 0) {
            parts.push(format!("{:.1} MB", bytes as f64 / 1_000_000.0));
        }
        Some(MediaLink {
            url: url.to_string(),
            label: parts.join(" · "),
        })
    }
}

/// One post of a thread on the reading view: who, when, and its paragraphs.
pub struct PostView {
    pub number: usize,
    pub author: Option<String>,
    pub published_at: Option<String>,
    pub paragraphs: Vec<String>,
}

impl PostView {
    fn of(number: usize, post: &Post) -> PostView {
        PostView {
            number,
            author: post.author.clone(),
            published_at: post.published_at.clone(),
            paragraphs: post
                .text
                .split("\n\n")
                .map(str::trim)
                .filter(|paragraph| !paragraph.is_empty())
                .map(str::to_string)
                .collect(),
        }
    }
}

/// `body` with every image gleaner did not store written as a short link to it: the page's
/// policy (`img-src 'self'`) blocks other hosts' images, and a browser shows a blocked
/// image's alt text in its place, a paragraph of it where the site wrote a long one.
fn unstored_images_as_links(body: &str, images: &[StoredImage]) -> String {
    let mut body = body.to_string();
    for image in images.iter().filter(|image| image.sha256.is_none()) {
        // The sanitizer writes attribute values with `&` escaped; match either spelling.
        for original in [image.url.clone(), image.url.replace('&', "&amp;")] {
            let start_tag = format!("<img src=\"{original}\"");
            while let Some(start) = body.find(&start_tag) {
                // Attribute values have `>` escaped: the first one ends the tag.
                let Some(length) = body[start..].find('>') else {
                    break;
                };
                let link = format!(
                    "<a class=\"unstored-image\" href=\"{original}\">image (not stored)</a>"
                );
                body.replace_range(start..start + length + 1, &link);
            }
        }
    }
    body
}

/// `GET /ui/articles/{id}`: the reading view.
pub async fn article(
    State(state): State<UiState>,
    signed_in: SignedIn,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, PageError> {
    let id = path_id(path, "the article id").map_err(PageError::from)?;
    let Some(article) = state.store.article(id).await? else {
        return Err(ApiError::not_found(format!("no article has id {id}")).into());
    };
    let images = state.store.article_images(id).await?;
    let results = state.store.results_of_article(id).await?;
    let body = with_stored_images(&article.html, &images, "/ui/images/");
    let body = unstored_images_as_links(&body, &images);
    let source_url = article
        .canonical_url
        .clone()
        .unwrap_or_else(|| article.url.clone());
    render(&ArticlePage {
        chrome: state.chrome(signed_in),
        published: maybe_when(article.published_at.or(Some(article.fetched_at))),
        quality: article.quality.map(|q| format!("{q:.2}")),
        source_url,
        body,
        posts: (article.posts.iter().enumerate())
            .map(|(index, post)| PostView::of(index + 1, post))
            .collect(),
        media: article
            .enclosures
            .iter()
            .filter_map(MediaLink::of)
            .collect(),
        results: results.iter().map(ResultView::of).collect(),
        article,
    })
}

/// One line of the feeds page.
pub struct FeedRow {
    pub id: i64,
    pub name: String,
    pub url: String,
    pub status: String,
    pub last_error: Option<String>,
    pub error_count: i64,
    pub failing: bool,
    pub last_polled: String,
    pub next_due: String,
    pub articles: i64,
}

#[derive(Template)]
#[template(path = "ui/feeds.html")]
struct FeedsPage {
    chrome: Chrome,
    feeds: Vec<FeedRow>,
}

/// `GET /ui/feeds`: every configured feed with its polling state.
pub async fn feeds(
    State(state): State<UiState>,
    signed_in: SignedIn,
) -> Result<Response, PageError> {
    let feeds = state
        .store
        .feeds()
        .await?
        .into_iter()
        .filter(|feed| feed.active)
        .map(|feed| FeedRow {
            id: feed.id,
            status: feed
                .last_status
                .unwrap_or_else(|| "not polled yet".to_string()),
            last_error: feed.last_error,
            error_count: feed.error_count,
            failing: feed.error_count > 0,
            last_polled: maybe_when(feed.last_polled_at),
            next_due: maybe_when(feed.next_due_at),
            articles: feed.articles,
            name: feed.name,
            url: feed.url,
        })
        .collect();
    render(&FeedsPage {
        chrome: state.chrome(signed_in),
        feeds,
    })
}

/// One line of the failures page.
pub struct FailureRow {
    pub time: String,
    pub feed: String,
    pub stage: String,
    pub kind: String,
    pub message: String,
    pub article_url: Option<String>,
}

#[derive(Template)]
#[template(path = "ui/failures.html")]
struct FailuresPage {
    chrome: Chrome,
    failures: Vec<FailureRow>,
}

/// `GET /ui/failures`: the latest failures, newest first.
pub async fn failures(
    State(state): State<UiState>,
    signed_in: SignedIn,
) -> Result<Response, PageError> {
    let failures = state
        .store
        .failures_matching(&FailureFilter {
            limit: 200,
            ..Default::default()
        })
        .await?
        .into_iter()
        .map(|failure| FailureRow {
            time: when(failure.occurred_at),
            feed: failure.feed.unwrap_or_else(|| "–".to_string()),
            stage: failure.stage,
            kind: failure.kind,
            message: failure.message,
            article_url: failure.article_url,
        })
        .collect();
    render(&FailuresPage {
        chrome: state.chrome(signed_in),
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_not_stored_is_a_link_not_its_alt_text() {
        let image = |url: &str, sha256: Option<&str>| StoredImage {
            position: 0,
            url: url.to_string(),
            alt: Some("A long description".into()),
            caption: None,
            width: None,
            height: None,
            mime: None,
            size: None,
            sha256: sha256.map(str::to_string),
        };
        let body = "<figure><img src=\"https://cdn.example/a.jpg?w=1&amp;h=2\" alt=\"A long \
                    description\"><figcaption>The dam</figcaption></figure>\
                    <img src=\"/ui/images/abc\" alt=\"kept\">";
        let images = [
            image("https://cdn.example/a.jpg?w=1&h=2", None),
            image("https://cdn.example/b.jpg", Some("abc")),
        ];
        let shown = unstored_images_as_links(body, &images);
        assert_eq!(
            shown,
            "<figure><a class=\"unstored-image\" href=\"https://cdn.example/a.jpg?w=1&amp;h=2\">\
             image (not stored)</a><figcaption>The dam</figcaption></figure>\
             <img src=\"/ui/images/abc\" alt=\"kept\">"
        );
    }

    #[test]
    fn a_snippet_is_cut_at_its_marks() {
        let pieces = snippet_pieces("the «council» met on «Tuesday»");
        let shown: Vec<(&str, bool)> = pieces
            .iter()
            .map(|p| (p.text.as_str(), p.matched))
            .collect();
        assert_eq!(
            shown,
            [
                ("the ", false),
                ("council", true),
                (" met on ", false),
                ("Tuesday", true)
            ]
        );
        assert_eq!(snippet_pieces("«open").len(), 1);
    }
}
