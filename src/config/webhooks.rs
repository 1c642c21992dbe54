//! `[[webhooks]]`: where each newly stored article is posted (docs/webhooks.md).
//!
//! Owns [`WebhookConfig`] and its validation: an http(s) URL configured once, a `feeds` list
//! naming configured feeds only, a secret that is never shown (its `Debug` is redacted), and
//! the retry policy. Delivery itself is `crate::webhooks`.

use std::collections::HashSet;
use std::ops::Range;

use serde::Deserialize;
use sha2::{Digest, Sha256};
use toml::Spanned;
use url::Url;

use super::{ConfigError, parse_feed_url};

/// Attempts before a delivery is given up, unless `max_attempts` says otherwise.
const DEFAULT_MAX_ATTEMPTS: u32 = 10;
/// The wait before the first retry, unless `retry_seconds` says otherwise; it doubles with
/// every further failure, up to [`MAX_WEBHOOK_WAIT_SECONDS`].
const DEFAULT_RETRY_SECONDS: u64 = 30;
/// The longest wait between two attempts.
pub const MAX_WEBHOOK_WAIT_SECONDS: u64 = 6 * 3600;
const MAX_ATTEMPTS: u32 = 100;

/// One `[[webhooks]]` entry.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookConfig {
    pub url: Url,
    /// The feeds whose articles are posted; `None`: every feed.
    pub feeds: Option<Vec<String>>,
    /// The HMAC-SHA256 key of `X-Gleaner-Signature`; never logged.
    pub secret: Option<String>,
    /// `retry_seconds`: the wait before the first retry (doubling after each failure).
    pub retry_after: std::time::Duration,
    /// `max_attempts`: attempts before the delivery is marked failed.
    pub max_attempts: u32,
    /// `skip_duplicates`: post one article per near-duplicate cluster (its representative),
    /// not the same story again from each feed that carries it; with `feeds`, copies are
    /// judged among those feeds' articles only. Default false.
    pub skip_duplicates: bool,
}

impl WebhookConfig {
    /// The webhook's name in the database and in delivery ids: the first 16 hex digits of the
    /// SHA-256 of its URL, so that neither the URL nor the secret is stored or sent.
    pub fn key(&self) -> String {
        let digest = Sha256::digest(self.url.as_str().as_bytes());
        hex::encode(digest)[..16].to_string()
    }

    /// The URL without user, password or query, for logs and `check-config`.
    pub fn display_url(&self) -> String {
        let mut shown = self.url.clone();
        let _ = shown.set_username("");
        let _ = shown.set_password(None);
        shown.set_query(None);
        shown.to_string()
    }
}

impl std::fmt::Debug for WebhookConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookConfig")
            .field("url", &self.display_url())
            .field("feeds", &self.feeds)
            .field("secret", &self.secret.as_ref().map(|_| "***"))
            .field("retry_after", &self.retry_after)
            .field("max_attempts", &self.max_attempts)
            .field("skip_duplicates", &self.skip_duplicates)
            .finish()
    }
}

/// `[[webhooks]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWebhook {
    url: Spanned<String>,
    feeds: Option<Vec<Spanned<String>>>,
    secret: Option<Spanned<String>>,
    retry_seconds: Option<Spanned<u64>>,
    max_attempts: Option<Spanned<u32>>,
    skip_duplicates: Option<bool>,
}

/// Validates every `[[webhooks]]` entry against the configured feed names: each entry's
/// first error goes to `errors` and the next entry is checked.
pub(super) fn validate(
    raw: Vec<RawWebhook>,
    feed_names: &HashSet<String>,
    at: impl Fn(Range<usize>, String) -> ConfigError,
    errors: &mut Vec<ConfigError>,
) -> Vec<WebhookConfig> {
    let mut urls = HashSet::new();
    let mut webhooks = Vec::with_capacity(raw.len());
    for webhook in raw {
        match validate_webhook(webhook, feed_names, &mut urls, &at) {
            Ok(webhook) => webhooks.push(webhook),
            Err(error) => errors.push(error),
        }
    }
    webhooks
}

/// One `[[webhooks]]` entry, given the URLs of the entries before it.
fn validate_webhook(
    webhook: RawWebhook,
    feed_names: &HashSet<String>,
    urls: &mut HashSet<String>,
    at: &impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<WebhookConfig, ConfigError> {
    let url = parse_feed_url(webhook.url.get_ref())
        .map_err(|m| at(webhook.url.span(), format!("[[webhooks]] url: {m}")))?;
    if !urls.insert(url.to_string()) {
        return Err(at(
            webhook.url.span(),
            "[[webhooks]] url: this webhook is configured twice".to_string(),
        ));
    }
    let feeds = match webhook.feeds {
        None => None,
        Some(names) => Some(known_feeds(names, feed_names, at)?),
    };
    let secret = match webhook.secret {
        Some(secret) if secret.get_ref().trim().is_empty() => {
            return Err(at(
                secret.span(),
                "[[webhooks]] secret: must not be empty (leave the key out for no signature)"
                    .to_string(),
            ));
        }
        Some(secret) => Some(secret.into_inner()),
        None => None,
    };
    let retry_seconds = webhook
        .retry_seconds
        .map_or(Ok(DEFAULT_RETRY_SECONDS), |seconds| {
            bounded(seconds, 0, MAX_WEBHOOK_WAIT_SECONDS, "retry_seconds", at)
        })?;
    let max_attempts =
        webhook
            .max_attempts
            .map_or(Ok(u64::from(DEFAULT_MAX_ATTEMPTS)), |attempts| {
                let attempts = Spanned::new(attempts.span(), u64::from(*attempts.get_ref()));
                bounded(attempts, 1, u64::from(MAX_ATTEMPTS), "max_attempts", at)
            })?;
    Ok(WebhookConfig {
        url,
        feeds,
        secret,
        retry_after: std::time::Duration::from_secs(retry_seconds),
        max_attempts: u32::try_from(max_attempts).unwrap_or(MAX_ATTEMPTS),
        skip_duplicates: webhook.skip_duplicates.unwrap_or(false),
    })
}

/// The names of a `feeds` list, each one a configured feed.
fn known_feeds(
    names: Vec<Spanned<String>>,
    feed_names: &HashSet<String>,
    at: &impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<Vec<String>, ConfigError> {
    let mut known = Vec::with_capacity(names.len());
    for name in names {
        let trimmed = name.get_ref().trim();
        if !feed_names.contains(trimmed) {
            return Err(at(
                name.span(),
                format!("[[webhooks]] feeds: no feed is named `{trimmed}`"),
            ));
        }
        known.push(trimmed.to_string());
    }
    Ok(known)
}

fn bounded(
    value: Spanned<u64>,
    min: u64,
    max: u64,
    key: &str,
    at: &impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<u64, ConfigError> {
    let number = *value.get_ref();
    if !(min..=max).contains(&number) {
        return Err(at(
            value.span(),
            format!("[[webhooks]] {key}: must be between {min} and {max}"),
        ));
    }
    Ok(number)
}
