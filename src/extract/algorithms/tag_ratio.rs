//! Tag ratios (seed 003, section 3) and their smoothing and derivative (sections 4.1 and
//! 5.1): the line model shared by CETR and its variants CETR-TM and CETR-KM.
//!
//! Algorithm 1 of the paper: script, remark (comment) and style elements are removed, empty
//! lines dropped, and for every line `TR = nonTagChars / max(1, tags)`. Section 5.3: a page with
//! too few lines (minified HTML) is broken into lines every 65 characters, at the next place
//! outside a tag. We break at the next whitespace or tag after the 65th character, so that no
//! word is cut in two (the paper's rule would split words, which the token metric punishes).
//!
//! A line's text keeps a space wherever a non-inline tag separated two words, so that
//! `<p>a</p><p>b</p>` on one line reads "a b" and not "ab".

use html5ever::data::NAMED_ENTITIES;

use crate::tidy::depth::find_ignore_ascii_case;

/// The line length of re-broken one-line pages (section 5.3).
pub const REBREAK_WIDTH: usize = 65;

/// Pages with fewer non-empty lines than this are re-broken every [`REBREAK_WIDTH`]
/// characters. The paper says "single line"; minified pages often have a handful of lines
/// (a doctype, a head, one enormous body line), so a small count is used instead of one.
pub const MIN_LINES: usize = 20;

/// Tags that do not separate words.
const INLINE_TAGS: &[&str] = &[
    "a", "b", "i", "em", "strong", "span", "font", "sup", "sub", "u", "small", "abbr", "mark",
    "code", "q", "s", "cite", "time", "big", "tt", "strike", "ins", "del",
];

/// Elements removed with their content before tag ratios are computed.
const REMOVED_ELEMENTS: &[&str] = &["script", "style", "noscript", "template", "svg"];

/// One line of the cleaned page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Line {
    /// Non-tag characters of the line, entities not yet decoded.
    pub raw_text: String,
    /// Non-whitespace non-tag characters.
    pub text_chars: usize,
    /// Tags that start on the line.
    pub tags: usize,
    /// Bytes below 128 on the line, markup included (DANA's `T2` on non-ASCII pages).
    pub ascii_bytes: usize,
    /// Bytes of 128 and above on the line (DANA's `T1` on non-ASCII pages).
    pub non_ascii_bytes: usize,
    /// Bytes of the tags that start on the line: its markup (generalized DANA's `T2`).
    pub markup_bytes: usize,
}

impl Line {
    /// `TR = nonTagChars / max(1, tags)` (Algorithm 1).
    pub fn tag_ratio(&self) -> f64 {
        self.text_chars as f64 / self.tags.max(1) as f64
    }

    /// The line's text, entities decoded, whitespace collapsed.
    pub fn text(&self) -> String {
        decode_entities(&self.raw_text)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The non-empty lines of a page, re-broken when the page has too few.
pub fn page_lines(source: &str) -> Vec<Line> {
    let lines = scan(source, Breaks::Newlines);
    if lines.len() >= MIN_LINES {
        lines
    } else {
        scan(source, Breaks::Every(REBREAK_WIDTH))
    }
}

/// The non-empty lines of a page, split at its newlines and, within a line, at the next
/// whitespace or tag once `width` characters are reached: a server-rendered body that sits on
/// one line of an otherwise multi-line page is cut up like a one-line page, while the page's
/// own line breaks are kept.
pub fn page_lines_within(source: &str, width: usize) -> Vec<Line> {
    scan(source, Breaks::NewlinesAndEvery(width.max(1)))
}

/// The tag ratio of every line.
pub fn tag_ratios(lines: &[Line]) -> Vec<f64> {
    lines.iter().map(Line::tag_ratio).collect()
}

/// The discrete Gaussian kernel of Equations 1–2: radius ⌈σ⌉, normalized.
pub fn gaussian_kernel(sigma: f64) -> Vec<f64> {
    let sigma = if sigma.is_finite() && sigma > 0.0 {
        sigma
    } else {
        1.0
    };
    let radius = sigma.ceil() as i64;
    let kernel: Vec<f64> = (-radius..=radius)
        .map(|i| (-((i * i) as f64) / (2.0 * sigma * sigma)).exp())
        .collect();
    let sum: f64 = kernel.iter().sum();
    kernel.into_iter().map(|k| k / sum).collect()
}

/// Equation 3: the convolution of `values` with `kernel`; at the ends the kernel is
/// renormalized over the part that falls inside.
pub fn smooth(values: &[f64], kernel: &[f64]) -> Vec<f64> {
    let radius = kernel.len() / 2;
    let n = values.len();
    (0..n)
        .map(|i| {
            let mut sum = 0.0;
            let mut weight = 0.0;
            for (j, k) in kernel.iter().enumerate() {
                let Some(at) = (i + j).checked_sub(radius) else {
                    continue;
                };
                if at < n {
                    sum += k * values[at];
                    weight += k;
                }
            }
            if weight > 0.0 { sum / weight } else { 0.0 }
        })
        .collect()
}

/// Equation 4: the derivative on the moving average, `G_i = mean(T'_{i+1..=i+α}) − T'_i`;
/// near the end the mean is over the elements that exist (the last is 0).
pub fn derivative(values: &[f64], alpha: usize) -> Vec<f64> {
    let n = values.len();
    (0..n)
        .map(|i| {
            let ahead = &values[(i + 1).min(n)..(i + 1 + alpha).min(n)];
            if ahead.is_empty() {
                0.0
            } else {
                ahead.iter().sum::<f64>() / ahead.len() as f64 - values[i]
            }
        })
        .collect()
}

/// Mean and standard deviation.
pub fn mean_std(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
    (mean, variance.sqrt())
}

/// Where [`scan`] ends a line.
#[derive(Debug, Clone, Copy)]
enum Breaks {
    /// At newlines.
    Newlines,
    /// Every `width` characters, at the next whitespace or tag; newlines are text.
    Every(usize),
    /// At newlines, and every `width` characters since the last break.
    NewlinesAndEvery(usize),
}

impl Breaks {
    fn width(self) -> Option<usize> {
        match self {
            Breaks::Newlines => None,
            Breaks::Every(width) | Breaks::NewlinesAndEvery(width) => Some(width),
        }
    }

    fn at_newlines(self) -> bool {
        !matches!(self, Breaks::Every(_))
    }
}

/// Splits the cleaned page into lines where `breaks` says.
fn scan(source: &str, breaks: Breaks) -> Vec<Line> {
    let width = breaks.width();
    let bytes = source.as_bytes();
    let mut lines = Vec::new();
    let mut line = Line::default();
    let mut line_len = 0usize;
    let mut i = 0;
    let push_line = |lines: &mut Vec<Line>, line: &mut Line| {
        let done = std::mem::take(line);
        if done.tags > 0 || done.text_chars > 0 {
            lines.push(done);
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'<' {
            if let Some(end) = skip_removed(bytes, i) {
                i = end;
                continue;
            }
            if let Some((end, name)) = tag_end(bytes, i) {
                line.tags += 1;
                line.ascii_bytes += end - i;
                line.markup_bytes += end - i;
                if !INLINE_TAGS.contains(&name.as_str()) {
                    line.raw_text.push(' ');
                }
                line_len += end - i;
                i = end;
                if let Some(width) = width
                    && line_len >= width
                {
                    push_line(&mut lines, &mut line);
                    line_len = 0;
                }
                continue;
            }
        }
        // One character of text.
        let c = source[i..].chars().next().unwrap_or(' ');
        let len = c.len_utf8();
        match width {
            _ if c == '\n' && breaks.at_newlines() => {
                push_line(&mut lines, &mut line);
                line_len = 0;
            }
            Some(width) if c.is_whitespace() && line_len >= width => {
                push_line(&mut lines, &mut line);
                line_len = 0;
            }
            _ => {
                if !c.is_whitespace() {
                    line.text_chars += 1;
                }
                if c.is_ascii() {
                    line.ascii_bytes += 1;
                } else {
                    line.non_ascii_bytes += len;
                }
                line.raw_text.push(c);
                line_len += 1;
            }
        }
        i += len;
    }
    push_line(&mut lines, &mut line);
    lines
}

/// A piece of the cleaned page: a tag or a run of text between tags.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece<'a> {
    /// A tag, with its lowercased name (empty for `<!doctype>` and the like).
    Tag(String),
    /// Text, entities not yet decoded.
    Text(&'a str),
}

/// Whether a tag name separates words (everything but inline formatting).
pub fn separates_words(name: &str) -> bool {
    !INLINE_TAGS.contains(&name)
}

/// The page as tags and text runs, with script, style and comments removed.
pub fn pieces(source: &str) -> Vec<Piece<'_>> {
    let bytes = source.as_bytes();
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'<' {
            let skip = skip_removed(bytes, i);
            let tag = if skip.is_none() {
                tag_end(bytes, i)
            } else {
                None
            };
            if skip.is_some() || tag.is_some() {
                if text_start < i {
                    pieces.push(Piece::Text(&source[text_start..i]));
                }
                match (skip, tag) {
                    (Some(end), _) => i = end,
                    (None, Some((end, name))) => {
                        pieces.push(Piece::Tag(name));
                        i = end;
                    }
                    (None, None) => {}
                }
                text_start = i;
                continue;
            }
        }
        i += 1;
    }
    if text_start < bytes.len() {
        pieces.push(Piece::Text(&source[text_start..]));
    }
    pieces
}

/// When `at` starts a comment or a removed element, the index just past its end.
fn skip_removed(bytes: &[u8], at: usize) -> Option<usize> {
    let rest = &bytes[at..];
    if rest.starts_with(b"<!--") {
        return Some(find_from(bytes, at + 4, b"-->").map_or(bytes.len(), |p| p + 3));
    }
    let name = tag_name(&rest[1..]);
    if !REMOVED_ELEMENTS.contains(&name.as_str()) {
        return None;
    }
    let mut close = Vec::with_capacity(name.len() + 2);
    close.extend_from_slice(b"</");
    close.extend_from_slice(name.as_bytes());
    let mut from = at + 1;
    loop {
        let Some(p) = find_ignore_ascii_case(bytes, from, &close) else {
            return Some(bytes.len());
        };
        let after = p + close.len();
        if bytes.get(after).is_none_or(|b| !b.is_ascii_alphanumeric()) {
            return Some(find_from(bytes, after, b">").map_or(bytes.len(), |q| q + 1));
        }
        from = after;
    }
}

/// When `at` starts a tag (`<a`, `</a`, `<!doctype`, `<?`), the index past its `>` (quotes
/// respected) and its lowercased name.
fn tag_end(bytes: &[u8], at: usize) -> Option<(usize, String)> {
    let next = *bytes.get(at + 1)?;
    if !(next.is_ascii_alphabetic() || next == b'/' || next == b'!' || next == b'?') {
        return None;
    }
    let name_start = if next == b'/' { at + 2 } else { at + 1 };
    let name = tag_name(bytes.get(name_start..).unwrap_or_default());
    let mut quote: Option<u8> = None;
    let mut i = at + 1;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if (b == b'"' || b == b'\'') && i > 0 && matches!(bytes[i - 1], b'=' | b' ') => {
                quote = Some(b);
            }
            None if b == b'>' => return Some((i + 1, name)),
            None => {}
        }
        i += 1;
    }
    Some((bytes.len(), name))
}

fn tag_name(bytes: &[u8]) -> String {
    bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .take(16)
        .map(|b| char::from(b.to_ascii_lowercase()))
        .collect()
}

fn find_from(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Decodes character references (`&amp;`, `&#233;`, `&#xE9;`, `&eacute;`).
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
            .map(|p| p + 1)
            .unwrap_or(rest.len());
        let body = &rest[1..end];
        let has_semicolon = rest[end..].starts_with(';');
        let decoded = if let Some(number) = body.strip_prefix('#') {
            let value = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => number.parse::<u32>().ok(),
            };
            value.and_then(char::from_u32).map(String::from)
        } else {
            let key = format!("{body};");
            NAMED_ENTITIES.get(key.as_str()).map(|&(a, b)| {
                [a, b]
                    .into_iter()
                    .filter(|&c| c != 0)
                    .filter_map(char::from_u32)
                    .collect()
            })
        };
        match decoded {
            Some(decoded) if !body.is_empty() => {
                out.push_str(&decoded);
                rest = &rest[end + usize::from(has_semicolon)..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_within_keep_newlines_and_cut_long_lines() {
        let body = "word ".repeat(40);
        let source = format!("<ul><li><a href=/>Home</a></li></ul>\n<p>{body}</p>");
        let lines = page_lines_within(&source, 50);
        assert_eq!(lines[0].text(), "Home");
        assert_eq!(lines[0].markup_bytes, 32);
        assert!(lines.len() > 3, "{lines:?}");
        assert!(lines.iter().all(|l| l.raw_text.chars().count() <= 60));
        let words: usize = lines
            .iter()
            .map(|l| l.text().split_whitespace().count())
            .sum();
        assert_eq!(words, 41);
    }
}
