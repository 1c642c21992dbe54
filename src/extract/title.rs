//! The title hint: finding the node that holds the feed entry's title.
//!
//! CUTER's fourth observation (seed 000, section IV): "the useful text is more likely to be
//! after the article's title (note that we already know the article's title deriving from the
//! RSS analysis)". The match is fuzzy: both sides are lowercased and reduced to letters and
//! digits, and compared by the Dice coefficient of their character bigrams, which works for
//! scripts without spaces and tolerates small edits. A title such as "Headline | Site" is also
//! tried part by part, since pages often carry the bare headline. Headings get a bonus
//! (`h1` most), since the headline is nearly always one.

use std::collections::HashMap;

use super::dom::TextBlock;

/// Separators between a headline and a site name in `<title>` and feed titles.
const TITLE_SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " :: ", " · ", " » ", " : "];

/// The best match of a title among the blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TitleMatch {
    /// The block's `IX`.
    pub index: usize,
    /// The similarity with heading bonus, in [0, 1.2].
    pub score: f64,
}

/// Finds the block that best matches `title`, if any scores at least `threshold`.
pub fn find_title(blocks: &[TextBlock], title: &str, threshold: f64) -> Option<TitleMatch> {
    let variants = title_variants(title);
    if variants.is_empty() {
        return None;
    }
    let longest = variants.iter().map(|v| v.len()).max().unwrap_or(0);
    let variant_bigrams: Vec<HashMap<(char, char), usize>> =
        variants.iter().map(|v| bigram_counts(v)).collect();
    let mut best: Option<TitleMatch> = None;
    for (index, block) in blocks.iter().enumerate() {
        if block.caption || block.sl > longest * 4 + 64 {
            continue;
        }
        let normalized = normalize(&block.text);
        if normalized.is_empty() {
            continue;
        }
        let bigrams = bigrams(&normalized);
        let similarity = variant_bigrams
            .iter()
            .map(|counts| dice(counts, &bigrams))
            .fold(0.0, f64::max);
        let bonus = match block.tag.as_str() {
            "h1" => 0.15,
            "h2" => 0.08,
            "h3" => 0.03,
            _ => 0.0,
        };
        let score = similarity + if similarity >= threshold { bonus } else { 0.0 };
        if score >= threshold && best.is_none_or(|b| score > b.score) {
            best = Some(TitleMatch { index, score });
        }
    }
    best
}

/// The title itself and its parts around site-name separators, normalized.
fn title_variants(title: &str) -> Vec<String> {
    let mut variants = vec![normalize(title)];
    for separator in TITLE_SEPARATORS {
        if title.contains(separator) {
            for part in title.split(separator) {
                let part = normalize(part);
                if part.chars().count() >= 8 {
                    variants.push(part);
                }
            }
        }
    }
    variants.retain(|v| v.chars().count() >= 2);
    variants.dedup();
    variants
}

/// Lowercase letters and digits, single spaces between words.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.extend(c.to_lowercase());
        } else {
            space = true;
        }
    }
    out
}

fn bigrams(text: &str) -> Vec<(char, char)> {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(2).map(|w| (w[0], w[1])).collect()
}

fn bigram_counts(text: &str) -> HashMap<(char, char), usize> {
    let mut counts = HashMap::new();
    for bigram in bigrams(text) {
        *counts.entry(bigram).or_insert(0) += 1;
    }
    counts
}

/// 2|A ∩ B| / (|A| + |B|) over bigram multisets.
fn dice(reference: &HashMap<(char, char), usize>, candidate: &[(char, char)]) -> f64 {
    let reference_len: usize = reference.values().sum();
    if reference_len + candidate.len() == 0 {
        return 0.0;
    }
    let mut remaining = reference.clone();
    let mut common = 0usize;
    for bigram in candidate {
        if let Some(count) = remaining.get_mut(bigram)
            && *count > 0
        {
            *count -= 1;
            common += 1;
        }
    }
    2.0 * common as f64 / (reference_len + candidate.len()) as f64
}
