//! DANA (seed 001), generalized as the seed's "Conclusion and Future Work" proposes:
//! "differentiating between tags and text/content to propose a new language-independent
//! content extraction". This module owns DANA's choice of lines; the line model (cleaning,
//! splitting, per-line counts) is [`crate::extract::tag_ratio`]'s.
//!
//! # The phases
//!
//! The page is cut into lines by [`tag_ratio::page_lines_within`]: script, style and comments
//! removed, the page's own line breaks kept, and any line cut at the next whitespace or tag
//! once it reaches [`LINE_WIDTH`] characters (see "Lines" below).
//!
//! *Phase One: Counting ASCII and Non-ASCII characters of each line.* Per line, `T1` counts
//! the content characters and `T2` the markup characters. Which characters are which is
//! decided once per page ([`CharacterClasses::of_page`]):
//!
//! * [`CharacterClasses::Encoding`], the paper's own ("UTF-8 Encoding Form"): `T1` = bytes of
//!   128 and above, `T2` = bytes below 128, markup included. In UTF-8 every Arabic, Persian,
//!   Urdu, Cyrillic or CJK letter is two or more bytes above 127 and markup is none. Chosen
//!   when more than [`NON_ASCII_PAGE_SHARE`] (half) of the letters of the page's text (all
//!   text outside tags, navigation included) are non-ASCII.
//! * [`CharacterClasses::Markup`], the generalization: `T1` = non-whitespace characters of
//!   text outside tags, `T2` = bytes of the tags. Chosen for every other page.
//!
//! *Phase Two: Finding areas Comprising MC.* The smoothed column
//! `diffᵢ = Σ (T1 − T2)` over lines `i−1..=i+1`; the walk starts at the longest column if it
//! stands above the x-axis (`diff > 0`; the peak line itself may be a `<br>` or `</p>` line
//! whose neighbours carry the column), and moves down and up the page while a content line
//! lies within `P` = 20 lines (the paper's initial value). Everything between the first and
//! the last line found is the region. The paper's content line is "a line containing
//! non-ASCII characters"; ours, in both modes, is a line whose own column stands above the
//! x-axis: `T1 > T2` (see "The walk" below).
//!
//! *Phase Three: Extracting MC.* The chosen lines' text, entities decoded.
//!
//! # Parameters
//!
//! Figures and sweeps in `docs/algorithms.md` ("`dana`"):
//!
//! - [`P`] 20 (the paper's);
//! - [`LINE_WIDTH`] 250 characters;
//! - [`NON_ASCII_PAGE_SHARE`] 0.5 (0.1 to 0.8 give the same figures);
//! - the walk's content line: `T1 > T2`.
//!
//! # Where it fails
//!
//! The longest column is one three-line window: on 11 bench pages a dense plain-text footer
//! (a disclaimer, a customer-service notice) or a comment thread outweighs every window of
//! the article, and the region is wholly wrong.

use crate::extract::cetr::LineSelection;
use crate::extract::tag_ratio::{self, Line};

/// `P`: how many lines the walk may pass without finding a content line.
pub const P: usize = 20;

/// Lines longer than this many characters are cut at the next whitespace or tag.
pub const LINE_WIDTH: usize = 250;

/// The share of a page's letters that must be non-ASCII for the paper's byte classes.
pub const NON_ASCII_PAGE_SHARE: f64 = 0.5;

/// What phase one counts as content (`T1`) and as markup (`T2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharacterClasses {
    /// The paper's: non-ASCII bytes against ASCII bytes (markup included).
    Encoding,
    /// The generalization: text characters outside tags against the bytes of the tags.
    Markup,
}

impl CharacterClasses {
    /// The paper's classes when the page's text is predominantly non-ASCII letters
    /// (over [`NON_ASCII_PAGE_SHARE`]), the generalized ones otherwise.
    pub fn of_page(lines: &[Line]) -> CharacterClasses {
        let (mut letters, mut non_ascii) = (0usize, 0usize);
        for c in lines
            .iter()
            .flat_map(|line| line.raw_text.chars())
            .filter(|c| c.is_alphabetic())
        {
            letters += 1;
            non_ascii += usize::from(!c.is_ascii());
        }
        if letters > 0 && non_ascii as f64 > NON_ASCII_PAGE_SHARE * letters as f64 {
            CharacterClasses::Encoding
        } else {
            CharacterClasses::Markup
        }
    }

    /// Phase one for one line: `T1 − T2`, its column in the paper's diagram.
    fn column(self, line: &Line) -> i64 {
        let (content, markup) = match self {
            CharacterClasses::Encoding => (line.non_ascii_bytes, line.ascii_bytes),
            CharacterClasses::Markup => (line.text_chars, line.markup_bytes),
        };
        content as i64 - markup as i64
    }
}

/// DANA's choice of lines.
pub fn select(source: &str) -> LineSelection {
    let lines = tag_ratio::page_lines_within(source, LINE_WIDTH);
    let classes = CharacterClasses::of_page(&lines);
    let columns: Vec<i64> = lines.iter().map(|line| classes.column(line)).collect();
    let content = region(&columns);
    LineSelection { lines, content }
}

/// Phase two over the per-line columns `T1 − T2`: which lines form the main content.
fn region(columns: &[i64]) -> Vec<bool> {
    let n = columns.len();
    let mut content = vec![false; n];
    // diffᵢ over lines i−1..=i+1.
    let diff: Vec<i64> = (0..n)
        .map(|i| columns[i.saturating_sub(1)..(i + 2).min(n)].iter().sum())
        .collect();
    let Some(peak) = (0..n).max_by_key(|&i| (diff[i], std::cmp::Reverse(i))) else {
        return content;
    };
    // The longest column must stand above the x-axis: somewhere content dominates.
    if diff[peak] <= 0 {
        return content;
    }
    // A content line: its own column stands above the axis (the generalized "line
    // containing non-ASCII characters").
    let is_content = |i: usize| columns[i] > 0;
    content[peak] = true;
    // Down the page.
    let mut last = peak;
    let mut i = peak + 1;
    while i < n && i - last <= P {
        if is_content(i) {
            last = i;
        }
        i += 1;
    }
    // Up the page.
    let mut first = peak;
    let mut i = peak;
    while i > 0 && first - (i - 1) <= P {
        i -= 1;
        if is_content(i) {
            first = i;
        }
    }
    // Everything between the found lines belongs to the region.
    for flag in &mut content[first..=last] {
        *flag = true;
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_column_above_the_axis_is_no_region() {
        assert_eq!(region(&[-5, -3, -8]), vec![false; 3]);
        assert!(region(&[]).is_empty());
    }

    #[test]
    fn walk_passes_up_to_p_lines_without_content() {
        let mut columns = vec![-10; 60];
        columns[5] = 50;
        columns[6] = 0; // the peak is line 5, the first of the two highest columns
        columns[5 + P] = 1; // reachable: P lines on
        columns[5 + 2 * P + 1] = 1; // P + 1 lines on: out of reach
        let content = region(&columns);
        assert!(content[5..=5 + P].iter().all(|&c| c));
        assert!(!content[5 + P + 1..].iter().any(|&c| c));
        assert!(!content[..5].iter().any(|&c| c));
    }

    #[test]
    fn page_classes_follow_the_letters() {
        let arabic = tag_ratio::page_lines_within("<p>افتتحت البلدية <a href=x>Home</a></p>", 250);
        assert_eq!(
            CharacterClasses::of_page(&arabic),
            CharacterClasses::Encoding
        );
        let english = tag_ratio::page_lines_within("<p>The bridge opened — café</p>", 250);
        assert_eq!(
            CharacterClasses::of_page(&english),
            CharacterClasses::Markup
        );
        assert_eq!(CharacterClasses::of_page(&[]), CharacterClasses::Markup);
    }
}
