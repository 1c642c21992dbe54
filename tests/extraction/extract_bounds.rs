//! Extraction reads a bounded start of a page: pages of millions of tags, lines, nodes or
//! bytes are cut (`extract::MAX_MARKS`, `extract::PARSE_BOUNDS`) and their article extracted
//! from what was read; a page below the bounds is read whole.

use gleaner::extract::{
    Algorithm, CutBy, Extractor, MAX_MARKS, PARSE_BOUNDS, Page, extract_page, marks_end,
};
use gleaner::tidy::PARSE_PIECE_BYTES;

/// `unit` repeated to `bytes` after a small head.
fn generated(head: &str, unit: &str, bytes: usize) -> String {
    let mut page = format!("<!doctype html><html><head><title>Big</title></head><body>{head}");
    page.push_str(&unit.repeat((bytes - page.len()) / unit.len()));
    page
}

/// The most nodes one parser piece can add past the bound: a `<p>` (four bytes) reopens at
/// most the nesting cap's worth of formatting elements.
const PIECE_OVERSHOOT: usize = PARSE_PIECE_BYTES / 4 * (gleaner::tidy::depth::MAX_DEPTH + 2);

fn nodes(page: &Page) -> usize {
    page.document.tree.values().len()
}

/// Two nodes per five bytes: the tags are cut at [`MAX_MARKS`], then the parser stops at its
/// node bound.
#[test]
fn a_page_of_line_breaks_is_read_up_to_its_bounds() {
    let page = generated("", "w<br>", 6 << 20);
    let parsed = Page::parse(page.as_bytes(), None, None, None);
    let Some(cut) = parsed.cut else {
        panic!("a page of 1.2 million tags is cut");
    };
    assert_eq!(cut.by, CutBy::Nodes);
    assert_eq!(cut.total, page.len());
    assert!(cut.read < 2 * PARSE_BOUNDS.max_nodes * 5, "{cut:?}");
    assert_eq!(parsed.source.matches('<').count(), MAX_MARKS);
    let nodes = nodes(&parsed);
    assert!(
        (PARSE_BOUNDS.max_nodes..PARSE_BOUNDS.max_nodes + PARSE_PIECE_BYTES).contains(&nodes),
        "{nodes} nodes"
    );

    let extraction = extract_page(page.as_bytes(), None, None, None, Algorithm::Auto)
        .unwrap_or_else(|e| panic!("the start of the page is extracted: {e}"));
    let words = extraction.text.split_whitespace().count();
    assert!(
        words > PARSE_BOUNDS.max_nodes / 3 && words <= PARSE_BOUNDS.max_nodes / 2 + 1024,
        "{words} words extracted"
    );
}

#[test]
fn a_page_of_unclosed_paragraphs_makes_a_bounded_number_of_blocks() {
    let page = generated("", "<p>w", 6 << 20);
    let parsed = Page::parse(page.as_bytes(), None, None, None);
    assert_eq!(parsed.cut.map(|c| c.by), Some(CutBy::Nodes));
    let blocks = parsed.stats.blocks.len();
    assert!(
        blocks > PARSE_BOUNDS.max_nodes / 3 && blocks <= PARSE_BOUNDS.max_nodes / 2 + 1024,
        "{blocks} blocks"
    );
    for algorithm in [Algorithm::Auto, Algorithm::Cetr, Algorithm::Alltext] {
        let extraction = algorithm
            .extract(&parsed)
            .unwrap_or_else(|e| panic!("{algorithm}: {e}"));
        assert!(extraction.text.len() <= 3 * MAX_MARKS, "{algorithm}");
    }
}

/// Few nodes, many lines: the lines CETR and DANA read stop at [`MAX_MARKS`].
#[test]
fn a_page_of_short_lines_is_read_up_to_its_marks() {
    let page = generated("<pre>", "w\n", 4 << 20);
    let parsed = Page::parse(page.as_bytes(), None, None, None);
    assert_eq!(parsed.cut.map(|c| c.by), Some(CutBy::Marks));
    assert_eq!(
        parsed.source.matches('\n').count() + parsed.source.matches('<').count(),
        MAX_MARKS
    );
    let lines = gleaner::extract::tag_ratio::page_lines(&parsed.source);
    assert!(lines.len() <= MAX_MARKS, "{} lines", lines.len());
    assert!(nodes(&parsed) < 100);
}

/// Few tags, many nodes: every `<p>` reopens the forty formatting elements left open before
/// it, so the node bound, not the marks', stops the parser.
#[test]
fn formatting_elements_reopened_by_every_paragraph_stop_the_parser() {
    let formatting = [
        "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt",
        "u",
    ];
    // Opened inside a paragraph: the next `<p>` closes them, and its text reopens them.
    let head: String = (0..3)
        .flat_map(|n| formatting.iter().map(move |t| format!("<{t} id={n}>")))
        .collect();
    let head = format!("<p>{head}");
    let page = generated(&head, "<p>w", 256 << 10);
    assert_eq!(marks_end(&page, MAX_MARKS), None, "few enough tags");
    let parsed = Page::parse(page.as_bytes(), None, None, None);
    let Some(cut) = parsed.cut else {
        panic!("the parser is stopped");
    };
    assert_eq!(cut.by, CutBy::Nodes);
    assert!(cut.read < page.len() / 2, "{cut:?}");
    let nodes = nodes(&parsed);
    assert!(
        nodes <= PARSE_BOUNDS.max_nodes + PIECE_OVERSHOOT,
        "{nodes} nodes"
    );
    assert!(parsed.stats.blocks.len() <= PARSE_BOUNDS.max_nodes);
    let extraction = Algorithm::Auto
        .extract(&parsed)
        .unwrap_or_else(|e| panic!("the start of the page is extracted: {e}"));
    assert!(!extraction.text.is_empty());
}

/// Few tags and nodes, many bytes: the parser reads its byte bound of the text.
#[test]
fn a_page_of_text_alone_is_read_up_to_its_bytes() {
    let page = generated("<p>", "word ", 6 << 20);
    let parsed = Page::parse(page.as_bytes(), None, None, None);
    assert_eq!(parsed.cut.map(|c| c.by), Some(CutBy::Bytes));
    let text: usize = parsed.stats.blocks.iter().map(|b| b.sl).sum();
    assert!(
        text < PARSE_BOUNDS.max_bytes && text > PARSE_BOUNDS.max_bytes - 1024,
        "{text} bytes of text"
    );
}

#[test]
fn a_large_ordinary_page_is_read_whole() {
    let paragraph =
        "<p>A paragraph of an ordinary article, with a <a href=/x>link</a> in it.</p>\n";
    let page = generated("<article><h1>Big</h1>", paragraph, 1 << 20);
    let parsed = Page::parse(page.as_bytes(), None, None, None);
    assert_eq!(parsed.cut, None);
    assert_eq!(parsed.source.len(), page.len());
}

/// An extraction over its budget is stopped, not only abandoned: its permit comes back before
/// the work would have ended, so a page waiting for a permit (a feed polled beside slow pages)
/// is extracted, and the stopped work never reaches its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extraction_over_its_budget_stops_and_gives_its_permit_back() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use gleaner::pipeline::InFlight;
    use gleaner::pipeline::extraction::{OffRuntimeError, off_runtime};

    let in_flight = InFlight::default();
    let permits = std::thread::available_parallelism().map_or(2, usize::from);
    let page = Arc::new(generated(
        "",
        "<p>Der Preis: 5 &pound; &amp; 3&deg; &laquo;mehr&raquo; und noch viel mehr Text.</p>",
        4 << 20,
    ));
    let finished = Arc::new(AtomicUsize::new(0));
    let slow = (0..permits).map(|_| {
        let (page, finished, in_flight) = (page.clone(), finished.clone(), in_flight.clone());
        async move {
            let job = move || {
                let extracted = extract_page(page.as_bytes(), None, None, None, Algorithm::Auto);
                finished.fetch_add(1, Ordering::SeqCst);
                extracted.is_ok()
            };
            off_runtime(&in_flight, Duration::from_millis(20), job).await
        }
    });
    let outcomes = futures::future::join_all(slow).await;
    for outcome in outcomes {
        assert!(
            matches!(outcome, Err(OffRuntimeError::Timeout(_))),
            "over budget: {outcome:?}"
        );
    }
    // Every permit was held by a slow extraction: these run once the stopped ones gave theirs.
    let beside = (0..permits).map(|_| {
        let in_flight = in_flight.clone();
        async move {
            let job = || {
                extract_page(
                    b"<p>An ordinary page of a feed polled beside the slow ones.</p>",
                    None,
                    None,
                    None,
                    Algorithm::Auto,
                )
                .is_ok()
            };
            off_runtime(&in_flight, Duration::from_secs(600), job).await
        }
    });
    for outcome in futures::future::join_all(beside).await {
        assert!(matches!(outcome, Ok(true)), "{outcome:?}");
    }
    assert_eq!(
        finished.load(Ordering::SeqCst),
        0,
        "a stopped extraction ran to its end before its permit came back"
    );
}
