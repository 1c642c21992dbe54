//! Failed authentications per client address: what keeps the API token from being guessed at
//! speed, through the bearer check or the web view's sign-in form.
//!
//! Each client (an IPv4 address, or an IPv6 /64: one subscriber's network) may fail
//! [`FREE_FAILURES`] times; every failure after that locks it out for twice as long as the
//! previous one, from one second up to [`MAX_LOCKOUT`], and while locked out its
//! authenticated requests are answered `429` with `Retry-After` before any token is looked
//! at. A client without a failure for [`FORGET_AFTER`] starts afresh, and so does one that
//! authenticates. The table holds at most [`MAX_CLIENTS`] clients: when full, the forgotten
//! and then the unlocked ones go; a new client that still finds no room is refused as if
//! locked out (failing closed). Failures are logged at most once per [`LOG_INTERVAL`], one
//! line counting them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Failures a client may make before it is locked out.
pub const FREE_FAILURES: u32 = 10;
/// The longest lockout.
pub const MAX_LOCKOUT: Duration = Duration::from_secs(15 * 60);
/// A client without a failure this long is forgotten.
pub const FORGET_AFTER: Duration = Duration::from_secs(60 * 60);
/// At most this many clients are tracked (some 64 bytes each).
pub const MAX_CLIENTS: usize = 16_384;
/// At most one log line about failures per this interval.
pub const LOG_INTERVAL: Duration = Duration::from_secs(60);

/// A client, as far as limiting goes: an IPv4 address, or the /64 network of an IPv6 one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientKey(u128);

impl ClientKey {
    pub fn of(address: IpAddr) -> ClientKey {
        match address {
            IpAddr::V4(v4) => ClientKey(u128::from(u32::from(v4))),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey(u128::from(u32::from(v4))),
                None => ClientKey((u128::from(v6) & !u128::from(u64::MAX)) | (1 << 127)),
            },
        }
    }
}

/// The address a connection came from: put on each of its requests by the server.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddress(pub IpAddr);

#[derive(Debug, Clone, Copy)]
struct Client {
    failures: u32,
    last_failure: Instant,
    locked_until: Option<Instant>,
}

/// The failures of every client, shared by the bearer check and the sign-in form.
#[derive(Debug, Clone, Default)]
pub struct FailedAttempts {
    inner: Arc<Mutex<Table>>,
}

/// What one log line of failed authentications says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FailureLine {
    /// Failures since the previous line.
    failures: u64,
    /// Clients locked out now.
    clients_locked_out: usize,
}

#[derive(Debug, Default)]
struct Table {
    clients: HashMap<ClientKey, Client>,
    /// Failures since the last log line, and when that line was written.
    unlogged: u64,
    logged_at: Option<Instant>,
}

impl FailedAttempts {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// How long `client` must wait before its next attempt; `None` when it may try now.
    pub fn locked_out(&self, client: IpAddr) -> Option<Duration> {
        let now = Instant::now();
        let mut table = self.lock();
        let key = ClientKey::of(client);
        if let Some(entry) = table.clients.get(&key) {
            return entry
                .locked_until
                .and_then(|until| until.checked_duration_since(now))
                .filter(|wait| !wait.is_zero());
        }
        if table.clients.len() >= MAX_CLIENTS {
            table.make_room(now);
        }
        // No room even for this client's failures: it waits like a locked-out one.
        (table.clients.len() >= MAX_CLIENTS).then_some(Duration::from_secs(1))
    }

    /// Records a failed authentication of `client` (`what`: which check) and logs, at a
    /// bounded rate, how many there were.
    pub fn failed(&self, client: IpAddr, what: &'static str) {
        if let Some(line) = self.record_failure(client, Instant::now()) {
            tracing::warn!(
                failures = line.failures,
                clients_locked_out = line.clients_locked_out,
                last = what,
                "failed API authentications (wrong token) since the last such line"
            );
        }
    }

    /// Records a failed authentication of `client` at `now`; the log line it makes due, if
    /// any (at most one per [`LOG_INTERVAL`]).
    fn record_failure(&self, client: IpAddr, now: Instant) -> Option<FailureLine> {
        let key = ClientKey::of(client);
        let mut table = self.lock();
        if !table.clients.contains_key(&key) && table.clients.len() >= MAX_CLIENTS {
            table.make_room(now);
        }
        if table.clients.contains_key(&key) || table.clients.len() < MAX_CLIENTS {
            let entry = table.clients.entry(key).or_insert(Client {
                failures: 0,
                last_failure: now,
                locked_until: None,
            });
            if now.duration_since(entry.last_failure) > FORGET_AFTER {
                entry.failures = 0;
            }
            entry.failures = entry.failures.saturating_add(1);
            entry.last_failure = now;
            entry.locked_until = lockout(entry.failures).map(|wait| now + wait);
        }
        table.unlogged += 1;
        let due = table
            .logged_at
            .is_none_or(|at| now.duration_since(at) >= LOG_INTERVAL);
        if !due {
            return None;
        }
        let clients_locked_out = table
            .clients
            .values()
            .filter(|c| c.locked_until.is_some_and(|until| until > now))
            .count();
        let line = FailureLine {
            failures: table.unlogged,
            clients_locked_out,
        };
        table.unlogged = 0;
        table.logged_at = Some(now);
        Some(line)
    }

    /// `client` authenticated: its failures are forgotten.
    pub fn succeeded(&self, client: IpAddr) {
        let mut table = self.lock();
        if !table.clients.is_empty() {
            table.clients.remove(&ClientKey::of(client));
        }
    }

    /// Clients tracked now.
    pub fn tracked(&self) -> usize {
        self.lock().clients.len()
    }
}

impl Table {
    /// Drops the forgotten clients, then, if that is not enough, the ones not locked out.
    fn make_room(&mut self, now: Instant) {
        self.clients
            .retain(|_, c| now.duration_since(c.last_failure) <= FORGET_AFTER);
        if self.clients.len() >= MAX_CLIENTS {
            self.clients
                .retain(|_, c| c.locked_until.is_some_and(|until| until > now));
        }
    }
}

/// A `Retry-After` value for `wait`: whole seconds, rounded up, at least one.
pub fn retry_after(wait: Duration) -> axum::http::HeaderValue {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    axum::http::HeaderValue::from(seconds.max(1))
}

/// The lockout after a client's `failures`th failure: none for the free ones, then one
/// second, doubling, at most [`MAX_LOCKOUT`].
fn lockout(failures: u32) -> Option<Duration> {
    let beyond = failures.checked_sub(FREE_FAILURES)?;
    let doubled = Duration::from_secs(1).saturating_mul(1 << beyond.min(20));
    Some(doubled.min(MAX_LOCKOUT))
}

/// What `run` logs, as text (for tests of what is logged).
#[cfg(test)]
pub(crate) fn logged(run: impl FnOnce()) -> String {
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        // Other test threads register and drop subscribers of their own; an interest cached
        // while none of them wanted a callsite would hide its events from this one.
        tracing::callsite::rebuild_interest_cache();
        run();
    });
    let bytes = captured
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lockouts_double_after_the_free_failures_and_are_capped() {
        assert_eq!(lockout(FREE_FAILURES - 1), None);
        assert_eq!(lockout(FREE_FAILURES), Some(Duration::from_secs(1)));
        assert_eq!(lockout(FREE_FAILURES + 3), Some(Duration::from_secs(8)));
        assert_eq!(lockout(u32::MAX), Some(MAX_LOCKOUT));
    }

    #[test]
    fn a_client_is_locked_out_after_its_free_failures_and_freed_by_success() {
        let attempts = FailedAttempts::default();
        let client: IpAddr = "192.0.2.7".parse().unwrap();
        let neighbour: IpAddr = "192.0.2.8".parse().unwrap();
        for _ in 1..FREE_FAILURES {
            attempts.failed(client, "test");
            assert_eq!(attempts.locked_out(client), None);
        }
        attempts.failed(client, "test");
        assert!(attempts.locked_out(client).is_some());
        assert_eq!(attempts.locked_out(neighbour), None);
        attempts.succeeded(client);
        assert_eq!(attempts.locked_out(client), None);
    }

    #[test]
    fn an_ipv6_network_is_one_client() {
        let a = ClientKey::of("2001:db8:1:2::1".parse().unwrap());
        let b = ClientKey::of("2001:db8:1:2:ffff::9".parse().unwrap());
        let c = ClientKey::of("2001:db8:1:3::1".parse().unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mapped = ClientKey::of("::ffff:192.0.2.7".parse().unwrap());
        assert_eq!(mapped, ClientKey::of("192.0.2.7".parse().unwrap()));
    }

    #[test]
    fn a_burst_of_failures_is_one_log_line() {
        // The decision, not a captured log: a subscriber scoped to one test thread is not
        // reliably asked while other test threads register and drop their own.
        let attempts = FailedAttempts::default();
        let start = Instant::now();
        let lines: Vec<FailureLine> = (0..5_000u32)
            .filter_map(|n| {
                let client = IpAddr::from((n % 300).to_be_bytes());
                attempts.record_failure(client, start + Duration::from_millis(u64::from(n) / 100))
            })
            .collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert_eq!(lines[0].failures, 1);
        // The next line, an interval later, counts every failure in between.
        let later = attempts.record_failure(
            IpAddr::from([192, 0, 2, 9]),
            start + LOG_INTERVAL + Duration::from_secs(1),
        );
        assert_eq!(later.map(|line| line.failures), Some(5_000));
    }

    #[test]
    fn the_table_stays_bounded_under_many_addresses() {
        let attempts = FailedAttempts::default();
        for n in 0..(MAX_CLIENTS as u32 + 100) {
            attempts.failed(IpAddr::from(n.to_be_bytes()), "test");
        }
        assert!(attempts.tracked() <= MAX_CLIENTS);
    }
}
