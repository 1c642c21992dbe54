//! The read-only routes: feeds, article listings with a cursor, one article as JSON, text or
//! HTML, its images, image bytes, and full-text search.

use std::collections::HashMap;

use axum::Json;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::json;

use super::ApiState;
use super::error::{ApiError, check_quality, parse_id, parse_limit};
use crate::format::{BodyFormat, UnreadableSince};
use crate::store::claims::ClaimResult;
use crate::store::{
    Article, ArticleFilter, LISTING_BUDGET_BYTES, PageType, StoredImage, fit_listing,
};

/// Page size of listings and search when `limit` is absent.
pub const DEFAULT_LIMIT: i64 = 50;
/// The largest page a listing or search returns.
pub const MAX_LIMIT: i64 = 500;

/// Image bytes never change for a SHA-256: cache them for a year.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Query parameters by name (the last of repeated names wins).
pub struct Params(HashMap<String, String>);

impl Params {
    pub fn parse(query: Option<&str>) -> Params {
        Params(
            url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
                .into_owned()
                .collect(),
        )
    }

    /// A parameter, `None` when absent or blank.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|value| !value.trim().is_empty())
    }
}

/// The id in a `/…/{id}` path.
pub fn path_id(path: Result<Path<String>, PathRejection>, what: &str) -> Result<i64, ApiError> {
    let Path(text) =
        path.map_err(|rejection| ApiError::bad_request(format!("bad path: {rejection}")))?;
    parse_id(what, &text)
}

/// `GET /feeds`
pub async fn feeds(State(state): State<ApiState>) -> Result<Response, ApiError> {
    let feeds = state.store.feeds().await?;
    Ok(Json(json!({ "feeds": feeds })).into_response())
}

/// `GET /articles?feed=&since=&after_id=&limit=&min_quality=&page_type=`: ascending ids, the
/// consumers' cursor; with `min_quality`, articles whose quality is below it are left out (the
/// cursor still moves past them); with `page_type`, only articles of that page type. A page
/// holds at most `limit` rows and at most [`LISTING_BUDGET_BYTES`] of them (then `more` is
/// true with fewer rows).
pub async fn list(
    State(state): State<ApiState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let params = Params::parse(query.as_deref());
    let limit = parse_limit(params.get("limit"), DEFAULT_LIMIT, MAX_LIMIT)?;
    let after_id = params.get("after_id").map(parse_cursor).transpose()?;
    let since = params.get("since").map(parse_since).transpose()?;
    let feed = params.get("feed").map(str::to_string);
    let min_quality = params.get("min_quality").map(parse_quality).transpose()?;
    let page_type = params.get("page_type").map(parse_page_type).transpose()?;
    let tag = params.get("tag").map(str::to_string);
    if let Some(name) = &feed
        && state.store.feed_by_name(name).await?.is_none()
    {
        return Err(ApiError::not_found(format!("no feed is named {name:?}")));
    }
    let mut articles = state
        .store
        .list_articles(&ArticleFilter {
            feed,
            since,
            after_id,
            before_id: None,
            // One more than asked tells whether another page follows.
            limit: limit + 1,
            ascending: true,
            min_quality,
            page_type,
            tag,
        })
        .await?;
    let mut more = articles.len() as i64 > limit;
    articles.truncate(limit as usize);
    // A page of large rows ends before its limit; the cursor goes on from its last row.
    more |= fit_listing(&mut articles, LISTING_BUDGET_BYTES);
    let next_after_id = articles.last().map(|a| a.id).or(after_id);
    Ok(Json(json!({
        "articles": articles,
        "next_after_id": next_after_id,
        "more": more,
    }))
    .into_response())
}

fn parse_cursor(text: &str) -> Result<i64, ApiError> {
    match text.trim().parse::<i64>() {
        Ok(id) if id >= 0 => Ok(id),
        _ => Err(ApiError::bad_request(format!(
            "after_id must be an article id (an integer of 0 or more), not {text:?}"
        ))),
    }
}

/// A page type's name (`forum`, …); another word is refused with the list of names.
pub(super) fn parse_page_type(text: &str) -> Result<PageType, ApiError> {
    text.trim()
        .parse::<PageType>()
        .map_err(|unknown| ApiError::bad_request(format!("page_type: {unknown}")))
}

fn parse_quality(text: &str) -> Result<f64, ApiError> {
    let value = text.trim().parse::<f64>().map_err(|_| {
        ApiError::bad_request(format!(
            "min_quality must be a number from 0 to 1, not {text:?}"
        ))
    })?;
    check_quality("min_quality", value)
}

/// A `since` parameter, read as the command line and the MCP tools read it
/// ([`crate::format::parse_since`]: an age, a date meaning its midnight UTC, or an RFC 3339
/// time).
fn parse_since(text: &str) -> Result<DateTime<Utc>, ApiError> {
    // An unencoded `+` of an offset arrives as a space; no age or date has one.
    let mended = text.trim().replace(' ', "+");
    crate::format::parse_since(&mended, crate::store::now()).map_err(|unreadable| {
        let reason = match unreadable {
            UnreadableSince::Age(reason) => format!("{reason}; "),
            UnreadableSince::Unknown(_) => String::new(),
        };
        ApiError::bad_request(format!(
            "since: {reason}write an age (24h, 7d, 90d), a date (YYYY-MM-DD, its midnight \
             UTC) or an RFC 3339 time such as 2026-01-31T08:00:00Z, not {text:?}"
        ))
    })
}

/// An image as the API shows it: with the address of its bytes when they were downloaded.
#[derive(Serialize)]
struct ImageView {
    #[serde(flatten)]
    image: StoredImage,
    href: Option<String>,
}

impl From<StoredImage> for ImageView {
    fn from(image: StoredImage) -> Self {
        let href = image.sha256.as_ref().map(|sha| format!("/images/{sha}"));
        ImageView { image, href }
    }
}

#[derive(Serialize)]
struct ArticleView {
    #[serde(flatten)]
    article: Article,
    images: Vec<ImageView>,
    /// What consumers reported with `done`, by consumer; `[]` when none has.
    results: Vec<ClaimResult>,
}

/// `GET /articles/{id}?format=json|text|html|markdown`: JSON with its images and the
/// consumers' results; Markdown with the results in its front matter.
pub async fn article(
    State(state): State<ApiState>,
    path: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let id = path_id(path, "the article id")?;
    let params = Params::parse(query.as_deref());
    let format = params
        .get("format")
        .map_or(Ok(BodyFormat::Json), str::parse::<BodyFormat>)
        .map_err(|unknown| ApiError::bad_request(unknown.to_string()))?;
    let Some(article) = state.store.article(id).await? else {
        return Err(ApiError::not_found(format!("no article has id {id}")));
    };
    Ok(match format {
        BodyFormat::Text => (
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            article.text,
        )
            .into_response(),
        BodyFormat::Markdown => {
            let Some(record) = state.store.article_record(id).await? else {
                return Err(ApiError::not_found(format!("no article has id {id}")));
            };
            (
                [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
                record.to_markdown(),
            )
                .into_response()
        }
        BodyFormat::Html => {
            let images = state.store.article_images(id).await?;
            html_response(&article, &images)
        }
        BodyFormat::Json => {
            let images = state.store.article_images(id).await?;
            let results = state.store.results_of_article(id).await?;
            let view = ArticleView {
                article,
                images: images.into_iter().map(ImageView::from).collect(),
                results,
            };
            Json(view).into_response()
        }
    })
}

/// The `html` format: the body page with a Content-Security-Policy, its stored images served
/// from here.
fn html_response(article: &Article, images: &[StoredImage]) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            // The body is sanitized already; this keeps scripts out even so.
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; img-src * data:; style-src 'unsafe-inline'",
            ),
        ],
        html_document(
            article,
            &with_stored_images(&article.html, images, "/images/"),
        ),
    )
        .into_response()
}

/// `html` with the `src` of every image whose bytes are stored pointing at `{route}{sha256}`
/// (`/images/` here, `/ui/images/` in the web view), so that reading an article asks nothing
/// of the publisher's servers. Images not stored keep their original address; the export
/// keeps the originals for all.
pub(super) fn with_stored_images(html: &str, images: &[StoredImage], route: &str) -> String {
    let mut html = html.to_string();
    for image in images {
        let Some(sha256) = image.sha256.as_deref() else {
            continue;
        };
        let local = format!("src=\"{route}{sha256}\"");
        // The sanitizer writes attribute values with `&` escaped; match either spelling.
        for original in [image.url.clone(), image.url.replace('&', "&amp;")] {
            html = html.replace(&format!("src=\"{original}\""), &local);
        }
    }
    html
}

/// The stored (sanitized) body in a minimal page with the article's title.
fn html_document(article: &Article, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title></head>\n\
         <body><article>\n{}\n</article></body></html>\n",
        escape_html(&article.title),
        body
    )
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `GET /articles/{id}/images`
pub async fn images(
    State(state): State<ApiState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let id = path_id(path, "the article id")?;
    if !state.store.article_exists(id).await? {
        return Err(ApiError::not_found(format!("no article has id {id}")));
    }
    let images: Vec<ImageView> = state
        .store
        .article_images(id)
        .await?
        .into_iter()
        .map(ImageView::from)
        .collect();
    Ok(Json(json!({ "article_id": id, "images": images })).into_response())
}

/// `GET /images/{sha256}`: the bytes with their stored media type, cacheable forever.
pub async fn image_blob(
    State(state): State<ApiState>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Path(sha256) =
        path.map_err(|rejection| ApiError::bad_request(format!("bad path: {rejection}")))?;
    image_bytes(&state.store, &sha256, &headers).await
}

/// The stored bytes of the image named `sha256`, cacheable forever (and `/outputs`' images).
pub(super) async fn image_bytes(
    store: &crate::store::Store,
    sha256: &str,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ApiError::bad_request(
            "an image is named by its SHA-256: 64 hexadecimal digits",
        ));
    }
    let sha256 = sha256.to_ascii_lowercase();
    let etag = format!("\"{sha256}\"");
    let Some(blob) = store.image_blob(&sha256).await? else {
        return Err(ApiError::not_found(format!(
            "no image has SHA-256 {sha256}"
        )));
    };
    let content_type = HeaderValue::from_str(&blob.mime)
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    let mut response = if if_none_match(headers, &etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        Response::new(Body::from(blob.bytes))
    };
    let response_headers = response.headers_mut();
    response_headers.insert(header::CONTENT_TYPE, content_type);
    response_headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    response_headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // An image (an SVG, say) opened directly must not run anything.
    response_headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; sandbox"),
    );
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response_headers.insert(header::ETAG, value);
    }
    Ok(response)
}

/// Whether the request's `If-None-Match` names `etag` (or `*`), weak or strong.
pub(super) fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .split(',')
                .map(str::trim)
                .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
        })
}

/// `GET /search?q=&limit=`
pub async fn search(
    State(state): State<ApiState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let params = Params::parse(query.as_deref());
    let Some(q) = params.get("q") else {
        return Err(ApiError::bad_request(
            "q (the words to search for) is required",
        ));
    };
    let limit = parse_limit(params.get("limit"), DEFAULT_LIMIT, MAX_LIMIT)?;
    let mut hits = state.store.search(q, limit).await?;
    fit_listing(&mut hits, LISTING_BUDGET_BYTES);
    Ok(Json(json!({ "query": q, "hits": hits })).into_response())
}
