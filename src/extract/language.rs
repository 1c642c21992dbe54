//! The page's language as an ISO 639-1 code: what the page declares (`<html lang>`, then
//! `og:locale`), else what its extracted text reads as (`whatlang`, trusted only when reliable).
//!
//! Pure: the HTTP `Content-Language` header is the caller's to prefer over this.

use scraper::{Html, Selector};

/// The ISO 639-1 code of a language tag such as `en-GB`, `pt_BR` or `DE`; `None` when the
/// primary subtag names no ISO 639-1 language.
pub fn iso639_1(tag: &str) -> Option<String> {
    let primary = tag
        .trim()
        .split(['-', '_', ','])
        .next()?
        .trim()
        .to_ascii_lowercase();
    let language = match primary.len() {
        2 => isolang::Language::from_639_1(&primary),
        3 => isolang::Language::from_639_3(&primary),
        _ => None,
    }?;
    language.to_639_1().map(str::to_string)
}

/// The language the document declares: `<html lang>`, else `og:locale`.
pub fn declared(document: &Html) -> Option<String> {
    let root_lang = document.root_element().attr("lang").and_then(iso639_1);
    root_lang.or_else(|| {
        let selector = Selector::parse(r#"meta[property="og:locale"], meta[name="og:locale"]"#)
            .expect("a valid selector");
        document
            .select(&selector)
            .filter_map(|meta| meta.attr("content"))
            .find_map(iso639_1)
    })
}

/// The language `text` reads as, when the detector calls its guess reliable.
pub fn detected(text: &str) -> Option<String> {
    let info = whatlang::detect(text).filter(whatlang::Info::is_reliable)?;
    iso639_1(info.lang().code())
}

/// The page's language: declared, else detected from the extracted `text`.
pub fn page_language(document: &Html, text: &str) -> Option<String> {
    declared(document).or_else(|| detected(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_become_two_letter_codes() {
        assert_eq!(iso639_1("en-GB").as_deref(), Some("en"));
        assert_eq!(iso639_1("pt_BR").as_deref(), Some("pt"));
        assert_eq!(iso639_1("deu").as_deref(), Some("de"));
        assert_eq!(iso639_1("x-klingon"), None);
    }

    #[test]
    fn the_declaration_wins_over_the_text() {
        let page = Html::parse_document(
            "<html lang=\"fr-FR\"><body><p>The council met on Tuesday.</p></body></html>",
        );
        assert_eq!(
            page_language(
                &page,
                "The council met on Tuesday to discuss the budget for the coming year."
            )
            .as_deref(),
            Some("fr")
        );
        let page = Html::parse_document(
            "<html><head><meta property=\"og:locale\" content=\"de_DE\"></head></html>",
        );
        assert_eq!(declared(&page).as_deref(), Some("de"));
    }

    #[test]
    fn undeclared_pages_are_detected_from_the_text() {
        let page = Html::parse_document("<html><body></body></html>");
        let text = "Der Stadtrat traf sich am Dienstag, um über den Haushalt für das kommende \
                    Jahr zu beraten, und die Mitglieder sprachen lange über Straßen und Schulen.";
        assert_eq!(page_language(&page, text).as_deref(), Some("de"));
    }
}
