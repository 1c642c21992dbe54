//! The JSON Feed pass before `feed-rs`: every value of the wrong type made right or dropped,
//! item by item, so that one odd item costs that item (or that field), not the feed.
//!
//! `feed-rs` reads JSON Feed with serde into typed structs, so one `"id": 12345`, `"title":
//! ["x"]` or `"authors": "bob"` anywhere fails the whole document. This pass reads the
//! document as plain JSON values and, following JSON Feed 1.1:
//!
//! - coerces what the specification allows: an item's numeric `id` becomes its string ("if
//!   it is a number, coerce it to a string");
//! - drops an optional field of the wrong type (a URL that is a number, authors that are a
//!   string, a tag that is not a string, an attachment without a string `url` and
//!   `mime_type`); a feed `title` that is not a string becomes empty;
//! - sets aside an item it cannot use (not an object, or an `id` that is neither a string nor
//!   a number) as an [`UnusableEntry`].
//!
//! A document that is not a JSON object, or whose `version` or `items` are wrong, is handed
//! to `feed-rs` unchanged: its error is the one to report.

use serde_json::{Map, Value};

use super::{Unusable, UnusableEntry};

/// A JSON Feed ready for `feed-rs`.
#[derive(Debug)]
pub(super) struct CleanJson {
    pub document: String,
    /// Items that cannot be read, each with the reason.
    pub unusable: Vec<UnusableEntry>,
}

/// Optional string fields of the feed object.
const FEED_STRINGS: &[&str] = &[
    "home_page_url",
    "feed_url",
    "description",
    "user_comment",
    "next_url",
    "icon",
    "favicon",
    "language",
];

/// Optional string fields of an item.
const ITEM_STRINGS: &[&str] = &[
    "url",
    "external_url",
    "title",
    "content_html",
    "content_text",
    "summary",
    "image",
    "banner_image",
    "date_published",
    "date_modified",
    "language",
];

/// Optional string fields of an author.
const AUTHOR_STRINGS: &[&str] = &["name", "url", "avatar"];

/// Cleans the text of a JSON Feed; `None` when it is not a JSON object with an `items` array.
pub(super) fn clean(text: &str) -> Option<CleanJson> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let Ok(Value::Object(mut feed)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    let Some(Value::Array(items)) = feed.remove("items") else {
        return None;
    };
    if !matches!(feed.get("title"), Some(Value::String(_))) {
        feed.insert("title".into(), Value::String(String::new()));
    }
    keep_strings(&mut feed, FEED_STRINGS);
    clean_authors(&mut feed);
    let mut kept = Vec::with_capacity(items.len());
    let mut unusable = Vec::new();
    for (position, item) in items.into_iter().enumerate() {
        match clean_item(item) {
            Ok(item) => kept.push(Value::Object(item)),
            Err((name, reason)) => unusable.push(UnusableEntry {
                name: name.unwrap_or_else(|| format!("#{}", position + 1)),
                reason: Unusable::Unreadable(reason.into()),
            }),
        }
    }
    feed.insert("items".into(), Value::Array(kept));
    Some(CleanJson {
        document: Value::Object(feed).to_string(),
        unusable,
    })
}

/// One item with its fields made right, or what to call it and why it cannot be used.
fn clean_item(item: Value) -> Result<Map<String, Value>, (Option<String>, &'static str)> {
    let Value::Object(mut item) = item else {
        return Err((None, "the item is not an object"));
    };
    match item.get("id") {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(Value::Number(number)) => {
            let id = number.to_string();
            item.insert("id".into(), Value::String(id));
        }
        Some(_) => {
            let title = item
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_string);
            return Err((title, "its id is neither a string nor a number"));
        }
    }
    keep_strings(&mut item, ITEM_STRINGS);
    clean_authors(&mut item);
    if let Some(Value::Array(tags)) = item.remove("tags") {
        let tags: Vec<Value> = tags.into_iter().filter(Value::is_string).collect();
        item.insert("tags".into(), Value::Array(tags));
    }
    if let Some(Value::Array(attachments)) = item.remove("attachments") {
        let attachments: Vec<Value> = attachments
            .into_iter()
            .filter_map(clean_attachment)
            .collect();
        item.insert("attachments".into(), Value::Array(attachments));
    }
    Ok(item)
}

/// An attachment with a string `url` and `mime_type` (both required), its other fields made
/// right; `None` without them.
fn clean_attachment(attachment: Value) -> Option<Value> {
    let Value::Object(mut attachment) = attachment else {
        return None;
    };
    let required = ["url", "mime_type"];
    if !required
        .iter()
        .all(|key| matches!(attachment.get(*key), Some(Value::String(_))))
    {
        return None;
    }
    keep_strings(&mut attachment, &["title"]);
    if attachment
        .get("size_in_bytes")
        .is_some_and(|size| size.as_u64().is_none())
    {
        attachment.remove("size_in_bytes");
    }
    Some(Value::Object(attachment))
}

/// `author` (JSON Feed 1.0) and `authors` (1.1) of a feed or item: a value that is not an
/// object (or, for `authors`, not an array of them) is dropped.
fn clean_authors(object: &mut Map<String, Value>) {
    if let Some(Value::Object(mut author)) = object.remove("author") {
        keep_strings(&mut author, AUTHOR_STRINGS);
        object.insert("author".into(), Value::Object(author));
    }
    if let Some(Value::Array(authors)) = object.remove("authors") {
        let authors: Vec<Value> = authors
            .into_iter()
            .filter_map(|author| match author {
                Value::Object(mut author) => {
                    keep_strings(&mut author, AUTHOR_STRINGS);
                    Some(Value::Object(author))
                }
                _ => None,
            })
            .collect();
        object.insert("authors".into(), Value::Array(authors));
    }
}

/// Removes each of `keys` whose value is not a string.
fn keep_strings(object: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if object.get(*key).is_some_and(|value| !value.is_string()) {
            object.remove(*key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_values_are_coerced_or_dropped_and_unusable_items_named() {
        let text = r#"{"version": "https://jsonfeed.org/version/1.1", "title": 7,
            "home_page_url": ["x"], "authors": "bob",
            "items": [
                {"id": 12345, "url": "https://a.example/1", "title": ["x"], "authors": "bob",
                 "tags": ["a", 1], "attachments": [{"url": 1}, {"url": "https://a.example/x.mp3",
                 "mime_type": "audio/mpeg", "size_in_bytes": -3}]},
                "not an item",
                {"id": {"a": 1}, "title": "Odd id"}
            ]}"#;
        let clean = clean(text).expect("a JSON Feed");
        let value: Value = serde_json::from_str(&clean.document).expect("JSON");
        assert_eq!(value["title"], "");
        assert!(value.get("home_page_url").is_none());
        assert!(value.get("authors").is_none());
        let items = value["items"].as_array().expect("items");
        assert_eq!(items.len(), 1);
        assert_eq!(items[0]["id"], "12345");
        assert!(items[0].get("title").is_none());
        assert_eq!(items[0]["tags"], serde_json::json!(["a"]));
        assert_eq!(
            items[0]["attachments"],
            serde_json::json!([{"url": "https://a.example/x.mp3", "mime_type": "audio/mpeg"}])
        );
        let names: Vec<&str> = clean.unusable.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["#2", "Odd id"]);
    }

    #[test]
    fn what_is_not_a_json_feed_is_left_to_the_parser() {
        assert!(clean("<rss/>").is_none());
        assert!(clean("{\"items\": 3}").is_none());
        assert!(clean("{ not json").is_none());
    }
}
