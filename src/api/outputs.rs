//! The `[[outputs]]` over HTTP: `GET /outputs/{name}.atom` and `/outputs/{name}.json` (Atom,
//! JSON Feed 1.1), and `GET /outputs/{name}/images/{key}/{sha256}`, the stored images their
//! items show.
//!
//! A feed reader sends no bearer token, so these routes never read one: each output's URLs
//! carry its own key (`?key=`, or a path segment for images), compared in constant time, and
//! a wrong or missing key answers exactly as an output that does not exist (404), so that
//! the key's absence tells nobody an output is there. A wrong key counts as a failed
//! authentication of its client, as a wrong bearer token does ([`FailedAttempts`]): a client
//! that guesses too often waits (429 with `Retry-After`), whatever the output's name, so that
//! the wait tells nobody either. The API token is never accepted in its place. Conditional GET: the validators are made before any body is read, from the
//! document rendered without its bodies and, standing for each body, its text's digest, its
//! extractor and its images (an extraction again that changes a body changes one of them);
//! the ETag is their digest, Last-Modified the newest item's change, and a matching
//! `If-None-Match` (else `If-Modified-Since`) is a 304 that read no body. A page's items
//! are read in batches, one statement per kind ([`crate::store::OutputItemHead`]).
//! Rendering is [`crate::outputs`]; the articles are chosen by the store's
//! [`ArticleSelection`].

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{Extensions, HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use url::Url;

use super::articles::{Params, if_none_match, image_bytes, with_stored_images};
use super::attempts::FailedAttempts;
use super::auth::{client_of, constant_time_eq, too_many_attempts};
use super::error::ApiError;
use crate::config::OutputConfig;
use crate::outputs::{OutputDocument, OutputItem};
use crate::store::claims::{ArticleSelection, ClaimFilter, ClaimResult};
use crate::store::{OutputItemHead, Store, StoredImage};

/// What the output routes read: the store, the configured outputs, the public address.
#[derive(Debug, Clone)]
pub struct OutputsState {
    pub store: Store,
    pub outputs: Arc<Vec<OutputConfig>>,
    /// `[api] public_url`; else each request's `Host` names the base of absolute links.
    pub public_url: Option<Url>,
    /// The clients' failed authentications, shared with the bearer check and the sign-in.
    pub attempts: FailedAttempts,
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

/// Why an output request is not answered with the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// No such output, or not its key: [`hidden`].
    Hidden,
    /// The client guessed too often: 429 with `Retry-After`.
    LockedOut(std::time::Duration),
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::Hidden => hidden().into_response(),
            Refusal::LockedOut(wait) => too_many_attempts(wait),
        }
    }
}

/// Whether `presented` is `output`'s key, compared as digests in constant time.
fn key_matches(output: &OutputConfig, presented: &str) -> bool {
    let expected: [u8; 32] = Sha256::digest(output.key.expose().as_bytes()).into();
    let presented: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
    constant_time_eq(&expected, &presented)
}

impl OutputsState {
    /// The output named `name` when `key` is its key; else the answer: 404 (a key presented
    /// and wrong counts as a failure of the client), or 429 while the client is locked out.
    fn unlocked(
        &self,
        name: &str,
        key: Option<&str>,
        extensions: &Extensions,
    ) -> Result<&OutputConfig, Refusal> {
        let client = client_of(extensions);
        if let Some(wait) = self.attempts.locked_out(client) {
            return Err(Refusal::LockedOut(wait));
        }
        let output = self.outputs.iter().find(|output| output.name == name);
        match (output, key) {
            (Some(output), Some(key)) if key_matches(output, key) => {
                self.attempts.succeeded(client);
                Ok(output)
            }
            (_, presented) => {
                if presented.is_some() {
                    self.attempts.failed(client, "output key");
                }
                Err(Refusal::Hidden)
            }
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
    extensions: Extensions,
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
    let output = match state.unlocked(name, params.get("key"), &extensions) {
        Ok(output) => output,
        Err(refusal) => return Ok(refusal.into_response()),
    };
    let base = state.base_url(&headers);
    let page = Page::read(&state.store, output, &base).await?;
    let mut document = page.document_without_bodies(output, &base, format);
    let validators = Validators::of(&document, &page, format);
    if validators.match_request(&headers) {
        return Ok(validators.answer(StatusCode::NOT_MODIFIED.into_response(), format));
    }
    page.fill_bodies(&state.store, &mut document).await?;
    let body = render(&document, format);
    Ok(validators.answer(Response::new(Body::from(body)), format))
}

/// `GET /outputs/{name}/images/{key}/{sha256}`: a stored image an output's item shows.
pub async fn image(
    State(state): State<OutputsState>,
    Path((name, key, sha256)): Path<(String, String, String)>,
    extensions: Extensions,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Err(refusal) = state.unlocked(&name, Some(&key), &extensions) {
        return Ok(refusal.into_response());
    }
    image_bytes(&state.store, &sha256, &headers).await
}

/// The document in the format its URL names.
fn render(document: &OutputDocument, format: OutputFormat) -> String {
    match format {
        OutputFormat::Atom => document.to_atom(),
        OutputFormat::JsonFeed => document.to_json_feed(),
    }
}

/// An output's newest articles as read before their bodies: each statement reads every
/// item at once.
struct Page {
    heads: Vec<OutputItemHead>,
    images: HashMap<i64, Vec<StoredImage>>,
    /// The summary consumer's results (none when the output takes no summaries).
    results: HashMap<i64, ClaimResult>,
    /// Where the items' stored images are served: `{base}/outputs/{name}/images/{key}/`.
    images_route: String,
}

impl Page {
    async fn read(store: &Store, output: &OutputConfig, base: &str) -> Result<Page, ApiError> {
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
        // An article deleted between the selection and the reads is left out.
        let heads = store.output_item_heads(&ids).await?;
        let images = store.images_of_articles(&ids).await?;
        // Only an output that takes its summaries from a consumer reads results: that
        // consumer's.
        let results = match &output.summary {
            Some(source) => store.results_of_articles(&ids, &source.consumer).await?,
            None => HashMap::new(),
        };
        let images_route = format!(
            "{base}/outputs/{}/images/{}/",
            output.name,
            output.key.expose()
        );
        Ok(Page {
            heads,
            images,
            results,
            images_route,
        })
    }

    fn images_of(&self, id: i64) -> &[StoredImage] {
        self.images.get(&id).map_or(&[], Vec::as_slice)
    }

    /// The output's document, each item's summary from the output's consumer, every body
    /// empty.
    fn document_without_bodies(
        &self,
        output: &OutputConfig,
        base: &str,
        format: OutputFormat,
    ) -> OutputDocument {
        let items = self
            .heads
            .iter()
            .map(|head| {
                let result = self.results.get(&head.id);
                item(
                    head,
                    self.images_of(head.id),
                    result,
                    output,
                    &self.images_route,
                )
            })
            .collect();
        let summary_from = output.summary.as_ref().map(|s| s.consumer.clone());
        OutputDocument {
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
        }
    }

    /// Reads the items' bodies, their stored images at gleaner's addresses; an item whose
    /// article went since the heads were read is left out.
    async fn fill_bodies(
        &self,
        store: &Store,
        document: &mut OutputDocument,
    ) -> Result<(), ApiError> {
        let ids: Vec<i64> = self.heads.iter().map(|head| head.id).collect();
        let mut bodies = store.article_bodies(&ids).await?;
        let mut items = std::mem::take(&mut document.items).into_iter();
        for head in &self.heads {
            let Some(mut item) = items.next() else {
                break;
            };
            let Some(html) = bodies.remove(&head.id) else {
                continue;
            };
            item.html = with_stored_images(&html, self.images_of(head.id), &self.images_route);
            document.items.push(item);
        }
        Ok(())
    }
}

/// One article as an item, its body empty: its stored images served from `images_route`,
/// its summary the output's consumer's result field when that is a string.
fn item(
    head: &OutputItemHead,
    images: &[StoredImage],
    result: Option<&ClaimResult>,
    output: &OutputConfig,
    images_route: &str,
) -> OutputItem {
    let summarized = output.summary.as_ref().and_then(|source| {
        let result = result.filter(|r| r.consumer == source.consumer)?;
        let text = result.result.as_ref()?.get(&source.field)?.as_str()?;
        Some((text.to_string(), result.done_at))
    });
    let lead = head.lead_image_url.as_deref();
    let image = lead.map(|lead| {
        images
            .iter()
            .find(|image| image.url == lead)
            .and_then(|image| image.sha256.as_deref())
            .map_or_else(|| lead.to_string(), |sha| format!("{images_route}{sha}"))
    });
    let updated = summarized
        .as_ref()
        .map_or(head.fetched_at, |(_, at)| (*at).max(head.fetched_at));
    OutputItem {
        id: OutputItem::id_of(head.id),
        url: head.canonical_url.clone().unwrap_or(head.url.clone()),
        title: head.title.clone(),
        author: head.author.clone(),
        published: head.published_at,
        updated,
        html: String::new(),
        tags: head.tags.clone(),
        summary: summarized.map(|(text, _)| text),
        image,
    }
}

/// A document's ETag and Last-Modified.
struct Validators {
    etag: String,
    updated: DateTime<Utc>,
}

impl Validators {
    /// The validators of `document` (its bodies empty) and of what its bodies are made of.
    fn of(document: &OutputDocument, page: &Page, format: OutputFormat) -> Validators {
        let mut digest = Sha256::new();
        digest.update(render(document, format).as_bytes());
        for head in &page.heads {
            // Each field ends in a byte no field holds, so that no two lists hash alike.
            for field in [head.content_hash.as_str(), head.extractor.as_str()] {
                digest.update(field.as_bytes());
                digest.update([0]);
            }
            for image in page.images_of(head.id) {
                digest.update(image.url.as_bytes());
                digest.update([0]);
                digest.update(image.sha256.as_deref().unwrap_or("").as_bytes());
                digest.update([0]);
            }
            digest.update([1]);
        }
        Validators {
            etag: format!("\"{}\"", &hex::encode(digest.finalize())[..32]),
            updated: document.updated(),
        }
    }

    /// Whether the request's validators match: a 304 answers it.
    fn match_request(&self, headers: &HeaderMap) -> bool {
        // A request with an entity tag is answered by it alone (RFC 9110, section 13.1.3).
        if headers.contains_key(header::IF_NONE_MATCH) {
            return if_none_match(headers, &self.etag);
        }
        headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| httpdate::parse_http_date(value).ok())
            .is_some_and(|since| {
                // HTTP dates have whole seconds.
                DateTime::<Utc>::from(since).timestamp() >= self.updated.timestamp()
            })
    }

    /// `response` (the document, or a 304) with the validators and the output's headers.
    fn answer(&self, mut response: Response, format: OutputFormat) -> Response {
        let last_modified = httpdate::fmt_http_date(self.updated.into());
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
        if let Ok(value) = HeaderValue::from_str(&self.etag) {
            response_headers.insert(header::ETAG, value);
        }
        if let Ok(value) = HeaderValue::from_str(&last_modified) {
            response_headers.insert(header::LAST_MODIFIED, value);
        }
        response
    }
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
        let validators = Validators {
            etag: "\"x\"".to_string(),
            updated: at,
        };
        assert!(!validators.match_request(&HeaderMap::new()));
        let first = validators.answer(Response::new(Body::from("x")), OutputFormat::Atom);
        let mut headers = HeaderMap::new();
        if let Some(etag) = first.headers().get(header::ETAG) {
            headers.insert(header::IF_NONE_MATCH, etag.clone());
        }
        assert!(validators.match_request(&headers));
        let changed = Validators {
            etag: "\"y\"".to_string(),
            updated: at,
        };
        assert!(!changed.match_request(&headers));
        let mut since = HeaderMap::new();
        if let Some(date) = first.headers().get(header::LAST_MODIFIED) {
            since.insert(header::IF_MODIFIED_SINCE, date.clone());
        }
        assert!(validators.match_request(&since));
        let later = Validators {
            etag: "\"x\"".to_string(),
            updated: at + chrono::Duration::seconds(1),
        };
        assert!(!later.match_request(&since));
    }
}
