//! The copies of the labelled near-duplicate set: an article's paragraphs edited and put into
//! page templates of this module's own, with deterministic draws so that every run builds the
//! same set.

use std::fmt::Write as _;
use std::hash::Hasher as _;

use super::{DatasetPage, Document, extracted};
use crate::stable_hash::{Fnv, SplitMix64};

/// Pseudo-random draws from a seed (SplitMix64).
pub(super) struct Draws(SplitMix64);

impl Draws {
    pub(super) fn seeded(parts: &[&str]) -> Draws {
        let mut hash = Fnv::new();
        for part in parts {
            hash.write(part.as_bytes());
            hash.write_byte(0);
        }
        Draws(SplitMix64::new(hash.finish()))
    }

    /// A number in `0..n` (`n` at least 1).
    pub(super) fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }
}

/// The page templates: a news portal, a blog, a wire service's article page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Template {
    Portal,
    Blog,
    Wire,
}

impl Template {
    const ALL: [Template; 3] = [Template::Portal, Template::Blog, Template::Wire];

    fn as_str(self) -> &'static str {
        match self {
            Template::Portal => "portal",
            Template::Blog => "blog",
            Template::Wire => "wire",
        }
    }

    fn url(self, page: usize) -> Option<url::Url> {
        let address = match self {
            Template::Portal => format!("https://harbourledger.example/news/{page}.html"),
            Template::Blog => format!("https://fieldnotes.example/{page}/a-post/"),
            Template::Wire => format!("https://meridianwire.example/story/{page}"),
        };
        url::Url::parse(&address).ok()
    }

    fn render(self, copy: &Copy) -> String {
        match self {
            Template::Portal => portal(copy),
            Template::Blog => blog(copy),
            Template::Wire => wire(copy),
        }
    }
}

/// A page as found, then its article copied into each template: the blog and the portal
/// take the gold text's paragraphs, the wire page the text extracted from the page (its
/// article region), or the gold's when extraction found nothing.
pub(super) fn documents(index: usize, set: &str, page: &DatasetPage) -> Vec<Document> {
    let original = extracted(&page.html, page.url.as_ref(), None);
    // A headline as a feed gives it; a page whose `<title>` swallowed its head (an
    // unclosed element) has none.
    let title = original
        .as_ref()
        .and_then(|e| e.title.clone())
        .filter(|t| !t.trim().is_empty() && t.len() <= MAX_TITLE_BYTES)
        .unwrap_or_else(|| headline_of(&page.gold, &page.id));
    let original_text = original.map(|e| e.text).unwrap_or_default();
    let gold = paragraphs(&page.gold);
    let region = paragraphs(&original_text);
    let mut documents = vec![Document {
        page: index,
        text: original_text,
    }];
    for template in Template::ALL {
        let source = if template == Template::Wire && !region.is_empty() {
            &region
        } else {
            &gold
        };
        if source.is_empty() {
            continue;
        }
        let mut draws = Draws::seeded(&[set, &page.id, template.as_str()]);
        let copy = Copy::edited(&title, source, &mut draws);
        let html = template.render(&copy);
        let text = extracted(html.as_bytes(), template.url(index).as_ref(), Some(&title))
            .map(|e| e.text)
            .unwrap_or_default();
        documents.push(Document { page: index, text });
    }
    documents
}

const MAX_TITLE_BYTES: usize = 300;

/// A headline for a page without one: the gold text's first words.
fn headline_of(gold: &str, id: &str) -> String {
    let words: Vec<&str> = gold.split_whitespace().take(10).collect();
    if words.is_empty() {
        id.to_string()
    } else {
        words.join(" ")
    }
}

/// A text's paragraphs: runs of lines between blank lines, spacing collapsed; one longer
/// than [`LONG_PARAGRAPH`] bytes (a gold text without line breaks) cut at sentence ends.
fn paragraphs(text: &str) -> Vec<String> {
    let mut paragraphs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.extend(sentence_groups(&current.join(" ")));
                current.clear();
            }
        } else {
            current.extend(line.split_whitespace());
        }
    }
    paragraphs
}

const LONG_PARAGRAPH: usize = 1200;

fn sentence_groups(paragraph: &str) -> Vec<String> {
    if paragraph.len() <= LONG_PARAGRAPH {
        return vec![paragraph.to_string()];
    }
    let mut groups = Vec::new();
    let mut current = String::new();
    for sentence in paragraph.split_inclusive(". ") {
        current.push_str(sentence);
        if current.len() >= LONG_PARAGRAPH / 2 {
            groups.push(current.trim().to_string());
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        groups.push(current.trim().to_string());
    }
    groups
}

/// An edited copy of an article and the page furniture around it.
struct Copy {
    title: String,
    byline: Option<String>,
    paragraphs: Vec<String>,
    related: Vec<&'static str>,
    comments: Vec<(&'static str, &'static str)>,
}

impl Copy {
    /// The light edits of a syndicated copy, each drawn: the last paragraph cut, a word
    /// changed, a word added, a dateline, a box of the site's own inside the article, a
    /// byline with an update time.
    fn edited(title: &str, source: &[String], draws: &mut Draws) -> Copy {
        let mut paragraphs = source.to_vec();
        if paragraphs.len() >= 4 && draws.chance(50) {
            paragraphs.pop();
        }
        edit_a_word(&mut paragraphs, draws, Edit::Change);
        if draws.chance(40) {
            edit_a_word(&mut paragraphs, draws, Edit::Add);
        }
        if draws.chance(60) {
            let dateline = format!("{} ({}) - ", draws.pick(CITIES), draws.pick(AGENCIES));
            paragraphs[0].insert_str(0, &dateline);
        }
        if paragraphs.len() >= 2 && draws.chance(60) {
            let at = 1 + draws.below(paragraphs.len() - 1);
            paragraphs.insert(at, draws.pick(HOUSE_NOTES).to_string());
        }
        let byline = draws.chance(70).then(|| {
            let (hour, minute) = (6 + draws.below(14), draws.below(60));
            let author = draws.pick(AUTHORS);
            format!("By {author} | Updated at {hour:02}:{minute:02} GMT")
        });
        let related = (0..5).map(|_| draws.pick(HEADLINES)).collect();
        let comments = (0..draws.below(4))
            .map(|_| (draws.pick(AUTHORS), draws.pick(COMMENTS)))
            .collect();
        Copy {
            title: title.to_string(),
            byline,
            paragraphs,
            related,
            comments,
        }
    }
}

#[derive(Clone, Copy)]
enum Edit {
    Change,
    Add,
}

/// One word of a paragraph of six words or more replaced, or one word put after it.
fn edit_a_word(paragraphs: &mut [String], draws: &mut Draws, edit: Edit) {
    let at = draws.below(paragraphs.len());
    let mut words: Vec<&str> = paragraphs[at].split(' ').collect();
    if words.len() < 6 {
        return;
    }
    let word = draws.below(words.len());
    let other = draws.pick(WORDS);
    match edit {
        Edit::Change => words[word] = other,
        Edit::Add => words.insert(word + 1, other),
    }
    paragraphs[at] = words.join(" ");
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `<p>` elements, one per item, with an optional class.
fn paragraph_elements(items: &[String], class: &str) -> String {
    let mut html = String::new();
    for item in items {
        let _ = writeln!(html, "<p{class}>{}</p>", escape(item));
    }
    html
}

fn link_items(headlines: &[&str], prefix: &str) -> String {
    let mut html = String::new();
    for (i, headline) in headlines.iter().enumerate() {
        let _ = write!(
            html,
            "<li><a href=\"{prefix}{i}\">{}</a></li>",
            escape(headline)
        );
    }
    html
}

fn portal(copy: &Copy) -> String {
    let title = escape(&copy.title);
    let byline = copy.byline.as_deref().map_or_else(String::new, |b| {
        format!("<p class=\"byline\">{}</p>", escape(b))
    });
    let mut comments = String::new();
    for (author, text) in &copy.comments {
        let _ = write!(
            comments,
            "<div class=\"comment\"><p class=\"comment-author\">{author}</p><p>{}</p></div>",
            escape(text)
        );
    }
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{title} | The Harbour Ledger</title>\
         <meta property=\"og:title\" content=\"{title}\"></head><body>\
         <header class=\"site-header\"><a class=\"logo\" href=\"/\">The Harbour Ledger</a>\
         <nav class=\"main-nav\"><ul><li><a href=\"/news\">News</a></li><li><a href=\"/world\">World</a></li>\
         <li><a href=\"/business\">Business</a></li><li><a href=\"/sport\">Sport</a></li>\
         <li><a href=\"/culture\">Culture</a></li><li><a href=\"/opinion\">Opinion</a></li></ul></nav></header>\
         <div class=\"breadcrumb\"><a href=\"/\">Home</a> › <a href=\"/news\">News</a></div>\
         <div class=\"layout\"><main class=\"content\"><article class=\"story\">\
         <h1 class=\"story-title\">{title}</h1>{byline}\
         <div class=\"story-body\">{body}</div>\
         <div class=\"share\">Share this article: <a href=\"#fb\">Facebook</a> <a href=\"#x\">X</a> \
         <a href=\"#mail\">Email</a></div></article>\
         <section class=\"comments\"><h2>Comments ({count})</h2>{comments}</section></main>\
         <aside class=\"sidebar\"><h2>Most read</h2><ol>{related}</ol></aside></div>\
         <footer class=\"site-footer\"><p>© 2024 The Harbour Ledger. All rights reserved.</p>\
         <ul><li><a href=\"/about\">About us</a></li><li><a href=\"/privacy\">Privacy</a></li>\
         <li><a href=\"/contact\">Contact</a></li></ul></footer></body></html>",
        body = paragraph_elements(&copy.paragraphs, ""),
        count = copy.comments.len(),
        related = link_items(&copy.related, "/news/read/"),
    )
}

fn blog(copy: &Copy) -> String {
    let title = escape(&copy.title);
    let byline = copy.byline.as_deref().map_or_else(String::new, escape);
    let mut comments = String::new();
    for (author, text) in &copy.comments {
        let _ = write!(
            comments,
            "<li class=\"comment\"><cite>{author}</cite> says:<p>{}</p></li>",
            escape(text)
        );
    }
    format!(
        "<html><head><title>{title} – Fieldnotes</title></head><body><div id=\"wrapper\">\
         <div id=\"masthead\"><p class=\"site-title\"><a href=\"/\">Fieldnotes</a></p>\
         <p class=\"tagline\">Notes from the field, most days</p></div>\
         <div id=\"primary\"><div class=\"post hentry\"><h2 class=\"entry-title\">{title}</h2>\
         <div class=\"entry-meta\">{byline}</div><div class=\"entry-content\">{body}</div>\
         <div class=\"newsletter-box\"><p>Never miss a post: get Fieldnotes in your inbox every Friday.</p>\
         <form><input type=\"email\" name=\"email\"><button>Subscribe</button></form></div>\
         <div class=\"post-tags\">Tags: <a href=\"/tag/news\">news</a>, <a href=\"/tag/world\">world</a></div></div>\
         <div id=\"comments\"><h3>{count} Responses</h3><ol class=\"commentlist\">{comments}</ol></div></div>\
         <div id=\"secondary\" class=\"widget-area\"><div class=\"widget\"><h3>Recent posts</h3><ul>{related}</ul></div>\
         <div class=\"widget\"><h3>Archives</h3><ul><li><a href=\"/2024/03\">March 2024</a></li>\
         <li><a href=\"/2024/02\">February 2024</a></li><li><a href=\"/2024/01\">January 2024</a></li></ul></div></div>\
         <div id=\"colophon\">Powered by a blog engine. Theme: Plainfield.</div></div></body></html>",
        body = paragraph_elements(&copy.paragraphs, ""),
        count = copy.comments.len(),
        related = link_items(&copy.related, "/posts/"),
    )
}

fn wire(copy: &Copy) -> String {
    let title = escape(&copy.title);
    let byline = copy.byline.as_deref().map_or_else(String::new, |b| {
        format!("<p class=\"meta\">{}</p>", escape(b))
    });
    let mut more = String::new();
    for headline in copy.related.iter().rev().take(3) {
        let _ = write!(
            more,
            "<div class=\"card\"><a href=\"/story/more\">{}</a><p>Read the full dispatch on Meridian Wire.</p></div>",
            escape(headline)
        );
    }
    format!(
        "<html><head><meta charset=\"utf-8\"><title>{title}</title>\
         <meta property=\"og:site_name\" content=\"Meridian Wire\"></head><body>\
         <div class=\"topbar\"><span>Meridian Wire</span> <a href=\"/login\">Sign in</a> \
         <a href=\"/subscribe\">Subscribe</a></div><main><article><header><p class=\"kicker\">Wire</p>\
         <h1>{title}</h1>{byline}</header>\
         <figure><img src=\"/img/lead.jpg\" alt=\"\"><figcaption>File photo. Meridian Wire</figcaption></figure>\
         <section class=\"article__body\">{body}</section>\
         <aside class=\"related\"><h3>Related coverage</h3><ul>{related}</ul></aside></article></main>\
         <section class=\"more-stories\"><h2>More from Meridian Wire</h2>{more}</section>\
         <footer><p>Meridian Wire · Terms · Privacy · Contact</p></footer></body></html>",
        body = paragraph_elements(&copy.paragraphs, " class=\"para\""),
        related = link_items(&copy.related[..2], "/story/related/"),
    )
}

const CITIES: &[&str] = &[
    "LONDON", "NAIROBI", "LIMA", "OSLO", "MANILA", "TORONTO", "ACCRA", "HANOI",
];
const AGENCIES: &[&str] = &[
    "Meridian Press",
    "Northwire",
    "Calder News Service",
    "Pacifica Agency",
];
const AUTHORS: &[&str] = &[
    "Ines Varga",
    "Tomas Leblanc",
    "Priya Ostrander",
    "Hal Mercer",
    "June Okafor",
    "Sam Whitlow",
];
const WORDS: &[&str] = &["reportedly", "officially", "largely", "notably", "recently"];
const HOUSE_NOTES: &[&str] = &[
    "Sign up for our newsletter to get the day's top stories in your inbox every morning.",
    "Follow us on social media for the latest updates as this story develops.",
    "Our journalism depends on readers like you. Subscribe today from just one pound a week.",
    "Have a story we should cover? Send your tips to our newsroom by email.",
    "This article is part of our weekend edition. Read more of our coverage in the app.",
];
const HEADLINES: &[&str] = &[
    "Council approves new cycle lanes for the harbour district",
    "Five things to know before the markets open",
    "Storm warnings issued for the northern coast",
    "Local bakery wins national award for its rye loaf",
    "Rail strike called off after late-night talks",
    "Museum reopens its restored east wing to visitors",
    "Opinion: why the library still matters",
    "Heatwave expected to last into next week",
    "University announces new scholarship for engineers",
    "Football club confirms the signing of a young striker",
    "Police appeal for witnesses after warehouse fire",
    "Recipe: a quick lentil soup for cold evenings",
];
const COMMENTS: &[&str] = &[
    "Great piece, thanks for covering this.",
    "I am not sure the numbers add up here, but an interesting read nonetheless.",
    "Finally someone asks the right questions about this.",
    "Does anyone know where the original report can be found?",
    "This is the third article on the subject this week and nothing changes.",
];
