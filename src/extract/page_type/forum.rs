//! Forum threads: the opening post and every reply, in page order, each post's author and
//! date kept as a [`Post`], and the text the posts' bodies.
//!
//! A thread page is a run of post containers, each a user card (name, title, post count, join
//! date), a date or permalink line, the body, and controls (reply, quote, react, report) with
//! a signature below. Every platform wraps the body in an element of its own vocabulary; that
//! element is the content, and the rest of each post is chrome. The whole run often sits in a
//! container named with comment words (`comments`, `js-replyNewMessageContainer`), which the
//! article cascade drops as reader comments: on a thread they are the content, so the bodies
//! are found by what they are rather than by where the article cascade would look.
//!
//! The body selectors are tried in order, the first that matches wins (one platform per page);
//! quotes inside a body stay, since they are part of the reply as its author wrote it.

use std::collections::HashMap;
use std::sync::LazyLock;

use ego_tree::NodeId;
use scraper::{ElementRef, Selector};

use super::{Post, blocks_within, marked, outermost, selectors, typed_extraction};
use crate::extract::{Extraction, Page};

/// The post bodies of forum platforms, most specific first.
static BODIES: LazyLock<Vec<Selector>> = LazyLock::new(|| {
    selectors(&[
        // XenForo 2: `article.message--post` > `.message-body` > `.bbWrapper`.
        ".message-body .bbWrapper",
        // XenForo 1: `li.message` > `blockquote.messageText`.
        ".messageText",
        // phpBB 3: `div.post` > `div.postbody` > `div.content`.
        ".postbody .content",
        // FluxBB, PunBB: `div.postmsg`.
        ".postmsg",
        // Invision Community 4: `article.ipsComment` > `.ipsComment_content` > rich text.
        ".ipsComment_content .ipsType_richText",
        // Invision Community 5.
        ".ipsEntry__post .ipsRichText",
        ".ipsEntry__content .ipsRichText",
        // Discourse: `.topic-post` > `.cooked`.
        ".topic-post .cooked",
        ".cooked",
        // Stack Exchange: question and answers, each `.js-post-body`.
        ".js-post-body",
        // vBulletin: `div[id=post_message_N]`.
        "[id^=\"post_message_\"]",
        // NodeBB and WordPress forum plugins.
        "[component=\"post/content\"]",
        ".forum-post-content",
        ".bbp-reply-content",
        // MyBB, SMF, Vanilla.
        ".post_body",
        ".post_wrapper .inner",
        ".Message.userContent",
        // Reddit, old and new; Lemmy.
        ".usertext-body .md",
        "[slot=\"text-body\"], [slot=\"comment\"]",
        ".md-div",
        // Boards whose posts name themselves: `.postBody`, `.postText`, `.post-content`,
        // GameFAQs' `.msg_body`, TripAdvisor's `.postcontent`.
        ".msg_body",
        ".postcontent",
        ".postBody",
        ".postText",
        ".post-content",
        ".post-body",
        // schema.org microdata: a posting's or comment's text.
        "[itemtype$=\"DiscussionForumPosting\"] [itemprop=\"text\"], \
         [itemtype$=\"Comment\"] [itemprop=\"text\"], \
         [itemtype$=\"DiscussionForumPosting\"] [itemprop=\"articleBody\"]",
    ])
});

/// Where a post's author's name stands inside its container.
static AUTHORS: LazyLock<Vec<Selector>> = LazyLock::new(|| {
    selectors(&[
        "[itemprop=\"author\"] [itemprop=\"name\"]",
        "[itemprop=\"author\"]",
        ".message-name",
        ".username",
        ".s-user-card--link",
        ".user-details a",
        ".author a",
        ".author",
        ".postauthor",
        ".poster",
        ".bigusername",
    ])
});

/// Where a post's date stands: a machine-readable time first.
static DATES: LazyLock<Vec<Selector>> = LazyLock::new(|| {
    selectors(&[
        "time[datetime]",
        "[itemprop=\"datePublished\"]",
        "[itemprop=\"dateCreated\"]",
        ".relativetime",
        ".post-date",
        ".date",
    ])
});

/// Inside a body, what is a post's chrome, not its text: a signature, a "Click to expand"
/// control, reactions, the attachment list's controls.
const CHROME: &[&str] = &[
    "signature",
    "bbcodeblock-expandlink",
    "reactions",
    "js-post-menu",
    "post-menu",
    "likes",
];

/// The least text of a thread: a page with less leaves the cascade to decide.
const MIN_TEXT_BYTES: usize = 80;

/// How many post bodies the page holds, as [`extract`] finds them (the first selector of
/// [`BODIES`] that matches): the detector's evidence of a thread where the platform left no
/// mark of its own.
pub(super) fn post_bodies(document: &scraper::Html) -> usize {
    BODIES
        .iter()
        .map(|selector| document.select(selector).count())
        .find(|&count| count > 0)
        .unwrap_or(0)
}

/// The posts of a thread page and its text, when the page holds post bodies.
pub fn extract(page: &Page) -> Option<Extraction> {
    let bodies = BODIES
        .iter()
        .map(|selector| outermost(page, selector))
        .find(|found| !found.is_empty())?;
    let chrome = |element: ElementRef<'_>| marked(element.value(), CHROME);
    let blocks = blocks_within(page, &bodies, chrome);
    let text_bytes: usize = blocks.iter().map(|&ix| page.stats.blocks[ix].sl).sum();
    if text_bytes < MIN_TEXT_BYTES {
        return None;
    }
    let mut extraction = typed_extraction(page, &blocks);
    extraction.posts = posts(page, &bodies, &chrome);
    Some(extraction)
}

/// One [`Post`] per body, with the author and date of its container: the largest ancestor of
/// the body that holds no other body.
fn posts(page: &Page, bodies: &[NodeId], chrome: &impl Fn(ElementRef<'_>) -> bool) -> Vec<Post> {
    let mut shared: HashMap<NodeId, usize> = HashMap::new();
    for &body in bodies {
        for ancestor in ancestors(page, body) {
            *shared.entry(ancestor).or_insert(0) += 1;
        }
    }
    bodies
        .iter()
        .map(|&body| {
            let container = ancestors(page, body)
                .take_while(|id| shared.get(id) == Some(&1))
                .last()
                .unwrap_or(body);
            let blocks = blocks_within(page, &[body], chrome);
            let text = blocks
                .iter()
                .map(|&ix| page.stats.blocks[ix].text.as_str())
                .collect::<Vec<_>>()
                .join("\n\n");
            let element = page.document.tree.get(container).and_then(ElementRef::wrap);
            Post {
                author: element.and_then(|e| first_text(e, &AUTHORS, body)),
                published_at: element.and_then(|e| date(e, body)),
                text,
            }
        })
        .collect()
}

/// The ancestors of a node, nearest first.
fn ancestors(page: &Page, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let start = page.document.tree.get(id).and_then(|n| n.parent());
    std::iter::successors(start, |node| node.parent()).map(|node| node.id())
}

/// The text of the first element a selector of `list` finds in the container outside the
/// body (a name quoted inside the body is another post's author).
fn first_text(container: ElementRef<'_>, list: &[Selector], body: NodeId) -> Option<String> {
    list.iter().find_map(|selector| {
        container
            .select(selector)
            .filter(|e| !e.ancestors().any(|a| a.id() == body) && e.id() != body)
            .map(|e| collapse(&e.text().collect::<String>()))
            .find(|text| !text.is_empty() && text.len() <= MAX_NAME_BYTES)
    })
}

/// Longer than a name: a user card's whole text, not its name.
const MAX_NAME_BYTES: usize = 80;

/// The post's date: a `datetime` or `content` attribute where the page gives one, else the
/// text shown.
fn date(container: ElementRef<'_>, body: NodeId) -> Option<String> {
    DATES.iter().find_map(|selector| {
        container
            .select(selector)
            .filter(|e| !e.ancestors().any(|a| a.id() == body))
            .find_map(|e| {
                let value = e.value();
                value
                    .attr("datetime")
                    .or(value.attr("content"))
                    .or(value.attr("title"))
                    .map(str::to_string)
                    .or_else(|| Some(collapse(&e.text().collect::<String>())))
                    .filter(|text| !text.trim().is_empty())
            })
    })
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_selector_parses() {
        assert_eq!(BODIES.len(), 27);
        assert_eq!(AUTHORS.len(), 11);
        assert_eq!(DATES.len(), 6);
    }
}
