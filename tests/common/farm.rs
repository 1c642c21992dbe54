//! A feed farm on 127.0.0.1 port 0: feeds, article pages and images, plus every kind of bad
//! answer, each path configurable per test, with a hit counter and the request headers per
//! path.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;

/// What a path answers.
#[derive(Clone, Debug)]
pub enum Route {
    /// 200 with a body; answers 304 to a matching `If-None-Match` when `etag` is set.
    Ok {
        content_type: String,
        body: Vec<u8>,
        etag: Option<String>,
    },
    /// Any status with extra headers.
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// 302 to another path (or absolute URL).
    Redirect(String),
    /// Waits this long before answering 200.
    Slow(Duration),
    /// Waits this long, then answers as the inner route does.
    Delayed(Duration, Box<Route>),
    /// 200 with a body that never ends.
    Endless,
    /// A body already gzip-compressed, served with `Content-Encoding: gzip`.
    Gzip { content_type: String, body: Vec<u8> },
    /// 503 to the first `failures` requests, then as the inner route does.
    Flaky { failures: usize, then: Box<Route> },
    /// `status` to the first `failures` requests, then as the inner route does.
    FailsFirst {
        status: u16,
        failures: usize,
        then: Box<Route>,
    },
    /// Fires the token when requested (a poll cut short at a known point), then answers as
    /// the inner route does.
    Cancels(tokio_util::sync::CancellationToken, Box<Route>),
}

#[derive(Default)]
struct State {
    routes: Mutex<HashMap<String, Route>>,
    hits: Mutex<HashMap<String, usize>>,
    /// The headers of every request, per path, in arrival order.
    headers: Mutex<HashMap<String, Vec<HeaderMap>>>,
    received: Mutex<HashMap<String, Vec<Received>>>,
}

/// One request as the farm received it (a webhook delivery, for one).
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A running farm; it stops with the test's runtime.
pub struct Farm {
    pub addr: SocketAddr,
    state: Arc<State>,
}

impl Farm {
    pub async fn start() -> anyhow::Result<Farm> {
        Farm::start_on("127.0.0.1").await
    }

    /// A farm on another loopback address (127.0.0.2, …): another host to the fetcher.
    pub async fn start_on(ip: &str) -> anyhow::Result<Farm> {
        let state = Arc::new(State::default());
        let listener = tokio::net::TcpListener::bind((ip, 0)).await?;
        let addr = listener.local_addr()?;
        let handler_state = state.clone();
        let app = axum::Router::new().fallback(
            move |uri: Uri, headers: HeaderMap, body: axum::body::Bytes| {
                let state = handler_state.clone();
                async move { answer(&state, &uri, &headers, body.to_vec()).await }
            },
        );
        tokio::spawn(async move { axum::serve(listener, app).await });
        Ok(Farm { addr, state })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn route(&self, path: &str, route: Route) {
        if let Ok(mut routes) = self.state.routes.lock() {
            routes.insert(path.to_string(), route);
        }
    }

    pub fn html(&self, path: &str, html: &str) {
        self.route(
            path,
            ok("text/html; charset=utf-8", html.as_bytes().to_vec()),
        );
    }

    /// Serves the RSS feed `/f{feed}.xml` of `articles` stories `/a/{id}.html`, where story `n`
    /// of the feed has id `feed * 100 + n`, each page answered by the route `page` makes of its
    /// HTML, with an image `/img/{id}.png` when `image`; returns the feed's URL.
    pub fn story_feed(
        &self,
        feed: usize,
        articles: usize,
        image: bool,
        page: impl Fn(String) -> Route,
    ) -> String {
        let items: Vec<Item> = (0..articles)
            .map(|n| {
                let id = feed * 100 + n;
                let image = image.then(|| format!("/img/{id}.png"));
                let html = article_page(&format!("Story {id}"), &paragraphs(id), image.as_deref());
                self.route(&story_path(id), page(html));
                if let Some(image) = &image {
                    self.route(image, ok("image/png", png()));
                }
                Item {
                    guid: format!("g{id}"),
                    url: self.url(&story_path(id)),
                    title: format!("Story {id}"),
                }
            })
            .collect();
        let path = format!("/f{feed}.xml");
        self.route(&path, ok("application/rss+xml", rss(&items).into()));
        self.url(&path)
    }

    /// Replaces the route of `path` by what `wrap` makes of it (a 404 when it had none).
    pub fn wrap(&self, path: &str, wrap: impl FnOnce(Route) -> Route) {
        if let Ok(mut routes) = self.state.routes.lock() {
            let old = routes.remove(path).unwrap_or(Route::Status {
                status: 404,
                headers: vec![],
                body: "not found".into(),
            });
            routes.insert(path.to_string(), wrap(old));
        }
    }

    /// The headers of every request to `path` so far, in arrival order.
    pub fn request_headers(&self, path: &str) -> Vec<HeaderMap> {
        self.state
            .headers
            .lock()
            .map(|h| h.get(path).cloned().unwrap_or_default())
            .unwrap_or_default()
    }

    /// Every request to `path` with a body, in order of arrival.
    pub fn received(&self, path: &str) -> Vec<Received> {
        self.state
            .received
            .lock()
            .map(|r| r.get(path).cloned().unwrap_or_default())
            .unwrap_or_default()
    }

    pub fn hits(&self, path: &str) -> usize {
        self.state
            .hits
            .lock()
            .map(|h| h.get(path).copied().unwrap_or(0))
            .unwrap_or(0)
    }
}

/// The path of story `id` served by [`Farm::story_feed`].
pub fn story_path(id: usize) -> String {
    format!("/a/{id}.html")
}

/// A page answered at once, as HTML.
pub fn html_route(html: String) -> Route {
    ok("text/html; charset=utf-8", html.into_bytes())
}

/// The same route, answering 304 to `If-None-Match: <etag>` (only an `Ok` route has one).
pub fn with_etag(route: Route, etag: &str) -> Route {
    match route {
        Route::Ok {
            content_type, body, ..
        } => Route::Ok {
            content_type,
            body,
            etag: Some(etag.to_string()),
        },
        other => other,
    }
}

pub fn ok(content_type: &str, body: Vec<u8>) -> Route {
    Route::Ok {
        content_type: content_type.to_string(),
        body,
        etag: None,
    }
}

async fn answer(state: &State, uri: &Uri, headers: &HeaderMap, body: Vec<u8>) -> Response {
    let path = uri.path().to_string();
    if !body.is_empty()
        && let Ok(mut received) = state.received.lock()
    {
        received.entry(path.clone()).or_default().push(Received {
            headers: headers.clone(),
            body,
        });
    }
    let hit = match state.hits.lock() {
        Ok(mut hits) => {
            let count = hits.entry(path.clone()).or_default();
            *count += 1;
            *count
        }
        Err(_) => 0,
    };
    if let Ok(mut seen) = state.headers.lock() {
        seen.entry(path.clone()).or_default().push(headers.clone());
    }
    let mut route = state.routes.lock().ok().and_then(|r| r.get(&path).cloned());
    loop {
        route = match route {
            Some(Route::Delayed(delay, inner)) => {
                tokio::time::sleep(delay).await;
                Some(*inner)
            }
            Some(Route::Flaky { failures, .. }) if hit <= failures => Some(Route::Status {
                status: 503,
                headers: vec![],
                body: "try again later".into(),
            }),
            Some(Route::Flaky { then, .. }) => Some(*then),
            Some(Route::FailsFirst {
                status, failures, ..
            }) if hit <= failures => Some(Route::Status {
                status,
                headers: vec![],
                body: "failing on purpose".into(),
            }),
            Some(Route::FailsFirst { then, .. }) => Some(*then),
            Some(Route::Cancels(token, inner)) => {
                token.cancel();
                Some(*inner)
            }
            other => break route = other,
        };
    }
    let builder = Response::builder();
    let response = match route {
        None => builder
            .status(StatusCode::NOT_FOUND)
            .body(Body::from("not found")),
        Some(Route::Ok {
            content_type,
            body,
            etag,
        }) => {
            let matches = etag.as_ref().is_some_and(|tag| {
                headers
                    .get(header::IF_NONE_MATCH)
                    .and_then(|v| v.to_str().ok())
                    == Some(tag)
            });
            let mut builder = builder.header(header::CONTENT_TYPE, content_type);
            if let Some(tag) = &etag {
                builder = builder.header(header::ETAG, tag.as_str());
            }
            if matches {
                builder.status(StatusCode::NOT_MODIFIED).body(Body::empty())
            } else {
                builder.status(StatusCode::OK).body(Body::from(body))
            }
        }
        Some(Route::Status {
            status,
            headers,
            body,
        }) => {
            let mut builder = builder.status(status);
            for (name, value) in headers {
                builder = builder.header(name, value);
            }
            builder.body(Body::from(body))
        }
        Some(Route::Redirect(to)) => builder
            .status(StatusCode::FOUND)
            .header(
                header::LOCATION,
                HeaderValue::from_str(&to).unwrap_or(HeaderValue::from_static("/")),
            )
            .body(Body::empty()),
        // Unwrapped above.
        Some(
            Route::Delayed(..)
            | Route::Flaky { .. }
            | Route::FailsFirst { .. }
            | Route::Cancels(..),
        ) => builder
            .status(StatusCode::INTERNAL_SERVER_ERROR)
            .body(Body::from("delayed route")),
        Some(Route::Slow(delay)) => {
            tokio::time::sleep(delay).await;
            builder.status(StatusCode::OK).body(Body::from("late"))
        }
        Some(Route::Endless) => {
            let chunk = bytes_chunk();
            let stream =
                futures::stream::repeat_with(move || Ok::<_, std::io::Error>(chunk.clone()));
            builder
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, "text/html")
                .body(Body::from_stream(stream))
        }
        Some(Route::Gzip { content_type, body }) => builder
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, content_type)
            .header(header::CONTENT_ENCODING, "gzip")
            .body(Body::from(body)),
    };
    response.unwrap_or_else(|_| Response::new(Body::from("bad test route")))
}

fn bytes_chunk() -> axum::body::Bytes {
    axum::body::Bytes::from("<p>more and more and more text</p>\n".repeat(2000))
}

/// A realistic article page: navigation, headline, body paragraphs, a figure, comments, footer.
pub fn article_page(title: &str, paragraphs: &[String], image: Option<&str>) -> String {
    let nav: String = (1..=8)
        .map(|n| format!("<li><a href=\"/section/{n}\">Section {n}</a></li>"))
        .collect();
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    let figure = image
        .map(|src| {
            format!(
                "<figure><img src=\"{src}\" alt=\"A photo\" width=\"800\" height=\"600\">\
                 <figcaption>The caption</figcaption></figure>"
            )
        })
        .unwrap_or_default();
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{title} | Example News</title></head>\
         <body><header><nav><ul>{nav}</ul></nav></header>\
         <main><article><h1>{title}</h1><p class=\"byline\">By A. Writer</p>{figure}{body}</article></main>\
         <aside><h3>Most read</h3><ul><li><a href=\"/x\">Another story</a></li><li><a href=\"/y\">And another</a></li></ul></aside>\
         <footer><p>© Example News. <a href=\"/about\">About</a> <a href=\"/privacy\">Privacy</a></p></footer>\
         </body></html>"
    )
}

/// Paragraphs of distinct, article-like text for article `n`.
pub fn paragraphs(n: usize) -> Vec<String> {
    (0..5)
        .map(|p| {
            format!(
                "Paragraph {p} of story {n}: the council met on Tuesday to discuss the budget for \
                 the coming year, and members spoke at length about roads, schools and the new \
                 library that residents have asked for since the old one closed in the spring."
            )
        })
        .collect()
}

/// One feed item.
pub struct Item {
    pub guid: String,
    pub url: String,
    pub title: String,
}

pub fn rss(items: &[Item]) -> String {
    let body: String = items
        .iter()
        .map(|i| {
            format!(
                "<item><title>{}</title><link>{}</link><guid isPermaLink=\"false\">{}</guid>\
                 <pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>",
                i.title, i.url, i.guid
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Farm RSS</title>\
         <link>http://farm.example/</link>{body}</channel></rss>"
    )
}

pub fn atom(items: &[Item]) -> String {
    let body: String = items
        .iter()
        .map(|i| {
            format!(
                "<entry><title>{}</title><id>{}</id><link rel=\"alternate\" href=\"{}\"/>\
                 <updated>2026-11-02T10:00:00Z</updated></entry>",
                i.title, i.guid, i.url
            )
        })
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">\
         <title>Farm Atom</title><id>urn:farm</id><updated>2026-11-02T10:00:00Z</updated>{body}</feed>"
    )
}

pub fn json_feed(items: &[Item]) -> String {
    let items: Vec<serde_json::Value> = items
        .iter()
        .map(|i| serde_json::json!({"id": i.guid, "url": i.url, "title": i.title}))
        .collect();
    serde_json::json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Farm JSON",
        "items": items,
    })
    .to_string()
}

/// A 1×1 PNG.
pub fn png() -> Vec<u8> {
    vec![
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0,
        0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 13, 0x49, 0x44, 0x41,
        0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0, 0x05, 0, 0x01, 0xff, 0x89, 0x99,
        0x3d, 0x1d, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ]
}
