//! The Markdown of hostile bodies (`gleaner::markdown::from_html`, what `articles show
//! --format markdown` and the API's `format=markdown` print) is inert: rendered to HTML by
//! CommonMark (pulldown-cmark, plain and with every extension) and by Python-Markdown (plain
//! and with `extra`), it holds no element, attribute or address that runs script. So does a
//! whole document (`gleaner::markdown::document`) whose front matter values are hostile: a
//! renderer that does not know front matter reads it as text between two rules.

use std::io::Write as _;
use std::process::{Command, Stdio};

use gleaner::markdown::{FrontMatter, document, from_html};

/// Bodies that try to smuggle markup through the conversion: alt texts, titles, link texts,
/// addresses with hidden schemes, code spans and blocks in every surrounding, markup written
/// as text, nested brackets, Markdown extensions' syntax.
const PAYLOADS: &[&str] = &[
    // Alt text and titles.
    r#"<img src="https://x.example/a.png" alt="&lt;script&gt;alert(1)&lt;/script&gt;">"#,
    r#"<img src="https://x.example/a.png" alt="x](javascript:alert(1))<script>alert(1)</script>">"#,
    r#"<img src="https://x.example/a.png" alt="]" title="&quot; onerror=&quot;alert(1)">"#,
    r#"<img src="https://x.example/a.png" alt="a
b

&lt;script&gt;alert(1)&lt;/script&gt;">"#,
    r#"<img src="https://x.example/a.png" alt="\" title="\&quot;)<img src=x onerror=alert(1)>">"#,
    r#"<a href="https://x.example/" title="x\&quot; onclick=alert(1) \&quot;">t</a>"#,
    r#"<a href="https://x.example/" title="&quot;)](javascript:alert(1))">t</a>"#,
    r#"<a href="https://x.example/" title="&lt;/a&gt;&lt;script&gt;alert(1)&lt;/script&gt;">t</a>"#,
    r#"<a href="https://x.example/" title='&#39; onmouseover=alert(1) &#39;'>t</a>"#,
    // Addresses.
    r#"<a href="javascript:alert(1)">js</a>"#,
    r#"<a href="JaVaScRiPt:alert(1)">js</a>"#,
    r#"<a href=" javascript:alert(1)">js</a>"#,
    r#"<a href="java&#x09;script:alert(1)">js</a>"#,
    r#"<a href="java&#x0A;script:alert(1)">js</a>"#,
    r#"<a href="&#106;avascript:alert(1)">js</a>"#,
    r#"<a href="javascript&#58;alert(1)">js</a>"#,
    r#"<a href="&#1;javascript:alert(1)">js</a>"#,
    r#"<a href="vbscript:msgbox(1)">vb</a>"#,
    r#"<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data</a>"#,
    r#"<img src="javascript:alert(1)" alt="js">"#,
    r#"<img src="data:image/svg+xml,&lt;svg onload=alert(1)&gt;" alt="svg">"#,
    r#"<a href="https://x.example/&quot;onmouseover=&quot;alert(1)">t</a>"#,
    r#"<a href="https://x.example/a)(javascript:alert(1)">t</a>"#,
    r#"<a href="https://x.example/a&gt; &lt;script&gt;alert(1)&lt;/script&gt;">t</a>"#,
    r#"<a href="https://x.example/a 'b' &quot;c&quot; (d) \e">t</a>"#,
    r#"<a href="mailto:&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@x.example">m</a>"#,
    r#"<a href="javascript:alert(1)"><img src="https://x.example/i.png" alt="i"></a>"#,
    // Markup written as text.
    "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
    "<p>&lt;img src=x onerror=alert(1)&gt;</p>",
    "<div>&lt;div onclick=alert(1)&gt;x&lt;/div&gt;</div>",
    r"<p>\&lt;script&gt;alert(1)\&lt;/script&gt;</p>",
    "<p>&lt;javascript:alert(1)&gt; &lt;https://x.example/&gt;</p>",
    "<p>&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;</p>",
    "<p>&amp;#60;script&amp;#62;alert(1)&amp;#60;/script&amp;#62;</p>",
    "<p>&lt;!-- x --&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>",
    "<p>&lt;![CDATA[&lt;script&gt;alert(1)&lt;/script&gt;]]&gt;</p>",
    "<p>&lt;svg/onload=alert(1)&gt;</p>",
    "<p>*&lt;script&gt;alert(1)&lt;/script&gt;*</p>",
    "<p>- &lt;script&gt;alert(1)&lt;/script&gt;</p><p># &lt;iframe src=javascript:alert(1)&gt;</p>",
    "<p>    &lt;script&gt;alert(1)&lt;/script&gt;</p>",
    "<textarea><script>alert(1)</script></textarea><noscript><script>alert(1)</script></noscript>",
    "<script>alert(1)</script><style>*{x:expression(alert(1))}</style>",
    // Markdown syntax written as text.
    "<p>[x](javascript:alert(1))</p>",
    "<p>[x]: javascript:alert(1)</p><p>[x]</p>",
    "<p>![x](javascript:alert(1))</p>",
    "<p>[[javascript:alert(1)]]</p>",
    r#"<p>x{: onclick="alert(1)"}</p><h2>T {: onclick=alert(1)}</h2><h2>U {onclick=alert(1)}</h2>"#,
    r#"<p><a href="https://x.example/">l</a>{: onmouseover="alert(1)"}</p>"#,
    "<p>Wow!<a href=\"javascript:alert(1)\">x</a></p>",
    // Link texts and nested brackets.
    r#"<a href="https://x.example/">[a](javascript:alert(1))</a>"#,
    r#"<a href="https://x.example/">a](javascript:alert(1)) [b</a>"#,
    r#"<a href="https://x.example/">&lt;script&gt;alert(1)&lt;/script&gt;</a>"#,
    r#"<a href="https://x.example/"><p>a</p><p>](javascript:alert(1))</p></a>"#,
    // Code spans and blocks, in every surrounding.
    "<p><code>&lt;script&gt;alert(1)&lt;/script&gt;</code></p>",
    "<p><code>`&lt;script&gt;alert(1)&lt;/script&gt;`</code></p>",
    "<p>x<code>a`` b</code>`&lt;script&gt;alert(1)&lt;/script&gt;`</p>",
    "<p>\\<code>&lt;script&gt;alert(1)&lt;/script&gt;</code></p>",
    "<pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>",
    "<pre>   &lt;script&gt;alert(1)&lt;/script&gt;</pre>",
    "<pre><code>a\n\n&lt;script&gt;alert(1)&lt;/script&gt;\n\nb</code></pre>",
    "<pre>```\n&lt;script&gt;alert(1)&lt;/script&gt;\n```</pre>",
    "<pre>a<br>&lt;script&gt;alert(1)&lt;/script&gt;</pre>",
    "<ul><li><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre></li></ul>",
    "<ol><li>x<pre>\n\n&lt;img src=x onerror=alert(1)&gt;</pre></li></ol>",
    "<blockquote><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre></blockquote>",
    "<h1><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre></h1>",
    r#"<a href="https://x.example/"><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre></a>"#,
    "<b><pre>a\n&lt;script&gt;alert(1)&lt;/script&gt;</pre></b>",
    "<table><tr><th>h</th></tr><tr><td><pre>a|&lt;script&gt;alert(1)&lt;/script&gt;</pre></td></tr></table>",
    "<table><tr><th>h</th></tr><tr><td><code>a|&lt;img src=x onerror=alert(1)&gt;</code></td></tr></table>",
    "<table><tr><th>&lt;script&gt;alert(1)&lt;/script&gt;</th><th>|</th></tr><tr><td>a|b</td><td>`&lt;b&gt;`</td></tr></table>",
    "<p>text</p><pre>\t&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;</pre><p>after</p>",
    "<p>`<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>`</p>",
    // Code blocks right after lists, which would take an indented block in as a paragraph.
    "<ul><li>item</li></ul><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>",
    "<ol><li>item</li><li>two</li></ol><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>",
    "<ul><li>a<ul><li>b</li></ul></li></ul><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>",
    "<div><ul><li>item</li></ul></div><div><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre></div>",
    "<ul><li>item</li></ul><p></p><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>",
    "<ul><li>item<br>lazy</li></ul><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>",
    "<pre>x</pre><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>",
    "<blockquote><ul><li>q</li></ul></blockquote><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre>",
];

/// Front matter values (a title, an author, a feed name, a URL) that try the same: raw tags,
/// links and references, attribute lists, entities, autolinks, YAML's own syntax.
const FRONT_MATTER_PAYLOADS: &[&str] = &[
    "Council <script>alert(12)</script> approves budget",
    "<img src=x onerror=alert(1)>",
    "</p><iframe src=javascript:alert(1)></iframe>",
    "[click](javascript:alert(1))",
    "![x](javascript:alert(1))",
    "[x]: javascript:alert(1)\n\n[x]",
    "<javascript:alert(1)>",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#60;script&#62;alert(1)&#60;/script&#62;",
    "x{: onclick=\"alert(1)\"}",
    "\"\n---\n<script>alert(1)</script>",
    "a\\<script>alert(1)</script>",
    "<svg/onload=alert(1)>",
    "[[javascript:alert(1)]]",
    "<!-- --><script>alert(1)</script>",
];

/// Each front matter payload as every string value of one document, with a plain body.
fn front_matter_documents() -> Vec<(&'static str, String)> {
    FRONT_MATTER_PAYLOADS
        .iter()
        .map(|&payload| {
            let front = FrontMatter {
                title: Some(payload),
                url: Some(payload),
                feed: Some(payload),
                author: Some(payload),
                language: Some(payload),
                verdict: Some(payload),
                id: Some(1),
                ..Default::default()
            };
            (payload, document(&front, "<p>Body.</p>"))
        })
        .collect()
}

/// What may appear in rendered Markdown: formatting, never script or an embedding.
const ALLOWED_ELEMENTS: &[&str] = &[
    "html",
    "head",
    "body",
    "p",
    "a",
    "img",
    "code",
    "pre",
    "em",
    "strong",
    "del",
    "s",
    "sup",
    "sub",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "div",
    "section",
    "span",
    "dl",
    "dt",
    "dd",
    "abbr",
];

/// The reasons `html` (a renderer's output for `markdown`) could run script.
fn executable_markup(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    if html.to_ascii_lowercase().contains("<script") {
        found.push("a <script> tag".to_string());
    }
    let document = scraper::Html::parse_fragment(html);
    for node in document.tree.nodes() {
        let scraper::Node::Element(element) = node.value() else {
            continue;
        };
        if !ALLOWED_ELEMENTS.contains(&element.name()) {
            found.push(format!("element <{}>", element.name()));
        }
        for (name, value) in element.attrs() {
            if name.to_ascii_lowercase().starts_with("on") {
                found.push(format!("attribute {name}={value:?}"));
            }
            let squeezed: String = value
                .chars()
                .filter(|c| !c.is_whitespace() && !c.is_control())
                .collect::<String>()
                .to_ascii_lowercase();
            for scheme in ["javascript:", "vbscript:", "data:"] {
                if squeezed.starts_with(scheme) {
                    found.push(format!("{name}={value:?}"));
                }
            }
        }
    }
    found
}

/// Each payload's Markdown, then each front matter payload's document.
fn converted() -> Vec<(&'static str, String)> {
    assert!(PAYLOADS.len() >= 30, "the corpus shrank");
    PAYLOADS
        .iter()
        .map(|payload| (*payload, from_html(payload)))
        .chain(front_matter_documents())
        .collect()
}

fn assert_inert(renderer: &str, payload: &str, markdown: &str, html: &str) {
    let found = executable_markup(html);
    assert!(
        found.is_empty(),
        "{renderer} found {found:?}\npayload: {payload}\nmarkdown: {markdown}\nhtml: {html}"
    );
}

#[test]
fn commonmark_renders_no_executable_markup() {
    for (payload, markdown) in converted() {
        for (renderer, options) in [
            ("CommonMark", pulldown_cmark::Options::empty()),
            (
                "CommonMark with every extension",
                pulldown_cmark::Options::all(),
            ),
        ] {
            let mut html = String::new();
            pulldown_cmark::html::push_html(
                &mut html,
                pulldown_cmark::Parser::new_ext(&markdown, options),
            );
            assert_inert(renderer, payload, &markdown, &html);
        }
    }
}

/// What the renderer made of the markup written as text: the text itself.
#[test]
fn markup_written_as_text_renders_as_that_text() {
    let render = |markdown: &str| {
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(markdown));
        scraper::Html::parse_fragment(&html)
    };
    let alt = from_html(PAYLOADS[0]);
    let document = render(&alt);
    let selector = scraper::Selector::parse("img").expect("selector");
    let image = document.select(&selector).next().expect("the image stays");
    assert_eq!(
        image.attr("alt"),
        Some("<script>alert(1)</script>"),
        "{alt}"
    );
    let text = from_html("<p>a &lt;b&gt; &amp;amp; {c} [d](e)</p>");
    let document = render(&text);
    let shown: String = document.root_element().text().collect();
    assert_eq!(shown.trim(), "a <b> &amp; {c} [d](e)", "{text}");
}

/// A hostile title in the front matter, rendered by a renderer that knows no front matter:
/// its words, shown as text.
#[test]
fn front_matter_values_render_as_their_text() {
    let title = FRONT_MATTER_PAYLOADS[0];
    let markdown = document(
        &FrontMatter {
            title: Some(title),
            ..Default::default()
        },
        "<p>Body.</p>",
    );
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(&markdown));
    assert_inert("CommonMark", title, &markdown, &html);
    let shown: String = scraper::Html::parse_fragment(&html)
        .root_element()
        .text()
        .collect();
    assert!(
        shown
            .contains("Council \\u003Cscript\\u003Ealert(12)\\u003C/script\\u003E approves budget"),
        "{markdown}\n{html}"
    );
}

/// Python-Markdown, run by `python3`; skipped (saying so) where the `markdown` package is
/// not installed (`pip install markdown`; CI installs it).
#[test]
fn python_markdown_renders_no_executable_markup() -> anyhow::Result<()> {
    let script = r#"
import json, sys
try:
    import markdown
except ImportError:
    sys.exit(3)
texts = json.load(sys.stdin)
json.dump([[markdown.markdown(t), markdown.markdown(t, extensions=["extra"])] for t in texts], sys.stdout)
"#;
    let converted = converted();
    let child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("SKIPPED python_markdown_renders_no_executable_markup: no python3");
        return Ok(());
    };
    let texts: Vec<&str> = converted.iter().map(|(_, md)| md.as_str()).collect();
    child
        .stdin
        .take()
        .ok_or_else(|| anyhow::anyhow!("python3's stdin"))?
        .write_all(&serde_json::to_vec(&texts)?)?;
    let output = child.wait_with_output()?;
    if output.status.code() == Some(3) {
        eprintln!(
            "SKIPPED python_markdown_renders_no_executable_markup: \
             the Python package `markdown` is not installed (pip install markdown)"
        );
        return Ok(());
    }
    anyhow::ensure!(
        output.status.success(),
        "python3 failed: {:?}",
        output.status
    );
    let rendered: Vec<[String; 2]> = serde_json::from_slice(&output.stdout)?;
    anyhow::ensure!(
        rendered.len() == converted.len(),
        "one rendering per payload"
    );
    for ((payload, markdown), [plain, extra]) in converted.iter().zip(&rendered) {
        assert_inert("Python-Markdown", payload, markdown, plain);
        assert_inert("Python-Markdown with extra", payload, markdown, extra);
    }
    Ok(())
}
