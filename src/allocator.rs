//! How the process's memory allocators are set up.
//!
//! **Rust's allocations go to jemalloc.** A poll allocates and frees a whole DOM per page on
//! the extraction threads while the runtime's workers allocate request and row buffers.
//! glibc's malloc served that from arenas shared by the threads and locked on every call; the
//! arena locks and the free-list work (coalescing, unlinking) were an eighth of all CPU
//! samples of an ingestion run, and threads waiting on them left the cores idle. jemalloc's
//! per-thread caches serve most calls without a lock. Its defaults keep freed memory for ten
//! seconds in an arena per four threads; [`JEMALLOC_OPTIONS`] trades a little of the speed
//! back for a peak RSS close to glibc's: one arena, freed pages given back after 50 ms, and
//! thread caches only for blocks up to 512 bytes (the large ones, a page's buffers, go back to
//! the arena at once). Figures in `docs/performance.md`, "A task per feed, and jemalloc".
//! The allocator counts allocations, per thread and in all, once [`count_allocations`] is
//! called: the ingest bench's allocations per stage (`crate::stages`).
//!
//! An operator's `_RJEM_MALLOC_CONF` (jemalloc's `MALLOC_CONF`, under the prefix this build of
//! jemalloc uses) is read after these options and wins.
//!
//! **C libraries keep glibc's malloc** (SQLite's page cache and statements). Two of its
//! defaults make peak RSS grow past what is live at any moment, so [`bound_retained_memory`]
//! sets them:
//!
//! * **Arenas.** Every thread that meets contention gets an arena of its own, up to eight per
//!   core, each keeping its own high-water mark of freed memory. They are capped at one per
//!   core.
//! * **The mmap threshold.** A block of 128 KiB or more is mapped on its own and given back
//!   to the system when freed, but glibc raises that threshold to the size of every mapped
//!   block that is freed (up to 32 MiB), after which such blocks are carved from the arenas
//!   and their high-water marks stay resident. The threshold is held at 128 KiB.
//!
//! An operator's own setting (`MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`) wins; other C
//! libraries are left as they are.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: Counting = Counting;

/// jemalloc, with a count of allocations when [`count_allocations`] turned it on (the ingest
/// bench does; the daemon does not, and pays one relaxed load per call).
#[cfg(not(target_env = "msvc"))]
struct Counting;

/// Whether allocations are counted.
static COUNTING: AtomicBool = AtomicBool::new(false);

/// Allocations of the whole process since counting began.
static PROCESS_ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Allocations made on this thread since counting began. A `const` cell with no destructor:
    /// reading it never allocates, so the allocator may.
    static THREAD_ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// One allocation (a `realloc` counts as one), when counting.
#[inline]
fn note_allocation() {
    if COUNTING.load(Ordering::Relaxed) {
        PROCESS_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // A thread being torn down has no cell left: its last allocations go uncounted.
        let _ = THREAD_ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to jemalloc; counting touches no allocated memory.
#[cfg(not(target_env = "msvc"))]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { tikv_jemallocator::Jemalloc.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        unsafe { tikv_jemallocator::Jemalloc.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { tikv_jemallocator::Jemalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's contract for `realloc`, passed on.
        unsafe { tikv_jemallocator::Jemalloc.realloc(ptr, layout, new_size) }
    }
}

/// Turns the count of allocations on for the rest of the process.
pub fn count_allocations() {
    COUNTING.store(true, Ordering::Relaxed);
}

/// Allocations (and reallocations) the process made since [`count_allocations`].
pub fn process_allocations() -> u64 {
    PROCESS_ALLOCATIONS.load(Ordering::Relaxed)
}

/// Allocations the calling thread made since [`count_allocations`].
pub fn thread_allocations() -> u64 {
    THREAD_ALLOCATIONS.try_with(Cell::get).unwrap_or(0)
}

/// jemalloc's options, read when it starts (before `main`).
#[cfg(not(target_env = "msvc"))]
const JEMALLOC_OPTIONS: &std::ffi::CStr =
    c"narenas:1,dirty_decay_ms:50,muzzy_decay_ms:0,tcache_max:512";

/// jemalloc reads its compiled-in options from this symbol (`malloc_conf`, prefixed).
#[cfg(not(target_env = "msvc"))]
#[unsafe(export_name = "_rjem_malloc_conf")]
#[used]
static MALLOC_CONF: Option<&'static std::ffi::c_char> =
    // SAFETY: the pointer is to the first byte of a static, NUL-terminated string.
    Some(unsafe { &*JEMALLOC_OPTIONS.as_ptr() });

/// The size from which a block is mapped on its own: glibc's starting value, held fixed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD_BYTES: libc::c_int = 128 * 1024;

/// Caps glibc's malloc arenas at one per core and holds its mmap threshold at 128 KiB; call
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

#[cfg(all(test, not(target_env = "msvc")))]
mod tests {
    /// Reads a numeric jemalloc option through `mallctl`.
    fn option<T: Default>(name: &std::ffi::CStr) -> T {
        let mut value = T::default();
        let mut length = std::mem::size_of::<T>();
        // SAFETY: `value` is a `T` of `length` bytes, the type jemalloc documents for the
        // option read; nothing is written to jemalloc (`newp` null).
        let status = unsafe {
            tikv_jemalloc_sys::mallctl(
                name.as_ptr(),
                (&raw mut value).cast(),
                &mut length,
                std::ptr::null_mut(),
                0,
            )
        };
        assert_eq!(status, 0, "mallctl {name:?}");
        value
    }

    #[test]
    fn allocations_are_counted_on_the_thread_that_makes_them() {
        super::count_allocations();
        let (thread, process) = (super::thread_allocations(), super::process_allocations());
        let boxes: Vec<Box<u64>> = (0..100).map(Box::new).collect();
        std::hint::black_box(&boxes);
        // The vector and its hundred boxes, at least (a test harness thread may add its own).
        assert!(super::thread_allocations() - thread >= 101);
        assert!(super::process_allocations() - process >= 101);
    }

    /// The options are compiled in through a symbol jemalloc looks up when it starts; if
    /// the linker dropped it, jemalloc would silently run on its defaults (twice the RSS).
    #[test]
    fn jemalloc_runs_with_the_compiled_in_options() {
        if std::env::var_os("_RJEM_MALLOC_CONF").is_some() {
            return;
        }
        assert_eq!(option::<libc::c_uint>(c"opt.narenas"), 1);
        assert_eq!(option::<libc::ssize_t>(c"opt.dirty_decay_ms"), 50);
        assert_eq!(option::<libc::ssize_t>(c"opt.muzzy_decay_ms"), 0);
        assert_eq!(option::<libc::size_t>(c"opt.tcache_max"), 512);
    }
}
