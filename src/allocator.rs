//! How the process's memory allocator is set up.
//!
//! glibc's malloc keeps freed memory for reuse, and two of its defaults make a poll's peak RSS
//! grow past what is live at any moment:
//!
//! * **Arenas.** Every thread that meets contention gets an arena of its own, up to eight per
//!   core. gleaner's threads (the async runtime's workers, the blocking pool that extracts
//!   pages) each allocate and free whole pages and DOMs, so each arena keeps its own
//!   high-water mark of freed memory: a third of the peak RSS of a poll was arenas holding
//!   free space. They are capped at one per core, which keeps the rate (threads of one core
//!   rarely contend) and the peak RSS down.
//! * **The mmap threshold.** A block of 128 KiB or more is mapped on its own and given back
//!   to the system when freed, but glibc raises that threshold to the size of every mapped
//!   block that is freed (up to 32 MiB). After the first large page body is freed, page
//!   bodies and the buffers built from them (hundreds of KiB to a few MiB each) are carved
//!   from the arenas instead, and the arenas keep their high-water marks. The threshold is
//!   held at 128 KiB, so a page's buffers go back to the system when the page is done.
//!
//! Figures (peak RSS at 1,000 feeds × 20 articles) are in `docs/performance.md`. An operator's
//! own setting (`MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`) wins; other C libraries are left
//! as they are.

/// The size from which a block is mapped on its own: glibc's starting value, held fixed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD_BYTES: libc::c_int = 128 * 1024;

/// Caps glibc's malloc arenas at one per core and holds the mmap threshold at 128 KiB; call
/// once, early in `main`. Does nothing when the process does not run on glibc; a setting
/// the operator made in the environment is left alone.
pub fn bound_retained_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
            let cores = std::thread::available_parallelism().map_or(2, usize::from);
            let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
            set_malloc_option(libc::M_ARENA_MAX, arenas, "arena limit");
        }
        if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
            set_malloc_option(
                libc::M_MMAP_THRESHOLD,
                MMAP_THRESHOLD_BYTES,
                "mmap threshold",
            );
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_malloc_option(option: libc::c_int, value: libc::c_int, what: &str) {
    // SAFETY: `mallopt` only changes a tunable of the allocator; glibc serialises it against
    // allocations. `M_ARENA_MAX` applies to arenas created afterwards; setting
    // `M_MMAP_THRESHOLD` also turns off its dynamic adjustment.
    let accepted = unsafe { libc::mallopt(option, value) };
    if accepted == 0 {
        tracing::debug!(value, "malloc did not accept the {what}");
    }
}
