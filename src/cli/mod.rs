//! The command line: argument parsing (clap) and one function per command.
//!
//! The command names, flags and output fields are a contract that scripts and other tools
//! depend on: add to them, never rename. `main.rs` parses, sets up logging and maps
//! [`CliError`] to exit codes.

mod algorithm;
mod articles;
pub mod eval;
pub mod extract;
mod feeds;
mod feeds_edit;
mod init;
mod outputs;
mod poll;
mod reextract;
mod retention;
mod setup;
mod sites;
mod table;
mod time;
mod webhooks;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::Config;
use crate::format::BodyFormat;
pub use crate::telemetry::LogFormat;

/// Everything that can end a command unsuccessfully, sorted by exit status.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad usage or bad configuration: exit status 2.
    #[error("{0}")]
    Usage(String),
    /// Anything that went wrong while running: exit status 1.
    #[error("{}", runtime_message(context, source.as_ref()))]
    Runtime {
        context: String,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

fn runtime_message(context: &str, source: &(dyn std::error::Error + Send + Sync)) -> String {
    if context.is_empty() {
        source.to_string()
    } else {
        format!("{context}: {source}")
    }
}

impl CliError {
    /// A runtime failure (exit status 1) whose message is the error's own.
    pub fn runtime(error: impl std::error::Error + Send + Sync + 'static) -> CliError {
        CliError::Runtime {
            context: String::new(),
            source: Box::new(error),
        }
    }
}

/// Attaches what the command was doing to any error, making it a runtime failure.
pub(crate) trait Context<T> {
    fn context(self, context: impl Into<String>) -> Result<T, CliError>;

    fn with_context<S: Into<String>>(self, context: impl FnOnce() -> S) -> Result<T, CliError>;
}

impl<T, E> Context<T> for Result<T, E>
where
    E: std::error::Error + Send + Sync + 'static,
{
    fn context(self, context: impl Into<String>) -> Result<T, CliError> {
        self.map_err(|source| CliError::Runtime {
            context: context.into(),
            source: Box::new(source),
        })
    }

    fn with_context<S: Into<String>>(self, context: impl FnOnce() -> S) -> Result<T, CliError> {
        self.map_err(|source| CliError::Runtime {
            context: context().into(),
            source: Box::new(source),
        })
    }
}

impl CliError {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Runtime { .. } => 1,
        }
    }
}

/// gleaner: feeds in, clean articles out.
///
/// Polls RSS/Atom/JSON feeds on a schedule, downloads each new article, extracts its body and
/// images, and stores them in SQLite or PostgreSQL for people and downstream consumers.
#[derive(Debug, Parser)]
#[command(name = "gleaner", version)]
pub struct Cli {
    /// The configuration file [default: $GLEANER_CONFIG when set, else ./config.toml].
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Log format: human-readable lines or one JSON object per line.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,
    /// Log filter in `RUST_LOG` syntax (e.g. `info`, `gleaner=debug`) [default: $RUST_LOG, else info].
    #[arg(long, global = true, value_name = "FILTER")]
    pub log_level: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

/// `--json`, or `--format table|json`: one choice, spelled either way, on every command
/// that prints a table or JSON.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Print JSON instead of a table (the same as `--format json`).
    #[arg(long)]
    pub json: bool,
    /// Output format: `table` for people (the default), `json` for programs.
    #[arg(long, value_enum, conflicts_with = "json")]
    pub format: Option<ListFormat>,
}

/// A listing's output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
}

impl OutputArgs {
    /// Whether JSON was asked for, either way.
    pub fn is_json(&self) -> bool {
        self.json || self.format == Some(ListFormat::Json)
    }
}

/// `--format text|html|json|markdown`, or `--json`: how a command that prints one article's
/// body prints it.
#[derive(Debug, Clone, Args)]
pub struct BodyFormatArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = BodyFormat::Text)]
    pub format: BodyFormat,
    /// The same as `--format json`.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

impl BodyFormatArgs {
    /// The format asked for, either way.
    pub fn chosen(&self) -> BodyFormat {
        if self.json {
            BodyFormat::Json
        } else {
            self.format
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a commented config.toml to start from (never over an existing file).
    Init,
    /// Run the long-lived service: schedule, fetch, extract, store, serve the API.
    Run,
    /// Poll the feeds that are due once, print a summary, and exit.
    Poll(PollArgs),
    /// Create or upgrade the database schema.
    Migrate,
    /// Validate the configuration and print the feeds it defines.
    CheckConfig,
    /// List the configured feeds with their polling state, or manage them.
    Feeds(FeedsArgs),
    /// List recent failures (feeds and articles that could not be fetched, parsed or stored).
    Failures {
        /// At most this many rows, newest first.
        #[arg(long, default_value_t = 50)]
        limit: i64,
        /// Only this feed's failures (configured or stored; another name is an error).
        #[arg(long)]
        feed: Option<String>,
        /// Only failures at this stage (feed, page, extract, image, store, webhook).
        #[arg(long)]
        stage: Option<String>,
        /// Only failures since this time: an age (24h, 7d), a date (its midnight UTC) or RFC 3339.
        #[arg(long)]
        since: Option<String>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// List, show and search stored articles.
    #[command(subcommand)]
    Articles(ArticlesCommand),
    /// Manage webhook deliveries.
    #[command(subcommand)]
    Webhooks(WebhooksCommand),
    /// Print stored articles as JSON lines, in ascending id order.
    Export(ExportArgs),
    /// Serve the article database to an LLM client as Model Context Protocol tools, on
    /// standard input and output (read-only).
    Mcp,
    /// Run extraction again over the stored raw pages, without downloading them.
    Reextract(ReextractArgs),
    /// List the configured full-text feeds ([[outputs]]) with the URLs a feed reader
    /// subscribes to.
    Outputs {
        #[command(flatten)]
        output: OutputArgs,
    },
    /// List the sites whose page template gleaner has learned, and what it removes.
    Sites {
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Delete articles fetched longer ago than an age (or only their raw pages).
    Prune(PruneArgs),
    /// Extract the article from one page and print it.
    Extract(extract::ExtractArgs),
    /// Score extraction algorithms on a labelled dataset.
    Eval(eval::EvalArgs),
}

#[derive(Debug, Args)]
pub struct PollArgs {
    /// Run one cycle and exit: the default and only mode of `poll` (`run` is the service);
    /// accepted so that `poll --once` keeps working.
    #[arg(long)]
    pub once: bool,
    /// Poll every feed, due or not.
    #[arg(long)]
    pub all: bool,
    /// JSON: one object per feed and one for the totals (`"total": true`), one per line,
    /// instead of the summary lines.
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct FeedsArgs {
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(subcommand)]
    pub command: Option<FeedsCommand>,
}

#[derive(Debug, Subcommand)]
pub enum FeedsCommand {
    /// List the configured feeds with their polling state (what `gleaner feeds` prints).
    List {
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Append a feed to config.toml, keeping its comments and layout.
    Add {
        /// The feed's URL.
        url: String,
        /// A unique name [default: from the feed's title, else its host, with `-2`, `-3`…
        /// when taken].
        #[arg(long)]
        name: Option<String>,
        /// A cron schedule for this feed (default: the `[schedule]` default).
        #[arg(long)]
        schedule: Option<String>,
        /// When URL is a page announcing several feeds, add the first (without it, a terminal
        /// asks which; elsewhere the feeds are listed and nothing is written).
        #[arg(long, conflicts_with = "no_discover")]
        first: bool,
        /// Add URL as given, without fetching it to check that it is a feed.
        #[arg(long)]
        no_discover: bool,
    },
    /// Remove a feed from config.toml, keeping the file's comments and layout (its stored
    /// articles stay, unless `--purge`).
    Remove {
        /// The feed's name.
        name: String,
        /// Also delete the feed's stored articles, entries and failures from the database.
        #[arg(long)]
        purge: bool,
    },
    /// Add every feed of an OPML file to config.toml.
    ImportOpml {
        /// The OPML file.
        file: PathBuf,
    },
    /// Print the configured feeds as OPML.
    ExportOpml,
}

/// The search syntax, as `articles search --help` shows it (the same on both databases, for
/// HTTP `GET /search` and MCP `search_articles` too; `store::search` reads it).
const SEARCH_SYNTAX: &str = "\
Query syntax (the same on SQLite and PostgreSQL, and for GET /search and MCP):
  rust async          every word must appear, in any order, any case
  electric OR stadia  either side (uppercase OR; a lowercase \"or\" is a word); each side
                      is all of its words: `electric car OR tram` = (electric car) OR tram
  \"exact phrase\"      these words next to each other, in this order
  rust -python        leave out articles with the word (or a -\"quoted phrase\")
  electr*             words that begin so (electric, electrons)
Words are matched by their stem in English (running finds runs and run); on PostgreSQL in the
article's own language where it has a stemmer. A query that cannot be read (an unclosed
quote, OR with nothing on one side, only -exclusions, a lone *) is refused with exit status
2. At most 256 characters, 8 distinct words and 16 words counting each alternative's.";
#[derive(Debug, Subcommand)]
pub enum ArticlesCommand {
    /// List articles, newest first.
    List(ListArgs),
    /// Show one article.
    Show {
        /// The article's id.
        id: i64,
        #[command(flatten)]
        format: BodyFormatArgs,
    },
    /// Full-text search over titles and bodies, best match first.
    #[command(after_help = SEARCH_SYNTAX)]
    Search {
        /// The query, in the search syntax below (it may start with `-`: `-tram rail`).
        #[arg(allow_hyphen_values = true)]
        query: String,
        /// At most this many results.
        #[arg(long, default_value_t = 20)]
        limit: i64,
        #[command(flatten)]
        output: OutputArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum WebhooksCommand {
    /// Send again the deliveries given up after their last attempt (the failures at stage
    /// webhook); each that succeeds loses its failure row.
    Redeliver {
        /// Only this webhook's deliveries: its key (as failures name it) or its URL.
        #[arg(long)]
        webhook: Option<String>,
        /// Only deliveries given up since this time: RFC 3339, or a date meaning its
        /// midnight UTC.
        #[arg(long)]
        since: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only articles of this feed (configured or stored; another name is an error).
    #[arg(long)]
    pub feed: Option<String>,
    /// Only articles fetched at or after this time: an age (24h, 7d), a date or RFC 3339.
    #[arg(long)]
    pub since: Option<String>,
    /// Only articles with an id greater than this.
    #[arg(long)]
    pub after_id: Option<i64>,
    /// Only articles whose quality is at least this, from 0 to 1 (articles stored before
    /// quality was estimated have none and are listed).
    #[arg(long, value_parser = parse_quality)]
    pub min_quality: Option<f64>,
    /// Only articles of this page type (article, forum, product, collection, listing,
    /// documentation, service).
    #[arg(long, value_parser = parse_page_type)]
    pub page_type: Option<crate::store::PageType>,
    /// Only articles with this tag (its entry's category or its feed's `tags`), whatever its
    /// case.
    #[arg(long)]
    pub tag: Option<String>,
    /// At most this many rows.
    #[arg(long, default_value_t = 50)]
    pub limit: i64,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Only articles with an id greater than this.
    #[arg(long, default_value_t = 0)]
    pub after_id: i64,
    /// Only articles of this feed.
    #[arg(long)]
    pub feed: Option<String>,
    /// Only articles fetched at or after this time: an age (24h, 7d), a date (its midnight
    /// UTC) or RFC 3339.
    #[arg(long)]
    pub since: Option<String>,
    /// Only articles with this tag (its entry's category or its feed's `tags`), whatever its
    /// case.
    #[arg(long)]
    pub tag: Option<String>,
    /// Only articles whose quality is at least this, from 0 to 1 (articles stored before
    /// quality was estimated have none and are exported).
    #[arg(long, value_parser = parse_quality)]
    pub min_quality: Option<f64>,
    /// Only articles of this page type (article, forum, product, collection, listing,
    /// documentation, service).
    #[arg(long, value_parser = parse_page_type)]
    pub page_type: Option<crate::store::PageType>,
    /// Output format: `jsonl` (one JSON object per line on standard output) or `markdown`
    /// (one `ID.md` file per article, front matter and body, into `--dir`).
    #[arg(long, default_value = "jsonl", value_parser = ["jsonl", "markdown"])]
    pub format: String,
    /// The directory `--format markdown` writes into (created when missing); only with
    /// `--format markdown`.
    #[arg(long)]
    pub dir: Option<std::path::PathBuf>,
}

/// `--page-type`: a page type's name; another word is a usage error (exit 2).
fn parse_page_type(text: &str) -> Result<crate::store::PageType, String> {
    text.trim().parse().map_err(|unknown| format!("{unknown}"))
}

/// `--min-quality`: a number from 0 to 1.
fn parse_quality(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(format!("a number from 0 to 1, not `{text}`")),
    }
}

#[derive(Debug, Args)]
pub struct PruneArgs {
    /// The age: a number and a unit (s, m, h, d, w), e.g. `90d`; or a date or RFC 3339 time,
    /// read as `--since` is.
    #[arg(long, value_name = "AGE")]
    pub older_than: String,
    /// Keep the articles; drop only their raw pages (they can no longer be re-extracted).
    #[arg(long)]
    pub raw_only: bool,
    /// Delete nothing: count what would go (with --json, list the articles' ids too).
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct ReextractArgs {
    /// The algorithm to use [default: the feed's `algorithm`, else `[extract]` algorithm].
    #[arg(long, value_parser = algorithm::AlgorithmParser)]
    pub algorithm: Option<crate::extract::Algorithm>,
    /// Only articles of this feed.
    #[arg(long)]
    pub feed: Option<String>,
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match &cli.command {
        // These two need no configuration: they work on files and standard input (a download
        // by `extract` reads `[fetch]` if there is a configuration).
        Command::Extract(args) => return extract::run(args, cli.config.as_deref()),
        Command::Eval(args) => return eval::run(args),
        Command::Init => return init::run(&Config::resolve_path(cli.config.as_deref())),
        _ => {}
    }
    let config = load_config(&cli)?;
    match &cli.command {
        Command::CheckConfig => setup::check_config(&config),
        Command::Migrate => block_on(setup::migrate(&config)),
        Command::Feeds(args) => run_feeds(&config, args),
        Command::Failures {
            limit,
            feed,
            stage,
            since,
            output,
        } => block_on(feeds::failures(
            &config,
            feeds::FailureQuery {
                limit: *limit,
                feed: feed.clone(),
                stage: stage.as_deref(),
                since: since.as_deref(),
            },
            output.is_json(),
        )),
        Command::Run => block_on(poll::run(config)),
        Command::Poll(PollArgs { all, output, .. }) => {
            block_on(poll::poll_once(config, *all, output.is_json()))
        }
        Command::Articles(command) => run_articles(&config, command),
        Command::Webhooks(WebhooksCommand::Redeliver { webhook, since }) => block_on(
            webhooks::redeliver(config, webhook.as_deref(), since.as_deref()),
        ),
        Command::Export(args) => block_on(articles::export(&config, args)),
        Command::Mcp => block_on(serve_mcp(&config)),
        Command::Reextract(ReextractArgs { algorithm, feed }) => {
            block_on(reextract::run(&config, *algorithm, feed.as_deref()))
        }
        Command::Sites { output } => block_on(sites::list(&config, output.is_json())),
        Command::Outputs { output } => outputs::list(&config, output.is_json()),
        Command::Prune(args) => block_on(retention::prune(&config, args)),
        Command::Extract(_) | Command::Eval(_) | Command::Init => Ok(()),
    }
}

/// `gleaner feeds …`: the listing, or a change to the configured feeds.
fn run_feeds(config: &Config, args: &FeedsArgs) -> Result<(), CliError> {
    let Some(command) = &args.command else {
        return block_on(feeds::list(config, args.output.is_json()));
    };
    match command {
        FeedsCommand::List { output } => block_on(feeds::list(config, output.is_json())),
        FeedsCommand::Add {
            url,
            name,
            schedule,
            first,
            no_discover,
        } => {
            let discovery = match (*first, *no_discover) {
                (_, true) => feeds_edit::Discovery::Off,
                (true, false) => feeds_edit::Discovery::First,
                (false, false) => feeds_edit::Discovery::Ask,
            };
            let (name, schedule) = (name.as_deref(), schedule.as_deref());
            feeds_edit::add(config, url, name, schedule, discovery)
        }
        FeedsCommand::Remove { name, purge } => retention::remove_feed(config, name, *purge),
        FeedsCommand::ImportOpml { file } => feeds_edit::import_opml(config, file),
        FeedsCommand::ExportOpml => feeds_edit::export_opml(config),
    }
}

/// `gleaner articles …`.
fn run_articles(config: &Config, command: &ArticlesCommand) -> Result<(), CliError> {
    match command {
        ArticlesCommand::List(args) => block_on(articles::list(config, args)),
        ArticlesCommand::Show { id, format } => {
            block_on(articles::show(config, *id, format.chosen()))
        }
        ArticlesCommand::Search {
            query,
            limit,
            output,
        } => block_on(articles::search(config, query, *limit, output.is_json())),
    }
}

/// Loads the configuration named by `--config`, `$GLEANER_CONFIG` or `./config.toml`; any
/// problem with it is a usage error (exit status 2).
pub fn load_config(cli: &Cli) -> Result<Config, CliError> {
    let path = Config::resolve_path(cli.config.as_deref());
    Config::load(&path).map_err(|e| CliError::Usage(e.to_string()))
}

/// `gleaner mcp`: the tools on standard input and output until the client closes them.
async fn serve_mcp(config: &Config) -> Result<(), CliError> {
    let store = open_store(config).await?;
    let served = crate::mcp::serve_stdio(store.clone()).await;
    store.close().await;
    served.map_err(CliError::runtime)
}

/// Opens (and if needed upgrades) the configured database for a command that reads: a
/// missing SQLite file is an error saying how to create it, never created; a read-only
/// SQLite file with a current schema is opened read-only.
async fn open_store(config: &Config) -> Result<crate::store::Store, CliError> {
    crate::store::Store::connect_for_reading(&config.database.target)
        .await
        .context("opening the database")
}

/// As [`open_store`], but `None` where no SQLite file exists yet: for a command that has
/// something to say before the first poll (`feeds` lists the configured feeds, never polled).
async fn open_store_if_created(config: &Config) -> Result<Option<crate::store::Store>, CliError> {
    match crate::store::Store::connect_for_reading(&config.database.target).await {
        Ok(store) => Ok(Some(store)),
        Err(crate::store::StoreError::NoDatabaseYet { .. }) => Ok(None),
        Err(error) => Err(error).context("opening the database"),
    }
}

/// Prints a value as pretty JSON on standard output.
fn print_json(value: &impl serde::Serialize) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).context("writing JSON")?;
    println!("{text}");
    Ok(())
}

/// Runs an async command on a multi-threaded runtime.
fn block_on<F>(future: F) -> Result<(), CliError>
where
    F: std::future::Future<Output = Result<(), CliError>>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let result = runtime.block_on(future);
    // Dropping a runtime waits for every blocking task, and an abandoned extraction may run
    // for long after the command is done (the service's grace period is over): wait a
    // little, then leave such threads to the process exit.
    runtime.shutdown_timeout(BLOCKING_TASKS_WAIT);
    result
}

/// How long a finished command waits for blocking tasks it no longer needs.
const BLOCKING_TASKS_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    /// A command returns even while a blocking task it started still runs (an extraction
    /// abandoned at shutdown): the process can exit.
    #[test]
    fn a_command_ends_while_a_blocking_task_still_runs() {
        let (never_tx, never_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let result = super::block_on(async move {
                tokio::task::spawn_blocking(move || {
                    let _ = never_rx.recv();
                });
                Ok(())
            });
            let _ = done_tx.send(result.is_ok());
        });
        // Bounded: without the fix the command never returns.
        let returned = done_rx.recv_timeout(Duration::from_secs(60));
        assert_eq!(returned, Ok(true));
        drop(never_tx);
    }
}
