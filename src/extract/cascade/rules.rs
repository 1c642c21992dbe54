//! Per-site extraction rules (`[[sites]]`): CSS selectors an operator knows are right for one
//! site, applied before the generic algorithms.
//!
//! Owns [`SiteRules`] (compiled, validated selectors for one host pattern) and [`apply`]: the
//! `remove` selectors' elements are dropped from the page (and its statistics recomputed);
//! then, when `content` selectors are given and match, the article is exactly the matched
//! elements, rendered like every other algorithm's choice (`render`) and reported as
//! [`Algorithm::Rules`]. When only `remove` is given, or `content` matches nothing, the generic
//! algorithm runs on what is left. Pure: no I/O; the caller says when a rule missed.
//!
//! Host patterns: `www.example.com` matches that host only; `*.example.com` matches every
//! subdomain of `example.com` (`a.example.com`, `a.b.example.com`), not `example.com` itself.
//! An exact pattern wins over a wildcard; a longer wildcard over a shorter one.

use std::sync::atomic::{AtomicBool, Ordering};

use ego_tree::iter::Edge;
use scraper::Selector;

use crate::extract::render::{self, Rendered};
use crate::extract::{Algorithm, Extraction, Page, Verdict, dom};

/// The compiled rules of one `[[sites]]` entry.
#[derive(Debug)]
pub struct SiteRules {
    /// As written (lowercase): `www.example.com` or `*.example.com`.
    pub host: String,
    content: Vec<Selector>,
    remove: Vec<Selector>,
    /// Set once a `content` rule first matched nothing, so that it is reported once.
    missed: AtomicBool,
}

/// A rule that cannot be used; the message names the key and the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct RuleError {
    pub key: &'static str,
    /// Which selector of the list (0 for `host`).
    pub index: usize,
    pub message: String,
}

/// What [`apply`] did with a page.
#[derive(Debug)]
pub enum RulesOutcome {
    /// The `content` selectors matched: this is the article.
    Decided(Extraction),
    /// No `content` selectors: `remove` applied, the generic algorithm decides.
    Cleaned,
    /// `content` matched nothing with text: the generic algorithm decides.
    Missed,
}

impl SiteRules {
    /// Compiles one entry; every selector is checked.
    pub fn new(host: &str, content: &[String], remove: &[String]) -> Result<SiteRules, RuleError> {
        let host = host.trim().to_ascii_lowercase();
        let bare = host.strip_prefix("*.").unwrap_or(&host);
        let valid_host = !bare.is_empty()
            && !bare.contains('*')
            && url::Host::parse(bare).is_ok()
            && !bare.contains(['/', ':']);
        if !valid_host {
            return Err(RuleError {
                key: "host",
                index: 0,
                message: format!("`{host}` is not a host name or `*.` and a domain"),
            });
        }
        if content.is_empty() && remove.is_empty() {
            return Err(RuleError {
                key: "content",
                index: 0,
                message: "give `content`, `remove` or both".to_string(),
            });
        }
        Ok(SiteRules {
            host,
            content: compile("content", content)?,
            remove: compile("remove", remove)?,
            missed: AtomicBool::new(false),
        })
    }

    /// Whether the rules are for `host` (compared lowercase).
    pub fn matches_host(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        match self.host.strip_prefix("*.") {
            Some(domain) => host
                .strip_suffix(domain)
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
            None => host == self.host,
        }
    }

    /// True the first time only: a rule that misses is said once, not on every page.
    pub fn first_miss(&self) -> bool {
        !self.missed.swap(true, Ordering::Relaxed)
    }
}

impl AsRef<SiteRules> for SiteRules {
    fn as_ref(&self) -> &SiteRules {
        self
    }
}

fn compile(key: &'static str, selectors: &[String]) -> Result<Vec<Selector>, RuleError> {
    selectors
        .iter()
        .enumerate()
        .map(|(index, text)| {
            Selector::parse(text).map_err(|error| RuleError {
                key,
                index,
                message: format!("`{text}` is not a CSS selector ({error})"),
            })
        })
        .collect()
}

/// The rules for `host`: an exact pattern first, else the longest matching wildcard.
pub fn rules_for<'a, R: AsRef<SiteRules>>(rules: &'a [R], host: &str) -> Option<&'a SiteRules> {
    let matching = rules
        .iter()
        .map(AsRef::as_ref)
        .filter(|r| r.matches_host(host));
    matching.max_by_key(|r| (!r.host.starts_with("*."), r.host.len()))
}

/// Applies `rules` to a parsed page: `remove`, then `content` (see the module doc).
pub fn apply(page: &mut Page, rules: &SiteRules) -> RulesOutcome {
    remove_matches(page, &rules.remove);
    if rules.content.is_empty() {
        return RulesOutcome::Cleaned;
    }
    match content_extraction(page, &rules.content) {
        Some(extraction) => RulesOutcome::Decided(extraction),
        None => RulesOutcome::Missed,
    }
}

/// Detaches every element a selector matches and recomputes the page's statistics.
fn remove_matches(page: &mut Page, selectors: &[Selector]) {
    let doomed: Vec<_> = selectors
        .iter()
        .flat_map(|selector| page.document.select(selector).map(|element| element.id()))
        .collect();
    if doomed.is_empty() {
        return;
    }
    for id in doomed {
        if let Some(mut node) = page.document.tree.get_mut(id) {
            node.detach();
        }
    }
    page.stats = dom::analyze(&page.document, page.base.as_ref());
}

/// The matched elements rendered as the article, `None` when they hold no text.
fn content_extraction(page: &Page, selectors: &[Selector]) -> Option<Extraction> {
    let matched: std::collections::HashSet<_> = selectors
        .iter()
        .flat_map(|selector| page.document.select(selector).map(|element| element.id()))
        .collect();
    if matched.is_empty() {
        return None;
    }
    let ranges = element_ranges(page, &matched);
    let inside = |position: usize| {
        ranges
            .iter()
            .any(|(from, to)| (*from..=*to).contains(&position))
    };
    let blocks: Vec<usize> = (0..page.stats.blocks.len())
        .filter(|&ix| inside(page.stats.blocks[ix].position))
        .collect();
    let mut seen = std::collections::HashSet::new();
    let images: Vec<&dom::ImageNode> = page
        .stats
        .images
        .iter()
        .filter(|image| inside(image.position))
        .filter(|image| !render::is_decoration(image))
        .filter(|image| seen.insert(image.url.as_str()))
        .collect();
    let Rendered { html, text, images } = render::render(page, &blocks, &images);
    if text.trim().is_empty() {
        return None;
    }
    Some(Extraction {
        algorithm: Algorithm::Rules,
        title: page.effective_title().map(str::to_string),
        text,
        html,
        images,
        confidence: 1.0,
        language: None,
        verdict: Verdict::Article,
        quality: 0.0,
        page_type: Default::default(),
        posts: Vec::new(),
    })
}

/// The depth-first positions (as `dom` numbers elements: 1 for the first) of each matched
/// element and of its last descendant. A match inside another match is covered by it.
fn element_ranges(
    page: &Page,
    matched: &std::collections::HashSet<ego_tree::NodeId>,
) -> Vec<(usize, usize)> {
    let mut position = 0usize;
    let mut open: Vec<usize> = Vec::new();
    let mut ranges = Vec::new();
    for edge in page.document.tree.root().traverse() {
        match edge {
            Edge::Open(node) if node.value().is_element() => {
                position += 1;
                if matched.contains(&node.id()) {
                    open.push(position);
                }
            }
            Edge::Close(node) if matched.contains(&node.id()) => {
                if let Some(start) = open.pop() {
                    ranges.push((start, position));
                }
            }
            _ => {}
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<html><head><title>T</title></head><body>\
        <nav><a href=\"/\">Home</a> <a href=\"/a\">Section A</a> <a href=\"/b\">Section B</a></nav>\
        <div class=\"story\"><h1>Headline</h1>\
        <p>The first paragraph of the story, long enough to be a paragraph of an article.</p>\
        <div class=\"ad\"><p>Buy the thing now, a limited offer for readers of this site.</p></div>\
        <img src=\"/photo.jpg\" width=\"640\" height=\"480\" alt=\"A photo\">\
        <p>The second paragraph of the story, which also carries words worth keeping.</p></div>\
        <div class=\"teaser\"><p>Another story you might like, with its own words and links.</p></div>\
        </body></html>";

    fn page() -> Page {
        let url = url::Url::parse("https://www.example.com/story").ok();
        Page::parse(PAGE.as_bytes(), None, url.as_ref(), None)
    }

    fn rules(content: &[&str], remove: &[&str]) -> SiteRules {
        let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        SiteRules::new("www.example.com", &owned(content), &owned(remove)).expect("valid rules")
    }

    #[test]
    fn content_selectors_decide_the_article_without_what_remove_names() {
        let mut page = page();
        let RulesOutcome::Decided(extraction) = apply(&mut page, &rules(&[".story"], &[".ad"]))
        else {
            panic!("the rule decides");
        };
        assert_eq!(extraction.algorithm, Algorithm::Rules);
        assert!(extraction.text.contains("first paragraph"));
        assert!(extraction.text.contains("second paragraph"));
        assert!(!extraction.text.contains("Buy the thing"));
        assert!(!extraction.text.contains("Another story"));
        assert!(!extraction.text.contains("Section A"));
        assert_eq!(extraction.images.len(), 1);
        assert_eq!(
            extraction.images[0].url,
            "https://www.example.com/photo.jpg"
        );
    }

    #[test]
    fn a_content_rule_that_matches_nothing_is_a_miss_reported_once() {
        let mut page = page();
        let rules = rules(&[".nowhere"], &[]);
        assert!(matches!(apply(&mut page, &rules), RulesOutcome::Missed));
        assert!(rules.first_miss());
        assert!(!rules.first_miss());
    }

    #[test]
    fn remove_only_rules_clean_the_page_for_the_generic_algorithm() {
        let mut page = page();
        assert!(matches!(
            apply(&mut page, &rules(&[], &[".ad", ".teaser"])),
            RulesOutcome::Cleaned
        ));
        let text: String = page.stats.blocks.iter().map(|b| b.text.as_str()).collect();
        assert!(text.contains("first paragraph"));
        assert!(!text.contains("Buy the thing"));
        assert!(!text.contains("Another story"));
    }

    #[test]
    fn selectors_may_name_data_attributes() {
        // The parser is spared the `data-*` attributes gleaner does not read, except on a site
        // whose operator's selectors may name them.
        let html = "<html><body><nav><a href=\"/\">Home</a> <a href=\"/a\">A</a></nav>\
            <div data-role=\"story\"><p>The story itself, long enough to be the article here.</p></div>\
            <div data-role=\"teaser\"><p>Another story you might like, with words of its own.</p></div>\
            </body></html>";
        let url = url::Url::parse("https://www.example.com/story").ok();
        let rules = rules(&["[data-role=story]"], &["[data-role=teaser]"]);
        let site = crate::extract::SiteKnowledge {
            template: None,
            rules: Some(&rules),
        };
        let page = crate::extract::extract_site_page(
            html.as_bytes(),
            None,
            url.as_ref(),
            crate::extract::EntryHints::default(),
            Algorithm::Auto,
            site,
        );
        let extraction = page.extraction.expect("an article");
        assert_eq!(extraction.algorithm, Algorithm::Rules);
        assert!(extraction.text.contains("The story itself"));
        assert!(!extraction.text.contains("Another story"));
    }

    #[test]
    fn hosts_match_exactly_or_by_wildcard_and_exact_wins() {
        let exact = rules(&[".story"], &[]);
        assert!(exact.matches_host("www.example.com"));
        assert!(exact.matches_host("WWW.Example.com"));
        assert!(!exact.matches_host("example.com"));
        assert!(!exact.matches_host("news.www.example.com"));
        let wildcard = SiteRules::new("*.example.com", &[".x".to_string()], &[]).expect("valid");
        assert!(wildcard.matches_host("news.example.com"));
        assert!(wildcard.matches_host("a.b.example.com"));
        assert!(!wildcard.matches_host("example.com"));
        assert!(!wildcard.matches_host("badexample.com"));
        let all = [wildcard, exact];
        let chosen = rules_for(&all, "www.example.com").map(|r| r.host.as_str());
        assert_eq!(chosen, Some("www.example.com"));
        let chosen = rules_for(&all, "news.example.com").map(|r| r.host.as_str());
        assert_eq!(chosen, Some("*.example.com"));
        assert!(rules_for(&all, "example.org").is_none());
    }

    #[test]
    fn bad_selectors_and_hosts_are_refused_with_their_key() {
        let bad = SiteRules::new("www.example.com", &["div[".to_string()], &[]);
        assert_eq!(bad.map(|_| ()).map_err(|e| e.key), Err("content"));
        let bad = SiteRules::new("www.example.com", &[], &["::nope".to_string()]);
        assert_eq!(bad.map(|_| ()).map_err(|e| e.key), Err("remove"));
        let bad = SiteRules::new("https://example.com/", &[".x".to_string()], &[]);
        assert_eq!(bad.map(|_| ()).map_err(|e| e.key), Err("host"));
        let bad = SiteRules::new("www.example.com", &[], &[]);
        assert_eq!(bad.map(|_| ()).map_err(|e| e.key), Err("content"));
    }
}
