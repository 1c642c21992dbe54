//! The size of everything a feed gives: each field of an entry (and the feed's own title and
//! site) is cut to a limit of its own when it is parsed, so that one hostile document cannot
//! make rows, listings and pages of megabytes. Text is cut at a character boundary; an entry
//! whose article link is longer than [`MAX_URL_BYTES`] is unusable (a cut link is another
//! address); an over-long GUID keeps its start and a hash of the whole, so that two GUIDs
//! that differ only past the cut stay two entries.

use std::hash::Hasher as _;

use super::{Enclosure, FeedEntry, ParsedFeed, Unusable, UnusableEntry};

/// An entry's title and the feed's title (plain text), in bytes.
pub const MAX_TITLE_BYTES: usize = 1024;
/// An entry's author (plain text), in bytes.
pub const MAX_AUTHOR_BYTES: usize = 256;
/// An entry's summary (HTML, sanitized where it is used), in bytes.
pub const MAX_SUMMARY_BYTES: usize = 64 * 1024;
/// An entry's full content (HTML, the article when the page gives none), in bytes.
pub const MAX_CONTENT_BYTES: usize = 1024 * 1024;
/// An entry's GUID, in bytes, its hash included when it was cut.
pub const MAX_GUID_BYTES: usize = 512;
/// An article link, an enclosure's address or the feed's site, in bytes: longer ones are
/// left out (the entry, for its article link).
pub const MAX_URL_BYTES: usize = 8 * 1024;
/// Enclosures kept per entry, in document order.
pub const MAX_ENCLOSURES: usize = 32;
/// An enclosure's media type, in bytes: a longer one is no media type and is left out.
pub const MAX_MEDIA_TYPE_BYTES: usize = 128;
/// Tags kept per entry, in the feed's order.
pub const MAX_TAGS: usize = 32;
/// A tag, in bytes.
pub const MAX_TAG_BYTES: usize = 128;
/// An unusable entry's name (its GUID or title), in bytes.
pub const MAX_NAME_BYTES: usize = MAX_TITLE_BYTES;

/// `text` cut to at most `max` bytes, at the last character boundary before it.
pub fn cut(text: &mut String, max: usize) {
    if text.len() > max {
        let end = (0..=max)
            .rev()
            .find(|&at| text.is_char_boundary(at))
            .unwrap_or(0);
        text.truncate(end);
    }
}

/// Every field of `parsed` within its limit; entries whose article link is too long moved to
/// the unusable ones.
pub fn bound(parsed: &mut ParsedFeed) {
    if let Some(title) = parsed.title.as_mut() {
        cut(title, MAX_TITLE_BYTES);
    }
    parsed.site_url = parsed.site_url.take().filter(|u| u.len() <= MAX_URL_BYTES);
    let entries = std::mem::take(&mut parsed.entries);
    for mut entry in entries {
        if entry.url.as_str().len() > MAX_URL_BYTES {
            parsed.unusable.push(UnusableEntry {
                name: entry.guid.take().unwrap_or(entry.title),
                reason: Unusable::Unreadable(format!(
                    "its article link is {} bytes long; at most {MAX_URL_BYTES} are read",
                    entry.url.as_str().len()
                )),
            });
            continue;
        }
        bound_entry(&mut entry);
        parsed.entries.push(entry);
    }
    for unusable in &mut parsed.unusable {
        cut(&mut unusable.name, MAX_NAME_BYTES);
    }
}

fn bound_entry(entry: &mut FeedEntry) {
    if let Some(guid) = entry.guid.as_mut() {
        bound_guid(guid);
    }
    cut(&mut entry.title, MAX_TITLE_BYTES);
    if let Some(author) = entry.author.as_mut() {
        cut(author, MAX_AUTHOR_BYTES);
    }
    if let Some(summary) = entry.summary.as_mut() {
        cut(summary, MAX_SUMMARY_BYTES);
    }
    if let Some(content) = entry.content.as_mut() {
        cut(content, MAX_CONTENT_BYTES);
    }
    entry
        .enclosures
        .retain(|enclosure| enclosure.url.as_str().len() <= MAX_URL_BYTES);
    entry.enclosures.truncate(MAX_ENCLOSURES);
    bound_tags(&mut entry.tags);
    for Enclosure { media_type, .. } in &mut entry.enclosures {
        if media_type
            .as_ref()
            .is_some_and(|t| t.len() > MAX_MEDIA_TYPE_BYTES)
        {
            *media_type = None;
        }
    }
}

/// At most [`MAX_TAGS`] tags of at most [`MAX_TAG_BYTES`] each; tags that become one when
/// cut are one.
pub fn bound_tags(tags: &mut Vec<String>) {
    for tag in tags.iter_mut() {
        cut(tag, MAX_TAG_BYTES);
    }
    *tags = super::tags::normalize(std::mem::take(tags));
    tags.truncate(MAX_TAGS);
}

/// A GUID over [`MAX_GUID_BYTES`]: its start, `#` and the hash of the whole in hexadecimal.
fn bound_guid(guid: &mut String) {
    if guid.len() <= MAX_GUID_BYTES {
        return;
    }
    let mut hasher = crate::stable_hash::Fnv::new();
    hasher.write(guid.as_bytes());
    let suffix = format!("#{:016x}", hasher.finish());
    cut(guid, MAX_GUID_BYTES - suffix.len());
    guid.push_str(&suffix);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_cut_at_a_character_boundary() {
        let mut text = "aé".repeat(4);
        cut(&mut text, 5);
        assert_eq!(text, "aéa");
        let mut short = "short".to_string();
        cut(&mut short, 5);
        assert_eq!(short, "short");
    }

    #[test]
    fn tags_are_bounded_in_count_and_length() {
        let mut tags: Vec<String> = (0..100)
            .map(|n| format!("{n}{}", "é".repeat(200)))
            .collect();
        tags.push(format!("0{}x", "é".repeat(200)));
        bound_tags(&mut tags);
        assert_eq!(tags.len(), MAX_TAGS);
        assert!(tags.iter().all(|tag| tag.len() <= MAX_TAG_BYTES));
        assert_eq!(tags.iter().filter(|tag| tag.starts_with("0é")).count(), 1);
    }

    #[test]
    fn long_guids_that_differ_past_the_cut_stay_distinct() {
        let mut one = format!("{}1", "g".repeat(MAX_GUID_BYTES * 2));
        let mut two = format!("{}2", "g".repeat(MAX_GUID_BYTES * 2));
        bound_guid(&mut one);
        bound_guid(&mut two);
        assert_eq!(one.len(), MAX_GUID_BYTES);
        assert_ne!(one, two);
    }
}
