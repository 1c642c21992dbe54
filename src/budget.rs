//! The time budget of CPU work on a blocking thread: a deadline that stops the work itself, not
//! only the wait for it.
//!
//! Owns [`within`] (runs a job with a deadline set for the current thread) and [`checkpoint`],
//! which the long loops of the pure stages call: parsing (a piece of the page at a time), the
//! pass before parsing, the DOM statistics pass, rendering and sanitizing. Past the deadline,
//! a checkpoint unwinds the job's stack with [`Exceeded`] (`std::panic::resume_unwind`, which
//! runs no panic hook and prints nothing), and [`within`] turns that into an error; every value
//! the job held is dropped on the way, its permits among them. Without a deadline (the command
//! line's `extract`, `eval`, the benches) a checkpoint costs a thread-local read.
//!
//! Trade-off: unwinding is the one way to stop html5ever's and ammonia's loops from inside
//! without a cancel argument through every stage's signature; the stages stay pure functions of
//! their input, and only work run by [`within`] can be stopped.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::time::Instant;

/// Checkpoints between two readings of the clock: one reading costs about as much as a
/// hundred checkpoints, and 256 of the cheapest loop's steps (a DOM node) take microseconds.
const CHECKPOINTS_PER_CLOCK: u32 = 256;

thread_local! {
    /// The deadline of the job [`within`] runs on this thread, if any.
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Checkpoints left before the clock is read again.
    static UNTIL_CLOCK: Cell<u32> = const { Cell::new(CHECKPOINTS_PER_CLOCK) };
}

/// A job stopped at a checkpoint past its deadline (also the unwinding payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the work ran past its deadline and was stopped")]
pub struct Exceeded;

/// Runs `job` on this thread with `deadline`: the first [`checkpoint`] it reaches after the
/// deadline stops it, and `Err(Exceeded)` is returned. A panic of the job's own goes on
/// unwinding. The thread's earlier deadline, if any, is restored afterwards.
pub fn within<T>(deadline: Instant, job: impl FnOnce() -> T) -> Result<T, Exceeded> {
    let outer = DEADLINE.with(|cell| cell.replace(Some(deadline)));
    UNTIL_CLOCK.with(|cell| cell.set(0));
    let outcome = catch_unwind(AssertUnwindSafe(job));
    DEADLINE.with(|cell| cell.set(outer));
    match outcome {
        Ok(done) => Ok(done),
        Err(payload) if payload.is::<Exceeded>() => Err(Exceeded),
        Err(payload) => resume_unwind(payload),
    }
}

/// Stops the job [`within`] runs on this thread when its deadline has passed (see the module
/// documentation); otherwise returns at once.
#[inline]
pub fn checkpoint() {
    let left = UNTIL_CLOCK.with(|cell| {
        let left = cell.get().saturating_sub(1);
        cell.set(left);
        left
    });
    if left == 0 {
        check_clock();
    }
}

#[cold]
fn check_clock() {
    UNTIL_CLOCK.with(|cell| cell.set(CHECKPOINTS_PER_CLOCK));
    if DEADLINE
        .with(Cell::get)
        .is_some_and(|deadline| Instant::now() >= deadline)
    {
        resume_unwind(Box::new(Exceeded));
    }
}

/// Whether this thread runs a job whose deadline has passed (for loops that end early on
/// their own rather than unwind, such as a reader handing a parser its input).
pub fn is_exceeded() -> bool {
    DEADLINE
        .with(Cell::get)
        .is_some_and(|deadline| Instant::now() >= deadline)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_job_past_its_deadline_stops_at_its_next_checkpoint() {
        let deadline = Instant::now() + Duration::from_millis(20);
        let stopped = within(deadline, || {
            loop {
                checkpoint();
            }
        });
        assert_eq!(stopped, Err::<(), _>(Exceeded));
        assert!(Instant::now() >= deadline);
        // Outside a job, checkpoints do nothing.
        for _ in 0..1000 {
            checkpoint();
        }
        assert_eq!(within(deadline + Duration::from_secs(60), || 7), Ok(7));
    }

    #[test]
    fn a_panic_of_the_job_goes_on_unwinding() {
        let deadline = Instant::now() + Duration::from_secs(60);
        let caught = catch_unwind(|| within(deadline, || panic!("its own")));
        assert!(caught.is_err());
    }
}
