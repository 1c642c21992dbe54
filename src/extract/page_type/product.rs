//! Product pages: the product's name, description and specifications, the content of tabs and
//! accordions hidden until clicked included; the product's structured data where the visible
//! page holds less.
//!
//! A product page is a main column (the product `h1`, the gallery, the buy box) followed by
//! panels: description, details, specifications, often collapsed in tabs, accordions or
//! `<details>`. Around them stand the shop's chrome: variant and quantity pickers, cart and
//! wishlist buttons, delivery and returns text, reviews, "you may also like" carousels. The
//! article cascade keeps whichever block is longest, often a returns banner or a legal
//! footnote; here the panels are found by what they are named, and the name stays in front.

use std::sync::LazyLock;

use foldhash::HashSet;

use scraper::Selector;
use serde_json::Value;

use super::{items, marked, outermost, selectors, text_within};
use crate::extract::auto;
use crate::extract::{Algorithm, Extraction, Page};
use crate::tidy;

/// The description and specification panels of shop platforms and product pages.
static PANELS: LazyLock<Vec<Selector>> = LazyLock::new(|| {
    selectors(&[
        "[itemprop=\"description\"]",
        ".product-description, .product__description, .product-single__description, \
         #product-description, #description, #tab-description, .woocommerce-Tabs-panel, \
         .woocommerce-product-details__short-description, .product-details, #product-details, \
         .product-info__description, .pdp-description, .product-specs, .specifications, \
         #specifications, #specs, .product-features, .product-overview, #overview",
    ])
});

/// Class or id words of a product page's chrome inside a panel.
const CHROME_WORDS: &[&str] = &[
    "review",
    "reviews",
    "rating",
    "shipping",
    "delivery",
    "returns",
    "recommendations",
    "related",
    "upsell",
    "cart",
    "wishlist",
    "swatch",
    "swatches",
    "quantity",
];

/// Class or id words of customer reviews and the review platforms' widgets (Bazaarvoice,
/// PowerReviews, Yotpo, Judge.me, Stamped, Okendo).
const REVIEW_WORDS: &[&str] = &[
    "review",
    "reviews",
    "bv",
    "bazaarvoice",
    "yotpo",
    "jdgm",
    "stamped",
    "okereviews",
];

/// The `chosen` blocks of a product page without those of its customer reviews and of other
/// products' cards, when there were any and others remain.
///
/// Reviews are the shop's reader comments: each a customer's text under a name, a date and
/// stars, in an element the shop or its review platform names a review (or marks as a
/// schema.org `Review`). A product page describes one product, so a group of repeated cards
/// that mostly show a price ([`items::ItemGroup::is_for_sale`]) is other products: "complete
/// the look", "you may also like", "customers also bought". The product's text is its own
/// copy, not what buyers wrote about it nor what else the shop sells.
pub fn own_copy(page: &Page, chosen: &[usize]) -> Option<Vec<usize>> {
    let tree = &page.document.tree;
    let in_review = |index: usize| {
        let mut current = page
            .stats
            .blocks
            .get(index)
            .and_then(|block| tree.get(block.node));
        while let Some(node) = current {
            if let Some(element) = node.value().as_element()
                && (element.attr("itemprop") == Some("review")
                    || element
                        .attr("itemtype")
                        .is_some_and(|t| t.trim_end_matches('/').ends_with("/Review"))
                    || marked(element, REVIEW_WORDS))
            {
                return true;
            }
            current = node.parent();
        }
        false
    };
    let mut other_products: Vec<usize> = items::candidates(page)
        .into_iter()
        .filter(items::ItemGroup::is_for_sale)
        .flat_map(|group| group.blocks)
        .collect();
    other_products.sort_unstable();
    let kept: Vec<usize> = chosen
        .iter()
        .copied()
        .filter(|&ix| other_products.binary_search(&ix).is_err() && !in_review(ix))
        .collect();
    (!kept.is_empty() && kept.len() < chosen.len()).then_some(kept)
}

/// The least text of the panels: less, and the structured data's description is the
/// product's text.
const MIN_PANEL_BYTES: usize = 200;

/// The product's text, from its panels or its structured data.
pub fn extract(page: &Page) -> Option<Extraction> {
    let chrome = |element: &scraper::node::Element| {
        matches!(
            element.name(),
            "nav" | "footer" | "form" | "select" | "button"
        ) || marked(element, CHROME_WORDS)
    };
    let mut roots = Vec::new();
    for selector in PANELS.iter() {
        roots.extend(outermost(page, selector));
    }
    // The panels in page order, each once (a panel may match two selectors' lists).
    roots.sort_unstable_by_key(|id| page_order(page, *id));
    roots.dedup();
    let all = roots.clone();
    roots.retain(|&id| {
        let parent = page.document.tree.get(id).and_then(|n| n.parent());
        !std::iter::successors(parent, |n| n.parent()).any(|n| all.contains(&n.id()))
    });
    let panels = text_within(page, &roots, chrome);
    let body = if panels.len() >= MIN_PANEL_BYTES {
        panels
    } else {
        structured_description(page)?
    };
    // The product's name: the page's first `h1`, in front of its panels.
    let text = match page.stats.blocks.iter().find(|b| &*b.tag == "h1") {
        Some(name) if !body.starts_with(&name.text) => format!("{}\n\n{body}", name.text),
        _ => body,
    };
    let mut extraction = auto::text_extraction(page, Algorithm::Auto, &text);
    extraction.confidence = super::TYPED_CONFIDENCE;
    extraction.quality = crate::extract::quality::estimate(page, &extraction);
    Some(extraction)
}

/// `extraction` with the product's structured description (its JSON-LD `Product`'s
/// `description`) in front, when its text holds under [`DESCRIPTION_HELD_SHARE`] of the
/// description's words. A shop states the product's copy in its structured data for search
/// engines; a reading of the visible page that lacks it kept a widget (reviews, a size guide, a
/// delivery box) instead of the copy, or the copy sits in a panel the page fills by script.
pub fn with_description(page: &Page, mut extraction: Extraction) -> Extraction {
    let Some(description) = structured_description(page) else {
        return extraction;
    };
    // Words compared, not characters: the page and its data differ in quotes and spacing.
    let words = |text: &str| -> HashSet<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let held = words(&extraction.text);
    let described = words(&description);
    let shared = described.iter().filter(|w| held.contains(*w)).count();
    if shared as f64 >= DESCRIPTION_HELD_SHARE * described.len() as f64 {
        return extraction;
    }
    let mut html = String::from("<p>");
    tidy::escape_into(&mut html, &description, false);
    html.push_str("</p>");
    html.push_str(&extraction.html);
    extraction.html = html;
    extraction.text = format!("{description}\n\n{}", extraction.text);
    extraction
}

/// The share of the structured description's words a reading holds when it holds the
/// description.
pub const DESCRIPTION_HELD_SHARE: f64 = 0.6;

/// An element's place in document order (its index among the tree's nodes follows the order
/// the parser made them, which is document order for a parsed page).
fn page_order(page: &Page, id: ego_tree::NodeId) -> usize {
    page.document
        .tree
        .nodes()
        .position(|node| node.id() == id)
        .unwrap_or(usize::MAX)
}

/// The longest `description` of a JSON-LD `Product` or `ProductGroup`, as text.
fn structured_description(page: &Page) -> Option<String> {
    static SCRIPTS: LazyLock<Vec<Selector>> =
        LazyLock::new(|| selectors(&["script[type=\"application/ld+json\"]"]));
    let mut best: Option<String> = None;
    for script in SCRIPTS.iter().flat_map(|s| page.document.select(s)) {
        let text: String = script.text().collect();
        let Some(value) = super::json_ld::value(&text) else {
            continue;
        };
        let mut found = Vec::new();
        product_descriptions(&value, &mut found, 0);
        for description in found {
            let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
            if best.as_ref().is_none_or(|b| description.len() > b.len()) {
                best = Some(description);
            }
        }
    }
    best.filter(|b| b.len() >= MIN_STRUCTURED_BYTES)
}

/// Less is a tagline, not a description.
const MIN_STRUCTURED_BYTES: usize = 80;

fn product_descriptions<'a>(value: &'a Value, found: &mut Vec<&'a str>, depth: usize) {
    if depth > 12 {
        return;
    }
    match value {
        Value::Array(items) => items
            .iter()
            .for_each(|v| product_descriptions(v, found, depth + 1)),
        Value::Object(object) => {
            let is_product = match object.get("@type") {
                Some(Value::String(t)) => t == "Product" || t == "ProductGroup",
                Some(Value::Array(ts)) => ts.iter().any(|t| {
                    t.as_str()
                        .is_some_and(|t| t == "Product" || t == "ProductGroup")
                }),
                _ => false,
            };
            if is_product && let Some(Value::String(description)) = object.get("description") {
                found.push(description);
            }
            object
                .values()
                .for_each(|v| product_descriptions(v, found, depth + 1));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_selector_parses() {
        assert_eq!(PANELS.len(), 2);
    }
}
