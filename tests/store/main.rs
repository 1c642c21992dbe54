//! The store, one test binary: the suite on both backends, schema and set-up, leases and
//! replicas, durability and crashes, verdicts, site templates and tags as stored.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "../api_support/mod.rs"]
mod api_support;

mod durability;
mod site_template_store;
mod store;
mod store_leases;
mod store_schema;
mod store_setup;
mod tags;
mod verdict_store;

/// Tests that take many seconds (real `gleaner run` processes killed and restarted):
/// `cargo test -- --skip slow::` leaves them out.
mod slow {
    mod crash;
    mod replicas;
}
