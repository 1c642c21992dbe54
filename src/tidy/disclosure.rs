//! Disclosed panels: the content of an accordion or a disclosure, hidden until its control
//! is clicked.
//!
//! WAI-ARIA's disclosure and accordion patterns name the panel a control opens: the control
//! (a `button`, usually in the panel's heading) carries `aria-expanded` and
//! `aria-controls="panel-id"`, and the closed panel is `aria-hidden="true"` or `hidden` until
//! the control's script opens it. The panel is the page's own text, one click away (a shop's
//! buying guide and its questions and answers, a service page's FAQ), not text kept from the
//! reader; [`open_disclosed_panels`] opens every panel so named before anything reads the
//! tree. A tab set's panels (`role="tab"`, `aria-selected`) are left as they are: a shop's
//! tabs hold its delivery and service boilerplate as often as the product's copy. A panel
//! hidden by its stylesheet alone (`display:none`) stays as it is: the markup does not say
//! which state a control leaves it in.

use std::collections::HashSet;

use scraper::{Html, Node};

/// Whether the parser's input may name a disclosed panel at all: the attribute every
/// control of the patterns carries. Most pages do not, and cost this one scan.
pub fn may_hold_disclosures(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"aria-controls").is_some()
}

/// Removes `aria-hidden` and `hidden` from every element a disclosure control names as the
/// panel it opens, and returns how many panels it opened.
pub fn open_disclosed_panels(document: &mut Html) -> usize {
    let mut panels: HashSet<String> = HashSet::new();
    for node in document.tree.root().descendants() {
        let Node::Element(element) = node.value() else {
            continue;
        };
        if element.attr("aria-expanded").is_none() {
            continue;
        }
        if let Some(controls) = element.attr("aria-controls") {
            panels.extend(controls.split_ascii_whitespace().map(str::to_string));
        }
    }
    if panels.is_empty() {
        return 0;
    }
    let targets: Vec<ego_tree::NodeId> = document
        .tree
        .root()
        .descendants()
        .filter(|node| {
            node.value()
                .as_element()
                .and_then(|element| element.id())
                .is_some_and(|id| panels.contains(id))
        })
        .map(|node| node.id())
        .collect();
    let mut opened = 0;
    for target in targets {
        let Some(mut node) = document.tree.get_mut(target) else {
            continue;
        };
        if let Node::Element(element) = node.value() {
            let before = element.attrs.len();
            element.attrs.retain(|(name, value)| {
                let local = &*name.local;
                !(local == "hidden" || local == "aria-hidden" && value.trim() == "true")
            });
            if element.attrs.len() < before {
                opened += 1;
            }
        }
    }
    opened
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opened(page: &str) -> (usize, String) {
        crate::tidy::body_after_pass(page, open_disclosed_panels)
    }

    #[test]
    fn an_accordions_closed_panel_is_opened() {
        let page = "<body><h3><button aria-expanded=\"false\" aria-controls=\"faq-1\">How much \
                    do stoves cost?</button></h3><div aria-hidden=\"true\" id=\"faq-1\" \
                    class=\"panel\"><p>From $50.</p></div></body>";
        let (count, body) = opened(page);
        assert_eq!(count, 1);
        assert!(!body.contains("aria-hidden"), "{body}");
        assert!(body.contains("<p>From $50.</p>"), "{body}");
    }

    #[test]
    fn a_hidden_element_no_control_names_stays_hidden() {
        let page = "<body><button aria-expanded=\"false\" aria-controls=\"menu\">Menu</button>\
                    <div hidden id=\"other\"><p>Later.</p></div></body>";
        let (count, body) = opened(page);
        assert_eq!(count, 0);
        assert!(body.contains("hidden=\"\""), "{body}");
    }
}
