//! robots.txt (RFC 9309): parsing, matching a path, and the per-origin cache.
//!
//! gleaner obeys the group whose `User-agent` names one of its product tokens (`gleaner`, the
//! product token of the configured `user_agent`, and for a feed with a `user_agent` of its own
//! that agent's token too, its robots.txt fetched with that agent and cached apart), matched
//! case-insensitively; without
//! such a group, the `*` group; without either, everything is allowed. Within the chosen
//! rules the longest matching pattern wins, `Allow` winning a tie; patterns support `*` and a
//! final `$`. `/robots.txt` itself is always allowed.
//!
//! What the fetcher does with the fetch result (in `super`): a 2xx body is parsed; a 4xx
//! (robots.txt missing) allows everything; a 5xx, a timeout or an unreachable server also
//! allows everything — RFC 9309 would disallow on 5xx, but gleaner fetches a handful of pages
//! that a feed itself advertised, and a broken robots.txt must not silence a publisher's feed.
//! Failures are cached for a shorter time ([`ERROR_TTL`]) than answers ([`TTL`]).
//!
//! The cache is keyed by origin (scheme, host, port), holds at most [`MAX_ORIGINS`], and makes
//! concurrent requests to one origin share a single robots.txt fetch.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// How long a fetched (or missing) robots.txt is trusted.
pub const TTL: Duration = Duration::from_secs(3600);
/// How long a failed robots.txt fetch (5xx, network) is remembered as "allow everything".
pub const ERROR_TTL: Duration = Duration::from_secs(600);
/// A robots.txt is truncated to this many bytes (RFC 9309 asks for at least 500 KiB).
pub const MAX_BYTES: u64 = 512 * 1024;
/// The most origins the cache remembers.
pub const MAX_ORIGINS: usize = 1024;

/// The rules that apply to gleaner in one robots.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Robots {
    rules: Vec<Rule>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    allow: bool,
    /// Normalized pattern without the final `$`.
    pattern: String,
    anchored: bool,
}

#[derive(Debug, Default)]
struct Group {
    agents: Vec<String>,
    rules: Vec<Rule>,
}

impl Robots {
    /// Allows everything.
    pub fn allow_all() -> Robots {
        Robots::default()
    }

    /// Parses a robots.txt for a crawler whose product tokens are `tokens` (lowercase).
    pub fn parse(text: &str, tokens: &[String]) -> Robots {
        let mut groups: Vec<Group> = Vec::new();
        let mut collecting_agents = false;
        for line in text.trim_start_matches('\u{feff}').lines() {
            let line = line.split('#').next().unwrap_or_default();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key.trim().to_ascii_lowercase().as_str() {
                "user-agent" => {
                    if !collecting_agents {
                        groups.push(Group::default());
                        collecting_agents = true;
                    }
                    if let Some(group) = groups.last_mut() {
                        group.agents.push(product_token(value));
                    }
                }
                key @ ("allow" | "disallow") => {
                    collecting_agents = false;
                    if value.is_empty() {
                        continue;
                    }
                    if let Some(group) = groups.last_mut() {
                        group.rules.push(Rule::new(key == "allow", value));
                    }
                }
                _ => {}
            }
        }
        let ours = |group: &&Group| group.agents.iter().any(|agent| tokens.contains(agent));
        let star = |group: &&Group| group.agents.iter().any(|agent| agent == "*");
        let chosen: Vec<&Group> = if groups.iter().any(|g| ours(&g)) {
            groups.iter().filter(ours).collect()
        } else {
            groups.iter().filter(star).collect()
        };
        Robots {
            rules: chosen.into_iter().flat_map(|g| g.rules.clone()).collect(),
        }
    }

    /// Whether `path` (path and query, as in the URL) may be fetched.
    pub fn is_allowed(&self, path: &str) -> bool {
        if path == "/robots.txt" {
            return true;
        }
        let mut best: Option<(usize, bool)> = None;
        for rule in &self.rules {
            if !rule.matches(path) {
                continue;
            }
            let length = rule.pattern.len() + usize::from(rule.anchored);
            best = match best {
                Some((best_length, best_allow))
                    if best_length > length || (best_length == length && best_allow) =>
                {
                    Some((best_length, best_allow))
                }
                _ => Some((length, rule.allow)),
            };
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// The product token of a `User-agent` value: `Gleaner/1.0 (x)` → `gleaner`.
pub fn product_token(value: &str) -> String {
    value
        .split(|c: char| c == '/' || c.is_whitespace())
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

impl Rule {
    fn new(allow: bool, value: &str) -> Rule {
        let (pattern, anchored) = match value.strip_suffix('$') {
            Some(rest) => (rest, true),
            None => (value, false),
        };
        // URLs arrive percent-encoded; encode the pattern's non-ASCII bytes the same way.
        let mut normalized = String::with_capacity(pattern.len());
        for c in pattern.chars() {
            if c.is_ascii() {
                normalized.push(c);
            } else {
                let mut buffer = [0u8; 4];
                for byte in c.encode_utf8(&mut buffer).bytes() {
                    normalized.push_str(&format!("%{byte:02X}"));
                }
            }
        }
        Rule {
            allow,
            pattern: normalized,
            anchored,
        }
    }

    /// Prefix match with `*` wildcards, or a whole match when anchored by `$`.
    fn matches(&self, path: &str) -> bool {
        let mut pieces = self.pattern.split('*');
        let first = pieces.next().unwrap_or_default();
        let Some(mut rest) = path.strip_prefix(first) else {
            return false;
        };
        let pieces: Vec<&str> = pieces.collect();
        let Some((last, middle)) = pieces.split_last() else {
            return !self.anchored || rest.is_empty();
        };
        for piece in middle {
            match rest.find(piece) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        if self.anchored {
            rest.ends_with(last)
        } else {
            rest.contains(last)
        }
    }
}

/// Per-origin cache of parsed robots.txt files.
#[derive(Debug, Default)]
pub struct RobotsCache {
    entries: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Cached>>>>>,
}

#[derive(Debug)]
struct Cached {
    robots: Arc<Robots>,
    expires: Instant,
}

impl RobotsCache {
    /// The rules for `origin`, calling `fetch` (which returns the rules and how long to keep
    /// them) when they are missing or stale. Concurrent callers for one origin wait for one
    /// fetch.
    pub async fn get_or_fetch<F, Fut>(&self, origin: &str, fetch: F) -> Arc<Robots>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = (Robots, Duration)>,
    {
        let slot = self.slot(origin);
        let mut cached = slot.lock().await;
        if let Some(entry) = cached.as_ref().filter(|e| e.expires > Instant::now()) {
            return Arc::clone(&entry.robots);
        }
        let (robots, ttl) = fetch().await;
        let robots = Arc::new(robots);
        *cached = Some(Cached {
            robots: Arc::clone(&robots),
            expires: Instant::now() + ttl,
        });
        robots
    }

    /// How many origins are cached.
    pub fn len(&self) -> usize {
        self.lock_entries().len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock_entries(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Mutex<Option<Cached>>>>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn slot(&self, origin: &str) -> Arc<tokio::sync::Mutex<Option<Cached>>> {
        let mut entries = self.lock_entries();
        if let Some(slot) = entries.get(origin) {
            return Arc::clone(slot);
        }
        if entries.len() >= MAX_ORIGINS {
            let now = Instant::now();
            // Forget stale entries first, then any that nobody is using.
            entries.retain(|_, slot| {
                Arc::strong_count(slot) > 1
                    || slot
                        .try_lock()
                        .is_ok_and(|c| c.as_ref().is_some_and(|c| c.expires > now))
            });
            if entries.len() >= MAX_ORIGINS {
                entries.retain(|_, slot| Arc::strong_count(slot) > 1);
            }
        }
        let slot = Arc::new(tokio::sync::Mutex::new(None));
        entries.insert(origin.to_string(), Arc::clone(&slot));
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Vec<String> {
        vec!["gleaner".to_string()]
    }

    #[test]
    fn star_group_and_longest_match() {
        let robots = Robots::parse(
            "User-agent: *\nDisallow: /private/\nAllow: /private/open\nDisallow: /*.pdf$\n",
            &tokens(),
        );
        assert!(robots.is_allowed("/"));
        assert!(robots.is_allowed("/articles/1"));
        assert!(!robots.is_allowed("/private/x"));
        assert!(robots.is_allowed("/private/open/x"));
        assert!(!robots.is_allowed("/files/a.pdf"));
        assert!(robots.is_allowed("/files/a.pdf?x=1"));
        assert!(robots.is_allowed("/robots.txt"));
    }

    #[test]
    fn our_group_wins_over_star() {
        let text = "# comment\nUser-agent: *\nDisallow: /\n\nUser-agent: OtherBot\nUser-agent: Gleaner/2.0\nDisallow: /drafts # inline\n";
        let robots = Robots::parse(text, &tokens());
        assert!(robots.is_allowed("/articles/1"));
        assert!(!robots.is_allowed("/drafts/1"));
        let other = Robots::parse(text, &["somebot".to_string()]);
        assert!(!other.is_allowed("/articles/1"));
    }

    #[test]
    fn groups_and_edge_cases() {
        let robots = Robots::parse(
            "Disallow: /ignored\nUser-agent: gleaner\nDisallow:\nAllow: /a\nDisallow: /a\nUser-agent: gleaner\nDisallow: /b*c$\n",
            &tokens(),
        );
        // Rules before any User-agent are ignored; an empty Disallow allows; ties go to Allow.
        assert!(robots.is_allowed("/ignored"));
        assert!(robots.is_allowed("/a/1"));
        // Two groups for the same agent are merged.
        assert!(!robots.is_allowed("/b/xyz/c"));
        assert!(robots.is_allowed("/b/xyz/cd"));
        assert!(Robots::parse("", &tokens()).is_allowed("/x"));
        assert!(Robots::allow_all().is_allowed("/x"));
    }

    #[test]
    fn wildcards() {
        let rule = Rule::new(false, "/*/secret*x");
        assert!(rule.matches("/a/secret/x"));
        assert!(rule.matches("/a/b/secretx/more"));
        assert!(!rule.matches("/secret/x"));
        let anchored = Rule::new(false, "/exact$");
        assert!(anchored.matches("/exact"));
        assert!(!anchored.matches("/exact/"));
        let unicode = Rule::new(false, "/caf\u{e9}");
        assert!(unicode.matches("/caf%C3%A9/menu"));
        assert_eq!(product_token("Gleaner/0.1 (+https://x)"), "gleaner");
    }

    #[tokio::test]
    async fn cache_fetches_once_and_stays_bounded() {
        let cache = RobotsCache::default();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        for _ in 0..3 {
            let robots = cache
                .get_or_fetch("http://a.example", || async {
                    calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    (Robots::allow_all(), TTL)
                })
                .await;
            assert!(robots.is_allowed("/"));
        }
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
        for i in 0..(MAX_ORIGINS * 2) {
            cache
                .get_or_fetch(&format!("http://h{i}.example"), || async {
                    (Robots::allow_all(), Duration::ZERO)
                })
                .await;
        }
        assert!(cache.len() <= MAX_ORIGINS);
    }
}
