//! Prometheus metrics: the process-wide counters and histograms the pipeline updates, and
//! their text exposition.
//!
//! The pipeline calls the plain functions ([`feed_polled`], [`article_stored`], [`failure`],
//! [`fetch_finished`], [`extraction_finished`]); they are cheap (one short lock) and never
//! fail. The registry is a process-wide `static`, the one global of the crate, because a
//! metric is by nature a count over the whole process. Values read from the database (stored
//! articles, feeds, claim queues) are not kept here: the `/metrics` handler of [`crate::api`]
//! reads them at scrape time and appends them with [`Exposition`].
//!
//! Every name starts with `gleaner_` and has a `# HELP` line. Label values come from small
//! fixed sets (statuses, stages, kinds, algorithm names), so the series stay few.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{LazyLock, Mutex, MutexGuard};

/// The content type of the text exposition format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Bucket upper bounds of the duration histograms, in seconds.
const SECONDS_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// A feed was polled; `status` is the word stored as its last status (`ok`,
/// `not_modified`, or the kind of error).
pub fn feed_polled(status: &str) {
    REGISTRY.feed_polls.inc(&[status], 1);
}

/// A new article was stored (duplicates are not counted).
pub fn article_stored() {
    REGISTRY.articles_stored.inc(&[], 1);
}

/// A new article was stored from its feed entry's own text instead of its page, which was
/// judged `verdict` (`blocked`, `teaser`, …; a page never had counts as `blocked` or
/// `not_found`).
pub fn article_from_feed_text(verdict: &str) {
    REGISTRY.articles_from_feed_text.inc(&[verdict], 1);
}

/// A feed entry was turned away by its feed's filters.
pub fn entry_blocked() {
    REGISTRY.entries_blocked.inc(&[], 1);
}

/// Something failed at pipeline `stage` (`feed`, `page`, `extract`, `image`, `store`, `webhook`) with a
/// short `kind` (`timeout`, `http_status`, …; at `extract`, the verdict on a page that is not
/// an article: `blocked`, `not_found`, …).
pub fn failure(stage: &str, kind: &str) {
    REGISTRY.failures.inc(&[stage, kind], 1);
}

/// A download of `kind` (`feed`, `page`, `image`, `robots`) ended after `seconds`, having
/// received `bytes`.
pub fn fetch_finished(kind: &str, seconds: f64, bytes: u64) {
    REGISTRY.fetch_seconds.observe(&[kind], seconds);
    REGISTRY.fetch_bytes.inc(&[kind], bytes);
}

/// An extraction by `algorithm` took `seconds`; `fell_back` when the cascade had to use a
/// second algorithm.
pub fn extraction_finished(algorithm: &str, seconds: f64, fell_back: bool) {
    REGISTRY.extraction_seconds.observe(&[algorithm], seconds);
    if fell_back {
        REGISTRY.extraction_fallbacks.inc(&[algorithm], 1);
    }
}

/// A webhook delivery was given up after its last attempt.
pub fn webhook_given_up() {
    REGISTRY.webhook_given_up.inc(&[], 1);
}

/// An HTTP API request was answered (`route` is the matched path pattern).
pub fn api_request(route: &str, status: u16) {
    let status = status.to_string();
    REGISTRY.api_requests.inc(&[route, status.as_str()], 1);
}

/// The text exposition of every process-wide metric, to which scrape-time gauges are
/// appended.
pub fn render() -> Exposition {
    let mut out = Exposition::default();
    let registry = &*REGISTRY;
    registry.feed_polls.render(&mut out);
    registry.articles_stored.render(&mut out);
    registry.articles_from_feed_text.render(&mut out);
    registry.entries_blocked.render(&mut out);
    registry.failures.render(&mut out);
    registry.fetch_seconds.render(&mut out);
    registry.fetch_bytes.render(&mut out);
    registry.extraction_seconds.render(&mut out);
    registry.extraction_fallbacks.render(&mut out);
    registry.api_requests.render(&mut out);
    registry.webhook_given_up.render(&mut out);
    out
}

/// Prometheus text being written: families with their `# HELP` and `# TYPE` lines.
#[derive(Debug, Default)]
pub struct Exposition {
    text: String,
}

impl Exposition {
    /// Starts a family.
    pub fn family(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.text, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    /// One sample of the current family.
    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (i, (label, value)) in labels.iter().enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let _ = write!(self.text, "{label}=\"{}\"", escape_label(value));
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {}", format_value(value));
    }

    /// A gauge family with one unlabelled sample.
    pub fn gauge(&mut self, name: &str, help: &str, value: f64) {
        self.family(name, "gauge", help);
        self.sample(name, &[], value);
    }

    pub fn finish(self) -> String {
        self.text
    }
}

fn format_value(value: f64) -> String {
    if value.is_infinite() {
        if value > 0.0 { "+Inf" } else { "-Inf" }.to_string()
    } else if value.is_nan() {
        "NaN".to_string()
    } else {
        value.to_string()
    }
}

fn escape_label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

struct Registry {
    feed_polls: CounterFamily,
    articles_stored: CounterFamily,
    articles_from_feed_text: CounterFamily,
    entries_blocked: CounterFamily,
    failures: CounterFamily,
    fetch_seconds: HistogramFamily,
    fetch_bytes: CounterFamily,
    extraction_seconds: HistogramFamily,
    extraction_fallbacks: CounterFamily,
    api_requests: CounterFamily,
    webhook_given_up: CounterFamily,
}

static REGISTRY: LazyLock<Registry> = LazyLock::new(|| Registry {
    feed_polls: CounterFamily::new(
        "gleaner_feed_polls_total",
        "Feed polls, by the status stored for the feed.",
        &["status"],
    ),
    articles_stored: CounterFamily::new(
        "gleaner_articles_stored_total",
        "New articles stored by this process.",
        &[],
    ),
    articles_from_feed_text: CounterFamily::new(
        "gleaner_articles_from_feed_text_total",
        "New articles stored from their feed entry's own text instead of their page, by the \
         verdict on the page.",
        &["verdict"],
    ),
    entries_blocked: CounterFamily::new(
        "gleaner_entries_blocked_total",
        "Feed entries turned away by their feed's keep/block filters.",
        &[],
    ),
    failures: CounterFamily::new(
        "gleaner_failures_total",
        "Recorded failures, by pipeline stage and kind (at stage extract, the verdict on a page \
         that is not an article).",
        &["stage", "kind"],
    ),
    fetch_seconds: HistogramFamily::new(
        "gleaner_fetch_duration_seconds",
        "Time taken by downloads, by kind of resource.",
        &["kind"],
    ),
    fetch_bytes: CounterFamily::new(
        "gleaner_fetch_bytes_total",
        "Bytes received by downloads, by kind of resource.",
        &["kind"],
    ),
    extraction_seconds: HistogramFamily::new(
        "gleaner_extraction_duration_seconds",
        "Time taken by article extraction, by the algorithm that produced the result.",
        &["algorithm"],
    ),
    extraction_fallbacks: CounterFamily::new(
        "gleaner_extraction_fallbacks_total",
        "Extractions where the cascade fell back to another algorithm, by the algorithm used.",
        &["algorithm"],
    ),
    api_requests: CounterFamily::new(
        "gleaner_api_requests_total",
        "HTTP API requests answered, by route and status code.",
        &["route", "status"],
    ),
    webhook_given_up: CounterFamily::new(
        "gleaner_webhook_deliveries_given_up_total",
        "Webhook deliveries given up after their last attempt (each also a failure at stage \
         webhook; `gleaner webhooks redeliver` sends them again).",
        &[],
    ),
});

/// A poisoned lock only means a panic elsewhere while counting: the numbers are still usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn key(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| (*v).to_string()).collect()
}

fn label_pairs<'a>(names: &'a [&'a str], values: &'a [String]) -> Vec<(&'a str, &'a str)> {
    names
        .iter()
        .copied()
        .zip(values.iter().map(String::as_str))
        .collect()
}

struct CounterFamily {
    name: &'static str,
    help: &'static str,
    labels: &'static [&'static str],
    series: Mutex<BTreeMap<Vec<String>, u64>>,
}

impl CounterFamily {
    fn new(name: &'static str, help: &'static str, labels: &'static [&'static str]) -> Self {
        CounterFamily {
            name,
            help,
            labels,
            series: Mutex::new(BTreeMap::new()),
        }
    }

    fn inc(&self, values: &[&str], by: u64) {
        let mut series = lock(&self.series);
        let count = series.entry(key(values)).or_insert(0);
        *count = count.saturating_add(by);
    }

    fn render(&self, out: &mut Exposition) {
        out.family(self.name, "counter", self.help);
        let series = lock(&self.series);
        if series.is_empty() && self.labels.is_empty() {
            out.sample(self.name, &[], 0.0);
        }
        for (values, count) in series.iter() {
            out.sample(self.name, &label_pairs(self.labels, values), *count as f64);
        }
    }
}

#[derive(Default, Clone)]
struct Histogram {
    /// Non-cumulative counts per bucket of [`SECONDS_BUCKETS`], then the overflow.
    buckets: Vec<u64>,
    sum: f64,
    count: u64,
}

struct HistogramFamily {
    name: &'static str,
    help: &'static str,
    labels: &'static [&'static str],
    series: Mutex<BTreeMap<Vec<String>, Histogram>>,
}

impl HistogramFamily {
    fn new(name: &'static str, help: &'static str, labels: &'static [&'static str]) -> Self {
        HistogramFamily {
            name,
            help,
            labels,
            series: Mutex::new(BTreeMap::new()),
        }
    }

    fn observe(&self, values: &[&str], seconds: f64) {
        let seconds = if seconds.is_finite() && seconds > 0.0 {
            seconds
        } else {
            0.0
        };
        let slot = SECONDS_BUCKETS
            .iter()
            .position(|bound| seconds <= *bound)
            .unwrap_or(SECONDS_BUCKETS.len());
        let mut series = lock(&self.series);
        let histogram = series.entry(key(values)).or_insert_with(|| Histogram {
            buckets: vec![0; SECONDS_BUCKETS.len() + 1],
            ..Histogram::default()
        });
        histogram.buckets[slot] += 1;
        histogram.sum += seconds;
        histogram.count += 1;
    }

    fn render(&self, out: &mut Exposition) {
        out.family(self.name, "histogram", self.help);
        let bucket_name = format!("{}_bucket", self.name);
        let sum_name = format!("{}_sum", self.name);
        let count_name = format!("{}_count", self.name);
        let series = lock(&self.series);
        for (values, histogram) in series.iter() {
            let labels = label_pairs(self.labels, values);
            let mut cumulative = 0;
            let bounds = SECONDS_BUCKETS.iter().copied().chain([f64::INFINITY]);
            for (bound, count) in bounds.zip(&histogram.buckets) {
                cumulative += count;
                let le = format_value(bound);
                let mut with_le = labels.clone();
                with_le.push(("le", le.as_str()));
                out.sample(&bucket_name, &with_le, cumulative as f64);
            }
            out.sample(&sum_name, &labels, histogram.sum);
            out.sample(&count_name, &labels, histogram.count as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_and_labels_escaped() {
        let family = HistogramFamily::new("gleaner_test_seconds", "A test.", &["kind"]);
        family.observe(&["a\"b"], 0.02);
        family.observe(&["a\"b"], 100.0);
        let mut out = Exposition::default();
        family.render(&mut out);
        let text = out.finish();
        assert!(text.contains("# TYPE gleaner_test_seconds histogram"));
        assert!(text.contains("gleaner_test_seconds_bucket{kind=\"a\\\"b\",le=\"0.01\"} 0"));
        assert!(text.contains("gleaner_test_seconds_bucket{kind=\"a\\\"b\",le=\"0.025\"} 1"));
        assert!(text.contains("gleaner_test_seconds_bucket{kind=\"a\\\"b\",le=\"+Inf\"} 2"));
        assert!(text.contains("gleaner_test_seconds_count{kind=\"a\\\"b\"} 2"));
        assert!(text.contains("gleaner_test_seconds_sum{kind=\"a\\\"b\"} 100.02"));
    }
}
