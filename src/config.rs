//! Loading and validating `config.toml` (every key is documented in the README and in the
//! repository's `config.toml`).
//!
//! Owns [`Config`], the typed, validated configuration that every other stage receives. It is
//! loaded once: the raw TOML is deserialized section by section with unknown keys refused
//! (`read.rs`), then every value that can be wrong (cron expressions, URLs, names, the
//! algorithm, the API address) is checked up front, each section on its own, and every
//! error is reported, each naming the file, line, column and key at fault. Environment overrides:
//! `GLEANER_CONFIG` (which file) and `GLEANER_DATABASE_URL` (replaces `[database].url`).
//!
//! Over 600 lines, kept whole: each raw (serde) section sits beside the validation that turns it
//! into its typed one; the list sections (`[[feeds]]`, `[[sites]]`, `[[webhooks]]`) have files of
//! their own.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;
use url::Url;

use crate::extract::Algorithm;
use crate::extract::page_type::PageType;
use crate::filter::Filters;
use crate::schedule::CronSchedule;

mod feed;
pub use feed::{
    BasicAuth, ContentSource, FeedRequest, FiltersConfig, Secret, check_feed_name, is_bidi_control,
};
mod outputs;
mod read;
mod sites;
mod webhooks;
pub use outputs::{
    DEFAULT_OUTPUT_ITEMS, MAX_OUTPUT_ITEMS, MIN_OUTPUT_KEY_CHARS, OutputConfig, SummarySource,
};
pub use sites::{SitePageType, SiteRulesConfig};
pub use webhooks::{MAX_WEBHOOK_WAIT_SECONDS, WebhookConfig};

/// The environment variable that names the configuration file when `--config` is absent.
pub const CONFIG_ENV: &str = "GLEANER_CONFIG";
/// The environment variable that replaces `[database].url`.
pub const DATABASE_URL_ENV: &str = "GLEANER_DATABASE_URL";
/// The file used when neither `--config` nor `GLEANER_CONFIG` names one.
pub const DEFAULT_CONFIG_FILE: &str = "config.toml";
/// The shortest feed lease: renewals every third of it must stay well apart.
pub const MIN_FEED_LEASE_SECONDS: u64 = 2;
/// Upper bounds of the numeric keys: far above any sensible setting, low enough that no
/// duration, permit count or multiplication built from them can overflow or panic.
const MAX_SECONDS: u64 = 7 * 24 * 3600;
const MAX_JITTER_SECONDS: u64 = 24 * 3600;
const MAX_BYTES: u64 = 1 << 30;
const MAX_CONCURRENCY: u64 = 1024;
const MAX_PER_HOST_DELAY_MS: u64 = 3_600_000;
const MAX_ARTICLE_RETRIES: u64 = 100;
const MAX_ENTRIES_PER_FEED: u64 = 100_000;
const MAX_IMAGES_PER_ARTICLE: u64 = 10_000;
const MAX_USER_AGENT_CHARS: usize = 512;

/// The validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file this was loaded from.
    pub path: PathBuf,
    pub database: DatabaseConfig,
    pub schedule: ScheduleConfig,
    pub fetch: FetchConfig,
    pub entries: EntriesConfig,
    pub extract: ExtractConfig,
    pub images: ImagesConfig,
    /// `None` when the file has no `[api]` table: no HTTP server.
    pub api: Option<ApiConfig>,
    pub daemon: DaemonConfig,
    /// `None` when the file has no `[retention]` table: nothing is ever pruned.
    pub retention: Option<RetentionConfig>,
    /// `[filters]`: the lists of every feed without its own.
    pub filters: FiltersConfig,
    pub feeds: Vec<FeedConfig>,
    /// `[[webhooks]]`: where new articles are posted.
    pub webhooks: Vec<WebhookConfig>,
    /// `[[outputs]]`: the full-text feeds served (also in `api.outputs`, which serves them).
    pub outputs: Vec<OutputConfig>,
    /// `[[sites]]`: per-site extraction rules.
    pub sites: SiteRulesConfig,
    /// The file says `feeds = []`: no feeds, on purpose. Only then may a file without feeds
    /// replace a feed list (`gleaner run`, `poll --once`, a reload); a file that lost its
    /// feeds by accident (emptied, cut short) is refused.
    pub no_feeds_meant: bool,
}

/// `[retention]`: what the service prunes, every hour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetentionConfig {
    /// Articles fetched longer ago than this are pruned.
    pub older_than: std::time::Duration,
    /// Only their raw pages are dropped (no more `reextract` for them); the articles stay.
    pub raw_only: bool,
}

pub use crate::format::parse_age;

/// Where articles are stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseTarget {
    /// An SQLite file (created when missing); relative paths are resolved against the
    /// directory of the configuration file.
    Sqlite { path: PathBuf },
    /// A PostgreSQL connection URL.
    Postgres { url: String },
}

impl DatabaseTarget {
    /// Parses a `sqlite://`, `sqlite:` or `postgres(ql)://` URL; `base_dir` anchors relative
    /// SQLite paths.
    pub fn parse(url: &str, base_dir: &Path) -> Result<Self, String> {
        let url = url.trim();
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Url::parse(url).map_err(|e| format!("invalid PostgreSQL URL: {e}"))?;
            return Ok(DatabaseTarget::Postgres {
                url: url.to_string(),
            });
        }
        let Some(rest) = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
        else {
            return Err(format!(
                "unsupported database URL `{}`: use sqlite://PATH or postgres://USER@HOST/DB",
                redact_url(url)
            ));
        };
        let file = rest.split('?').next().unwrap_or_default();
        if file.is_empty() || file == ":memory:" {
            return Err(
                "the SQLite database must be a file path (sqlite://gleaner.db)".to_string(),
            );
        }
        let path = Path::new(file);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            base_dir.join(path)
        };
        Ok(DatabaseTarget::Sqlite { path })
    }

    /// A description safe for logs: no password.
    pub fn display_redacted(&self) -> String {
        match self {
            DatabaseTarget::Sqlite { path } => format!("sqlite://{}", path.display()),
            DatabaseTarget::Postgres { url } => redact_url(url),
        }
    }
}

/// Replaces the password of a URL with `***`, so that it can be logged.
pub fn redact_url(url: &str) -> String {
    match Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            // Setting a password only fails for URLs that cannot have one.
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        Ok(parsed) => parsed.to_string(),
        Err(_) => "<unparseable URL>".to_string(),
    }
}

#[derive(Debug, Clone)]
pub struct DatabaseConfig {
    pub target: DatabaseTarget,
}

#[derive(Debug, Clone)]
pub struct ScheduleConfig {
    pub default: CronSchedule,
    pub jitter_seconds: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchConfig {
    pub user_agent: String,
    pub timeout_seconds: u64,
    pub max_feed_bytes: u64,
    pub max_page_bytes: u64,
    pub max_image_bytes: u64,
    pub concurrency: usize,
    pub per_host_concurrency: usize,
    pub per_host_delay_ms: u64,
    pub allow_private_networks: bool,
    pub respect_robots_txt: bool,
}

/// How a poll treats the entries of a feed document (keys of `[fetch]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntriesConfig {
    /// `article_retry_seconds`: the wait before an entry that failed is tried again; it
    /// doubles with every further failure.
    pub retry_after: std::time::Duration,
    /// `article_retries`: how many times a failed entry is tried again before it is given up.
    pub retries: u32,
    /// `max_entries_per_feed`: entries taken from one document per poll, newest first.
    pub max_per_feed: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractConfig {
    pub algorithm: Algorithm,
    /// `timeout_seconds`: how long one page's extraction may run before the page is recorded
    /// as a failure and its entry given up.
    pub timeout: std::time::Duration,
    /// `site_templates`: learn each site's template from its stored pages and remove it
    /// from the next ones (`extract::template`).
    pub site_templates: bool,
    /// `max_text_bytes`: the most text, and the most HTML, stored per article; past it
    /// both are cut at a paragraph (`pipeline::page`). 1 MiB: a book chapter is a tenth of it.
    pub max_text_bytes: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImagesConfig {
    pub download: bool,
    /// Images kept per article; the rest are dropped (a gallery page must not fill the disk).
    pub max_per_article: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ApiConfig {
    pub listen: SocketAddr,
    /// `None` when empty: no authentication.
    pub token: Option<String>,
    /// `max_connections`: connections served at once; the next ones wait in the listen queue.
    /// Bounds the file descriptors idle or slow clients can take.
    pub max_connections: usize,
    /// Not in the file: the defaults are documented in docs/api.md; tests shorten them.
    pub timeouts: ApiTimeouts,
    /// `public_url`: the address readers reach the API at (behind a proxy, say), the base of
    /// the absolute links in outputs; `None`: the request's `Host`.
    pub public_url: Option<Url>,
    /// The file's `[[outputs]]`, served at `/outputs/{name}.atom` and `.json`.
    pub outputs: Vec<OutputConfig>,
}

impl ApiConfig {
    /// The API on `listen` with the default limits.
    pub fn new(listen: SocketAddr, token: Option<String>) -> ApiConfig {
        ApiConfig {
            listen,
            token,
            max_connections: DEFAULT_API_CONNECTIONS,
            timeouts: ApiTimeouts::default(),
            public_url: None,
            outputs: Vec::new(),
        }
    }
}

/// `[api] max_connections` when absent, and at most.
pub const DEFAULT_API_CONNECTIONS: usize = 1024;
pub const MAX_API_CONNECTIONS: usize = 65_536;

/// How long the API waits on a client or on itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiTimeouts {
    /// For a request head (line and headers) after the connection opens or the previous
    /// answer; also how long a connection may pass without a byte in either direction.
    pub header: std::time::Duration,
    /// For a request body, from when the head arrived.
    pub body: std::time::Duration,
    /// For a whole request, from its head to its answer's head (body included).
    pub request: std::time::Duration,
}

impl Default for ApiTimeouts {
    fn default() -> Self {
        ApiTimeouts {
            header: std::time::Duration::from_secs(10),
            body: std::time::Duration::from_secs(10),
            request: std::time::Duration::from_secs(30),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaemonConfig {
    /// How long `run` waits for in-flight work after SIGTERM/SIGINT.
    pub shutdown_grace_seconds: u64,
    /// How long a replica's claim on a feed lasts without renewal. A running poll renews it
    /// every third of this; a replica that dies holds its feeds at most this long.
    pub feed_lease_seconds: u64,
}

/// One `[[feeds]]` entry.
#[derive(Debug, Clone)]
pub struct FeedConfig {
    pub name: String,
    pub url: Url,
    /// The feed's own schedule, else `[schedule].default`.
    pub schedule: CronSchedule,
    /// `enabled = false`: the feed is not polled; its row and articles stay.
    pub enabled: bool,
    /// `algorithm`: this feed's articles are extracted with it instead of `[extract]`'s.
    pub algorithm: Option<Algorithm>,
    /// `page_type`: what kind of page this feed's entries link to (`forum`, …), instead of
    /// what the detector says; a `[[sites]]` entry's `page_type` wins for its pages.
    pub page_type: Option<PageType>,
    /// `images`: whether this feed's images are downloaded, instead of `[images] download`.
    pub images: Option<bool>,
    /// What this feed's requests carry besides `[fetch]`'s.
    pub request: FeedRequest,
    /// `keep` / `block`: the feed's own lists, else `[filters]`'s.
    pub filters: Filters,
    /// `trusted = true`: the feed's articles represent their near-duplicate clusters, and
    /// its fields are the article's own wherever it lists one.
    pub trusted: bool,
    /// `content`: where the feed's articles come from (the page, the entry's own text, or
    /// either by the rule of `auto`).
    pub content: ContentSource,
    /// `tags`: given to each of the feed's articles besides its entry's own, normalized
    /// (`feed::tags::normalize`).
    pub tags: Vec<String>,
}

impl FeedConfig {
    /// A feed with no controls of its own: enabled, the global algorithm, images, filters.
    pub fn new(name: &str, url: Url, schedule: CronSchedule) -> FeedConfig {
        FeedConfig {
            name: name.to_string(),
            url,
            schedule,
            enabled: true,
            algorithm: None,
            page_type: None,
            images: None,
            request: FeedRequest::default(),
            filters: Filters::default(),
            trusted: false,
            content: ContentSource::Auto,
            tags: Vec::new(),
        }
    }
}

/// A configuration that cannot be used. `Display` is one line naming file, line and key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "{path}: cannot read the configuration: {source} (name one with --config PATH or GLEANER_CONFIG)"
    )]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// No file at the path: the message says how to write one.
    #[error(
        "{path}: cannot read the configuration: no such file; `{init}` writes one to start from (or name another with --config PATH or GLEANER_CONFIG)"
    )]
    Missing {
        path: PathBuf,
        /// The command that writes a configuration at `path`.
        init: String,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{variable}: {message}")]
    Environment {
        variable: &'static str,
        message: String,
    },
    /// Independent errors (of sections, of list entries), one line each, in file order.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Several(Vec<ConfigError>),
}

impl ConfigError {
    /// The one error of `errors`, or all of them in file order (those of no place in the
    /// file, such as the environment's, first).
    fn several(mut errors: Vec<ConfigError>) -> ConfigError {
        if errors.len() == 1
            && let Some(error) = errors.pop()
        {
            return error;
        }
        errors.sort_by_key(ConfigError::place);
        ConfigError::Several(errors)
    }

    /// Line and column in the file, for errors that have them.
    fn place(&self) -> Option<(usize, usize)> {
        match self {
            ConfigError::Invalid { line, column, .. } => Some((*line, *column)),
            _ => None,
        }
    }
}

impl Config {
    /// Chooses the configuration file: `--config`, else `$GLEANER_CONFIG`, else `./config.toml`.
    pub fn resolve_path(cli_path: Option<&Path>) -> PathBuf {
        if let Some(path) = cli_path {
            return path.to_path_buf();
        }
        match std::env::var_os(CONFIG_ENV) {
            Some(path) if !path.is_empty() => PathBuf::from(path),
            _ => PathBuf::from(DEFAULT_CONFIG_FILE),
        }
    }

    /// Reads and validates a file, applying `GLEANER_DATABASE_URL` when set.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let source = std::fs::read_to_string(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                ConfigError::Missing {
                    path: path.to_path_buf(),
                    init: init_command(path),
                }
            } else {
                ConfigError::Read {
                    path: path.to_path_buf(),
                    source,
                }
            }
        })?;
        let database_override = std::env::var(DATABASE_URL_ENV)
            .ok()
            .filter(|url| !url.trim().is_empty());
        Self::parse(&source, path, database_override.as_deref())
    }

    /// Validates configuration text; `path` is used for messages and to anchor relative paths.
    ///
    /// Every section is read and checked, and all their errors are reported together, in
    /// file order ([`ConfigError::Several`]): each table's first error, and each entry's of
    /// the lists (`[[feeds]]`, `[[webhooks]]`, `[[outputs]]`, `[[sites]]`). Only TOML that
    /// cannot be parsed at all stops at its first error.
    pub fn parse(
        source: &str,
        path: &Path,
        database_override: Option<&str>,
    ) -> Result<Config, ConfigError> {
        let toml_error = |e: toml::de::Error| {
            let span = e.span().unwrap_or(0..0);
            invalid(path, source, span, describe_toml_error(source, &e))
        };
        let document = toml::de::DeTable::parse(source).map_err(toml_error)?;
        let mut errors = Vec::new();
        let raw = RawConfig::read(document, &mut errors, toml_error);
        let text = Text { path, source };
        let base_dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let config = raw.validate(text, base_dir, database_override, &mut errors);
        match config {
            Some(config) if errors.is_empty() => Ok(config),
            _ => Err(ConfigError::several(errors)),
        }
    }
}

impl RawConfig {
    /// Checks every section, each on its own: an error goes to `errors` and the next section
    /// is checked. `None` when a section has an error.
    fn validate(
        self,
        text: Text<'_>,
        base_dir: &Path,
        database_override: Option<&str>,
        errors: &mut Vec<ConfigError>,
    ) -> Option<Config> {
        let at = |span: Range<usize>, message: String| text.at(span, message);
        let target = keep(
            self.database.target(database_override, base_dir, at),
            errors,
        );
        let schedule = keep(
            self.schedule.validate(at, text.in_section("schedule")),
            errors,
        );
        let fetch = keep(self.fetch.validate(text.in_section("fetch")), errors);
        let extract = keep(
            self.extract.validate(text.in_section("extract"), at),
            errors,
        );
        let daemon = keep(self.daemon.validate(text.in_section("daemon")), errors);
        let images = keep(self.images.validate(text.in_section("images")), errors);
        let api = keep(self.api.map(|api| api.validate(text)).transpose(), errors);
        let retention = keep(self.retention.map(|r| r.validate(at)).transpose(), errors);
        let filters = keep(self.filters.validate(at), errors);
        let no_feeds_meant = self.feeds.written && self.feeds.len() == 0;
        let (feeds, names) =
            validate_feed_list(self.feeds, schedule.as_ref(), filters.as_ref(), at, errors);
        let webhooks = webhooks::validate(self.webhooks, &names, at, errors);
        let outputs = outputs::validate(self.outputs, &names, at, errors);
        let sites = sites::validate(self.sites, at, errors);
        let mut api = api?;
        if let Some(api) = &mut api {
            api.outputs = outputs.clone();
        }
        let ((fetch, entries), retention) = (fetch?, retention?);
        Some(Config {
            path: text.path.to_path_buf(),
            database: DatabaseConfig { target: target? },
            schedule: schedule?,
            fetch,
            entries,
            extract: extract?,
            images: images?,
            api,
            daemon: daemon?,
            retention,
            filters: filters?,
            feeds,
            webhooks,
            outputs,
            sites,
            no_feeds_meant,
        })
    }
}

/// `[[feeds]]` ([`validate_feeds`]) and the names other sections may refer to: those of the
/// valid feeds and the names written in the others, whose errors are their own. A bad
/// `[schedule] default` or `[filters]` is its section's error: the feeds are still checked,
/// against the built-in default schedule and no filters.
fn validate_feed_list(
    mut raw: RawFeedList,
    schedule: Option<&ScheduleConfig>,
    filters: Option<&FiltersConfig>,
    at: impl Fn(Range<usize>, String) -> ConfigError + Copy,
    errors: &mut Vec<ConfigError>,
) -> (Vec<FeedConfig>, HashSet<String>) {
    let written_names = std::mem::take(&mut raw.written_names);
    let default_schedule = match schedule {
        Some(schedule) => Some(schedule.default.clone()),
        None => CronSchedule::parse(RawSchedule::default().default.get_ref()).ok(),
    };
    let no_filters = FiltersConfig::default();
    let (feeds, mut names) = match &default_schedule {
        Some(default) => validate_feeds(raw, default, filters.unwrap_or(&no_filters), at, errors),
        None => (Vec::new(), HashSet::new()),
    };
    names.extend(written_names);
    (feeds, names)
}

/// The value of a section that is valid; the error of one that is not goes to `errors`.
fn keep<T>(result: Result<T, ConfigError>, errors: &mut Vec<ConfigError>) -> Option<T> {
    result.map_err(|error| errors.push(error)).ok()
}

/// The configuration text and its file, for errors that point into it.
#[derive(Clone, Copy)]
struct Text<'a> {
    path: &'a Path,
    source: &'a str,
}

impl<'a> Text<'a> {
    /// An error at `span` of the text.
    fn at(self, span: Range<usize>, message: String) -> ConfigError {
        invalid(self.path, self.source, span, message)
    }

    /// The errors of one `[section]`, by key: numbers have no span of their own once
    /// deserialized, so the error points at the line `key = …` inside the section.
    fn in_section(self, section: &'a str) -> impl Fn(&str, String) -> ConfigError + 'a {
        move |key, message| {
            let span = find_key_span(self.source, section, key);
            self.at(span, format!("[{section}] {key}: {message}"))
        }
    }
}

/// `[[feeds]]`: each feed's URL, name (unique; the host when none is given), schedule and
/// controls. Also returns the names, which `[[webhooks]]` refer to. Each feed's first error
/// goes to `errors` and the next feed is checked.
fn validate_feeds(
    raw: RawFeedList,
    default_schedule: &CronSchedule,
    filters: &FiltersConfig,
    at: impl Fn(Range<usize>, String) -> ConfigError + Copy,
    errors: &mut Vec<ConfigError>,
) -> (Vec<FeedConfig>, HashSet<String>) {
    let mut feeds = Vec::with_capacity(raw.len());
    let mut names = HashSet::new();
    let mut urls = HashSet::new();
    for feed in raw {
        match validate_feed(
            &feed,
            default_schedule,
            filters,
            at,
            (&mut names, &mut urls),
        ) {
            Ok(valid) => feeds.push(valid),
            Err(error) => errors.push(error),
        }
    }
    (feeds, names)
}

/// One `[[feeds]]` entry, given the names and URLs of the entries before it.
fn validate_feed(
    feed: &feed::RawFeed,
    default_schedule: &CronSchedule,
    filters: &FiltersConfig,
    at: impl Fn(Range<usize>, String) -> ConfigError + Copy,
    (names, urls): (&mut HashSet<String>, &mut HashSet<String>),
) -> Result<FeedConfig, ConfigError> {
    let url = parse_feed_url(feed.url.get_ref())
        .map_err(|m| at(feed.url.span(), format!("[[feeds]] url: {m}")))?;
    let (name, name_span) = match &feed.name {
        Some(name) => (name.get_ref().trim().to_string(), name.span()),
        None => (
            url.host_str().unwrap_or_default().to_string(),
            feed.url.span(),
        ),
    };
    if let Err(problem) = feed::check_feed_name(&name) {
        return Err(at(name_span, format!("[[feeds]] name: {problem}")));
    }
    if !names.insert(name.clone()) {
        let hint = if feed.name.is_none() {
            " (the name defaults to the feed's host: give each feed of this host a `name`)"
        } else {
            ""
        };
        return Err(at(
            name_span,
            format!("[[feeds]] name: duplicate feed name `{name}`{hint}"),
        ));
    }
    if !urls.insert(url.to_string()) {
        return Err(at(
            feed.url.span(),
            format!("[[feeds]] url: `{url}` is configured twice"),
        ));
    }
    let schedule = match &feed.schedule {
        Some(expr) => CronSchedule::parse(expr.get_ref())
            .map_err(|e| at(expr.span(), format!("[[feeds]] schedule of `{name}`: {e}")))?,
        None => default_schedule.clone(),
    };
    let controls = feed.controls(&name, filters, at)?;
    Ok(FeedConfig {
        name,
        url,
        schedule,
        enabled: controls.enabled,
        algorithm: controls.algorithm,
        page_type: controls.page_type,
        images: controls.images,
        request: controls.request,
        filters: controls.filters,
        trusted: controls.trusted,
        content: controls.content,
        tags: controls.tags,
    })
}

/// Feed URLs must be absolute http(s) URLs with a host.
fn parse_feed_url(text: &str) -> Result<Url, String> {
    let url = Url::parse(text.trim()).map_err(|e| format!("`{text}` is not a valid URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("`{text}` must be an http or https URL"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("`{text}` has no host"));
    }
    Ok(url)
}

/// `gleaner init`, with `--config PATH` when the configuration is looked for elsewhere than
/// the default file.
fn init_command(path: &Path) -> String {
    if path == Path::new(DEFAULT_CONFIG_FILE) {
        "gleaner init".to_string()
    } else {
        format!("gleaner init --config {}", path.display())
    }
}

fn invalid(path: &Path, source: &str, span: Range<usize>, message: String) -> ConfigError {
    let (line, column) = line_and_column(source, span.start);
    ConfigError::Invalid {
        path: path.to_path_buf(),
        line,
        column,
        message,
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_and_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// The table header (`[fetch]`, `[[feeds]]`) in force at a byte offset.
fn table_at(source: &str, offset: usize) -> Option<&str> {
    let before = source.get(..offset.min(source.len()))?;
    before
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| line.starts_with('['))
        .map(|line| line.split('#').next().unwrap_or(line).trim())
}

/// Turns a toml/serde error into one line that names the key and its table.
fn describe_toml_error(source: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim().replace('\n', " ");
    let table = error
        .span()
        .and_then(|span| table_at(source, span.start))
        .map(|t| format!(" in {t}"))
        .unwrap_or_default();
    match message.strip_prefix("unknown field ") {
        Some(rest) => {
            let described = format!("unknown key {rest}").replacen(',', &format!("{table};"), 1);
            match suggestion(rest) {
                Some(key) => format!("{described}; did you mean `{key}`?"),
                None => described,
            }
        }
        None => format!("{message}{table}"),
    }
}

/// The expected key closest to a misspelt one, from serde's "`fetchh`, expected one of
/// `fetch`, …" (or "expected `fetch` or `images`"): only when it is a plausible typo.
fn suggestion(unknown_field_message: &str) -> Option<String> {
    let mut names = unknown_field_message
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string);
    let unknown = names.next()?;
    names
        .map(|name| (strsim::damerau_levenshtein(&unknown, &name), name))
        .filter(|(distance, name)| *distance <= (name.len().max(unknown.len()) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// The span of `key = …` inside `[table]`, for errors found after deserialization.
fn find_key_span(source: &str, table: &str, key: &str) -> Range<usize> {
    let header = format!("[{table}]");
    let mut offset = 0;
    let mut in_table = false;
    for line in source.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            in_table = trimmed.starts_with(&header);
        } else if in_table
            && trimmed
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            let start = offset + (line.len() - line.trim_start().len());
            return start..start + key.len();
        }
        offset += line.len();
    }
    0..0
}

// --- the file as written: every key optional but feeds, unknown keys refused ---

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct RawConfig {
    database: RawDatabase,
    schedule: RawSchedule,
    fetch: RawFetch,
    extract: RawExtract,
    images: RawImages,
    api: Option<RawApi>,
    daemon: RawDaemon,
    retention: Option<RawRetention>,
    filters: feed::RawFilters,
    feeds: RawFeedList,
    webhooks: Vec<webhooks::RawWebhook>,
    outputs: Vec<outputs::RawOutput>,
    sites: Vec<sites::RawSite>,
}

/// `[[feeds]]` as written, and whether the file has the key at all (`feeds = []` has it).
#[derive(Debug, Default)]
struct RawFeedList {
    /// The entries that could be read.
    feeds: Vec<feed::RawFeed>,
    written: bool,
    /// The `name` of every entry, those that could not be read or are invalid included.
    written_names: Vec<String>,
}

impl<'de> Deserialize<'de> for RawFeedList {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let feeds = Vec::deserialize(deserializer)?;
        Ok(RawFeedList {
            feeds,
            written: true,
            written_names: Vec::new(),
        })
    }
}

impl RawFeedList {
    fn len(&self) -> usize {
        self.feeds.len()
    }
}

impl IntoIterator for RawFeedList {
    type Item = feed::RawFeed;
    type IntoIter = std::vec::IntoIter<feed::RawFeed>;
    fn into_iter(self) -> Self::IntoIter {
        self.feeds.into_iter()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRetention {
    older_than: Spanned<String>,
    #[serde(default)]
    raw_only: bool,
}

impl RawRetention {
    fn validate(
        self,
        at: impl Fn(Range<usize>, String) -> ConfigError,
    ) -> Result<RetentionConfig, ConfigError> {
        Ok(RetentionConfig {
            older_than: parse_age(self.older_than.get_ref()).map_err(|m| {
                at(
                    self.older_than.span(),
                    format!("[retention] older_than: {m}"),
                )
            })?,
            raw_only: self.raw_only,
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawDatabase {
    url: Spanned<String>,
}

impl RawDatabase {
    /// `url`, unless `GLEANER_DATABASE_URL` overrides it; a relative SQLite path is anchored at
    /// the file's folder (the override's, at the working directory).
    fn target(
        &self,
        database_override: Option<&str>,
        base_dir: &Path,
        at: impl Fn(Range<usize>, String) -> ConfigError,
    ) -> Result<DatabaseTarget, ConfigError> {
        match database_override {
            Some(url) => DatabaseTarget::parse(url, Path::new(".")).map_err(|message| {
                ConfigError::Environment {
                    variable: DATABASE_URL_ENV,
                    message,
                }
            }),
            None => DatabaseTarget::parse(self.url.get_ref(), base_dir)
                .map_err(|m| at(self.url.span(), format!("[database] url: {m}"))),
        }
    }
}

impl Default for RawDatabase {
    fn default() -> Self {
        RawDatabase {
            url: Spanned::new(0..0, "sqlite://gleaner.db".to_string()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawSchedule {
    default: Spanned<String>,
    jitter_seconds: u64,
}

impl RawSchedule {
    /// `default` points at its value; `error` names `jitter_seconds`, which has no span.
    fn validate(
        self,
        at: impl Fn(Range<usize>, String) -> ConfigError,
        error: impl Fn(&str, String) -> ConfigError,
    ) -> Result<ScheduleConfig, ConfigError> {
        let default = CronSchedule::parse(self.default.get_ref())
            .map_err(|e| at(self.default.span(), format!("[schedule] default: {e}")))?;
        within("jitter_seconds", self.jitter_seconds, 0, MAX_JITTER_SECONDS)
            .map_err(|(key, message)| error(key, message))?;
        Ok(ScheduleConfig {
            default,
            jitter_seconds: self.jitter_seconds,
        })
    }
}

impl Default for RawSchedule {
    fn default() -> Self {
        RawSchedule {
            default: Spanned::new(0..0, "*/15 * * * *".to_string()),
            jitter_seconds: 30,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawFetch {
    user_agent: String,
    timeout_seconds: u64,
    max_feed_bytes: u64,
    max_page_bytes: u64,
    max_image_bytes: u64,
    concurrency: usize,
    per_host_concurrency: usize,
    per_host_delay_ms: u64,
    allow_private_networks: bool,
    respect_robots_txt: bool,
    article_retry_seconds: u64,
    article_retries: u32,
    max_entries_per_feed: usize,
}

impl Default for RawFetch {
    fn default() -> Self {
        RawFetch {
            user_agent: default_user_agent(),
            timeout_seconds: 30,
            max_feed_bytes: 10 * 1024 * 1024,
            max_page_bytes: 10 * 1024 * 1024,
            max_image_bytes: 5 * 1024 * 1024,
            concurrency: 16,
            per_host_concurrency: 2,
            per_host_delay_ms: 1000,
            allow_private_networks: false,
            respect_robots_txt: true,
            article_retry_seconds: 300,
            article_retries: 5,
            max_entries_per_feed: 500,
        }
    }
}

/// The `User-Agent` sent when the configuration names none.
pub fn default_user_agent() -> String {
    format!(
        "gleaner/{} (+https://github.com/gleaner-rss/gleaner)",
        env!("CARGO_PKG_VERSION")
    )
}

/// Checks that `value` of `key` lies in `min..=max`.
fn within(key: &'static str, value: u64, min: u64, max: u64) -> Result<(), (&'static str, String)> {
    if value < min {
        Err((key, format!("must be at least {min}")))
    } else if value > max {
        Err((key, format!("must be at most {max}")))
    } else {
        Ok(())
    }
}

/// `usize` keys compared as `u64` (saturating: a `usize` never exceeds `u64` here).
fn wide(value: usize) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

impl RawFetch {
    fn validate(
        self,
        error: impl Fn(&str, String) -> ConfigError,
    ) -> Result<(FetchConfig, EntriesConfig), ConfigError> {
        let bounds = [
            ("timeout_seconds", self.timeout_seconds, 1, MAX_SECONDS),
            ("max_feed_bytes", self.max_feed_bytes, 1, MAX_BYTES),
            ("max_page_bytes", self.max_page_bytes, 1, MAX_BYTES),
            ("max_image_bytes", self.max_image_bytes, 1, MAX_BYTES),
            ("concurrency", wide(self.concurrency), 1, MAX_CONCURRENCY),
            (
                "per_host_concurrency",
                wide(self.per_host_concurrency),
                1,
                MAX_CONCURRENCY,
            ),
            (
                "per_host_delay_ms",
                self.per_host_delay_ms,
                0,
                MAX_PER_HOST_DELAY_MS,
            ),
            (
                "article_retry_seconds",
                self.article_retry_seconds,
                0,
                MAX_SECONDS,
            ),
            (
                "article_retries",
                u64::from(self.article_retries),
                0,
                MAX_ARTICLE_RETRIES,
            ),
            (
                "max_entries_per_feed",
                wide(self.max_entries_per_feed),
                1,
                MAX_ENTRIES_PER_FEED,
            ),
        ];
        for (key, value, min, max) in bounds {
            within(key, value, min, max).map_err(|(key, message)| error(key, message))?;
        }
        let user_agent = self.user_agent.trim();
        if user_agent.is_empty() {
            return Err(error("user_agent", "must not be empty".to_string()));
        }
        if user_agent.chars().any(char::is_control) {
            return Err(error(
                "user_agent",
                "must not contain control characters (a newline would split the header)"
                    .to_string(),
            ));
        }
        if user_agent.chars().count() > MAX_USER_AGENT_CHARS {
            return Err(error(
                "user_agent",
                format!("must be at most {MAX_USER_AGENT_CHARS} characters"),
            ));
        }
        let fetch = FetchConfig {
            user_agent: user_agent.to_string(),
            timeout_seconds: self.timeout_seconds,
            max_feed_bytes: self.max_feed_bytes,
            max_page_bytes: self.max_page_bytes,
            max_image_bytes: self.max_image_bytes,
            concurrency: self.concurrency,
            per_host_concurrency: self.per_host_concurrency,
            per_host_delay_ms: self.per_host_delay_ms,
            allow_private_networks: self.allow_private_networks,
            respect_robots_txt: self.respect_robots_txt,
        };
        let entries = EntriesConfig {
            retry_after: std::time::Duration::from_secs(self.article_retry_seconds),
            retries: self.article_retries,
            max_per_feed: self.max_entries_per_feed,
        };
        Ok((fetch, entries))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawExtract {
    algorithm: Spanned<String>,
    timeout_seconds: f64,
    site_templates: bool,
    max_text_bytes: usize,
}

impl Default for RawExtract {
    fn default() -> Self {
        RawExtract {
            algorithm: Spanned::new(0..0, "auto".to_string()),
            timeout_seconds: 20.0,
            site_templates: true,
            max_text_bytes: 1 << 20,
        }
    }
}

impl RawExtract {
    /// `error` names a key without a span of its own; `at` points at a spanned value.
    fn validate(
        self,
        error: impl Fn(&str, String) -> ConfigError,
        at: impl Fn(Range<usize>, String) -> ConfigError,
    ) -> Result<ExtractConfig, ConfigError> {
        let algorithm = self
            .algorithm
            .get_ref()
            .parse::<Algorithm>()
            .map_err(|e| at(self.algorithm.span(), format!("[extract] algorithm: {e}")))?;
        // A fraction of a second is allowed: tests and small machines want short budgets.
        let max = MAX_SECONDS as f64;
        if !(self.timeout_seconds > 0.0 && self.timeout_seconds <= max) {
            return Err(error(
                "timeout_seconds",
                format!("must be more than 0 and at most {max}"),
            ));
        }
        // Room for a paragraph and its markup.
        if !(1024..=MAX_BYTES).contains(&wide(self.max_text_bytes)) {
            return Err(error(
                "max_text_bytes",
                format!("must be at least 1024 and at most {MAX_BYTES}"),
            ));
        }
        Ok(ExtractConfig {
            algorithm,
            timeout: std::time::Duration::from_secs_f64(self.timeout_seconds),
            site_templates: self.site_templates,
            max_text_bytes: self.max_text_bytes,
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawImages {
    download: bool,
    max_per_article: usize,
}

impl RawImages {
    fn validate(
        self,
        error: impl Fn(&str, String) -> ConfigError,
    ) -> Result<ImagesConfig, ConfigError> {
        let per_article = wide(self.max_per_article);
        within("max_per_article", per_article, 1, MAX_IMAGES_PER_ARTICLE)
            .map_err(|(key, message)| error(key, message))?;
        Ok(ImagesConfig {
            download: self.download,
            max_per_article: self.max_per_article,
        })
    }
}

impl Default for RawImages {
    fn default() -> Self {
        RawImages {
            download: true,
            max_per_article: 50,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawApi {
    listen: Spanned<String>,
    token: String,
    max_connections: u64,
    public_url: Option<Spanned<String>>,
}

impl RawApi {
    fn validate(self, text: Text<'_>) -> Result<ApiConfig, ConfigError> {
        let listen = self.listen.get_ref().parse::<SocketAddr>().map_err(|e| {
            text.at(
                self.listen.span(),
                format!(
                    "[api] listen: `{}` is not HOST:PORT ({e})",
                    self.listen.get_ref()
                ),
            )
        })?;
        let token = Some(self.token.trim().to_string()).filter(|t| !t.is_empty());
        within(
            "max_connections",
            self.max_connections,
            1,
            wide(MAX_API_CONNECTIONS),
        )
        .map_err(|(key, m)| text.in_section("api")(key, m))?;
        let public_url = self
            .public_url
            .map(|url| {
                parse_feed_url(url.get_ref())
                    .map_err(|m| text.at(url.span(), format!("[api] public_url: {m}")))
            })
            .transpose()?;
        Ok(ApiConfig {
            max_connections: usize::try_from(self.max_connections).unwrap_or(MAX_API_CONNECTIONS),
            public_url,
            ..ApiConfig::new(listen, token)
        })
    }
}

impl Default for RawApi {
    fn default() -> Self {
        RawApi {
            listen: Spanned::new(0..0, "127.0.0.1:8080".to_string()),
            token: String::new(),
            max_connections: wide(DEFAULT_API_CONNECTIONS),
            public_url: None,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawDaemon {
    shutdown_grace_seconds: u64,
    feed_lease_seconds: u64,
}

impl RawDaemon {
    fn validate(
        self,
        error: impl Fn(&str, String) -> ConfigError,
    ) -> Result<DaemonConfig, ConfigError> {
        let bounds = [
            (
                "shutdown_grace_seconds",
                self.shutdown_grace_seconds,
                0,
                MAX_SECONDS,
            ),
            (
                "feed_lease_seconds",
                self.feed_lease_seconds,
                MIN_FEED_LEASE_SECONDS,
                MAX_SECONDS,
            ),
        ];
        for (key, value, min, max) in bounds {
            within(key, value, min, max).map_err(|(key, message)| error(key, message))?;
        }
        Ok(DaemonConfig {
            shutdown_grace_seconds: self.shutdown_grace_seconds,
            feed_lease_seconds: self.feed_lease_seconds,
        })
    }
}

impl Default for RawDaemon {
    fn default() -> Self {
        RawDaemon {
            shutdown_grace_seconds: 10,
            feed_lease_seconds: 60,
        }
    }
}
