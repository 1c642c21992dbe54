//! The title hint: finding the node that holds the feed entry's title.
//!
//! CUTER's fourth observation (seed 000, section IV): "the useful text is more likely to be
//! after the article's title (note that we already know the article's title deriving from the
//! RSS analysis)". The match is fuzzy: both sides are lowercased and reduced to letters and
//! digits, and compared by the Dice coefficient of their character bigrams, which works for
//! scripts without spaces and tolerates small edits. A title such as "Headline | Site" is also
//! tried part by part, since pages often carry the bare headline. Headings get a bonus
//! (`h1` most), since the headline is nearly always one.

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

/// How a block is accepted as the title.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TitleRule {
    /// The least score (similarity with heading bonus) of a match.
    pub threshold: f64,
    /// Among matches within this much of the best score, the first in reading order wins:
    /// a page repeats its headline after the article (a citation box, a "you are reading"
    /// bar, a share prompt), rarely before it.
    pub earliest_margin: f64,
    /// Subtracted from the score of a block that is mostly link text: a teaser's headline
    /// links to another page, the article's own usually does not.
    pub link_penalty: f64,
}

/// Finds the block that matches `title`, if any scores at least `rule.threshold`.
pub fn find_title(blocks: &[TextBlock], title: &str, rule: &TitleRule) -> Option<TitleMatch> {
    let variants = title_variants(title);
    if variants.is_empty() {
        return None;
    }
    let threshold = rule.threshold;
    let longest = variants.iter().map(|v| v.len()).max().unwrap_or(0);
    let shortest = variants.iter().map(|v| v.len()).min().unwrap_or(0);
    let variant_bigrams: Vec<Vec<u64>> = variants.iter().map(|v| sorted_bigrams(v)).collect();
    let mut matches: Vec<TitleMatch> = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        if block.caption || block.sl > longest * 4 + 64 || block.sl * 3 < shortest {
            continue;
        }
        let normalized = normalize(&block.text);
        if normalized.is_empty() {
            continue;
        }
        // A block whose length alone keeps its similarity under the threshold against every
        // variant is not compared: its score could not reach the threshold while the link
        // penalty is not negative.
        let bigram_count = normalized.chars().count().saturating_sub(1);
        if rule.link_penalty >= 0.0
            && variant_bigrams
                .iter()
                .all(|reference| dice_bound(reference.len(), bigram_count) < threshold)
        {
            continue;
        }
        let bigrams = sorted_bigrams(&normalized);
        let similarity = variant_bigrams
            .iter()
            .map(|reference| dice(reference, &bigrams))
            .fold(0.0, f64::max);
        let bonus = match &*block.tag {
            "h1" => 0.15,
            "h2" => 0.08,
            "h3" => 0.03,
            _ => 0.0,
        };
        let penalty = if block.lp() >= 0.5 {
            rule.link_penalty
        } else {
            0.0
        };
        let score = similarity + if similarity >= threshold { bonus } else { 0.0 } - penalty;
        if score >= threshold {
            matches.push(TitleMatch { index, score });
        }
    }
    let best = matches
        .iter()
        .map(|m| m.score)
        .fold(f64::NEG_INFINITY, f64::max);
    matches
        .into_iter()
        .find(|m| m.score >= best - rule.earliest_margin)
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
            // Most text is ASCII: one byte, without the general case's iterator.
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                out.extend(c.to_lowercase());
            }
        } else {
            space = true;
        }
    }
    out
}

/// The character bigrams of `text`, each packed in a `u64`, sorted (a multiset).
fn sorted_bigrams(text: &str) -> Vec<u64> {
    let chars: Vec<char> = text.chars().collect();
    let mut bigrams: Vec<u64> = chars
        .windows(2)
        .map(|w| (u64::from(u32::from(w[0])) << 32) | u64::from(u32::from(w[1])))
        .collect();
    bigrams.sort_unstable();
    bigrams
}

/// The most [`dice`] can give for multisets of these sizes: 2 min(|A|, |B|) / (|A| + |B|),
/// computed the same way, so that it bounds the computed value too.
fn dice_bound(a: usize, b: usize) -> f64 {
    if a + b == 0 {
        return 0.0;
    }
    2.0 * a.min(b) as f64 / (a + b) as f64
}

/// 2|A ∩ B| / (|A| + |B|) over sorted bigram multisets.
fn dice(a: &[u64], b: &[u64]) -> f64 {
    if a.len() + b.len() == 0 {
        return 0.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f64 / (a.len() + b.len()) as f64
}
