//! Extraction on pages whose structure misleads a reading by names: the article's own
//! container named like furniture (page builders' widgets, a hosted blog's post widget,
//! taxonomy terms on a post's wrapper, layout wrappers), bodies made of linked items, and a
//! second opinion that must not override a right first one. Each page is written here, in
//! the shape those systems give their pages.

use gleaner::extract::{Algorithm, Extraction, extract_page};

use crate::text;
use text::{assert_contains_all, assert_contains_none};

fn extract(html: &str, title: Option<&str>) -> Extraction {
    extract_page(html.as_bytes(), None, None, title, Algorithm::Auto)
        .unwrap_or_else(|err| panic!("extracting: {err}"))
}

/// One paragraph of a post's section `section`, `n`th of it, of about `words` words.
fn paragraph(section: usize, n: usize, words: usize) -> String {
    let filler = [
        "the",
        "millwrights",
        "lifted",
        "each",
        "oak",
        "paddle",
        "by",
        "hand",
        "and",
        "checked",
        "the",
        "old",
        "iron",
        "bearings",
        "before",
        "the",
        "water",
        "was",
        "let",
        "back",
    ];
    let body: Vec<&str> = filler.iter().cycle().take(words).copied().collect();
    format!("Section {section} paragraph {n}: {}.", body.join(" "))
}

/// A sidebar column of boxes, each with a heading, a few links and a short blurb.
fn sidebar_links(prefix: &str) -> String {
    (0..6)
        .map(|i| format!("<li><a href=\"/{prefix}/{i}\">{prefix} story number {i}</a></li>"))
        .collect()
}

const MILL_TITLE: &str = "How we rebuilt the Arlen mill race";

/// A post built with a page builder: every heading and every run of paragraphs in its own
/// stack of `elementor-…-widget-…` elements, side by side in one column; a second column of
/// widgets beside it.
fn page_builder_post() -> String {
    let mut column = format!(
        "<div class=\"elementor-element elementor-element-a0 elementor-widget \
         elementor-widget-heading\"><div class=\"elementor-widget-container\">\
         <h1 class=\"elementor-heading-title\">{MILL_TITLE}</h1></div></div>"
    );
    for section in 1..=5 {
        let lengths: &[usize] = if section == 3 { &[90, 40] } else { &[45, 30] };
        let paragraphs: String = lengths
            .iter()
            .enumerate()
            .map(|(n, &words)| format!("<p>{}</p>", paragraph(section, n, words)))
            .collect();
        column.push_str(&format!(
            "<div class=\"elementor-element elementor-element-h{section} elementor-widget \
             elementor-widget-heading\"><div class=\"elementor-widget-container\">\
             <h2 class=\"elementor-heading-title\">Part {section} of the work</h2></div></div>\
             <div class=\"elementor-element elementor-element-t{section} elementor-widget \
             elementor-widget-text-editor\"><div class=\"elementor-widget-container\">\
             {paragraphs}</div></div>"
        ));
    }
    let side: String = (0..4)
        .map(|i| {
            format!(
                "<div class=\"elementor-element elementor-element-s{i} elementor-widget \
                 elementor-widget-sidebar\"><div class=\"elementor-widget-container\">\
                 <h3>Box {i}</h3><ul>{}</ul><p>Our newsletter box {i} comes out every \
                 Friday with the week's stories.</p></div></div>",
                sidebar_links("box")
            )
        })
        .collect();
    format!(
        "<!doctype html><html><head><title>{MILL_TITLE} | Millwrights' Journal</title></head>\
         <body><header class=\"site-header\"><nav><a href=\"/\">Home</a> \
         <a href=\"/news\">News</a> <a href=\"/about\">About</a></nav></header>\
         <div class=\"elementor elementor-42\"><section class=\"elementor-section\">\
         <div class=\"elementor-container\">\
         <div class=\"elementor-column elementor-col-66\"><div class=\"elementor-widget-wrap\">\
         {column}</div></div>\
         <div class=\"elementor-column elementor-col-33\"><div class=\"elementor-widget-wrap\">\
         {side}</div></div></div></section></div>\
         <footer><p>Copyright the Millwrights' Journal. All rights reserved.</p></footer>\
         </body></html>"
    )
}

#[test]
fn every_section_of_a_page_builders_post_is_kept() {
    for title in [Some(MILL_TITLE), None] {
        let result = extract(&page_builder_post(), title);
        let sections: Vec<String> = (1..=5)
            .map(|s| format!("Section {s} paragraph 1:"))
            .collect();
        let sections: Vec<&str> = sections.iter().map(String::as_str).collect();
        assert_contains_all(&result.text, &sections);
        assert_contains_none(
            &result.text,
            &[
                "box story number",
                "Our newsletter box",
                "All rights reserved",
            ],
        );
    }
}

const ICE_TITLE: &str = "Ice on the inner basin";

/// A hosted blog's page: the post column is `div.widget.Blog`, the post one block of lines
/// broken by `<br>`, beside a sidebar whose profile holds a longer text than the post.
fn blog_post_beside_a_long_profile() -> String {
    let post = "The inner basin froze last night for the first time this winter, and the \
                boats at the pontoons sat still in a grey sheet of ice by morning.<br><br>\
                The harbour office asked people to stay off it: the tide moves under the ice \
                twice a day and opens cracks without warning.<br><br>Rain is forecast for \
                Thursday, and the fleet should be out again by the weekend.";
    let profile = "I am a retired ferry engineer who has lived on the estuary for forty \
                   years. I write about tides, weather, boats and the people who work on \
                   them, with a new post most weeks and a longer piece at the end of each \
                   month. Before the ferries I worked in the boatyards at the river mouth, \
                   where I learned to caulk a hull and to read the river's moods, and I have \
                   kept a logbook of the water's temperature every morning since the winter \
                   of nineteen ninety-one, which readers may ask to see at any time.";
    let archive: String = (1..=24)
        .map(|m| format!("<li><a href=\"/2024/{m:02}/\">Month {m} (4)</a></li>"))
        .collect();
    format!(
        "<!doctype html><html><head><title>Estuary Notes: {ICE_TITLE}</title></head><body>\
         <div class=\"header-outer\"><h1><a href=\"/\">Estuary Notes</a></h1></div>\
         <div class=\"main-outer\"><div class=\"section\" id=\"main\">\
         <div class=\"widget Blog\" id=\"Blog1\"><div class=\"date-outer\">\
         <h2 class=\"date-header\"><span>Monday 6 January</span></h2>\
         <div class=\"post-outer\"><div class=\"post hentry\">\
         <h3 class=\"post-title entry-title\"><a href=\"/2025/01/ice.html\">{ICE_TITLE}</a></h3>\
         <div class=\"post-header\"><div class=\"post-header-line-1\"></div></div>\
         <div class=\"post-body entry-content\" id=\"post-body-77\">{post}</div>\
         <div class=\"post-footer\"><span class=\"post-author\">Posted by \
         <a href=\"/profile\">Ned</a></span> <a href=\"/2025/01/ice.html#comments\">2 comments</a>\
         </div></div></div></div></div></div>\
         <div class=\"sidebar section\" id=\"sidebar\">\
         <div class=\"widget Profile\" id=\"Profile1\"><h2>About me</h2>\
         <div class=\"widget-content\">{profile}</div></div>\
         <div class=\"widget BlogArchive\" id=\"BlogArchive1\"><h2>Archive</h2>\
         <div class=\"widget-content\"><ul>{archive}</ul></div></div></div></div>\
         <div class=\"footer-outer\"><p>Powered by a blogging platform.</p></div>\
         </body></html>"
    )
}

#[test]
fn a_short_blog_post_beside_a_longer_profile_is_the_article() {
    let result = extract(&blog_post_beside_a_long_profile(), Some(ICE_TITLE));
    assert_contains_all(
        &result.text,
        &[
            "The inner basin froze last night",
            "fleet should be out again by the weekend",
        ],
    );
    assert_contains_none(&result.text, &["retired ferry engineer", "Month 3"]);
}

const MARKET_TITLE: &str = "The covered market will open on Sundays";

/// A post whose wrapper carries its taxonomy terms as classes, as content systems write
/// them: an author's nickname, a category named "for discussion", a tag with "sharing".
fn post_with_taxonomy_classes() -> String {
    let paragraphs: String = (0..5)
        .map(|n| format!("<p>{}</p>", paragraph(1, n, 40)))
        .collect();
    let teasers: String = (0..8)
        .map(|i| {
            format!(
                "<div class=\"teaser\"><h3><a href=\"/t/{i}\">Teaser headline {i}</a></h3>\
                 <p>Teaser summary {i} of another story on this site, two lines long, so \
                 that a reader can tell whether to follow the link or not.</p></div>"
            )
        })
        .collect();
    format!(
        "<!doctype html><html><head><title>{MARKET_TITLE}</title></head><body>\
         <nav class=\"menu\"><a href=\"/\">Home</a> <a href=\"/town\">Town</a></nav>\
         <article class=\"post-318 post type-post status-publish hentry \
         category-for-discussion tag-sharing-economy author-navarro entry-author-navarro\">\
         <h1 class=\"entry-title\">{MARKET_TITLE}</h1>\
         <div class=\"entry-content\">{paragraphs}</div></article>\
         <div class=\"more\">{teasers}</div>\
         <footer><p>All rights reserved.</p></footer></body></html>"
    )
}

#[test]
fn taxonomy_terms_on_a_posts_wrapper_mark_no_furniture() {
    for title in [Some(MARKET_TITLE), None] {
        let result = extract(&post_with_taxonomy_classes(), title);
        assert_contains_all(
            &result.text,
            &["Section 1 paragraph 0:", "Section 1 paragraph 4:"],
        );
        assert_contains_none(&result.text, &["Teaser summary", "All rights reserved"]);
    }
}

/// The regions the statistics pass marks on a page whose body is `body`.
fn marked_regions(body: &str) -> usize {
    let html = format!("<html><body>{body}</body></html>");
    let document = scraper::Html::parse_document(&html);
    gleaner::extract::dom::analyze(&document, None)
        .regions
        .len()
}

#[test]
fn names_that_describe_a_layout_mark_no_furniture() {
    let text = "<p>Night buses return to the valley routes on Monday.</p>";
    // What follows the joining word is what the element holds besides, not what it is.
    for class in ["story-with-sidebar", "content-and-related", "main_with_nav"] {
        let body = format!("<div class=\"{class}\">{text}</div>");
        assert_eq!(marked_regions(&body), 0, "{class:?} marks nothing");
    }
    for class in ["sidebar", "share-and-follow", "related-posts"] {
        let body = format!("<div class=\"{class}\">{text}</div>");
        assert_eq!(marked_regions(&body), 1, "{class:?} marks furniture");
    }
}

const DEALS_TITLE: &str = "The winter sale's best kitchen deals";

/// A deals post: prose, a list whose every item is mostly a link but carries a price and a
/// word of its own, more prose; then a list of bare linked headlines between two paragraphs
/// (a "read also" list), and a closing list announced by a sentence ending in a colon.
fn deals_post() -> String {
    let deals: String = (1..=6)
        .map(|i| {
            format!(
                "<li><a href=\"https://shop.example/item/{i}\">Cast iron pan number {i}, \
                 twelve inch, pre-seasoned, with a helper handle</a> for ${i}9 at the shop</li>"
            )
        })
        .collect();
    let read_also: String = (1..=4)
        .map(|i| format!("<li><a href=\"/news/{i}\">Other headline number {i} of the day</a></li>"))
        .collect();
    let books: String = (1..=4)
        .map(|i| {
            format!(
                "<li><a href=\"https://books.example/{i}\">Slow Cooking, volume {i}</a> \
                 by Ann Lee, paperback</li>"
            )
        })
        .collect();
    let prose = |n: usize| format!("<p>{}</p>", paragraph(2, n, 40));
    format!(
        "<!doctype html><html><head><title>{DEALS_TITLE}</title></head><body>\
         <nav class=\"menu\"><a href=\"/\">Home</a> <a href=\"/deals\">Deals</a></nav>\
         <article><h1>{DEALS_TITLE}</h1><div class=\"body\">\
         {}{}<ul>{deals}</ul>{}<ul>{read_also}</ul>{}\
         <p>Three books to cook from while the pans are on their way:</p><ul>{books}</ul>\
         </div></article>\
         <footer><p>All rights reserved.</p></footer></body></html>",
        prose(0),
        prose(1),
        prose(2),
        prose(3),
    )
}

#[test]
fn linked_items_introduced_by_the_articles_prose_are_the_article() {
    let result = extract(&deals_post(), Some(DEALS_TITLE));
    assert_contains_all(
        &result.text,
        &[
            "Section 2 paragraph 0:",
            "Cast iron pan number 1",
            "Cast iron pan number 6",
            "Section 2 paragraph 3:",
            "Slow Cooking, volume 1",
            "Slow Cooking, volume 4",
        ],
    );
    assert_contains_none(
        &result.text,
        &["Other headline number", "All rights reserved"],
    );
}

const FERRY_TITLE: &str = "The night ferry keeps its winter timetable";

/// A short article followed by `after`, which holds far more unlinked text than it.
fn short_article_before(after: &str) -> String {
    let paragraphs: String = (0..4)
        .map(|n| format!("<p>{}</p>", paragraph(3, n, 50)))
        .collect();
    format!(
        "<!doctype html><html><head><title>{FERRY_TITLE}</title></head><body>\
         <nav class=\"menu\"><a href=\"/\">Home</a> <a href=\"/travel\">Travel</a></nav>\
         <article><h1>{FERRY_TITLE}</h1><div class=\"body\">{paragraphs}</div></article>\
         {after}</body></html>"
    )
}

#[test]
fn a_second_opinion_never_comes_from_the_comments_or_the_footer() {
    let comments: String = (0..14)
        .map(|i| {
            format!(
                "<li class=\"comment\"><p class=\"author\">Reader {i}</p><p>I took this ferry \
                 every winter for years, and reader {i} can tell you that the crossing at night, \
                 with the lights of the harbour behind, is worth every minute of the wait on \
                 the quay, whatever the weather does.</p></li>"
            )
        })
        .collect();
    let disclaimer: String = (0..12)
        .map(|i| {
            format!(
                "<p>Clause {i}. The publisher accepts no liability for any loss, damage, delay \
                 or inconvenience arising from the use of the timetables printed here, which \
                 are given in good faith, may change without notice, and bind no operator.</p>"
            )
        })
        .collect();
    for after in [
        format!("<section id=\"comments\" class=\"comments\"><ol>{comments}</ol></section>"),
        format!("<footer class=\"site-footer\">{disclaimer}</footer>"),
    ] {
        let result = extract(&short_article_before(&after), Some(FERRY_TITLE));
        assert_eq!(result.algorithm, Algorithm::Cuter, "{}", result.text);
        assert_contains_all(
            &result.text,
            &["Section 3 paragraph 0:", "Section 3 paragraph 3:"],
        );
        assert_contains_none(&result.text, &["I took this ferry", "Clause 3."]);
    }
}

const RIVER_TITLE: &str = "The river wall will be raised by a metre";

/// An article in its container, then, in unmarked containers of their own, a label and
/// readers' posts that read like prose: CUTER unites them with the article, the content
/// scorer finds the element that holds the article's prose.
fn article_then_unmarked_posts() -> String {
    let story: String = (0..5)
        .map(|n| {
            format!(
                "<p>{} The council, which met on Tuesday, said the work, costing four million, \
                 would start in spring, and the path, closed since the floods, would reopen.</p>",
                paragraph(4, n, 30)
            )
        })
        .collect();
    let posts: String = (0..4)
        .map(|i| {
            format!(
                "<div class=\"entry\"><div class=\"who\">Poster {i} wrote</div><div>About time \
                 too, says reader {i}: the water came over twice last winter and nobody did \
                 anything about it until now.</div></div>"
            )
        })
        .collect();
    format!(
        "<!doctype html><html><head><title>{RIVER_TITLE}</title></head><body>\
         <div id=\"page\"><h1>{RIVER_TITLE}</h1><div class=\"story\">{story}</div>\
         <div class=\"box\"><b>What readers say</b></div><div class=\"board\">{posts}</div>\
         </div></body></html>"
    )
}

#[test]
fn the_content_scorer_takes_the_element_that_holds_the_articles_prose() {
    let html = article_then_unmarked_posts();
    let result = extract_page(
        html.as_bytes(),
        None,
        None,
        Some(RIVER_TITLE),
        Algorithm::Readability,
    )
    .unwrap_or_else(|err| panic!("extracting: {err}"));
    assert_contains_all(
        &result.text,
        &["Section 4 paragraph 0:", "Section 4 paragraph 4:"],
    );
    assert_contains_none(&result.text, &["About time too", RIVER_TITLE]);
}

#[test]
fn where_the_content_scorer_ends_before_cuter_at_a_label_its_text_is_kept() {
    use gleaner::extract::Page;
    use gleaner::extract::auto::{AutoParams, extract_auto};
    let html = article_then_unmarked_posts();
    let page = Page::parse(html.as_bytes(), None, None, Some(RIVER_TITLE));
    let asked = AutoParams::default();
    let never = AutoParams {
        second_opinion_below: 0.0,
        cut_trailing_by_scorer: false,
        ..AutoParams::default()
    };
    let Ok(first) = extract_auto(&page, &never) else {
        panic!("the cascade extracts the page");
    };
    assert!(first.text.contains("About time too"), "{}", first.text);
    let Ok(second) = extract_auto(&page, &asked) else {
        panic!("the cascade extracts the page");
    };
    assert_eq!(second.algorithm, Algorithm::Readability);
    assert_contains_all(
        &second.text,
        &["Section 4 paragraph 0:", "Section 4 paragraph 4:"],
    );
    assert_contains_none(&second.text, &["About time too"]);
}

/// `html` extracted by `auto` with the default parameters, and with CUTER's parameters
/// changed by `without` (the rule under test turned off).
fn with_and_without(
    html: &str,
    title: &str,
    without: impl FnOnce(&mut gleaner::extract::cuter::CuterParams),
) -> (Extraction, Extraction) {
    use gleaner::extract::Page;
    use gleaner::extract::auto::{AutoParams, extract_auto};
    let page = Page::parse(html.as_bytes(), None, None, Some(title));
    let mut off = AutoParams::default();
    without(&mut off.cuter);
    let (Ok(with), Ok(without)) = (
        extract_auto(&page, &AutoParams::default()),
        extract_auto(&page, &off),
    ) else {
        panic!("the cascade extracts the page");
    };
    (with, without)
}

const GAMES_TITLE: &str = "Eight headset games worth your evening";

/// A list article: each item titled by a heading that links to the game it presents, with
/// its paragraphs under it.
fn games_list() -> String {
    let items: String = (1..=6)
        .map(|i| {
            format!(
                "<h3><a href=\"https://store.example/game-{i}\">Starfield Racer {i} ($2{i})</a>\
                 </h3><p>{}</p>",
                paragraph(5, i, 35)
            )
        })
        .collect();
    format!(
        "<!doctype html><html><head><title>{GAMES_TITLE}</title></head><body>\
         <nav class=\"menu\"><a href=\"/\">Home</a> <a href=\"/games\">Games</a></nav>\
         <article><h1>{GAMES_TITLE}</h1><div class=\"body\"><p>{}</p>{items}<p>{}</p>\
         </div></article><footer><p>All rights reserved.</p></footer></body></html>",
        paragraph(5, 0, 40),
        paragraph(5, 9, 40),
    )
}

#[test]
fn linked_section_headings_between_the_articles_paragraphs_are_kept() {
    let (with, without) = with_and_without(&games_list(), GAMES_TITLE, |c| {
        c.keep_linked_headings = false;
    });
    assert_contains_none(&without.text, &["Starfield Racer 3 ($23)"]);
    assert_contains_all(
        &with.text,
        &[
            "Starfield Racer 1 ($21)",
            "Starfield Racer 6 ($26)",
            "Section 5 paragraph 6:",
        ],
    );
    assert_contains_none(&with.text, &["All rights reserved", GAMES_TITLE]);
}

const CABLE_TITLE: &str = "Regulator opens an inquiry into the cable operator";

/// A saved copy cut short: an advertisement's script between the story's paragraphs lost
/// its opening tag, so its code is text of the story's own column.
fn page_with_script_left_as_text() -> String {
    let paragraphs = |range: std::ops::Range<usize>| -> String {
        range
            .map(|n| format!("<p>{}</p>", paragraph(6, n, 45)))
            .collect()
    };
    format!(
        "<!doctype html><html><head><title>{CABLE_TITLE}</title></head><body>\
         <div id=\"column\"><h1>{CABLE_TITLE}</h1>{}\
         var offsetX=12; var offsetY=10; var tipOn=false; \
         function showTip(text, width) {{ if (ns6 || ie) {{ if (width) tip.style.width = \
         width + 'px'; tip.innerHTML = text; tipOn = true; return false; }} }} \
         function hideTip() {{ if (ns6 || ie) {{ tipOn = false; tip.style.visibility = \
         'hidden'; }} }} document.onmousemove = positionTip;\
         {}</div><footer><p>All rights reserved.</p></footer></body></html>",
        paragraphs(0..3),
        paragraphs(3..5),
    )
}

#[test]
fn a_script_left_as_text_is_never_the_articles() {
    let (with, without) = with_and_without(&page_with_script_left_as_text(), CABLE_TITLE, |c| {
        c.drop_script_text = false;
    });
    assert_contains_all(&without.text, &["tipOn = false"]);
    assert_contains_all(
        &with.text,
        &["Section 6 paragraph 0:", "Section 6 paragraph 4:"],
    );
    assert_contains_none(&with.text, &["tipOn", "function", "document.onmousemove"]);
}

const HARBOUR_TITLE: &str = "Harbour dredging finishes a month early";

/// The headline and date of the `i`th teaser of another story, with its summary.
fn teaser(i: usize) -> String {
    format!(
        "<a href=\"/news/{i}\">Council approves the new ferry terminal plan {i}</a> Jan {i}, \
         7:00 AM The vote came after a long debate about the cost of the work, number {i}."
    )
}

/// A story whose column goes on, after its share links, with a list of other stories: each
/// a linked headline with its date and summary, in one cell of a table, nothing marked.
fn story_then_teasers() -> String {
    let story: String = (0..4)
        .map(|n| format!("<p>{}</p>", paragraph(7, n, 45)))
        .collect();
    let teasers: String = (1..=6)
        .map(|i| format!("<tr><td>{}</td></tr>", teaser(i)))
        .collect();
    format!(
        "<!doctype html><html><head><title>{HARBOUR_TITLE}</title></head><body>\
         <div id=\"main\"><h1>{HARBOUR_TITLE}</h1>{story}\
         <div><a href=\"/share/mail\">E-mail</a> | <a href=\"/share/print\">Print</a></div>\
         <table>{teasers}</table></div>\
         <footer><p>All rights reserved.</p></footer></body></html>"
    )
}

/// A section's front page: nothing but teasers, which are then its content.
fn section_front() -> String {
    let teasers: String = (1..=8).map(|i| format!("<p>{}</p>", teaser(i))).collect();
    format!(
        "<!doctype html><html><head><title>Local news</title></head><body>\
         <div id=\"main\">{teasers}</div></body></html>"
    )
}

#[test]
fn a_list_of_teasers_after_the_story_is_not_the_story() {
    let (with, without) = with_and_without(&story_then_teasers(), HARBOUR_TITLE, |c| {
        c.drop_teaser_tail = false;
    });
    assert_contains_all(
        &without.text,
        &["Council approves the new ferry terminal plan 3"],
    );
    assert_contains_all(
        &with.text,
        &["Section 7 paragraph 0:", "Section 7 paragraph 3:"],
    );
    assert_contains_none(&with.text, &["Council approves", "The vote came after"]);
    let front = extract(&section_front(), None);
    assert_contains_all(
        &front.text,
        &[
            "Council approves the new ferry terminal plan 1",
            "Council approves the new ferry terminal plan 8",
        ],
    );
}

const ORCHARD_TITLE: &str = "Pruning an old apple orchard";

/// An old hand-written document: each part opens with a target (`<a name=…>`) that is never
/// closed, so the parser's recovery wraps the part in it; a comment form at the end opens
/// with a target named for it.
fn document_with_open_targets() -> String {
    let part = |n: usize| -> String {
        (0..3)
            .map(|i| format!("<p>{}\n", paragraph(n, i, 50)))
            .collect()
    };
    format!(
        "<html><head><title>{ORCHARD_TITLE}</title></head><body>\
         <a href=index.html>Contents</a> | <a href=next.html>Next</a>\n\
         <h1>{ORCHARD_TITLE}</h1>\n{}\
         <a name=second><h2>When to prune</h2>\n{}\
         <a name=third><h2>What to cut first</h2>\n{}\
         <a name=commentbox><table><tr><td>NOTE: Please limit your comments to 500 words. \
         The form will not keep formatting such as italics or bold. By posting you agree to \
         the terms of use of the site and to the rules of its discussions.</td></tr></table>\
         </body></html>",
        part(1),
        part(2),
        part(3),
    )
}

#[test]
fn a_target_left_open_is_no_link_and_names_its_section() {
    let extraction = extract(&document_with_open_targets(), Some(ORCHARD_TITLE));
    assert_contains_all(
        &extraction.text,
        &[
            "Section 1 paragraph 0:",
            "Section 2 paragraph 1:",
            "Section 3 paragraph 2:",
        ],
    );
    assert_contains_none(&extraction.text, &["Please limit your comments"]);
}

const FERRY_CREWS_TITLE: &str = "Ferry crews agree a new winter timetable";

/// A story whose paragraphs go on, in the same container and with nothing marked, into a
/// "Related stories:" line and teasers of other stories: each a linked headline and a
/// summary long enough to read as a paragraph of its own.
fn story_then_related_stories() -> String {
    let story: String = (0..4)
        .map(|n| format!("<p>{}</p>", paragraph(8, n, 45)))
        .collect();
    let teasers: String = (1..=5)
        .map(|i| {
            format!(
                "<p><a href=\"/story/{i}\">Harbour board names its new chair {i}</a> The \
                 board met on Tuesday and chose a chair from three people who had applied \
                 for the post, which has been empty since the spring, number {i}.</p>"
            )
        })
        .collect();
    format!(
        "<!doctype html><html><head><title>{FERRY_CREWS_TITLE}</title></head><body>\
         <div id=\"main\"><h1>{FERRY_CREWS_TITLE}</h1>{story}<p>Related stories:</p>{teasers}</div>\
         <footer><p>All rights reserved.</p></footer></body></html>"
    )
}

/// The same story with a box of links in its middle, and its prose going on after it.
fn story_around_related_stories() -> String {
    let story = |from: usize| -> String {
        (from..from + 3)
            .map(|n| format!("<p>{}</p>", paragraph(9, n, 45)))
            .collect()
    };
    format!(
        "<!doctype html><html><head><title>{FERRY_CREWS_TITLE}</title></head><body>\
         <div id=\"main\"><h1>{FERRY_CREWS_TITLE}</h1>{}<p>Related stories:</p>\
         <p><a href=\"/story/1\">Harbour board names its new chair</a></p>{}</div>\
         </body></html>",
        story(0),
        story(3),
    )
}

#[test]
fn a_heading_announcing_related_stories_ends_the_story() {
    let (with, without) = with_and_without(&story_then_related_stories(), FERRY_CREWS_TITLE, |c| {
        c.drop_after_related_label = false;
    });
    assert_contains_all(&without.text, &["Harbour board names its new chair 3"]);
    assert_contains_all(
        &with.text,
        &["Section 8 paragraph 0:", "Section 8 paragraph 3:"],
    );
    assert_contains_none(&with.text, &["Related stories", "Harbour board"]);
    let around = extract(&story_around_related_stories(), Some(FERRY_CREWS_TITLE));
    assert_contains_all(
        &around.text,
        &["Section 9 paragraph 0:", "Section 9 paragraph 5:"],
    );
}
