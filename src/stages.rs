//! CPU time per pipeline stage: the breakdown `cargo bench --bench ingest` prints, so that a
//! change is judged by the stages it makes dearer, not by its feature alone.
//!
//! Off unless [`enable`] was called (the bench calls it; the daemon does not): then every
//! [`measure`] reads the calling thread's CPU clock on entry and exit. Stages nest (a page's
//! parse holds its DOM pass, the cascade holds its quality estimates), and each is charged its
//! *self* time: what it spent outside the stages it called, so that the rows add up to the
//! measured part of the process's CPU. Allocations are charged the same way (the allocator's
//! count for the thread, [`crate::allocator::thread_allocations`]). What is not measured here (HTTP, the async runtime,
//! the database driver's own threads) is the rest of the process's time.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A measured stage, declared in the order the breakdown prints: its discriminant is its
/// index in [`Stage::ALL`] and in the totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// A feed document parsed into entries.
    FeedParse,
    /// A page decoded and parsed into a DOM (`tidy`).
    PageParse,
    /// The shared statistics pass over the DOM.
    DomStats,
    /// The page-type detector.
    PageType,
    /// The site's template learned or applied.
    Template,
    /// The extraction cascade itself (CUTER and the rules that choose).
    Cascade,
    /// ECON's candidate, when it runs.
    Econ,
    /// CETR's candidate, when it runs.
    Cetr,
    /// The content scorer's second opinion, when it runs.
    Readability,
    /// The quality estimate (features and model).
    Quality,
    /// The verdict: what the page is.
    Verdict,
    /// Author, date, lead image and site name read from the page.
    Metadata,
    /// Sanitizing HTML (the article's body, summaries, feed texts).
    Sanitize,
    /// The article's language detected.
    Language,
    /// The feed entry's own text rendered.
    FeedText,
    /// The near-duplicate fingerprint.
    Fingerprint,
    /// The raw page compressed for storage.
    Compress,
}

impl Stage {
    /// Every stage, in the order the breakdown prints them.
    pub const ALL: [Stage; 17] = [
        Stage::FeedParse,
        Stage::PageParse,
        Stage::DomStats,
        Stage::PageType,
        Stage::Template,
        Stage::Cascade,
        Stage::Econ,
        Stage::Cetr,
        Stage::Readability,
        Stage::Quality,
        Stage::Verdict,
        Stage::Metadata,
        Stage::Sanitize,
        Stage::Language,
        Stage::FeedText,
        Stage::Fingerprint,
        Stage::Compress,
    ];

    /// The name the breakdown prints.
    pub fn name(self) -> &'static str {
        match self {
            Stage::FeedParse => "feed_parse",
            Stage::PageParse => "page_parse",
            Stage::DomStats => "dom_stats",
            Stage::PageType => "page_type",
            Stage::Cascade => "cascade",
            Stage::Econ => "econ",
            Stage::Cetr => "cetr",
            Stage::Readability => "readability",
            Stage::Quality => "quality",
            Stage::Verdict => "verdict",
            Stage::Metadata => "metadata",
            Stage::Sanitize => "sanitize",
            Stage::Template => "template",
            Stage::FeedText => "feed_text",
            Stage::Language => "language",
            Stage::Fingerprint => "fingerprint",
            Stage::Compress => "compress",
        }
    }
}

static ENABLED: AtomicBool = AtomicBool::new(false);
static NANOS: [AtomicU64; Stage::ALL.len()] = [const { AtomicU64::new(0) }; Stage::ALL.len()];
static CALLS: [AtomicU64; Stage::ALL.len()] = [const { AtomicU64::new(0) }; Stage::ALL.len()];
static ALLOCATIONS: [AtomicU64; Stage::ALL.len()] = [const { AtomicU64::new(0) }; Stage::ALL.len()];

/// What the stages nested in an open stage took: CPU nanoseconds and allocations.
#[derive(Default)]
struct Inner {
    nanos: u64,
    allocations: u64,
}

thread_local! {
    /// For each stage open on this thread, innermost last: what its inner stages took.
    static OPEN: RefCell<Vec<Inner>> = const { RefCell::new(Vec::new()) };
}

/// Turns the measurement on for the rest of the process, the count of allocations with it
/// ([`crate::allocator::count_allocations`]).
pub fn enable() {
    crate::allocator::count_allocations();
    ENABLED.store(true, Ordering::Relaxed);
}

fn thread_nanos() -> Option<u64> {
    cpu_time::ThreadTime::try_now()
        .ok()
        .map(|t| t.as_duration().as_nanos() as u64)
}

/// Runs `work` as `stage`, charging the stage its self time and its own allocations when the
/// measurement is on.
pub fn measure<T>(stage: Stage, work: impl FnOnce() -> T) -> T {
    if !ENABLED.load(Ordering::Relaxed) {
        return work();
    }
    let Some(start) = thread_nanos() else {
        return work();
    };
    OPEN.with(|open| open.borrow_mut().push(Inner::default()));
    let allocations_before = crate::allocator::thread_allocations();
    let out = work();
    let allocations = crate::allocator::thread_allocations().saturating_sub(allocations_before);
    let elapsed = thread_nanos().map_or(0, |end| end.saturating_sub(start));
    OPEN.with(|open| {
        let mut open = open.borrow_mut();
        let inner = open.pop().unwrap_or_default();
        if let Some(parent) = open.last_mut() {
            parent.nanos += elapsed;
            parent.allocations += allocations;
        }
        let index = stage as usize;
        NANOS[index].fetch_add(elapsed.saturating_sub(inner.nanos), Ordering::Relaxed);
        ALLOCATIONS[index].fetch_add(
            allocations.saturating_sub(inner.allocations),
            Ordering::Relaxed,
        );
        CALLS[index].fetch_add(1, Ordering::Relaxed);
    });
    out
}

/// One stage's totals so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageTotal {
    pub stage: Stage,
    /// CPU seconds charged to it (self time).
    pub cpu_seconds: f64,
    /// How many times it ran.
    pub calls: u64,
    /// Allocations it made itself (its nested stages' left out).
    pub allocations: u64,
}

/// Every stage's totals so far, in [`Stage::ALL`]'s order.
pub fn totals() -> Vec<StageTotal> {
    Stage::ALL
        .iter()
        .enumerate()
        .map(|(index, &stage)| StageTotal {
            stage,
            cpu_seconds: NANOS[index].load(Ordering::Relaxed) as f64 / 1e9,
            calls: CALLS[index].load(Ordering::Relaxed),
            allocations: ALLOCATIONS[index].load(Ordering::Relaxed),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(rounds: u64) -> u64 {
        (0..rounds).fold(0u64, |acc, x| acc.wrapping_mul(31).wrapping_add(x))
    }

    #[test]
    fn every_stage_stands_at_its_own_index() {
        for (index, stage) in Stage::ALL.iter().enumerate() {
            assert_eq!(*stage as usize, index, "{stage:?}");
        }
    }

    #[test]
    fn a_nested_stage_is_charged_to_itself_not_to_its_caller() {
        enable();
        let before = totals();
        measure(Stage::Cascade, || {
            std::hint::black_box(spin(2_000_000));
            measure(Stage::Quality, || std::hint::black_box(spin(20_000_000)));
        });
        let after = totals();
        let gained = |stage: Stage| {
            let index = stage as usize;
            (
                after[index].cpu_seconds - before[index].cpu_seconds,
                after[index].calls - before[index].calls,
            )
        };
        let (cascade, cascade_calls) = gained(Stage::Cascade);
        let (quality, quality_calls) = gained(Stage::Quality);
        assert_eq!((cascade_calls, quality_calls), (1, 1));
        // Ten times the work inside: the caller keeps only its own part.
        assert!(quality > cascade, "quality {quality} cascade {cascade}");
    }

    #[test]
    fn a_nested_stages_allocations_are_its_own() {
        enable();
        let before = totals();
        // The outer stage is one no unit test runs (compression is the pipeline's); the inner
        // one may gain from other tests running at once, so it is bounded from below only.
        measure(Stage::Compress, || {
            let outer: Vec<Box<u32>> = (0..10).map(Box::new).collect();
            let inner = measure(Stage::FeedParse, || {
                (0..50).map(Box::new).collect::<Vec<Box<u32>>>()
            });
            std::hint::black_box((outer, inner));
        });
        let after = totals();
        let gained = |stage: Stage| {
            let index = stage as usize;
            after[index].allocations - before[index].allocations
        };
        // Ten boxes and their vector; fifty and theirs.
        assert_eq!(gained(Stage::Compress), 11);
        assert!(gained(Stage::FeedParse) >= 51);
    }
}
