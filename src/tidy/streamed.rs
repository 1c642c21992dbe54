//! Streamed segments: the parts of a server-rendered page that arrive after their place.
//!
//! A page rendered by React's streaming server (Next.js, Remix and their kin) sends its shell
//! first, with an empty `<template id="B:1">` (a suspense boundary) or `<template id="P:1">`
//! (a postponed segment) where content is still being rendered, and sends that content later
//! in the same response, at the end of the body, as `<div hidden id="S:1">…</div>` followed by
//! a script (`$RC("B:1","S:1")`, `$RS("S:1","P:1")`) that moves it into place. A browser runs
//! the script; a reader of the markup sees the content hidden and out of order: a landing
//! page's feature sections, a product's description, a thread's replies. [`place_streamed`]
//! does what the script does, in the parsed tree, before anything reads it: each hidden
//! segment's children go where its template stands, in stream order (a segment may hold the
//! template of a later one). A segment whose template is not on the page stays where it is,
//! hidden.

use std::collections::HashMap;

use ego_tree::NodeId;
use scraper::{Html, Node};

/// Whether the parser's input may hold streamed segments at all: the mark every segment
/// carries. Most pages do not, and cost this one scan.
pub fn may_hold_streamed(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"id=\"S:").is_some()
}

/// The number of a template or segment id (`B:12`, `P:12` and `S:12` give `12`), with the
/// letter before it.
fn streamed_id(id: &str) -> Option<(u8, &str)> {
    let (letter, number) = id.split_once(':')?;
    let letter = match letter {
        "B" => b'B',
        "P" => b'P',
        "S" => b'S',
        _ => return None,
    };
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some((letter, number))
}

/// Moves every hidden streamed segment's children to where its template stands, and
/// removes the emptied segment and the template. Returns how many segments were placed.
pub fn place_streamed(document: &mut Html) -> usize {
    let mut templates: HashMap<String, NodeId> = HashMap::new();
    let mut segments: Vec<(String, NodeId)> = Vec::new();
    for node in document.tree.root().descendants() {
        let Node::Element(element) = node.value() else {
            continue;
        };
        let Some((letter, number)) = element.id().and_then(streamed_id) else {
            continue;
        };
        match (letter, element.name()) {
            (b'B' | b'P', "template") => {
                templates.entry(number.to_string()).or_insert(node.id());
            }
            (b'S', "div") if element.attr("hidden").is_some() => {
                segments.push((number.to_string(), node.id()));
            }
            _ => {}
        }
    }
    let mut placed = 0;
    for (number, segment) in segments {
        let Some(&template) = templates.get(&number) else {
            continue;
        };
        // A template inside its own segment (a malformed page) would be moved into itself.
        if is_inside(document, template, segment) {
            continue;
        }
        let children: Vec<NodeId> = document
            .tree
            .get(segment)
            .map(|node| node.children().map(|child| child.id()).collect())
            .unwrap_or_default();
        let Some(mut anchor) = document.tree.get_mut(template) else {
            continue;
        };
        for child in children {
            anchor.insert_id_before(child);
        }
        anchor.detach();
        if let Some(mut emptied) = document.tree.get_mut(segment) {
            emptied.detach();
        }
        placed += 1;
    }
    placed
}

/// Whether `node` lies inside `ancestor` (or is it).
fn is_inside(document: &Html, node: NodeId, ancestor: NodeId) -> bool {
    document.tree.get(node).is_some_and(|node| {
        node.id() == ancestor || node.ancestors().any(|above| above.id() == ancestor)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(page: &str) -> (usize, String) {
        crate::tidy::body_after_pass(page, place_streamed)
    }

    #[test]
    fn a_streamed_section_goes_where_its_boundary_stands() {
        let page = "<body><main><h1>Ship faster</h1><div class=\"how\"><template id=\"B:1\">\
                    </template></div><p>Pricing</p></main><div hidden id=\"S:1\"><h2>How it \
                    works</h2><p>Connect a repository.</p></div></body>";
        let (count, body) = placed(page);
        assert_eq!(count, 1);
        assert_eq!(
            body,
            "<main><h1>Ship faster</h1><div class=\"how\"><h2>How it works</h2><p>Connect a \
             repository.</p></div><p>Pricing</p></main>"
        );
    }

    #[test]
    fn nested_segments_and_postponed_ones_are_placed_in_stream_order() {
        let page = "<body><main><template id=\"P:0\"></template></main>\
                    <div hidden id=\"S:0\"><section>Outer <template id=\"B:2\"></template></section></div>\
                    <div hidden id=\"S:2\"><p>Inner</p></div></body>";
        let (count, body) = placed(page);
        assert_eq!(count, 2);
        assert_eq!(body, "<main><section>Outer <p>Inner</p></section></main>");
    }

    #[test]
    fn a_segment_without_its_template_or_not_hidden_stays() {
        let page = "<body><p>Shell</p><div hidden id=\"S:7\"><p>Orphan</p></div>\
                    <template id=\"B:8\"></template><div id=\"S:8\"><p>Shown</p></div></body>";
        let (count, body) = placed(page);
        assert_eq!(count, 0);
        assert!(body.contains("<div hidden=\"\" id=\"S:7\"><p>Orphan</p></div>"));
        assert!(body.contains("<div id=\"S:8\"><p>Shown</p></div>"));
        assert!(!may_hold_streamed("<div id=\"main\">"));
        assert!(may_hold_streamed(page));
    }
}
