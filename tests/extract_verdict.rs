//! The verdict on hand-written pages that stand where an article should (bot challenges,
//! application shells, soft 404s, consent, login and paywalls, parked domains, gates), and
//! on real articles whose words would fool a careless rule.

use gleaner::extract::{
    Algorithm, EntryHints, ExtractError, SiteKnowledge, Verdict, extract_page, extract_site_page,
};
use url::Url;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/verdict/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|err| panic!("reading {path}: {err}"))
}

/// The verdict `algorithm` gives the fixture, with the page's own title as the hint (as
/// `gleaner eval` runs), whether or not it found text.
fn verdict_with(name: &str, url: Option<&str>, algorithm: Algorithm) -> Verdict {
    let url = url.map(|u| Url::parse(u).expect("fixture url"));
    match extract_page(&fixture(name), None, url.as_ref(), None, algorithm) {
        Ok(extraction) => extraction.verdict,
        Err(ExtractError::NoContent { verdict, .. }) => verdict,
    }
}

/// The verdict of `auto` and of `cuter`, which must agree.
fn verdict(name: &str) -> Verdict {
    let auto = verdict_with(name, None, Algorithm::Auto);
    let cuter = verdict_with(name, None, Algorithm::Cuter);
    assert_eq!(auto, cuter, "{name}: auto and cuter disagree");
    auto
}

#[test]
fn cloudflare_managed_challenge_is_blocked() {
    assert_eq!(verdict("cloudflare_challenge.html"), Verdict::Blocked);
}

#[test]
fn cloudflare_block_page_is_blocked() {
    assert_eq!(verdict("cloudflare_blocked.html"), Verdict::Blocked);
}

#[test]
fn akamai_access_denied_is_blocked() {
    assert_eq!(verdict("akamai_denied.html"), Verdict::Blocked);
}

#[test]
fn datadome_captcha_is_blocked() {
    assert_eq!(verdict("datadome_captcha.html"), Verdict::Blocked);
}

#[test]
fn perimeterx_press_and_hold_is_blocked() {
    assert_eq!(verdict("perimeterx_press_hold.html"), Verdict::Blocked);
}

#[test]
fn incapsula_request_unsuccessful_is_blocked() {
    assert_eq!(verdict("incapsula_request.html"), Verdict::Blocked);
}

#[test]
fn aws_waf_challenge_is_blocked() {
    assert_eq!(verdict("aws_waf.html"), Verdict::Blocked);
}

#[test]
fn too_many_requests_is_blocked() {
    assert_eq!(verdict("rate_limited.html"), Verdict::Blocked);
}

#[test]
fn react_shell_with_noscript_needs_javascript() {
    assert_eq!(verdict("react_shell.html"), Verdict::NeedsJavascript);
}

#[test]
fn next_shell_with_an_empty_mount_point_needs_javascript() {
    assert_eq!(verdict("next_shell.html"), Verdict::NeedsJavascript);
}

#[test]
fn soft_404_is_not_found() {
    assert_eq!(verdict("soft_404.html"), Verdict::NotFound);
}

#[test]
fn german_soft_404_is_not_found() {
    assert_eq!(verdict("soft_404_german.html"), Verdict::NotFound);
}

#[test]
fn consent_wall_is_consent() {
    assert_eq!(verdict("consent_wall.html"), Verdict::Consent);
    // On a consent host the dialog is a wall whatever the page's title.
    let on_host = verdict_with(
        "consent_wall.html",
        Some("https://consent.northgate.example/v2/collectConsent?sessionId=3"),
        Algorithm::Auto,
    );
    assert_eq!(on_host, Verdict::Consent);
}

#[test]
fn login_wall_is_login() {
    assert_eq!(verdict("login_wall.html"), Verdict::Login);
}

#[test]
fn lead_then_subscription_prompt_is_a_teaser() {
    assert_eq!(verdict("paywall_teaser.html"), Verdict::Teaser);
    assert!(Verdict::Teaser.is_article());
}

#[test]
fn lead_then_a_prompt_in_buttons_is_a_teaser() {
    // "To Read the Full Story", then "Subscribe" and "Sign In" as blocks of their own.
    assert_eq!(verdict("paywall_teaser_buttons.html"), Verdict::Teaser);
}

#[test]
fn a_link_to_read_the_full_story_is_no_paywall() {
    assert_eq!(verdict("digest_read_more.html"), Verdict::Article);
}

#[test]
fn parked_domain_is_not_an_article() {
    assert_eq!(verdict("parked_domain.html"), Verdict::NotArticle);
}

#[test]
fn geo_block_is_not_an_article() {
    assert_eq!(verdict("geo_blocked.html"), Verdict::NotArticle);
}

#[test]
fn age_gate_is_not_an_article() {
    assert_eq!(verdict("age_gate.html"), Verdict::NotArticle);
}

#[test]
fn article_about_cloudflare_challenges_stays_an_article() {
    // It quotes the challenge's title and carries the script Cloudflare injects into
    // ordinary pages.
    assert_eq!(verdict("article_about_cloudflare.html"), Verdict::Article);
}

#[test]
fn article_behind_a_cookie_banner_and_a_login_link_stays_an_article() {
    assert_eq!(verdict("article_with_cookie_banner.html"), Verdict::Article);
}

#[test]
fn short_article_quoting_page_not_found_stays_an_article() {
    assert_eq!(verdict("article_short_brief.html"), Verdict::Article);
}

#[test]
fn every_algorithm_agrees_that_a_challenge_is_blocked() {
    for algorithm in Algorithm::ALL {
        assert_eq!(
            verdict_with("cloudflare_challenge.html", None, algorithm),
            Verdict::Blocked,
            "{algorithm}"
        );
    }
}

#[test]
fn the_feed_text_found_in_the_page_keeps_a_short_story_an_article() {
    // A brief headlined "Still not found": by the page alone, a soft 404's heading over a
    // few lines of text.
    let name = "article_headline_not_found.html";
    assert_eq!(verdict(name), Verdict::NotFound);
    // The feed entry's own text is the page's text: the story is there.
    let feed_text = "Divers searching the harbour mouth for the bronze bell lost from the old \
                     lightship in 1953 ended their third season on Sunday without a trace.";
    let result = extract_site_page(
        &fixture(name),
        None,
        None,
        EntryHints {
            title: Some("Still not found"),
            feed_text: Some(feed_text),
            page_type: None,
        },
        Algorithm::Auto,
        SiteKnowledge::default(),
    );
    let extraction = result.extraction.expect("the brief has text");
    assert_eq!(extraction.verdict, Verdict::Article);
}

#[test]
fn extract_json_prints_the_verdict_and_the_quality_once() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    for (name, expected) in [
        ("paywall_teaser.html", "teaser"),
        ("soft_404.html", "not_found"),
    ] {
        std::fs::write(dir.path().join(name), fixture(name))?;
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_gleaner"))
            .current_dir(dir.path())
            .env_remove("GLEANER_CONFIG")
            .env_remove("GLEANER_DATABASE_URL")
            .env_remove("RUST_LOG")
            .args(["extract", name, "--format", "json"])
            .output()?;
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8(output.stdout)?;
        assert_eq!(stdout.matches("\"verdict\"").count(), 1, "{stdout}");
        assert_eq!(stdout.matches("\"quality\"").count(), 1, "{stdout}");
        let json: serde_json::Value = serde_json::from_str(&stdout)?;
        assert_eq!(json["verdict"], expected, "{name}");
        let quality = json["quality"].as_f64().expect("quality is a number");
        assert!((0.0..=1.0).contains(&quality), "{quality}");
    }
    Ok(())
}
