//! Documentation pages: the framework's body element whole, its chrome left out.
//!
//! A documentation framework lays every page out the same way: a navigation tree on one side,
//! an on-page table of contents on the other, breadcrumbs and a version picker above, "edit
//! this page", feedback and previous/next links below, and between them one element that holds
//! the page's body (Sphinx `[role=main]`, MediaWiki `#mw-content-text`, devsite
//! `.devsite-article-body`, Docusaurus `.theme-doc-markdown`, MkDocs `.md-content__inner`).
//! That element is the content whole: its link lists and card grids are a landing page's
//! content (the article cascade drops them as link-dense), its code blocks and tables the
//! reference's. Inside it, the table of contents (unless it leads to other pages: a chapter's
//! list of its sections), breadcrumbs, edit and feedback widgets and prev/next links are still
//! chrome. A wiki's list and category pages are read the same way, from MediaWiki's body.

use std::sync::LazyLock;

use scraper::{ElementRef, Selector};

use super::{blocks_within, marked, outermost, selectors, typed_extraction};
use crate::extract::{Extraction, Page};

/// The body elements of documentation frameworks, most specific first; the page's `main` or
/// `article` last, for a framework this list does not name.
static BODIES: LazyLock<Vec<Selector>> = LazyLock::new(|| {
    selectors(&[
        ".devsite-article-body",
        "#mw-content-text",
        ".theme-doc-markdown",
        ".md-content__inner",
        ".rst-content [role=\"main\"]",
        "[role=\"main\"] [itemprop=\"articleBody\"]",
        "div.body[role=\"main\"]",
        "div.document [role=\"main\"]",
        "#docContent",
        "#main-content",
        "#article-contents",
        "main article",
        "article",
        "main",
        "[role=\"main\"]",
    ])
});

/// Class or id words of the chrome inside a body: the table of contents, breadcrumbs,
/// pagination and prev/next, feedback, edit links, navigation bars.
const CHROME_WORDS: &[&str] = &[
    "toc",
    "breadcrumb",
    "breadcrumbs",
    "pagination",
    "pager",
    "prevnext",
    "feedback",
    "navbar",
    "sidebar",
    "editsection",
];

/// Whole class or id tokens of chrome whose words alone would say too little.
const CHROME_TOKENS: &[&str] = &[
    "prev-next",
    "edit-page",
    "edit-this-page",
    "theme-edit-this-page",
    "md-source-file",
    // DocBook's navigation bars above and below each page (Prev | Up | Home | Next).
    "navheader",
    "navfooter",
    "devsite-page-rating",
    "printfooter",
    "catlinks",
];

/// Whether a table of contents links mostly to other pages rather than to this page's own
/// headings: a chapter's or an index page's list of its sections, each a page of its own
/// (DocBook's chapter `div.toc`), is what that page holds, while an "on this page" list
/// repeats the headings below it.
fn leads_to_other_pages(toc: ElementRef<'_>) -> bool {
    let Some(links) = LINKS.as_ref() else {
        return false;
    };
    let (mut elsewhere, mut on_page) = (0usize, 0usize);
    for link in toc.select(links) {
        match link.value().attr("href") {
            Some(href) if href.starts_with('#') => on_page += 1,
            Some(_) => elsewhere += 1,
            None => {}
        }
    }
    elsewhere > on_page
}

static LINKS: LazyLock<Option<Selector>> = LazyLock::new(|| Selector::parse("a[href]").ok());

/// The least text a body element holds: less is a wrapper the page fills by script.
const MIN_TEXT_BYTES: usize = 200;

/// The documentation page's body, when a body element holds it.
pub fn extract(page: &Page) -> Option<Extraction> {
    BODIES.iter().find_map(|selector| body(page, selector))
}

/// A wiki's index page (a list, a category's members) read as its body whole: MediaWiki's
/// `#mw-content-text`, whose tables and lists of links are the page's items; `None` on a page
/// without that element, which the article cascade and its items read instead.
pub fn extract_wiki_index(page: &Page) -> Option<Extraction> {
    WIKI_BODY.as_ref().and_then(|selector| body(page, selector))
}

static WIKI_BODY: LazyLock<Option<Selector>> =
    LazyLock::new(|| Selector::parse("#mw-content-text").ok());

/// The blocks inside the outermost elements `selector` finds, without their chrome, when they
/// hold [`MIN_TEXT_BYTES`] or more.
fn body(page: &Page, selector: &Selector) -> Option<Extraction> {
    let chrome = |element: ElementRef<'_>| {
        let value = element.value();
        let named_chrome = marked(value, CHROME_WORDS)
            || value
                .classes()
                .chain(value.id())
                .any(|token| CHROME_TOKENS.contains(&token.to_ascii_lowercase().as_str()));
        matches!(value.name(), "nav" | "aside" | "footer")
            || named_chrome && !(marked(value, &["toc"]) && leads_to_other_pages(element))
    };
    let roots = outermost(page, selector);
    if roots.is_empty() {
        return None;
    }
    let blocks = blocks_within(page, &roots, chrome);
    let text_bytes: usize = blocks.iter().map(|&ix| page.stats.blocks[ix].sl).sum();
    (text_bytes >= MIN_TEXT_BYTES).then(|| typed_extraction(page, &blocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_selector_parses() {
        assert_eq!(BODIES.len(), 15);
    }
}
