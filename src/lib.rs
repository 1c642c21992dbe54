//! gleaner: a daemon that turns RSS/Atom/JSON feeds into a database of clean article bodies
//! and images. `ARCHITECTURE.md` describes the stages and the data between them.

pub mod allocator;
pub mod api;
pub mod budget;
pub mod cli;
pub mod config;
pub mod daemon;
pub mod eval;
pub mod extract;
pub mod feed;
pub mod fetch;
pub mod filter;
pub mod fingerprint;
pub mod format;
pub mod markdown;
pub mod mcp;
pub mod metrics;
pub mod outputs;
pub mod pipeline;
pub mod schedule;
pub mod stable_hash;
pub mod stages;
pub mod store;
pub mod telemetry;
pub mod tidy;
pub mod webhooks;
