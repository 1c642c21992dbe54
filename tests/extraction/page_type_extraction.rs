//! Pages that are not articles, each written here in the shape its platform gives it: a forum
//! thread, a documentation page, a product page. Each test fails without the rule that reads
//! its structure (the detector's, or its type's extraction).

use gleaner::extract::page_type::PageType;
use gleaner::extract::{
    Algorithm, EntryHints, Extraction, SiteKnowledge, Verdict, extract_page, extract_site_page,
};

use crate::text;
use text::{assert_contains_all, assert_contains_none};

fn extract_at(html: &str, url: &str) -> Extraction {
    let url = url::Url::parse(url).unwrap_or_else(|err| panic!("{err}"));
    extract_page(html.as_bytes(), None, Some(&url), None, Algorithm::Auto)
        .unwrap_or_else(|err| panic!("extracting: {err}"))
}

/// Extracts `html` read from `url` and checks its type, the texts it keeps and the texts it
/// leaves out.
fn check_reading(html: &str, url: &str, page_type: PageType, kept: &[&str], left_out: &[&str]) {
    let extraction = extract_at(html, url);
    assert_eq!(extraction.page_type, page_type);
    assert_contains_all(&extraction.text, kept);
    assert_contains_none(&extraction.text, left_out);
}

const MEMBERS: [&str; 7] = [
    "lathe_larry",
    "MillwrightMeg",
    "oak.and.iron",
    "Bearings4Ever",
    "pattern_maker",
    "CastingCal",
    "shaperShirley",
];

/// The body of post `n`: a few sentences of its own, so that each post's text is findable.
fn post_body(n: usize) -> String {
    format!(
        "Post {n} here. I ran the old shaper for {n} hours last weekend and the clapper box \
         still sticks when the ram returns; the gib screws were loose by a quarter turn and the \
         oil cups had dried out, so reply {n} is about cleaning those first before blaming the \
         motor or the belt."
    )
}

/// A thread as XenForo 2 lays it out: the posts in a container named with comment words
/// (`js-replyNewMessageContainer`), each an `article.message--post` with a user card (name,
/// title, join date, post count), a `time` element, the body in `.message-body .bbWrapper`
/// (a quote inside some replies, a signature under each) and reaction and reply controls.
fn xenforo_thread(replies: usize) -> String {
    let mut posts = String::new();
    for n in 0..=replies {
        let member = MEMBERS[n % MEMBERS.len()];
        let quote = if n > 1 {
            format!(
                "<blockquote class=\"bbCodeBlock bbCodeBlock--quote\"><div class=\"bbCodeBlock-title\">\
                 {} said:</div><div class=\"bbCodeBlock-content\">Check the gib screws first.</div>\
                 <div class=\"bbCodeBlock-expandLink\"><a>Click to expand...</a></div></blockquote>",
                MEMBERS[(n - 1) % MEMBERS.len()]
            )
        } else {
            String::new()
        };
        posts.push_str(&format!(
            "<article class=\"message message--post js-post\" id=\"js-post-{id}\">\
             <div class=\"message-inner\"><div class=\"message-cell message-cell--user\">\
             <section class=\"message-user\"><h4 class=\"message-name\"><a class=\"username\">{member}</a></h4>\
             <h5 class=\"userTitle message-userTitle\">Active member</h5>\
             <div class=\"message-userExtras\"><dl><dt>Joined</dt><dd>Mar 3, 2019</dd></dl>\
             <dl><dt>Messages</dt><dd>1,{n:03}</dd></dl></div></section></div>\
             <div class=\"message-cell message-cell--main\"><header class=\"message-attribution\">\
             <a href=\"/threads/shaper.77/post-{id}\"><time class=\"u-dt\" datetime=\"2026-03-{day:02}T09:{n:02}:00+0000\">\
             Mar {day}, 2026</time></a><a class=\"message-attribution-gadget\">#{number}</a></header>\
             <div class=\"message-content\"><div class=\"message-body js-selectToQuote\">\
             <div class=\"bbWrapper\">{quote}{body}</div></div>\
             <aside class=\"message-signature\"><div class=\"bbWrapper\">South Bend 9A, Atlas 7B shaper, too many clamps.</div></aside>\
             </div><footer class=\"message-footer\"><div class=\"message-actionBar\">\
             <a class=\"actionBar-action--report\">Report</a><a class=\"actionBar-action--like\">Like</a>\
             <a class=\"actionBar-action--reply\">Reply</a></div>\
             <div class=\"reactionsBar\">Reactions: {member} and 3 others</div></footer>\
             </div></div></article>",
            id = 5000 + n,
            day = 1 + n % 28,
            number = n + 1,
            body = post_body(n),
        ));
    }
    format!(
        "<!DOCTYPE html><html id=\"XF\"><head><title>Atlas shaper clapper box sticks | Metal Shop Forum</title>\
         <meta property=\"og:type\" content=\"website\"></head><body>\
         <header class=\"p-header\"><nav><a href=\"/\">Forums</a><a href=\"/whats-new/\">What's new</a>\
         <a href=\"/login/\">Log in</a><a href=\"/register/\">Register</a></nav></header>\
         <div class=\"p-body\"><div class=\"p-body-inner\"><ul class=\"p-breadcrumbs\"><li><a>Forums</a></li>\
         <li><a>Machine tools</a></li></ul><div class=\"p-title\"><h1 class=\"p-title-value\">Atlas shaper clapper box sticks</h1></div>\
         <div class=\"p-description\">Thread starter lathe_larry · Start date Mar 1, 2026</div>\
         <div class=\"p-body-pageContent\"><div class=\"block block--messages\">\
         <div class=\"block-body js-replyNewMessageContainer\">{posts}</div></div>\
         <div class=\"block-outer\">You must log in or register to reply here.</div></div></div></div>\
         <footer class=\"p-footer\">Community platform by XenForo® © 2010-2026 XenForo Ltd. \
         Terms and rules · Privacy policy · Help · Home</footer></body></html>"
    )
}

#[test]
fn a_thread_of_twenty_replies_yields_twenty_one_posts_with_authors_and_dates() {
    let page = xenforo_thread(20);
    let extraction = extract_at(&page, "https://metalshop.example.org/threads/shaper.77/");
    assert_eq!(extraction.page_type, PageType::Forum);
    assert_eq!(extraction.posts.len(), 21, "{:#?}", extraction.posts);
    for (n, post) in extraction.posts.iter().enumerate() {
        assert_eq!(
            post.author.as_deref(),
            Some(MEMBERS[n % MEMBERS.len()]),
            "post {n}"
        );
        let date = post.published_at.as_deref().unwrap_or_default();
        assert!(date.starts_with("2026-03-"), "post {n}: {date:?}");
        assert!(
            post.text.contains(&format!("Post {n} here.")),
            "{}",
            post.text
        );
        assert!(
            !post.text.contains("South Bend 9A"),
            "signature in {}",
            post.text
        );
    }
    // The thread's text is every body in order, quotes kept, per-post chrome out.
    let text = &extraction.text;
    let first = text.find("Post 0 here.").unwrap_or(usize::MAX);
    let last = text.find("Post 20 here.").unwrap_or(0);
    assert!(first < last, "{text}");
    assert_contains_all(text, &["Check the gib screws first."]);
    assert_contains_none(
        text,
        &[
            "Active member",
            "Joined",
            "Reactions:",
            "South Bend 9A",
            "Community platform by XenForo",
            "You must log in",
        ],
    );
    assert_eq!(extraction.verdict, Verdict::Article);
}

/// A `<base href>` names where a page's relative links resolve, often the site's root; the
/// page's own address is where it was read from, and that is the thread's.
#[test]
fn a_thread_whose_base_is_the_sites_root_is_read_as_a_thread() {
    let page = xenforo_thread(4).replacen(
        "<head>",
        "<head><base href=\"https://metalshop.example.org/\">",
        1,
    );
    let extraction = extract_at(&page, "https://metalshop.example.org/threads/shaper.77/");
    assert_eq!(extraction.page_type, PageType::Forum);
    assert_eq!(extraction.posts.len(), 5, "{:#?}", extraction.posts);
}

/// A board of its own making: no platform's classes, no numbered post ids, no structured
/// data; only post bodies named as posts (`div.postText`) on a thread's address.
fn homemade_thread(replies: usize) -> String {
    let posts: String = (0..=replies)
        .map(|n| {
            format!(
                "<div class=\"posts\"><div class=\"postAuthor\">{member}</div>\
                 <div class=\"postdate\">Mar {day}, 2026</div>\
                 <div class=\"postText\">{body}</div>\
                 <div class=\"postButtonsToolbar\"><a>Quote</a> <a>Report post</a></div></div>",
                member = MEMBERS[n % MEMBERS.len()],
                day = 1 + n,
                body = post_body(n),
            )
        })
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Shaper clapper box | Homestead boards</title></head>\
         <body><nav><a href=\"/\">Boards</a> <a href=\"/f/12/machines\">Machines</a></nav>\
         <h1>Shaper clapper box sticks</h1><div class=\"thread\">{posts}</div>\
         <footer>Homestead boards · Terms · Privacy</footer></body></html>"
    )
}

#[test]
fn posts_named_as_posts_on_a_threads_address_are_a_thread() {
    let page = homemade_thread(5);
    let extraction = extract_at(&page, "https://boards-home.example/t/123270/shaper-clapper");
    assert_eq!(extraction.page_type, PageType::Forum);
    assert_eq!(extraction.posts.len(), 6, "{:#?}", extraction.posts);
    for n in 0..=5 {
        assert_contains_all(&extraction.text, &[&format!("Post {n} here.")]);
    }
    assert_contains_none(&extraction.text, &["Report post"]);
}

#[test]
fn a_configured_page_type_overrides_detection() {
    // On an address that is no thread's and without the platform's marks on the page's root,
    // the detector says article; the feed's configuration says forum.
    let page = xenforo_thread(3).replace(" id=\"XF\"", "");
    let url = url::Url::parse("https://metalshop.example.org/latest/shaper").ok();
    let hints = EntryHints {
        page_type: Some(PageType::Forum),
        ..EntryHints::default()
    };
    let site = extract_site_page(
        page.as_bytes(),
        None,
        url.as_ref(),
        hints,
        Algorithm::Auto,
        SiteKnowledge::default(),
    );
    let extraction = site.extraction.unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(extraction.page_type, PageType::Forum);
    assert_eq!(extraction.posts.len(), 4);
}

/// A Sphinx page: a navigation tree in the sidebar, the body in `div.body[role=main]` holding
/// an introduction, a `toctree` of linked sub-pages (link-dense, and content), a code block
/// and a table; an on-page "Contents" box and the previous/next links inside the body.
fn sphinx_page() -> String {
    let nav: String = (1..=14)
        .map(|i| format!("<li class=\"toctree-l1\"><a href=\"/en/3/library/mod{i}.html\">Module {i} reference</a></li>"))
        .collect();
    let subpages: String = [
        "Logging levels and when to use each of them",
        "Configuring handlers for files, sockets and queues",
        "Formatters and the attributes of a log record",
        "Filters that add context to every record",
        "Logging from several modules of one application",
        "Logging from several processes at once",
    ]
    .iter()
    .enumerate()
    .map(|(i, title)| format!("<li class=\"toctree-l1\"><a class=\"reference internal\" href=\"/howto/logging-{i}.html\">{title}</a></li>"))
    .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Logging HOWTO — Python documentation</title>\
         <meta name=\"generator\" content=\"Docutils 0.19: https://docutils.sourceforge.io/\"></head><body>\
         <div class=\"related\" role=\"navigation\"><ul><li><a>index</a></li><li><a>modules</a></li></ul></div>\
         <div class=\"document\"><div class=\"documentwrapper\"><div class=\"bodywrapper\">\
         <div class=\"body\" role=\"main\"><section id=\"logging-howto\"><h1>Logging HOWTO</h1>\
         <div class=\"topic contents\" id=\"toc\"><p class=\"topic-title\">On this page</p><ul>\
         <li><a href=\"#basic\">Basic tutorial</a></li><li><a href=\"#advanced\">Advanced tutorial</a></li></ul></div>\
         <p>This page contains tutorial information about recording what a program does while it runs, \
         and where the records go once they are written by the standard library's logging package.</p>\
         <div class=\"toctree-wrapper compound\"><ul>{subpages}</ul></div>\
         <section id=\"basic\"><h2>Basic tutorial</h2><p>Logging is a means of tracking events that happen \
         when some software runs. The software's developer adds logging calls to their code to indicate \
         that certain events have occurred.</p>\
         <div class=\"highlight-python3\"><pre>import logging\nlogging.warning('Watch out!')\nlogging.info('I told you so')</pre></div>\
         <table class=\"docutils\"><thead><tr><th>Level</th><th>When it is used</th></tr></thead><tbody>\
         <tr><td>DEBUG</td><td>Detailed information, typically of interest only when diagnosing problems.</td></tr>\
         <tr><td>WARNING</td><td>An indication that something unexpected happened.</td></tr></tbody></table>\
         </section></section>\
         <div class=\"prev-next\"><a href=\"/prev\">Previous topic: Functional programming</a> \
         <a href=\"/next\">Next topic: Logging Cookbook</a></div></div></div></div>\
         <div class=\"sphinxsidebar\" role=\"navigation\"><h3>Navigation</h3><ul>{nav}</ul></div></div>\
         <div class=\"footer\">© Copyright 2001 Python Software Foundation. Found a bug?</div></body></html>"
    )
}

#[test]
fn a_documentation_page_keeps_its_body_whole_and_drops_its_chrome() {
    check_reading(
        &sphinx_page(),
        "https://docs.python.example/3/howto/logging.html",
        PageType::Documentation,
        &[
            "This page contains tutorial information",
            "Configuring handlers for files, sockets and queues",
            "Logging from several processes at once",
            "logging.warning('Watch out!')",
            "Detailed information, typically of interest only",
        ],
        &[
            "On this page",
            "Next topic: Logging Cookbook",
            "Module 7 reference",
            "Found a bug?",
        ],
    );
}

/// A chapter page of a DocBook manual: navigation bars above and below (Prev | Up | Home |
/// Next), the chapter's title, its table of contents (each section a page of its own) and its
/// introduction.
fn docbook_chapter() -> String {
    let sections: String = [
        "Introduction to the planner",
        "Reading the cost estimates",
        "Statistics the planner keeps",
        "Controlling join order",
    ]
    .iter()
    .enumerate()
    .map(|(i, title)| {
        format!(
            "<dt><span class=\"sect1\"><a href=\"planner-{i}.html\">14.{i}. {title}</a></span></dt>"
        )
    })
    .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Chapter 14. Performance Tips</title></head><body>\
         <div id=\"docContent\"><div class=\"navheader\"><table width=\"100%\"><tr>\
         <th colspan=\"5\">Chapter 14. Performance Tips</th></tr><tr><td><a href=\"prev.html\">Prev</a></td>\
         <td><a href=\"up.html\">Up</a></td><th>Part II. The Query Language</th>\
         <td><a href=\"index.html\">Home</a></td><td><a href=\"next.html\">Next</a></td></tr></table><hr></div>\
         <div class=\"chapter\" id=\"PERFORMANCE-TIPS\"><div class=\"titlepage\"><h2 class=\"title\">Chapter 14. \
         Performance Tips</h2></div><div class=\"toc\"><p><strong>Table of Contents</strong></p><dl class=\"toc\">\
         {sections}</dl></div><p>Query performance can be affected by many things. Some of these can be \
         controlled by the user, while others are fundamental to the underlying design of the system. \
         This chapter provides some hints about understanding and tuning performance.</p></div>\
         <div class=\"navfooter\"><hr><table width=\"100%\"><tr><td><a href=\"prev.html\">13.5. Locking and \
         Indexes</a></td><td><a href=\"up.html\">Up</a></td><td><a href=\"next.html\">14.1. Using EXPLAIN</a></td>\
         </tr></table></div></div></body></html>"
    )
}

#[test]
fn a_manuals_chapter_keeps_its_table_of_contents_and_drops_its_navigation_bars() {
    // The table of contents links to the chapter's own pages: it is what the chapter holds.
    check_reading(
        &docbook_chapter(),
        "https://manual.example/docs/current/performance-tips.html",
        PageType::Documentation,
        &[
            "Query performance can be affected",
            "14.1. Reading the cost estimates",
            "14.3. Controlling join order",
        ],
        &["Prev", "Home", "13.5. Locking and Indexes"],
    );
}

/// A wiki's list page as MediaWiki lays it out: the site's panels of links beside the body,
/// and in `#mw-content-text` an intro and a table whose every row is links (a keeper's name,
/// a lighthouse, a county).
fn wiki_list_page() -> String {
    let rows: String = (1..=14)
        .map(|n| {
            format!(
                "<tr><td>{year}</td><td><a href=\"/wiki/Lighthouse_{n}\">Skerry light {n}</a></td>\
                 <td><a href=\"/wiki/County_{n}\">County {n}</a></td><td><a href=\"/wiki/Keeper_{n}\">\
                 Keeper number {n}</a></td></tr>",
                year = 1850 + n
            )
        })
        .collect();
    let panel: String = (1..=30)
        .map(|n| format!("<li><a href=\"/wiki/Portal_{n}\">Portal {n}</a></li>"))
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>List of lighthouses in Norway - Wikipedia</title>\
         <meta name=\"generator\" content=\"MediaWiki 1.45.0\"></head><body class=\"mediawiki ltr\">\
         <div id=\"mw-panel\"><ul>{panel}</ul></div><div id=\"content\">\
         <h1 id=\"firstHeading\">List of lighthouses in Norway</h1><div id=\"bodyContent\">\
         <div id=\"mw-content-text\"><div class=\"mw-parser-output\"><p>This is a list of \
         lighthouses along the coast, with the year each was first lit and its first keeper.</p>\
         <table class=\"wikitable sortable\"><tr><th>Lit</th><th>Lighthouse</th><th>County</th>\
         <th>First keeper</th></tr>{rows}</table></div></div></div></div></body></html>"
    )
}

#[test]
fn a_wikis_list_page_keeps_its_table_of_links() {
    check_reading(
        &wiki_list_page(),
        "https://en.wikipedia.org/wiki/List_of_lighthouses_in_Norway",
        PageType::Listing,
        &[
            "This is a list of lighthouses",
            "Skerry light 1",
            "Keeper number 7",
            "Skerry light 14",
        ],
        &["Portal 3"],
    );
}

/// A product page: the name in the main column beside the buy box (sizes, quantity, cart), a
/// long returns and delivery banner, the description and specifications in tab panels hidden
/// until clicked, reviews and "you may also like" below.
fn product_page(with_panels: bool) -> String {
    let panels = if with_panels {
        "<div class=\"product-tabs\"><div id=\"tab-description\" class=\"woocommerce-Tabs-panel\" hidden>\
         <p>The Ridge 28 is a daypack for long days above the tree line: a ventilated back panel keeps \
         air moving, and the hip belt carries the load when the trail gets steep.</p>\
         <ul><li>Recycled ripstop nylon body</li><li>Hydration sleeve for a 3 litre reservoir</li>\
         <li>Side pockets that take a one litre bottle</li></ul></div>\
         <div id=\"specifications\" hidden><table><tr><th>Volume</th><td>28 litres</td></tr>\
         <tr><th>Weight</th><td>1.1 kg</td></tr></table></div></div>"
    } else {
        ""
    };
    let banner = "Free returns within 60 days on every order. Members get free delivery over 50, \
        standard delivery takes three to five working days, express delivery is available at \
        checkout, and items bought as gifts can be exchanged without a receipt at any of our \
        stores. Returns of used items are accepted only when they are clean and dry. ";
    let reviews: String = (1..=5)
        .map(|i| format!("<li class=\"review\">Reviewer {i} says: great pack, would buy again for the price.</li>"))
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Ridge 28 Daypack | Trail Outfitters</title>\
         <meta property=\"og:type\" content=\"product\">\
         <script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\"@type\":\"Product\",\
         \"name\":\"Ridge 28 Daypack\",\"description\":\"A 28 litre daypack with a ventilated back panel, \
         a load-carrying hip belt and a hydration sleeve, made of recycled ripstop nylon.\",\
         \"offers\":{{\"@type\":\"Offer\",\"price\":\"129.00\"}}}}</script></head><body>\
         <nav><a>Packs</a><a>Tents</a><a>Clothing</a></nav>\
         <main><div class=\"product-main\"><h1>Ridge 28 Daypack</h1>\
         <div class=\"buy-box\"><span itemprop=\"price\">129.00</span><select><option>Small</option>\
         <option>Large</option></select><button>Add to cart</button></div></div>\
         <div class=\"returns-banner\"><p>{banner}{banner}</p></div>{panels}\
         <section class=\"reviews\"><h2>Reviews</h2><ul>{reviews}</ul></section></main>\
         <footer>© Trail Outfitters</footer></body></html>"
    )
}

/// The product reading, which `auto` does not call yet (it scores below the cascade on
/// products), on a page the detector calls a product.
fn read_product(html: &str) -> Extraction {
    let url = url::Url::parse("https://shop.example/p/ridge-28").ok();
    let page = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    assert_eq!(page.page_type, PageType::Product);
    gleaner::extract::page_type::extract_product(&page)
        .unwrap_or_else(|| panic!("no product reading"))
}

#[test]
fn a_product_page_keeps_its_hidden_panels_not_the_returns_banner() {
    let extraction = read_product(&product_page(true));
    assert_contains_all(
        &extraction.text,
        &[
            "Ridge 28 Daypack",
            "a daypack for long days above the tree line",
            "Hydration sleeve for a 3 litre reservoir",
            "28 litres",
        ],
    );
    assert_contains_none(
        &extraction.text,
        &["Free returns within 60 days", "Reviewer 3 says"],
    );
}

#[test]
fn a_product_page_without_panels_falls_back_to_its_structured_description() {
    let extraction = read_product(&product_page(false));
    assert_contains_all(
        &extraction.text,
        &[
            "Ridge 28 Daypack",
            "a load-carrying hip belt and a hydration sleeve",
        ],
    );
    assert_contains_none(&extraction.text, &["Free returns within 60 days"]);
}

/// A page with the site's header, a menu of twelve links and a footer around `main`.
fn framed(title: &str, main: &str) -> String {
    let menu: String = [
        "Home",
        "Shop",
        "Journal",
        "About us",
        "Stores",
        "Careers",
        "Press",
        "Gift cards",
        "Help centre",
        "Delivery",
        "Returns",
        "Contact",
    ]
    .iter()
    .map(|name| format!("<li class=\"menu-item\"><a href=\"/{name}\">{name}</a></li>"))
    .collect();
    format!(
        "<!DOCTYPE html><html><head><title>{title}</title></head><body>\
         <header><nav><ul class=\"menu\">{menu}</ul></nav></header>\
         <main>{main}</main>\
         <footer><p>Sign up for our newsletter and get ten percent off your first order.</p>\
         <p>© Hearth and Pan Ltd. All rights reserved.</p></footer></body></html>"
    )
}

const PANS: [&str; 8] = [
    "Classic Skillet 26 cm",
    "Deep Skillet 30 cm",
    "Grill Pan Square",
    "Dutch Oven 5.5 L",
    "Griddle Reversible",
    "Mini Skillet 15 cm",
    "Braiser 3.6 L",
    "Wok Flat Base",
];

/// A shop's category page as a Shopify theme lays it out: the category's heading and one line
/// of description, a filter column, and a grid of product cards, each a linked name, a vendor,
/// a price (with its label for screen readers) and an add-to-cart button.
fn collection_page() -> String {
    let cards: String = PANS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                "<div class=\"product-card product-card--{i}\"><a href=\"/products/{i}\">\
                 <img src=\"/img/{i}.jpg\" alt=\"\"></a><div class=\"product-card__info\">\
                 <span class=\"vendor\">Hearth</span><h3><a href=\"/products/{i}\">{name}</a></h3>\
                 <span class=\"price\"><span class=\"visually-hidden\">Regular price</span>\
                 ${}.00</span></div>\
                 <button class=\"add-to-cart\">Add to cart</button></div>",
                30 + 5 * i
            )
        })
        .collect();
    framed(
        "Cast Iron | Hearth and Pan",
        &format!(
            "<h1>Cast Iron</h1><div class=\"collection-description\">Pans that outlive their cooks.</div>\
             <aside class=\"filters\"><h2>Filter</h2><ul><li>In stock (8)</li><li>On sale (2)</li></ul></aside>\
             <div class=\"product-grid\">{cards}</div>"
        ),
    )
}

#[test]
fn a_category_page_keeps_every_card_name_and_price() {
    let extraction = extract_at(
        &collection_page(),
        "https://hearth.example/collections/cast-iron",
    );
    // No shop platform's marks: its priced cards make it a collection.
    assert_eq!(extraction.page_type, PageType::Collection);
    assert_contains_all(&extraction.text, &["Cast Iron"]);
    assert_contains_all(&extraction.text, &PANS);
    assert_contains_all(&extraction.text, &["$30.00", "$65.00"]);
    assert_contains_none(
        &extraction.text,
        &["Journal", "ten percent off", "Regular price"],
    );
}

#[test]
fn a_shop_grid_is_the_content_where_no_block_read_as_it() {
    // At an address of no category shape the detector has no word for the page; when the
    // cascade's block readings all fail it falls back to its line reading (CETR), which
    // chooses no block: the priced cards are then what the page holds.
    let url = url::Url::parse("https://hearth.example/cooking/cast-iron-pans-and-skillets/").ok();
    let html = collection_page();
    let page = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    assert_eq!(page.page_type, PageType::Article);
    let widened = gleaner::extract::page_type::widen(&page, &[])
        .unwrap_or_else(|| panic!("the shop's grid was not read as the page's content"));
    assert_eq!(widened.page_type, PageType::Collection);
    assert_contains_all(&widened.text, &PANS);
    assert_contains_none(&widened.text, &["Journal", "ten percent off"]);
    // Cards without prices are a listing's, which an article's related links resemble: with
    // no choice to weigh them against, they are not taken for the content.
    let unpriced = html.replace("<span class=\"price\">", "<span class=\"badge\">");
    let unpriced = unpriced.replace('$', "No. ");
    let page = gleaner::extract::Page::parse(unpriced.as_bytes(), None, url.as_ref(), None);
    assert!(gleaner::extract::page_type::widen(&page, &[]).is_none());
}

/// The category page above with the copy a shop writes under its grid: a buying guide, and
/// questions whose answers stay closed in an accordion until a shopper opens them.
fn collection_page_with_copy() -> String {
    let page = collection_page();
    let copy = "<section class=\"buying-guide\"><h2>How to choose a skillet</h2>\
                <p>Cast iron holds its heat longer than steel, so a skillet of it sears a steak \
                evenly and keeps a stew simmering on the lowest flame.</p></section>\
                <section class=\"faq\"><h2>Questions about cast iron</h2><h3><button \
                aria-expanded=\"false\" aria-controls=\"faq-1\">Does it need seasoning?\
                </button></h3><div id=\"faq-1\" aria-hidden=\"true\"><p>Every pan leaves the \
                foundry seasoned, and a thin coat of oil after each wash keeps it so.</p></div>\
                </section>";
    page.replacen("</main>", &format!("{copy}</main>"), 1)
}

#[test]
fn a_category_page_keeps_its_buying_guide_and_its_closed_answers() {
    let extraction = extract_at(
        &collection_page_with_copy(),
        "https://hearth.example/collections/cast-iron",
    );
    assert_eq!(extraction.page_type, PageType::Collection);
    assert_contains_all(&extraction.text, &PANS);
    // The copy beside the grid is the category's own text.
    assert_contains_all(&extraction.text, &["sears a steak evenly"]);
    // An accordion's closed answer is one click away: the page's text.
    assert_contains_all(&extraction.text, &["a thin coat of oil after each wash"]);
    assert_contains_none(&extraction.text, &["Journal", "ten percent off"]);
}

const RECIPES: [&str; 9] = [
    "Slow-roasted tomato sauce",
    "Marinara in twenty minutes",
    "Vodka sauce for a crowd",
    "Puttanesca with capers and olives",
    "Arrabbiata with dried chilies",
    "Tomato butter sauce",
    "Roasted cherry tomato pasta",
    "Sunday gravy with meatballs",
    "Raw tomato sauce for summer",
];

/// A recipe site's index as its cards lay it out: a heading and one sentence of intro, then a
/// list of cards, each a link around the recipe's title and its rating count.
fn listing_page() -> String {
    let cards: String = RECIPES
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                "<li class=\"card-list__item\"><a class=\"card\" href=\"/recipes/{i}\">\
                 <span class=\"card__title\">{name}</span>\
                 <span class=\"card__meta\">{} ratings</span></a></li>",
                12 + 7 * i
            )
        })
        .collect();
    framed(
        "Tomato sauce recipes",
        &format!(
            "<h1>Tomato Sauce Recipes</h1><p>Our best sauces.</p>\
             <ul class=\"card-list\">{cards}</ul>"
        ),
    )
}

#[test]
fn a_listing_keeps_every_item_after_its_intro() {
    check_reading(
        &listing_page(),
        "https://recipes.example/tomato-sauce-recipes",
        PageType::Listing,
        &RECIPES,
        &["Journal", "ten percent off"],
    );
}

/// A news story followed by a list of related stories: the list is longer than no part of
/// the story and holds links only.
fn story_with_related_list() -> String {
    let paragraphs: String = (1..=6)
        .map(|n| {
            format!(
                "<p>Paragraph {n} of the story. The council met on Tuesday evening to vote on the \
                 harbour plan, and the debate ran past midnight as residents queued to speak \
                 about parking, the ferry timetable and the cost of dredging the channel.</p>"
            )
        })
        .collect();
    let related: String = (1..=10)
        .map(|n| format!("<li class=\"related__item\"><a href=\"/news/{n}\">Related headline number {n} about the town</a></li>"))
        .collect();
    framed(
        "Council approves harbour plan",
        &format!(
            "<article><h1>Council approves harbour plan</h1>{paragraphs}</article>\
             <section class=\"more\"><h2>More from the town</h2><ul class=\"related\">{related}</ul></section>"
        ),
    )
}

#[test]
fn an_article_keeps_its_story_and_not_its_related_list() {
    check_reading(
        &story_with_related_list(),
        "https://news.example/2026/11/council-approves-harbour-plan",
        PageType::Article,
        &["Paragraph 1 of the story", "Paragraph 6 of the story"],
        &["Related headline number"],
    );
}

const SERVICE_SECTIONS: [(&str, &str); 5] = [
    (
        "Roof repairs",
        "Slipped tiles, leaking valleys and storm damage fixed within the week.",
    ),
    (
        "Gutter cleaning",
        "We clear, flush and check every gutter and downpipe, twice a year if you like.",
    ),
    (
        "Chimney work",
        "Repointing, flashing and cowls fitted by crews who work at height every day.",
    ),
    (
        "Free surveys",
        "A roofer visits, takes photographs and sends you a written quote in two days.",
    ),
    (
        "Our guarantee",
        "Every repair is covered for ten years, and the guarantee passes to a buyer.",
    ),
];

/// A tradesman's landing page as a page builder lays it out: a hero with a paragraph, then one
/// `section` per service, each a heading, one sentence and a button in a column beside a
/// picture, none of them the page's one text.
fn service_page() -> String {
    let sections: String = SERVICE_SECTIONS
        .iter()
        .map(|(heading, text)| {
            format!(
                "<section class=\"blade\"><div class=\"container\"><div class=\"row\">\
                 <div class=\"col-text\"><h2>{heading}</h2><p>{text}</p>\
                 <a class=\"button\" href=\"/quote\">Get a quote</a></div>\
                 <div class=\"col-media\"><img src=\"/img/{heading}.jpg\" alt=\"\"></div>\
                 </div></div></section>"
            )
        })
        .collect();
    framed(
        "Ridgeline Roofing",
        &format!(
            "<section class=\"hero\"><h1>Roofing you never think about again</h1>\
             <p>Family roofers serving the valley since 1987, with over four thousand roofs \
             repaired and replaced, every one of them still dry, and a crew on call through \
             every storm season from October to March for emergency tarping and repairs.</p></section>\
             {sections}"
        ),
    )
}

/// The blocks of `page` whose text holds one of `needles`: a choice the cascade could make.
fn blocks_holding(page: &gleaner::extract::Page, needles: &[&str]) -> Vec<usize> {
    page.stats
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, block)| needles.iter().any(|needle| block.text.contains(needle)))
        .map(|(index, _)| index)
        .collect()
}

/// `html` read from `url`, detected as a landing page, widened from the cascade's choice of
/// the two blocks holding `chosen` (a heading and its text).
fn widened_landing_page(html: &str, url: &str, chosen: &[&str]) -> Extraction {
    let url = url::Url::parse(url).ok();
    let page = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    assert_eq!(page.page_type, PageType::Service);
    let chosen = blocks_holding(&page, chosen);
    assert_eq!(chosen.len(), 2);
    gleaner::extract::page_type::widen(&page, &chosen)
        .unwrap_or_else(|| panic!("the landing page was not widened to its content"))
}

#[test]
fn a_service_page_where_one_section_was_chosen_keeps_every_section() {
    let url = url::Url::parse("https://ridgeline.example/").ok();
    let html = service_page();
    let page = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    // Builders' sections differ in depth and markup, and the cascade often keeps one of them.
    let (heading, text) = SERVICE_SECTIONS[2];
    let chosen = blocks_holding(&page, &[heading, text]);
    assert_eq!(chosen.len(), 2);
    let widened = gleaner::extract::page_type::widen(&page, &chosen)
        .unwrap_or_else(|| panic!("the sections were not read as the page's content"));
    for (heading, text) in SERVICE_SECTIONS {
        assert_contains_all(&widened.text, &[heading, text]);
    }
    assert_contains_none(&widened.text, &["Journal", "ten percent off"]);
}

#[test]
fn a_landing_page_where_its_longest_section_was_chosen_keeps_every_section() {
    // The third section runs long (a third of the sections' text): the cascade keeps it, and
    // on a page of no known build that choice is too large a part to be widened. An undated
    // page of headed sections ending in calls to action is a landing page, where a section
    // holding less than half the text is one section among its equals.
    let (heading, text) = SERVICE_SECTIONS[2];
    let long_text = format!(
        "{text} {}",
        "Lead, zinc and copper flashings renewed. ".repeat(6)
    );
    let html = service_page().replace(text, &long_text);
    let url = url::Url::parse("https://ridgeline.example/services").ok();
    let page = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    assert_eq!(page.page_type, PageType::Service);
    let chosen = blocks_holding(&page, &[heading, "Lead, zinc"]);
    assert_eq!(chosen.len(), 2);
    let widened = gleaner::extract::page_type::widen(&page, &chosen)
        .unwrap_or_else(|| panic!("the landing page's sections were not its content"));
    assert_eq!(widened.page_type, PageType::Service);
    for (heading, text) in SERVICE_SECTIONS {
        assert_contains_all(&widened.text, &[heading, text]);
    }
    assert_contains_none(&widened.text, &["Journal", "ten percent off"]);
    // The same page at a story's address is an article, and its choice stands.
    let url = url::Url::parse("https://ridgeline.example/2026/05/how-we-reroofed-the-chapel").ok();
    let story = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    assert_eq!(story.page_type, PageType::Article);
    let chosen = blocks_holding(&story, &[heading, "Lead, zinc"]);
    assert!(gleaner::extract::page_type::widen(&story, &chosen).is_none());
}

/// A landing page whose sections a page builder wrote each its own way, in two rows, all
/// inside `main`: a hero, a feature grid of three headed cards, a row of testimonials with no
/// heading, and a questions list; each ends in a call to action.
fn builder_landing_page() -> String {
    let features: String = [
        (
            "Same-week visits",
            "A tuner at your door within five working days of your call.",
        ),
        (
            "Fixed prices",
            "One price for a tuning, quoted before the visit, never raised.",
        ),
        (
            "Regulation too",
            "Hammers, dampers and action regulated while the tuner is there.",
        ),
    ]
    .iter()
    .map(|(heading, text)| format!("<div class=\"card\"><h3>{heading}</h3><p>{text}</p></div>"))
    .collect();
    framed(
        "Keyline Piano Care",
        &format!(
            "<div class=\"top\"><div class=\"hero\"><h1>Pianos kept in tune, year after year</h1>\
             <p>Tuning, regulation and repair for homes, schools and concert halls.</p>\
             <a class=\"button\" href=\"/book\">Book a visit</a></div>\
             <div class=\"wrap\"><div class=\"inner\"><h2>What a visit covers</h2>\
             <p>Every visit starts with the pitch: we raise or lower the whole piano to concert \
             pitch before the fine tuning, so that the tuning holds through the season. Then \
             each unison is set by ear and checked against the temperament, and sticking keys, \
             squeaking pedals and loose tuning pins are put right while the lid is open.</p>\
             <a class=\"button\" href=\"/book\">Book a visit</a></div></div></div>\
             <div class=\"bottom\"><div class=\"features\"><h2>Why Keyline</h2><div class=\"grid\">{features}</div></div>\
             <div class=\"quotes\"><blockquote><p>Our school's six uprights have never sounded better.</p></blockquote>\
             <blockquote><p>They tuned the hall's grand an hour before the recital, calmly.</p></blockquote></div>\
             <div class=\"faq\"><h2>Questions</h2><dl><dt>How often should a piano be tuned?</dt>\
             <dd>Twice a year for a piano that is played every day.</dd>\
             <dt>Do you move pianos?</dt><dd>No, but we work with two removal firms we trust.</dd></dl>\
             <a class=\"button\" href=\"/contact\">Ask us</a></div></div>"
        ),
    )
}

#[test]
fn a_landing_page_whose_main_holds_sections_of_every_build_keeps_them_all() {
    // The cascade keeps the page's one paragraph of prose; its other sections are built each
    // its own way, no stack of alike siblings, but all stand inside the page's `main`.
    let widened = widened_landing_page(
        &builder_landing_page(),
        "https://keyline.example/piano-tuning",
        &["What a visit covers", "Every visit starts"],
    );
    assert_contains_all(
        &widened.text,
        &[
            "Pianos kept in tune",
            "Every visit starts",
            "Fixed prices",
            "never sounded better",
            "Twice a year",
        ],
    );
    assert_contains_none(&widened.text, &["Journal", "ten percent off"]);
}

/// A news front as a component framework renders it: an undated page at a short address, a
/// row of buttons, an intro paragraph, and a grid of cards, each a link wrapping a picture and
/// a headline and a description set five wrappers deep.
fn news_front() -> String {
    let cards: String = (1..=8)
        .map(|n| {
            format!(
                "<div class=\"sc-card-{n} card\"><a href=\"/news/articles/{n}\"><div class=\"wrap\">\
                 <div class=\"media\"><img src=\"/img/{n}.jpg\" alt=\"\"></div>\
                 <div class=\"text\"><div class=\"t1\"><div class=\"t2\"><h2>Headline number {n} of the day</h2>\
                 <p>Description {n}: what happened, where, and who said what about it.</p>\
                 </div></div></div></div></a></div>"
            )
        })
        .collect();
    framed(
        "Valley Herald: news",
        &format!(
            "<h1>News</h1><div class=\"actions\"><button>Live</button><button>Watch</button>\
             <button>Listen</button></div>\
             <p>The latest stories from the valley and beyond, gathered by our reporters in the \
             towns and villages of the district, checked by the desk, and updated through the day \
             as they develop. Corrections are made in the open and noted at the foot of each \
             story, and readers can write to the desk about any of them.</p>\
             <div class=\"grid\">{cards}</div>"
        ),
    )
}

#[test]
fn a_news_front_whose_intro_was_chosen_keeps_every_card() {
    let html = news_front();
    let url = url::Url::parse("https://herald.example/news").ok();
    let page = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    // Undated, headed, with calls to action: read as a landing page first.
    assert_eq!(page.page_type, PageType::Service);
    let chosen = blocks_holding(&page, &["The latest stories"]);
    assert_eq!(chosen.len(), 1);
    let widened = gleaner::extract::page_type::widen(&page, &chosen)
        .unwrap_or_else(|| panic!("the cards were not read as the page's content"));
    // Its cards make it an index: a listing, not a service page.
    assert_eq!(widened.page_type, PageType::Listing);
    for n in 1..=8 {
        assert_contains_all(
            &widened.text,
            &[
                &format!("Headline number {n} of the day"),
                &format!("Description {n}: what happened"),
            ],
        );
    }
    assert_contains_none(&widened.text, &["Journal", "ten percent off"]);
}

/// A product page whose copy and customer reviews stand in one column, as an outdoor shop
/// lays them out: the reviews are each a buyer's paragraph under a name and stars, in
/// elements named `individual-review` (BEM: `individual-review__review`).
fn product_with_reviews() -> String {
    let copy = [
        "Keep a day's gear within reach in the Ridge 28: a ventilated back panel keeps air moving \
         on long climbs, and the padded hip belt carries the load when the trail gets steep.",
        "The body is recycled ripstop nylon with a water-repellent finish made without PFAS, and \
         the bottom panel is an abrasion-resistant oxford weave that shrugs off granite and grit.",
        "A U-shaped zip opens the main compartment fully; a hydration sleeve takes a three litre \
         reservoir, and two stretch side pockets hold one litre bottles each.",
    ];
    let reviews: String = (1..=4)
        .map(|n| {
            format!(
                "<div class=\"individual-review\"><div class=\"individual-review__header\">\
                 <span>Hiker{n}</span><span class=\"rating\">5 stars</span></div>\
                 <p class=\"individual-review__review\">Review {n}: I carried this pack on a \
                 three day traverse with a sleeping bag strapped below it, and it never rubbed \
                 my shoulders once. The side pockets are deep enough that bottles stayed put on \
                 every scramble, and the rain cover saved my lunch in a storm.</p></div>"
            )
        })
        .collect();
    let copy: String = copy.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<!DOCTYPE html><html><head><title>Ridge 28 Daypack | Trail Outfitters</title>\
         <script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\
         \"@type\":\"Product\",\"name\":\"Ridge 28 Daypack\"}}</script></head><body>\
         <nav><a>Packs</a><a>Tents</a><a>Clothing</a></nav>\
         <main><div class=\"pdp\"><h1>Ridge 28 Daypack</h1><div class=\"copy\">{copy}</div>\
         <h2>Customer reviews</h2>{reviews}</div></main>\
         <footer>© Trail Outfitters</footer></body></html>"
    )
}

#[test]
fn a_product_keeps_its_copy_and_leaves_its_customer_reviews_out() {
    check_reading(
        &product_with_reviews(),
        "https://shop.example/p/ridge-28",
        PageType::Product,
        &[
            "ventilated back panel",
            "recycled ripstop nylon",
            "hydration sleeve",
        ],
        &["Review 1:", "Review 4:", "three day traverse"],
    );
}

#[test]
fn a_story_that_was_chosen_is_not_widened_to_its_page() {
    let url = url::Url::parse("https://news.example/2026/11/council-approves-harbour-plan").ok();
    let html = story_with_related_list();
    let page = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    let chosen = blocks_holding(&page, &["of the story"]);
    assert_eq!(chosen.len(), 6);
    assert!(gleaner::extract::page_type::widen(&page, &chosen).is_none());
}

/// A shoe's page as a headless shop renders it: `main` holds the product's name and its short
/// feature sections; after the footer, outside `main`, stand the returns policy and the privacy
/// notice the shop opens in a dialog, the longest prose of the page.
fn shop_page_with_policies_outside_main() -> String {
    let features: String = [
        (
            "The details",
            "A true original, soft merino wool on a cushioned sole.",
        ),
        (
            "Materially better",
            "Responsibly sourced wool that stays soft and itch free.",
        ),
        (
            "Wash and care",
            "Machine washable: take the insoles and laces out first.",
        ),
        (
            "Behind the design",
            "An everyday shoe for errands, dinners and long walks.",
        ),
    ]
    .iter()
    .map(|(heading, line)| {
        format!("<section class=\"feature\"><h3>{heading}</h3><p>{line}</p></section>")
    })
    .collect();
    let clause = "You may return or exchange unworn items with their tags attached within thirty \
        days of delivery; refunds go to the original form of payment, return shipping is paid by \
        the customer, and gift cards, insoles and final sale items cannot be returned. ";
    let notice = "We process the data you give us when you order, create an account or contact \
        us, to fulfil orders, to prevent fraud and, where you agreed to it, to send you offers; \
        you may ask us for a copy of that data or for its deletion at any time. ";
    format!(
        "<!DOCTYPE html><html><head><title>Wool Runner | Shoe Shop</title></head><body>\
         <header><nav><a href=\"/men\">Men</a><a href=\"/women\">Women</a></nav></header>\
         <main><div class=\"product\"><h1>Wool Runner</h1><p class=\"price\">$98</p>\
         {features}</div></main>\
         <footer><p>© Shoe Shop</p></footer>\
         <div class=\"modal returns\"><h2>Returns policy</h2><p>{}</p></div>\
         <div class=\"modal privacy\"><h2>Privacy notice</h2><p>{}</p><p>{}</p></div>\
         </body></html>",
        clause.repeat(4),
        notice.repeat(4),
        notice.repeat(3)
    )
}

#[test]
fn a_page_whose_heading_stands_in_main_is_read_from_main_not_its_dialogs() {
    let extraction = extract_at(
        &shop_page_with_policies_outside_main(),
        "https://shoes.example/products/wool-runner",
    );
    assert_contains_all(
        &extraction.text,
        &[
            "A true original, soft merino wool",
            "Responsibly sourced wool",
            "An everyday shoe for errands",
        ],
    );
    assert_contains_none(
        &extraction.text,
        &[
            "You may return or exchange",
            "We process the data you give us",
        ],
    );
}

#[test]
fn a_product_whose_reading_missed_its_copy_gets_its_structured_description() {
    let extraction = extract_at(&product_page(false), "https://shop.example/p/ridge-28");
    assert_eq!(extraction.page_type, PageType::Product);
    assert_contains_all(
        &extraction.text,
        &["a load-carrying hip belt and a hydration sleeve"],
    );
}

/// A product page whose copy is followed, in the same column and under a line of its own, by
/// a list of the shop's other products ("complete the look"), each card a linked name, a
/// price and a few words.
fn product_with_recommendations() -> String {
    let copy = [
        "The Harbour Peacoat is cut from a dense Melton wool that blocks wind off the water and \
         keeps its shape after years of wear, with a quilted lining for cold mornings.",
        "Horn buttons, a storm collar that turns up and fastens at the throat.",
    ];
    let others = [
        "Deck Jacket Navy",
        "Fisherman Sweater Ecru",
        "Watch Cap Charcoal",
        "Chore Coat Olive",
        "Field Shirt Indigo",
        "Duffle Coat Camel",
        "Rope Belt Natural",
        "Boat Shoe Brown",
    ];
    let cards: String = others
        .iter()
        .enumerate()
        .map(|(n, name)| {
            format!(
                "<li class=\"product-card\"><a href=\"/p/{n}\">{name}</a> \
                 <span class=\"price\">${}.00</span> <span>Made in Portugal.</span></li>",
                40 + 15 * n
            )
        })
        .collect();
    let copy: String = copy.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<!DOCTYPE html><html><head><title>Harbour Peacoat | Tideline</title>\
         <script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\
         \"@type\":\"Product\",\"name\":\"Harbour Peacoat\"}}</script></head><body>\
         <nav><a>Coats</a><a>Knitwear</a><a>Shirts</a></nav>\
         <main><div class=\"pdp\"><h1>Harbour Peacoat</h1>{copy}<p>Complete the look:</p>\
         <ul class=\"grid\">{cards}</ul></div></main>\
         <footer>© Tideline</footer></body></html>"
    )
}

#[test]
fn a_product_leaves_the_shops_other_products_out() {
    check_reading(
        &product_with_recommendations(),
        "https://shop.example/p/harbour-peacoat",
        PageType::Product,
        &["dense Melton wool", "Horn buttons"],
        &["Deck Jacket Navy", "Boat Shoe Brown", "$145.00"],
    );
}

/// A landing page as a streaming server renders it: the shell (the hero and empty
/// `<template id="B:n">` boundaries) first, then each feature section at the end of the body
/// in a hidden `div id="S:n"`, with the script call that moves it into its boundary.
fn streamed_landing_page() -> String {
    let sections = [
        (
            "Connect your repository",
            "Pick a repository and a branch, and every push builds and deploys on its own, with logs you can follow as the build runs.",
        ),
        (
            "Preview every change",
            "Each pull request gets a full copy of the application with its own address, so reviewers click through the change before it ships.",
        ),
        (
            "Scale with the traffic",
            "Instances are added when requests queue and removed when they drain, and you pay for the minutes they run, not for idle capacity.",
        ),
    ];
    let boundaries: String = (1..=sections.len())
        .map(|n| format!("<div class=\"module\"><template id=\"B:{n}\"></template></div>"))
        .collect();
    let segments: String = sections
        .iter()
        .enumerate()
        .map(|(n, (heading, text))| {
            let n = n + 1;
            format!(
                "<div hidden id=\"S:{n}\"><section><h2>{heading}</h2><p>{text}</p></section></div>\
                 <script>$RC(\"B:{n}\",\"S:{n}\")</script>"
            )
        })
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Launchpad: ship from a push</title></head><body>\
         <header><nav><a href=\"/pricing\">Pricing</a><a href=\"/docs\">Docs</a></nav></header>\
         <main><section class=\"hero\"><h1>Ship from a push</h1><p>Launchpad hosts web \
         services, databases and workers, and deploys them from your repository.</p></section>\
         {boundaries}</main><footer>© Launchpad</footer>{segments}</body></html>"
    )
}

#[test]
fn a_streamed_landing_page_is_read_with_its_late_segments_in_place() {
    let extraction = extract_at(&streamed_landing_page(), "https://launchpad.example/");
    assert_contains_all(
        &extraction.text,
        &[
            "Launchpad hosts web services",
            "every push builds and deploys",
            "full copy of the application",
            "pay for the minutes they run",
        ],
    );
    // In page order: the segments stand where their boundaries do, after the hero.
    let hero = extraction.text.find("Launchpad hosts");
    let last = extraction.text.find("pay for the minutes");
    assert!(hero < last, "{}", extraction.text);
}

const SETS: [(&str, &str); 4] = [
    ("Balm Trio", "€49,95"),
    ("The Serum Pack", "€104,95"),
    ("The Dewy Look", "€51,95"),
    ("Sip and Smile Duo", "€35,95"),
];

/// A shop's category page by its own word (`og:type` `product.group`) with no `h1`: the
/// category's name is the page's title, `main` holds a count and the product cards (a linked
/// name and a price each), and before `main` the site's promotion bar repeats its shipping
/// terms for every country, the longest prose of the page.
fn category_without_heading(cards: usize) -> String {
    let cards: String = SETS
        .iter()
        .cycle()
        .take(cards)
        .enumerate()
        .map(|(i, (name, price))| {
            format!(
                "<article class=\"pi\"><a class=\"pi__link\" href=\"/products/{i}\">\
                 <h3 class=\"pi__title\">{name}</h3></a>\
                 <p class=\"pi__price\">Sale price: {price}</p></article>"
            )
        })
        .collect();
    let promotions: String = [
        "Canada",
        "Australia",
        "Germany",
        "France",
        "Japan",
        "Sweden",
        "Israel",
        "Mexico",
    ]
    .iter()
    .map(|country| {
        format!(
            "<span class=\"promo-bar__text\"><p>Free standard shipping to {country} on orders of \
             65 or more. For more information on shipping rates and timelines, please visit our \
             international page.</p></span>"
        )
    })
    .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Skincare Sets – Glow Shop</title>\
         <meta property=\"og:type\" content=\"product.group\"></head><body>\
         <div class=\"promo-bar\">{promotions}</div>\
         <header><nav><a href=\"/skincare\">Skincare</a><a href=\"/makeup\">Makeup</a></nav></header>\
         <main id=\"main\"><div class=\"collection-count\">{} items</div>\
         <div class=\"collection-grid\">{cards}</div></main>\
         <footer><p>© Glow Shop</p></footer></body></html>",
        SETS.len()
    )
}

#[test]
fn a_category_page_without_a_heading_is_read_from_main_not_its_promotion_bar() {
    // Eight cards: the item group is found either way; without the landmark the promotion
    // bar the cascade chose stays beside it.
    let extraction = extract_at(
        &category_without_heading(8),
        "https://glow.example/collections/skincare-sets",
    );
    assert_eq!(extraction.page_type, PageType::Collection);
    let names: Vec<&str> = SETS.iter().map(|(name, _)| *name).collect();
    assert_contains_all(&extraction.text, &names);
    assert_contains_none(&extraction.text, &["Free standard shipping"]);
}

#[test]
fn a_category_page_of_four_products_keeps_every_card() {
    let url = url::Url::parse("https://glow.example/collections/skincare-sets").ok();
    let html = category_without_heading(SETS.len());
    let page = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    assert_eq!(page.page_type, PageType::Collection);
    // The cascade kept one card of the four.
    let chosen = blocks_holding(&page, &[SETS[1].0, SETS[1].1]);
    assert!(!chosen.is_empty());
    let widened = gleaner::extract::page_type::widen(&page, &chosen)
        .unwrap_or_else(|| panic!("the four cards were not read as the page's items"));
    for (name, price) in SETS {
        assert_contains_all(&widened.text, &[name, price]);
    }
}

#[test]
fn a_landing_page_keeps_its_sections_not_a_larger_menu_of_headed_link_columns() {
    // A mega-menu the page builder leaves outside `header` and `nav`: five headed columns of
    // links, more text than the page's own sections.
    let columns: String = [
        "Consulting",
        "Audit and assurance",
        "Tax and legal",
        "Risk advisory",
        "Industries",
    ]
    .iter()
    .map(|heading| {
        let links: String = (1..=8)
            .map(|n| format!("<li><a href=\"/{n}\">{heading} offering number {n}</a></li>"))
            .collect();
        format!("<div class=\"mega-column\"><h4>{heading}</h4><ul>{links}</ul></div>")
    })
    .collect();
    let html = service_page().replace(
        "<main>",
        &format!("<div class=\"site-menu\"><div class=\"mega\">{columns}</div></div><main>"),
    );
    let url = url::Url::parse("https://ridgeline.example/").ok();
    let page = gleaner::extract::Page::parse(html.as_bytes(), None, url.as_ref(), None);
    let (heading, text) = SERVICE_SECTIONS[2];
    let chosen = blocks_holding(&page, &[heading, text]);
    assert_eq!(chosen.len(), 2);
    let widened = gleaner::extract::page_type::widen(&page, &chosen)
        .unwrap_or_else(|| panic!("the menu's columns hid the page's sections"));
    for (heading, text) in SERVICE_SECTIONS {
        assert_contains_all(&widened.text, &[heading, text]);
    }
    assert_contains_none(&widened.text, &["offering number"]);
}

const PRACTICES: [(&str, &str); 9] = [
    (
        "Engineering",
        "Platforms rebuilt around the data your business already keeps.",
    ),
    (
        "Assurance",
        "Reporting checked against the controls your auditors ask for.",
    ),
    (
        "Audit",
        "External audits that explain the risks they find, not only list them.",
    ),
    (
        "Payroll",
        "Payroll and compliance run for you in every country you hire in.",
    ),
    (
        "Customer",
        "Service desks that answer on the first call, measured every week.",
    ),
    (
        "Cyber",
        "Threats watched around the clock by analysts who know your network.",
    ),
    (
        "Strategy",
        "Plans priced in cash and in people before a board is asked to sign.",
    ),
    (
        "Tax",
        "Returns filed on time in forty jurisdictions, with the workings shown.",
    ),
    (
        "Operations",
        "Supply chains mapped to the last supplier, then made shorter.",
    ),
];

/// A consultancy's services page as a page builder writes its grid: a hero, then three rows
/// of three cards, each card one link holding a heading, a sentence and a call to action.
fn services_in_rows() -> String {
    let rows: String = PRACTICES
        .chunks(3)
        .map(|row| {
            let cards: String = row
                .iter()
                .map(|(heading, text)| {
                    format!(
                        "<div class=\"grid-col grid-col--4\"><a class=\"promo\" href=\"/{heading}\">\
                         <div class=\"promo__content\"><h3>{heading}</h3>\
                         <div class=\"promo__desc\">{text}</div>\
                         <span class=\"cta\">Find out more</span></div></a></div>"
                    )
                })
                .collect();
            format!("<div class=\"grid-row\">{cards}</div>")
        })
        .collect();
    framed(
        "Services | Northgate Partners",
        &format!(
            "<section class=\"hero\"><h1>Broad services, real results</h1>\
             <p>We see every challenge as a chance to grow, and our people bring the insight \
             to solve it.</p></section><div class=\"grid\">{rows}</div>"
        ),
    )
}

#[test]
fn a_landing_page_whose_cards_stand_in_rows_keeps_every_card() {
    // The cascade kept the hero; no row alone holds enough cards to be an index.
    let widened = widened_landing_page(
        &services_in_rows(),
        "https://northgate.example/services",
        &["Broad services", "We see every challenge"],
    );
    for (heading, text) in PRACTICES {
        assert_contains_all(&widened.text, &[heading, text]);
    }
    assert_contains_none(&widened.text, &["Journal", "ten percent off"]);
}
