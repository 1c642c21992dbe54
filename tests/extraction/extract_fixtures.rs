//! Extraction on hand-written fixture pages: what must and must not appear.

use gleaner::extract::{Algorithm, ExtractError, Extraction, extract_page};
use url::Url;

use crate::text;
use text::{assert_contains_all, assert_contains_none};

const TITLE: &str = "Arlen bridge reopens after eighteen months of restoration";

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/extract/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|err| panic!("reading {path}: {err}"))
}

fn extract(name: &str, title: Option<&str>, algorithm: Algorithm) -> Extraction {
    extract_page(&fixture(name), None, None, title, algorithm)
        .unwrap_or_else(|err| panic!("{name} with {algorithm}: {err}"))
}

/// Phrases from the first and last paragraph of the bridge article.
const BRIDGE_FIRST: &str = "The old stone bridge over the Arlen river reopened";
const BRIDGE_LAST: &str = "opens at the town library next week";

/// Page furniture of the bridge fixtures.
const FURNITURE: &[&str] = &[
    "Most read",
    "Council approves new budget",
    "Privacy policy",
    "All rights reserved",
    "tracking script text",
    "font-family",
];

#[test]
fn single_body_article_is_extracted_without_furniture() {
    for algorithm in [Algorithm::Auto, Algorithm::Cuter] {
        let result = extract("single_body.html", Some(TITLE), algorithm);
        assert_eq!(result.algorithm, Algorithm::Cuter);
        assert_eq!(result.title.as_deref(), Some(TITLE));
        assert_contains_all(
            &result.text,
            &[BRIDGE_FIRST, "lime mortar", "Marion Hale", BRIDGE_LAST],
        );
        assert_contains_none(&result.text, FURNITURE);
        // The headline and the byline are not body text.
        assert_contains_none(&result.text, &[TITLE, "By Tom Reeve"]);
        assert!(result.confidence > 0.0 && result.confidence <= 1.0);
        // Paragraphs stay paragraphs: six blocks, one blank line apart, and six <p> in HTML.
        assert_eq!(result.text.split("\n\n").count(), 6);
        assert_eq!(result.html.matches("<p>").count(), 6);
    }
}

#[test]
fn multi_body_article_split_by_an_ad_keeps_both_parts() {
    let result = extract("multi_body_ad.html", Some(TITLE), Algorithm::Auto);
    assert_contains_all(
        &result.text,
        &[
            BRIDGE_FIRST,
            "six thousand signatures",
            "Marion Hale",
            BRIDGE_LAST,
        ],
    );
    assert_contains_none(
        &result.text,
        &["Advertisement", "energy tariffs", "garden furniture"],
    );
    assert_contains_none(&result.text, FURNITURE);
}

#[test]
fn comments_after_the_article_are_excluded() {
    let result = extract("article_comments.html", Some(TITLE), Algorithm::Auto);
    assert_contains_all(&result.text, &[BRIDGE_FIRST, "light vehicles"]);
    assert_contains_none(
        &result.text,
        &[
            "riverwatcher",
            "potholes on Mill Lane",
            "cycling club",
            "24 comments",
            "attic",
        ],
    );
}

#[test]
fn one_line_minified_page() {
    let source = fixture("one_line.html");
    assert!(!source.contains(&b'\n'), "the fixture must be one line");
    let result = extract("one_line.html", Some(TITLE), Algorithm::Auto);
    assert_contains_all(&result.text, &[BRIDGE_FIRST, "lime mortar", BRIDGE_LAST]);
    assert_contains_none(&result.text, FURNITURE);
    // CETR re-breaks the single line (seed 003 §5.3) and still finds the article's text.
    let cetr = extract("one_line.html", Some(TITLE), Algorithm::Cetr);
    assert_eq!(cetr.algorithm, Algorithm::Cetr);
    assert_contains_all(&cetr.text, &["lime mortar", "six thousand signatures"]);
    assert_contains_none(&cetr.text, &["tracking script text", "font-family"]);
    // Re-breaking never cuts a word in two.
    assert!(!cetr.text.contains("lime mor tar") && !cetr.text.contains("restora tion"));
}

#[test]
fn unmatched_title_still_extracts_the_body() {
    let hint = "Stock markets fall sharply on inflation worries";
    let result = extract("no_title_match.html", Some(hint), Algorithm::Auto);
    assert_contains_all(&result.text, &[BRIDGE_FIRST, "lime mortar", BRIDGE_LAST]);
    assert_contains_none(&result.text, FURNITURE);
    assert_contains_none(&result.text, &["Stock markets"]);
    // Without any hint the page's own <title> is used.
    let untitled = extract("no_title_match.html", None, Algorithm::Cuter);
    assert_contains_all(&untitled.text, &[BRIDGE_FIRST, BRIDGE_LAST]);
}

#[test]
fn right_to_left_arabic_and_hebrew() {
    let arabic = extract(
        "rtl_arabic.html",
        Some("افتتاح مكتبة عامة جديدة في وسط المدينة"),
        Algorithm::Auto,
    );
    assert_contains_all(
        &arabic.text,
        &[
            "افتتحت البلدية صباح اليوم مكتبة عامة جديدة",
            "خدمة الإعارة الرقمية",
            "ضجيج المقاهي",
        ],
    );
    assert_contains_none(&arabic.text, &["الرئيسية", "اتصل بنا", "من نحن"]);
    // Reading order is document order.
    let first = arabic.text.find("افتتحت البلدية").unwrap_or(usize::MAX);
    let last = arabic.text.find("وأعرب عدد").unwrap_or(0);
    assert!(first < last);

    let hebrew = extract("rtl_hebrew.html", None, Algorithm::Auto);
    assert_contains_all(&hebrew.text, &["עונת הקטיף נפתחה השבוע", "מחסור בעובדים"]);
    assert_contains_none(&hebrew.text, &["ראשי", "צור קשר"]);
}

#[test]
fn figure_caption_and_tracking_pixel() {
    let page_url = Url::parse("https://courier.example.com/news/2024/bridge.html").ok();
    let result = extract_page(
        &fixture("figure_pixel.html"),
        None,
        page_url.as_ref(),
        Some(TITLE),
        Algorithm::Auto,
    )
    .unwrap_or_else(|err| panic!("figure_pixel: {err}"));
    // Two images, in document order; `<base href>` resolves the relative ones, the lazy one
    // is read from `data-src`, the 1×1 pixel is dropped.
    let urls: Vec<&str> = result.images.iter().map(|i| i.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://courier.example.com/images/bridge-arch.jpg",
            "https://courier.example.com/news/2024/images/masons-marks.jpg",
        ]
    );
    let figure = &result.images[0];
    assert_eq!(figure.alt.as_deref(), Some("The restored central arch"));
    assert_eq!(
        figure.caption.as_deref(),
        Some("The central arch after restoration, seen from the east bank.")
    );
    assert_eq!((figure.width, figure.height), (Some(800), Some(533)));
    assert!(result.images.iter().all(|i| !i.url.contains("pixel")));
    // The caption is the image's, not body text; the HTML keeps it in a figure.
    assert_contains_none(&result.text, &["seen from the east bank"]);
    assert_contains_all(
        &result.html,
        &[
            "<figure>",
            "<figcaption>",
            "https://courier.example.com/images/bridge-arch.jpg",
        ],
    );
    // Nothing executable survives, and links are absolute.
    assert_contains_none(
        &result.html,
        &[
            "javascript:",
            "onclick",
            "<iframe",
            "<form",
            "<input",
            "<button",
            "<script",
            "pixel.gif",
            "data:image",
        ],
    );
    assert_contains_none(&result.text, &["Subscribe to the newsletter"]);
    assert_contains_all(
        &result.html,
        &["href=\"https://courier.example.com/news/features/heritage.html\""],
    );
    assert_contains_all(&result.text, &[BRIDGE_FIRST, BRIDGE_LAST]);
}

#[test]
fn latin1_bytes_with_meta_charset() {
    let raw = fixture("latin1.html");
    assert!(
        std::str::from_utf8(&raw).is_err(),
        "the fixture must not be UTF-8"
    );
    assert_eq!(gleaner::tidy::decode(&raw, None).encoding, "windows-1252");
    let result = extract("latin1.html", None, Algorithm::Auto);
    assert_contains_all(
        &result.text,
        &[
            "La fête du village a attiré",
            "Hélène Bérard",
            "pétanque",
            "l'édition de l'année prochaine",
        ],
    );
    assert_contains_none(&result.text, &["Mentions légales", "Accueil", "\u{fffd}"]);
    assert_eq!(
        result.title.as_deref(),
        Some("La fête du village attire des milliers de visiteurs")
    );
}

#[test]
fn http_charset_and_bom_decide_the_encoding() {
    let latin = b"<p>caf\xe9</p>";
    assert_eq!(
        gleaner::tidy::decode(latin, Some("iso-8859-1")).text,
        "<p>caf\u{e9}</p>"
    );
    let bom = b"\xef\xbb\xbf<p>caf\xc3\xa9</p>";
    let decoded = gleaner::tidy::decode(bom, Some("iso-8859-1"));
    assert_eq!(
        (decoded.text.as_str(), decoded.encoding),
        ("<p>caf\u{e9}</p>", "UTF-8")
    );
}

#[test]
fn every_algorithm_answers_on_a_fixture() {
    for algorithm in Algorithm::ALL {
        let result = extract_page(
            &fixture("single_body.html"),
            None,
            None,
            Some(TITLE),
            algorithm,
        );
        let extraction = result.unwrap_or_else(|err| panic!("{algorithm}: {err}"));
        assert!(
            extraction.text.contains("lime mortar"),
            "{algorithm}: {}",
            extraction.text
        );
        assert!((0.0..=1.0).contains(&extraction.confidence));
    }
}

#[test]
fn coreex_and_econ_find_the_article_block() {
    for algorithm in [Algorithm::Coreex, Algorithm::Econ] {
        let result = extract("single_body.html", Some(TITLE), algorithm);
        assert_eq!(result.algorithm, algorithm);
        assert_contains_all(&result.text, &[BRIDGE_FIRST, "light vehicles"]);
        assert_contains_none(&result.text, FURNITURE);
    }
}

#[test]
fn dana_and_bte_on_a_right_to_left_page() {
    for algorithm in [Algorithm::Dana, Algorithm::Bte] {
        let result = extract("rtl_arabic.html", None, algorithm);
        assert_eq!(result.algorithm, algorithm);
        assert_contains_all(&result.text, &["افتتحت البلدية صباح اليوم", "ضجيج المقاهي"]);
        assert_contains_none(&result.text, &["<p>", "&nbsp;"]);
    }
    // BTE's window leaves the navigation and the footer out; so does DANA's walk, which
    // passes lines of links (more ASCII markup than Arabic letters) without taking them.
    for algorithm in [Algorithm::Dana, Algorithm::Bte] {
        let result = extract("rtl_arabic.html", None, algorithm);
        assert_contains_none(&result.text, &["اتصل بنا", "من نحن", "رياضة"]);
    }
}

/// An English page written for the generalized DANA: a menu of many links, the article, a
/// sidebar and a footer, as a template renders them line by line.
const ENGLISH_HARBOUR_PAGE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Harbour ferry returns after winter refit - Kestrel Bay Gazette</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="The Gull Island ferry is back in service after its refit.">
<meta property="og:type" content="article">
<meta property="og:site_name" content="Kestrel Bay Gazette">
<meta property="og:title" content="Harbour ferry returns after winter refit">
<meta property="og:url" content="https://gazette.example/news/2024/03/harbour-ferry-returns/">
<meta property="og:image" content="https://gazette.example/media/2024/03/ferry-north-quay-1200.jpg">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:site" content="@kestrelgazette">
<meta name="robots" content="index, follow, max-image-preview:large">
<link rel="canonical" href="https://gazette.example/news/2024/03/harbour-ferry-returns/">
<link rel="icon" type="image/png" sizes="32x32" href="/static/icons/favicon-32.png">
<link rel="apple-touch-icon" sizes="180x180" href="/static/icons/apple-touch-icon.png">
<link rel="preload" as="font" type="font/woff2" href="/static/fonts/serif-regular.woff2" crossorigin>
<link rel="preload" as="font" type="font/woff2" href="/static/fonts/sans-bold.woff2" crossorigin>
<link rel="stylesheet" href="/static/css/site.min.css?v=20240311">
<link rel="alternate" type="application/rss+xml" title="News" href="/news/feed.xml">
</head>
<body class="article-page layout-wide">
<header class="site-header">
<nav class="main-nav" aria-label="Sections">
<ul class="nav-list">
<li class="nav-item"><a class="nav-link" href="/news/">News</a></li>
<li class="nav-item"><a class="nav-link" href="/sport/">Sport</a></li>
<li class="nav-item"><a class="nav-link" href="/business/">Business</a></li>
<li class="nav-item"><a class="nav-link" href="/what-is-on/">What is on</a></li>
<li class="nav-item"><a class="nav-link" href="/weather/">Weather</a></li>
<li class="nav-item"><a class="nav-link" href="/opinion/">Opinion</a></li>
<li class="nav-item"><a class="nav-link" href="/islands/">Islands</a></li>
<li class="nav-item"><a class="nav-link" href="/notices/">Notices</a></li>
</ul>
</nav>
</header>
<main id="content" class="main-column">
<article class="story">
<h1 class="story-title">Harbour ferry returns after winter refit</h1>
<div class="story-meta"><span class="byline">By Ada Merrow</span> <time datetime="2024-03-12">12 March 2024</time></div>
<p>The passenger ferry between Kestrel Bay and Gull Island returned to service on Monday morning after a winter refit that replaced both of its engines and most of its wiring.</p>
<p>The first crossing left the north quay at seven o'clock with forty passengers on board, most of them island residents who had relied on a chartered fishing boat since November.</p>
<p>"We have waited a long time for this," said Nora Quill, who runs the post office on the island. "The boat was fine for letters, less so for a week of groceries in the rain."</p>
<p>The harbour board said the new engines burn a third less fuel and should keep the timetable reliable in the autumn gales that cancelled eleven crossings last year.</p>
<p>The summer timetable, with six crossings a day and a late boat on Fridays, begins on the first of May; tickets can be bought on board or at the harbour office.</p>
</article>
<aside class="sidebar">
<h2 class="sidebar-title">Most read</h2>
<ul class="most-read">
<li><a class="most-read-link" href="/news/2024/03/lighthouse-keepers-cottage-for-sale/">Keeper's cottage for sale</a></li>
<li><a class="most-read-link" href="/news/2024/03/school-choir-wins-county-prize/">School choir wins prize</a></li>
</ul>
</aside>
</main>
<footer class="site-footer"><a class="footer-link" href="/privacy/">Privacy policy</a> <a class="footer-link" href="/contact/">Contact us</a></footer>
</body>
</html>
"#;

const HARBOUR_ARTICLE: &[&str] = &[
    "The passenger ferry between Kestrel Bay and Gull Island",
    "a week of groceries in the rain",
    "tickets can be bought on board or at the harbour office",
];

const HARBOUR_FURNITURE: &[&str] = &[
    "What is on",
    "Most read",
    "Keeper's cottage for sale",
    "Privacy policy",
    "Contact us",
];

#[test]
fn dana_generalized_on_an_english_page() {
    // Every letter is ASCII: the paper's byte classes see no content, text against markup does.
    let result = extract_page(
        ENGLISH_HARBOUR_PAGE.as_bytes(),
        None,
        None,
        None,
        Algorithm::Dana,
    )
    .unwrap_or_else(|err| panic!("dana on the English page: {err}"));
    assert_eq!(result.algorithm, Algorithm::Dana);
    assert_contains_all(&result.text, HARBOUR_ARTICLE);
    assert_contains_none(&result.text, HARBOUR_FURNITURE);
    assert_contains_none(&result.text, &["<p>", "nav-link"]);
}

#[test]
fn dana_cuts_a_one_line_body_into_lines() {
    // The same page with its body rendered on one line: the region is the article, not the
    // whole line.
    let (head, body) = ENGLISH_HARBOUR_PAGE
        .split_once("<body")
        .unwrap_or_else(|| panic!("the fixture has a body"));
    let page = format!("{head}<body{}", body.replace('\n', ""));
    let result = extract_page(page.as_bytes(), None, None, None, Algorithm::Dana)
        .unwrap_or_else(|err| panic!("dana on the one-line body: {err}"));
    // The cuts at either end of the article may leave its first and last words on lines
    // where markup dominates; the paragraphs between them are all there.
    assert_contains_all(
        &result.text,
        &[
            "relied on a chartered fishing boat since November",
            HARBOUR_ARTICLE[1],
            "autumn gales that cancelled eleven crossings",
        ],
    );
    assert_contains_none(&result.text, HARBOUR_FURNITURE);
}

#[test]
fn alltext_is_the_floor() {
    let all = extract("single_body.html", Some(TITLE), Algorithm::Alltext);
    assert_contains_all(&all.text, &[BRIDGE_FIRST, "Most read", "Privacy policy"]);
    assert_contains_none(&all.text, &["tracking script text", "font-family"]);
}

#[test]
fn empty_page_is_no_content() {
    let result = extract_page(
        b"<html><body><nav><a href=/>Home</a></nav></body></html>",
        None,
        None,
        None,
        Algorithm::Cuter,
    );
    assert!(
        matches!(
            result,
            Err(ExtractError::NoContent {
                algorithm: Algorithm::Cuter,
                ..
            })
        ),
        "{result:?}"
    );
}

#[test]
fn tidy_html_sanitizes_a_whole_page() {
    let base = Url::parse("https://courier.example.com/news/2024/bridge.html").ok();
    let tidied = gleaner::tidy::tidy_html(&fixture("figure_pixel.html"), None, base.as_ref());
    assert_contains_all(
        &tidied.html,
        &[
            "<h1>",
            "<figcaption>",
            "https://courier.example.com/images/bridge-arch.jpg",
        ],
    );
    assert_contains_none(
        &tidied.html,
        &[
            "<script",
            "<style",
            "javascript:",
            "onclick",
            "<iframe",
            "<form",
        ],
    );
}

#[test]
fn the_cetr_family_keeps_the_body_and_drops_the_code() {
    for algorithm in [Algorithm::Cetr, Algorithm::CetrTm, Algorithm::CetrKm] {
        let result = extract("single_body.html", Some(TITLE), algorithm);
        assert_eq!(result.algorithm, algorithm);
        assert_contains_all(&result.text, &[BRIDGE_FIRST, "lime mortar", BRIDGE_LAST]);
        // Scripts and styles are removed before the tag ratios are computed.
        assert_contains_none(
            &result.text,
            &["tracking script text", "font-family", "<p>"],
        );
    }
    // On a one-line (minified) page the lines are made by breaking every 65 characters.
    let minified = extract("one_line.html", None, Algorithm::Cetr);
    assert!(!minified.text.is_empty());
}

/// ECON joins brother paragraphs before choosing the snippet-node, and punctuation in reader
/// comments, link lists and page furniture does not pull the summary-node upwards.
#[test]
fn econ_joins_short_paragraphs_and_ignores_noise_punctuation() {
    let paragraph =
        |i: usize| format!("<p>Paragraph {i} of the report, short but with a full stop.</p>");
    let body: String = (1..=8).map(paragraph).collect();
    let page = format!(
        "<html><body><div class=\"page\"><div id=\"main\"><h1>Arlen bridge</h1>{body}\
         <div class=\"comments\"><p>Reader comment: great news, finally! Well done, council. \
         Really, truly, a fine, fine day for all of us here.</p></div>\
         <ul class=\"related\"><li><a href=\"/a\">Budget approved, finally.</a></li>\
         <li><a href=\"/b\">Floods: what now?</a></li></ul></div>\
         <footer><p>Disclaimer: all rights reserved, no part of this page may be copied, \
         stored, or sent on, in any form, by any means, electronic, mechanical, or otherwise, \
         without the written permission of the publisher, who may refuse it.</p></footer>\
         </div></body></html>"
    );
    let result = extract_page(page.as_bytes(), None, None, None, Algorithm::Econ)
        .unwrap_or_else(|err| panic!("econ: {err}"));
    assert_contains_all(&result.text, &["Paragraph 1 of", "Paragraph 8 of"]);
    assert_contains_none(
        &result.text,
        &["Reader comment", "Budget approved", "Disclaimer"],
    );
}

#[test]
fn a_post_container_marked_as_a_widget_is_kept_when_it_holds_the_main_block() {
    // Blogger wraps every post in `<div class="widget Blog">`; here the post is under a
    // fifth of the page's text, so the share guard alone would omit it like the sidebar's
    // widgets.
    let result = extract("blog_widget_container.html", None, Algorithm::Auto);
    assert_eq!(result.algorithm, Algorithm::Cuter);
    assert_contains_all(
        &result.text,
        &[
            "The harbour at Wrenmouth froze over",
            "Harbour master Elin Shore",
            "keep it there until the ice has gone",
        ],
    );
    assert_contains_none(
        &result.text,
        &["retired ferry engineer", "Powered by", "Notes 3"],
    );
}

#[test]
fn a_table_of_contents_inside_the_article_does_not_cut_the_paragraphs_after_it() {
    // Twelve linked items are more than a group may bridge, so the article splits in two
    // groups; the second continues the same container after a link-dense interruption.
    let result = extract("contents_inside_article.html", None, Algorithm::Auto);
    assert_eq!(result.algorithm, Algorithm::Cuter);
    assert_contains_all(
        &result.text,
        &[
            "housing cooperative on Tanner Street",
            "came second-hand from a retired keeper",
            "facing south-east, away from the gusts",
        ],
    );
    assert_contains_none(
        &result.text,
        &["Is the roof strong enough?", "Contact us", "newsletter"],
    );
}

#[test]
fn an_embedded_gallery_inside_the_article_does_not_cut_the_paragraphs_after_it() {
    // Eighteen omitted slide counters are more than a group may bridge; nothing between the
    // two halves is body text, and the second continues the same container.
    let result = extract("gallery_inside_article.html", None, Algorithm::Auto);
    assert_eq!(result.algorithm, Algorithm::Cuter);
    assert_contains_all(
        &result.text,
        &[
            "housing cooperative on Tanner Street",
            "facing south-east, away from the gusts",
        ],
    );
    assert_contains_none(&result.text, &["Photo 3 of 18", "Contact us"]);
}

#[test]
fn a_table_wrapped_in_a_figure_is_body_text_and_its_caption_is_not() {
    let result = extract("figure_table.html", None, Algorithm::Auto);
    assert_contains_all(
        &result.text,
        &[
            "weather station on Carn hill",
            "January wettest since records began",
            "120 hours",
            "open day in June",
        ],
    );
    assert_contains_none(&result.text, &["Table 1:", "Privacy policy"]);
}

#[test]
fn class_markers_match_whole_words_not_substrings() {
    use gleaner::extract::dom::{MarkerSet, has_marker};
    let markers = &MarkerSet::new(&["menu", "author", "nav", "share", "read-more"]);
    for furniture in [
        "site-nav",
        "navbar",
        "navigation",
        "main_menu",
        "post-author",
        "sharebox",
        "socialshare",
        "read-more-link",
    ] {
        assert!(has_marker(furniture, markers), "{furniture}");
    }
    for content in [
        "contextmenu",
        "authored-by-line",
        "entry-content",
        "more-info",
        "reader",
    ] {
        assert!(!has_marker(content, markers), "{content}");
    }
}

#[test]
fn a_body_split_over_alike_column_wrappers_is_kept_whole() {
    // Three `story-column` wrappers under one section, with charts between them whose
    // labels split CUTER's groups: the wrappers are alike places of one body.
    let title = "Marlow Quay flood barrier opens";
    let result = extract("column_wrappers.html", Some(title), Algorithm::Auto);
    assert_contains_all(
        &result.text,
        &[
            "The river authority opened the new flood barrier",
            "The gates were made in a yard upriver",
            "The town council will hold an open evening",
        ],
    );
    assert_contains_none(&result.text, &["Ferry timetable", "All rights reserved"]);
}

#[test]
fn cross_headings_between_paragraphs_stay_in_place() {
    // Text of the body element itself between its paragraphs: each run is its own block.
    let title = "Small shops that know their customers";
    let result = extract("cross_heads.html", Some(title), Algorithm::Auto);
    let position = |needle: &str| {
        result
            .text
            .find(needle)
            .unwrap_or_else(|| panic!("missing {needle:?} in:\n{}", result.text))
    };
    assert!(position("repair evening every month") < position("Changed plans"));
    assert!(position("Changed plans") < position("The grocer two doors down"));
    assert!(position("the window display ever did") < position("Second thoughts"));
    assert!(position("Second thoughts") < position("Not every shop owner"));
}

#[test]
fn a_title_matching_a_section_heading_does_not_cut_the_article() {
    // The feed's title is the heading of the article's second section: the paragraphs of
    // the same container before it are the article's opening, not teasers.
    let result = extract(
        "section_heading_title.html",
        Some("Growing tomatoes on a balcony"),
        Algorithm::Auto,
    );
    assert_contains_all(
        &result.text,
        &[
            "When we moved into the flat on the fourth floor",
            "Tomatoes want sun and shelter",
            "add a water butt",
        ],
    );
}

#[test]
fn a_comments_heading_ends_the_article_in_its_container() {
    // No class marks the comments: a "5 Comments" heading after the article's paragraphs,
    // in the same container, announces them. A "3 Comments" line under the headline and a
    // "Response" section heading inside the article end nothing.
    let title = "Council backs covered market in railway shed";
    for algorithm in [Algorithm::Auto, Algorithm::Cuter] {
        let result = extract("comments_heading.html", Some(title), algorithm);
        assert_contains_all(
            &result.text,
            &[
                "The town council voted on Tuesday evening",
                "forty stall bays",
                "The council's answer to the parking worry",
                "before the end of next summer",
            ],
        );
        for comment in [
            "waiting for this for years",
            "Forty stalls sounds like",
            "farm shop",
        ] {
            assert!(
                !result.text.contains(comment),
                "{algorithm:?} kept the comment {comment:?}:\n{}",
                result.text
            );
        }
    }
}

#[test]
fn a_large_box_among_the_articles_paragraphs_is_left_out_and_bridged() {
    // A picture gallery (`media-widget-wrapper`) holding more text than the article sits
    // between two paragraphs of the article's own container: it is furniture whatever its
    // share of the page, and the paragraphs after it continue the article.
    let title = "Lifeboat station launches its new boat";
    for algorithm in [Algorithm::Auto, Algorithm::Cuter, Algorithm::Econ] {
        let result = extract("gallery_box_in_article.html", Some(title), algorithm);
        assert_contains_all(
            &result.text,
            &[
                "launched its new all-weather boat",
                "who is missing, what is the sea doing",
                "reaches twenty-five knots",
                "first Sunday of next month",
            ],
        );
        assert_contains_none(
            &result.text,
            &[
                "Skippers brought the fleet home",
                "lighthouse will open",
                "Contact us",
            ],
        );
    }
}

#[test]
fn a_sidebar_longer_than_the_article_after_it_is_left_out() {
    // An `<aside>` live feed after the article holds more text than the article itself: it
    // begins after the article's longest paragraph, so it cannot be a wrapper of the article
    // and its share of the page does not keep it.
    let title = "Ferry operator orders two electric boats";
    for algorithm in [Algorithm::Auto, Algorithm::Cuter] {
        let result = extract("sidebar_live_feed.html", Some(title), algorithm);
        assert_contains_all(
            &result.text,
            &[
                "ordered two battery-electric boats",
                "two hundred passengers",
                "from the port's own reserves",
            ],
        );
        assert_contains_none(
            &result.text,
            &[
                "Live: the coast today",
                "storm warning",
                "logbook",
                "About us",
            ],
        );
    }
}

#[test]
fn a_box_headed_you_may_also_like_is_left_out() {
    // A container that opens with "You may also like…" holds teasers of other articles,
    // written as full sentences and as long as the article's paragraphs; no class marks it.
    let title = "Why the old orchard was replanted";
    for algorithm in [Algorithm::Auto, Algorithm::Cuter, Algorithm::Econ] {
        let result = extract("related_heading.html", Some(title), algorithm);
        assert_contains_all(
            &result.text,
            &["forty apple trees", "no nursery sells any more"],
        );
        assert_contains_none(
            &result.text,
            &[
                "You may also like",
                "old pear tree",
                "wood chips",
                "windfalls",
            ],
        );
    }
}

#[test]
fn a_short_line_after_the_article_in_a_container_of_its_own_is_dropped() {
    // The imprint under the page sits close enough to the article to join its group, past a
    // link bar; it shares no container with the article's paragraphs.
    let title = "Town council approves new bus lanes";
    for algorithm in [Algorithm::Auto, Algorithm::Cuter] {
        let result = extract("detached_footer_line.html", Some(title), algorithm);
        assert_contains_all(
            &result.text,
            &[
                "paint bus lanes",
                "taxis and bicycles",
                "four of them outside",
            ],
        );
        assert_contains_none(&result.text, &["12 Mill Street", "Back to news"]);
    }
}

#[test]
fn an_unsure_cuter_on_a_page_of_links_falls_back_to_cetr_not_to_a_disclaimer() {
    // A page made of link lists: CUTER is unsure, and ECON's summary-node is the footer's
    // disclaimer (the longest paragraph). The line-based fallback keeps the lists.
    let result = extract("page_of_links.html", None, Algorithm::Auto);
    assert_eq!(result.algorithm, Algorithm::Cetr, "{}", result.text);
    assert_contains_all(
        &result.text,
        &["Northern Lakes University", "Road works and closures"],
    );
}

#[test]
fn a_later_section_joins_though_a_source_list_outweighs_it_in_its_group() {
    // After a link box, the article's last section runs straight into a long source list:
    // one group whose text sits mostly in the list, but whose paragraphs carry on the
    // article's own container.
    for algorithm in [Algorithm::Auto, Algorithm::Cuter] {
        let result = extract("sections_and_sources.html", Some("Valley Canal"), algorithm);
        assert_contains_all(
            &result.text,
            &[
                "cut by hand between 1791 and 1796",
                "its arms above the door",
                "Restoration began in 1974",
                "about four million pounds a year",
            ],
        );
        assert_contains_none(&result.text, &["Aqueducts", "Privacy"]);
    }
}

#[test]
fn the_lead_under_the_headline_joins_the_article_across_an_inline_link_box() {
    // The headline and the lead form one group, the link box (more items than a group may
    // bridge) splits off the longer rest, which is chosen; the group that holds the
    // headline is the article's start, not text before it, and joins across the box.
    let title = "Night ferry timetable cut to three crossings a week";
    for hint in [Some(title), None] {
        let result = extract("lead_before_inline_links.html", hint, Algorithm::Auto);
        assert_contains_all(
            &result.text,
            &[
                "will run on three nights a week from March",
                "refunded in full at the terminal office",
            ],
        );
        assert_contains_none(
            &result.text,
            &["Bus route 7 diverted", "Contact us", "Home News Sport"],
        );
    }
}

/// A home page whose `<title>` is the site's name and tagline, and whose third section
/// (a book's title) recombines the tagline's words: bigram similarity 0.71, which is no
/// headline. The sections before it stay.
#[test]
fn a_block_that_recombines_the_title_words_does_not_cut_the_page() {
    for algorithm in [Algorithm::Auto, Algorithm::Cuter] {
        let result = extract(
            "tagline_recombined.html",
            Some("Harbour Housing Trust - Homes Built For The People Who Stay"),
            algorithm,
        );
        assert_contains_all(
            &result.text,
            &[
                "matched by the Estuary Foundation",
                "The old rope store on Mill Lane",
                "The trust's first book",
                "Groups of volunteers now meet",
                "Last year the trust re-roofed",
            ],
        );
        assert_contains_none(&result.text, &["About the trust", "Registered charity"]);
    }
}

#[test]
fn paragraphs_each_marked_by_a_furniture_class_are_the_article() {
    // Every paragraph of the excerpt carries `class="excerpt"`, the class of a teaser's
    // summary elsewhere: marked one by one next to the longest paragraph, it names the
    // article's paragraphs, not a box beside them.
    let result = extract("marked_paragraphs.html", None, Algorithm::Auto);
    assert_contains_all(
        &result.text,
        &[
            "Ada Penhallow climbed the hundred and twelve steps",
            "His knees had given out",
            "the one word her father had made her learn before any other: steer.",
        ],
    );
    assert_contains_none(
        &result.text,
        &["Winter Harbour", "Sign up for news", "Site by a friend"],
    );
}

#[test]
fn an_inline_comments_line_ends_the_article_in_its_container() {
    // The readers' posts share the story's `<div>`, each a run of its text ended by an
    // `<hr>`; the first run opens with a bold "Comments are now closed" line, not a heading
    // element of its own.
    let result = extract(
        "inline_comments_label.html",
        Some("Dockworkers vote to end strike"),
        Algorithm::Auto,
    );
    assert_contains_all(
        &result.text,
        &[
            "voted on Friday to end a nine-day strike",
            "asked for compensation for the days they lost",
        ],
    );
    assert_contains_none(
        &result.text,
        &[
            "Comments are now closed",
            "My cousin drives",
            "Two night shifts in a row is already too many",
            "whatever they say in their press releases",
        ],
    );
}

// The quality estimate (a whole article is estimated good, a page of links and an article
// cut to its lead worse), and the feed entry's text as a positional hint.

#[test]
fn a_whole_article_is_estimated_better_than_a_page_of_links() {
    let article = extract("single_body.html", Some(TITLE), Algorithm::Auto);
    let links = extract("page_of_links.html", None, Algorithm::Auto);
    assert!(
        article.quality >= 0.8,
        "article estimated {}",
        article.quality
    );
    assert!(
        links.quality < article.quality,
        "links {} vs article {}",
        links.quality,
        article.quality
    );
}

#[test]
fn every_algorithm_gives_an_estimate_between_0_and_1() {
    let html = fixture("single_body.html");
    for algorithm in Algorithm::ALL {
        if algorithm == Algorithm::Rules {
            continue;
        }
        if let Ok(extraction) = extract_page(&html, None, None, Some(TITLE), algorithm) {
            assert!(
                (0.0..=1.0).contains(&extraction.quality),
                "{algorithm}: {}",
                extraction.quality
            );
        }
    }
}

#[test]
fn an_extraction_that_keeps_only_the_lead_is_estimated_below_the_whole_article() {
    let html = fixture("single_body.html");
    let page = gleaner::extract::Page::parse(&html, None, None, Some(TITLE));
    let whole = extract("single_body.html", Some(TITLE), Algorithm::Auto);
    let mut lead = whole.clone();
    lead.text = whole
        .text
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .to_string();
    let lead_quality = gleaner::extract::quality::estimate(&page, &lead);
    let whole_quality = gleaner::extract::quality::estimate(&page, &whole);
    assert!(
        lead_quality < whole_quality,
        "lead {lead_quality} vs whole {whole_quality}"
    );
}

/// Two runs of prose with no headline the entry's title matches: a long essay teaser first, the
/// story the feed entry is about after it.
fn two_stories() -> String {
    let other: String = (0..6)
        .map(|i| {
            format!(
                "<p>Essay paragraph {i} on the history of the valley's mills, which the \
                 magazine ran last spring, and which readers keep asking about, so it is \
                 shown here again in full for those who missed it the first time.</p>"
            )
        })
        .collect();
    let links: String = (0..12)
        .map(|i| format!("<li><a href=\"/section/{i}\">Section {i}</a></li>"))
        .collect();
    let story: String = (0..6)
        .map(|i| {
            format!(
                "<p>Ferry story paragraph {i}: the harbour ferry returns to its winter timetable \
                 on Monday, with the last crossing moved to nine in the evening.</p>"
            )
        })
        .collect();
    format!(
        "<html><head><title>Harbour news</title></head><body>\
         <div class=\"essay\">{other}</div><div><ul>{links}</ul></div>\
         <div class=\"story\">{story}</div></body></html>"
    )
}

#[test]
fn the_feed_entrys_text_marks_where_the_article_starts_when_the_title_does_not() {
    use gleaner::extract::{EntryHints, SiteKnowledge, extract_site_page};
    let html = two_stories();
    let summary = "Ferry story paragraph 0: the harbour ferry returns to its winter timetable \
                   on Monday.";
    let without = extract_site_page(
        html.as_bytes(),
        None,
        None,
        EntryHints::title(Some("Ferry timetable changes")),
        Algorithm::Cuter,
        SiteKnowledge::default(),
    );
    let with = extract_site_page(
        html.as_bytes(),
        None,
        None,
        EntryHints {
            title: Some("Ferry timetable changes"),
            feed_text: Some(summary),
            page_type: None,
        },
        Algorithm::Cuter,
        SiteKnowledge::default(),
    );
    let without = without.extraction.expect("an article without the lead");
    let with = with.extraction.expect("an article with the lead");
    assert!(
        without.text.contains("Essay paragraph 0"),
        "{}",
        without.text
    );
    assert!(
        with.text.starts_with("Ferry story paragraph 0"),
        "{}",
        with.text
    );
    assert!(!with.text.contains("Essay paragraph"), "{}", with.text);
}
