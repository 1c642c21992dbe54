//! The API test harness: the real router served on 127.0.0.1 port 0 over a fresh database,
//! a client that speaks JSON to it, and seeded feeds and articles; the claims cases live in
//! [`claims`], the limits on what clients can hold in [`limits`].

pub mod claims;
pub mod limits;

use anyhow::Context as _;
use chrono::Utc;
use gleaner::config::{ApiConfig, FeedConfig};
use gleaner::schedule::CronSchedule;
use gleaner::store::{ImageContent, NewArticle, NewImage, Store, db_time, sha256_hex};
use serde_json::Value;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A running API server; stopped through its token when dropped.
pub struct App {
    pub base: String,
    pub client: reqwest::Client,
    pub token: Option<String>,
    pub shutdown: CancellationToken,
    pub server: Option<JoinHandle<std::io::Result<()>>>,
}

impl App {
    /// Serves the API over `store`. The listener is bound before this returns, so the server
    /// is ready: connections queue until the task accepts them.
    pub async fn spawn(store: &Store, token: Option<&str>) -> anyhow::Result<App> {
        App::spawn_with(store, token, |_| {}).await
    }

    /// [`App::spawn`] with the API's configuration changed by `configure` (limits, timeouts).
    pub async fn spawn_with(
        store: &Store,
        token: Option<&str>,
        configure: impl FnOnce(&mut ApiConfig),
    ) -> anyhow::Result<App> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let mut api = ApiConfig::new(address, token.map(str::to_string));
        configure(&mut api);
        let shutdown = CancellationToken::new();
        let server = tokio::spawn(gleaner::api::serve(
            listener,
            store.clone(),
            api,
            shutdown.clone(),
        ));
        let client = reqwest::Client::builder().no_proxy().build()?;
        Ok(App {
            base: format!("http://{address}"),
            client,
            token: token.map(str::to_string),
            shutdown,
            server: Some(server),
        })
    }

    /// The server's `host:port`, for raw TCP clients.
    pub fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request with the app's token, if it has one.
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let request = self.client.request(method, self.url(path));
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    pub async fn get(&self, path: &str) -> anyhow::Result<reqwest::Response> {
        Ok(self.request(reqwest::Method::GET, path).send().await?)
    }

    /// GET, answered with JSON: its status and body.
    pub async fn get_json(&self, path: &str) -> anyhow::Result<(u16, Value)> {
        json_of(self.get(path).await?).await
    }

    /// POST a JSON body: the answer's status and JSON body.
    pub async fn post_json(&self, path: &str, body: &Value) -> anyhow::Result<(u16, Value)> {
        let response = self
            .request(reqwest::Method::POST, path)
            .header("content-type", "application/json")
            .body(serde_json::to_vec(body)?)
            .send()
            .await?;
        json_of(response).await
    }

    /// `POST /claims`: the ids and lease tokens claimed.
    pub async fn claim(
        &self,
        consumer: &str,
        limit: i64,
        lease_seconds: i64,
    ) -> anyhow::Result<Vec<(i64, i64)>> {
        let body = serde_json::json!({
            "consumer": consumer, "limit": limit, "lease_seconds": lease_seconds,
        });
        let (status, answer) = self.post_json("/claims", &body).await?;
        anyhow::ensure!(status == 200, "claim answered {status}: {answer}");
        let claims = answer["claims"].as_array().context("claims array")?;
        claims
            .iter()
            .map(|claim| {
                let id = claim["article"]["id"].as_i64().context("article id")?;
                let lease = claim["lease"].as_i64().context("lease")?;
                Ok((id, lease))
            })
            .collect()
    }

    /// Stops the server and waits for it to return.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        self.shutdown.cancel();
        if let Some(server) = self.server.take() {
            tokio::time::timeout(std::time::Duration::from_secs(10), server).await???;
        }
        Ok(())
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

pub async fn json_of(response: reqwest::Response) -> anyhow::Result<(u16, Value)> {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let bytes = response.bytes().await?;
    let body = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "status {status}, content type {content_type:?}: not JSON: {}",
            String::from_utf8_lossy(&bytes)
        )
    })?;
    anyhow::ensure!(
        content_type.starts_with("application/json"),
        "JSON answered as {content_type:?}"
    );
    Ok((status, body))
}

/// What [`seed`] stored.
pub struct Seeded {
    /// Article ids, ascending.
    pub ids: Vec<i64>,
    /// The SHA-256 of the one downloaded image (of the first article).
    pub image_sha256: String,
    pub image_bytes: Vec<u8>,
}

pub const IMAGE_MIME: &str = "image/webp";

fn feed(name: &str, url: &str) -> anyhow::Result<FeedConfig> {
    Ok(FeedConfig::new(
        name,
        url.parse()?,
        CronSchedule::parse("*/15 * * * *")?,
    ))
}

/// Two feeds, `alpha` and `beta`; `count` articles alternating between them. Article `n`'s
/// body says `body word {n}`; the first has two images, one downloaded.
pub async fn seed(store: &Store, count: u32) -> anyhow::Result<Seeded> {
    let feeds = store
        .sync_feeds(&[
            feed("alpha", "https://alpha.example/feed.xml")?,
            feed("beta", "https://beta.example/feed.xml")?,
        ])
        .await?;
    let image_bytes = b"RIFF\x10\x00\x00\x00WEBPVP8 fake image".to_vec();
    let mut ids = Vec::new();
    for n in 0..count {
        let feed_id = feeds[(n % 2) as usize].id;
        let mut article = NewArticle {
            feed_id,
            guid: Some(format!("urn:test:{n}")),
            url: format!("https://news.example/articles/{n}"),
            canonical_url: None,
            title: format!("Headline number {n}"),
            author: Some("A. Writer".to_string()),
            summary: None,
            published_at: None,
            fetched_at: db_time(Utc::now()),
            language: Some("en".to_string()),
            extractor: "cuter".to_string(),
            confidence: 0.75,
            verdict: gleaner::store::Verdict::Article,
            quality: 0.75,
            text: format!("The opening of story {n}.\n\nIts body word is marker{n}."),
            html: format!("<p>The opening of story {n}.</p><p>Its body word is marker{n}.</p>"),
            raw_page: None,
            raw_content_type: None,
            images: Vec::new(),
            metadata: Default::default(),
            page_type: Default::default(),
            posts: Vec::new(),
            enclosures: Vec::new(),
            kind: gleaner::store::EntryKind::Article,
            tags: Vec::new(),
        };
        if n == 0 {
            article.text.push_str("\n\nA rare word: xylographer.");
            article.html.push_str(
                "<figure><img src=\"https://news.example/img/a.webp\" alt=\"a figure\">\
                 <figcaption>The figure</figcaption></figure>\
                 <p><img src=\"https://news.example/img/b.png\"></p>",
            );
            article.images = vec![
                NewImage {
                    url: "https://news.example/img/a.webp".to_string(),
                    alt: Some("a figure".to_string()),
                    caption: Some("The figure".to_string()),
                    width: Some(320),
                    height: Some(200),
                    content: Some(ImageContent {
                        mime: IMAGE_MIME.to_string(),
                        bytes: image_bytes.clone(),
                    }),
                },
                NewImage {
                    url: "https://news.example/img/b.png".to_string(),
                    alt: None,
                    caption: None,
                    width: None,
                    height: None,
                    content: None,
                },
            ];
        }
        ids.push(store.insert_article(&article).await?.id());
    }
    Ok(Seeded {
        ids,
        image_sha256: sha256_hex(&image_bytes),
        image_bytes,
    })
}

/// The words of [`seed_dense`]'s texts.
pub const DENSE_WORDS: [&str; 8] = [
    "amber", "basalt", "cobalt", "dune", "ember", "fjord", "garnet", "heath",
];

/// `count` articles in feed `alpha` whose texts repeat [`DENSE_WORDS`] about 150 times each:
/// the pages on which ranking and snippets cost the most per query term.
pub async fn seed_dense(store: &Store, count: u32) -> anyhow::Result<()> {
    let feeds = store
        .sync_feeds(&[feed("alpha", "https://alpha.example/feed.xml")?])
        .await?;
    for n in 0..count {
        store.insert_article(&dense_article(feeds[0].id, n)).await?;
    }
    Ok(())
}

/// An article of [`seed_dense`]: number `n` of feed `feed_id`.
pub fn dense_article(feed_id: i64, n: u32) -> NewArticle {
    let text: Vec<&str> = (0..1200)
        .map(|i| DENSE_WORDS[(i * 7 + n as usize) % DENSE_WORDS.len()])
        .collect();
    let text = text.join(" ");
    NewArticle {
        feed_id,
        guid: Some(format!("urn:dense:{n}")),
        url: format!("https://dense.example/articles/{n}"),
        canonical_url: None,
        title: format!("Dense {n}"),
        author: None,
        summary: None,
        published_at: None,
        fetched_at: db_time(Utc::now()),
        language: Some("en".to_string()),
        extractor: "cuter".to_string(),
        confidence: 0.5,
        verdict: gleaner::store::Verdict::Article,
        quality: 0.5,
        html: format!("<p>{text}</p>"),
        text,
        raw_page: None,
        raw_content_type: None,
        images: Vec::new(),
        metadata: Default::default(),
        page_type: Default::default(),
        posts: Vec::new(),
        enclosures: Vec::new(),
        kind: gleaner::store::EntryKind::Article,
        tags: Vec::new(),
    }
}
