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
//! The walk starts at the peak only when it stands above the x-axis (`diff > 0`, the seed's
//! "longest column above the x-axis"); the peak line itself need not hold non-ASCII text (it
//! is often a `<br>` or `</p>` line between two paragraphs, whose neighbours carry the
//! column). Our first reading stopped there when the peak line had no non-ASCII byte, and
//! returned nothing on half of the non-Latin pages.
//!
//! Measured on the 8 bench pages whose gold text is mostly non-ASCII (over 50 % of its
//! letters: Korean, Russian, Japanese): F1 0.705 (P 0.601, R 0.852, 0 empty); the first
//! reading gave 0.499 (P 0.522, R 0.478, 4 empty). The rest of the loss is markup-heavy
//! pages whose whole body is one server-rendered line, which the line model cannot split.
//!
//! On pages in Latin scripts every letter, like all markup, is one ASCII byte: (almost) no
//! window of three lines has more non-ASCII than ASCII bytes, so no column stands above the
//! x-axis and DANA returns no content (171 of the 181 bench pages; whole-bench F1 0.080, the
//! first reading 0.098 by returning text on 7 Latin pages from columns below the axis). That
//! is the method, not a defect.

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
    // The longest column must stand above the x-axis: somewhere non-ASCII text dominates.
    // The peak line itself may be a `<br>` between two paragraphs; the walk starts there.
    if diff[peak] <= 0 {
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
