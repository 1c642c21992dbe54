//! Which host names the API answers to: a guard against DNS rebinding on every route.
//!
//! A page on another site whose name is made to resolve to the API's address (DNS rebinding)
//! sends its requests with its own name in `Host`: unless the listener is on an unspecified
//! address (`0.0.0.0`, `[::]`, where the operator exposes it under names gleaner cannot
//! know), a request is served only when its host is `localhost`, a loopback address or the
//! listener's own address, whatever the port. HTTP/2 has no `Host` header: the request's
//! `:authority` (its URI's authority) is the host then. The same list as `/mcp`'s own check.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

/// The host names a request may carry; empty means any.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    names: Arc<[String]>,
}

impl AllowedHosts {
    /// The names of a listener on `listen`: any when it is unspecified, else the loopback
    /// names and the listener's own address.
    pub fn of_listener(listen: SocketAddr) -> AllowedHosts {
        let names: Vec<String> = if listen.ip().is_unspecified() {
            Vec::new()
        } else {
            vec![
                "localhost".to_string(),
                "127.0.0.1".to_string(),
                "::1".to_string(),
                listen.ip().to_string(),
            ]
        };
        AllowedHosts {
            names: names.into(),
        }
    }

    /// Whether `authority` (`host`, `host:port`, `[v6]:port`) names an allowed host.
    pub fn allows(&self, authority: &str) -> bool {
        if self.names.is_empty() {
            return true;
        }
        let Some(host) = host_of(authority) else {
            return false;
        };
        if self
            .names
            .iter()
            .any(|name| name.eq_ignore_ascii_case(&host))
        {
            return true;
        }
        // Any loopback address is this machine (`127.0.0.2`, `[::1]`).
        host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }
}

/// The host part of an authority, lowercase, without brackets or port; `None` when it does
/// not parse.
fn host_of(authority: &str) -> Option<String> {
    let authority: axum::http::uri::Authority = authority.trim().parse().ok()?;
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// The host a request was sent to: its `Host` header, else (HTTP/2) its URI's authority.
pub fn request_authority<'a>(headers: &'a axum::http::HeaderMap, uri: &'a Uri) -> Option<&'a str> {
    match headers.get(header::HOST) {
        Some(host) => host.to_str().ok(),
        None => uri.authority().map(|authority| authority.as_str()),
    }
}

/// Middleware: `403` when the request's host is not one the API answers to.
pub async fn require_allowed_host(
    State(allowed): State<AllowedHosts>,
    request: Request,
    next: Next,
) -> Response {
    let allowed_host = request_authority(request.headers(), request.uri())
        .is_some_and(|authority| allowed.allows(authority));
    if allowed_host {
        next.run(request).await
    } else {
        tracing::debug!("refused a request for a host this API does not answer to");
        ApiError::new(
            StatusCode::FORBIDDEN,
            "this host name is not served here (see docs/api.md, DNS rebinding)",
        )
        .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_the_listeners_address_are_allowed() {
        let local = AllowedHosts::of_listener("127.0.0.1:8080".parse().unwrap());
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1:9",
            "[::1]:80",
            "127.0.0.2",
        ] {
            assert!(local.allows(host), "{host}");
        }
        for host in ["evil.example", "evil.example:8080", "10.0.0.1", "", "a b"] {
            assert!(!local.allows(host), "{host}");
        }
        let lan = AllowedHosts::of_listener("192.168.1.5:8080".parse().unwrap());
        assert!(lan.allows("192.168.1.5:8080"));
        assert!(!lan.allows("192.168.1.6:8080"));
        let v6 = AllowedHosts::of_listener("[fd00::5]:8080".parse().unwrap());
        assert!(v6.allows("[fd00::5]:8080"));
        let everywhere = AllowedHosts::of_listener("0.0.0.0:8080".parse().unwrap());
        assert!(everywhere.allows("news.example.org"));
    }
}
