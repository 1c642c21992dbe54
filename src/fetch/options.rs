//! What one feed's configuration adds to its requests: [`RequestOptions`].
//!
//! Built once per poll from the feed's `user_agent`, `headers`, `cookie` and
//! `username`/`password`, and carried by every [`super::FetchRequest`] made for the feed
//! (the document, its article pages, their images), so one client serves every feed. The
//! user agent and the plain headers go with every such request. Credentials (`Authorization`,
//! from basic auth or a configured header, and `Cookie`) go only to the feed's own origin
//! (scheme, host and port of its URL): an article link or an image elsewhere never gets them,
//! and on a redirect to another host the client drops them, as browsers and curl do.

use base64::Engine as _;
use reqwest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderValue, USER_AGENT};
use url::{Origin, Url};

use crate::config::FeedConfig;

/// Headers one feed adds to its requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestOptions {
    /// Sent with every request for the feed: its user agent and headers.
    headers: HeaderMap,
    /// Sent only to `origin`: `Authorization` and `Cookie`.
    credentials: HeaderMap,
    /// The feed URL's origin.
    origin: Option<Origin>,
}

impl RequestOptions {
    /// The options of one configured feed (none when it configures none).
    pub fn for_feed(feed: &FeedConfig) -> RequestOptions {
        let request = &feed.request;
        let mut options = RequestOptions {
            origin: Some(feed.url.origin()),
            ..RequestOptions::default()
        };
        if let Some(agent) = &request.user_agent {
            options.headers.insert(USER_AGENT, agent.clone());
        }
        for (name, value) in &request.headers {
            let target = if name == AUTHORIZATION {
                &mut options.credentials
            } else {
                &mut options.headers
            };
            target.append(name.clone(), value.clone());
        }
        if let Some(auth) = &request.basic_auth {
            let pair = format!("{}:{}", auth.username, auth.password.expose());
            let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
            if let Ok(mut value) = HeaderValue::from_str(&format!("Basic {encoded}")) {
                value.set_sensitive(true);
                options.credentials.insert(AUTHORIZATION, value);
            }
        }
        if let Some(cookie) = &request.cookie
            && let Ok(mut value) = HeaderValue::from_str(cookie.expose())
        {
            value.set_sensitive(true);
            options.credentials.insert(COOKIE, value);
        }
        options
    }

    /// The feed's own user agent, when it configures one.
    pub(super) fn user_agent(&self) -> Option<&HeaderValue> {
        self.headers.get(USER_AGENT)
    }

    /// The headers to send with a request for `url`: credentials only on the feed's origin.
    pub(super) fn headers_for(&self, url: &Url) -> HeaderMap {
        let mut headers = self.headers.clone();
        if self.origin.as_ref() == Some(&url.origin()) {
            headers.extend(self.credentials.clone());
        }
        headers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BasicAuth, Secret};
    use crate::schedule::CronSchedule;

    fn feed() -> FeedConfig {
        let mut feed = FeedConfig::new(
            "private",
            Url::parse("https://feeds.example.org:8443/rss").expect("a URL"),
            CronSchedule::parse("*/15 * * * *").expect("a schedule"),
        );
        feed.request.user_agent = Some(HeaderValue::from_static("reader/2"));
        feed.request
            .headers
            .insert("x-team", HeaderValue::from_static("blue"));
        feed.request.cookie = Some(Secret::new("session=abc"));
        feed.request.basic_auth = Some(BasicAuth {
            username: "ann".into(),
            password: Secret::new("pw"),
        });
        feed
    }

    #[test]
    fn credentials_go_only_to_the_feeds_origin() {
        let options = RequestOptions::for_feed(&feed());
        let same =
            options.headers_for(&Url::parse("https://feeds.example.org:8443/a/1").expect("a URL"));
        assert_eq!(
            same.get(USER_AGENT),
            Some(&HeaderValue::from_static("reader/2"))
        );
        assert_eq!(same.get("x-team"), Some(&HeaderValue::from_static("blue")));
        assert_eq!(
            same.get(COOKIE),
            Some(&HeaderValue::from_static("session=abc"))
        );
        // "ann:pw" in base64.
        assert_eq!(
            same.get(AUTHORIZATION),
            Some(&HeaderValue::from_static("Basic YW5uOnB3"))
        );
        for elsewhere in [
            "https://feeds.example.org/a/1",
            "http://feeds.example.org:8443/a/1",
            "https://cdn.example.org:8443/a.png",
        ] {
            let headers = options.headers_for(&Url::parse(elsewhere).expect("a URL"));
            assert!(headers.get(COOKIE).is_none(), "{elsewhere}");
            assert!(headers.get(AUTHORIZATION).is_none(), "{elsewhere}");
            assert!(headers.get(USER_AGENT).is_some(), "{elsewhere}");
        }
    }

    #[test]
    fn a_feed_without_controls_adds_nothing() {
        let plain = FeedConfig::new(
            "plain",
            Url::parse("https://example.org/rss").expect("a URL"),
            CronSchedule::parse("*/15 * * * *").expect("a schedule"),
        );
        let options = RequestOptions::for_feed(&plain);
        assert!(options.headers_for(&plain.url).is_empty());
    }
}
