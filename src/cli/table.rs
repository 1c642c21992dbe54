//! Plain-text tables for human output: left-aligned columns separated by two spaces, so that
//! `grep`, `awk` and `cut` still work on them.

/// Renders a header row and data rows; cells wider than `max_width` characters are cut.
pub fn render(header: &[&str], rows: &[Vec<String>], max_width: usize) -> String {
    let clip = |cell: &str| -> String {
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
}
