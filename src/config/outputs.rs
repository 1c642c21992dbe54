//! `[[outputs]]`: the full-text feeds gleaner serves to feed readers (docs/api.md#outputs).
//!
//! Owns [`OutputConfig`] and its validation: a unique name that is one path segment, which
//! feeds (configured ones only), tags and page types an output carries, near-duplicates left
//! out or not, a least quality, how many items (bounded), the consumer whose result is the
//! items' summary, and the output's own read-only key, which its `Debug` never shows. Serving
//! is `crate::api::outputs`; rendering is `crate::outputs`.

use std::collections::HashSet;
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::ConfigError;
use super::feed::Secret;
use crate::extract::page_type::PageType;

/// Items of an output when `items` is absent, and at most.
pub const DEFAULT_OUTPUT_ITEMS: usize = 50;
pub const MAX_OUTPUT_ITEMS: usize = 500;
/// The shortest key: guessing one must be hopeless (16 characters of 64 kinds: 96 bits).
pub const MIN_OUTPUT_KEY_CHARS: usize = 16;
const MAX_NAME_CHARS: usize = 64;
/// The result field read as the summary when `summary_field` is absent.
pub const DEFAULT_SUMMARY_FIELD: &str = "summary";

/// One `[[outputs]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputConfig {
    /// The name in its URLs: `/outputs/{name}.atom`, `/outputs/{name}.json`.
    pub name: String,
    /// `title`: the feed's title; else `gleaner: {name}`.
    pub title: Option<String>,
    /// Only articles these feeds list; `None`: every feed.
    pub feeds: Option<Vec<String>>,
    /// Only articles with one of these tags (normalized); `None`: whatever their tags.
    pub tags: Option<Vec<String>>,
    /// Only articles of these page types; `None`: of any.
    pub page_types: Option<Vec<PageType>>,
    /// One item per near-duplicate cluster: its representative.
    pub skip_duplicates: bool,
    /// Only articles whose quality is at least this (those without one pass).
    pub min_quality: Option<f64>,
    /// The newest this many articles are the items.
    pub items: usize,
    /// `summary_from`: the consumer whose result gives each item its summary, and
    /// `summary_field`, the result's string field read (`summary` by default).
    pub summary: Option<SummarySource>,
    /// The read-only key of the output's URLs (`?key=`); never logged.
    pub key: Secret,
}

/// Where an output's item summaries come from: one consumer's claim results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummarySource {
    pub consumer: String,
    /// The string field of the result that is the summary.
    pub field: String,
}

/// `[[outputs]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOutput {
    name: Spanned<String>,
    title: Option<String>,
    feeds: Option<Vec<Spanned<String>>>,
    tags: Option<Vec<String>>,
    page_types: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    skip_duplicates: bool,
    min_quality: Option<Spanned<f64>>,
    items: Option<Spanned<u64>>,
    summary_from: Option<Spanned<String>>,
    summary_field: Option<Spanned<String>>,
    key: Spanned<String>,
}

/// Validates every `[[outputs]]` entry against the configured feed names: each entry's
/// first error goes to `errors` and the next entry is checked.
pub(super) fn validate(
    raw: Vec<RawOutput>,
    feed_names: &HashSet<String>,
    at: impl Fn(Range<usize>, String) -> ConfigError,
    errors: &mut Vec<ConfigError>,
) -> Vec<OutputConfig> {
    let mut names = HashSet::new();
    let mut keys = HashSet::new();
    let mut outputs = Vec::with_capacity(raw.len());
    for output in raw {
        match validate_output(output, feed_names, (&mut names, &mut keys), &at) {
            Ok(output) => outputs.push(output),
            Err(error) => errors.push(error),
        }
    }
    outputs
}

/// One `[[outputs]]` entry, given the names and keys of the entries before it.
fn validate_output(
    output: RawOutput,
    feed_names: &HashSet<String>,
    (names, keys): (&mut HashSet<String>, &mut HashSet<String>),
    at: &impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<OutputConfig, ConfigError> {
    let error = |span: Range<usize>, key: &str, message: String| {
        at(span, format!("[[outputs]] {key}: {message}"))
    };
    let name = output.name.get_ref().trim().to_string();
    check_name(&name).map_err(|m| error(output.name.span(), "name", m))?;
    if !names.insert(name.clone()) {
        return Err(error(
            output.name.span(),
            "name",
            format!("`{name}` is configured twice"),
        ));
    }
    let key = output.key.get_ref().trim().to_string();
    check_key(&key).map_err(|m| error(output.key.span(), "key", m))?;
    if !keys.insert(key.clone()) {
        return Err(error(
            output.key.span(),
            "key",
            "another output has this key: give each its own".to_string(),
        ));
    }
    let selection = Selection::of(&output, feed_names, &error)?;
    let summary = summary_source(&output, &error)?;
    Ok(OutputConfig {
        name,
        title: output.title.filter(|title| !title.trim().is_empty()),
        feeds: selection.feeds,
        tags: selection.tags,
        page_types: selection.page_types,
        skip_duplicates: output.skip_duplicates,
        min_quality: selection.min_quality,
        items: selection.items,
        summary,
        key: Secret::new(key),
    })
}

/// What an output carries, checked.
struct Selection {
    feeds: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    page_types: Option<Vec<PageType>>,
    min_quality: Option<f64>,
    items: usize,
}

impl Selection {
    fn of(
        output: &RawOutput,
        feed_names: &HashSet<String>,
        error: &impl Fn(Range<usize>, &str, String) -> ConfigError,
    ) -> Result<Selection, ConfigError> {
        let feeds = match &output.feeds {
            None => None,
            Some(names) => Some(
                names
                    .iter()
                    .map(|name| {
                        let trimmed = name.get_ref().trim();
                        if feed_names.contains(trimmed) {
                            Ok(trimmed.to_string())
                        } else {
                            Err(error(
                                name.span(),
                                "feeds",
                                format!("no feed is named `{trimmed}`"),
                            ))
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let page_types = match &output.page_types {
            None => None,
            Some(names) => Some(
                names
                    .iter()
                    .map(|name| {
                        name.get_ref()
                            .trim()
                            .parse::<PageType>()
                            .map_err(|m| error(name.span(), "page_types", m.to_string()))
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let min_quality = match &output.min_quality {
            Some(value) if !(0.0..=1.0).contains(value.get_ref()) => {
                return Err(error(
                    value.span(),
                    "min_quality",
                    "must be a number from 0 to 1".to_string(),
                ));
            }
            value => value.as_ref().map(|value| *value.get_ref()),
        };
        let items = match &output.items {
            None => DEFAULT_OUTPUT_ITEMS,
            Some(items) => match usize::try_from(*items.get_ref()) {
                Ok(n) if (1..=MAX_OUTPUT_ITEMS).contains(&n) => n,
                _ => {
                    return Err(error(
                        items.span(),
                        "items",
                        format!("must be from 1 to {MAX_OUTPUT_ITEMS}"),
                    ));
                }
            },
        };
        Ok(Selection {
            feeds: feeds.filter(|feeds| !feeds.is_empty()),
            tags: output
                .tags
                .as_ref()
                .map(crate::feed::tags::normalize)
                .filter(|tags| !tags.is_empty()),
            page_types: page_types.filter(|types| !types.is_empty()),
            min_quality,
            items,
        })
    }
}

/// `summary_from` and `summary_field` (which needs `summary_from`).
fn summary_source(
    output: &RawOutput,
    error: &impl Fn(Range<usize>, &str, String) -> ConfigError,
) -> Result<Option<SummarySource>, ConfigError> {
    let field = match &output.summary_field {
        Some(field) if field.get_ref().trim().is_empty() => {
            return Err(error(
                field.span(),
                "summary_field",
                "must not be empty".to_string(),
            ));
        }
        field => field
            .as_ref()
            .map(|field| field.get_ref().trim().to_string()),
    };
    let Some(consumer) = &output.summary_from else {
        return match &output.summary_field {
            Some(field) => Err(error(
                field.span(),
                "summary_field",
                "needs `summary_from`, the consumer whose result holds it".to_string(),
            )),
            None => Ok(None),
        };
    };
    let name = consumer.get_ref().trim();
    if name.is_empty() || !name.bytes().all(is_name_byte) {
        return Err(error(
            consumer.span(),
            "summary_from",
            "must name a consumer: letters, digits, '.', '_', '-' or ':'".to_string(),
        ));
    }
    Ok(Some(SummarySource {
        consumer: name.to_string(),
        field: field.unwrap_or_else(|| DEFAULT_SUMMARY_FIELD.to_string()),
    }))
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-' | b':')
}

/// An output's name is one segment of its URLs: letters, digits, `_` and `-`.
fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    if valid {
        Ok(())
    } else {
        Err(format!(
            "`{name}` must be 1 to {MAX_NAME_CHARS} letters, digits, '_' or '-' (it is part of \
             the output's URLs)"
        ))
    }
}

/// A key stands in a URL as it is written: letters, digits, `-`, `_`, `.`, `~`, and long
/// enough not to be guessed.
fn check_key(key: &str) -> Result<(), String> {
    if key.len() < MIN_OUTPUT_KEY_CHARS {
        return Err(format!(
            "must be at least {MIN_OUTPUT_KEY_CHARS} characters (`openssl rand -hex 16` makes one)"
        ));
    }
    if !key
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'))
    {
        return Err("must be letters, digits, '-', '_', '.' or '~' only".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_path_segment() {
        assert!(check_name("tech-news_2").is_ok());
        for bad in ["", "a/b", "a.atom", "with space", "ü"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }

    fn parse(outputs: &str) -> Result<crate::config::Config, String> {
        let text = format!(
            "[api]\nlisten = \"127.0.0.1:8080\"\n\
             [[feeds]]\nname = \"news\"\nurl = \"https://news.example/feed\"\n{outputs}"
        );
        crate::config::Config::parse(&text, std::path::Path::new("config.toml"), None)
            .map_err(|error| error.to_string())
    }

    #[test]
    fn an_output_is_read_with_its_defaults_and_handed_to_the_api() {
        let config = parse(
            "[[outputs]]\nname = \"tech\"\nkey = \"0123456789abcdef\"\n\
             feeds = [\"news\"]\ntags = [\" Energy  policy \"]\nsummary_from = \"summarizer\"\n",
        )
        .expect("valid");
        let output = &config.outputs[0];
        assert_eq!(output.items, DEFAULT_OUTPUT_ITEMS);
        assert_eq!(
            output.tags.as_deref(),
            Some(&["Energy policy".to_string()][..])
        );
        let summary = output.summary.as_ref().expect("a summary source");
        assert_eq!(summary.field, DEFAULT_SUMMARY_FIELD);
        assert_eq!(
            config.api.map(|api| api.outputs),
            Some(config.outputs.clone())
        );
        assert!(!format!("{output:?}").contains("0123456789abcdef"));
    }

    #[test]
    fn each_mistake_names_its_key_and_line() {
        let key = "key = \"0123456789abcdef\"\n";
        let cases = [
            (
                format!("[[outputs]]\nname = \"a\"\n{key}feeds = [\"nope\"]\n"),
                "feeds: no feed is named `nope`",
            ),
            (
                "[[outputs]]\nname = \"a\"\nkey = \"short\"\n".to_string(),
                "key: must be at least",
            ),
            (format!("[[outputs]]\nname = \"a/b\"\n{key}"), "name: `a/b`"),
            (
                format!("[[outputs]]\nname = \"a\"\n{key}items = 0\n"),
                "items: must be from 1 to 500",
            ),
            (
                format!("[[outputs]]\nname = \"a\"\n{key}min_quality = 2.0\n"),
                "min_quality",
            ),
            (
                format!("[[outputs]]\nname = \"a\"\n{key}summary_field = \"s\"\n"),
                "needs `summary_from`",
            ),
            (
                format!(
                    "[[outputs]]\nname = \"a\"\n{key}[[outputs]]\nname = \"a\"\nkey = \"fedcba9876543210\"\n"
                ),
                "configured twice",
            ),
            (
                format!("[[outputs]]\nname = \"a\"\n{key}[[outputs]]\nname = \"b\"\n{key}"),
                "another output has this key",
            ),
            (
                format!("[[outputs]]\nname = \"a\"\n{key}colour = 1\n"),
                "unknown key",
            ),
        ];
        for (outputs, expected) in cases {
            let error = parse(&outputs).expect_err(&outputs);
            assert!(error.contains(expected), "{outputs}: {error}");
            assert!(error.starts_with("config.toml:"), "{error}");
        }
    }

    #[test]
    fn keys_are_long_and_url_safe() {
        assert!(check_key("0123456789abcdef").is_ok());
        assert!(check_key("short").is_err());
        assert!(check_key("0123456789abcdef&x=1").is_err());
    }
}
