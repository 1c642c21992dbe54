//! Posting: the one request gleaner sends with a body (a webhook delivery).
//!
//! Same client, same SSRF guard (IP literals here, DNS answers in the resolver, every
//! redirect in the policy) and same total timeout as a fetch. No politeness wait and no
//! robots.txt: the receiver is the operator's own endpoint, not a site being read. The
//! answer's body is not read.

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use url::Url;

use super::{FetchError, Fetcher};

impl Fetcher {
    /// Posts `body` as `application/json` with `headers`; the status of a 2xx answer, else
    /// the failure (a non-2xx status is [`FetchError::HttpStatus`]).
    pub async fn post_json(
        &self,
        url: &Url,
        mut headers: HeaderMap,
        body: Vec<u8>,
    ) -> Result<u16, FetchError> {
        self.check_target(url)?;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let timeout = self.inner.timeout;
        let sent = self
            .inner
            .client
            .post(url.clone())
            .headers(headers)
            .body(body)
            .send();
        let response = match tokio::time::timeout(timeout, sent).await {
            Err(_) => {
                return Err(FetchError::Timeout {
                    url: url.clone(),
                    after: timeout,
                });
            }
            Ok(response) => response.map_err(|e| FetchError::from_reqwest(url, e, timeout))?,
        };
        let status = response.status();
        if !status.is_success() {
            return Err(FetchError::HttpStatus {
                url: url.clone(),
                status: status.as_u16(),
                retry_after: None,
            });
        }
        Ok(status.as_u16())
    }

    /// The longest one [`Fetcher::post_json`] may take.
    pub fn request_timeout(&self) -> std::time::Duration {
        self.inner.timeout
    }
}
