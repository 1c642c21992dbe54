//! The URL `feeds add` is given, checked: a feed is taken as it is; an HTML page's announced
//! feeds (`feed::discover`) are offered, one taken, or the choice left to the user; a page
//! that announces none has the site's usual feed paths tried, the first feed found taken.

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use url::Url;

use super::Discovery;
use crate::cli::CliError;
use crate::config::Config;
use crate::feed::discover::{FeedLink, USUAL_FEED_PATHS, feed_links, usual_feed_urls};
use crate::fetch::{FetchOutcome, FetchRequest, Fetched, Fetcher, ResourceKind};

/// The feed `feeds add` found, with its own title when it gives one (for its default name).
pub(super) struct Found {
    pub url: Url,
    pub title: Option<String>,
}

/// The title of `page` when it is a feed (`None` inside when the feed has no title); `None`
/// when it is not a feed.
fn feed_title(page: &Fetched) -> Option<Option<String>> {
    let parsed = crate::feed::parse_feed(&page.bytes, page.charset(), &page.final_url).ok()?;
    Some(parsed.title.filter(|title| !title.trim().is_empty()))
}

/// The feed to add for `url`: itself when it is a feed, else the feed its page announces.
/// Nothing is written on any error.
pub(super) fn feed_url(config: &Config, url: Url, discovery: Discovery) -> Result<Found, CliError> {
    let page = fetch(config, &url)?;
    if let Some(title) = feed_title(&page) {
        return Ok(Found { url, title });
    }
    let links = feed_links(&page.bytes, page.charset(), &page.final_url);
    let chosen = match (links.len(), discovery) {
        (0, _) => {
            if let Some(found) = usual_feed(config, &page.final_url) {
                eprintln!(
                    "{url} is a page that announces no feed; {} is a feed",
                    found.url
                );
                return Ok(found);
            }
            let message = format!(
                "neither a feed nor a page that announces one (<link rel=\"alternate\">), and \
                 none of {} on its site is a feed; nothing written",
                USUAL_FEED_PATHS.join(", ")
            );
            return Err(runtime(&url, &message));
        }
        (1, _) | (_, Discovery::First) => links[0].clone(),
        _ if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() => {
            pick(&url, &links)?
        }
        _ => {
            let message = format!(
                "the page announces {} feeds; nothing written. Add one of them, or pass \
                 --first to take the first:\n{}",
                links.len(),
                numbered(&links)
            );
            return Err(runtime(&url, &message));
        }
    };
    eprintln!("{url} is a page; its feed is {}", chosen.url);
    // The feed's own title names it; the link's, when the feed cannot be read now.
    let title = fetch(config, &chosen.url)
        .ok()
        .and_then(|feed| feed_title(&feed))
        .flatten()
        .or(chosen.title);
    Ok(Found {
        url: chosen.url,
        title,
    })
}

fn runtime(url: &Url, message: &str) -> CliError {
    CliError::Runtime {
        context: format!("feeds add {url}"),
        source: message.to_string().into(),
    }
}

/// The first of the site's usual feed URLs that answers with a feed: at most
/// [`USUAL_FEED_PATHS`]' few requests, one after the other. A failed request is no answer.
fn usual_feed(config: &Config, page_url: &Url) -> Option<Found> {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()?;
    tokio.block_on(async {
        let fetcher = Fetcher::new(&config.fetch).ok()?;
        for candidate in usual_feed_urls(page_url) {
            let request = FetchRequest::new(candidate.clone(), ResourceKind::Feed);
            let Ok(FetchOutcome::Fetched(page)) = fetcher.fetch(&request).await else {
                continue;
            };
            if let Some(title) = feed_title(&page) {
                return Some(Found {
                    url: candidate,
                    title,
                });
            }
        }
        None
    })
}

/// Downloads `url` as a feed would be, through the configured fetcher.
fn fetch(config: &Config, url: &Url) -> Result<Fetched, CliError> {
    let runtime_error = |detail: String| runtime(url, &detail);
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| runtime_error(format!("starting the async runtime: {e}")))?;
    tokio.block_on(async {
        let fetcher = Fetcher::new(&config.fetch).map_err(|e| runtime_error(e.to_string()))?;
        match fetcher
            .fetch(&FetchRequest::new(url.clone(), ResourceKind::Feed))
            .await
        {
            Ok(FetchOutcome::Fetched(page)) => Ok(page),
            Ok(FetchOutcome::NotModified) => Err(runtime_error(
                "the server answered 304 to an unconditional request; nothing written".into(),
            )),
            Err(error) => Err(runtime_error(format!(
                "{error}; nothing written (--no-discover adds a URL without fetching it)"
            ))),
        }
    })
}

/// `  1. URL (title)` per feed.
fn numbered(links: &[FeedLink]) -> String {
    links
        .iter()
        .enumerate()
        .map(|(n, link)| match &link.title {
            Some(title) => format!("  {}. {} ({title})", n + 1, link.url),
            None => format!("  {}. {}", n + 1, link.url),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asks on the terminal which feed to add.
fn pick(url: &Url, links: &[FeedLink]) -> Result<FeedLink, CliError> {
    let mut stderr = std::io::stderr();
    let _ = writeln!(
        stderr,
        "{url} announces {} feeds:\n{}",
        links.len(),
        numbered(links)
    );
    loop {
        let _ = write!(stderr, "add which one? [1-{}] ", links.len());
        let _ = stderr.flush();
        let mut answer = String::new();
        let read = std::io::stdin().lock().read_line(&mut answer);
        if matches!(read, Ok(0) | Err(_)) {
            return Err(runtime(url, "no feed chosen; nothing written"));
        }
        let choice = answer.trim().parse::<usize>().ok();
        if let Some(link) = choice
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| links.get(i))
        {
            return Ok(link.clone());
        }
    }
}
