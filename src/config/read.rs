//! Reading `config.toml` as written, section by section.
//!
//! Each top-level table, and each entry of a list such as `[[feeds]]`, is deserialized on its
//! own, so that an unknown key or a value of the wrong type in one does not hide the errors of
//! the others. A table that cannot be read is left at its defaults and an entry that cannot be
//! read is left out; its error is kept, and the file is refused once every section is checked.

use serde::Deserialize;
use serde::de::IntoDeserializer as _;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{ConfigError, RawConfig, RawFeedList, feed};

/// The document's tables, taken out one by one, and the errors of those that could not be read.
struct Sections<'i, 'e, E> {
    table: DeTable<'i>,
    errors: &'e mut Vec<ConfigError>,
    toml_error: E,
}

impl<'i, E: Fn(toml::de::Error) -> ConfigError> Sections<'i, '_, E> {
    /// `[name]`, or its defaults when it is absent or cannot be read.
    fn table<T: Deserialize<'i> + Default>(&mut self, name: &str) -> T {
        self.optional(name).unwrap_or_default()
    }

    /// `[name]`, `None` when it is absent or cannot be read.
    fn optional<T: Deserialize<'i>>(&mut self, name: &str) -> Option<T> {
        let value = self.table.remove(name)?;
        T::deserialize(value.into_deserializer())
            .map_err(|e| self.errors.push((self.toml_error)(e)))
            .ok()
    }

    /// `[[name]]`, entry by entry; an entry that cannot be read is left out.
    fn list<T: Deserialize<'i>>(&mut self, name: &str) -> Option<Vec<T>> {
        let values = self.table.remove(name)?;
        let span = values.span();
        let entries = match values.into_inner() {
            DeValue::Array(entries) => entries,
            other => {
                // Not a list: the deserializer's complaint names what was expected.
                let value = Spanned::new(span, other);
                if let Err(e) = Vec::<T>::deserialize(value.into_deserializer()) {
                    self.errors.push((self.toml_error)(e));
                }
                return Some(Vec::new());
            }
        };
        let mut read = Vec::with_capacity(entries.len());
        for entry in entries {
            match T::deserialize(entry.into_deserializer()) {
                Ok(value) => read.push(value),
                Err(e) => self.errors.push((self.toml_error)(e)),
            }
        }
        Some(read)
    }

    /// Every key left once the known sections are taken is unknown: each is refused by
    /// deserializing it alone, which names the expected keys as serde does.
    fn refuse_the_rest(self, span: std::ops::Range<usize>) {
        for (key, value) in self.table {
            let mut alone = DeTable::new();
            alone.insert(key, value);
            let alone = Spanned::new(span.clone(), alone);
            if let Err(e) = RawConfig::deserialize(toml::de::Deserializer::from(alone)) {
                self.errors.push((self.toml_error)(e));
            }
        }
    }
}

impl RawConfig {
    /// Reads every section of `document`; the errors of those that cannot be read go to
    /// `errors`.
    pub(super) fn read(
        document: Spanned<DeTable<'_>>,
        errors: &mut Vec<ConfigError>,
        toml_error: impl Fn(toml::de::Error) -> ConfigError,
    ) -> RawConfig {
        let span = document.span();
        let mut sections = Sections {
            table: document.into_inner(),
            errors,
            toml_error,
        };
        let written_names = sections
            .table
            .get("feeds")
            .map(|feeds| feed_names_written(feeds.get_ref()))
            .unwrap_or_default();
        let feeds = sections.list::<feed::RawFeed>("feeds");
        // The struct literal names every field: a section added to `RawConfig` but not read
        // here does not compile.
        let raw = RawConfig {
            database: sections.table("database"),
            schedule: sections.table("schedule"),
            fetch: sections.table("fetch"),
            extract: sections.table("extract"),
            images: sections.table("images"),
            api: sections.optional("api"),
            daemon: sections.table("daemon"),
            retention: sections.optional("retention"),
            filters: sections.table("filters"),
            feeds: RawFeedList {
                written: feeds.is_some(),
                feeds: feeds.unwrap_or_default(),
                written_names,
            },
            webhooks: sections.list("webhooks").unwrap_or_default(),
            outputs: sections.list("outputs").unwrap_or_default(),
            sites: sections.list("sites").unwrap_or_default(),
        };
        sections.refuse_the_rest(span);
        raw
    }
}

/// The `name` of every `[[feeds]]` entry as the TOML has it, whether or not the entry is
/// valid: the names other sections may refer to without an error of their own.
fn feed_names_written(feeds: &DeValue<'_>) -> Vec<String> {
    let DeValue::Array(entries) = feeds else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| match entry.get_ref() {
            DeValue::Table(table) => table.get("name"),
            _ => None,
        })
        .filter_map(|name| match name.get_ref() {
            DeValue::String(name) => Some(name.trim().to_string()),
            _ => None,
        })
        .collect()
}
