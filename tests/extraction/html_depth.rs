//! Deeply nested pages: the tree the parser builds is at most `tidy::depth::MAX_DEPTH` deep,
//! whatever the page's nesting, and the deep text is still extracted.

use gleaner::extract::{Algorithm, extract_page};
use gleaner::tidy::depth::MAX_DEPTH;

fn nested(depth: usize) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>Deep</title></head><body>{}\
         <p>The only paragraph of this page sits below every one of the divisions.</p>{}\
         </body></html>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    )
}

/// The depth of the deepest element of a parsed document, counted without recursion.
fn tree_depth(document: &scraper::Html) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(document.tree.root(), 0usize)];
    while let Some((node, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        pending.extend(node.children().map(|child| (child, depth + 1)));
    }
    deepest
}

#[test]
fn the_tree_of_a_deeply_nested_page_is_capped() {
    let document = gleaner::tidy::parse(&nested(20_000));
    // Root → html → body: three levels above the capped elements, one below for the text.
    assert!(
        tree_depth(&document) <= MAX_DEPTH + 4,
        "{}",
        tree_depth(&document)
    );
}

#[test]
fn text_below_the_cap_is_extracted() -> anyhow::Result<()> {
    let page = nested(50_000);
    let extraction = extract_page(page.as_bytes(), None, None, Some("Deep"), Algorithm::Auto)?;
    assert!(
        extraction.text.contains("The only paragraph of this page"),
        "{}",
        extraction.text
    );
    Ok(())
}

#[test]
fn real_pages_are_untouched_by_the_cap() -> anyhow::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut pending = vec![dir];
    let mut pages = 0;
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "html") {
                let text = String::from_utf8_lossy(&std::fs::read(&path)?).into_owned();
                let capped = gleaner::tidy::depth::cap_depth(&text);
                assert!(
                    matches!(capped, std::borrow::Cow::Borrowed(_)),
                    "{}",
                    path.display()
                );
                pages += 1;
            }
        }
    }
    assert!(pages > 0);
    Ok(())
}
