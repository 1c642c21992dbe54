//! The web view in a real browser: the `gleaner` binary serves a store filled from a local
//! farm (one feed's titles carry `<script>` and `onerror` payloads), and headless Chromium,
//! driven through ChromeDriver's WebDriver protocol (plain HTTP), signs in, reads the list, a
//! search, an article, the feeds page and the failures page (in a 1280 px window, its table no wider
//! than it), and runs none of the payloads. The browser reaches
//! nothing but loopback: every other host is unresolvable. Skipped, saying so, when Debian's
//! `chromium` and `chromium-driver` are not installed (CI installs them).

use crate::common;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use common::farm::{self, Farm, Item};
use common::{TestConfig, TestDb, gleaner_in};
use serde_json::{Value, json};

const TOKEN: &str = "browser-token-7";
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The WebDriver name of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A child process killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port free on the loopback a moment ago.
fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// Waits until `url` answers at all.
async fn wait_for(client: &reqwest::Client, url: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if client.get(url).send().await.is_ok() {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    anyhow::bail!("{url} never answered")
}

/// Sends `body` as JSON; the answer's JSON.
async fn send_json(request: reqwest::RequestBuilder, body: &Value) -> anyhow::Result<Value> {
    let answer = request
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(serde_json::to_vec(body)?)
        .send()
        .await?;
    Ok(serde_json::from_slice(&answer.bytes().await?)?)
}

/// One WebDriver session over ChromeDriver.
struct Browser {
    client: reqwest::Client,
    session: String,
}

impl Browser {
    async fn start(client: &reqwest::Client, driver: &str, profile: &Path) -> anyhow::Result<Self> {
        let args = [
            "--headless=new".to_string(),
            "--no-sandbox".to_string(),
            "--disable-gpu".to_string(),
            "--disable-dev-shm-usage".to_string(),
            "--no-first-run".to_string(),
            // Nothing but the loopback can be reached from the browser.
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1".to_string(),
            format!("--user-data-dir={}", profile.display()),
        ];
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
        }}});
        let answer = send_json(client.post(format!("{driver}/session")), &capabilities).await?;
        let id = answer["value"]["sessionId"].as_str().context("a session")?;
        Ok(Browser {
            client: client.clone(),
            session: format!("{driver}/session/{id}"),
        })
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Value,
    ) -> anyhow::Result<Value> {
        let request = self
            .client
            .request(method, format!("{}{path}", self.session));
        let answer = send_json(request, &body).await?;
        Ok(answer["value"].clone())
    }

    async fn go(&self, url: &str) -> anyhow::Result<()> {
        self.call(reqwest::Method::POST, "/url", json!({ "url": url }))
            .await?;
        Ok(())
    }

    async fn source(&self) -> anyhow::Result<String> {
        let value = self
            .call(reqwest::Method::GET, "/source", json!({}))
            .await?;
        Ok(value.as_str().context("page source")?.to_string())
    }

    async fn url(&self) -> anyhow::Result<String> {
        let value = self.call(reqwest::Method::GET, "/url", json!({})).await?;
        Ok(value.as_str().context("current url")?.to_string())
    }

    async fn element(&self, css: &str) -> anyhow::Result<String> {
        let body = json!({"using": "css selector", "value": css});
        let value = self.call(reqwest::Method::POST, "/element", body).await?;
        Ok(value[ELEMENT]
            .as_str()
            .with_context(|| format!("{css}: {value}"))?
            .to_string())
    }

    async fn type_into(&self, css: &str, text: &str) -> anyhow::Result<()> {
        let element = self.element(css).await?;
        let path = format!("/element/{element}/value");
        self.call(reqwest::Method::POST, &path, json!({ "text": text }))
            .await?;
        Ok(())
    }

    async fn click(&self, css: &str) -> anyhow::Result<()> {
        let element = self.element(css).await?;
        let path = format!("/element/{element}/click");
        self.call(reqwest::Method::POST, &path, json!({})).await?;
        Ok(())
    }

    /// The current URL once `reached` accepts it, or the last one seen after 10 s: a click
    /// may return before the browser has loaded the page it leads to (a form's answer
    /// redirects).
    async fn url_once(&self, reached: impl Fn(&str) -> bool) -> anyhow::Result<String> {
        let mut url = self.url().await?;
        for _ in 0..100 {
            if reached(&url) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            url = self.url().await?;
        }
        Ok(url)
    }

    /// What a script finds in the page (run by the driver, whatever the page's policy).
    async fn evaluate(&self, script: &str) -> anyhow::Result<Value> {
        let body = json!({"script": script, "args": []});
        self.call(reqwest::Method::POST, "/execute/sync", body)
            .await
    }

    /// Whether a payload ran: an alert open, or the marker a payload would set.
    async fn payload_ran(&self) -> anyhow::Result<bool> {
        let alert = self
            .call(reqwest::Method::GET, "/alert/text", json!({}))
            .await?;
        let alert_open = alert.get("error").is_none();
        let marked = self
            .evaluate("return window.__pwned === undefined ? null : 1")
            .await?;
        Ok(alert_open || !marked.is_null())
    }

    async fn quit(self) -> anyhow::Result<()> {
        self.client.delete(&self.session).send().await?;
        Ok(())
    }
}

/// The path of a story the farm does not serve: one long word of letters and digits, as a
/// signed address is, so that its failure's message and address hold no place to break a
/// line (a browser breaks at hyphens).
fn unserved_story_path() -> String {
    format!("/stories/{}.html", "3f9a0c77e1b2d4a8".repeat(24))
}

/// The path of a feed the farm does not serve, one long word as [`unserved_story_path`].
fn unserved_feed_path() -> String {
    format!("/wires/{}.xml", "ferrytimetables2026q4".repeat(16))
}

/// A feed of three stories on the farm, the second and third titled with payloads, and a
/// fourth the farm answers 404 (a failure with a long address).
fn hostile_feed(farm: &Farm) -> String {
    let titles = [
        "Harbour bridge reopens after repairs".to_string(),
        "<script>window.__pwned=1;alert(1)</script>Council vote".to_string(),
        "<img src=x onerror=\"window.__pwned=2;alert(2)\">Library hours".to_string(),
    ];
    let mut items: Vec<Item> = titles
        .iter()
        .enumerate()
        .map(|(n, title)| {
            let path = format!("/stories/{n}.html");
            let html = farm::article_page(&format!("Story {n}"), &farm::paragraphs(n + 500), None);
            farm.html(&path, &html);
            Item {
                guid: format!("story-{n}"),
                url: farm.url(&path),
                title: xml_escaped(title),
            }
        })
        .collect();
    items.push(Item {
        guid: "story-unserved".to_string(),
        url: farm.url(&unserved_story_path()),
        title: "Ferry timetable".to_string(),
    });
    farm.route(
        "/feed.xml",
        farm::ok("application/rss+xml", farm::rss(&items).into()),
    );
    farm.url("/feed.xml")
}

fn xml_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_signs_in_reads_searches_and_runs_no_payload() -> anyhow::Result<()> {
    if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the browser test ({CHROMIUM} or {CHROMEDRIVER} is not installed)"
        );
        return Ok(());
    }
    let db = TestDb::sqlite().await?;
    let farm = Farm::start().await?;
    let feed = hostile_feed(&farm);
    let port = free_port()?;
    let dir = tempfile::tempdir()?;
    let config = TestConfig::new(&db)
        .loopback_farm()
        .set("api", "listen", format!("127.0.0.1:{port}"))
        .set("api", "token", TOKEN)
        .feed("harbour-news", feed.clone())
        .write(dir.path())?;
    let polled = gleaner_in(dir.path())
        .args([
            "--config",
            &config.to_string_lossy(),
            "poll",
            "--once",
            "--all",
        ])
        .output()?;
    anyhow::ensure!(
        polled.status.success(),
        "{}",
        String::from_utf8_lossy(&polled.stderr)
    );
    // A second feed the farm answers 404 at a long address: a failure whose message holds
    // the address (one long word) and makes the poll exit 1.
    let config = TestConfig::new(&db)
        .loopback_farm()
        .set("api", "listen", format!("127.0.0.1:{port}"))
        .set("api", "token", TOKEN)
        .feed("harbour-news", feed)
        .feed("gone-wire", farm.url(&unserved_feed_path()))
        .write(dir.path())?;
    let failed = gleaner_in(dir.path())
        .args(["--config", &config.to_string_lossy(), "poll", "--all"])
        .output()?;
    anyhow::ensure!(
        !failed.status.success(),
        "{}",
        String::from_utf8_lossy(&failed.stderr)
    );
    let _server = Running(
        gleaner_in(dir.path())
            .args(["--config", &config.to_string_lossy(), "run"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::builder().no_proxy().build()?;
    wait_for(&client, &format!("{base}/healthz")).await?;

    let driver_port = free_port()?;
    let _driver = Running(
        std::process::Command::new(CHROMEDRIVER)
            .arg(format!("--port={driver_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    let driver = format!("http://127.0.0.1:{driver_port}");
    wait_for(&client, &format!("{driver}/status")).await?;
    let profile = tempfile::tempdir()?;
    let browser = Browser::start(&client, &driver, profile.path()).await?;
    let result = browse(&browser, &base).await;
    browser.quit().await?;
    result
}

async fn browse(browser: &Browser, base: &str) -> anyhow::Result<()> {
    // Signed out: the overview sends to the sign-in form and shows nothing stored.
    browser.go(&format!("{base}/ui/")).await?;
    anyhow::ensure!(
        browser.url().await?.ends_with("/ui/login"),
        "{}",
        browser.url().await?
    );
    anyhow::ensure!(!browser.source().await?.contains("Harbour bridge"));
    browser.type_into("#token", TOKEN).await?;
    browser.click("button[type=submit]").await?;
    let signed_in = browser.url_once(|url| url.ends_with("/ui/")).await?;
    anyhow::ensure!(
        signed_in.ends_with("/ui/"),
        "{signed_in}: {}",
        browser.source().await?
    );
    let overview = browser.source().await?;
    for text in [
        "Harbour bridge reopens after repairs",
        "Council vote",
        "Library hours",
    ] {
        anyhow::ensure!(
            overview.contains(text),
            "the overview lacks {text:?}:\n{overview}"
        );
    }
    anyhow::ensure!(
        !browser.payload_ran().await?,
        "a payload ran on the overview"
    );
    let scripts = browser.evaluate("return document.scripts.length").await?;
    anyhow::ensure!(scripts == json!(0), "scripts in the page: {scripts}");

    browser.go(&format!("{base}/ui/articles")).await?;
    anyhow::ensure!(!browser.payload_ran().await?, "a payload ran on the list");
    browser.go(&format!("{base}/ui/articles?q=library")).await?;
    let hits = browser
        .evaluate("return document.querySelectorAll('ul.hits li').length")
        .await?;
    anyhow::ensure!(hits.as_i64().unwrap_or(0) >= 1, "no search hit: {hits}");
    let marked = browser
        .evaluate("return document.querySelectorAll('mark').length")
        .await?;
    anyhow::ensure!(
        marked.as_i64().unwrap_or(0) >= 1,
        "no marked word: {marked}"
    );

    browser.click("ul.hits a.title").await?;
    browser
        .url_once(|url| url.contains("/ui/articles/"))
        .await?;
    let article = browser.source().await?;
    anyhow::ensure!(article.contains("the council met on Tuesday"), "{article}");
    anyhow::ensure!(browser.url().await?.contains("/ui/articles/"));
    anyhow::ensure!(
        !browser.payload_ran().await?,
        "a payload ran on the article"
    );

    browser.go(&format!("{base}/ui/feeds")).await?;
    let feeds = browser.source().await?;
    anyhow::ensure!(
        feeds.contains("harbour-news") && feeds.contains("gone-wire"),
        "{feeds}"
    );
    let rows = browser
        .evaluate("return document.querySelectorAll('tbody tr').length")
        .await?;
    anyhow::ensure!(rows == json!(2), "feed rows: {rows}");

    // The failures page fits a 1280 px window: a long address wraps in its cell.
    browser
        .call(
            reqwest::Method::POST,
            "/window/rect",
            json!({"width": 1280, "height": 900}),
        )
        .await?;
    browser.go(&format!("{base}/ui/failures")).await?;
    let failures = browser.source().await?;
    for path in [unserved_story_path(), unserved_feed_path()] {
        anyhow::ensure!(
            failures.contains(&path),
            "{path} is not among the failures:\n{failures}"
        );
    }
    // Neither the page nor the table's own scrolling box is wider than what shows.
    let widths = browser
        .evaluate(
            "const box = document.querySelector('div.table'); \
             return [document.documentElement.scrollWidth, window.innerWidth, \
                     box.scrollWidth, box.clientWidth]",
        )
        .await?;
    let width = |n: usize| widths[n].as_i64().unwrap_or(i64::MAX);
    anyhow::ensure!(
        width(1) >= 1200 && width(0) <= width(1) && width(2) <= width(3),
        "the failures page is wider than its window \
         (page, window, table, its box): {widths}"
    );

    // Signed out again, the pages refuse.
    browser.click("form.logout button").await?;
    let signed_out = browser.url_once(|url| url.ends_with("/ui/login")).await?;
    anyhow::ensure!(signed_out.ends_with("/ui/login"), "{signed_out}");
    browser.go(&format!("{base}/ui/feeds")).await?;
    anyhow::ensure!(browser.url().await?.ends_with("/ui/login"));
    Ok(())
}
