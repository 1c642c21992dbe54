//! BTE, Body Text Extraction (seed 004, after Finn): the window `[i, j]` of the page's token
//! stream that maximizes the words inside plus the tags outside.
//!
//! Step 0 cleans the page (script, style and comments removed, see [`crate::extract::tag_ratio`]);
//! step 1 maps every tag to `+1` and every word to `−1` (`binary_tokens`). Words inside plus
//! tags outside is `tags_total + Σ_{k∈[i,j]} (−binary_tokensₖ)`, so steps 2–3 are the maximum
//! subarray of `−binary_tokens`: Kadane's algorithm finds it in O(n), where the paper's
//! Algorithm 2 takes O(n²) (and the original O(n³)).

use crate::extract::tag_ratio::{self, Piece};

/// BTE's text: the words of the best window, with a blank line wherever a block-level tag
/// separated them.
pub fn extract_text(source: &str) -> String {
    let pieces = tag_ratio::pieces(source);
    // The token stream: `None` for a tag (value −1), `Some(word)` for a word (value +1), with
    // block boundaries remembered.
    let mut tokens: Vec<Option<&str>> = Vec::new();
    let mut breaks_before: Vec<bool> = Vec::new();
    let mut pending_break = false;
    let skip_until = body_start(&pieces);
    for piece in &pieces[skip_until..] {
        match piece {
            Piece::Tag(name) => {
                tokens.push(None);
                breaks_before.push(false);
                pending_break |= tag_ratio::separates_words(name);
            }
            Piece::Text(text) => {
                for word in text.split_whitespace() {
                    tokens.push(Some(word));
                    breaks_before.push(std::mem::take(&mut pending_break));
                }
            }
        }
    }
    let Some((start, end)) = best_window(&tokens) else {
        return String::new();
    };
    let mut out = String::new();
    for k in start..=end {
        if let Some(word) = tokens[k] {
            if !out.is_empty() {
                out.push_str(if breaks_before[k] { "\n\n" } else { " " });
            }
            out.push_str(word);
        }
    }
    tag_ratio::decode_entities(&out)
}

/// Step 0: only the `<body>` counts, when there is one.
fn body_start(pieces: &[Piece<'_>]) -> usize {
    pieces
        .iter()
        .position(|p| matches!(p, Piece::Tag(name) if name == "body"))
        .map_or(0, |p| p + 1)
}

/// Steps 2–3: the window with the largest (words − tags), by Kadane's algorithm.
fn best_window(tokens: &[Option<&str>]) -> Option<(usize, usize)> {
    let mut best: Option<(i64, usize, usize)> = None;
    let mut current = 0i64;
    let mut current_start = 0usize;
    for (k, token) in tokens.iter().enumerate() {
        let value = if token.is_some() { 1 } else { -1 };
        if current <= 0 {
            current = value;
            current_start = k;
        } else {
            current += value;
        }
        if best.is_none_or(|(score, _, _)| current > score) {
            best = Some((current, current_start, k));
        }
    }
    best.filter(|&(score, _, _)| score > 0)
        .map(|(_, start, end)| (start, end))
}

#[cfg(test)]
mod tests {
    use super::best_window;
    use proptest::prelude::*;

    /// The paper's search, O(n²): every window, scored directly. Ties go to the earliest end,
    /// then to the latest start (the shortest window), which is what Kadane's scan keeps.
    fn brute_force(tokens: &[Option<&str>]) -> Option<(usize, usize)> {
        let mut best: Option<(i64, usize, usize)> = None;
        for end in 0..tokens.len() {
            for start in (0..=end).rev() {
                let score: i64 = tokens[start..=end]
                    .iter()
                    .map(|t| if t.is_some() { 1 } else { -1 })
                    .sum();
                if best.is_none_or(|(s, _, _)| score > s) {
                    best = Some((score, start, end));
                }
            }
        }
        best.filter(|&(score, _, _)| score > 0)
            .map(|(_, start, end)| (start, end))
    }

    fn tokens(words: &[bool]) -> Vec<Option<&'static str>> {
        words.iter().map(|&w| w.then_some("word")).collect()
    }

    #[test]
    fn a_hand_made_page() {
        // tags, then a body of words with one inline tag, then tags again.
        let page = tokens(&[
            false, false, true, true, false, true, true, true, false, false,
        ]);
        assert_eq!(best_window(&page), Some((2, 7)));
        assert_eq!(best_window(&tokens(&[false, false])), None);
        assert_eq!(best_window(&[]), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn linear_scan_finds_the_brute_force_window(words in prop::collection::vec(any::<bool>(), 0..120)) {
            let page = tokens(&words);
            prop_assert_eq!(best_window(&page), brute_force(&page));
        }
    }
}
