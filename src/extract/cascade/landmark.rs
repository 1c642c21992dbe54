//! The page's `main` landmark as a bound on where its content may lie.
//!
//! HTML marks "the dominant contents of the document" with one `<main>` element (or
//! `role="main"`), and a template puts the page's own heading, its `<h1>`, inside it. Shops,
//! landing pages and news fronts also carry long texts outside it: a returns policy or a
//! privacy notice in a dialog, a cookie banner, a drawer of promotions, a block of legal
//! footnotes. On such a page the cascade can keep one of those, the longest prose of the
//! page, while the page's content, short cards or sections, stands inside `main`. When a page
//! has one `main`, its `h1` is inside it, and the cascade's choice lies almost wholly outside
//! it, the choice is the page's furniture: the content is read again from `main` alone
//! ([`reread_main`]). On the six bench sets every page where this held had scored F1 0.00
//! (docs/algorithms.md, "The main landmark"). A page of another type than an article with no
//! `h1` at all (a shop's category named only in its title) needs no heading inside `main`.
//!
//! A landing page's template puts every section of the page inside `main` and the site's
//! chrome (its header, menu and footer) outside it. When the cascade kept under
//! [`LANDING_MAIN_SHARE`] of `main`'s text on such a page it kept one section of many, and
//! the content is `main` whole, its navigation, forms and dialogs left out
//! ([`landing_main_blocks`]).

use std::sync::LazyLock;

use ego_tree::NodeId;
use scraper::{ElementRef, Selector};

use crate::extract::Page;
use crate::extract::page_type::{PageType, blocks_within, items, outermost};

/// The share of the choice's text inside `main` under which the choice lies outside it.
pub const INSIDE_SHARE: f64 = 0.2;

/// The least text of a `main` read again: less is a shell the page fills by script.
pub const MIN_MAIN_BYTES: usize = 200;

static MAIN: LazyLock<Option<Selector>> =
    LazyLock::new(|| Selector::parse("main, [role=\"main\"]").ok());

/// The page's one `main` element, when the cascade's `chosen` blocks lie outside it while the
/// page's heading lies inside (or, on a page whose type is not an article, the page has no
/// heading at all): the element to read the content from instead.
pub fn missed_main(page: &Page, chosen: &[usize]) -> Option<NodeId> {
    let blocks = &page.stats.blocks;
    let chosen_bytes: usize = chosen.iter().map(|&ix| blocks[ix].sl).sum();
    if chosen_bytes == 0 {
        return None;
    }
    let main = only_main(page)?;
    let heading = blocks
        .iter()
        .position(|b| &*b.tag == "h1" && !items::in_chrome(page, b.node));
    let inside = blocks_within(page, &[main], |_| false);
    // `inside` is in block order.
    let heading_inside = heading.is_some_and(|ix| inside.binary_search(&ix).is_ok());
    if !(heading_inside || heading.is_none() && page.page_type != PageType::Article) {
        return None;
    }
    let main_bytes: usize = inside.iter().map(|&ix| blocks[ix].sl).sum();
    let chosen_inside: usize = chosen
        .iter()
        .filter(|ix| inside.binary_search(ix).is_ok())
        .map(|&ix| blocks[ix].sl)
        .sum();
    let outside = (chosen_inside as f64) < INSIDE_SHARE * chosen_bytes as f64;
    (outside && main_bytes >= MIN_MAIN_BYTES).then_some(main)
}

/// The page's one outermost `main` element; none, or several, and no one element is the
/// page's dominant content.
fn only_main(page: &Page) -> Option<NodeId> {
    let mains = outermost(page, MAIN.as_ref()?);
    match mains[..] {
        [main] => Some(main),
        _ => None,
    }
}

/// On a landing page, the share of `main`'s text under which the cascade's choice kept one
/// section of many rather than the page's text.
pub const LANDING_MAIN_SHARE: f64 = 0.5;

/// The blocks of a service page's one `main` (of [`MIN_MAIN_BYTES`] or more), outside its
/// navigation, forms and dialogs, when the cascade's choice of `chosen_bytes` holds under
/// [`LANDING_MAIN_SHARE`] of their text. A `header` or `footer` inside `main` stays: there it
/// is a section's heading or closing line, not the site's.
pub fn landing_main_blocks(page: &Page, chosen_bytes: usize) -> Option<Vec<usize>> {
    if page.page_type != PageType::Service {
        return None;
    }
    let main = only_main(page)?;
    let inside = blocks_within(page, &[main], |element| {
        matches!(element.value().name(), "nav" | "form" | "dialog")
    });
    let main_bytes: usize = inside.iter().map(|&ix| page.stats.blocks[ix].sl).sum();
    let kept_one_section = (chosen_bytes as f64) < LANDING_MAIN_SHARE * main_bytes as f64;
    (main_bytes >= MIN_MAIN_BYTES && kept_one_section).then_some(inside)
}

/// A page of `main` alone: its markup parsed as the body of a page with the same address,
/// hints and type, so that every algorithm reads it as it would the whole page.
pub fn reread_main(page: &Page, main: NodeId) -> Option<Page> {
    let element = ElementRef::wrap(page.document.tree.get(main)?)?;
    let markup = format!("<html><body>{}</body></html>", element.html());
    let mut alone = Page::parse(
        markup.as_bytes(),
        Some("utf-8"),
        page.base.as_ref(),
        page.effective_title(),
    );
    alone.feed_text.clone_from(&page.feed_text);
    alone.page_type = page.page_type;
    Some(alone)
}
