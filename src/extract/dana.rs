//! DANA (seed 001): main content by character encoding, aimed at right-to-left scripts.
//!
//! Phase one counts, per line of the page (script, style and comments removed, one-line pages
//! re-broken as in [`super::tag_ratio`]), the ASCII bytes `T1` (markup included) and the
//! non-ASCII bytes `T2` — in UTF-8 every Arabic, Persian, Urdu or Hebrew letter takes two
//! bytes above 127, markup takes none. Phase two smooths `diffᵢ = Σ (T2 − T1)` over lines
//! `i−1..=i+1`, starts at the line with the highest `diff`, and moves up and down while a line
//! holding non-ASCII text lies within `P` = 20 lines (the paper's initial value). Phase three
//! parses the chosen lines: here, their text with entities decoded.
//!
//! On pages in Latin scripts there is little non-ASCII text and DANA finds little; that is the
//! method, not a defect (it is a baseline).

use super::cetr::LineSelection;
use super::tag_ratio;

/// `P`: how many lines the search may pass without finding non-ASCII text.
pub const P: usize = 20;

/// DANA's choice of lines.
pub fn select(source: &str) -> LineSelection {
    let lines = tag_ratio::page_lines(source);
    let n = lines.len();
    let mut content = vec![false; n];
    if n == 0 {
        return LineSelection { lines, content };
    }
    let balance: Vec<i64> = lines
        .iter()
        .map(|l| l.non_ascii_bytes as i64 - l.ascii_bytes as i64)
        .collect();
    let diff: Vec<i64> = (0..n)
        .map(|i| balance[i.saturating_sub(1)..(i + 2).min(n)].iter().sum())
        .collect();
    let Some(peak) = (0..n).max_by_key(|&i| (diff[i], std::cmp::Reverse(i))) else {
        return LineSelection { lines, content };
    };
    let has_non_ascii = |i: usize| lines[i].non_ascii_bytes > 0;
    if !has_non_ascii(peak) {
        return LineSelection { lines, content };
    }
    content[peak] = true;
    // Down the page.
    let mut last = peak;
    let mut i = peak + 1;
    while i < n && i - last <= P {
        if has_non_ascii(i) {
            content[i] = true;
            last = i;
        }
        i += 1;
    }
    // Up the page.
    let mut first = peak;
    let mut i = peak;
    while i > 0 && first - (i - 1) <= P {
        i -= 1;
        if has_non_ascii(i) {
            content[i] = true;
            first = i;
        }
    }
    // Everything between the found lines belongs to the region.
    for flag in &mut content[first..=last] {
        *flag = true;
    }
    LineSelection { lines, content }
}
