//! Politeness: how many requests are in flight, in total and per host, and how often a request
//! to one host may start.
//!
//! [`Politeness::acquire`] hands out a [`Permit`] that a request holds from before it is sent
//! until its body has been read. In order, a request waits for
//! 1. one of the host's `per_host_concurrency` permits,
//! 2. the host's start gate: `per_host_delay_ms` after the previous request to the host
//!    started (the gate is held while waiting, so starts to one host are serialized),
//! 3. one of the `concurrency` global permits, taken last so that a request sleeping out a
//!    host's delay never holds a slot that another host could use.
//!
//! Hosts are keyed by host name or IP literal, without the port: politeness is owed to a
//! machine, and two ports of one server share it (tests use 127.0.0.1, 127.0.0.2, … as
//! distinct hosts). The table forgets hosts that are idle — nothing in flight or waiting and
//! their delay elapsed — whenever it has grown past a threshold, so a daemon that meets
//! millions of image hosts keeps only the busy ones.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The table is swept when it holds at least this many hosts (or twice what the last sweep
/// left, whichever is more).
const MIN_SWEEP_AT: usize = 256;

/// Global and per-host limits.
#[derive(Debug)]
pub struct Politeness {
    global: Arc<Semaphore>,
    per_host: usize,
    delay: Duration,
    table: Mutex<HostTable>,
}

#[derive(Debug)]
struct HostTable {
    hosts: HashMap<String, Arc<HostState>>,
    sweep_at: usize,
}

#[derive(Debug)]
struct HostState {
    permits: Arc<Semaphore>,
    /// The earliest instant the next request to this host may start.
    next_start: tokio::sync::Mutex<Instant>,
}

/// Held while a request is in flight; dropping it frees both slots.
#[derive(Debug)]
pub struct Permit {
    _global: OwnedSemaphorePermit,
    _host: OwnedSemaphorePermit,
    _state: Arc<HostState>,
}

impl Politeness {
    pub fn new(concurrency: usize, per_host: usize, delay: Duration) -> Politeness {
        Politeness {
            global: Arc::new(Semaphore::new(concurrency.max(1))),
            per_host: per_host.max(1),
            delay,
            table: Mutex::new(HostTable {
                hosts: HashMap::new(),
                sweep_at: MIN_SWEEP_AT,
            }),
        }
    }

    /// Waits until a request to `host` may start. `None` only if a semaphore was closed,
    /// which never happens.
    pub async fn acquire(&self, host: &str) -> Option<Permit> {
        let state = self.state_for(host);
        let host_permit = Arc::clone(&state.permits).acquire_owned().await.ok()?;
        let mut next_start = state.next_start.lock().await;
        tokio::time::sleep_until(*next_start).await;
        let global = Arc::clone(&self.global).acquire_owned().await.ok()?;
        *next_start = Instant::now() + self.delay;
        drop(next_start);
        Some(Permit {
            _global: global,
            _host: host_permit,
            _state: state,
        })
    }

    /// How many hosts the table holds now.
    pub fn tracked_hosts(&self) -> usize {
        self.lock_table().hosts.len()
    }

    fn lock_table(&self) -> std::sync::MutexGuard<'_, HostTable> {
        // The table holds no invariant a panicking holder could break half-way.
        self.table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn state_for(&self, host: &str) -> Arc<HostState> {
        let mut table = self.lock_table();
        if let Some(state) = table.hosts.get(host) {
            return Arc::clone(state);
        }
        if table.hosts.len() >= table.sweep_at {
            let now = Instant::now();
            table.hosts.retain(|_, state| !state.is_idle(now));
            table.sweep_at = MIN_SWEEP_AT.max(table.hosts.len() * 2);
            tracing::debug!(hosts = table.hosts.len(), "forgot idle hosts");
        }
        let state = Arc::new(HostState {
            permits: Arc::new(Semaphore::new(self.per_host)),
            next_start: tokio::sync::Mutex::new(Instant::now()),
        });
        table.hosts.insert(host.to_string(), Arc::clone(&state));
        state
    }
}

impl HostState {
    /// Nobody holds or waits for this host (only the table refers to it) and its delay has
    /// passed, so forgetting it changes nothing.
    fn is_idle(self: &Arc<Self>, now: Instant) -> bool {
        Arc::strong_count(self) == 1
            && self
                .next_start
                .try_lock()
                .is_ok_and(|next_start| *next_start <= now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn idle_hosts_are_forgotten() {
        let politeness = Politeness::new(4, 1, Duration::ZERO);
        for i in 0..2_000 {
            let permit = politeness.acquire(&format!("host{i}.example")).await;
            assert!(permit.is_some());
        }
        assert!(politeness.tracked_hosts() <= MIN_SWEEP_AT);
    }

    #[tokio::test]
    async fn busy_hosts_are_kept() {
        let politeness = Politeness::new(1_000, 1, Duration::ZERO);
        let mut held = Vec::new();
        for i in 0..300 {
            held.push(politeness.acquire(&format!("busy{i}.example")).await);
        }
        for i in 0..300 {
            let _ = politeness.acquire(&format!("idle{i}.example")).await;
        }
        // Every busy host survives the sweeps.
        assert!(politeness.tracked_hosts() >= 300);
        drop(held);
    }

    #[tokio::test]
    async fn delay_between_starts() {
        let politeness = Politeness::new(4, 4, Duration::from_millis(100));
        let start = Instant::now();
        let first = politeness.acquire("a.example").await;
        let second = politeness.acquire("a.example").await;
        assert!(first.is_some() && second.is_some());
        assert!(start.elapsed() >= Duration::from_millis(100));
        let other = Instant::now();
        let _third = politeness.acquire("b.example").await;
        assert!(other.elapsed() < Duration::from_millis(100));
    }
}
