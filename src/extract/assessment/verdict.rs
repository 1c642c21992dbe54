//! What a page is: an article, a teaser, or one of the pages that stand where an article
//! should (a bot challenge, an application shell, a soft 404, a consent or login wall, a
//! parked domain). The verdict is part of every [`Extraction`](crate::extract::Extraction), and the
//! pipeline stores from the page only what [`Verdict::is_article`] accepts.
//!
//! The names are the contract of `../specs/cli.md` ("Extraction"): stored, exported, served
//! and counted in metrics by [`Verdict::as_str`].
//!
//! Over 600 lines, kept whole: every verdict is read from the same pass over the page ([`judge`])
//! and the cue phrases it finds; the order the verdicts are tried in is one function.

use std::cell::OnceCell;
use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use scraper::{Html, Selector};

use crate::extract::dom::{TextBlock, collapse_whitespace};
use crate::extract::page_type::PageType;
use crate::extract::relation::{self, Relation};
use crate::extract::{Extraction, Page};
use crate::tidy;

/// What a page was found to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Verdict {
    /// A page whose main content is an article.
    #[default]
    Article,
    /// A real lead, then a subscription or registration prompt.
    Teaser,
    /// A bot challenge, captcha, access-denied or rate-limit page.
    Blocked,
    /// An application shell with no content of its own.
    NeedsJavascript,
    /// A page saying the article does not exist, whatever its status.
    NotFound,
    /// A cookie or consent wall.
    Consent,
    /// A login wall.
    Login,
    /// A parked domain, an age gate, a geo block, an empty body.
    NotArticle,
}

impl Verdict {
    /// Every verdict, articles first.
    pub const ALL: [Verdict; 8] = [
        Verdict::Article,
        Verdict::Teaser,
        Verdict::Blocked,
        Verdict::NeedsJavascript,
        Verdict::NotFound,
        Verdict::Consent,
        Verdict::Login,
        Verdict::NotArticle,
    ];

    /// The stored and printed name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Article => "article",
            Verdict::Teaser => "teaser",
            Verdict::Blocked => "blocked",
            Verdict::NeedsJavascript => "needs_javascript",
            Verdict::NotFound => "not_found",
            Verdict::Consent => "consent",
            Verdict::Login => "login",
            Verdict::NotArticle => "not_article",
        }
    }

    /// An article or a teaser: something of the story itself is on the page.
    pub fn is_article(self) -> bool {
        matches!(self, Verdict::Article | Verdict::Teaser)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a verdict.
#[derive(Debug, thiserror::Error)]
#[error("unknown verdict `{0}`")]
pub struct UnknownVerdict(pub String);

impl FromStr for Verdict {
    type Err = UnknownVerdict;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownVerdict(s.to_string()))
    }
}

impl serde::Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Builds the phrase and marker automata and the selectors ([`crate::extract::warm_up`]).
pub(crate) fn warm_up() {
    LazyLock::force(&PHRASE_FINDER);
    LazyLock::force(&MARK_FINDER);
    LazyLock::force(&APP_ROOTS);
    LazyLock::force(&NOSCRIPTS);
    LazyLock::force(&PASSWORD_FIELDS);
}

/// The verdict on `page`, given what extraction found on it (`None`: nothing).
///
/// Most pages are decided by one comparison: a main text of [`ARTICLE_TEXT`] bytes or more
/// is an article. Shorter ones are read for the phrases walls are written in (title,
/// headings, main text), and only when those or the page's size call for it is the source
/// searched for the markers of the services that serve walls ([`Mark`]).
///
/// Structure comes before wording ([`relation`]): a page that shares none of its entry's
/// title words is not that entry's article, however long, and its kind is read from its
/// words (a wall of an unknown wording is `not_article`); a page that repeats its entry's
/// title and tells something in prose is the story, whatever words its headline uses
/// ("Access denied: court blocks…"); a page with no text beyond its titles is `not_article`.
pub fn judge(page: &Page, extraction: Option<&Extraction>) -> Verdict {
    crate::stages::measure(crate::stages::Stage::Verdict, || {
        let text = extraction.map_or("", |e| e.text.trim());
        let related = relation::relation(page, text);
        if related == Relation::Unrelated {
            // Not that entry's article: a wall by its words, or a page with no story to tell.
            // A page that tells a story of its own is judged as any page is (a feed whose
            // titles are its readers' words, not the page's).
            let reading = Reading::new(page, text);
            // A consent dialog's paragraphs are prose too, but about the site, not a story.
            let own_story = story_prose(text, &[Cue::Consent]);
            if own_story < relation::STORY_PROSE || reading.headed_as_wall() {
                return reading.wall_kind();
            }
        }
        if text.len() >= ARTICLE_TEXT {
            return Verdict::Article;
        }
        let mut reading = Reading::new(page, text);
        reading.pictured = extraction.is_some_and(|e| !e.images.is_empty());
        let tells_the_story = reading.tells_the_story()
            || (related == Relation::Related && story_prose(text, &[]) >= relation::STORY_PROSE);
        if tells_the_story {
            return if reading.is_teaser() {
                Verdict::Teaser
            } else {
                Verdict::Article
            };
        }
        match reading.verdict() {
            // A thread, a documentation page or a product whose content was found is no failed
            // article: `not_article` is kept for pages with no main content of any type.
            Verdict::NotArticle if !text.is_empty() && page.page_type != PageType::Article => {
                Verdict::Article
            }
            verdict => verdict,
        }
    })
}

/// Bytes of the main text in paragraphs of prose ([`relation::is_prose`]) that are no
/// prompt or notice: a paragraph asking to subscribe, sign in, prove one is human or turn
/// JavaScript on is a wall's, however well written; so is one with a cue of `also`.
fn story_prose(text: &str, also: &[Cue]) -> usize {
    const NOTICES: [Cue; 6] = [
        Cue::Paywall,
        Cue::ReadOn,
        Cue::Subscribe,
        Cue::Login,
        Cue::Challenge,
        Cue::Javascript,
    ];
    text.split("\n\n")
        .map(str::trim)
        .filter(|paragraph| relation::is_prose(paragraph))
        .filter(|paragraph| {
            let cues = Cues::of(paragraph);
            !cues.has_any(&NOTICES) && !cues.has_any(also)
        })
        .map(str::len)
        .sum()
}

/// Main text at least this long is an article: walls are short. 4,000 bytes: the longest
/// wall met (a consent dialog listing its purposes) is about 3,000.
const ARTICLE_TEXT: usize = 4000;

/// Main text below this may be a wall of any kind; between it and [`ARTICLE_TEXT`] only a
/// consent dialog (whose purposes and partners run long) or a teaser's lead. A page's own
/// notice (a challenge, a soft 404, a login form) is a few sentences: 200–900 bytes on the
/// fixtures.
const SHORT_TEXT: usize = 1500;

/// A page whose text (all of it, furniture included) is below this is small enough to be a
/// service's challenge or block page: those are a notice and a footer line.
const SMALL_PAGE: usize = 2500;

/// A wall's source is at most this many bytes (a challenge or parking page is 1–40 KB,
/// its scripts loaded from elsewhere); a larger one is not searched for a service's markers.
const WALL_SOURCE: usize = 128 * 1024;

/// A page whose text is below this is a shell: nothing a reader could read.
const EMPTY_PAGE: usize = 200;

/// A teaser's lead: at least this many bytes in at least [`TEASER_PARAGRAPHS`] paragraphs,
/// and at most [`TEASER_TEXT`] (a longer text is the article, whatever follows it).
const TEASER_LEAD: usize = 250;
const TEASER_PARAGRAPHS: usize = 2;
const TEASER_TEXT: usize = 3000;

/// How far after the lead's last paragraph the subscription prompt may start: blocks, and
/// bytes of text in between (a share bar, an ad label).
const PROMPT_BLOCKS: usize = 12;
const PROMPT_GAP: usize = 400;

/// A title segment or heading names what a page is when it is the phrase and at most this
/// many bytes more ("Oops! That page can't be found.", "Sign in to your account"): a
/// headline that quotes the phrase is longer.
const NAME_SLACK: usize = 24;

/// A heading read for wall phrases is at most this long.
const HEADING_TEXT: usize = 160;

/// What is known of one short page: the phrases of its main text, and (each on the first
/// question about it) those of its headings and of all its text, and its source's markers.
struct Reading<'a> {
    page: &'a Page,
    /// The main text.
    text: &'a str,
    /// Extraction kept images: a page of pictures says something without words.
    pictured: bool,
    /// Phrases in the main text, paragraph by paragraph.
    main: Cues,
    /// Phrases in the page's title.
    title: Cues,
    /// Phrases in the page's title and headings.
    headings: OnceCell<Cues>,
    /// Phrases in all of the page's text when the page is small (below [`SMALL_PAGE`]): the
    /// extraction may have kept none of a challenge's lines, scattered over tiny blocks.
    page_text: OnceCell<Option<Cues>>,
    /// The markers of the source.
    marks: OnceCell<Marks>,
}

impl<'a> Reading<'a> {
    fn new(page: &'a Page, text: &'a str) -> Reading<'a> {
        let mut main = Cues::default();
        for paragraph in text.split("\n\n") {
            main.scan_paragraph(paragraph);
        }
        let mut title = Cues::default();
        if let Some(page_title) = page.stats.page_title.as_deref() {
            title.scan_heading(page_title, true);
        }
        Reading {
            page,
            text,
            pictured: false,
            main,
            title,
            headings: OnceCell::new(),
            page_text: OnceCell::new(),
            marks: OnceCell::new(),
        }
    }

    fn headings(&self) -> &Cues {
        self.headings.get_or_init(|| {
            let mut headings = self.title.clone();
            for block in &self.page.stats.blocks {
                if block.is_heading() && block.sl <= HEADING_TEXT {
                    headings.scan_heading(&block.text, false);
                }
            }
            headings
        })
    }

    /// Whether the small page's text holds `cue` (never, on a page that is not small).
    fn page_has(&self, cue: Cue) -> bool {
        self.page_text
            .get_or_init(|| {
                (self.page.stats.sh < SMALL_PAGE).then(|| {
                    let mut all = Cues::default();
                    for block in &self.page.stats.blocks {
                        all.scan_paragraph(&block.text);
                    }
                    all
                })
            })
            .as_ref()
            .is_some_and(|cues| cues.has(cue))
    }

    /// The markers of the whole source.
    fn marks(&self) -> Marks {
        *self.marks.get_or_init(|| Marks::scan(&self.page.source))
    }

    /// The markers of a wall's source: walls are small pages in bytes as well as in text, so
    /// a larger source is not searched (and holds none).
    fn wall_marks(&self) -> Marks {
        if self.page.source.len() > WALL_SOURCE {
            return Marks::default();
        }
        self.marks()
    }

    /// The feed entry's own text is in the main text: whatever else the page holds, the
    /// story is there.
    fn tells_the_story(&self) -> bool {
        let Some(feed_text) = self.page.feed_text.as_deref() else {
            return false;
        };
        let opening = opening_words(feed_text, FEED_OPENING);
        opening.len() >= FEED_OPENING / 2 && collapse_whitespace(self.text).contains(&opening)
    }

    /// The rules, strongest evidence first.
    fn verdict(&self) -> Verdict {
        let short = self.text.len() < SHORT_TEXT;
        let page_text = self.page.stats.sh;
        if short && self.is_blocked() {
            return Verdict::Blocked;
        }
        if page_text < EMPTY_PAGE && self.text.len() < EMPTY_PAGE && self.is_app_shell() {
            return Verdict::NeedsJavascript;
        }
        if short && self.headings().names(Cue::NotFound) {
            return Verdict::NotFound;
        }
        if self.is_consent_wall() {
            return Verdict::Consent;
        }
        if self.is_teaser() {
            return Verdict::Teaser;
        }
        if self.text.len() < LOGIN_TEXT && self.is_login_wall() {
            return Verdict::Login;
        }
        if short && page_text < SMALL_PAGE && self.is_geo_block() {
            return Verdict::Blocked;
        }
        if short && page_text < SMALL_PAGE && self.is_gate() {
            return Verdict::NotArticle;
        }
        if self.text.is_empty()
            || (!self.pictured && relation::nothing_beyond_titles(self.page, self.text))
        {
            return Verdict::NotArticle;
        }
        Verdict::Article
    }

    /// Whether the page's title or headings name it a wall, or its source is a
    /// bot-protection service's page: a wall padded with text of its own.
    fn headed_as_wall(&self) -> bool {
        const WALLS: [Cue; 9] = [
            Cue::Challenge,
            Cue::Denied,
            Cue::GeoBlock,
            Cue::Javascript,
            Cue::Consent,
            Cue::Login,
            Cue::Paywall,
            Cue::Parked,
            Cue::AgeGate,
        ];
        self.headings().has_any(&WALLS)
            || self.headings().names(Cue::NotFound)
            || self.wall_marks().has(Mark::Challenge)
    }

    /// What a page that is not its entry's article stands in for, by its words and marks
    /// wherever they are on the page; one whose words say nothing known is `not_article`.
    fn wall_kind(&self) -> Verdict {
        let said = |cues: &[Cue]| {
            self.main.has_any(cues)
                || self.headings().has_any(cues)
                || cues.iter().any(|&cue| self.page_has(cue))
        };
        let marks = self.wall_marks();
        if marks.has(Mark::Challenge)
            || marks.has(Mark::Captcha)
            || said(&[Cue::Challenge, Cue::Denied, Cue::GeoBlock])
        {
            Verdict::Blocked
        } else if said(&[Cue::Javascript]) || has_empty_app_root(&self.page.document) {
            Verdict::NeedsJavascript
        } else if said(&[Cue::NotFound]) || self.headings().names(Cue::NotFound) {
            Verdict::NotFound
        } else if said(&[Cue::Consent]) || marks.has(Mark::ConsentPlatform) {
            Verdict::Consent
        } else if said(&[Cue::Login, Cue::Paywall]) {
            Verdict::Login
        } else {
            Verdict::NotArticle
        }
    }

    /// A bot challenge, captcha, access-denied or rate-limit page: a service's marker on a
    /// small page, or a challenge's words as the title or heading of a smaller one.
    fn is_blocked(&self) -> bool {
        let page_text = self.page.stats.sh;
        if page_text >= SMALL_PAGE {
            return false;
        }
        let marks = self.wall_marks();
        if marks.has(Mark::Challenge) {
            return true;
        }
        if page_text < BLOCK_NOTICE && self.headings().has_any(&[Cue::Challenge, Cue::Denied]) {
            return true;
        }
        // A captcha widget with the words asking to solve it, and little else.
        page_text < BLOCK_NOTICE && marks.has(Mark::Captcha) && self.page_has(Cue::Challenge)
    }

    /// An application shell: next to nothing to read, and an application's mount point, or
    /// a `<noscript>` (or the text) asking for JavaScript.
    fn is_app_shell(&self) -> bool {
        self.page_has(Cue::Javascript)
            || self.headings().has(Cue::Javascript)
            || has_empty_app_root(&self.page.document)
            || noscript_asks_for_javascript(&self.page.document)
    }

    /// A consent dialog as the main text: its words in most of its paragraphs, several of
    /// them, from a consent platform or under a consent heading.
    fn is_consent_wall(&self) -> bool {
        let main = &self.main;
        if main.distinct(Cue::Consent) < CONSENT_PHRASES
            || main.paragraphs(Cue::Consent) * 2 < main.paragraph_count.max(1)
        {
            return false;
        }
        let consent_host = self
            .page
            .base
            .as_ref()
            .and_then(|url| url.host_str())
            .is_some_and(|host| host.starts_with("consent.") || host.starts_with("guce."));
        consent_host || self.headings().has(Cue::Consent) || self.marks().has(Mark::ConsentPlatform)
    }

    /// A login wall: the main text opens by asking to sign in (or the title is a sign-in
    /// page's), and a password field is shown. A login box in a sidebar, or in a dialog
    /// hidden until a click, is no wall.
    fn is_login_wall(&self) -> bool {
        (self.main.opens_with(Cue::Login) || self.title.names(Cue::Login))
            && self.page.stats.sh < SMALL_PAGE * 2
            && has_visible_password_field(&self.page.document)
    }

    /// A legal or geographic block served as a page (often with status 200): the site
    /// refuses the reader, as a bot check does.
    fn is_geo_block(&self) -> bool {
        self.main.has(Cue::GeoBlock)
            || self.headings().has(Cue::GeoBlock)
            || self.page_has(Cue::GeoBlock)
    }

    /// A parked domain or an age gate.
    fn is_gate(&self) -> bool {
        const GATES: [Cue; 2] = [Cue::Parked, Cue::AgeGate];
        self.main.has_any(&GATES)
            || self.headings().has_any(&GATES)
            || GATES.iter().any(|&cue| self.page_has(cue))
            || self.wall_marks().has(Mark::Parking)
    }

    /// A real lead (paragraphs of the article), then a subscription or registration prompt
    /// right after it.
    fn is_teaser(&self) -> bool {
        let text = self.text;
        if text.len() < TEASER_LEAD || text.len() > TEASER_TEXT {
            return false;
        }
        let mut paragraphs: Vec<&str> = text.split("\n\n").collect();
        // The prompt may have been kept as the text's last paragraph.
        let prompt_kept = paragraphs
            .last()
            .is_some_and(|last| last.len() <= PROMPT_TEXT && Cues::of(last).is_prompt());
        if prompt_kept {
            paragraphs.pop();
        }
        let lead: usize = paragraphs.iter().map(|p| p.len()).sum();
        let Some(last) = paragraphs.last() else {
            return false;
        };
        if paragraphs.len() < TEASER_PARAGRAPHS || lead < TEASER_LEAD {
            return false;
        }
        prompt_kept || prompt_follows(&self.page.stats.blocks, last)
    }
}

/// Bytes of the feed text's opening compared with the main text.
pub(crate) const FEED_OPENING: usize = 60;

/// A challenge's words in the title decide a page below this much text.
const BLOCK_NOTICE: usize = 1500;

/// A login wall's main text is below this: a heading, a line and the form's labels.
const LOGIN_TEXT: usize = 1000;

/// Distinct consent phrases a consent dialog holds ("cookies", "partners", "consent",
/// "legitimate interest", "accept all", …).
const CONSENT_PHRASES: usize = 4;

/// The first `bytes` of `text`, whitespace collapsed, cut at a word's end.
pub(crate) fn opening_words(text: &str, bytes: usize) -> String {
    let collapsed = collapse_whitespace(text);
    if collapsed.len() <= bytes {
        return collapsed;
    }
    let mut cut = bytes;
    while !collapsed.is_char_boundary(cut) {
        cut -= 1;
    }
    match collapsed[..cut].rfind(' ') {
        Some(space) => collapsed[..space].to_string(),
        None => collapsed[..cut].to_string(),
    }
}

/// Whether a block with a subscription prompt comes right after the block that holds the
/// lead's last paragraph.
fn prompt_follows(blocks: &[TextBlock], last_paragraph: &str) -> bool {
    let probe = opening_words(last_paragraph, 40);
    if probe.is_empty() {
        return false;
    }
    let Some(end) = blocks.iter().rposition(|b| b.text.starts_with(&probe)) else {
        return false;
    };
    let following = blocks.get(end + 1..).unwrap_or_default();
    let mut gap = 0;
    for (index, block) in following.iter().enumerate().take(PROMPT_BLOCKS) {
        let cues = Cues::of(&block.text);
        if block.sl <= PROMPT_TEXT && cues.has_any(&[Cue::Paywall, Cue::ReadOn]) {
            // A prompt's lines are often blocks of their own: "To read the full story",
            // then "Subscribe" and "Sign in" as buttons.
            let mut prompt = cues;
            for line in following.iter().skip(index + 1).take(PROMPT_LINES) {
                prompt.scan_paragraph(&line.text);
            }
            return prompt.is_prompt();
        }
        gap += block.sl;
        if gap > PROMPT_GAP {
            return false;
        }
    }
    false
}

/// The blocks after a prompt's first that are read as part of it.
const PROMPT_LINES: usize = 3;

/// A subscription prompt's block is at most this long.
const PROMPT_TEXT: usize = 300;

/// What a phrase says about the page it stands on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cue {
    /// A bot check: "Just a moment…", "verify you are human", "Press & Hold".
    Challenge,
    /// A refusal: "Access denied", "you have been blocked", "too many requests".
    Denied,
    /// A missing page: "page not found", "doesn't exist" (title segments and headings only,
    /// and only when the phrase is most of them: [`NAME_SLACK`]).
    NotFound,
    /// A consent dialog's vocabulary.
    Consent,
    /// An invitation to sign in.
    Login,
    /// A subscription or registration prompt: "Subscribe to continue reading", "Already a
    /// subscriber?".
    Paywall,
    /// An invitation to read on, which is a prompt only with [`Cue::Subscribe`] or
    /// [`Cue::Login`] in the same block ("to continue reading, subscribe"; not "click here
    /// to read the full story").
    ReadOn,
    /// Subscribing or registering.
    Subscribe,
    /// A domain for sale.
    Parked,
    /// An age gate.
    AgeGate,
    /// A geo block.
    GeoBlock,
    /// A request to turn JavaScript on.
    Javascript,
}

impl Cue {
    const COUNT: usize = 12;

    fn index(self) -> usize {
        self as usize
    }
}

/// The phrases, lowercase; a `'` also stands for `’`. English, then German, French,
/// Spanish, Italian, Portuguese and Dutch where walls are written in them.
const PHRASES: &[(&str, Cue)] = &[
    ("just a moment", Cue::Challenge),
    ("checking your browser", Cue::Challenge),
    ("checking if the site connection is secure", Cue::Challenge),
    ("verify you are human", Cue::Challenge),
    ("verify that you're not a robot", Cue::Challenge),
    ("verify you're not a robot", Cue::Challenge),
    ("are you a robot", Cue::Challenge),
    ("not a robot", Cue::Challenge),
    ("confirm you are a human", Cue::Challenge),
    ("press & hold", Cue::Challenge),
    ("press and hold", Cue::Challenge),
    ("attention required", Cue::Challenge),
    ("security check", Cue::Challenge),
    ("ddos protection", Cue::Challenge),
    ("unusual traffic", Cue::Challenge),
    ("complete the captcha", Cue::Challenge),
    ("solve the captcha", Cue::Challenge),
    (
        "bitte bestätigen sie, dass sie ein mensch sind",
        Cue::Challenge,
    ),
    ("nie jesteś robotem", Cue::Challenge),
    ("sprawdzamy twoją przeglądarkę", Cue::Challenge),
    ("проверка браузера", Cue::Challenge),
    ("вы не робот", Cue::Challenge),
    ("vérifiez que vous êtes humain", Cue::Challenge),
    ("vérification de sécurité", Cue::Challenge),
    ("verifica que eres humano", Cue::Challenge),
    ("access denied", Cue::Denied),
    ("access to this page has been denied", Cue::Denied),
    ("you have been blocked", Cue::Denied),
    ("you don't have permission to access", Cue::Denied),
    ("request unsuccessful", Cue::Denied),
    ("request blocked", Cue::Denied),
    ("too many requests", Cue::Denied),
    ("rate limit exceeded", Cue::Denied),
    ("zugriff verweigert", Cue::Denied),
    ("slow down", Cue::Denied),
    ("dostęp zabroniony", Cue::Denied),
    ("odmowa dostępu", Cue::Denied),
    ("доступ запрещен", Cue::Denied),
    ("доступ запрещён", Cue::Denied),
    ("слишком много запросов", Cue::Denied),
    ("zu viele anfragen", Cue::Denied),
    ("trop de requêtes", Cue::Denied),
    ("demasiadas solicitudes", Cue::Denied),
    ("accès refusé", Cue::Denied),
    ("acceso denegado", Cue::Denied),
    ("page not found", Cue::NotFound),
    ("not found", Cue::NotFound),
    ("can't be found", Cue::NotFound),
    ("cannot be found", Cue::NotFound),
    ("could not be found", Cue::NotFound),
    ("couldn't be found", Cue::NotFound),
    ("couldn't find", Cue::NotFound),
    ("doesn't exist", Cue::NotFound),
    ("does not exist", Cue::NotFound),
    ("no longer exists", Cue::NotFound),
    ("no longer available", Cue::NotFound),
    ("error 404", Cue::NotFound),
    ("404 error", Cue::NotFound),
    ("nicht gefunden", Cue::NotFound),
    ("existiert nicht", Cue::NotFound),
    ("existiert leider nicht", Cue::NotFound),
    ("nicht mehr verfügbar", Cue::NotFound),
    ("fehler 404", Cue::NotFound),
    ("page introuvable", Cue::NotFound),
    ("page non trouvée", Cue::NotFound),
    ("n'existe pas", Cue::NotFound),
    ("n'existe plus", Cue::NotFound),
    ("erreur 404", Cue::NotFound),
    ("página no encontrada", Cue::NotFound),
    ("no se ha encontrado", Cue::NotFound),
    ("no existe", Cue::NotFound),
    ("pagina non trovata", Cue::NotFound),
    ("non esiste", Cue::NotFound),
    ("página não encontrada", Cue::NotFound),
    ("não existe", Cue::NotFound),
    ("pagina niet gevonden", Cue::NotFound),
    ("bestaat niet", Cue::NotFound),
    ("gibt es nicht", Cue::NotFound),
    ("has been removed", Cue::NotFound),
    ("nie znaleziono", Cue::NotFound),
    ("nie istnieje", Cue::NotFound),
    ("страница не найдена", Cue::NotFound),
    ("не существует", Cue::NotFound),
    ("cookie", Cue::Consent),
    ("consent", Cue::Consent),
    ("your privacy", Cue::Consent),
    ("privacy settings", Cue::Consent),
    ("privacy policy", Cue::Consent),
    ("our partners", Cue::Consent),
    ("vendors", Cue::Consent),
    ("legitimate interest", Cue::Consent),
    ("personalised ads", Cue::Consent),
    ("personalized ads", Cue::Consent),
    ("personalised content", Cue::Consent),
    ("personalized content", Cue::Consent),
    ("ad and content measurement", Cue::Consent),
    ("store and/or access information", Cue::Consent),
    ("accept all", Cue::Consent),
    ("reject all", Cue::Consent),
    ("manage preferences", Cue::Consent),
    ("manage options", Cue::Consent),
    ("datenschutz", Cue::Consent),
    ("einwilligung", Cue::Consent),
    ("alle akzeptieren", Cue::Consent),
    ("vos données", Cue::Consent),
    ("tout accepter", Cue::Consent),
    ("consentement", Cue::Consent),
    ("aceptar todo", Cue::Consent),
    ("consentimiento", Cue::Consent),
    ("accetta tutto", Cue::Consent),
    ("zgoda", Cue::Consent),
    ("akceptuję", Cue::Consent),
    ("файлы cookie", Cue::Consent),
    ("согласие", Cue::Consent),
    ("sign in", Cue::Login),
    ("log in", Cue::Login),
    ("login", Cue::Login),
    ("anmelden", Cue::Login),
    ("einloggen", Cue::Login),
    ("se connecter", Cue::Login),
    ("connectez-vous", Cue::Login),
    ("iniciar sesión", Cue::Login),
    ("accedi", Cue::Login),
    ("inloggen", Cue::Login),
    ("zaloguj się", Cue::Login),
    ("войти", Cue::Login),
    ("войдите", Cue::Login),
    ("subscribe to continue", Cue::Paywall),
    ("subscribe to read", Cue::Paywall),
    ("subscribe to keep reading", Cue::Paywall),
    ("subscribe to unlock", Cue::Paywall),
    ("to continue reading", Cue::ReadOn),
    ("to keep reading", Cue::ReadOn),
    ("to read the full", Cue::ReadOn),
    ("to read the rest", Cue::ReadOn),
    ("to read this article", Cue::ReadOn),
    ("already a subscriber", Cue::Paywall),
    ("already subscribed", Cue::Paywall),
    ("subscribers only", Cue::Paywall),
    ("exclusive to subscribers", Cue::Paywall),
    ("for subscribers", Cue::Paywall),
    ("this article is for members", Cue::Paywall),
    ("unlock this article", Cue::Paywall),
    ("create a free account to", Cue::Paywall),
    ("register to continue", Cue::Paywall),
    ("register for free to", Cue::Paywall),
    ("jetzt weiterlesen", Cue::ReadOn),
    ("um weiterzulesen", Cue::ReadOn),
    ("bereits abonnent", Cue::Paywall),
    ("réservé aux abonnés", Cue::Paywall),
    ("déjà abonné", Cue::Paywall),
    ("pour lire la suite", Cue::ReadOn),
    ("exclusivo para suscriptores", Cue::Paywall),
    ("para seguir leyendo", Cue::ReadOn),
    ("ya eres suscriptor", Cue::Paywall),
    ("per continuare a leggere", Cue::ReadOn),
    ("già abbonato", Cue::Paywall),
    ("exclusivo para assinantes", Cue::Paywall),
    ("já é assinante", Cue::Paywall),
    ("al abonnee", Cue::Paywall),
    ("subscribe", Cue::Subscribe),
    ("subscription", Cue::Subscribe),
    ("subscriber", Cue::Subscribe),
    ("register", Cue::Subscribe),
    ("create an account", Cue::Subscribe),
    ("free trial", Cue::Subscribe),
    ("abonn", Cue::Subscribe),
    ("abbona", Cue::Subscribe),
    ("suscri", Cue::Subscribe),
    ("assin", Cue::Subscribe),
    ("domain is for sale", Cue::Parked),
    ("domain may be for sale", Cue::Parked),
    ("domain name is for sale", Cue::Parked),
    ("buy this domain", Cue::Parked),
    ("this domain is parked", Cue::Parked),
    ("domain has expired", Cue::Parked),
    ("domain steht zum verkauf", Cue::Parked),
    ("domena jest na sprzedaż", Cue::Parked),
    ("домен продается", Cue::Parked),
    ("domaine est à vendre", Cue::Parked),
    ("dominio está a la venta", Cue::Parked),
    ("legal drinking age", Cue::AgeGate),
    ("are you over 18", Cue::AgeGate),
    ("are you 18", Cue::AgeGate),
    ("are you 21", Cue::AgeGate),
    ("you must be 18", Cue::AgeGate),
    ("you must be 21", Cue::AgeGate),
    ("years or older to enter", Cue::AgeGate),
    ("verify your age", Cue::AgeGate),
    ("age verification", Cue::AgeGate),
    ("not available in your country", Cue::GeoBlock),
    ("not available in your region", Cue::GeoBlock),
    ("unavailable in your country", Cue::GeoBlock),
    ("unavailable in your region", Cue::GeoBlock),
    ("unavailable in most european countries", Cue::GeoBlock),
    ("unavailable for legal reasons", Cue::GeoBlock),
    ("not available in the eu", Cue::GeoBlock),
    ("in ihrem land nicht verfügbar", Cue::GeoBlock),
    ("unavailable due to legal reasons", Cue::GeoBlock),
    ("not available in your location", Cue::GeoBlock),
    ("not available to users in", Cue::GeoBlock),
    ("non disponible dans votre pays", Cue::GeoBlock),
    ("no está disponible en tu país", Cue::GeoBlock),
    ("niedostępna w twoim kraju", Cue::GeoBlock),
    ("недоступен в вашем регионе", Cue::GeoBlock),
    ("недоступна в вашей стране", Cue::GeoBlock),
    ("enable javascript", Cue::Javascript),
    ("javascript is disabled", Cue::Javascript),
    ("javascript is required", Cue::Javascript),
    ("requires javascript", Cue::Javascript),
    ("javascript to run this app", Cue::Javascript),
    ("turn on javascript", Cue::Javascript),
    ("javascript aktivieren", Cue::Javascript),
    ("activer javascript", Cue::Javascript),
    ("activa javascript", Cue::Javascript),
];

/// [`PHRASES`], each with an apostrophe also as `’`: the patterns and the cue of each.
struct PhraseFinder {
    automaton: Option<AhoCorasick>,
    cues: Vec<Cue>,
}

static PHRASE_FINDER: LazyLock<PhraseFinder> = LazyLock::new(|| {
    let mut patterns = Vec::with_capacity(PHRASES.len() + 16);
    let mut cues = Vec::with_capacity(PHRASES.len() + 16);
    for &(phrase, cue) in PHRASES {
        patterns.push(phrase.to_string());
        cues.push(cue);
        if phrase.contains('\'') {
            patterns.push(phrase.replace('\'', "’"));
            cues.push(cue);
        }
        // The automaton folds ASCII case only: a phrase opening with another letter is also
        // sought capitalized, as a heading or sentence starts it ("Доступ запрещён").
        let mut chars = phrase.chars();
        if let Some(first) = chars.next().filter(|c| !c.is_ascii() && c.is_lowercase()) {
            patterns.push(first.to_uppercase().chain(chars).collect());
            cues.push(cue);
        }
    }
    assert!(
        patterns.len() <= SEEN_BITS,
        "Cues::seen holds one bit per pattern"
    );
    PhraseFinder {
        // Overlapping matches: "page not found" and "not found" are both told.
        // A DFA: the fastest search (a few instructions a byte), built once.
        automaton: AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .ascii_case_insensitive(true)
            .build(&patterns)
            .ok(),
        cues,
    }
});

/// Bits of [`Cues::seen`].
const SEEN_BITS: usize = 320;

/// The phrases found in some text.
#[derive(Debug, Default, Clone)]
struct Cues {
    /// Which patterns were found (one bit each).
    seen: [u64; SEEN_BITS / 64],
    /// Distinct patterns found, per cue.
    distinct: [u8; Cue::COUNT],
    /// Paragraphs that hold the cue, per cue.
    paragraphs: [u16; Cue::COUNT],
    /// Paragraphs read.
    paragraph_count: usize,
    /// The cues of the first paragraph.
    opening: [bool; Cue::COUNT],
    /// A title segment or heading that is the cue's phrase and little more
    /// ([`NAME_SLACK`]).
    named: [bool; Cue::COUNT],
}

impl Cues {
    fn of(text: &str) -> Cues {
        let mut cues = Cues::default();
        cues.scan_paragraph(text);
        cues
    }

    /// Reads one paragraph.
    fn scan_paragraph(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let first = self.paragraph_count == 0;
        self.paragraph_count += 1;
        let mut here = [false; Cue::COUNT];
        for (pattern, cue, _) in find_phrases(text) {
            self.note(pattern, cue);
            here[cue.index()] = true;
        }
        for (count, found) in self.paragraphs.iter_mut().zip(here) {
            *count += u16::from(found);
        }
        if first {
            self.opening = here;
        }
    }

    /// Reads a title (whose segments, between ` | `, ` – ` and the like, are read one by
    /// one) or a heading.
    fn scan_heading(&mut self, text: &str, title: bool) {
        let segments: Vec<&str> = if title {
            text.split(['|', '–', '—', '·', '•', '»', ':'])
                .flat_map(|s| s.split(" - "))
                .collect()
        } else {
            vec![text]
        };
        for segment in segments {
            let segment = segment.trim();
            if segment == "404" {
                self.named[Cue::NotFound.index()] = true;
            }
            // HTTP 451, Unavailable For Legal Reasons, as a page's title or heading.
            if segment == "451" || segment.starts_with("451 ") {
                self.note_named(Cue::GeoBlock);
            }
            for (pattern, cue, length) in find_phrases(segment) {
                self.note(pattern, cue);
                if segment.len() <= length + NAME_SLACK {
                    self.named[cue.index()] = true;
                }
            }
        }
    }

    /// A cue named by a title segment or heading that is no phrase of [`PHRASES`].
    fn note_named(&mut self, cue: Cue) {
        self.named[cue.index()] = true;
        self.distinct[cue.index()] = self.distinct[cue.index()].saturating_add(1);
    }

    fn note(&mut self, pattern: usize, cue: Cue) {
        let (word, bit) = (pattern / 64, 1u64 << (pattern % 64));
        if let Some(seen) = self.seen.get_mut(word)
            && *seen & bit == 0
        {
            *seen |= bit;
            self.distinct[cue.index()] = self.distinct[cue.index()].saturating_add(1);
        }
    }

    fn has(&self, cue: Cue) -> bool {
        self.distinct[cue.index()] > 0
    }

    fn has_any(&self, cues: &[Cue]) -> bool {
        cues.iter().any(|&cue| self.has(cue))
    }

    fn distinct(&self, cue: Cue) -> usize {
        usize::from(self.distinct[cue.index()])
    }

    fn paragraphs(&self, cue: Cue) -> usize {
        usize::from(self.paragraphs[cue.index()])
    }

    /// A subscription or registration prompt.
    fn is_prompt(&self) -> bool {
        self.has(Cue::Paywall)
            || (self.has(Cue::ReadOn) && self.has_any(&[Cue::Subscribe, Cue::Login]))
    }

    fn opens_with(&self, cue: Cue) -> bool {
        self.opening[cue.index()]
    }

    fn names(&self, cue: Cue) -> bool {
        self.named[cue.index()]
    }
}

/// Every phrase in `text` that starts a word: its pattern, cue and length in bytes ("image
/// verification" holds no age gate).
fn find_phrases(text: &str) -> impl Iterator<Item = (usize, Cue, usize)> + '_ {
    let finder = &*PHRASE_FINDER;
    finder.automaton.iter().flat_map(move |automaton| {
        automaton
            .find_overlapping_iter(text)
            .filter_map(move |hit| {
                let starts_word = text[..hit.start()]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric());
                let pattern = hit.pattern().as_usize();
                let cue = *finder.cues.get(pattern)?;
                starts_word.then_some((pattern, cue, hit.len()))
            })
    })
}

/// What the source of a page says about the services that built it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// A bot-protection service's challenge or block page: Cloudflare, DataDome,
    /// PerimeterX/HUMAN, Imperva/Incapsula, AWS WAF, Sucuri, Akamai.
    Challenge,
    /// A captcha widget (reCAPTCHA, hCaptcha, Turnstile).
    Captcha,
    /// A domain-parking service.
    Parking,
    /// A consent management platform (TCF API, OneTrust, Sourcepoint, Didomi, …).
    ConsentPlatform,
}

/// The markers, lowercase (matched in any ASCII case). Challenge markers are the vendors'
/// own: script globals, element ids and asset paths that only their challenge and block
/// pages carry, except `challenge-platform`, which Cloudflare also injects into ordinary
/// pages (hence the small-page condition on every mark).
const MARKERS: &[(&str, Mark)] = &[
    ("cf-browser-verification", Mark::Challenge),
    ("cf_chl_opt", Mark::Challenge),
    ("/cdn-cgi/challenge-platform/h/", Mark::Challenge),
    ("cf-error-details", Mark::Challenge),
    ("cf_chl_", Mark::Challenge),
    ("captcha-delivery.com", Mark::Challenge),
    ("var dd={", Mark::Challenge),
    ("px-captcha", Mark::Challenge),
    ("_pxappid", Mark::Challenge),
    ("_incapsula_resource", Mark::Challenge),
    ("incapsula incident id", Mark::Challenge),
    ("awswaf", Mark::Challenge),
    ("gokuprops", Mark::Challenge),
    ("sucuri website firewall", Mark::Challenge),
    ("sucuri_cloudproxy", Mark::Challenge),
    ("errors.edgesuite.net", Mark::Challenge),
    ("g-recaptcha", Mark::Captcha),
    ("h-captcha", Mark::Captcha),
    ("hcaptcha.com", Mark::Captcha),
    ("google.com/recaptcha", Mark::Captcha),
    ("cf-turnstile", Mark::Captcha),
    ("sedoparking", Mark::Parking),
    ("parkingcrew", Mark::Parking),
    ("bodis.com", Mark::Parking),
    ("parking-lander", Mark::Parking),
    ("__tcfapi", Mark::ConsentPlatform),
    ("cookielaw.org", Mark::ConsentPlatform),
    ("onetrust", Mark::ConsentPlatform),
    ("sourcepoint", Mark::ConsentPlatform),
    ("sp_message", Mark::ConsentPlatform),
    ("didomi", Mark::ConsentPlatform),
    ("quantcast.mgr", Mark::ConsentPlatform),
    ("usercentrics", Mark::ConsentPlatform),
    ("cookiebot", Mark::ConsentPlatform),
    ("consentmanager", Mark::ConsentPlatform),
    ("trustarc", Mark::ConsentPlatform),
];

static MARK_FINDER: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::DFA))
        .ascii_case_insensitive(true)
        .build(MARKERS.iter().map(|(marker, _)| marker))
        .ok()
});

/// The marks a source holds, one bit each.
#[derive(Debug, Clone, Copy, Default)]
struct Marks(u8);

impl Marks {
    fn scan(source: &str) -> Marks {
        let Some(finder) = MARK_FINDER.as_ref() else {
            return Marks::default();
        };
        let mut marks = Marks::default();
        // Which markers occur, not where: no two markers of different marks overlap.
        for hit in finder.find_iter(source) {
            if let Some(&(_, mark)) = MARKERS.get(hit.pattern().as_usize()) {
                marks.0 |= 1 << mark as u8;
            }
        }
        marks
    }

    fn has(self, mark: Mark) -> bool {
        self.0 & (1 << mark as u8) != 0
    }
}

/// The mount points of JavaScript applications.
static APP_ROOTS: LazyLock<Option<Selector>> = LazyLock::new(|| {
    Selector::parse("#root, #app, #__next, #__nuxt, #___gatsby, #svelte, app-root").ok()
});

/// An application root holds no more than this many bytes of text when it is empty (a
/// "Loading…").
const EMPTY_ROOT_TEXT: usize = 40;

/// Whether the page has an application's mount point with (next to) no text in it.
fn has_empty_app_root(document: &Html) -> bool {
    let Some(selector) = APP_ROOTS.as_ref() else {
        return false;
    };
    document
        .select(selector)
        .any(|root| root.text().map(|t| t.trim().len()).sum::<usize>() <= EMPTY_ROOT_TEXT)
}

static NOSCRIPTS: LazyLock<Option<Selector>> = LazyLock::new(|| Selector::parse("noscript").ok());

/// Whether a `<noscript>` asks for JavaScript ("You need to enable JavaScript to run this
/// app").
fn noscript_asks_for_javascript(document: &Html) -> bool {
    let Some(selector) = NOSCRIPTS.as_ref() else {
        return false;
    };
    document.select(selector).any(|noscript| {
        noscript
            .text()
            .any(|text| find_phrases(text).any(|(_, cue, _)| cue == Cue::Javascript))
    })
}

static PASSWORD_FIELDS: LazyLock<Option<Selector>> =
    LazyLock::new(|| Selector::parse("input[type=password i]").ok());

/// Whether a password field is shown: neither it nor an element around it is hidden (a
/// login dialog hidden until a click is no wall).
fn has_visible_password_field(document: &Html) -> bool {
    let Some(selector) = PASSWORD_FIELDS.as_ref() else {
        return false;
    };
    document.select(selector).any(|field| {
        std::iter::once(*field)
            .chain(field.ancestors())
            .filter_map(|node| node.value().as_element())
            .all(|element| !tidy::is_hidden(element))
    })
}
