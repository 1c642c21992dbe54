//! Markdown: the stored (sanitized) article body as the Markdown most summarization pipelines
//! feed to a model — headings, paragraphs, lists, links, images with their alt text,
//! blockquotes, code and tables as pipe tables.
//!
//! Pure, like `tidy` and `extract`: HTML in, text out. The conversion is `htmd`'s; this module
//! owns only the settings and the promise that a body always yields some text.

/// The Markdown of a sanitized body `html`. The body came through ammonia, so the converter
/// never meets a script or a style sheet; should it fail even so, the body's text content is
/// returned rather than nothing.
pub fn from_html(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .options(htmd::options::Options {
            heading_style: htmd::options::HeadingStyle::Atx,
            code_block_style: htmd::options::CodeBlockStyle::Fenced,
            ..Default::default()
        })
        .build();
    match converter.convert(html) {
        Ok(markdown) => markdown.trim().to_string(),
        Err(_) => scraper::Html::parse_fragment(html)
            .root_element()
            .text()
            .collect::<String>()
            .trim()
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::from_html;

    #[test]
    fn blocks_links_images_and_tables_become_markdown() {
        let html = "<h2>Budget</h2><p>The <a href=\"https://example.org/a\">council</a> met.</p>\
                    <ul><li>roads</li><li>schools</li></ul>\
                    <blockquote><p>We will build it.</p></blockquote>\
                    <img src=\"https://example.org/p.jpg\" alt=\"The library\">\
                    <pre><code>let x = 1;</code></pre>\
                    <table><thead><tr><th>Item</th><th>Cost</th></tr></thead>\
                    <tbody><tr><td>Roads</td><td>12</td></tr></tbody></table>";
        let markdown = from_html(html);
        for expected in [
            "## Budget",
            "[council](https://example.org/a)",
            "roads",
            "> We will build it.",
            "![The library](https://example.org/p.jpg)",
            "```",
            "| Item  | Cost |",
            "| Roads | 12   |",
        ] {
            assert!(markdown.contains(expected), "{expected:?} in {markdown}");
        }
    }
}
