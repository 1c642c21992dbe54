//! What a JSON-LD block declares that the detector reads: every schema.org `@type` (nested
//! objects and `@graph` included, to a bounded depth), how many of them are `Product`, and
//! whether an object names a `datePublished`.
//!
//! The block is read as it is parsed, through serde's visitor, without building the JSON
//! tree: a shop's or a news site's JSON-LD runs to thousands of keys and strings, and the tree
//! of them was most of the detector's allocations. A block that is not valid JSON declares
//! nothing, as if it were absent.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The visitor methods of the scalars a visitor reads nothing in: each gives `$value`.
macro_rules! ignore_scalars {
    ($value:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// Reads past a map whose entries say nothing read here.
fn skip_map<'de, A: MapAccess<'de>>(mut entries: A) -> Result<(), A::Error> {
    while entries.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// How deep in the block objects are read: deeper ones are a page's data, not its
/// description (reviews of reviews, nested offers).
const MAX_DEPTH: usize = 12;

/// What one block declares.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Declared {
    /// Every `@type`, its last path segment (`https://schema.org/Product` is `Product`).
    pub types: Vec<String>,
    /// Objects typed `Product`.
    pub products: usize,
    /// An object names a `datePublished`.
    pub dated: bool,
}

impl Declared {
    fn add_type(&mut self, name: &str) {
        let name = name.rsplit('/').next().unwrap_or(name);
        self.products += usize::from(name == "Product");
        if !self.types.iter().any(|known| known == name) {
            self.types.push(name.to_string());
        }
    }
}

/// What the JSON-LD `text` declares; nothing when it is not valid JSON. A block whose strings
/// hold raw line breaks or tabs (a description pasted into a template, which JSON forbids and
/// every reader of structured data accepts) is read with those characters as spaces: outside
/// strings they are whitespace anyway.
pub(super) fn read(text: &str) -> Declared {
    let text = text.trim();
    if let Some(declared) = read_strict(text) {
        return declared;
    }
    if text.bytes().any(|b| b.is_ascii_control()) {
        let spaced = text.replace(|c: char| c.is_ascii_control(), " ");
        return read_strict(&spaced).unwrap_or_default();
    }
    Declared::default()
}

/// A JSON-LD block as a JSON value, read as [`read`] reads it (raw control characters as
/// spaces when the block holds them and is invalid with them); `None` when it is not JSON.
pub(crate) fn value(text: &str) -> Option<serde_json::Value> {
    let text = text.trim();
    serde_json::from_str(text).ok().or_else(|| {
        if !text.bytes().any(|b| b.is_ascii_control()) {
            return None;
        }
        serde_json::from_str(&text.replace(|c: char| c.is_ascii_control(), " ")).ok()
    })
}

/// What valid JSON `text` declares; `None` when it is not valid JSON.
fn read_strict(text: &str) -> Option<Declared> {
    let mut declared = Declared::default();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let scan = Scan {
        declared: &mut declared,
        depth: 0,
    };
    let complete = scan.deserialize(&mut deserializer).is_ok() && deserializer.end().is_ok();
    complete.then_some(declared)
}

/// A value at `depth`: objects have their types read, arrays their items.
struct Scan<'a> {
    declared: &'a mut Declared,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if self.depth > MAX_DEPTH {
            return <IgnoredAny as de::Deserialize>::deserialize(deserializer).map(|_| ());
        }
        deserializer.deserialize_any(self)
    }
}

/// A map key: the two the detector reads, or any other.
enum Key {
    Type,
    DatePublished,
    Other,
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "@type" => Key::Type,
                    "datePublished" => Key::DatePublished,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }

    ignore_scalars!(());

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let depth = self.depth + 1;
        while items
            .next_element_seed(Scan {
                declared: &mut *self.declared,
                depth,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
        let depth = self.depth + 1;
        while let Some(key) = entries.next_key::<Key>()? {
            match key {
                Key::Type => entries.next_value_seed(TypeNames {
                    declared: &mut *self.declared,
                })?,
                Key::DatePublished => {
                    self.declared.dated = true;
                    entries.next_value::<IgnoredAny>()?;
                }
                Key::Other => entries.next_value_seed(Scan {
                    declared: &mut *self.declared,
                    depth,
                })?,
            }
        }
        Ok(())
    }
}

/// An `@type`'s value: a name, or a list of them (other values name nothing).
struct TypeNames<'a> {
    declared: &'a mut Declared,
}

impl<'de> DeserializeSeed<'de> for TypeNames<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TypeNames<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a type name or a list of them")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<(), E> {
        self.declared.add_type(name);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut names: A) -> Result<(), A::Error> {
        while let Some(name) = names.next_element::<Name>()? {
            if let Name::Some(name) = name {
                self.declared.add_type(&name);
            }
        }
        Ok(())
    }

    ignore_scalars!(());

    fn visit_map<A: MapAccess<'de>>(self, entries: A) -> Result<(), A::Error> {
        skip_map(entries)
    }
}

/// An item of an `@type` list: a name, or anything else (ignored).
enum Name {
    Some(String),
    None,
}

impl<'de> de::Deserialize<'de> for Name {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
        struct NameVisitor;
        impl<'de> Visitor<'de> for NameVisitor {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a type name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Name, E> {
                Ok(Name::Some(name.to_string()))
            }
            ignore_scalars!(Name::None);

            fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Name, A::Error> {
                while items.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Name::None)
            }
            fn visit_map<A: MapAccess<'de>>(self, entries: A) -> Result<Name, A::Error> {
                skip_map(entries).map(|()| Name::None)
            }
        }
        deserializer.deserialize_any(NameVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_in_a_graph_and_in_lists_are_read_with_products_and_dates() {
        let text = r#" {"@context":"https://schema.org","@graph":[
            {"@type":"WebPage","name":"x"},
            {"@type":["Product","Thing"],"offers":{"@type":"Offer","price":"9.50"}},
            {"@type":"https://schema.org/Product"},
            {"@type":"NewsArticle","datePublished":"2026-01-02","author":[{"@type":"Person"}]}
        ]} "#;
        let declared = read(text);
        assert_eq!(
            declared.types,
            [
                "WebPage",
                "Product",
                "Thing",
                "Offer",
                "NewsArticle",
                "Person"
            ]
        );
        assert_eq!(declared.products, 2);
        assert!(declared.dated);
    }

    #[test]
    fn raw_line_breaks_inside_strings_do_not_hide_the_types() {
        let text = "{\n\t\"@type\":\"DiscussionForumPosting\",\n\t\"description\":\"One line.\n\nAnother\tline.\"\n}";
        assert!(serde_json::from_str::<serde_json::Value>(text).is_err());
        assert_eq!(read(text).types, vec!["DiscussionForumPosting".to_string()]);
    }

    #[test]
    fn a_broken_block_declares_nothing_and_deep_objects_are_not_read() {
        assert_eq!(read(r#"{"@type":"Product", "#), Declared::default());
        assert_eq!(read(r#"{"@type":"Product"} trailing"#), Declared::default());
        let nested = |levels: usize| {
            format!(
                r#"{}{{"@type":"Product"}}{}"#,
                r#"{"a":"#.repeat(levels),
                "}".repeat(levels)
            )
        };
        assert_eq!(read(&nested(13)).types, Vec::<String>::new());
        let shallow = nested(12);
        assert_eq!(read(&shallow).types, ["Product"]);
    }
}
