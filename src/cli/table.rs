//! Plain-text tables for human output: left-aligned columns separated by two spaces, so that
//! `grep`, `awk` and `cut` still work on them. Stored text is printed inert: control
//! characters (terminal escapes among them) and bidirectional formatting characters (which
//! reorder what follows them on the line) are shown escaped, never sent raw.

use std::borrow::Cow;

use crate::config::is_bidi_control;

/// `text` on one line: every control character (C0, DEL, C1, newline and tab included) and
/// bidirectional formatting character ([`is_bidi_control`]) escaped as `\u{..}`.
pub fn one_line(text: &str) -> Cow<'_, str> {
    escape_controls(text, |_| true)
}

/// `text` as a block: control and bidirectional formatting characters escaped, except
/// newlines and tabs.
pub fn text_block(text: &str) -> Cow<'_, str> {
    escape_controls(text, |c| c != '\n' && c != '\t')
}

fn escape_controls(text: &str, escaped: impl Fn(char) -> bool) -> Cow<'_, str> {
    let needs = |c: char| (c.is_control() && escaped(c)) || is_bidi_control(c);
    if !text.chars().any(needs) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if needs(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Renders a header row and data rows; cells wider than `max_width` characters are cut.
pub fn render(header: &[&str], rows: &[Vec<String>], max_width: usize) -> String {
    let clip = |cell: &str| -> String {
        let cell = one_line(cell);
        if cell.chars().count() <= max_width {
            cell.to_string()
        } else {
            let mut cut: String = cell.chars().take(max_width.saturating_sub(1)).collect();
            cut.push('…');
            cut
        }
    };
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|cell| clip(cell)).collect())
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn columns_line_up_and_long_cells_are_cut() {
        let out = super::render(
            &["NAME", "URL"],
            &[
                vec!["a".into(), "x".repeat(12)],
                vec!["long-name".into(), "y".into()],
            ],
            10,
        );
        assert_eq!(out, "NAME       URL\na          xxxxxxxxx…\nlong-name  y\n");
    }

    #[test]
    fn control_characters_are_escaped() {
        let out = super::render(&["T"], &[vec!["a\u{1b}[2Jb\nc\u{9b}".into()]], 40);
        assert_eq!(out, "T\na\\u{1b}[2Jb\\u{a}c\\u{9b}\n");
        assert_eq!(super::text_block("x\ty\nz\r\u{7}"), "x\ty\nz\\u{d}\\u{7}");
    }

    #[test]
    fn bidirectional_formatting_characters_are_escaped() {
        let out = super::render(
            &["T"],
            &[vec!["gnp.\u{202e}exe\u{2066}x\u{200f}".into()]],
            40,
        );
        assert_eq!(out, "T\ngnp.\\u{202e}exe\\u{2066}x\\u{200f}\n");
        assert_eq!(
            super::text_block("a\u{202a}b\u{2069}\n"),
            "a\\u{202a}b\\u{2069}\n"
        );
        assert_eq!(super::one_line("plain שלום"), "plain שלום");
        assert_eq!(super::one_line("a\u{061c}b"), "a\\u{61c}b");
    }
}
