//! `gleaner extract`: run one extractor over one page and print the result (text, HTML or
//! JSON, whose field names other tools read).

use std::io::{Read, Write};
use std::path::Path;

use super::Context as _;
use clap::Args;

use crate::config::{CONFIG_ENV, Config, DEFAULT_CONFIG_FILE, FetchConfig};
use crate::extract::{Algorithm, ExtractError, SiteKnowledge, extract_site_page};
use crate::format::BodyFormat;

/// Arguments of `gleaner extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// A file path, `-` for standard input, or an http(s) URL.
    pub source: String,
    /// The positional hint: what the feed entry's title would be.
    #[arg(long)]
    pub title: Option<String>,
    /// The page's URL, against which relative links and images are resolved.
    #[arg(long)]
    pub url: Option<String>,
    /// The algorithm to run.
    #[arg(long, default_value = "auto", value_parser = super::algorithm::AlgorithmParser)]
    pub algorithm: Algorithm,
    #[command(flatten)]
    pub format: super::BodyFormatArgs,
}

/// Runs `gleaner extract`; `config_path` is `--config`, whose `[fetch]` section governs a
/// download.
pub fn run(args: &ExtractArgs, config_path: Option<&Path>) -> Result<(), super::CliError> {
    let algorithm = args.algorithm;
    let base = args
        .url
        .as_deref()
        .map(|u| {
            url::Url::parse(u).map_err(|err| super::CliError::Usage(format!("--url `{u}`: {err}")))
        })
        .transpose()?;
    let source = args.source.as_str();
    let lower = source.to_ascii_lowercase();
    let mut base = base;
    let mut http_charset = None;
    let config = configuration(config_path)?;
    let raw = if lower.starts_with("http://") || lower.starts_with("https://") {
        let page = download(source, config.as_ref())?;
        // The final URL after redirects anchors relative links unless --url says otherwise.
        base = base.or(Some(page.final_url.clone()));
        http_charset = page.charset().map(str::to_string);
        page.bytes
    } else if source == "-" {
        let mut raw = Vec::new();
        std::io::stdin()
            .read_to_end(&mut raw)
            .context("reading standard input")?;
        raw
    } else {
        std::fs::read(source).with_context(|| format!("reading {source}"))?
    };
    let raw = page_bytes(raw, source)?;
    // The configuration's `[[sites]]` rules apply as they would in a poll.
    let rules = config
        .as_ref()
        .zip(base.as_ref())
        .and_then(|(config, url)| config.sites.for_url(url));
    let site_page = extract_site_page(
        &raw,
        http_charset.as_deref(),
        base.as_ref(),
        crate::extract::EntryHints::title(args.title.as_deref()),
        algorithm,
        SiteKnowledge {
            template: None,
            rules: rules.as_deref(),
        },
    );
    if let Some(rules) = rules.filter(|_| site_page.rule_missed) {
        tracing::warn!(site = %rules.host, "the site's content rule matched nothing; the generic algorithm extracted the page");
    }
    let extraction = site_page
        .extraction
        .map_err(|err @ ExtractError::NoContent { .. }| super::CliError::runtime(err))?;
    let output = render(extraction, args.format.chosen(), base.as_ref())?;
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{output}") {
        // A closed pipe (`gleaner extract … | head`) is not a failure.
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(super::CliError::Runtime {
                context: "writing the result".to_string(),
                source: Box::new(err),
            });
        }
        _ => {}
    }
    Ok(())
}

/// The page itself from what `source` gave: gzip (told by its magic bytes, as in a dataset's
/// `html/{id}.html.gz`) is decompressed, and bytes that cannot be a page are refused rather
/// than printed back as an "article".
fn page_bytes(raw: Vec<u8>, source: &str) -> Result<Vec<u8>, super::CliError> {
    const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
    let raw = if raw.starts_with(&GZIP_MAGIC) {
        let mut page = Vec::new();
        flate2::read::GzDecoder::new(raw.as_slice())
            .read_to_end(&mut page)
            .with_context(|| format!("decompressing {source} (gzip)"))?;
        page
    } else {
        raw
    };
    if looks_binary(&raw) {
        return Err(super::CliError::Usage(format!(
            "{source} is binary data, not an HTML page (plain or gzip-compressed HTML is read)"
        )));
    }
    Ok(raw)
}

/// Whether the start of `bytes` holds a NUL byte, which no HTML page in an ASCII-compatible
/// encoding contains; UTF-16 pages (told by their byte-order mark) are left to the decoder.
fn looks_binary(bytes: &[u8]) -> bool {
    const SNIFF_LEN: usize = 8192;
    let utf16 = bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]);
    !utf16 && bytes.iter().take(SNIFF_LEN).any(|&b| b == 0)
}

/// The configuration in use: the file named by `--config` or `GLEANER_CONFIG`, else
/// `./config.toml` when there is one; `None` without any. Its `[fetch]` governs a download and
/// its `[[sites]]` rules the extraction.
fn configuration(config_path: Option<&Path>) -> Result<Option<Config>, super::CliError> {
    let named =
        config_path.is_some() || std::env::var_os(CONFIG_ENV).is_some_and(|p| !p.is_empty());
    let path = Config::resolve_path(config_path);
    if !named && !path.exists() {
        return Ok(None);
    }
    Config::load(&path)
        .map(Some)
        .map_err(|err| super::CliError::Usage(err.to_string()))
}

/// The `[fetch]` settings of the configuration, else the defaults.
fn fetch_settings(config: Option<&Config>) -> Result<FetchConfig, super::CliError> {
    match config {
        Some(config) => Ok(config.fetch.clone()),
        None => Config::parse("", Path::new(DEFAULT_CONFIG_FILE), None)
            .map(|config| config.fetch)
            .map_err(|err| super::CliError::Usage(err.to_string())),
    }
}

/// Fetches one page with the configuration's `[fetch]` settings: the same limits, guard and
/// robots.txt rules as the daemon.
fn download(
    source: &str,
    config: Option<&Config>,
) -> Result<crate::fetch::Fetched, super::CliError> {
    use crate::fetch::{FetchOutcome, FetchRequest, Fetcher, ResourceKind};
    let url = url::Url::parse(source)
        .map_err(|err| super::CliError::Usage(format!("`{source}`: {err}")))?;
    let settings = fetch_settings(config)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let fetcher = Fetcher::new(&settings).context("building the HTTP client")?;
        match fetcher
            .fetch(&FetchRequest::new(url, ResourceKind::Page))
            .await
            .context("downloading the page")?
        {
            FetchOutcome::Fetched(page) => Ok(page),
            FetchOutcome::NotModified => Err(super::CliError::Usage(format!(
                "{source}: the server answered 304 Not Modified to an unconditional request"
            ))),
        }
    })
}

/// The extraction in the chosen format; Markdown opens with front matter (the headline, the
/// page's URL when known, language, verdict, quality, page type), a thread's posts one section
/// each.
fn render(
    extraction: crate::extract::Extraction,
    format: BodyFormat,
    base: Option<&url::Url>,
) -> Result<String, super::CliError> {
    Ok(match format {
        BodyFormat::Html => extraction.html,
        BodyFormat::Markdown => {
            let front = crate::markdown::FrontMatter {
                title: extraction.title.as_deref(),
                url: base.map(url::Url::as_str),
                language: extraction.language.as_deref(),
                verdict: Some(extraction.verdict.as_str()),
                quality: Some(extraction.quality),
                page_type: Some(extraction.page_type.as_str()),
                ..Default::default()
            };
            if extraction.posts.is_empty() {
                crate::markdown::document(&front, &extraction.html)
            } else {
                crate::markdown::thread_document(&front, &extraction.posts)
            }
        }
        BodyFormat::Json => {
            serde_json::to_string_pretty(&extraction).context("serializing the extraction")?
        }
        BodyFormat::Text => extraction.text,
    })
}
