//! Signing in to the web view: a session cookie instead of the API's bearer token, and the
//! CSRF defences of the two forms that change state (sign in, sign out).
//!
//! Stateless: a session is `ISSUED.MAC`, where `MAC` is an HMAC-SHA256 of the issue time under
//! a key derived from the configured token. Nothing is kept on the server, replicas agree,
//! and changing the token signs everyone out. The cookie is `HttpOnly`, `SameSite=Strict`,
//! limited to `/` and [`SESSION_LIFETIME`]; `Secure` when a proxy in front says the request
//! came over TLS (`X-Forwarded-Proto: https`).
//!
//! CSRF: `SameSite=Strict` keeps the cookies off requests that other sites start; on top, the
//! sign-in form carries a random value that must equal the one in a cookie set with the form
//! (double submit), the sign-out form one derived from the session, and both refuse a
//! request whose `Origin` is another site's. MACs are compared in constant time.

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

    /// A new session issued at `now`: the cookie value.
    pub fn issue(&self, now: DateTime<Utc>) -> String {
        let issued = now.timestamp();
        format!("{issued}.{}", hex::encode(self.sign(b"session", issued)))
    }

    /// The issue time of a valid, unexpired session cookie value.
    pub fn verify(&self, value: &str, now: DateTime<Utc>) -> Option<i64> {
        let (issued, signature) = value.split_once('.')?;
        let issued: i64 = issued.parse().ok()?;
        let age = now.timestamp().checked_sub(issued)?;
        if !(0..=SESSION_LIFETIME.num_seconds()).contains(&age) {
            return None;
        }
        let signature = hex::decode(signature).ok()?;
        let mut mac = self.mac(b"session");
        mac.update(&issued.to_le_bytes());
        mac.verify_slice(&signature).ok()?;
        Some(issued)
    }

    /// The sign-out form's CSRF value for the session issued at `issued`.
    pub fn logout_token(&self, issued: i64) -> String {
        hex::encode(self.sign(b"logout", issued))
    }

    /// Whether `presented` is the sign-out value of the session issued at `issued`.
    pub fn is_logout_token(&self, issued: i64, presented: &str) -> bool {
        let Ok(presented) = hex::decode(presented) else {
            return false;
        };
        let mut mac = self.mac(b"logout");
        mac.update(&issued.to_le_bytes());
        mac.verify_slice(&presented).is_ok()
    }

    fn sign(&self, purpose: &[u8], issued: i64) -> Vec<u8> {
        let mut mac = self.mac(purpose);
        mac.update(&issued.to_le_bytes());
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

/// A random value for the sign-in form's double submit: 128 bits, hex. `None` when the
/// system's random source fails (the form then cannot be sent, and says so).
pub fn login_nonce() -> Option<String> {
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
        let session = key.issue(now);
        assert_eq!(key.verify(&session, now), Some(now.timestamp()));
        assert_eq!(
            key.verify(&session, now + SESSION_LIFETIME + Duration::seconds(1)),
            None
        );
        assert_eq!(SessionKey::new("other").verify(&session, now), None);
        let forged = format!("{}.{}", now.timestamp() + 5, &session[session.len() - 64..]);
        assert_eq!(key.verify(&forged, now + Duration::seconds(10)), None);
        assert_eq!(key.verify("garbage", now), None);
    }

    #[test]
    fn the_token_and_the_logout_value_are_checked() {
        let key = SessionKey::new("s3cret");
        assert!(key.is_token("s3cret"));
        assert!(!key.is_token("s3cret "));
        assert!(!key.is_token(""));
        let logout = key.logout_token(42);
        assert!(key.is_logout_token(42, &logout));
        assert!(!key.is_logout_token(43, &logout));
        assert!(!key.is_logout_token(42, "zz"));
    }

    #[test]
    fn cookies_are_read_from_a_cookie_header() {
        let header = "a=1; gleaner_session=123.abc;b=2";
        assert_eq!(cookie_value(header, SESSION_COOKIE), Some("123.abc"));
        assert_eq!(cookie_value(header, "c"), None);
        assert!(cookie("n", "v", Duration::days(1), true).ends_with("; Secure"));
    }
}
