//! Signing in to the web view: a session cookie instead of the API's bearer token, and the
//! CSRF defences of the two forms that change state (sign in, sign out).
//!
//! A session is `ISSUED.ID.MAC`: its issue time, a random id, and an HMAC-SHA256 of both
//! under a key derived from the configured token, so every replica accepts it and changing the
//! token (a reload takes it) ends every session. Signing out ends the session on the server
//! too: its id is kept in [`RevokedSessions`] until it would have expired, bounded in memory
//! (when full, the oldest revoked sessions are dropped and every session issued up to them
//! ends with them). The cookie is `HttpOnly`, `SameSite=Strict`, limited to `/` and
//! [`SESSION_LIFETIME`]; `Secure` when a proxy in front says the request came over TLS
//! (`X-Forwarded-Proto: https`).
//!
//! CSRF: `SameSite=Strict` keeps the cookies off requests that other sites start; on top, the
//! sign-in form carries a value this server signed (its time and a random part, under the
//! token's key, valid for [`LOGIN_FORM_LIFETIME`]) that must equal the one in a cookie set
//! with the form (double submit: a value made up by the client is refused), the sign-out form
//! one derived from the session, and both refuse a request whose `Origin` is another site's.
//! MACs are compared in constant time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use hmac::{KeyInit, Mac};
use sha2::{Digest, Sha256};

type HmacSha256 = hmac::Hmac<Sha256>;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "gleaner_session";
/// The sign-in form's double-submit cookie.
pub const LOGIN_COOKIE: &str = "gleaner_login";
/// How long a session lasts.
pub const SESSION_LIFETIME: Duration = Duration::days(30);
/// How long a sign-in form (its double-submit value) can be sent.
pub const LOGIN_FORM_LIFETIME: Duration = Duration::hours(1);

/// The key sessions are signed with. `Debug` shows nothing of it.
#[derive(Clone)]
pub struct SessionKey {
    /// SHA-256 of the token: the token itself is never kept, and the presented one is compared
    /// by digest, in constant time.
    token_digest: [u8; 32],
}

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionKey(<redacted>)")
    }
}

impl SessionKey {
    pub fn new(token: &str) -> SessionKey {
        SessionKey {
            token_digest: Sha256::digest(token.as_bytes()).into(),
        }
    }

    /// Whether `presented` is the configured token.
    pub fn is_token(&self, presented: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        let mut mac = self.mac(b"token-check");
        mac.update(&digest);
        let mut expected = self.mac(b"token-check");
        expected.update(&self.token_digest);
        // Comparing two MACs with `verify_slice` is constant time.
        mac.verify_slice(&expected.finalize().into_bytes()).is_ok()
    }

    /// A new session issued at `now`: the cookie value. `None` when the system's random
    /// source fails.
    pub fn issue(&self, now: DateTime<Utc>) -> Option<String> {
        let issued = now.timestamp();
        let id = random_hex()?;
        let signed = format!("{issued}.{id}");
        Some(format!(
            "{signed}.{}",
            hex::encode(self.sign(b"session", signed.as_bytes()))
        ))
    }

    /// The session of a valid, unexpired session cookie value.
    pub fn verify(&self, value: &str, now: DateTime<Utc>) -> Option<Session> {
        let (signed, signature) = value.rsplit_once('.')?;
        let (issued, id) = signed.split_once('.')?;
        let issued: i64 = issued.parse().ok()?;
        let age = now.timestamp().checked_sub(issued)?;
        if !(0..=SESSION_LIFETIME.num_seconds()).contains(&age) {
            return None;
        }
        let signature = hex::decode(signature).ok()?;
        let mut mac = self.mac(b"session");
        mac.update(signed.as_bytes());
        mac.verify_slice(&signature).ok()?;
        Some(Session {
            issued,
            id: id.to_string(),
        })
    }

    /// A sign-in form's double-submit value made at `now`: `ISSUED.RANDOM.MAC`. `None` when
    /// the system's random source fails.
    pub fn login_form_value(&self, now: DateTime<Utc>) -> Option<String> {
        let signed = format!("{}.{}", now.timestamp(), random_hex()?);
        let mac = self.sign(b"login-form", signed.as_bytes());
        Some(format!("{signed}.{}", hex::encode(mac)))
    }

    /// Whether `value` is a sign-in form value this key made within [`LOGIN_FORM_LIFETIME`].
    pub fn is_login_form_value(&self, value: &str, now: DateTime<Utc>) -> bool {
        let Some((signed, signature)) = value.rsplit_once('.') else {
            return false;
        };
        let made = signed
            .split_once('.')
            .and_then(|(made, _)| made.parse::<i64>().ok());
        let Some(age) = made.and_then(|made| now.timestamp().checked_sub(made)) else {
            return false;
        };
        let Ok(signature) = hex::decode(signature) else {
            return false;
        };
        let mut mac = self.mac(b"login-form");
        mac.update(signed.as_bytes());
        (0..=LOGIN_FORM_LIFETIME.num_seconds()).contains(&age)
            && mac.verify_slice(&signature).is_ok()
    }

    /// The sign-out form's CSRF value for `session`.
    pub fn logout_token(&self, session: &Session) -> String {
        hex::encode(self.sign(b"logout", session.id.as_bytes()))
    }

    /// Whether `presented` is the sign-out value of `session`.
    pub fn is_logout_token(&self, session: &Session, presented: &str) -> bool {
        let Ok(presented) = hex::decode(presented) else {
            return false;
        };
        let mut mac = self.mac(b"logout");
        mac.update(session.id.as_bytes());
        mac.verify_slice(&presented).is_ok()
    }

    fn sign(&self, purpose: &[u8], value: &[u8]) -> Vec<u8> {
        let mut mac = self.mac(purpose);
        mac.update(value);
        mac.finalize().into_bytes().to_vec()
    }

    /// An HMAC keyed by the token's digest and the purpose, so that a value made for one use
    /// is never valid for another.
    fn mac(&self, purpose: &[u8]) -> HmacSha256 {
        let mut key = Vec::with_capacity(32 + purpose.len());
        key.extend_from_slice(&self.token_digest);
        key.extend_from_slice(purpose);
        // HMAC takes keys of any length.
        HmacSha256::new_from_slice(&key).unwrap_or_else(|_| unreachable!("HMAC takes any key"))
    }
}

/// A signed-in session: when it was issued, and its random id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub issued: i64,
    pub id: String,
}

/// At most this many signed-out sessions are remembered (32 bytes of id and a time each).
pub const MAX_REVOKED_SESSIONS: usize = 4096;

/// The sessions signed out before they expired, each kept until it would have expired.
#[derive(Debug, Clone, Default)]
pub struct RevokedSessions {
    inner: Arc<Mutex<Revoked>>,
}

#[derive(Debug, Default)]
struct Revoked {
    /// Session id → issue time.
    ids: HashMap<String, i64>,
    /// Every session issued at or before this time has ended (the revocations dropped when
    /// the list was full).
    ended_up_to: Option<i64>,
}

impl RevokedSessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Revoked> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Ends `session`. When the list is full, the expired ones go; when it is still full, the
    /// oldest go and every session issued up to them ends.
    pub fn revoke(&self, session: &Session, now: DateTime<Utc>) {
        let mut revoked = self.lock();
        if revoked.ids.len() >= MAX_REVOKED_SESSIONS {
            let expired_before = now.timestamp() - SESSION_LIFETIME.num_seconds();
            revoked.ids.retain(|_, issued| *issued >= expired_before);
        }
        if revoked.ids.len() >= MAX_REVOKED_SESSIONS {
            let mut times: Vec<i64> = revoked.ids.values().copied().collect();
            times.sort_unstable();
            let cut = times[times.len() / 2];
            revoked.ids.retain(|_, issued| *issued > cut);
            revoked.ended_up_to = Some(revoked.ended_up_to.map_or(cut, |up_to| up_to.max(cut)));
        }
        revoked.ids.insert(session.id.clone(), session.issued);
    }

    /// Whether `session` was signed out.
    pub fn is_revoked(&self, session: &Session) -> bool {
        let revoked = self.lock();
        revoked
            .ended_up_to
            .is_some_and(|up_to| session.issued <= up_to)
            || revoked.ids.contains_key(&session.id)
    }
}

/// A random value, 128 bits, hex: a session's id, the sign-in form's double-submit value.
/// `None` when the system's random source fails (the form then cannot be sent, and says so).
pub fn random_hex() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(hex::encode(bytes))
}

/// Whether two strings are equal, in time that depends on their lengths only.
pub fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && std::hint::black_box(
            a.bytes()
                .zip(b.bytes())
                .fold(0u8, |acc, (x, y)| acc | (x ^ y)),
        ) == 0
}

/// A `Set-Cookie` value: `HttpOnly`, `SameSite=Strict`, path `/`; `Secure` when `secure`;
/// an empty value with `Max-Age=0` clears it.
pub fn cookie(name: &str, value: &str, max_age: Duration, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        max_age.num_seconds().max(0)
    )
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        (key == name).then_some(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_valid_until_it_expires_and_only_under_its_token() {
        let key = SessionKey::new("s3cret");
        let now = Utc::now();
        let session = key.issue(now).unwrap();
        let valid = key.verify(&session, now).unwrap();
        assert_eq!(valid.issued, now.timestamp());
        assert_eq!(
            key.verify(&session, now + SESSION_LIFETIME + Duration::seconds(1)),
            None
        );
        assert_eq!(SessionKey::new("other").verify(&session, now), None);
        let (_, rest) = session.split_once('.').unwrap();
        let forged = format!("{}.{rest}", now.timestamp() + 5);
        assert_eq!(key.verify(&forged, now + Duration::seconds(10)), None);
        assert_eq!(key.verify("garbage", now), None);
        assert_ne!(
            key.issue(now),
            key.issue(now),
            "each session has its own id"
        );
    }

    #[test]
    fn the_token_and_the_logout_value_are_checked() {
        let key = SessionKey::new("s3cret");
        assert!(key.is_token("s3cret"));
        assert!(!key.is_token("s3cret "));
        assert!(!key.is_token(""));
        let now = Utc::now();
        let one = key.verify(&key.issue(now).unwrap(), now).unwrap();
        let other = key.verify(&key.issue(now).unwrap(), now).unwrap();
        let logout = key.logout_token(&one);
        assert!(key.is_logout_token(&one, &logout));
        assert!(!key.is_logout_token(&other, &logout));
        assert!(!key.is_logout_token(&one, "zz"));
    }

    #[test]
    fn only_a_signed_recent_login_form_value_passes() {
        let key = SessionKey::new("s3cret");
        let now = Utc::now();
        let value = key.login_form_value(now).unwrap();
        assert!(key.is_login_form_value(&value, now));
        assert!(!key.is_login_form_value(&value, now + LOGIN_FORM_LIFETIME + Duration::seconds(1)));
        assert!(!SessionKey::new("other").is_login_form_value(&value, now));
        assert!(!key.is_login_form_value("0123456789abcdef", now));
        assert!(!key.is_login_form_value("", now));
    }

    #[test]
    fn revoked_sessions_stay_ended_when_the_list_overflows() {
        let key = SessionKey::new("s3cret");
        let revoked = RevokedSessions::default();
        let now = Utc::now();
        let first = key.verify(&key.issue(now).unwrap(), now).unwrap();
        let kept = key.verify(&key.issue(now).unwrap(), now).unwrap();
        revoked.revoke(&first, now);
        assert!(revoked.is_revoked(&first));
        assert!(!revoked.is_revoked(&kept));
        for n in 0..MAX_REVOKED_SESSIONS as i64 {
            let at = now + Duration::seconds(n);
            revoked.revoke(&key.verify(&key.issue(at).unwrap(), at).unwrap(), at);
        }
        assert!(revoked.lock().ids.len() <= MAX_REVOKED_SESSIONS);
        assert!(
            revoked.is_revoked(&first),
            "dropped from the list, still ended"
        );
    }

    #[test]
    fn cookies_are_read_from_a_cookie_header() {
        let header = "a=1; gleaner_session=123.abc;b=2";
        assert_eq!(cookie_value(header, SESSION_COOKIE), Some("123.abc"));
        assert_eq!(cookie_value(header, "c"), None);
        assert!(cookie("n", "v", Duration::days(1), true).ends_with("; Secure"));
    }
}
