//! Regular expressions that the extraction threads share, with one stack of search caches per
//! pattern.
//!
//! A regular expression needs a mutable search cache (its lazy DFA's states, the NFA
//! simulation's sets). `regex::Regex` keeps one for the first thread that uses it and files
//! the caches of every other thread in one of eight stacks chosen by the thread's number.
//! Extraction runs on the runtime's blocking pool, whose threads come and go as fetches,
//! decompression and database work need them: a thread new to extraction finds its stack
//! empty and builds caches of its own, which stay when the thread ends. The label patterns'
//! caches are large (Unicode case folding and classes make automata of thousands of states:
//! 110–210 KB each for the comments and related-content labels): after a first poll of
//! 1,000 feeds, jemalloc's heap profile found 7.7 MB of the 9 MB still allocated in them
//! (docs/performance.md, "Search caches bounded by the searches running at once").
//!
//! [`SharedPattern`] keeps its caches in one stack whatever the thread: there are as many as
//! searches have run at the same moment, at most the extraction permits (one per core), or
//! `gleaner eval`'s worker threads.

use std::sync::{Mutex, MutexGuard, PoisonError};

use regex_automata::Input;
use regex_automata::meta::{Cache, Regex};

/// A compiled pattern and the search caches its users return.
pub(crate) struct SharedPattern {
    regex: Regex,
    caches: Mutex<IdleCaches>,
}

/// Idle search caches, boxed: a cache is a value of 1.4 KB, copied twice per search when it
/// moved in and out of the stack itself (7 M instructions on cleaneval); only its address
/// does.
type IdleCaches = Vec<Box<Cache>>;

impl SharedPattern {
    /// Compiles `pattern` with `regex::Regex`'s syntax and semantics; `None` when it does not
    /// compile (callers treat a missing pattern as one that matches nothing).
    pub(crate) fn new(pattern: &str) -> Option<SharedPattern> {
        let regex = Regex::new(pattern).ok()?;
        Some(SharedPattern {
            regex,
            caches: Mutex::new(Vec::new()),
        })
    }

    /// Whether the pattern matches anywhere in `text`.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let taken = self.stack().pop();
        let mut cache = taken.unwrap_or_else(|| Box::new(self.regex.create_cache()));
        let found = self
            .regex
            .search_half_with(&mut cache, &Input::new(text).earliest(true))
            .is_some();
        self.stack().push(cache);
        found
    }

    /// The stack of idle caches. A panic elsewhere while it was locked leaves it whole: a
    /// vector of caches has no state to break.
    fn stack(&self) -> MutexGuard<'_, IdleCaches> {
        self.caches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many search caches the pattern holds now.
    #[cfg(test)]
    fn cache_count(&self) -> usize {
        self.stack().len()
    }
}

#[cfg(test)]
mod tests {
    use super::SharedPattern;

    #[test]
    fn matches_as_the_regex_crate_does() {
        let Some(pattern) = SharedPattern::new(r"(?i)^(?:related|читайте\s+также)[\s.…:!]*$")
        else {
            panic!("the pattern compiles");
        };
        for text in ["Related", "RELATED:", "Читайте также", "ЧИТАЙТЕ ТАКЖЕ…"]
        {
            assert!(pattern.is_match(text), "{text:?}");
        }
        for text in ["Related articles below", "", "также"] {
            assert!(!pattern.is_match(text), "{text:?}");
        }
        assert!(SharedPattern::new(r"(unclosed").is_none());
    }

    #[test]
    fn threads_that_take_turns_share_one_cache() {
        let Some(pattern) = SharedPattern::new(r"(?i)\bcomments?\b") else {
            panic!("the pattern compiles");
        };
        // Eight threads, one after another, as blocking-pool threads that come and go.
        for _ in 0..8 {
            std::thread::scope(|scope| {
                scope.spawn(|| assert!(pattern.is_match("12 Comments")));
            });
        }
        assert_eq!(pattern.cache_count(), 1);
    }
}
