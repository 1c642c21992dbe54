//! Repeated items: the group of sibling elements built alike (a shop's product cards, a
//! listing's story teasers, a chart's rows) that holds most of an index page's text.
//!
//! An index page is written by a template that repeats one element per item: the same tag with
//! the same base class, side by side under one parent, each holding the item's link and a few
//! words (its name, a teaser, a price). [`find`] reads that shape from the statistics pass:
//! every text block votes for each of its nearest ancestors as an item of a group keyed by the
//! ancestor's parent and its signature (tag and first class token, digits dropped so that
//! `item-1`, `item-2` agree). A group of at least [`MIN_ITEMS`] items of which most carry a
//! link, whose items are short enough to be cards and long enough not to be a menu's single
//! words, and which lies outside the page's navigation and footer, is a candidate; the one
//! with the most text is the page's item group. A grid the template writes as rows (each
//! row an element holding a few cards) is one group: the cards of rows alike, under one
//! container, join ([`joined_rows`]).

use ego_tree::NodeId;
use foldhash::HashMap;
use scraper::node::Element;

use super::PageType;
use crate::extract::Page;
use crate::extract::dom::TextBlock;

/// The fewest items a group holds: fewer is a row of a page's sections, not an index.
pub const MIN_ITEMS: usize = 6;

/// The fewest items of a group on a page the detector or the feed named a collection.
pub const MIN_NAMED_ITEMS: usize = 3;

/// The fewest items of one row of a grid written as rows: a row of one is a list's entry.
const MIN_ROW_ITEMS: usize = 2;

/// How many ancestors above a text block are read as its possible item element: a card's
/// name sits a few levels inside it (`li > div > a > h3`), and up to ten in the nested wrappers
/// of component frameworks (`div > a > div > div > div > div > h2`: a news front's cards).
const ITEM_DEPTH: usize = 10;

/// The least mean text of an item: a menu's entries are single words.
const MIN_ITEM_BYTES: usize = 24;

/// The most mean text of an item: more is a page's sections, each a text of its own.
const MAX_ITEM_BYTES: usize = 1200;

/// The least share of items that carry a link: a card opens its item's page.
const MIN_LINKED_SHARE: f64 = 0.5;

/// One group of repeated items.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemGroup {
    /// The element the items are children of.
    pub parent: NodeId,
    /// The items, in page order.
    pub items: Vec<NodeId>,
    /// The text blocks inside the items, in block order.
    pub blocks: Vec<usize>,
    /// Bytes of text inside the items.
    pub text_bytes: usize,
    /// Bytes of link text inside the items.
    pub link_bytes: usize,
    /// How many items show a price: a shop's cards do, a listing's teasers do not.
    pub priced_items: usize,
}

impl ItemGroup {
    /// Whether the items are a shop's products: at least half of them show a price.
    pub fn is_for_sale(&self) -> bool {
        self.priced_items * 2 >= self.items.len()
    }
}

#[derive(Default)]
struct Tally {
    items: Vec<NodeId>,
    /// The first and last block of each item (blocks of one element are consecutive).
    spans: Vec<(usize, usize)>,
    linked_items: usize,
    item_has_link: bool,
    priced_items: usize,
    item_has_price: bool,
    text_bytes: usize,
    link_bytes: usize,
}

/// The page's item group: the qualifying group with the most text that follows the page's
/// first heading of rank one (a menu's groups come before the page's own title).
pub fn find(page: &Page) -> Option<ItemGroup> {
    let blocks = &page.stats.blocks;
    let title_at = blocks
        .iter()
        .find(|b| &*b.tag == "h1" && !in_chrome(page, b.node))
        .map_or(0, |b| b.position);
    candidates(page)
        .into_iter()
        .filter(|g| {
            g.blocks
                .first()
                .is_some_and(|&ix| blocks[ix].position > title_at)
        })
        .max_by_key(|g| g.text_bytes)
}

/// Calls `visit` with every text block (its index and itself; empty blocks and captions
/// left out) and each of its `depth` nearest ancestor elements below `body`, with that
/// element's parent: the walk by which items and sections tally their text. Blocks come in
/// page order, so the blocks of one element are consecutive.
pub(crate) fn for_each_ancestor(
    page: &Page,
    depth: usize,
    mut visit: impl FnMut(usize, &TextBlock, NodeId, &Element, NodeId),
) {
    let tree = &page.document.tree;
    for (index, block) in page.stats.blocks.iter().enumerate() {
        if block.sl == 0 || block.caption {
            continue;
        }
        let Some(mut current) = tree.get(block.node) else {
            continue;
        };
        for _ in 0..depth {
            let (Some(parent), Some(element)) = (current.parent(), current.value().as_element())
            else {
                break;
            };
            if matches!(element.name(), "body" | "html") {
                break;
            }
            visit(index, block, current.id(), element, parent.id());
            current = parent;
        }
    }
}

/// Every qualifying group of the page, in no particular order.
pub fn candidates(page: &Page) -> Vec<ItemGroup> {
    // A shop's category page, by its own word, may show only a few products.
    let min_items = if page.page_type == PageType::Collection {
        MIN_NAMED_ITEMS
    } else {
        MIN_ITEMS
    };
    let mut tallies: HashMap<(NodeId, u64), Tally> = HashMap::default();
    for_each_ancestor(page, ITEM_DEPTH, |index, block, item, element, parent| {
        let tally = tallies.entry((parent, signature(element))).or_default();
        if tally.items.last() != Some(&item) {
            if tally.item_has_link {
                tally.linked_items += 1;
            }
            if tally.item_has_price {
                tally.priced_items += 1;
            }
            tally.items.push(item);
            tally.spans.push((index, index));
            tally.item_has_link = false;
            tally.item_has_price = false;
        }
        if let Some(span) = tally.spans.last_mut() {
            span.1 = index;
        }
        tally.item_has_link |= block.sa > 0;
        tally.item_has_price |= shows_price(&block.text);
        tally.text_bytes += block.sl;
        tally.link_bytes += block.sa;
    });
    let tallies = tallies
        .into_iter()
        .map(|((parent, item_signature), mut tally)| {
            if tally.item_has_link {
                tally.linked_items += 1;
            }
            if tally.item_has_price {
                tally.priced_items += 1;
            }
            (parent, item_signature, tally)
        });
    joined_rows(page, tallies, min_items)
        .into_iter()
        .filter_map(|(parent, tally)| {
            let count = tally.items.len();
            if count < min_items {
                return None;
            }
            let mean = tally.text_bytes / count;
            let linked = tally.linked_items as f64 / count as f64;
            let qualifies = (MIN_ITEM_BYTES..=MAX_ITEM_BYTES).contains(&mean)
                && linked >= MIN_LINKED_SHARE
                && !in_chrome(page, parent);
            qualifies.then(|| ItemGroup {
                parent,
                items: tally.items,
                blocks: spanned_blocks(page, &tally.spans),
                text_bytes: tally.text_bytes,
                link_bytes: tally.link_bytes,
                priced_items: tally.priced_items,
            })
        })
        .collect()
}

/// The tallies by parent, those of fewer than `min_items` items joined by row: a grid the
/// template writes as rows (one element per row, the cards inside it) is one group of the
/// cards of all rows alike (same row signature, same item signature, one container), keyed by
/// the rows' container.
fn joined_rows(
    page: &Page,
    tallies: impl Iterator<Item = (NodeId, u64, Tally)>,
    min_items: usize,
) -> Vec<(NodeId, Tally)> {
    let tree = &page.document.tree;
    let mut groups = Vec::new();
    let mut rows: HashMap<(NodeId, u64, u64), Vec<Tally>> = HashMap::default();
    for (parent, item_signature, tally) in tallies {
        let row = tree.get(parent).and_then(|node| {
            let element = node.value().as_element()?;
            Some((node.parent()?.id(), signature(element)))
        });
        match row {
            Some((container, row_signature))
                if (MIN_ROW_ITEMS..min_items).contains(&tally.items.len()) =>
            {
                rows.entry((container, row_signature, item_signature))
                    .or_default()
                    .push(tally)
            }
            _ => groups.push((parent, tally)),
        }
    }
    for ((container, _, _), mut row_tallies) in rows {
        if row_tallies.len() < 2 {
            continue;
        }
        row_tallies.sort_by_key(|t| t.spans.first().map_or(0, |span| span.0));
        let mut joined = Tally::default();
        for tally in row_tallies {
            joined.items.extend(tally.items);
            joined.spans.extend(tally.spans);
            joined.linked_items += tally.linked_items;
            joined.priced_items += tally.priced_items;
            joined.text_bytes += tally.text_bytes;
            joined.link_bytes += tally.link_bytes;
        }
        groups.push((container, joined));
    }
    groups
}

/// The text blocks of `spans` (first and last block of each element), captions and empty
/// blocks left out.
pub(crate) fn spanned_blocks(page: &Page, spans: &[(usize, usize)]) -> Vec<usize> {
    spans
        .iter()
        .flat_map(|&(first, last)| first..=last)
        .filter(|&ix| {
            page.stats
                .blocks
                .get(ix)
                .is_some_and(|b| b.sl > 0 && !b.caption)
        })
        .collect()
}

/// An element's place in a template: its tag and first class token, digits left out
/// (FNV-1a: a few bytes per element, hashed for every ancestor of every block).
fn signature(element: &Element) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    // The least token, as `Element::classes` sorts them, without interning every token.
    let class = crate::extract::dom::class_and_id_attributes(element, false)
        .0
        .and_then(|class| class.split_ascii_whitespace().min())
        .unwrap_or("");
    for byte in element.name().bytes().chain([b' ']).chain(class.bytes()) {
        if !byte.is_ascii_digit() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    }
    hash
}

/// Whether `node` lies in the page's navigation, header or footer.
pub(crate) fn in_chrome(page: &Page, node: NodeId) -> bool {
    let mut current = page.document.tree.get(node);
    while let Some(element) = current {
        if let Some(value) = element.value().as_element()
            && matches!(value.name(), "nav" | "header" | "footer")
        {
            return true;
        }
        current = element.parent();
    }
    false
}

/// Whether a short text shows a price: a currency sign or code beside a number
/// (`$30.00`, `49,95 €`, `CHF 120`). Long texts are prose that may mention money.
fn shows_price(text: &str) -> bool {
    const SIGNS: &[char] = &[
        '$', '\u{20ac}', '\u{a3}', '\u{a5}', '\u{20b9}', '\u{20a9}', '\u{20bd}',
    ];
    const CODES: &[&str] = &[
        "USD", "EUR", "GBP", "CHF", "JPY", "CAD", "AUD", "SEK", "NOK", "DKK", "PLN", "CZK", "kr",
        "z\u{142}",
    ];
    if text.len() > 80 || !text.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    text.contains(SIGNS)
        || text
            .split(|c: char| c.is_whitespace() || c.is_ascii_digit() || c == '.' || c == ',')
            .any(|word| CODES.contains(&word))
}
