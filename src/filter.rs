//! Entry filters: which entries of a feed become articles.
//!
//! Owns [`Rule`] (`"field:regex"`, the field one of [`Field`]) and [`Filters`], a feed's
//! `keep` and `block` lists, and the one judgement over them: an entry is blocked when any
//! block rule matches, or when keep rules exist and none matches. Pure: the pipeline hands in
//! an entry's fields as a [`Candidate`] and stores the [`Decision`].
//!
//! A feed entry may carry no text (no summary); a `text:` rule cannot answer for it, so the
//! judgement says [`Decision::NeedsText`] when such a rule could still change the outcome, and
//! the pipeline judges again with the extracted article's text. Regexes are the `regex`
//! crate's (linear time: no rule can stall a poll); `(?i)` makes one case-insensitive.

use std::fmt;
use std::str::FromStr;

use regex::Regex;

/// The most compiled size one rule's regex may take (the `regex` crate's own default is 10 MiB).
const MAX_REGEX_BYTES: usize = 1 << 20;

/// The entry field a rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The entry's title.
    Title,
    /// The entry's summary; the article's extracted text when the entry has none.
    Text,
    /// The entry's author (empty when it names none).
    Author,
    /// The article link.
    Url,
}

impl Field {
    pub const ALL: [Field; 4] = [Field::Title, Field::Text, Field::Author, Field::Url];

    pub fn as_str(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Text => "text",
            Field::Author => "author",
            Field::Url => "url",
        }
    }
}

impl FromStr for Field {
    type Err = RuleError;

    fn from_str(name: &str) -> Result<Field, RuleError> {
        Field::ALL
            .into_iter()
            .find(|field| field.as_str() == name.trim())
            .ok_or_else(|| RuleError::UnknownField {
                field: name.trim().to_string(),
            })
    }
}

/// Why a rule's text is not a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("`{rule}` is not FIELD:REGEX (fields: title, text, author, url)")]
    NoField { rule: String },
    #[error("unknown field `{field}` (fields: title, text, author, url)")]
    UnknownField { field: String },
    #[error("invalid regex `{pattern}`: {detail}")]
    BadRegex { pattern: String, detail: String },
}

/// One `"field:regex"` rule.
#[derive(Debug, Clone)]
pub struct Rule {
    field: Field,
    pattern: Regex,
}

impl Rule {
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let (field, pattern) = text.split_once(':').ok_or_else(|| RuleError::NoField {
            rule: text.to_string(),
        })?;
        let field = field.parse::<Field>()?;
        let pattern = regex::RegexBuilder::new(pattern)
            .size_limit(MAX_REGEX_BYTES)
            .build()
            .map_err(|e| RuleError::BadRegex {
                pattern: pattern.to_string(),
                // The crate's message spans several lines; its last says what is wrong.
                detail: e
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            })?;
        Ok(Rule { field, pattern })
    }

    pub fn field(&self) -> Field {
        self.field
    }

    /// Whether the rule matches, or `None` when the candidate lacks the field's value.
    fn matches(&self, candidate: &Candidate<'_>) -> Option<bool> {
        let value = match self.field {
            Field::Title => candidate.title,
            Field::Text => candidate.text?,
            Field::Author => candidate.author.unwrap_or_default(),
            Field::Url => candidate.url,
        };
        Some(self.pattern.is_match(value))
    }
}

/// The rule as written in the configuration.
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.field.as_str(), self.pattern.as_str())
    }
}

impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        self.field == other.field && self.pattern.as_str() == other.pattern.as_str()
    }
}

/// A feed's `keep` and `block` lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filters {
    pub keep: Vec<Rule>,
    pub block: Vec<Rule>,
}

/// What a filter reads of an entry.
#[derive(Debug, Clone, Copy, Default)]
pub struct Candidate<'a> {
    pub title: &'a str,
    /// `None` when the entry has no text of its own: `text:` rules wait for the article.
    pub text: Option<&'a str>,
    pub author: Option<&'a str>,
    pub url: &'a str,
}

/// Why an entry is blocked, as recorded with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocked {
    /// This block rule matched.
    ByRule(String),
    /// Keep rules exist and none matched.
    NoKeepRule,
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Blocked::ByRule(rule) => write!(f, "block {rule}"),
            Blocked::NoKeepRule => f.write_str("no keep rule matched"),
        }
    }
}

/// The outcome of filtering one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Pass,
    Blocked(Blocked),
    /// Only the article's text can decide: judge again with it.
    NeedsText,
}

impl Filters {
    pub fn is_empty(&self) -> bool {
        self.keep.is_empty() && self.block.is_empty()
    }

    /// Judges one entry: blocked when a block rule matches, or when keep rules exist and
    /// none matches; undecided while a rule lacking its value could still change that.
    pub fn judge(&self, candidate: &Candidate<'_>) -> Decision {
        let mut undecided = false;
        for rule in &self.block {
            match rule.matches(candidate) {
                Some(true) => return Decision::Blocked(Blocked::ByRule(rule.to_string())),
                Some(false) => {}
                None => undecided = true,
            }
        }
        if !self.keep.is_empty() {
            let answers: Vec<Option<bool>> = self
                .keep
                .iter()
                .map(|rule| rule.matches(candidate))
                .collect();
            if !answers.contains(&Some(true)) {
                if !answers.contains(&None) {
                    return Decision::Blocked(Blocked::NoKeepRule);
                }
                undecided = true;
            }
        }
        if undecided {
            Decision::NeedsText
        } else {
            Decision::Pass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filters(keep: &[&str], block: &[&str]) -> Filters {
        let rules = |texts: &[&str]| {
            texts
                .iter()
                .map(|t| Rule::parse(t).expect("a valid rule"))
                .collect()
        };
        Filters {
            keep: rules(keep),
            block: rules(block),
        }
    }

    fn entry<'a>(title: &'a str, text: Option<&'a str>) -> Candidate<'a> {
        Candidate {
            title,
            text,
            author: Some("Ann Writer"),
            url: "https://example.org/news/1",
        }
    }

    #[test]
    fn rules_name_a_known_field_and_a_valid_regex() {
        assert_eq!(
            Rule::parse("title:^Sponsored").map(|r| r.to_string()),
            Ok("title:^Sponsored".to_string())
        );
        assert_eq!(
            Rule::parse("url:https://x.org/a:b").map(|r| r.field()),
            Ok(Field::Url)
        );
        assert!(matches!(
            Rule::parse("headline:x"),
            Err(RuleError::UnknownField { field }) if field == "headline"
        ));
        assert!(matches!(
            Rule::parse("Sponsored"),
            Err(RuleError::NoField { .. })
        ));
        assert!(matches!(
            Rule::parse("title:(unclosed"),
            Err(RuleError::BadRegex { .. })
        ));
    }

    #[test]
    fn no_rules_pass_everything() {
        assert_eq!(
            Filters::default().judge(&entry("Anything", None)),
            Decision::Pass
        );
    }

    #[test]
    fn a_matching_block_rule_blocks() {
        let filters = filters(&[], &["title:^Sponsored", "author:(?i)^bot$"]);
        assert_eq!(
            filters.judge(&entry("Sponsored: buy this", None)),
            Decision::Blocked(Blocked::ByRule("title:^Sponsored".into()))
        );
        assert_eq!(filters.judge(&entry("Real news", None)), Decision::Pass);
        let bot = Candidate {
            author: Some("BOT"),
            ..entry("Real news", None)
        };
        assert!(matches!(filters.judge(&bot), Decision::Blocked(_)));
    }

    #[test]
    fn keep_rules_block_what_none_of_them_match() {
        let filters = filters(&["title:(?i)rust", "url:/news/"], &[]);
        assert_eq!(filters.judge(&entry("Rust 2.0", None)), Decision::Pass);
        let elsewhere = Candidate {
            url: "https://example.org/blog/2",
            ..entry("Gardening", None)
        };
        assert_eq!(
            filters.judge(&elsewhere),
            Decision::Blocked(Blocked::NoKeepRule)
        );
    }

    #[test]
    fn a_block_rule_wins_over_a_keep_rule() {
        let filters = filters(&["title:Rust"], &["title:Sponsored"]);
        assert!(matches!(
            filters.judge(&entry("Sponsored Rust course", None)),
            Decision::Blocked(Blocked::ByRule(_))
        ));
    }

    #[test]
    fn text_rules_wait_for_the_article_when_the_entry_has_no_text() {
        let block = filters(&[], &["text:casino"]);
        assert_eq!(block.judge(&entry("Hello", None)), Decision::NeedsText);
        assert_eq!(block.judge(&entry("Hello", Some("news"))), Decision::Pass);
        assert!(matches!(
            block.judge(&entry("Hello", Some("casino bonus"))),
            Decision::Blocked(_)
        ));

        let keep = filters(&["text:election"], &[]);
        assert_eq!(keep.judge(&entry("Hello", None)), Decision::NeedsText);
        assert_eq!(
            keep.judge(&entry("Hello", Some("sports"))),
            Decision::Blocked(Blocked::NoKeepRule)
        );
    }

    #[test]
    fn what_the_entry_alone_decides_needs_no_text() {
        // A title block rule decides before any text rule.
        let filters = filters(&[], &["title:^Ad", "text:casino"]);
        assert!(matches!(
            filters.judge(&entry("Ad: cheap", None)),
            Decision::Blocked(_)
        ));
        // A keep rule met by the title, with no text block rule: kept at once.
        let keep = self::filters(&["title:Rust", "text:rust"], &[]);
        assert_eq!(keep.judge(&entry("Rust news", None)), Decision::Pass);
        // Kept by the title, but a text block rule may still block it.
        let both = self::filters(&["title:Rust"], &["text:casino"]);
        assert_eq!(both.judge(&entry("Rust news", None)), Decision::NeedsText);
    }
}
