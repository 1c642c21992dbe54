//! The `[[outputs]]` over HTTP: `GET /outputs/{name}.atom` and `/outputs/{name}.json` (Atom,
//! JSON Feed 1.1), and `GET /outputs/{name}/images/{key}/{sha256}`, the stored images their
//! items show.
//!
//! A feed reader sends no bearer token, so these routes never read one: each output's URLs
//! carry its own key (`?key=`, or a path segment for images), compared in constant time, and
//! a wrong or missing key answers exactly as an output that does not exist (404), so that
//! the key's absence tells nobody an output is there. The API token is never accepted in
//! its place. Conditional GET: the ETag is the document's digest, Last-Modified its newest
//! item's change, and a matching `If-None-Match` (else `If-Modified-Since`) is a 304.
//! Rendering is [`crate::outputs`]; the articles are chosen by the store's
//! [`ArticleSelection`].

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use url::Url;

use super::articles::{Params, if_none_match, image_bytes, with_stored_images};
use super::auth::constant_time_eq;
use super::error::ApiError;
use crate::config::OutputConfig;
use crate::outputs::{OutputDocument, OutputItem};
use crate::store::claims::{ArticleSelection, ClaimFilter, ClaimResult};
use crate::store::{Article, Store, StoredImage};

/// What the output routes read: the store, the configured outputs, the public address.
#[derive(Debug, Clone)]
pub struct OutputsState {
    pub store: Store,
    pub outputs: Arc<Vec<OutputConfig>>,
    /// `[api] public_url`; else each request's `Host` names the base of absolute links.
    pub public_url: Option<Url>,
}

/// The two renderings of an output, by the extension of its URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Atom,
    JsonFeed,
}

impl OutputFormat {
    pub const ALL: [OutputFormat; 2] = [OutputFormat::Atom, OutputFormat::JsonFeed];

    /// The extension of its URL: `atom`, `json`.
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Atom => "atom",
            OutputFormat::JsonFeed => "json",
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            OutputFormat::Atom => "application/atom+xml; charset=utf-8",
            OutputFormat::JsonFeed => "application/feed+json; charset=utf-8",
        }
    }
}

/// An output's path for `format` under any base: `/outputs/{name}.atom?key=…`.
pub fn output_path(output: &OutputConfig, format: OutputFormat) -> String {
    format!(
        "/outputs/{}.{}?key={}",
        output.name,
        format.extension(),
        output.key.expose()
    )
}

/// The answer to every output request that names no output or the wrong key: the router's
/// own "no such route", so the two cannot be told apart.
fn hidden() -> ApiError {
    ApiError::not_found("no such route (see docs/api.md)")
}

/// Whether `presented` is `output`'s key, compared as digests in constant time.
fn key_matches(output: &OutputConfig, presented: &str) -> bool {
    let expected: [u8; 32] = Sha256::digest(output.key.expose().as_bytes()).into();
    let presented: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
    constant_time_eq(&expected, &presented)
}

impl OutputsState {
    /// The output named `name` when `key` is its key.
    fn unlocked(&self, name: &str, key: Option<&str>) -> Result<&OutputConfig, ApiError> {
        let output = self.outputs.iter().find(|output| output.name == name);
        match (output, key) {
            (Some(output), Some(key)) if key_matches(output, key) => Ok(output),
            _ => Err(hidden()),
        }
    }

    /// The base of absolute links: `public_url`, else `http://` and the request's host.
    fn base_url(&self, headers: &HeaderMap) -> String {
        if let Some(url) = &self.public_url {
            return url.as_str().trim_end_matches('/').to_string();
        }
        let host = headers
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("localhost");
        format!("http://{host}")
    }
}

/// `GET /outputs/{name}.atom?key=` and `/outputs/{name}.json?key=`.
pub async fn document(
    State(state): State<OutputsState>,
    Path(file): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (name, format) = OutputFormat::ALL
        .into_iter()
        .find_map(|format| {
            file.strip_suffix(&format!(".{}", format.extension()))
                .map(|name| (name, format))
        })
        .ok_or_else(hidden)?;
    let params = Params::parse(query.as_deref());
    let output = state.unlocked(name, params.get("key"))?;
    let base = state.base_url(&headers);
    let document = build(&state.store, output, &base, format).await?;
    let body = match format {
        OutputFormat::Atom => document.to_atom(),
        OutputFormat::JsonFeed => document.to_json_feed(),
    };
    Ok(conditional(&headers, body, document.updated(), format))
}

/// `GET /outputs/{name}/images/{key}/{sha256}`: a stored image an output's item shows.
pub async fn image(
    State(state): State<OutputsState>,
    Path((name, key, sha256)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    state.unlocked(&name, Some(&key))?;
    image_bytes(&state.store, &sha256, &headers).await
}

/// The output's document: its newest articles, each with its summary when the output takes
/// one from a consumer.
async fn build(
    store: &Store,
    output: &OutputConfig,
    base: &str,
    format: OutputFormat,
) -> Result<OutputDocument, ApiError> {
    let selection = ArticleSelection {
        filter: ClaimFilter {
            min_quality: output.min_quality,
            skip_duplicates: output.skip_duplicates,
            page_types: output.page_types.clone(),
        },
        feeds: output.feeds.clone(),
        tags: output.tags.clone(),
    };
    let limit = i64::try_from(output.items).unwrap_or(i64::MAX);
    let ids = store.selected_articles(&selection, limit).await?;
    let images_route = format!(
        "{base}/outputs/{}/images/{}/",
        output.name,
        output.key.expose()
    );
    let mut items = Vec::with_capacity(ids.len());
    for id in ids {
        // An article deleted between the selection and the read is left out.
        let Some(article) = store.article(id).await? else {
            continue;
        };
        let images = store.article_images(id).await?;
        // Only an output that takes its summaries from a consumer reads a result: that
        // consumer's.
        let results = match &output.summary {
            Some(source) => store
                .claims_of_article(id, Some(&source.consumer))
                .await?
                .into_iter()
                .filter_map(ClaimResult::of)
                .collect(),
            None => Vec::new(),
        };
        items.push(item(article, &images, &results, output, &images_route));
    }
    let summary_from = output.summary.as_ref().map(|s| s.consumer.clone());
    Ok(OutputDocument {
        title: output
            .title
            .clone()
            .unwrap_or_else(|| format!("gleaner: {}", output.name)),
        subtitle: summary_from
            .as_ref()
            .map(|consumer| format!("Full text from gleaner; summaries by {consumer}")),
        self_url: format!("{base}{}", output_path(output, format)),
        home_url: format!("{base}/ui/"),
        summary_from,
        items,
    })
}

/// One article as an item: its stored images served from `images_route`, its summary the
/// output's consumer's result field when that is a string.
fn item(
    article: Article,
    images: &[StoredImage],
    results: &[ClaimResult],
    output: &OutputConfig,
    images_route: &str,
) -> OutputItem {
    let summarized = output.summary.as_ref().and_then(|source| {
        let result = results.iter().find(|r| r.consumer == source.consumer)?;
        let text = result.result.as_ref()?.get(&source.field)?.as_str()?;
        Some((text.to_string(), result.done_at))
    });
    let lead = article.metadata.lead_image_url.as_deref();
    let image = lead.map(|lead| {
        images
            .iter()
            .find(|image| image.url == lead)
            .and_then(|image| image.sha256.as_deref())
            .map_or_else(|| lead.to_string(), |sha| format!("{images_route}{sha}"))
    });
    let updated = summarized
        .as_ref()
        .map_or(article.fetched_at, |(_, at)| (*at).max(article.fetched_at));
    OutputItem {
        id: OutputItem::id_of(article.id),
        url: article.canonical_url.clone().unwrap_or(article.url.clone()),
        title: article.title,
        author: article.author,
        published: article.published_at,
        updated,
        html: with_stored_images(&article.html, images, images_route),
        tags: article.tags,
        summary: summarized.map(|(text, _)| text),
        image,
    }
}

/// `body` with its validators, or a 304 when the request's validators match them.
fn conditional(
    headers: &HeaderMap,
    body: String,
    updated: DateTime<Utc>,
    format: OutputFormat,
) -> Response {
    let digest = Sha256::digest(body.as_bytes());
    let etag = format!("\"{}\"", &hex::encode(digest)[..32]);
    let last_modified = httpdate::fmt_http_date(updated.into());
    // A request with an entity tag is answered by it alone (RFC 9110, section 13.1.3).
    let not_modified = if headers.contains_key(header::IF_NONE_MATCH) {
        if_none_match(headers, &etag)
    } else {
        headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| httpdate::parse_http_date(value).ok())
            .is_some_and(|since| {
                // HTTP dates have whole seconds.
                DateTime::<Utc>::from(since).timestamp() >= updated.timestamp()
            })
    };
    let mut response = if not_modified {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        Response::new(Body::from(body))
    };
    let response_headers = response.headers_mut();
    response_headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    // Readers revalidate each time; the key in the URL keeps it out of shared caches.
    response_headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    response_headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response_headers.insert(header::ETAG, value);
    }
    if let Ok(value) = HeaderValue::from_str(&last_modified) {
        response_headers.insert(header::LAST_MODIFIED, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output() -> OutputConfig {
        let config = crate::config::Config::parse(
            "feeds = []\n[[outputs]]\nname = \"tech\"\nkey = \"0123456789abcdef\"\n",
            std::path::Path::new("config.toml"),
            None,
        )
        .expect("the configuration is valid");
        config.outputs[0].clone()
    }

    #[test]
    fn only_the_outputs_own_key_unlocks_it() {
        let output = output();
        assert!(key_matches(&output, "0123456789abcdef"));
        assert!(!key_matches(&output, "0123456789abcdeF"));
        assert!(!key_matches(&output, ""));
    }

    #[test]
    fn the_path_carries_the_key() {
        assert_eq!(
            output_path(&output(), OutputFormat::JsonFeed),
            "/outputs/tech.json?key=0123456789abcdef"
        );
    }

    #[test]
    fn validators_answer_304() {
        let at = DateTime::from_timestamp(1_770_000_000, 0).expect("test time");
        let first = conditional(&HeaderMap::new(), "x".into(), at, OutputFormat::Atom);
        assert_eq!(first.status(), StatusCode::OK);
        let mut headers = HeaderMap::new();
        if let Some(etag) = first.headers().get(header::ETAG) {
            headers.insert(header::IF_NONE_MATCH, etag.clone());
        }
        let again = conditional(&headers, "x".into(), at, OutputFormat::Atom);
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        let changed = conditional(&headers, "y".into(), at, OutputFormat::Atom);
        assert_eq!(changed.status(), StatusCode::OK);
        let mut since = HeaderMap::new();
        if let Some(date) = first.headers().get(header::LAST_MODIFIED) {
            since.insert(header::IF_MODIFIED_SINCE, date.clone());
        }
        let unchanged = conditional(&since, "x".into(), at, OutputFormat::Atom);
        assert_eq!(unchanged.status(), StatusCode::NOT_MODIFIED);
    }
}
