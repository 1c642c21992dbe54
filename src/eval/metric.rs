//! The Scrapinghub article-extraction-benchmark metric (its `evaluate.py`), so that our
//! figures compare with the published ones.
//!
//! Tokens are the matches of Python's Unicode `\w+`, which is letters, numbers and the
//! underscore: `[\p{L}\p{N}_]+`. Rust's `\w` also takes combining marks and joiners, so it is
//! deliberately not used. Shingles are the multiset of 4-token windows; a text of one to three
//! tokens is one shorter shingle; no tokens, no shingles.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

/// Python's `\w+` with `re.UNICODE`: letters, numbers, underscore.
static TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    // The pattern is a constant; failing to compile it is a programming error caught by tests.
    Regex::new(r"[\p{L}\p{N}_]+").unwrap_or_else(|err| panic!("token regex: {err}"))
});

/// The width of a shingle.
pub const SHINGLE: usize = 4;

/// A page scored below this F1 is a poor extraction: the line `quality_auc` measures the
/// quality estimate against (`../specs/cli.md`, "Evaluation").
pub const POOR_F1: f64 = 0.8;

/// The tokens of `text`, in order.
pub fn tokenize(text: &str) -> Vec<&str> {
    TOKEN.find_iter(text).map(|m| m.as_str()).collect()
}

/// The multiset of shingles of a token list.
pub fn shingles<'a>(tokens: &[&'a str]) -> HashMap<Vec<&'a str>, usize> {
    let mut counts = HashMap::new();
    if tokens.is_empty() {
        return counts;
    }
    if tokens.len() < SHINGLE {
        counts.insert(tokens.to_vec(), 1);
        return counts;
    }
    for window in tokens.windows(SHINGLE) {
        *counts.entry(window.to_vec()).or_insert(0) += 1;
    }
    counts
}

/// The per-page counts of one prediction against its gold text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PageCounts {
    pub tp: usize,
    pub fp: usize,
    pub fn_: usize,
    /// The predicted token list equals the gold's exactly.
    pub exact: bool,
    /// The prediction has at least one token.
    pub predicted: bool,
    /// The gold has at least one token.
    pub gold: bool,
}

impl PageCounts {
    /// precision = tp/(tp+fp), 1 when fp = fn = 0.
    pub fn precision(&self) -> f64 {
        if self.fp == 0 && self.fn_ == 0 {
            return 1.0;
        }
        ratio(self.tp, self.tp + self.fp)
    }

    /// recall = tp/(tp+fn), 1 when fp = fn = 0.
    pub fn recall(&self) -> f64 {
        if self.fp == 0 && self.fn_ == 0 {
            return 1.0;
        }
        ratio(self.tp, self.tp + self.fn_)
    }

    /// F1 of this page alone (used to calibrate, not in the benchmark's summary).
    pub fn f1(&self) -> f64 {
        f1(self.precision(), self.recall())
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// 2PR/(P+R), 0 when both are 0.
pub fn f1(precision: f64, recall: f64) -> f64 {
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// Scores one prediction against one gold text.
pub fn score_page(gold: &str, predicted: &str) -> PageCounts {
    let gold_tokens = tokenize(gold);
    let pred_tokens = tokenize(predicted);
    let gold_shingles = shingles(&gold_tokens);
    let pred_shingles = shingles(&pred_tokens);
    let mut counts = PageCounts {
        exact: gold_tokens == pred_tokens,
        predicted: !pred_tokens.is_empty(),
        gold: !gold_tokens.is_empty(),
        ..PageCounts::default()
    };
    for (shingle, &pred) in &pred_shingles {
        let gold = gold_shingles.get(shingle).copied().unwrap_or(0);
        counts.tp += pred.min(gold);
        counts.fp += pred.saturating_sub(gold);
    }
    for (shingle, &gold) in &gold_shingles {
        let pred = pred_shingles.get(shingle).copied().unwrap_or(0);
        counts.fn_ += gold.saturating_sub(pred);
    }
    counts
}

/// The benchmark's summary over many pages.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Summary {
    pub pages: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub accuracy: f64,
    pub empty: usize,
}

/// Precision averaged over pages with a non-empty prediction, recall over pages with a
/// non-empty gold, F1 of the two means, accuracy the share of exact token lists.
pub fn summarize(pages: &[PageCounts]) -> Summary {
    let mut precision_sum = 0.0;
    let mut precision_n = 0usize;
    let mut recall_sum = 0.0;
    let mut recall_n = 0usize;
    let mut exact = 0usize;
    let mut empty = 0usize;
    for page in pages {
        if page.predicted {
            precision_sum += page.precision();
            precision_n += 1;
        } else {
            empty += 1;
        }
        if page.gold {
            recall_sum += page.recall();
            recall_n += 1;
        }
        if page.exact {
            exact += 1;
        }
    }
    let precision = if precision_n == 0 {
        0.0
    } else {
        precision_sum / precision_n as f64
    };
    let recall = if recall_n == 0 {
        0.0
    } else {
        recall_sum / recall_n as f64
    };
    Summary {
        pages: pages.len(),
        precision,
        recall,
        f1: f1(precision, recall),
        accuracy: ratio(exact, pages.len()),
        empty,
    }
}
