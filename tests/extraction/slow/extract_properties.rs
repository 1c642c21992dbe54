//! Property tests: no input makes any extractor panic.

use gleaner::extract::{Algorithm, extract_page};
use proptest::prelude::*;

/// Pieces of HTML, well- and ill-formed, that arbitrary pages are stitched from.
const PIECES: &[&str] = &[
    "<div>",
    "</div>",
    "<p>",
    "</p>",
    "<a href=\"/x\">",
    "</a>",
    "<h1>",
    "</h1>",
    "<script>",
    "</script>",
    "<style>",
    "<!--",
    "-->",
    "<img src=a.jpg width=1 height=1>",
    "<img data-src=b.jpg>",
    "<figure>",
    "<figcaption>",
    "<li>",
    "<ul>",
    "<br>",
    "&amp;",
    "&#x0;",
    "&#1114112;",
    "&notanentity",
    "<",
    ">",
    "\n",
    " ",
    "word ",
    "سلام ",
    "שלום ",
    "long sentence of text that reads like an article paragraph. ",
    "<meta charset=latin1>",
    "<base href=\"javascript:x\">",
    "<table><tr><td>",
    "\u{0}",
    "<title>",
    "</title>",
];

fn html_page() -> impl Strategy<Value = String> {
    prop::collection::vec(0..PIECES.len(), 0..300)
        .prop_map(|indices| indices.into_iter().map(|i| PIECES[i]).collect())
}

fn run_all(raw: &[u8], title: Option<&str>) {
    let url = url::Url::parse("https://example.com/a/b.html").ok();
    for algorithm in Algorithm::ALL {
        let _ = extract_page(raw, None, url.as_ref(), title, algorithm);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(raw in prop::collection::vec(any::<u8>(), 0..2048)) {
        run_all(&raw, None);
    }

    #[test]
    fn arbitrary_html_never_panics(page in html_page(), title in "[a-z ]{0,40}") {
        run_all(page.as_bytes(), Some(&title));
    }
}

#[test]
fn deep_nesting_does_not_exhaust_the_stack() {
    // html5ever checks element scopes by walking the open-element stack, so parsing is
    // quadratic in nesting depth (20 000 levels take about a second in release); this depth
    // keeps the test fast while far deeper than any real page.
    let depth = 3_000;
    let page = format!(
        "{}<p>deep text here.</p>{}",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    run_all(page.as_bytes(), Some("deep"));
}

#[test]
fn huge_single_line_is_handled() {
    let page = format!(
        "<html><body><p>{}</p></body></html>",
        "word ".repeat(200_000)
    );
    run_all(page.as_bytes(), None);
}
