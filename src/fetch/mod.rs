//! HTTP fetching (interim: replaced by the full fetcher with limits, guard and robots.txt).

use std::time::Duration;

use futures::StreamExt;
use url::Url;

use crate::config::FetchConfig;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    Feed,
    Page,
    Image,
}

#[derive(Debug, Clone)]
pub struct FetchRequest {
    pub url: Url,
    pub kind: ResourceKind,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

#[derive(Debug)]
pub enum FetchOutcome {
    NotModified,
    Fetched(Fetched),
}

#[derive(Debug)]
pub struct Fetched {
    pub final_url: Url,
    pub status: u16,
    pub content_type: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub bytes: Vec<u8>,
}

impl Fetched {
    pub fn charset(&self) -> Option<&str> {
        let content_type = self.content_type.as_deref()?;
        content_type.split(';').skip(1).find_map(|param| {
            let (name, value) = param.split_once('=')?;
            (name.trim().eq_ignore_ascii_case("charset")).then(|| value.trim().trim_matches('"'))
        })
    }

    pub fn media_type(&self) -> Option<String> {
        let content_type = self.content_type.as_deref()?;
        let media = content_type.split(';').next()?.trim().to_ascii_lowercase();
        (!media.is_empty()).then_some(media)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{url}: HTTP {status}")]
    HttpStatus {
        url: Url,
        status: u16,
        retry_after: Option<Duration>,
    },
    #[error("{url}: larger than {limit} bytes")]
    TooLarge { url: Url, limit: u64 },
    #[error("{url}: {message}")]
    Network { url: Url, message: String },
}

impl FetchError {
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::HttpStatus { .. } => "http_status",
            FetchError::TooLarge { .. } => "too_large",
            FetchError::Network { .. } => "network",
        }
    }

    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            FetchError::HttpStatus { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    pub fn is_transient(&self) -> bool {
        !matches!(self, FetchError::HttpStatus { status, .. } if *status < 500 && *status != 429)
    }
}

#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    config: FetchConfig,
}

impl Fetcher {
    pub fn new(config: &FetchConfig) -> Result<Fetcher, FetchError> {
        let client = reqwest::Client::builder()
            .user_agent(config.user_agent.clone())
            .timeout(Duration::from_secs(config.timeout_seconds))
            .build()
            .map_err(|e| FetchError::Network {
                url: Url::parse("http://localhost/").expect("static URL"),
                message: e.to_string(),
            })?;
        Ok(Fetcher {
            client,
            config: config.clone(),
        })
    }

    pub async fn fetch(&self, request: &FetchRequest) -> Result<FetchOutcome, FetchError> {
        let url = request.url.clone();
        let network = |e: reqwest::Error| FetchError::Network {
            url: url.clone(),
            message: e.to_string(),
        };
        let mut builder = self.client.get(url.clone());
        if let Some(etag) = &request.etag {
            builder = builder.header("If-None-Match", etag);
        }
        if let Some(modified) = &request.last_modified {
            builder = builder.header("If-Modified-Since", modified);
        }
        let response = builder.send().await.map_err(network)?;
        let status = response.status().as_u16();
        if status == 304 {
            return Ok(FetchOutcome::NotModified);
        }
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        if !(200..300).contains(&status) {
            let retry_after = header("retry-after")
                .and_then(|v| v.trim().parse().ok())
                .map(Duration::from_secs);
            return Err(FetchError::HttpStatus {
                url,
                status,
                retry_after,
            });
        }
        let limit = match request.kind {
            ResourceKind::Feed => self.config.max_feed_bytes,
            ResourceKind::Page => self.config.max_page_bytes,
            ResourceKind::Image => self.config.max_image_bytes,
        };
        let (content_type, etag, last_modified) = (
            header("content-type"),
            header("etag"),
            header("last-modified"),
        );
        let final_url = response.url().clone();
        let mut bytes = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(network)?;
            if (bytes.len() + chunk.len()) as u64 > limit {
                return Err(FetchError::TooLarge { url, limit });
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(FetchOutcome::Fetched(Fetched {
            final_url,
            status,
            content_type,
            etag,
            last_modified,
            bytes,
        }))
    }
}
