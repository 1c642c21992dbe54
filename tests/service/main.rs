//! The service, one test binary: feeds and their formats, the fetcher, ingestion end to end,
//! the daemon and its polls, webhooks, security limits, `gleaner run` and the deployment files.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[path = "../fetch_support/mod.rs"]
mod fetch_support;

mod cli_run;
mod deploy;
mod feed;
mod feed_controls;
mod feed_formats;
mod feeds_discovery;
mod fetch;
mod ingest;
mod security;
mod webhooks;

/// Tests that take many seconds (real `gleaner run` processes reloaded, stopped by signals and
/// waited for): `cargo test -- --skip slow::` leaves them out.
mod slow {
    mod daemon;
    mod stopped_polls;
}
