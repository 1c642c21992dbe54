//! How a page relates to the feed entry that links to it, and whether its text is built as a
//! story: the structural half of the verdict ([`super::verdict::judge`]).
//!
//! A wall or an error page stands in for any article of any site: it is unrelated to the
//! entry's title (it shares none of its words) and has no run of prose. An article, however
//! short, repeats its entry's headline and tells something in sentences. Both readings are
//! independent of the language the page is written in: they compare the page with its own
//! entry rather than with a list of phrases.

use super::Page;
use super::dom::TextBlock;

/// What the page's words say about the entry's title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Most of the title's words are in the main text or the page's headings.
    Related,
    /// None of the title's words is anywhere on the page: not that entry's article.
    Unrelated,
    /// Neither: no title, too few words to tell, or some words shared.
    Unknown,
}

/// Title words a title needs before a page is judged by them: a one-word title ("Update")
/// is no evidence either way.
const MIN_TITLE_WORDS: usize = 2;

/// At most this many of the title's words are compared.
const MAX_TITLE_WORDS: usize = 16;

/// The least share of the title's words a related page holds in its text or headings.
const RELATED_SHARE: f64 = 0.5;

/// The words of a title that carry its meaning: lowercase, of at least four letters in
/// alphabetic scripts (articles and prepositions are shorter in most of them), of at least
/// two characters in scripts written without spaces (a run of CJK characters is one token).
fn title_words(title: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for token in title.split(|c: char| !c.is_alphanumeric()) {
        let chars = token.chars().count();
        let unspaced = token.chars().any(is_unspaced_script);
        let enough = if unspaced { chars >= 2 } else { chars >= 4 };
        if !enough || token.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let word = token.to_lowercase();
        if !words.contains(&word) {
            words.push(word);
        }
        if words.len() == MAX_TITLE_WORDS {
            break;
        }
    }
    words
}

/// Characters of scripts written without spaces between words (Han, kana, Hangul, Thai).
pub(crate) fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0E7F      // Thai
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF) // CJK compatibility ideographs
}

/// How `page` relates to its entry's title, given its main text (`text`, what extraction
/// kept). Cheap on articles: the main text is searched first, and the rest of the page only
/// when the main text holds none of the title's words.
pub fn relation(page: &Page, text: &str) -> Relation {
    let Some(title) = page.title_hint.as_deref() else {
        return Relation::Unknown;
    };
    let words = title_words(title);
    if words.len() < MIN_TITLE_WORDS {
        return Relation::Unknown;
    }
    let main = text.to_lowercase();
    let in_main = words.iter().filter(|w| main.contains(w.as_str())).count();
    let needed = (words.len() as f64 * RELATED_SHARE).ceil() as usize;
    if in_main >= needed {
        return Relation::Related;
    }
    let headings = headings_text(&page.stats.blocks);
    let in_main_or_headings = words
        .iter()
        .filter(|w| main.contains(w.as_str()) || headings.contains(w.as_str()))
        .count();
    if in_main_or_headings >= needed {
        return Relation::Related;
    }
    if in_main_or_headings > 0 || anywhere_on(page, &words) {
        return Relation::Unknown;
    }
    Relation::Unrelated
}

/// The page's headings, lowercase, one per line.
fn headings_text(blocks: &[TextBlock]) -> String {
    let mut headings = String::new();
    for block in blocks.iter().filter(|block| block.is_heading()) {
        headings.push_str(&block.text.to_lowercase());
        headings.push('\n');
    }
    headings
}

/// Whether any of `words` is in any of the page's text, its `<title>` or the feed entry's own
/// text.
fn anywhere_on(page: &Page, words: &[String]) -> bool {
    let holds = |text: &str| {
        let text = text.to_lowercase();
        words.iter().any(|w| text.contains(w.as_str()))
    };
    page.stats.page_title.as_deref().is_some_and(holds)
        || page.stats.blocks.iter().any(|block| holds(&block.text))
}

/// A paragraph of prose: at least this many bytes…
const PROSE_PARAGRAPH: usize = 60;

/// …of at least this many words (or, in a script without spaces, twice as many characters).
const PROSE_WORDS: usize = 8;

/// Bytes of prose that tell a story: a news brief of two sentences. A wall's notice is a
/// sentence under its heading, and is not about the entry.
pub const STORY_PROSE: usize = 150;

/// A paragraph of prose: [`PROSE_PARAGRAPH`] bytes and [`PROSE_WORDS`] words that hold a
/// sentence's end. Buttons, labels, menus and form captions are not prose, in any language.
pub fn is_prose(paragraph: &str) -> bool {
    if paragraph.len() < PROSE_PARAGRAPH {
        return false;
    }
    let words = paragraph.split_whitespace().count();
    let unspaced = paragraph.chars().filter(|&c| is_unspaced_script(c)).count();
    let long_enough = words >= PROSE_WORDS || unspaced >= PROSE_WORDS * 2;
    let sentence_end = paragraph.contains(['.', '!', '?', '。', '！', '？', '…', '؟', '।']);
    long_enough && sentence_end
}

/// Letters and digits a page needs beyond its titles and its links to say anything: a
/// date line and a copyright notice are fewer.
const OWN_TEXT: usize = 40;

/// Whether the page says nothing beyond its `<title>`, the entry's title and its links
/// (menus, a footer's links): a body left empty. `text` is what extraction kept (which a
/// line algorithm may find where the DOM holds no block, in a page broken by a script).
pub fn nothing_beyond_titles(page: &Page, text: &str) -> bool {
    let titles: Vec<String> = [page.title_hint.as_deref(), page.stats.page_title.as_deref()]
        .into_iter()
        .flatten()
        .map(super::dom::collapse_whitespace)
        .filter(|title| !title.is_empty())
        .collect();
    let own_text = |text: &str| {
        let mut rest = super::dom::collapse_whitespace(text);
        for title in &titles {
            rest = rest.replace(title.as_str(), " ");
        }
        rest.chars().filter(|c| c.is_alphanumeric()).count()
    };
    if own_text(text) >= OWN_TEXT {
        return false;
    }
    let mut own = 0;
    for block in page.stats.blocks.iter().filter(|block| block.sa < block.sl) {
        own += own_text(&block.text);
        if own >= OWN_TEXT {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_words_leave_out_short_words_and_numbers() {
        assert_eq!(
            title_words("EU fines firm over cookie consent banners in 2026"),
            ["fines", "firm", "over", "cookie", "consent", "banners"]
        );
        assert_eq!(title_words("東京で 地震"), ["東京で", "地震"]);
        assert_eq!(
            title_words("Суд заблокировал продажу"),
            ["заблокировал", "продажу"]
        );
    }

    #[test]
    fn prose_needs_sentences_of_words() {
        assert!(!is_prose("Accept all"));
        let sentence = "The council approved the budget on Tuesday after a long debate.";
        assert!(is_prose(sentence));
        assert!(!is_prose(&sentence.replace('.', "")));
    }
}
