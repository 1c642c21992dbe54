//! Per-site templates: what repeats across the pages of one site, learned from the pages
//! already seen and used to remove it from the next ones.
//!
//! Seed 002 describes template detection across pages of one site in two families. Its
//! "Tree based Techniques" (section IV: tree edit distance, the "Simple Tree Matching
//! Algorithm" and "Restricted Top-Down Mapping (RTDM)") match the DOM trees of two pages and
//! call the nodes both trees share the template; its "Tag sequence based" wrappers
//! (section III.a, V-Wrapper) learn where the main block of a site's pages lies. Both need
//! earlier pages at hand: tree matching costs O(nodes(A) · nodes(B)) per pair of pages (the
//! survey's conclusion), and a daemon that sees one page at a time would have to keep the
//! trees. What is kept here is the part of a mapping that matters for extraction, in a form
//! that is learned one page at a time:
//!
//! * **Block fingerprints.** RTDM maps two nodes as "identical sub-trees" when their labels
//!   and their text agree; top-down, that is a node whose path from the root (tags and
//!   classes, the labels) and whose text are the same. Each text block of a page
//!   ([`crate::extract::dom::TextBlock`]) gets one 64-bit fingerprint of its element path (tag and
//!   class of every ancestor; digits, page-wide classes of `html`/`body` and per-post classes
//!   such as `category-…` dropped, so two posts of one template agree) and its
//!   text (lowercased, digits folded). A site's model counts, per fingerprint, on how many
//!   pages it occurred and on which page it was last seen.
//! * **Boilerplate.** On a new page, a block whose fingerprint occurred on at least
//!   [`TemplateParams::min_pages`] earlier pages (and on at least
//!   [`TemplateParams::min_share`] of them), recently, is the site's template: navigation,
//!   footers, "related" lists, newsletter and cookie boxes. It is removed from the page's
//!   statistics before the generic algorithm runs, so CUTER and its cascade choose among
//!   what the site's pages do not share.
//! * **Bounds and ageing.** At most [`TemplateParams::max_fingerprints`] per site; a
//!   fingerprint not seen for [`TemplateParams::forget_after_pages`] pages is dropped, and
//!   when the map is full the ones seen on fewest pages, longest ago, go first. After a
//!   redesign the old template stops repeating and ages out; the new one is learned like the
//!   first.
//! * **Safety.** A page unlike the model loses nothing (no fingerprint matches). A page the
//!   model would empty (the same article again under another address) is extracted as if
//!   the site were new ([`TemplateParams::min_kept_bytes`]).
//!
//! With no model the page is not touched: extraction is exactly that of one page alone.
//! Cost and learning curve: `docs/algorithms.md`, "Site templates".
//!
//! Over 600 lines only with its tests.

use std::collections::HashMap;
use std::hash::Hasher as _;

use ego_tree::NodeId;
use html5ever::local_name;
use scraper::Node;

use crate::extract::Page;
use crate::stable_hash::Fnv;

/// The free parameters of template learning and use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TemplateParams {
    /// A block is template only when its fingerprint occurred on at least this many earlier
    /// pages of the site.
    pub min_pages: u32,
    /// …and on at least this share of the earlier pages the model remembers.
    pub min_share: f64,
    /// Fingerprints kept per site.
    pub max_fingerprints: usize,
    /// A fingerprint not seen on this many consecutive pages is forgotten.
    pub forget_after_pages: u64,
    /// Fingerprints recorded per page (the first ones in reading order).
    pub max_per_page: usize,
    /// A page left with fewer bytes of text than this once its template is removed is
    /// extracted without the model.
    pub min_kept_bytes: usize,
}

impl Default for TemplateParams {
    fn default() -> Self {
        TemplateParams {
            min_pages: 2,
            min_share: 0.5,
            max_fingerprints: 2_000,
            forget_after_pages: 200,
            max_per_page: 1_000,
            min_kept_bytes: 200,
        }
    }
}

/// How often one fingerprint was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Seen {
    /// Pages it occurred on.
    pub pages: u32,
    /// The number of the last page it occurred on (the model's page counter then).
    pub last: u64,
}

/// The template model of one site: what its pages share.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SiteTemplate {
    /// Pages learned so far.
    pub pages: u64,
    /// Block fingerprints ([`fingerprint`]) with their counts, as `[fingerprint, pages, last]`.
    #[serde(with = "fingerprint_list")]
    pub blocks: HashMap<u64, Seen>,
}

/// What one page contributes to its site's model: its distinct block fingerprints.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageObservation {
    pub fingerprints: Vec<u64>,
}

/// What applying a model did to one page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Applied {
    /// Text blocks removed as template.
    pub removed_blocks: usize,
    /// Their bytes of text.
    pub removed_bytes: usize,
    /// The page would have lost (almost) all its text: the model was not used.
    pub skipped: bool,
}

impl SiteTemplate {
    /// Adds one page to the model, forgetting what stopped repeating and keeping the model
    /// within `params.max_fingerprints`.
    pub fn learn(&mut self, page: &PageObservation, params: &TemplateParams) {
        self.pages += 1;
        let now = self.pages;
        for &fp in &page.fingerprints {
            let seen = self.blocks.entry(fp).or_insert(Seen { pages: 0, last: 0 });
            seen.pages = seen.pages.saturating_add(1);
            seen.last = now;
        }
        self.blocks
            .retain(|_, seen| now - seen.last < params.forget_after_pages);
        if self.blocks.len() > params.max_fingerprints {
            // Fewest pages first, then longest unseen: template blocks repeat and stay,
            // article paragraphs occur once and make room.
            let mut ranked: Vec<(u32, u64, u64)> = self
                .blocks
                .iter()
                .map(|(&fp, seen)| (seen.pages, seen.last, fp))
                .collect();
            let excess = self.blocks.len() - params.max_fingerprints;
            // Only which ones are the `excess` lowest matters, not their order: a selection
            // instead of a sort, on every page once the model is full.
            ranked.select_nth_unstable(excess - 1);
            for &(_, _, fp) in &ranked[..excess] {
                self.blocks.remove(&fp);
            }
        }
    }

    /// Whether a fingerprint counts as the site's template.
    pub fn is_template(&self, fp: u64, params: &TemplateParams) -> bool {
        self.blocks.get(&fp).is_some_and(|seen| {
            seen.pages >= params.min_pages
                && f64::from(seen.pages) >= params.min_share * self.remembered_pages(params)
        })
    }

    /// The earlier pages a share is taken of: all of them, or the last
    /// `forget_after_pages` once the model is older.
    fn remembered_pages(&self, params: &TemplateParams) -> f64 {
        self.pages.min(params.forget_after_pages) as f64
    }

    /// Fingerprints that currently count as template.
    pub fn template_size(&self, params: &TemplateParams) -> usize {
        self.blocks
            .keys()
            .filter(|&&fp| self.is_template(fp, params))
            .count()
    }

    /// The model as JSON, for the database.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }

    /// A model read back from [`SiteTemplate::to_json`].
    pub fn from_json(text: &str) -> Result<SiteTemplate, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// The site a page belongs to: the host of its address, lowercased, without a leading
/// `www.` (`www.example.com` and `example.com` serve one site), with the port when it is
/// not the scheme's own.
pub fn site_of(url: &url::Url) -> Option<String> {
    let host = url.host_str()?.to_ascii_lowercase();
    let site = host.strip_prefix("www.").unwrap_or(&host);
    if site.is_empty() {
        return None;
    }
    Some(match url.port() {
        Some(port) => format!("{site}:{port}"),
        None => site.to_string(),
    })
}

/// Fingerprints of a page's text blocks, in reading order (one per block, duplicates kept).
pub fn block_fingerprints(page: &Page) -> Vec<u64> {
    let mut paths: HashMap<NodeId, u64> = HashMap::new();
    page.stats
        .blocks
        .iter()
        .map(|block| {
            let path = element_path_hash(page, block.node, &mut paths);
            fingerprint(path, &block.text)
        })
        .collect()
}

/// What a page contributes to its site's model.
pub fn observe(page: &Page, params: &TemplateParams) -> PageObservation {
    crate::stages::measure(crate::stages::Stage::Template, || {
        observation(block_fingerprints(page), params)
    })
}

/// What a page whose [`block_fingerprints`] are `fingerprints` contributes to its site's
/// model.
pub fn observation(mut fingerprints: Vec<u64>, params: &TemplateParams) -> PageObservation {
    fingerprints.truncate(params.max_per_page);
    fingerprints.sort_unstable();
    fingerprints.dedup();
    PageObservation { fingerprints }
}

/// Removes the blocks the model calls template from the page's statistics (regions
/// renumbered, `SH` recomputed), unless that would leave less than
/// `params.min_kept_bytes` of text.
pub fn apply(page: &mut Page, template: &SiteTemplate, params: &TemplateParams) -> Applied {
    crate::stages::measure(crate::stages::Stage::Template, || {
        let fingerprints = block_fingerprints(page);
        apply_fingerprints(page, &fingerprints, template, params)
    })
}

/// [`apply`] for a page whose [`block_fingerprints`] are already known.
pub fn apply_fingerprints(
    page: &mut Page,
    fingerprints: &[u64],
    template: &SiteTemplate,
    params: &TemplateParams,
) -> Applied {
    if template.pages == 0 || template.blocks.is_empty() {
        return Applied::default();
    }
    let remove: Vec<bool> = fingerprints
        .iter()
        .map(|&fp| template.is_template(fp, params))
        .collect();
    let removed_blocks = remove.iter().filter(|&&r| r).count();
    if removed_blocks == 0 {
        return Applied::default();
    }
    let stats = &mut page.stats;
    let removed_bytes: usize = stats
        .blocks
        .iter()
        .zip(&remove)
        .filter(|(_, r)| **r)
        .map(|(b, _)| b.sl)
        .sum();
    if stats.sh.saturating_sub(removed_bytes) < params.min_kept_bytes {
        return Applied {
            removed_blocks: 0,
            removed_bytes: 0,
            skipped: true,
        };
    }
    // New index of every old index, and one past the end.
    let mut new_index = Vec::with_capacity(remove.len() + 1);
    let mut kept = 0usize;
    for &r in &remove {
        new_index.push(kept);
        kept += usize::from(!r);
    }
    new_index.push(kept);
    let mut flags = remove.iter();
    stats
        .blocks
        .retain(|_| !flags.next().copied().unwrap_or(false));
    let mut prefix = Vec::with_capacity(stats.blocks.len() + 1);
    prefix.push(0usize);
    for block in &stats.blocks {
        prefix.push(prefix.last().copied().unwrap_or(0) + block.sl);
    }
    stats.regions.retain_mut(|region| {
        let (Some(&start), Some(&end)) = (
            new_index.get(region.blocks.start),
            new_index.get(region.blocks.end),
        ) else {
            return false;
        };
        region.blocks = start..end;
        region.sl = prefix[end] - prefix[start];
        start < end
    });
    stats.sh = prefix.last().copied().unwrap_or(0);
    stats.template_bytes += removed_bytes;
    Applied {
        removed_blocks,
        removed_bytes,
        skipped: false,
    }
}

/// The fingerprint of one block: its element path and its text, lowercased, every run of
/// digits folded to one (dates, counters and ids differ between pages of one template).
pub fn fingerprint(path: u64, text: &str) -> u64 {
    let mut hash = Fnv::new();
    hash.write(&path.to_le_bytes());
    if text.is_ascii() {
        write_folded_ascii(&mut hash, text.as_bytes());
    } else {
        write_folded(&mut hash, text);
    }
    hash.finish()
}

/// Writes `text` lowercased, each run of digits as one `0`.
fn write_folded(hash: &mut Fnv, text: &str) {
    let mut in_number = false;
    for c in text.chars() {
        // A run of digits is one `0`: "3 hours" and "12 hours" agree.
        let digit = c.is_numeric();
        if digit && in_number {
            continue;
        }
        in_number = digit;
        let c = if digit { '0' } else { c };
        for lower in c.to_lowercase() {
            let mut utf8 = [0u8; 4];
            hash.write(lower.encode_utf8(&mut utf8).as_bytes());
        }
    }
}

/// [`write_folded`] for ASCII text (the common case), byte by byte without decoding: the
/// same bytes, so a model learned by either stays valid.
fn write_folded_ascii(hash: &mut Fnv, text: &[u8]) {
    let mut in_number = false;
    for &b in text {
        let digit = b.is_ascii_digit();
        if digit && in_number {
            continue;
        }
        in_number = digit;
        hash.write_byte(if digit { b'0' } else { b.to_ascii_lowercase() });
    }
}

/// The hash of an element's path from the root: tag and classes of each ancestor, digits
/// dropped. Memoized per element.
fn element_path_hash(page: &Page, node: NodeId, memo: &mut HashMap<NodeId, u64>) -> u64 {
    if let Some(&hash) = memo.get(&node) {
        return hash;
    }
    // The ancestors not yet hashed, innermost first.
    let mut chain = Vec::new();
    let mut current = page.document.tree.get(node);
    let mut base = Fnv::new().finish();
    while let Some(element) = current {
        if let Some(&hash) = memo.get(&element.id()) {
            base = hash;
            break;
        }
        chain.push(element);
        current = element.parent();
    }
    for element in chain.into_iter().rev() {
        let mut hash = Fnv::from_state(base);
        if let Node::Element(e) = element.value() {
            hash.write(e.name().as_bytes());
            // `html` and `body` carry page-wide classes (the post's id, category, template).
            let class = e
                .attrs
                .iter()
                .find(|(name, _)| crate::tidy::is_plain_attribute(name, &local_name!("class")))
                .map(|(_, value)| &**value)
                .filter(|_| !matches!(e.name(), "html" | "body"));
            if let Some(class) = class {
                for token in class
                    .split_whitespace()
                    .filter(|t| !PER_PAGE_CLASSES.iter().any(|p| t.starts_with(p)))
                {
                    hash.write(b".");
                    for b in token.bytes().filter(|b| !b.is_ascii_digit()) {
                        hash.write_byte(b);
                    }
                }
            }
        }
        hash.write(b"/");
        base = hash.finish();
        memo.insert(element.id(), base);
    }
    base
}

/// Class prefixes that name the page rather than the element's place in the template
/// (WordPress marks a post's wrapper with its categories, tags, author and format).
const PER_PAGE_CLASSES: &[&str] = &[
    "category-",
    "tag-",
    "author-",
    "format-",
    "status-",
    "postid-",
    "post-",
    "type-",
];

/// The fingerprint map as a compact list of `[fingerprint, pages, last]` triples, sorted
/// (a JSON object would need string keys).
mod fingerprint_list {
    use std::collections::HashMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Seen;

    pub fn serialize<S: Serializer>(map: &HashMap<u64, Seen>, s: S) -> Result<S::Ok, S::Error> {
        let mut list: Vec<(u64, u32, u64)> = map
            .iter()
            .map(|(&fp, seen)| (fp, seen.pages, seen.last))
            .collect();
        list.sort_unstable();
        list.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<HashMap<u64, Seen>, D::Error> {
        let list: Vec<(u64, u32, u64)> = Vec::deserialize(d)?;
        Ok(list
            .into_iter()
            .map(|(fp, pages, last)| (fp, Seen { pages, last }))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::cuter;

    #[test]
    fn ascii_text_folds_as_any_text_does() {
        for text in [
            "Posted 12 hours ago",
            "",
            "ABC-99 x1y22",
            "Read MORE »",
            "a\tb 2024",
        ] {
            let (mut ascii, mut any) = (Fnv::new(), Fnv::new());
            if text.is_ascii() {
                write_folded_ascii(&mut ascii, text.as_bytes());
                write_folded(&mut any, text);
                assert_eq!(ascii.finish(), any.finish(), "{text:?}");
            }
        }
        assert_eq!(
            fingerprint(1, "Posted 3 HOURS ago"),
            fingerprint(1, "posted 12 hours ago")
        );
    }

    /// A page of `story` under a navigation of `links` link items, the same on every page.
    fn navigated_page(story: &str, links: usize) -> Page {
        let navigation: String = (0..links)
            .map(|i| {
                format!("<li><a href=\"/section/{i}\">Section number {i} of the site</a></li>")
            })
            .collect();
        let html = format!(
            "<html><body><ul class=\"menu\">{navigation}</ul>\
             <div class=\"story\"><p>{story}</p><p>{story}</p></div></body></html>"
        );
        Page::parse(html.as_bytes(), None, None, None)
    }

    #[test]
    fn removing_link_navigation_leaves_the_choice_as_sure_as_it_was() {
        // The navigation is in no group, so CUTER's choice is the same with or without it;
        // how sure it is must not change either, or a page the fallback read whole before the
        // site was known would be cut to CUTER's choice once it is.
        let params = TemplateParams::default();
        let mut model = SiteTemplate::default();
        for n in [1, 2] {
            model.learn(&observe(&navigated_page(&story(n), 60), &params), &params);
        }
        let confidence = |page: &Page| {
            cuter::select(&page.stats, None, &cuter::CuterParams::default()).map(|s| s.confidence)
        };
        let mut page = navigated_page(&story(7), 60);
        let alone = confidence(&page);
        let applied = apply(&mut page, &model, &params);
        assert!(applied.removed_blocks >= 60, "{applied:?}");
        let with_model = confidence(&page);
        assert!(alone.is_some());
        assert_eq!(alone, with_model);
    }

    fn page(story: &str, footer: &str) -> Page {
        let html = format!(
            "<html><body><div class=\"nav\"><a href=\"/\">Home</a></div>\
             <div class=\"post-{}\"><p>{story}</p><p>{footer}</p></div></body></html>",
            story.len()
        );
        Page::parse(html.as_bytes(), None, None, None)
    }

    fn story(n: usize) -> String {
        format!("Story {n} words. ").repeat(20) + &"unique ".repeat(n)
    }

    const FOOTER: &str = "Our newsroom is independent and owned by its readers.";

    fn texts(page: &Page) -> Vec<&str> {
        page.stats.blocks.iter().map(|b| b.text.as_str()).collect()
    }

    #[test]
    fn a_block_seen_on_earlier_pages_is_removed_and_the_story_kept() {
        let params = TemplateParams::default();
        let mut model = SiteTemplate::default();
        model.learn(&observe(&page(&story(1), FOOTER), &params), &params);
        let mut second = page(&story(2), FOOTER);
        assert_eq!(apply(&mut second, &model, &params), Applied::default());
        model.learn(&observe(&page(&story(3), FOOTER), &params), &params);
        let mut next = page(&story(2), FOOTER);
        let sh = next.stats.sh;
        let applied = apply(&mut next, &model, &params);
        assert_eq!(applied.removed_blocks, 2, "{:?}", texts(&next));
        assert!(!texts(&next).contains(&FOOTER));
        assert!(!texts(&next).contains(&"Home"));
        assert_eq!(texts(&next), [story(2).trim_end()]);
        assert_eq!(next.stats.sh, sh - applied.removed_bytes);
    }

    #[test]
    fn without_a_model_the_page_is_untouched() {
        let params = TemplateParams::default();
        let mut alone = page(&story(1), FOOTER);
        let before = texts(&alone).join("|");
        assert_eq!(
            apply(&mut alone, &SiteTemplate::default(), &params),
            Applied::default()
        );
        assert_eq!(texts(&alone).join("|"), before);
    }

    #[test]
    fn the_same_article_again_is_extracted_as_if_the_site_were_new() {
        let params = TemplateParams::default();
        let mut model = SiteTemplate::default();
        model.learn(&observe(&page(&story(1), FOOTER), &params), &params);
        model.learn(&observe(&page(&story(1), FOOTER), &params), &params);
        let mut again = page(&story(1), FOOTER);
        let applied = apply(&mut again, &model, &params);
        assert!(applied.skipped);
        assert_eq!(texts(&again).len(), 3);
    }

    #[test]
    fn a_block_on_few_of_the_earlier_pages_is_kept() {
        let params = TemplateParams::default();
        let mut model = SiteTemplate::default();
        for n in 0..6 {
            let footer = if n < 2 { FOOTER } else { "Another line." };
            model.learn(&observe(&page(&story(n), footer), &params), &params);
        }
        let mut next = page(&story(9), FOOTER);
        apply(&mut next, &model, &params);
        assert!(
            texts(&next).contains(&FOOTER),
            "2 of 6 pages: {:?}",
            texts(&next)
        );
    }

    #[test]
    fn a_redesign_ages_the_old_template_out() {
        let params = TemplateParams {
            forget_after_pages: 3,
            ..TemplateParams::default()
        };
        let mut model = SiteTemplate::default();
        for n in 0..3 {
            model.learn(&observe(&page(&story(n), FOOTER), &params), &params);
        }
        let old = block_fingerprints(&page(&story(9), FOOTER))[2];
        assert!(model.is_template(old, &params));
        let redesigned = "A new footer for a new design, with other words.";
        for n in 3..6 {
            model.learn(&observe(&page(&story(n), redesigned), &params), &params);
        }
        assert!(!model.blocks.contains_key(&old));
        let new = block_fingerprints(&page(&story(9), redesigned))[2];
        assert!(model.is_template(new, &params));
    }

    #[test]
    fn the_model_stays_within_its_bound_and_keeps_what_repeats() {
        let params = TemplateParams {
            max_fingerprints: 10,
            ..TemplateParams::default()
        };
        let mut model = SiteTemplate::default();
        for n in 0..40 {
            model.learn(&observe(&page(&story(n), FOOTER), &params), &params);
            assert!(model.blocks.len() <= 10);
        }
        let footer = block_fingerprints(&page(&story(99), FOOTER))[2];
        assert_eq!(model.blocks.get(&footer).map(|s| s.pages), Some(40));
    }

    #[test]
    fn a_model_reads_back_from_json() -> Result<(), serde_json::Error> {
        let params = TemplateParams::default();
        let mut model = SiteTemplate::default();
        model.learn(&observe(&page(&story(1), FOOTER), &params), &params);
        model.learn(&observe(&page(&story(2), FOOTER), &params), &params);
        assert_eq!(SiteTemplate::from_json(&model.to_json())?, model);
        Ok(())
    }

    #[test]
    fn digits_in_classes_and_text_do_not_make_a_block_new() {
        let a = block_fingerprints(&page(&story(1), "Posted 3 hours ago"));
        let b = block_fingerprints(&page(&story(22), "Posted 12 hours ago"));
        assert_eq!(a[2], b[2]);
        assert_ne!(a[1], b[1]);
    }

    #[test]
    fn the_site_is_the_host_without_www() -> Result<(), url::ParseError> {
        let site = |u: &str| url::Url::parse(u).map(|u| site_of(&u));
        assert_eq!(
            site("https://www.Example.com/a")?,
            Some("example.com".into())
        );
        assert_eq!(
            site("http://example.com:8080/a")?,
            Some("example.com:8080".into())
        );
        assert_eq!(site("file:///tmp/a.html")?, None);
        Ok(())
    }
}
