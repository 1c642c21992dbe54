//! The web view: server-rendered pages under `/ui/` of the `[api]` listener, for reading
//! articles and watching feeds in a browser. Beside the JSON API, reading the store through
//! the same functions; no front-end build, no script.
//!
//! | route | what |
//! |---|---|
//! | `GET /ui/` | the last day's totals, the failing feeds, the newest articles ([`pages::index`]) |
//! | `GET /ui/articles?q=&feed=&before_id=` | search, or the newest articles a page at a time |
//! | `GET /ui/articles/{id}` | the reading view; `/raw?format=json\|markdown` its data |
//! | `GET /ui/feeds`, `GET /ui/failures` | feeds with their polling state; recent failures |
//! | `GET /ui/images/{sha256}` | stored image bytes for the reading view |
//! | `GET`/`POST /ui/login`, `POST /ui/logout` | signing in with the API token ([`session`]) |
//! | `GET /ui/style.css` | the one style sheet |
//!
//! Security: with `[api] token` set, every page but sign-in needs a session ([`SignedIn`]),
//! signed under the current token and not signed out, else it redirects to `/ui/login`.
//! Every response carries a Content-Security-Policy that allows this origin's style sheet,
//! images and forms and nothing else (no script at all),
//! `nosniff` and `no-referrer` ([`security_headers`]). Templates (`templates/ui/`, askama)
//! are checked at compile time and escape every value; the article body is the sanitized
//! HTML the store holds, never the raw page.

pub mod pages;
pub mod session;

use std::net::{IpAddr, Ipv4Addr};

use askama::Template;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path, RawQuery, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use chrono::{Duration, Utc};
use serde::Deserialize;

use super::ApiState;
use super::attempts::{ClientAddress, FailedAttempts, retry_after};
use super::auth::ApiToken;
use super::error::ApiError;
use crate::store::Store;
use session::{
    LOGIN_COOKIE, RevokedSessions, SESSION_COOKIE, SESSION_LIFETIME, Session, SessionKey,
};

/// The policy of every page: this origin's style sheet, images and form targets; nothing
/// else, no script, no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// What the pages read: the store, the API's token (sessions are keyed by it) and the
/// sessions signed out.
#[derive(Debug, Clone)]
pub struct UiState {
    pub store: Store,
    pub token: ApiToken,
    pub revoked: RevokedSessions,
    /// Failed sign-ins count with the bearer check's failures.
    pub attempts: FailedAttempts,
}

/// What every page's frame shows: the sign-out form, with its CSRF value, when signed in
/// with a token.
pub struct Chrome {
    pub logout_csrf: Option<String>,
}

impl UiState {
    fn chrome(&self, signed_in: SignedIn) -> Chrome {
        let logout_csrf = match (self.token.session_key(), signed_in.session) {
            (Some(key), Some(session)) => Some(key.logout_token(&session)),
            _ => None,
        };
        Chrome { logout_csrf }
    }
}

/// A request allowed to see data: signed in (its session), or no token is set. Extracting
/// it from a request without a valid session (forged, expired, signed out, or signed under
/// another token) redirects to the sign-in page.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub session: Option<Session>,
}

impl FromRequestParts<UiState> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &UiState) -> Result<Self, Response> {
        let Some(key) = state.token.session_key() else {
            return Ok(SignedIn { session: None });
        };
        let session = cookie(&parts.headers, SESSION_COOKIE)
            .and_then(|value| key.verify(value, Utc::now()))
            .filter(|session| !state.revoked.is_revoked(session));
        match session {
            Some(session) => Ok(SignedIn {
                session: Some(session),
            }),
            None => Err(Redirect::to("/ui/login").into_response()),
        }
    }
}

fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find_map(|value| session::cookie_value(value, name))
}

/// An error of a page, shown as a page: the API's errors (a bad parameter, an unknown id, the
/// database) with their status, in HTML rather than JSON.
#[derive(Debug)]
pub struct PageError(ApiError);

impl From<ApiError> for PageError {
    fn from(error: ApiError) -> PageError {
        PageError(error)
    }
}

impl From<crate::store::StoreError> for PageError {
    fn from(error: crate::store::StoreError) -> PageError {
        PageError(error.into())
    }
}

#[derive(Template)]
#[template(path = "ui/error.html")]
struct ErrorPage<'a> {
    status: StatusCode,
    message: &'a str,
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let page = ErrorPage {
            status: self.0.status,
            message: &self.0.message,
        };
        match page.render() {
            Ok(html) => (
                self.0.status,
                [
                    (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                    (header::CACHE_CONTROL, "no-store"),
                ],
                html,
            )
                .into_response(),
            Err(_) => self.0.into_response(),
        }
    }
}

/// A rendered page, or a 500 when a template fails (it cannot, short of a formatting error).
fn render(page: &impl Template) -> Result<Response, PageError> {
    let html = page.render().map_err(|error| {
        tracing::error!(%error, "a page of the web view failed to render");
        PageError(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the page failed to render",
        ))
    })?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response())
}

/// Middleware of every `/ui/` response: the policy, `nosniff`, `no-referrer`.
pub async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// `GET /ui/style.css`
pub async fn style_sheet() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=3600"),
        ],
        include_str!("style.css"),
    )
        .into_response()
}

/// `GET /ui/images/{sha256}`: the API's image route, for a signed-in browser.
pub async fn image(
    State(state): State<UiState>,
    _signed_in: SignedIn,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let api = ApiState { store: state.store };
    super::articles::image_blob(State(api), path, headers).await
}

/// `GET /ui/articles/{id}/raw?format=json|markdown`: the API's article route, for a
/// signed-in browser.
pub async fn raw_article(
    State(state): State<UiState>,
    _signed_in: SignedIn,
    path: Result<Path<String>, PathRejection>,
    query: RawQuery,
) -> Result<Response, ApiError> {
    let api = ApiState { store: state.store };
    super::articles::article(State(api), path, query).await
}

#[derive(Template)]
#[template(path = "ui/login.html")]
struct LoginPage {
    csrf: Option<String>,
    message: Option<String>,
}

/// Whether a proxy in front says the request came over TLS: cookies are then `Secure`.
fn over_tls(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
}

/// `response` with these `Set-Cookie` values added.
fn with_cookies(mut response: Response, cookies: &[String]) -> Response {
    for cookie in cookies {
        if let Ok(value) = HeaderValue::from_str(cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

/// The sign-in page with a fresh double-submit value, signed by `key`, in the form and in a
/// cookie.
fn login_page(
    key: &SessionKey,
    headers: &HeaderMap,
    status: StatusCode,
    message: Option<&str>,
) -> Response {
    let csrf = key.login_form_value(Utc::now());
    let page = LoginPage {
        csrf: csrf.clone(),
        message: message.map(str::to_string),
    };
    let mut response = match render(&page) {
        Ok(response) => response,
        Err(error) => return error.into_response(),
    };
    *response.status_mut() = status;
    let cookie = csrf
        .map(|csrf| session::cookie(LOGIN_COOKIE, &csrf, Duration::hours(1), over_tls(headers)));
    with_cookies(response, cookie.as_slice())
}

/// `GET /ui/login`: the form; straight to the overview when no token is set.
pub async fn login_form(State(state): State<UiState>, headers: HeaderMap) -> Response {
    let Some(key) = state.token.session_key() else {
        return Redirect::to("/ui/").into_response();
    };
    login_page(&key, &headers, StatusCode::OK, None)
}

#[derive(Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    token: String,
}

/// Whether a form post comes from a page of this site, as far as the browser says: its
/// `Sec-Fetch-Site` (when sent) is `same-origin`, and its `Origin` (when sent, and not the
/// `null` that a `no-referrer` page's forms send) names the host the request was sent to
/// (its `Host`, or in HTTP/2, which has none, its `:authority`).
fn same_origin(headers: &HeaderMap, uri: &Uri) -> bool {
    let header = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    if let Some(site) = header("sec-fetch-site")
        && !matches!(site, "same-origin" | "none")
    {
        return false;
    }
    let Some(origin) = header(header::ORIGIN.as_str()).filter(|o| *o != "null") else {
        return true;
    };
    let origin_host = origin
        .split_once("://")
        .map(|(_, rest)| rest.trim_end_matches('/'));
    let target = super::hosts::request_authority(headers, uri);
    matches!((origin_host, target), (Some(a), Some(b)) if a.eq_ignore_ascii_case(b))
}

/// `POST /ui/login` (`csrf`, `token`): a session cookie when the token is right. The `csrf`
/// value must be one this server signed within the hour, in the form and in its cookie; a
/// client locked out for failing too often gets `429` before its token is looked at.
pub async fn login(
    State(state): State<UiState>,
    client: Option<Extension<ClientAddress>>,
    uri: Uri,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    let Some(key) = state.token.session_key() else {
        return Redirect::to("/ui/").into_response();
    };
    let client = client.map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.0);
    if let Some(wait) = state.attempts.locked_out(client) {
        let message = "Too many wrong tokens from this address: wait, then sign in again.";
        let mut page = login_page(&key, &headers, StatusCode::TOO_MANY_REQUESTS, Some(message));
        page.headers_mut()
            .insert(header::RETRY_AFTER, retry_after(wait));
        return page;
    }
    let expected = cookie(&headers, LOGIN_COOKIE).unwrap_or_default();
    let fresh_form =
        session::same_text(expected, &form.csrf) && key.is_login_form_value(expected, Utc::now());
    if !fresh_form || !same_origin(&headers, &uri) {
        let message = "The form had expired: sign in again.";
        return login_page(&key, &headers, StatusCode::FORBIDDEN, Some(message));
    }
    if !key.is_token(&form.token) {
        state.attempts.failed(client, "web view sign-in");
        return login_page(
            &key,
            &headers,
            StatusCode::UNAUTHORIZED,
            Some("Wrong token."),
        );
    }
    state.attempts.succeeded(client);
    let Some(issued) = key.issue(Utc::now()) else {
        let message = "No random value for the session: try again.";
        return login_page(
            &key,
            &headers,
            StatusCode::SERVICE_UNAVAILABLE,
            Some(message),
        );
    };
    let secure = over_tls(&headers);
    let session = session::cookie(SESSION_COOKIE, &issued, SESSION_LIFETIME, secure);
    let cleared = session::cookie(LOGIN_COOKIE, "", Duration::zero(), secure);
    with_cookies(Redirect::to("/ui/").into_response(), &[session, cleared])
}

#[derive(Deserialize)]
pub struct LogoutForm {
    #[serde(default)]
    csrf: String,
}

/// `POST /ui/logout` (`csrf`): ends the session (a replayed cookie is no session) and clears
/// its cookie.
pub async fn logout(
    State(state): State<UiState>,
    signed_in: SignedIn,
    uri: Uri,
    headers: HeaderMap,
    Form(form): Form<LogoutForm>,
) -> Response {
    let (Some(key), Some(session)) = (state.token.session_key(), signed_in.session) else {
        return Redirect::to("/ui/").into_response();
    };
    if !same_origin(&headers, &uri) || !key.is_logout_token(&session, &form.csrf) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "the sign-out form is not this session's",
        )
        .into_response();
    }
    state.revoked.revoke(&session, Utc::now());
    let cleared = session::cookie(SESSION_COOKIE, "", Duration::zero(), over_tls(&headers));
    with_cookies(Redirect::to("/ui/login").into_response(), &[cleared])
}

/// The web view's routes, over `store`; sessions keyed by `token` when one is set.
pub fn routes(store: Store, token: ApiToken, attempts: FailedAttempts) -> axum::Router<()> {
    use axum::routing::get;
    let state = UiState {
        store,
        token,
        revoked: RevokedSessions::default(),
        attempts,
    };
    axum::Router::new()
        .route("/ui", get(|| async { Redirect::permanent("/ui/") }))
        .route("/ui/", get(pages::index))
        .route("/ui/articles", get(pages::articles))
        .route("/ui/articles/{id}", get(pages::article))
        .route("/ui/articles/{id}/raw", get(raw_article))
        .route("/ui/feeds", get(pages::feeds))
        .route("/ui/failures", get(pages::failures))
        .route("/ui/images/{sha256}", get(image))
        .route("/ui/login", get(login_form).post(login))
        .route("/ui/logout", axum::routing::post(logout))
        .route("/ui/style.css", get(style_sheet))
        .route_layer(axum::middleware::from_fn(security_headers))
        .with_state(state)
}
