//! Turning chosen nodes into the stored result: sanitized HTML that keeps paragraph
//! structure, plain text with one blank line between blocks, and the article's images
//! (CUTER's c₂ nodes, seed 000 section III: "multimedia information nodes (c₂) will include
//! useful multimedia for presentation together with the article").
//!
//! Images are kept in document order with alt text and figure caption; tracking pixels
//! (a side declared 2 px or less, or a known tracker's address) and icons (an
//! icon/logo/avatar/sprite address) are dropped. A small image that is neither (a 40×30
//! chart, a thumbnail) is the article's.

use ego_tree::NodeRef;
use scraper::Node;

use super::Image;
use super::Page;
use super::dom::ImageNode;
use crate::tidy;

/// Address fragments of tracking pixels and analytics beacons: known trackers' hosts and
/// paths, not words an ordinary image name may hold ("pixel-art.png", "tracking-shot.jpg").
const BEACON_PATTERNS: &[&str] = &[
    "/pixel.gif",
    "/pixel.png",
    "/pixel?",
    "/pixel/",
    "/beacon",
    "/tracking/",
    "/tracker/",
    "/track.gif",
    "/1x1",
    "1x1.gif",
    "1x1.png",
    "spacer.gif",
    "doubleclick.net",
    "facebook.com/tr",
    "google-analytics.com",
    "googletagmanager.com",
    "scorecardresearch.com",
    "/b/ss/",
    "quantserve.com",
    "chartbeat.net",
    "/adserver",
    "/count?",
    "/stat?",
    "imrworldwide.com",
    "omtrdc.net",
    "bat.bing.com",
    "pixel.wp.com",
    "feedburner.com/~r/",
    "feeds.feedburner.com/~ff/",
];

/// Address fragments of icons and page decoration.
const ICON_PATTERNS: &[&str] = &[
    "icon", "logo", "avatar", "emoji", "sprite", "badge", "gravatar", "/button", "favicon",
];

/// Whether an image is a tracking pixel or an icon rather than article media.
pub fn is_decoration(image: &ImageNode) -> bool {
    let tiny = |d: Option<u32>| d.is_some_and(|d| d <= 2);
    if tiny(image.width) || tiny(image.height) {
        return true;
    }
    let url = image.url.to_ascii_lowercase();
    BEACON_PATTERNS.iter().any(|p| url.contains(p)) || ICON_PATTERNS.iter().any(|p| url.contains(p))
}

/// The images whose position lies in `from..=to`, decoration dropped, duplicates removed.
pub fn article_images(images: &[ImageNode], from: usize, to: usize) -> Vec<&ImageNode> {
    let mut seen = std::collections::HashSet::new();
    images
        .iter()
        .filter(|image| image.position >= from && image.position <= to)
        .filter(|image| !is_decoration(image))
        .filter(|image| seen.insert(image.url.as_str()))
        .collect()
}

/// The rendered body.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub html: String,
    pub text: String,
    pub images: Vec<Image>,
}

/// Renders the chosen blocks (by `IX`, ascending) with the chosen images.
pub fn render(page: &Page, blocks: &[usize], images: &[&ImageNode]) -> Rendered {
    let stats = &page.stats;
    let mut html = String::new();
    let mut texts: Vec<&str> = Vec::with_capacity(blocks.len());
    let mut pending_images = images.iter().peekable();
    let mut open_list: Option<(ego_tree::NodeId, &'static str)> = None;

    for &ix in blocks {
        let Some(block) = stats.blocks.get(ix) else {
            continue;
        };
        while let Some(image) = pending_images.next_if(|i| i.position < block.position) {
            close_list(&mut html, &mut open_list);
            write_figure(&mut html, image);
        }
        let Some(node) = page.document.tree.get(block.node) else {
            continue;
        };
        texts.push(block.text.as_str());
        let tag: &str = match block.tag.as_str() {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "p" | "blockquote" | "pre" | "li" | "dt"
            | "dd" => block.tag.as_str(),
            _ => "p",
        };
        if tag == "li" {
            let list_tag = node
                .parent()
                .and_then(|p| p.value().as_element().map(|e| e.name() == "ol"))
                .map_or("ul", |ordered| if ordered { "ol" } else { "ul" });
            let parent = block.parent.unwrap_or(block.node);
            if open_list.map(|(id, _)| id) != Some(parent) {
                close_list(&mut html, &mut open_list);
                html.push('<');
                html.push_str(list_tag);
                html.push('>');
                open_list = Some((parent, list_tag));
            }
        } else {
            close_list(&mut html, &mut open_list);
        }
        html.push('<');
        html.push_str(tag);
        html.push('>');
        if block.run {
            // One run of several in the element: its own text, not the element's children.
            tidy::escape_into(&mut html, &block.text, false);
        } else {
            for child in node.children() {
                if !is_nested_block(child) {
                    tidy::write_subtree(&mut html, child, page.base.as_ref(), &is_nested_block);
                }
            }
        }
        html.push_str("</");
        html.push_str(tag);
        html.push('>');
    }
    close_list(&mut html, &mut open_list);
    for image in pending_images {
        write_figure(&mut html, image);
    }
    Rendered {
        html: tidy::sanitize(&html),
        text: texts.join("\n\n"),
        images: images.iter().map(|i| to_image(i)).collect(),
    }
}

fn close_list(html: &mut String, open_list: &mut Option<(ego_tree::NodeId, &'static str)>) {
    if let Some((_, tag)) = open_list.take() {
        html.push_str("</");
        html.push_str(tag);
        html.push('>');
    }
}

/// Children that are their own text blocks (or images, rendered as figures) are not part of
/// their parent's rendering.
fn is_nested_block(node: NodeRef<'_, Node>) -> bool {
    node.value().as_element().is_some_and(|e| {
        let name = e.name();
        name == "img" || name == "figure" || name == "picture" || !super::dom::is_inline(name)
    })
}

fn write_figure(html: &mut String, image: &ImageNode) {
    html.push_str("<figure><img src=\"");
    tidy::escape_into(html, &image.url, true);
    html.push('"');
    if let Some(alt) = &image.alt {
        html.push_str(" alt=\"");
        tidy::escape_into(html, alt, true);
        html.push('"');
    }
    for (name, value) in [("width", image.width), ("height", image.height)] {
        if let Some(value) = value {
            html.push_str(&format!(" {name}=\"{value}\""));
        }
    }
    html.push('>');
    if let Some(caption) = &image.caption {
        html.push_str("<figcaption>");
        tidy::escape_into(html, caption, false);
        html.push_str("</figcaption>");
    }
    html.push_str("</figure>");
}

fn to_image(image: &ImageNode) -> Image {
    Image {
        url: image.url.clone(),
        alt: image.alt.clone(),
        caption: image.caption.clone(),
        width: image.width,
        height: image.height,
    }
}
