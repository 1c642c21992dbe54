//! The interfaces, one test binary: the HTTP API, the command line, the MCP server, the web
//! view (in a browser too) and the configuration file.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "../api_support/mod.rs"]
mod api_support;

mod api;
mod claim_results;
mod cli;
mod cli_query;
mod cli_retention;
mod config;
mod mcp;
mod outputs;
mod web_view;
mod web_view_browser;
