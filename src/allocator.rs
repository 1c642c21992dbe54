//! How the process's memory allocator is set up.
//!
//! glibc's malloc gives every thread that meets contention an arena of its own, up to eight per
//! core. gleaner's threads (the async runtime's workers, the blocking pool that extracts pages)
//! each allocate and free whole pages and DOMs, so each arena keeps its own high-water mark
//! of freed memory: a third of the peak RSS of a poll was arenas holding free space.
//! [`limit_arenas`] caps them at one per core, which keeps the rate (threads of one core rarely
//! contend) and the peak RSS down. Other C libraries are left as they are.

/// Caps glibc's malloc arenas at one per core; call once, early in `main`. Does nothing when
/// the process does not run on glibc, or when `MALLOC_ARENA_MAX` is set (the operator's
/// choice wins).
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
            return;
        }
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
        // SAFETY: `mallopt` only changes a tunable of the allocator; glibc serialises it
        // against allocations, and `M_ARENA_MAX` takes effect for arenas created afterwards.
        let accepted = unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) };
        if accepted == 0 {
            tracing::debug!(arenas, "malloc did not accept an arena limit");
        }
    }
}
