//! What the sanitizing policy keeps that a reader keeps: players, responsive images, links
//! that are not web pages, small images, and the text after an unclosed `<object>`. What it
//! must never let through is in `tests/service/security.rs`.

use gleaner::extract::{Algorithm, extract_page};
use gleaner::tidy::{sanitize, tidy_html};
use url::Url;

fn page_url() -> Url {
    Url::parse("https://news.example/2026/story.html").expect("page URL")
}

fn tidy(body: &str) -> String {
    let page =
        format!("<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>");
    tidy_html(page.as_bytes(), None, Some(&page_url())).html
}

#[test]
fn video_and_audio_are_kept_with_their_sources_poster_and_controls() {
    let html = tidy(
        r#"<video poster="/poster.jpg" width="640" autoplay>
             <source src="/clip.webm" type="video/webm"><source src="/clip.mp4" type="video/mp4">
             <track src="/clip.vtt" kind="captions" srclang="en" label="English">
           </video>
           <audio src="/episode.mp3" preload="none"></audio>"#,
    );
    assert!(
        html.contains(r#"poster="https://news.example/poster.jpg""#),
        "{html}"
    );
    assert!(
        html.contains(r#"<source src="https://news.example/clip.webm" type="video/webm">"#),
        "{html}"
    );
    assert!(
        html.contains(r#"src="https://news.example/clip.vtt""#),
        "{html}"
    );
    assert!(
        html.contains(r#"<audio src="https://news.example/episode.mp3""#),
        "{html}"
    );
    assert_eq!(html.matches("controls").count(), 2, "{html}");
    assert!(!html.contains("autoplay"), "{html}");
}

#[test]
fn pictures_keep_their_sources_and_srcset() {
    let html = tidy(
        r#"<picture><source srcset="/wide.avif 2x, /narrow.avif 1x" type="image/avif" media="(min-width: 800px)">
           <img src="/fallback.jpg" srcset="/f-2x.jpg 2x" alt="The harbour"></picture>"#,
    );
    assert!(html.contains("<picture>"), "{html}");
    assert!(
        html.contains(
            r#"srcset="https://news.example/wide.avif 2x, https://news.example/narrow.avif 1x""#
        ),
        "{html}"
    );
    assert!(
        html.contains(r#"srcset="https://news.example/f-2x.jpg 2x""#),
        "{html}"
    );
}

#[test]
fn players_of_well_known_hosts_are_kept_sandboxed_and_others_dropped() {
    let html = tidy(
        r#"<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ" width="560" height="315">fallback</iframe>
           <iframe data-src="//player.vimeo.com/video/76979871" src="about:blank"></iframe>
           <iframe src="https://ads.example/embed/banner"></iframe>"#,
    );
    assert!(
        html.contains(r#"src="https://www.youtube.com/embed/dQw4w9WgXcQ""#),
        "{html}"
    );
    assert!(
        html.contains(r#"src="https://player.vimeo.com/video/76979871""#),
        "a lazy embed is kept, over https: {html}"
    );
    assert_eq!(html.matches("<iframe").count(), 2, "{html}");
    assert_eq!(
        html.matches(
            r#"sandbox="allow-scripts allow-same-origin allow-presentation allow-popups""#
        )
        .count(),
        2,
        "{html}"
    );
    assert!(!html.contains("ads.example"), "{html}");
    assert!(!html.contains("fallback"), "{html}");
}

#[test]
fn mail_phone_and_magnet_links_keep_their_href() {
    let html = tidy(
        r#"<p>Write to <a href="mailto:desk@news.example">the desk</a>, call
           <a href="tel:+44-20-7946-0018">us</a>, or fetch <a href="magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a">the archive</a>.</p>"#,
    );
    for href in [
        r#"href="mailto:desk@news.example""#,
        r#"href="tel:+44-20-7946-0018""#,
        r#"href="magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a""#,
    ] {
        assert!(html.contains(href), "{href} in {html}");
    }
    // The same for a fragment sanitized directly.
    assert!(sanitize(r#"<a href="tel:112">call</a>"#).contains(r#"href="tel:112""#));
    // A resource is never a phone number.
    assert!(!sanitize(r#"<img src="tel:112" alt="x">"#).contains("tel:"));
}

#[test]
fn an_unclosed_object_does_not_swallow_the_article() {
    let html = tidy(
        r#"<p>Before the player.</p><object data="/old.swf" type="application/x-shockwave-flash"><param name="movie" value="/old.swf">
           <p>After the player, the rest of the article.</p><p>And its last paragraph.</p>"#,
    );
    assert!(
        html.contains("After the player, the rest of the article."),
        "{html}"
    );
    assert!(html.contains("And its last paragraph."), "{html}");
    assert!(
        !html.contains("<object") && !html.contains("<param"),
        "{html}"
    );
}

#[test]
fn small_real_images_are_kept_and_pixels_dropped() {
    let paragraph = "The survey counted the birds on the island over three days of good weather, \
        and the volunteers wrote down every nest they could find along the cliffs.";
    let page = format!(
        r#"<!DOCTYPE html><html><head><title>Puffins return</title></head><body><article>
        <h1>Puffins return</h1><p>{paragraph}</p>
        <p><img src="https://news.example/charts/nests-small.png" width="40" height="30" alt="Nests per day"> {paragraph}</p>
        <p><img src="https://news.example/photos/pixel-art-puffin.png" width="320" height="240" alt="A pixel-art puffin"> {paragraph}</p>
        <p><img src="https://news.example/t.gif" width="1" height="1" alt=""> {paragraph}</p>
        <p><img src="https://www.google-analytics.com/collect?v=1" alt=""> {paragraph}</p>
        </article></body></html>"#
    );
    let extraction = extract_page(
        page.as_bytes(),
        None,
        Some(&page_url()),
        Some("Puffins return"),
        Algorithm::Auto,
    )
    .expect("an article");
    let urls: Vec<&str> = extraction.images.iter().map(|i| i.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://news.example/charts/nests-small.png",
            "https://news.example/photos/pixel-art-puffin.png"
        ]
    );
}
