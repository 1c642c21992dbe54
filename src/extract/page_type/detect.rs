//! The page-type detector: what kind of page a parsed page is, from the marks its markup
//! leaves, read in one walk over the elements after the DOM statistics pass.
//!
//! Rules, not a model, each gated on positive evidence so that an unsure reading is
//! [`PageType::Article`] (articles are extracted as they always were):
//!
//! 1. **Forum.** A thread declares itself in schema.org (`DiscussionForumPosting`, `QAPage`,
//!    in JSON-LD or microdata); a Reddit comments page is a thread by its address; a forum
//!    platform (XenForo, vBulletin, phpBB, Invision, Discourse, SMF, MyBB, NodeBB, Vanilla,
//!    FluxBB, bbPress, StackExchange, Lemmy: generator or class vocabulary) or numbered post
//!    elements (`post-123`, `msg_123`, three or more) or three post bodies named as forum
//!    extraction finds them (`.postText`, `.msg_body`, …) on a thread-shaped address
//!    (`/threads/`, `/topic/`, `/t/`, `viewtopic.php`, a `forum.` or `community.` host) make
//!    one too.
//!    Articles with reader comments carry numbered comments but not a thread's address.
//! 2. **Listing, on a wiki.** A MediaWiki page named as an index (`List_of_…`, or in the
//!    `Category:` namespace, where the wiki lists the pages filed under a category).
//! 3. **Documentation.** A documentation framework (Sphinx, MkDocs, MediaWiki, devsite,
//!    Docusaurus, mdBook, rustdoc: generator or class vocabulary) on a docs-shaped address or
//!    without Article markup; schema.org `TechArticle`/`APIReference`; or a docs-shaped
//!    address (`docs.` host, a `/docs/`, `/reference/`, `/manual/` segment) with no Article
//!    markup. Wikipedia runs MediaWiki but holds encyclopedia articles and lists: not docs.
//! 4. **Collection.** `og:type` `product.group`: a shop's category page says so.
//! 5. Article markup (`Article`, `NewsArticle`, `BlogPosting`, … in JSON-LD or microdata)
//!    without `og:type` `product` ends the search: an article.
//! 6. **Product.** One product's structured data (`Product`/`ProductGroup`, at most three
//!    Product objects, no `ItemList`: a grid of cards carries one per card), `og:type`
//!    `product`, or a price item (`itemprop=price`, `product:price:amount`) beside at most
//!    two Product objects.
//! 7. **Collection.** A category-shaped address (`/collections/`, `/category/`, `/shop/`, …)
//!    with a shop platform's assets, an `ItemList`/`CollectionPage`, or four or more Products.
//! 8. **Service.** A landing page: an address of at most two words (or the site's root) with
//!    no four-digit run, no publication date in the markup, not `og:type` `article`, four or
//!    more `h2`/`h3` and three or more buttons. Such a page is built to make its reader act:
//!    headed sections, each ending in a call to action. A story is dated or lives at its
//!    headline's address; a page of the web's first decades has headings and no buttons.
//!
//! Elsewhere listings leave no mark of their own (extraction's item group names them, a
//! landing page's too), so the detector names only a wiki's. Figures:
//! docs/algorithms.md#page-types.

use std::sync::LazyLock;

use foldhash::{HashMap, HashSet};

use scraper::{Html, Node};
use url::Url;

use super::PageType;
use crate::extract::dom::{DomStats, class_and_id_attributes};

/// The page's type, from its DOM and its address, the URL it was read from (the statistics
/// pass is not read yet: the marks above are all in the markup).
pub fn detect(document: &Html, _stats: &DomStats, address: Option<&Url>) -> PageType {
    let mut evidence = Evidence::gather(document);
    let address = Address::of(address);
    // Only on a thread's address: the selectors walk the whole tree, and other pages need
    // no answer.
    if address.thread && !evidence.forum_marks && evidence.numbered_posts < MIN_NUMBERED_POSTS {
        evidence.post_bodies = super::forum::post_bodies(document);
    }
    decide(&evidence, &address)
}

/// The rules, in the order of the module's list.
fn decide(evidence: &Evidence, address: &Address) -> PageType {
    if evidence.is_forum(address) {
        return PageType::Forum;
    }
    if address.wiki_index && evidence.mediawiki {
        return PageType::Listing;
    }
    if evidence.is_documentation(address) {
        return PageType::Documentation;
    }
    if evidence.og_type.as_deref() == Some("product.group") {
        return PageType::Collection;
    }
    let og_product = evidence.og_type.as_deref() == Some("product");
    if evidence.has_any(ARTICLE_TYPES) && !og_product {
        return PageType::Article;
    }
    if evidence.is_product(og_product) {
        return PageType::Product;
    }
    if address.collection && evidence.is_shop_grid() {
        return PageType::Collection;
    }
    if address.landing && evidence.is_landing_page() {
        return PageType::Service;
    }
    PageType::Article
}

/// The schema.org types of an article.
const ARTICLE_TYPES: &[&str] = &[
    "Article",
    "NewsArticle",
    "BlogPosting",
    "Report",
    "ScholarlyArticle",
    "OpinionNewsArticle",
    "AnalysisNewsArticle",
];

/// Class and id tokens (lowercased) that forum platforms put around their posts.
const FORUM_MARKS: &[&str] = &[
    // XenForo
    "xenforo",
    "p-body-pagecontent",
    "message--post",
    "bbwrapper",
    // phpBB
    "phpbb",
    "postprofile",
    // Invision Community
    "ipsapp",
    "ipsentry__content",
    "cpost",
    "ipscomment",
    // vBulletin
    "vbulletin",
    "postbit",
    "postcontainer",
    // Discourse
    "discourse",
    "topic-post",
    // FluxBB, PunBB
    "punbb",
    "fluxbb",
    "punviewtopic",
    "brdmain",
    // MyBB, SMF
    "mybb",
    "forumposts",
    "post_wrapper",
    // bbPress and WordPress forum plugins
    "bbp-reply-content",
    "forum-post-content",
    // StackExchange
    "js-post-body",
    "question-hyperlink",
    // Lemmy, NodeBB, Vanilla
    "lemmy",
    "nodebb",
    "messagelist",
];

/// Generators (lowercased substrings of `<meta name=generator>`) of forum platforms.
const FORUM_GENERATORS: &[&str] = &[
    "vbulletin",
    "phpbb",
    "discourse",
    "xenforo",
    "mybb",
    "smf",
    "invision",
    "nodebb",
    "vanilla",
];

/// Class and id tokens (lowercased) of documentation frameworks' page bodies and navigation.
const DOCS_MARKS: &[&str] = &[
    // Sphinx and its themes
    "sphinxsidebar",
    "rst-content",
    "wy-nav-side",
    "bd-sidebar",
    // MediaWiki
    "mw-content-text",
    "mw-parser-output",
    // Google devsite
    "devsite-article-body",
    // MkDocs Material
    "md-content",
    // mdBook
    "mdbook",
    "sidebar-scrollbox",
    // Docusaurus
    "docusaurus",
    "theme-doc-markdown",
    // rustdoc
    "rustdoc",
];

/// Generators of documentation frameworks.
const DOCS_GENERATORS: &[&str] = &[
    "sphinx",
    "mediawiki",
    "mkdocs",
    "docusaurus",
    "docsy",
    "gitbook",
    "vitepress",
    "antora",
];

/// Asset addresses of shop platforms: support for a collection, never evidence alone.
const SHOP_ASSETS: &[&str] = &[
    "cdn.shopify.com",
    "/wp-content/plugins/woocommerce",
    "/static/version",
    "prestashop",
    "bigcommerce.com",
    "demandware.static",
];

/// A class or id token's mark: a forum platform's or a documentation framework's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Forum,
    Docs,
}

/// [`FORUM_MARKS`] and [`DOCS_MARKS`] in one table: a page has thousands of tokens, each
/// looked up once instead of compared with every mark.
static MARKS: LazyLock<HashMap<&'static str, Mark>> = LazyLock::new(|| {
    let forum = FORUM_MARKS.iter().map(|&mark| (mark, Mark::Forum));
    let docs = DOCS_MARKS.iter().map(|&mark| (mark, Mark::Docs));
    forum.chain(docs).collect()
});

/// What the markup says about the page.
#[derive(Debug, Default)]
struct Evidence {
    /// schema.org types in JSON-LD and microdata (the last path segment of an `itemtype`).
    types: HashSet<String>,
    /// Product objects: JSON-LD objects typed `Product` and microdata `Product` items.
    products: usize,
    og_type: Option<String>,
    generator: String,
    forum_marks: bool,
    /// MediaWiki's class on the body (`mediawiki`) or its generator.
    mediawiki: bool,
    docs_marks: bool,
    /// Distinct tokens naming one numbered post (`post-123`, `msg_123`, `comment-123`).
    numbered_posts: usize,
    /// Post bodies as forum extraction finds them (`.postText`, `.msg_body`, …), counted on a
    /// thread's address only.
    post_bodies: usize,
    price: bool,
    shop_assets: bool,
    /// A publication date in the markup: `article:published_time` and its kin, a
    /// `datePublished` (JSON-LD or microdata), a `<time datetime>`, hAtom's `published`.
    dated: bool,
    /// `h2` and `h3` elements: a landing page's sections each open with one.
    section_headings: usize,
    /// Buttons and elements classed as one (`btn`, `button`, `cta` as a word of a class):
    /// a landing page's sections each end in a call to action.
    buttons: usize,
}

impl Evidence {
    /// One walk over the elements.
    fn gather(document: &Html) -> Evidence {
        let mut evidence = Evidence::default();
        let mut numbered: HashSet<&str> = HashSet::default();
        // One buffer for the lowercase form of tokens that have capitals; most have none.
        let mut buffer = String::new();
        for node in document.tree.nodes() {
            let Node::Element(element) = node.value() else {
                continue;
            };
            let mut classed_as_button = false;
            // As written: `Element::classes` would intern every token and box a sorted list of
            // them per element, most of the detector's allocations on a page.
            let (class, id) = class_and_id_attributes(element, false);
            let tokens = class.into_iter().flat_map(str::split_ascii_whitespace);
            for token in tokens.chain(id) {
                let lower: &str = if token.bytes().any(|b| b.is_ascii_uppercase()) {
                    buffer.clear();
                    buffer.extend(token.chars().map(|c| c.to_ascii_lowercase()));
                    &buffer
                } else {
                    token
                };
                evidence.read_token(token, lower, &mut numbered);
                classed_as_button |= names_button(lower);
            }
            evidence.buttons += usize::from(classed_as_button || element.name() == "button");
            match element.name() {
                "h2" | "h3" => evidence.section_headings += 1,
                "time" if element.attr("datetime").is_some() => evidence.dated = true,
                "meta" => evidence.read_meta(element),
                "script" if element.attr("type") == Some("application/ld+json") => {
                    let text: String = scraper::ElementRef::wrap(node)
                        .map(|e| e.text().collect())
                        .unwrap_or_default();
                    evidence.read_json_ld(&text);
                }
                "script" | "link" => {
                    let address = element.attr("src").or(element.attr("href"));
                    if address.is_some_and(|a| SHOP_ASSETS.iter().any(|s| a.contains(s))) {
                        evidence.shop_assets = true;
                    }
                }
                _ => {}
            }
            if let Some(item_type) = element.attr("itemtype") {
                for name in item_type.split_whitespace() {
                    let name = name.trim_end_matches('/').rsplit('/').next().unwrap_or("");
                    evidence.products += usize::from(name == "Product");
                    evidence.types.insert(name.to_string());
                }
            }
            match element.attr("itemprop") {
                Some("price") => evidence.price = true,
                Some("datePublished") => evidence.dated = true,
                _ => {}
            }
        }
        evidence.numbered_posts = numbered.len();
        evidence
    }

    /// One class or id token, with its lowercase form.
    fn read_token<'a>(&mut self, token: &'a str, lower: &str, numbered: &mut HashSet<&'a str>) {
        match MARKS.get(lower) {
            Some(Mark::Forum) => self.forum_marks = true,
            Some(Mark::Docs) => self.docs_marks = true,
            None => {}
        }
        if names_numbered_post(lower) {
            numbered.insert(token);
        }
        self.mediawiki |= lower == "mediawiki";
        // hAtom's publication date (`<div class="date published">`), which feed-era blog
        // platforms wrote where later ones write `<time datetime>`.
        if lower == "published" {
            self.dated = true;
        }
    }

    fn read_meta(&mut self, element: &scraper::node::Element) {
        let key = element.attr("property").or(element.attr("name"));
        let content = element.attr("content").unwrap_or("");
        match key.map(str::to_ascii_lowercase).as_deref() {
            Some("og:type") => self.og_type = Some(content.trim().to_ascii_lowercase()),
            Some("generator") => {
                let generator = content.to_ascii_lowercase();
                self.mediawiki |= generator.starts_with("mediawiki");
                self.generator.push_str(&generator);
                self.generator.push(' ');
            }
            Some("product:price:amount") => self.price = true,
            Some(
                "article:published_time"
                | "og:article:published_time"
                | "date"
                | "pubdate"
                | "publish-date"
                | "dc.date"
                | "dc.date.issued"
                | "dcterms.created"
                | "sailthru.date"
                | "parsely-pub-date",
            ) => self.dated = true,
            _ => {}
        }
    }

    fn read_json_ld(&mut self, text: &str) {
        let declared = super::json_ld::read(text);
        self.products += declared.products;
        self.dated |= declared.dated;
        self.types.extend(declared.types);
    }

    fn has_any(&self, names: &[&str]) -> bool {
        names.iter().any(|name| self.types.contains(*name))
    }

    fn generator_is(&self, names: &[&str]) -> bool {
        names.iter().any(|name| self.generator.contains(name))
    }

    fn is_forum(&self, address: &Address) -> bool {
        if self.has_any(&["DiscussionForumPosting", "QAPage"]) || address.reddit_thread {
            return true;
        }
        let platform = self.forum_marks || self.generator_is(FORUM_GENERATORS);
        address.thread
            && (platform
                || self.numbered_posts >= MIN_NUMBERED_POSTS
                || self.post_bodies >= MIN_NUMBERED_POSTS)
    }

    fn is_documentation(&self, address: &Address) -> bool {
        if address.wikipedia {
            return false;
        }
        let article = self.has_any(ARTICLE_TYPES);
        let framework = self.docs_marks || self.generator_is(DOCS_GENERATORS);
        (framework && (address.docs || !article))
            || self.has_any(&["TechArticle", "APIReference"])
            || (address.docs && !article)
    }

    fn is_product(&self, og_product: bool) -> bool {
        let one_product = self.has_any(&["Product", "ProductGroup"])
            && (self.products <= 3 || self.has_any(&["ProductGroup"]))
            && !self.has_any(&["ItemList"]);
        one_product || og_product || (self.price && self.products <= 2)
    }

    /// A landing page's build: no publication date, not declared an article, headed sections
    /// ([`LANDING_HEADINGS`]) and calls to action ([`LANDING_BUTTONS`]). A story is dated;
    /// a page of the web's first decades has headings but no buttons.
    fn is_landing_page(&self) -> bool {
        !self.dated
            && self.og_type.as_deref() != Some("article")
            && self.section_headings >= LANDING_HEADINGS
            && self.buttons >= LANDING_BUTTONS
    }

    fn is_shop_grid(&self) -> bool {
        self.shop_assets
            || self.has_any(&["ItemList", "CollectionPage", "OfferCatalog"])
            || self.products >= 4
    }
}

/// Numbered post elements that make a forum on a thread-shaped address: three, so that a
/// quoted permalink or two does not.
const MIN_NUMBERED_POSTS: usize = 3;

/// Whether a lowercased token names one numbered post: `post`, `msg`, `message`, `comment`
/// or `reply`, an optional `-` or `_`, then digits only.
fn names_numbered_post(token: &str) -> bool {
    let rest = ["message", "comment", "reply", "post", "msg"]
        .iter()
        .find_map(|prefix| token.strip_prefix(prefix));
    let Some(rest) = rest else {
        return false;
    };
    let digits = rest
        .strip_prefix('-')
        .or_else(|| rest.strip_prefix('_'))
        .unwrap_or(rest);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// What the page's address says.
#[derive(Debug, Default)]
struct Address {
    /// A thread's address: `/threads/`, `/thread/`, `/topic/`, `/t/`, `/discussion(s)/`,
    /// `/questions/`, `viewtopic`, `showthread`, `showtopic`, `/thread-N`, `?topic=`, or a
    /// `forum(s).`, `community.`, `boards.`, `bbs.`, `discuss.`, `lemmy.` host.
    thread: bool,
    /// A Reddit comments page.
    reddit_thread: bool,
    /// A documentation address: a `docs.`, `developer(s).`, `learn.`, `wiki.`, `devdocs.`,
    /// `api.` host, or a path segment `doc(s)`, `reference`, `api`, `manual`, `wiki`, `guide`,
    /// `tutorial(s)`, `documentation`.
    docs: bool,
    wikipedia: bool,
    /// A wiki's index page by its name: a `List_of_…` page or one of the `Category:`
    /// namespace (the wiki's own list of the pages filed under it).
    wiki_index: bool,
    /// A landing page's address: the site's root, or a last segment of at most
    /// [`LANDING_SLUG_WORDS`] words with no year or number of four digits anywhere in the path
    /// (a story's address is its headline or a dated, numbered path).
    landing: bool,
    /// A shop category's address: a path segment `collection(s)`, `c`, `category`,
    /// `categories`, `shop`, `catalog`, `browse`.
    collection: bool,
}

impl Address {
    fn of(url: Option<&Url>) -> Address {
        let Some(url) = url else {
            return Address::default();
        };
        let host = url.host_str().unwrap_or("").to_ascii_lowercase();
        let host = host.strip_prefix("www.").unwrap_or(&host);
        let path = url.path().to_ascii_lowercase();
        let query = url.query().unwrap_or("").to_ascii_lowercase();
        let segments: Vec<&str> = path.split('/').collect();
        // A segment followed by another: `/t/123`, not a path that ends in `t`.
        let inner = &segments[..segments.len().saturating_sub(1)];
        let inner_is = |names: &[&str]| inner.iter().any(|s| names.contains(s));
        let segment_is = |names: &[&str]| segments.iter().any(|s| names.contains(s));
        let host_starts = |names: &[&str]| names.iter().any(|n| host.starts_with(n));
        let thread = inner_is(&[
            "threads",
            "thread",
            "topic",
            "t",
            "discussion",
            "discussions",
        ]) || inner_is(&["questions"])
            || ["viewtopic", "showthread", "showtopic"]
                .iter()
                .any(|n| path.contains(n))
            || path.contains("/thread-")
            || query.contains("topic=")
            || host_starts(&[
                "forum.",
                "forums.",
                "community.",
                "boards.",
                "bbs.",
                "discuss.",
                "lemmy.",
            ]);
        let reddit = host == "reddit.com" || host.ends_with(".reddit.com");
        Address {
            thread,
            reddit_thread: reddit && path.contains("/comments/"),
            docs: host_starts(&[
                "docs.",
                "developer.",
                "developers.",
                "learn.",
                "wiki.",
                "devdocs.",
                "api.",
            ]) || segment_is(&[
                "doc",
                "docs",
                "reference",
                "api",
                "manual",
                "wiki",
                "guide",
                "tutorial",
                "tutorials",
                "documentation",
            ]),
            wikipedia: host.ends_with("wikipedia.org"),
            wiki_index: segments.last().is_some_and(|last| {
                ["list_of_", "category:", "category%3a"]
                    .iter()
                    .any(|name| last.starts_with(name))
            }),
            landing: is_landing_path(&path) && query.is_empty(),
            collection: segment_is(&[
                "collection",
                "collections",
                "c",
                "category",
                "categories",
                "shop",
                "catalog",
                "browse",
            ]),
        }
    }
}

/// Whether a lowercased class or id token names a button: `btn`, `button` or `cta` as one of
/// its words (`-` or `_` apart: `btn-primary`, `wp-block-button`, `hero_cta`).
fn names_button(token: &str) -> bool {
    token
        .split(['-', '_'])
        .any(|word| matches!(word, "btn" | "button" | "cta"))
}

/// The fewest section headings (`h2`, `h3`) of a landing page.
const LANDING_HEADINGS: usize = 4;

/// The fewest buttons of a landing page.
const LANDING_BUTTONS: usize = 3;

/// The most words (`-`, `_` or `+` apart) a landing page's last path segment has.
const LANDING_SLUG_WORDS: usize = 2;

/// Whether a lowercased path is a landing page's: no run of four digits, and a last segment
/// (its extension left out) of at most [`LANDING_SLUG_WORDS`] words.
fn is_landing_path(path: &str) -> bool {
    let mut digits = 0;
    for byte in path.bytes() {
        digits = if byte.is_ascii_digit() { digits + 1 } else { 0 };
        if digits >= 4 {
            return false;
        }
    }
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let stem = last.rsplit_once('.').map_or(last, |(stem, _)| stem);
    stem.split(['-', '_', '+'])
        .filter(|w| !w.is_empty())
        .count()
        <= LANDING_SLUG_WORDS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect_html(html: &str, url: &str) -> PageType {
        let document = Html::parse_document(html);
        let base = Url::parse(url).ok();
        detect(&document, &DomStats::default(), base.as_ref())
    }

    #[test]
    fn numbered_posts_are_told_from_other_tokens() {
        assert!(names_numbered_post("post-1234"));
        assert!(names_numbered_post("msg_99"));
        assert!(names_numbered_post("comment42"));
        assert!(!names_numbered_post("post-body"));
        assert!(!names_numbered_post("post-"));
        assert!(!names_numbered_post("postal"));
    }

    #[test]
    fn a_plain_page_is_an_article() {
        let html = "<html><body><article><h1>News</h1><p>Text.</p></article></body></html>";
        assert_eq!(
            detect_html(html, "https://news.example/2026/story"),
            PageType::Article
        );
    }

    #[test]
    fn forum_schema_or_platform_on_a_thread_address_is_a_forum() {
        let schema =
            r#"<script type="application/ld+json">{"@type":"DiscussionForumPosting"}</script>"#;
        assert_eq!(
            detect_html(schema, "https://example.org/x"),
            PageType::Forum
        );
        let platform =
            r#"<div class="p-body-pageContent"><article class="message--post">Hi</article></div>"#;
        assert_eq!(
            detect_html(platform, "https://example.org/threads/a.1/"),
            PageType::Forum
        );
        // The platform's vocabulary on an address that is no thread: not enough.
        assert_eq!(
            detect_html(platform, "https://example.org/news/a"),
            PageType::Article
        );
    }

    #[test]
    fn comments_under_an_article_do_not_make_a_forum() {
        let html = r#"<article><p>Story</p></article><ol><li id="comment-1">a</li>
            <li id="comment-2">b</li><li id="comment-3">c</li></ol>"#;
        assert_eq!(
            detect_html(html, "https://blog.example/2026/post"),
            PageType::Article
        );
        assert_eq!(
            detect_html(html, "https://blog.example/t/123/post"),
            PageType::Forum
        );
    }

    #[test]
    fn buttons_are_told_by_a_word_of_their_class() {
        assert!(names_button("btn"));
        assert!(names_button("btn-primary"));
        assert!(names_button("wp-block-button"));
        assert!(names_button("hero_cta"));
        assert!(!names_button("button2"));
        assert!(!names_button("subtitle"));
        assert!(!names_button("octane"));
    }

    /// A landing page: headed sections, each ending in a call to action, no date.
    fn landing_page(extra_head: &str) -> String {
        let sections: String = ["Design", "Build", "Host", "Support"]
            .iter()
            .map(|name| {
                format!(
                    "<section><h2>{name}</h2><p>We {name} for you.</p>\
                     <a class=\"btn btn-primary\" href=\"/contact\">Talk to us</a></section>"
                )
            })
            .collect();
        format!(
            "<html><head>{extra_head}</head><body><main><h1>Web services</h1>{sections}</main></body></html>"
        )
    }

    #[test]
    fn an_undated_page_of_headed_sections_and_calls_to_action_is_a_service_page() {
        let page = landing_page("");
        assert_eq!(
            detect_html(&page, "https://agency.example/services/web-design"),
            PageType::Service
        );
        assert_eq!(
            detect_html(&page, "https://agency.example/"),
            PageType::Service
        );
        // A dated page, or one at a story's address, is an article.
        let dated =
            landing_page(r#"<meta property="article:published_time" content="2026-01-02">"#);
        assert_eq!(
            detect_html(&dated, "https://agency.example/services/web-design"),
            PageType::Article
        );
        assert_eq!(
            detect_html(
                &page,
                "https://agency.example/news/how-we-rebuilt-our-studio-site"
            ),
            PageType::Article
        );
        assert_eq!(
            detect_html(&page, "https://agency.example/2026/06/studio"),
            PageType::Article
        );
        // hAtom's date on a story at an address that says nothing of it.
        let hatom = page.replace(
            "<main>",
            "<main><div class=\"date published\">4:42 PM on 12/07/2012</div>",
        );
        assert_eq!(
            detect_html(&hatom, "https://agency.example/services"),
            PageType::Article
        );
        // Headings without calls to action: a page of the web's first decades.
        let plain = page.replace("class=\"btn btn-primary\" ", "");
        assert_eq!(
            detect_html(&plain, "https://agency.example/services/web-design"),
            PageType::Article
        );
    }

    #[test]
    fn docs_products_and_collections() {
        let sphinx = r#"<div class="sphinxsidebar"></div><div role="main">Body</div>"#;
        assert_eq!(
            detect_html(sphinx, "https://example.org/x"),
            PageType::Documentation
        );
        let news_on_docs = r#"<script type="application/ld+json">{"@type":"NewsArticle"}</script>"#;
        assert_eq!(
            detect_html(news_on_docs, "https://example.org/docs/a"),
            PageType::Article
        );
        let product = r#"<script type="application/ld+json">{"@type":"Product","offers":{"@type":"Offer"}}</script>"#;
        assert_eq!(
            detect_html(product, "https://shop.example/p/1"),
            PageType::Product
        );
        let group = r#"<meta property="og:type" content="product.group">"#;
        assert_eq!(
            detect_html(group, "https://shop.example/c/1"),
            PageType::Collection
        );
        let wiki = r#"<div id="mw-content-text">A</div>"#;
        assert_eq!(
            detect_html(wiki, "https://en.wikipedia.org/wiki/Rust"),
            PageType::Article
        );
    }

    #[test]
    fn a_wikis_lists_and_categories_are_listings() {
        let wiki = r#"<html><head><meta name="generator" content="MediaWiki 1.45.0"></head>
            <body class="mediawiki ltr"><div id="mw-content-text">A</div></body></html>"#;
        for address in [
            "https://en.wikipedia.org/wiki/List_of_lighthouses_in_Norway",
            "https://en.wikipedia.org/wiki/Category:Lighthouses",
            "https://wiki.example.org/index.php/Category%3AHowtos",
        ] {
            assert_eq!(detect_html(wiki, address), PageType::Listing, "{address}");
        }
        assert_eq!(
            detect_html(wiki, "https://en.wikipedia.org/wiki/Lighthouse"),
            PageType::Article
        );
        // The name alone, on a site that is no wiki: a story about lists.
        let story = "<article><p>Lists</p></article>";
        assert_eq!(
            detect_html(story, "https://blog.example/list_of_my_favourite_tools"),
            PageType::Article
        );
    }
}
