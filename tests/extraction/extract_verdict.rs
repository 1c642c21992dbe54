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
fn geo_block_is_blocked() {
    // The site refuses the reader, as a bot check does, with status 200.
    assert_eq!(verdict("geo_blocked.html"), Verdict::Blocked);
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

/// A page as sites build them: a `<title>`, a header with a menu, a `main` holding `body`,
/// a footer line.
fn page(lang: &str, title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body><header><nav><a href=\"/\">Home</a> <a href=\"/about\">About</a></nav></header>\
         <main>{body}</main><footer><p>© 2026</p></footer></body></html>"
    )
}

/// The verdict `auto` gives `html` when the feed entry that links to it is titled `title`
/// (as `gleaner extract --title` and the pipeline run it).
fn verdict_for_entry(html: &str, title: &str) -> Verdict {
    match extract_page(html.as_bytes(), None, None, Some(title), Algorithm::Auto) {
        Ok(extraction) => extraction.verdict,
        Err(ExtractError::NoContent { verdict, .. }) => verdict,
    }
}

/// Lines that pad a wall past the length at which text alone would pass for an article: a
/// privacy notice and a list of what the site offers, unrelated to any entry.
fn padding(lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "<p>Section {i}: the operator of this service processes technical data such as \
                 addresses, device identifiers and timestamps for the purposes of security, \
                 fraud prevention and statistics, as described in the applicable notice.</p>"
            )
        })
        .collect()
}

/// Pages that stand where an article should, in several wordings and languages, each with
/// the title of the entry that linked to it. None may be taken for the article.
fn walls() -> Vec<(&'static str, String, &'static str)> {
    let login_form = "<form><label>E-mail <input type=\"email\"></label>\
                      <label>Password <input type=\"password\"></label><button>OK</button></form>";
    let vendors: String = (1..=40)
        .map(|i| format!("<li>Vendor{i} Advertising Ltd.</li>"))
        .collect();
    vec![
        // Bot challenges.
        (
            "challenge-en",
            page(
                "en",
                "One more step",
                "<h1>One more step</h1><p>We are making sure a person is visiting. This takes a few seconds; the page reloads by itself.</p>",
            ),
            "Harbour council approves ferry budget",
        ),
        (
            "challenge-pl",
            page(
                "pl",
                "Chwileczkę",
                "<h1>Sprawdzamy twoją przeglądarkę</h1><p>Potwierdź, że nie jesteś robotem. Strona za chwilę się odświeży.</p>",
            ),
            "Rada miasta przyjęła budżet portu",
        ),
        (
            "challenge-ru",
            page(
                "ru",
                "Подождите",
                "<h1>Проверка браузера</h1><p>Пожалуйста, подождите несколько секунд. Мы проверяем, что вы не робот.</p>",
            ),
            "Городской совет утвердил бюджет порта",
        ),
        (
            "challenge-padded",
            page(
                "en",
                "Please wait",
                &format!(
                    "<h1>Checking your browser before you continue</h1>{}",
                    padding(30)
                ),
            ),
            "Harbour council approves ferry budget",
        ),
        // Rate limits.
        (
            "rate-en",
            page(
                "en",
                "Slow down",
                "<h1>Slow down</h1><p>Error 429. You sent more requests than we can answer right now. Try again in a minute.</p>",
            ),
            "Vintage tram returns to coastal line",
        ),
        (
            "rate-de",
            page(
                "de",
                "Zu viele Anfragen",
                "<h1>Zu viele Anfragen</h1><p>Bitte versuchen Sie es in einigen Minuten erneut.</p>",
            ),
            "Historische Straßenbahn fährt wieder an der Küste",
        ),
        (
            "rate-fr",
            page(
                "fr",
                "Trop de requêtes",
                "<h1>Trop de requêtes</h1><p>Veuillez réessayer dans quelques minutes.</p>",
            ),
            "Le tramway historique reprend du service sur la côte",
        ),
        (
            "refused-en",
            page(
                "en",
                "Request refused",
                "<h1>We could not serve this request</h1><p>Our systems turned it away. If you think this is a mistake, write to the webmaster with the reference below.</p><p>Reference: 18.7f3a.1732</p>",
            ),
            "Vintage tram returns to coastal line",
        ),
        // Soft 404s.
        (
            "soft404-en",
            page(
                "en",
                "Lost?",
                "<h1>This page wandered off</h1><p>We looked everywhere but it seems to have gone for a walk. Try the search box or head back home.</p>",
            ),
            "Museum unveils restored medieval tapestry",
        ),
        (
            "soft404-de",
            page(
                "de",
                "Hoppla",
                "<h1>Diese Seite gibt es nicht</h1><p>Vielleicht wurde sie verschoben. Nutzen Sie die Suche.</p>",
            ),
            "Museum zeigt restaurierten Wandteppich",
        ),
        (
            "soft404-es",
            page(
                "es",
                "Vaya",
                "<h1>Esta página ha sido eliminada</h1><p>Puede que el enlace esté roto. Vuelva a la portada.</p>",
            ),
            "El museo presenta un tapiz medieval restaurado",
        ),
        (
            "soft404-removed",
            page(
                "en",
                "Gone",
                "<h1>Sorry</h1><p>The content you requested has been removed by its owner.</p>",
            ),
            "Museum unveils restored medieval tapestry",
        ),
        // Consent walls.
        (
            "consent-en",
            page(
                "en",
                "Before you continue",
                "<h1>Before you continue</h1><p>We and our partners use cookies and similar technologies to store and access information on your device, to measure audiences and to show you personalised advertising.</p><p><button>Accept all</button> <button>Reject all</button> <button>Manage options</button></p>",
            ),
            "Wildfire season starts early in the south",
        ),
        (
            "consent-vendors",
            page(
                "en",
                "Your choices",
                &format!(
                    "<h1>Your choices</h1><p>You can decide which of the companies below may process your data.</p><ul>{vendors}</ul><button>Save</button>"
                ),
            ),
            "Wildfire season starts early in the south",
        ),
        (
            "consent-de",
            page(
                "de",
                "Datenschutz",
                "<h1>Wir schätzen Ihre Privatsphäre</h1><p>Mit Ihrer Einwilligung verarbeiten wir und unsere Partner Daten.</p><p><button>Alle akzeptieren</button></p>",
            ),
            "Waldbrandsaison beginnt früh im Süden",
        ),
        (
            "consent-fr",
            page(
                "fr",
                "Vos choix",
                "<h1>Vos choix</h1><p>Nous et nos partenaires utilisons vos données avec votre consentement.</p><p><button>Tout accepter</button></p>",
            ),
            "La saison des incendies commence tôt dans le sud",
        ),
        // Login walls.
        (
            "login-en",
            page(
                "en",
                "Members area",
                &format!(
                    "<h1>Members area</h1><p>Please identify yourself to go on.</p>{login_form}"
                ),
            ),
            "Local bakery wins national bread prize",
        ),
        (
            "login-de",
            page(
                "de",
                "Anmelden",
                &format!(
                    "<h1>Bitte anmelden</h1><p>Dieser Bereich ist nur für Mitglieder.</p>{login_form}"
                ),
            ),
            "Bäckerei gewinnt nationalen Brotpreis",
        ),
        (
            "login-pl",
            page(
                "pl",
                "Logowanie",
                &format!(
                    "<h1>Zaloguj się</h1><p>Ta sekcja jest dostępna tylko dla członków.</p>{login_form}"
                ),
            ),
            "Lokalna piekarnia wygrywa krajową nagrodę",
        ),
        // Paywalls.
        (
            "paywall-en",
            page(
                "en",
                "Subscribers only",
                "<h1>This story is for paying readers</h1><p>Become a member today and read without limits. Already have an account? Sign in.</p>",
            ),
            "Regional airline adds winter routes",
        ),
        (
            "paywall-de",
            page(
                "de",
                "Plus",
                "<h1>Dieser Artikel ist exklusiv für Abonnenten</h1><p>Jetzt abonnieren und weiterlesen.</p>",
            ),
            "Regionale Fluglinie ergänzt Winterstrecken",
        ),
        (
            "paywall-fr",
            page(
                "fr",
                "Abonnés",
                "<h1>Cet article est réservé aux abonnés</h1><p>Abonnez-vous pour lire la suite.</p>",
            ),
            "Une compagnie régionale ajoute des lignes d'hiver",
        ),
        // Parked domains.
        (
            "parked-en",
            page(
                "en",
                "example-news.com",
                "<h1>example-news.com</h1><p>The owner of this name may consider offers. Make yours today.</p>",
            ),
            "Scientists map deep ocean currents",
        ),
        (
            "parked-de",
            page(
                "de",
                "Domain",
                "<h1>Diese Domain steht zum Verkauf</h1><p>Jetzt Angebot abgeben.</p>",
            ),
            "Forscher kartieren Meeresströmungen",
        ),
        (
            "parked-pl",
            page(
                "pl",
                "Domena",
                "<h1>Ta domena jest na sprzedaż</h1><p>Złóż ofertę już dziś.</p>",
            ),
            "Naukowcy badają prądy oceaniczne",
        ),
        // Legal and geographic blocks.
        (
            "geo-451",
            page(
                "en",
                "451",
                "<h1>451: Unavailable due to legal reasons</h1><p>We recognize you are attempting to access this website from a country belonging to the European Economic Area. For now, access cannot be granted.</p>",
            ),
            "County fair breaks attendance record",
        ),
        (
            "geo-fr",
            page(
                "fr",
                "Indisponible",
                "<h1>Ce contenu n'est pas disponible dans votre pays</h1><p>Nous sommes désolés.</p>",
            ),
            "La foire du comté bat son record",
        ),
        (
            "geo-ru",
            page(
                "ru",
                "Недоступно",
                "<h1>Сайт недоступен в вашем регионе</h1><p>Приносим извинения.</p>",
            ),
            "Ярмарка установила рекорд посещаемости",
        ),
        // Empty bodies: no text beyond the title.
        (
            "empty-en",
            page("en", "County fair breaks attendance record", ""),
            "County fair breaks attendance record",
        ),
        (
            "empty-de",
            page(
                "de",
                "Messe bricht Besucherrekord",
                "<div class=\"content\"></div>",
            ),
            "Messe bricht Besucherrekord",
        ),
        (
            "empty-fr",
            page(
                "fr",
                "La foire bat son record",
                "<h1>La foire bat son record</h1>",
            ),
            "La foire bat son record",
        ),
    ]
}

#[test]
fn walls_in_any_wording_and_language_are_never_articles() {
    let mut taken = Vec::new();
    for (name, html, title) in walls() {
        let verdict = verdict_for_entry(&html, title);
        if verdict.is_article() {
            taken.push(format!("{name}: {verdict}"));
        }
    }
    assert!(taken.is_empty(), "walls taken for articles: {taken:#?}");
}

#[test]
fn a_legal_block_served_as_a_page_is_blocked_and_an_empty_body_not_an_article() {
    let walls = walls();
    let of = |wanted: &str| {
        let (_, html, title) = walls
            .iter()
            .find(|(name, ..)| *name == wanted)
            .expect("wall");
        verdict_for_entry(html, title)
    };
    assert_eq!(of("geo-451"), Verdict::Blocked);
    assert_eq!(of("geo-ru"), Verdict::Blocked);
    assert_eq!(of("empty-en"), Verdict::NotArticle);
    assert_eq!(of("empty-fr"), Verdict::NotArticle);
}

/// News briefs whose headlines carry the words walls are written in: each is the story of
/// the entry that links to it.
fn briefs() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "Access denied: court blocks agency's data plan",
            "A federal court on Tuesday halted the agency's plan to share taxpayer records with outside contractors, siding with privacy groups. The judge said the agency had not shown that the transfer was lawful. An appeal is expected within weeks.",
        ),
        (
            "Just a moment: the photo that stopped a city",
            "The picture, taken seconds before the bridge lights came on, was shared two million times by Friday. Its photographer, a retired teacher, said she had waited three winters for the fog to settle over the river at dusk.",
        ),
        (
            "Not found: the missing Vermeer",
            "Investigators still have no trace of the painting taken from a private collection in 1990. On Monday the collection's trustees doubled the reward and released photographs of the frame, which was left behind in the hallway.",
        ),
        (
            "EU fines firm over cookie consent banners",
            "Regulators fined the advertising company 40 million euros on Thursday for banners that made refusing tracking harder than agreeing to it. The company said it would change the design across its sites by the end of the year and weighs an appeal.",
        ),
        (
            "Are you 18? New ID checks start at kiosks",
            "Newsagents across the region began asking young customers for identification this week under rules that took effect on Monday. Shop owners said the checks slowed queues at first, while the trading standards office promised spot inspections.",
        ),
        (
            "How to set a strong password for your router",
            "Open the router's settings page and choose the security tab. Pick a passphrase of at least four unrelated words, avoid anything printed on the device itself, and save the change before you close the page.\n<form><label>Try it <input type=\"password\"></label></form>",
        ),
        (
            "Page not found: library digitises lost catalogue",
            "The city library has scanned the card catalogue that was thought destroyed in the 1960s flood. Archivists found the boxes in a basement storeroom last spring and expect the records to go online by March.",
        ),
        (
            "Too many requests? Passport office hires staff",
            "The passport office will hire two hundred clerks after applications rose by a third this summer. Waiting times reached eleven weeks in August, and officials hope to bring them back under four by the new year.",
        ),
        (
            "Sign in to vote: council trials online ballots",
            "Residents will be able to vote in the spring consultation through an online account for the first time. The council said paper ballots remain available at every library and that the trial will be reviewed after the count.",
        ),
        (
            "Subscribe to continue? Readers push back on paywalls",
            "A survey of four thousand readers found that most would pay for local news only if the price were lower than a streaming service. Editors said the results would shape next year's membership scheme and its student discount.",
        ),
        (
            "Domain for sale: town's old website auctioned",
            "The town's former web address, dropped after a merger, sold at auction for twelve thousand pounds to a local history society. The society plans to publish old photographs and council minutes on it next year.",
        ),
        (
            "Verify you are human: the bots that beat captchas",
            "Researchers showed on Wednesday that image puzzles used to keep bots away can now be solved by software more reliably than by people. They urged websites to rely on other signals, such as how a visitor moves through a page.",
        ),
        (
            "Unavailable in your country: streaming rights row",
            "Viewers abroad were unable to watch the final after the broadcaster failed to agree on overseas rights. The league said it would review how matches are licensed and apologised to supporters who had paid for passes.",
        ),
        (
            "Zugriff verweigert: Gericht stoppt Datenweitergabe",
            "Ein Gericht hat am Dienstag die geplante Weitergabe von Steuerdaten an externe Firmen gestoppt. Die Richter sahen keine ausreichende Rechtsgrundlage, und die Behörde kündigte an, die Entscheidung zu prüfen.",
        ),
        (
            "Accès refusé : la justice suspend le fichier",
            "Le tribunal administratif a suspendu mardi la création du fichier contesté par plusieurs associations. Les juges ont estimé que les garanties prévues étaient insuffisantes et ont demandé un nouvel examen.",
        ),
        (
            "Página no encontrada: el archivo perdido aparece",
            "Un archivo municipal que se creía perdido desde hace décadas apareció en un almacén del puerto. Los historiadores comenzarán a catalogar los documentos el próximo mes con ayuda de voluntarios.",
        ),
        (
            "Доступ запрещён: суд остановил передачу данных",
            "Суд во вторник остановил передачу налоговых данных сторонним компаниям. Судьи сочли, что у ведомства нет достаточных оснований, и ведомство обещало изучить решение.",
        ),
        (
            "Enable JavaScript? Browser makers test a switch",
            "Two browser makers are testing a setting that turns off scripts on unfamiliar sites by default. Early testers reported faster pages and fewer pop-ups, though some shopping sites stopped working entirely.",
        ),
        (
            "Cookie consent fatigue grows, study finds",
            "People now click away consent pop-ups in under two seconds on average, according to a study published on Monday. The authors said the banners no longer inform anyone and called for browser-level settings instead.",
        ),
        (
            "Login troubles hit bank customers for hours",
            "Customers of the bank could not reach their accounts for most of Saturday after an update went wrong. The bank said no money was lost, apologised, and promised to refund any fees caused by the outage.",
        ),
    ]
}

#[test]
fn briefs_whose_headlines_use_a_walls_words_stay_articles() {
    let mut refused = Vec::new();
    for (title, story) in briefs() {
        let (text, rest) = story.split_once('\n').unwrap_or((story, ""));
        let sentences: Vec<&str> = text.split_inclusive(". ").collect();
        let half = sentences.len().div_ceil(2);
        let body = format!(
            "<article><h1>{title}</h1><p class=\"byline\">By Staff Reporter · 12 March 2026</p>\
             <p>{}</p><p>{}</p>{rest}</article>",
            sentences[..half].concat(),
            sentences[half..].concat()
        );
        let verdict = verdict_for_entry(&page("en", title, &body), title);
        if verdict != Verdict::Article {
            refused.push(format!("{title}: {verdict}"));
        }
    }
    assert!(refused.is_empty(), "briefs refused: {refused:#?}");
}
