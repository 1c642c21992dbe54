//! An entry's tags: its categories as the feed names them (RSS `<category>`, Atom
//! `category@term`, else its `label`, JSON Feed `tags`), and the normal form every tag takes,
//! whether it comes from a feed or from the configuration ([`normalize`]).

/// The entry's categories as tags, in the feed's order, normalized.
pub(super) fn of_entry(entry: &feed_rs::model::Entry) -> Vec<String> {
    normalize(entry.categories.iter().map(|category| {
        if category.term.trim().is_empty() {
            category.label.as_deref().unwrap_or_default()
        } else {
            category.term.as_str()
        }
    }))
}

/// Tags in normal form: each trimmed, its runs of whitespace made one space, empty ones
/// dropped, and those that differ from an earlier one only by case left out (the first
/// spelling is kept). Order is kept.
pub fn normalize<S: AsRef<str>>(tags: impl IntoIterator<Item = S>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for tag in tags {
        let tag = tag
            .as_ref()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if !tag.is_empty() && seen.insert(tag.to_lowercase()) {
            kept.push(tag);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags_of(document: &str) -> Vec<Vec<String>> {
        let base = url::Url::parse("https://news.example/feed").expect("test URL");
        let parsed = crate::feed::parse_feed(document.as_bytes(), None, &base).expect("a feed");
        parsed.entries.into_iter().map(|entry| entry.tags).collect()
    }

    #[test]
    fn rss_categories_are_tags() {
        let tags = tags_of(
            r#"<rss version="2.0"><channel><title>N</title><category>Channel</category>
               <item><link>https://news.example/a</link><category>Energy</category>
               <category domain="https://news.example/t"> EU  policy </category>
               <category>energy</category><category> </category></item>
               <item><link>https://news.example/b</link></item></channel></rss>"#,
        );
        assert_eq!(tags, [vec!["Energy", "EU policy"], vec![]]);
    }

    #[test]
    fn atom_categories_are_their_terms_else_their_labels() {
        let tags = tags_of(
            r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>N</title><id>n</id>
               <updated>2024-01-01T00:00:00Z</updated>
               <entry><id>a</id><title>A</title><updated>2024-01-01T00:00:00Z</updated>
               <link href="https://news.example/a"/>
               <category term="grid" label="The grid"/><category term="" label="Solar power"/>
               <category scheme="https://news.example/s" term="Grid"/></entry></feed>"#,
        );
        assert_eq!(tags, [vec!["grid", "Solar power"]]);
    }

    #[test]
    fn json_feed_tags_are_tags() {
        let tags = tags_of(
            r#"{"version": "https://jsonfeed.org/version/1.1", "title": "N",
                "items": [{"id": "a", "url": "https://news.example/a",
                           "content_text": "x", "tags": ["Wind", " wind ", "Offshore\t  wind"]}]}"#,
        );
        assert_eq!(tags, [vec!["Wind", "Offshore wind"]]);
    }

    #[test]
    fn tags_are_trimmed_collapsed_and_deduplicated_without_regard_to_case() {
        let tags = normalize([
            " Energy ",
            "EU\t policy",
            "",
            "  ",
            "energy",
            "eu POLICY",
            "Gas",
        ]);
        assert_eq!(tags, ["Energy", "EU policy", "Gas"]);
    }
}
