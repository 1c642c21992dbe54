//! Security properties that must hold whatever the input: the stored HTML is inert, and
//! secrets never reach output or logs.

use crate::common;

use std::process::Command;

use gleaner::extract::{Algorithm, extract_page};

const HOSTILE: &str = r#"<!DOCTYPE html><html><head><title>Hostile page</title>
<style>body { background: url(javascript:alert(1)) }</style>
<script>document.cookie</script>
<meta http-equiv="refresh" content="0;url=javascript:alert(1)">
</head><body onload="alert(1)">
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article>
<h1 onclick="alert(1)">Hostile page</h1>
<p>The council met on Tuesday to discuss the budget for the coming year, and members spoke
at length about roads, schools and the new library.<script>alert("inline")</script></p>
<p>Residents asked questions <a href="javascript:alert(1)">about the plan</a> and
<a href="JaVaScRiPt:alert(2)">its cost</a>, and <a href="data:text/html,&lt;script&gt;alert(3)&lt;/script&gt;">more</a>.</p>
<p><img src="https://cdn.example/photo.jpg" onerror="alert(4)" alt="A photo" width="640" height="480">
The mayor said the work would start in the spring and end before the winter.</p>
<form action="https://evil.example/steal" method="post"><input name="password" type="password">
<button formaction="javascript:alert(5)">Send</button></form>
<iframe src="https://evil.example/frame"></iframe>
<object data="https://evil.example/x.swf"></object><embed src="https://evil.example/x.swf">
<svg onload="alert(6)"><circle r="4"/></svg>
<p><img src="data:image/svg+xml,&lt;svg onload=alert(7)&gt;" alt="An inline image"> The inline
image above is not kept, since a data URL may carry a whole document.</p>
<p style="position:fixed;top:0">A paragraph with inline style that must lose it, and more words
about the budget so that it is clearly part of the article body.</p>
<p>Final paragraph: the meeting closed at nine, with a vote planned for next month.</p>
</article>
<footer><a href="/privacy">Privacy</a></footer>
</body></html>"#;

const FORBIDDEN: &[&str] = &[
    "<script",
    "</script",
    "onload",
    "onerror",
    "onclick",
    "javascript:",
    "data:",
    "<form",
    "<input",
    "<button",
    "<iframe",
    "<object",
    "<embed",
    "<style",
    "style=",
    "<svg",
    "<meta",
    "formaction",
    "alert(",
];

#[test]
fn stored_html_is_inert_whatever_the_algorithm() {
    for algorithm in Algorithm::ALL {
        let Ok(extraction) = extract_page(
            HOSTILE.as_bytes(),
            None,
            None,
            Some("Hostile page"),
            algorithm,
        ) else {
            continue; // an algorithm that finds no content stores nothing
        };
        let html = extraction.html.to_ascii_lowercase();
        for needle in FORBIDDEN {
            assert!(
                !html.contains(needle),
                "{algorithm}: {needle:?} in stored HTML:\n{}",
                extraction.html
            );
        }
        for image in &extraction.images {
            assert!(
                image.url.starts_with("https://"),
                "{algorithm}: image {}",
                image.url
            );
        }
    }
    let auto = extract_page(
        HOSTILE.as_bytes(),
        None,
        None,
        Some("Hostile page"),
        Algorithm::Auto,
    )
    .expect("the article is found");
    assert!(
        auto.text.contains("The council met on Tuesday"),
        "{}",
        auto.text
    );
    assert!(auto.html.contains("<p>"), "structure kept: {}", auto.html);
}

/// Media a reader keeps (players, sources, pictures, links that are not web pages), written
/// the way an attacker would.
const HOSTILE_MEDIA: &str = r#"<!DOCTYPE html><html><head><title>Media</title></head><body>
<video src="javascript:alert(1)" poster="javascript:alert(2)" onplay="alert(3)" autoplay
  onerror="alert(4)"><source src="javascript:alert(5)" onerror="alert(6)" type="video/mp4">
  <source src="data:video/mp4;base64,AAAA"><track src="javascript:alert(7)" oncuechange="alert(8)">
  <script>alert(9)</script></video>
<video poster="https://cdn.example/p.jpg" src="https://cdn.example/v.mp4" onloadstart="alert(10)"></video>
<audio src="JaVaScRiPt:alert(11)" onplay="alert(12)"><source src="https://cdn.example/a.mp3"></audio>
<picture onclick="alert(13)"><source srcset="javascript:alert(14) 1x, https://cdn.example/a.jpg 2x">
  <source srcset="https://cdn.example/b.avif" onerror="alert(15)"><img src="https://cdn.example/c.jpg" alt="c"></picture>
<iframe src="https://www.youtube.com/embed/abc" onload="alert(16)" srcdoc="&lt;script&gt;alert(17)&lt;/script&gt;"
  sandbox="allow-top-navigation allow-forms allow-modals" allow="camera; microphone"></iframe>
<iframe src="https://evil.example/embed/abc"></iframe>
<iframe src="javascript:alert(18)"></iframe>
<iframe src="https://www.youtube.com.evil.example/embed/abc"></iframe>
<iframe src="data:text/html,&lt;script&gt;alert(19)&lt;/script&gt;"></iframe>
<p><a href="tel:+1-555-0100" onclick="alert(20)">call</a> <a href="magnet:?xt=urn:btih:abc">get</a>
<a href="vbscript:msgbox(21)">vb</a> <a href="mailto:a@b.example" onmouseover="alert(22)">mail</a></p>
<object data="https://evil.example/x.swf"><param name="src" value="javascript:alert(23)">
<embed src="javascript:alert(24)"><p onclick="alert(25)">Fallback text</p>
</body></html>"#;

#[test]
fn kept_media_is_inert() {
    let page_url = url::Url::parse("https://news.example/a.html").expect("URL");
    let whole = gleaner::tidy::tidy_html(HOSTILE_MEDIA.as_bytes(), None, Some(&page_url)).html;
    let fragment = gleaner::tidy::sanitize(HOSTILE_MEDIA);
    for (how, html) in [("tidy_html", &whole), ("sanitize", &fragment)] {
        let lower = html.to_ascii_lowercase();
        for needle in [
            "javascript:",
            "vbscript:",
            "data:",
            "alert(",
            "<script",
            "<object",
            "<embed",
            "<param",
            "srcdoc",
            "autoplay",
            "allow-top-navigation",
            "allow-forms",
            "allow-modals",
            "allow=",
            "evil.example",
        ] {
            assert!(!lower.contains(needle), "{how}: {needle:?} in\n{html}");
        }
        let attributes = lower
            .split(|c: char| c.is_whitespace() || c == '<')
            .filter(|word| word.starts_with("on") && word.contains('='))
            .collect::<Vec<_>>();
        assert!(attributes.is_empty(), "{how}: {attributes:?} in\n{html}");
        let iframes: Vec<&str> = lower.split("<iframe").skip(1).collect();
        for iframe in &iframes {
            let tag = iframe.split('>').next().unwrap_or_default();
            assert!(
                tag.contains(
                    r#"sandbox="allow-scripts allow-same-origin allow-presentation allow-popups""#
                ),
                "{how}: an iframe without the sandbox: {tag}"
            );
            assert!(
                !tag.contains(" src=")
                    || tag.contains(r#"src="https://www.youtube.com/embed/abc""#),
                "{how}: an iframe of a host off the list: {tag}"
            );
        }
        assert!(
            lower.contains(r#"src="https://www.youtube.com/embed/abc""#),
            "{how}: the allowed player is kept\n{html}"
        );
        assert!(lower.contains(r#"href="tel:+1-555-0100""#), "{how}: {html}");
        assert!(lower.contains("fallback text"), "{how}: {html}");
    }
    assert_eq!(
        whole.matches("<iframe").count(),
        1,
        "only the allowed player is written: {whole}"
    );
}

#[test]
fn the_api_token_is_never_printed() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("config.toml"),
        "[api]\ntoken = \"tok-very-secret\"\n[[feeds]]\nurl = \"https://a.example/feed\"\n",
    )
    .expect("write");
    for args in [
        vec!["check-config"],
        vec!["--log-level", "trace", "migrate"],
        vec!["feeds", "--json"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_gleaner"))
            .current_dir(dir.path())
            .env_remove("GLEANER_DATABASE_URL")
            .args(&args)
            .output()
            .expect("runs");
        assert!(output.status.success(), "{args:?}");
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            !all.contains("tok-very-secret"),
            "{args:?} printed the token:\n{all}"
        );
    }
}

#[test]
fn the_database_password_is_never_printed() {
    let Some(url) = common::postgres_url() else {
        common::skipped("the_database_password_is_never_printed");
        return;
    };
    // Trust authentication accepts any password, so the URL still connects.
    let mut with_password = url::Url::parse(&url).expect("test URL");
    with_password
        .set_password(Some("pw-very-secret"))
        .expect("URL takes a password");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("config.toml"), "").expect("write");
    for args in [
        vec!["check-config"],
        vec!["--log-level", "trace", "--log-format", "json", "migrate"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_gleaner"))
            .current_dir(dir.path())
            .env("GLEANER_DATABASE_URL", with_password.as_str())
            .args(&args)
            .output()
            .expect("runs");
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "{args:?}: {all}");
        assert!(
            !all.contains("pw-very-secret"),
            "{args:?} printed the password:\n{all}"
        );
        assert!(
            all.contains("***"),
            "{args:?} shows the URL redacted:\n{all}"
        );
    }
}

/// sqlx 0.9 accepts only `&'static str` statements unless the caller wraps a built string in
/// `AssertSqlSafe`; the library never does, so no SQL text can come from data.
#[test]
fn no_sql_is_built_from_data() {
    fn sources(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("reads src/").flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    let mut files = Vec::new();
    sources(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 20, "found the sources: {files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).expect("reads a source file");
        for escape in ["AssertSqlSafe", "raw_sql"] {
            assert!(
                !text.contains(escape),
                "{} uses {escape}: statements must be constants with bound values",
                file.display()
            );
        }
    }
}
