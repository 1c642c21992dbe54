//! Throughput of tidying and extraction, in bytes of input HTML per second, over generated
//! pages shaped like news articles (navigation, sidebar, article, comments, footer).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gleaner::extract::{Algorithm, Extractor, Page, extract_page};
use std::fmt::Write as _;
use std::hint::black_box;

/// Deterministic filler words.
const WORDS: &[&str] = &[
    "river",
    "council",
    "bridge",
    "morning",
    "engineers",
    "restoration",
    "county",
    "grant",
    "residents",
    "library",
    "exhibition",
    "stone",
    "arch",
    "survey",
    "mortar",
    "traffic",
    "spring",
    "walkers",
    "cyclists",
    "masonry",
    "project",
    "summer",
    "signatures",
    "town",
];

fn sentence(seed: usize, words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(WORDS[(seed * 31 + i * 7 + i * i) % WORDS.len()]);
    }
    out.push('.');
    out
}

/// A news-like page of roughly `paragraphs` × 400 bytes of article plus page furniture.
fn news_page(paragraphs: usize) -> String {
    let mut page = String::from(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Bridge reopens | Courier</title>\
         <script>var data = {\"a\": [1,2,3], \"b\": \"<div>not html</div>\"};</script>\
         <style>body { margin: 0 } .nav li { display: inline }</style></head><body>",
    );
    page.push_str("<header><nav><ul class=\"nav\">");
    for i in 0..60 {
        let _ = write!(
            page,
            "<li><a href=\"/section/{i}\">{}</a></li>",
            sentence(i, 2)
        );
    }
    page.push_str("</ul></nav></header><main><article><h1>Bridge reopens after restoration</h1>");
    page.push_str("<p class=\"byline\">By A. Writer, 12 March 2024</p>");
    for i in 0..paragraphs {
        let _ = writeln!(
            page,
            "<p>{} {} <a href=\"/more/{i}\">{}</a> {}</p>",
            sentence(i, 25),
            sentence(i + 1, 20),
            sentence(i, 3),
            sentence(i + 2, 15)
        );
        if i % 5 == 4 {
            let _ = write!(
                page,
                "<figure><img src=\"/img/{i}.jpg\" width=\"800\" height=\"600\" alt=\"photo {i}\">\
                 <figcaption>{}</figcaption></figure>",
                sentence(i, 8)
            );
            page.push_str("<div class=\"ad\"><a href=\"https://ads.example/1\">Buy now</a></div>");
        }
    }
    page.push_str("</article><aside class=\"sidebar\"><h3>Most read</h3><ul>");
    for i in 0..30 {
        let _ = write!(
            page,
            "<li><a href=\"/story/{i}\">{}</a></li>",
            sentence(i + 7, 8)
        );
    }
    page.push_str("</ul></aside><section id=\"comments\">");
    for i in 0..paragraphs / 2 {
        let _ = write!(
            page,
            "<div class=\"comment\"><p class=\"author\">reader{i}</p><p>{}</p></div>",
            sentence(i + 3, 30)
        );
    }
    page.push_str(
        "</section></main><footer><a href=\"/about\">About</a> <a href=\"/privacy\">Privacy</a>\
         </footer><img src=\"https://stats.example/pixel.gif\" width=\"1\" height=\"1\"></body></html>",
    );
    page
}

fn benchmarks(c: &mut Criterion) {
    let pages = [
        ("40-paragraphs", news_page(40)),
        ("160-paragraphs", news_page(160)),
    ];
    let title = Some("Bridge reopens after restoration");
    let mut group = c.benchmark_group("extract");
    for (name, page) in &pages {
        let raw = page.as_bytes();
        group.throughput(Throughput::Bytes(raw.len() as u64));
        group.bench_with_input(BenchmarkId::new("tidy", name), raw, |b, raw| {
            b.iter(|| gleaner::tidy::tidy_html(black_box(raw), None, None))
        });
        group.bench_with_input(BenchmarkId::new("parse+stats", name), raw, |b, raw| {
            b.iter(|| Page::parse(black_box(raw), None, None, title))
        });
        for algorithm in [Algorithm::Cuter, Algorithm::Cetr, Algorithm::Auto] {
            group.bench_with_input(BenchmarkId::new(algorithm.name(), name), raw, |b, raw| {
                b.iter(|| extract_page(black_box(raw), None, None, title, algorithm))
            });
        }
        let parsed = Page::parse(raw, None, None, title);
        group.bench_with_input(
            BenchmarkId::new("cuter-on-parsed", name),
            &parsed,
            |b, parsed| b.iter(|| Algorithm::Cuter.extract(black_box(parsed))),
        );
    }
    group.finish();
}

/// A page of `depth` nested `<div>`s around one paragraph: the cost must grow linearly with
/// the depth (the nesting cap, `tidy::depth`), not with its square.
fn nested_page(depth: usize) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>Deep</title></head><body>{}<p>{}</p>{}</body></html>",
        "<div>".repeat(depth),
        sentence(1, 40),
        "</div>".repeat(depth)
    )
}

fn deep_nesting(c: &mut Criterion) {
    let mut group = c.benchmark_group("deep-nesting");
    group.sample_size(10);
    for depth in [20_000, 100_000, 500_000] {
        let page = nested_page(depth);
        let raw = page.as_bytes();
        group.throughput(Throughput::Bytes(raw.len() as u64));
        group.bench_with_input(BenchmarkId::new("auto", depth), raw, |b, raw| {
            b.iter(|| extract_page(black_box(raw), None, None, Some("Deep"), Algorithm::Auto))
        });
    }
    group.finish();
}

/// A page of `<p>` and one text of `unit` repeated to `bytes`: every character one the
/// serializer writes as a reference (`&amp;`, `&nbsp;`) or the page as one (`&deg;`).
fn escaped_text_page(unit: &str, bytes: usize) -> String {
    format!("<p>{}", unit.repeat(bytes / unit.len()))
}

/// Marks the case of [`escaped_attribute_page`].
const ATTRIBUTE: &str = "attribute";

/// A paragraph of a few words whose link's title is `bytes` of `&amp;`.
fn escaped_attribute_page(bytes: usize) -> String {
    format!(
        "<p>A few words of a story, with <a href=\"/next\" title=\"{}\">a link</a> in them.</p>",
        "&amp;".repeat(bytes / 5)
    )
}

/// Extraction of a text of characters written as references, 64 KiB to 8 MiB: the time per
/// byte must stay the same at every size (serialization linear in the text, not quadratic).
fn escaped_text(c: &mut Criterion) {
    let mut group = c.benchmark_group("escaped-text");
    group.sample_size(10);
    for (name, unit) in [
        ("amp", "&"),
        ("deg", "&deg;"),
        ("nbsp", "\u{a0}"),
        ("attribute-amp", ATTRIBUTE),
    ] {
        for kib in [64, 512, 2048, 8192] {
            let page = if unit == ATTRIBUTE {
                escaped_attribute_page(kib << 10)
            } else {
                escaped_text_page(unit, kib << 10)
            };
            let raw = page.as_bytes();
            group.throughput(Throughput::Bytes(raw.len() as u64));
            let id = BenchmarkId::new(name, format!("{kib}KiB"));
            group.bench_with_input(id, raw, |b, raw| {
                b.iter(|| extract_page(black_box(raw), None, None, None, Algorithm::Auto))
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = extract;
    config = Criterion::default()
        .sample_size(20)
        .measurement_time(std::time::Duration::from_secs(3));
    targets = benchmarks, deep_nesting, escaped_text
}
criterion_main!(extract);
