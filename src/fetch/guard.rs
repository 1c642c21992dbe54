//! The SSRF guard: which addresses gleaner may connect to, and the three places that check.
//!
//! Feed entries name arbitrary URLs, so a hostile feed could point gleaner at the machine it
//! runs on or at its private network (a metadata service, an admin page). Unless
//! `allow_private_networks = true`, no connection may reach an address that
//! [`is_forbidden`] reports. Every way to reach an address goes through one of these checks:
//!
//! - **IP-literal hosts** (`http://10.0.0.1/`, `http://[::1]/`): the connector does not resolve
//!   them, so [`Guard::check_url`] checks the URL before the request is sent, and
//!   [`redirect_policy`] checks every redirect target the same way.
//! - **DNS names**, in the first URL and after redirects: the client's only resolver is
//!   [`GuardedResolver`], which drops forbidden addresses from every answer and fails the
//!   lookup when nothing is left, so the connector never sees a forbidden address.
//! - **Proxies** would resolve names on gleaner's behalf, so the client is built without any
//!   (environment proxy variables are ignored).
//!
//! Tests run servers on loopback, which the guard refuses. [`Guard`] therefore takes two
//! narrow hooks, set only through [`super::FetcherBuilder`]: an exact address that is exempt
//! (`guard_exemption`), and host-name overrides (`resolve`) whose addresses still pass through
//! the guard, so a test can make a "public" name resolve to a loopback address and check that
//! it is refused.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// The most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 10;

/// True for every address gleaner must not connect to unless private networks are allowed:
/// addresses that are not globally reachable.
///
/// IPv4: `0.0.0.0/8` (unspecified, "this network"), loopback `127/8`, private `10/8`,
/// `172.16/12`, `192.168/16`, CGNAT `100.64/10`, link-local `169.254/16`, IETF protocol
/// assignments `192.0.0/24`, documentation (`192.0.2/24`, `198.51.100/24`, `203.0.113/24`),
/// benchmarking `198.18/15`, multicast `224/4`, reserved `240/4` and broadcast.
///
/// IPv6: unspecified, loopback, unique-local `fc00::/7`, link-local `fe80::/10`, site-local
/// `fec0::/10`, multicast `ff00::/8`, documentation `2001:db8::/32`, discard `100::/64`,
/// local-use NAT64 `64:ff9b:1::/48`; and every form that embeds an IPv4 address — mapped
/// `::ffff:0:0/96`, compatible `::/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16` — is judged by
/// the IPv4 address it carries.
pub fn is_forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_forbidden_v4(v4),
        IpAddr::V6(v6) => is_forbidden_v6(v6),
    }
}

fn is_forbidden_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    a == 0
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 192 && b == 0 && c == 2)
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240
}

fn is_forbidden_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    if ip.is_unspecified() || ip.is_loopback() {
        return true;
    }
    if let Some(v4) = embedded_v4(ip) {
        return is_forbidden_v4(v4);
    }
    (s[0] & 0xfe00) == 0xfc00
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xffc0) == 0xfec0
        || (s[0] & 0xff00) == 0xff00
        || (s[0] == 0x2001 && s[1] == 0x0db8)
        || (s[0] == 0x0100 && s[1] == 0 && s[2] == 0 && s[3] == 0)
        || (s[0] == 0x0064 && s[1] == 0xff9b && s[2] == 0x0001)
}

/// The IPv4 address an IPv6 address stands for, if it is of a form that carries one.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match s {
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated).
        [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0, 0, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        // 64:ff9b::a.b.c.d (NAT64 well-known prefix).
        [0x0064, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        // 2002:aabb:ccdd::/48 (6to4).
        [0x2002, hi, lo, ..] => Some(low(hi, lo)),
        _ => None,
    }
}

/// A refused address: the error the resolver and redirect policy hand back through reqwest,
/// recognised again by [`super::FetchError`]'s classification.
#[derive(Debug, Clone)]
pub struct Refused {
    /// The URL's host as written (a name, or an IP literal).
    pub host: String,
    pub address: IpAddr,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let literal = self.host.trim_start_matches('[').trim_end_matches(']');
        if literal.parse::<IpAddr>().is_ok() {
            write!(f, "{} is a forbidden non-public address", self.host)?;
            if literal.parse::<IpAddr>().ok() != Some(self.address) {
                write!(f, " ({})", self.address)?;
            }
        } else {
            write!(
                f,
                "{} resolves to {}, a forbidden non-public address",
                self.host, self.address
            )?;
        }
        write!(f, " (`[fetch] allow_private_networks = true` allows it)")
    }
}

impl std::error::Error for Refused {}

/// A redirect that the policy stopped.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RedirectStop {
    #[error("more than {MAX_REDIRECTS} redirects (last to {0})")]
    TooMany(Url),
    #[error("redirect loop: {0} was already visited")]
    Loop(Url),
    #[error("redirect to {0}: only http and https are fetched")]
    Scheme(Url),
    #[error("redirect to {url}: {refused}")]
    Refused { url: Url, refused: Refused },
}

/// Which addresses are allowed: the configuration's switch plus the test exemptions.
#[derive(Debug, Default)]
pub struct Guard {
    allow_private_networks: bool,
    exempt: HashSet<IpAddr>,
}

impl Guard {
    pub fn new(allow_private_networks: bool, exempt: HashSet<IpAddr>) -> Guard {
        Guard {
            allow_private_networks,
            exempt,
        }
    }

    /// Whether a connection to `ip` is allowed.
    pub fn allows(&self, ip: IpAddr) -> bool {
        self.allow_private_networks || self.exempt.contains(&ip) || !is_forbidden(ip)
    }

    /// Checks the host of a URL when it is an IP literal (names are checked by the resolver).
    pub fn check_url(&self, url: &Url) -> Result<(), Refused> {
        let address = match url.host() {
            Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
            Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
            _ => return Ok(()),
        };
        if self.allows(address) {
            Ok(())
        } else {
            Err(Refused {
                host: url.host_str().unwrap_or_default().to_string(),
                address,
            })
        }
    }
}

/// The redirect policy: at most [`MAX_REDIRECTS`], no loops, only http(s), and the guard's
/// check of IP-literal targets (DNS-name targets meet [`GuardedResolver`] when connecting).
pub fn redirect_policy(guard: Arc<Guard>) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let next = attempt.url().clone();
        if !matches!(next.scheme(), "http" | "https") {
            return attempt.error(RedirectStop::Scheme(next));
        }
        if let Err(refused) = guard.check_url(&next) {
            return attempt.error(RedirectStop::Refused { url: next, refused });
        }
        if attempt.previous().contains(&next) {
            return attempt.error(RedirectStop::Loop(next));
        }
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(RedirectStop::TooMany(next));
        }
        attempt.follow()
    })
}

/// The client's DNS resolver: system lookups (or test overrides), with forbidden addresses
/// removed. A name with no allowed address left fails with [`Refused`].
pub struct GuardedResolver {
    guard: Arc<Guard>,
    overrides: HashMap<String, Vec<IpAddr>>,
}

impl GuardedResolver {
    pub fn new(guard: Arc<Guard>, overrides: HashMap<String, Vec<IpAddr>>) -> GuardedResolver {
        GuardedResolver { guard, overrides }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let guard = Arc::clone(&self.guard);
        let overridden = self.overrides.get(&host).cloned();
        Box::pin(async move {
            let found: Vec<IpAddr> = match overridden {
                Some(addresses) => addresses,
                None => tokio::net::lookup_host((host.as_str(), 0))
                    .await?
                    .map(|a| a.ip())
                    .collect(),
            };
            let (allowed, refused): (Vec<IpAddr>, Vec<IpAddr>) =
                found.into_iter().partition(|ip| guard.allows(*ip));
            if allowed.is_empty()
                && let Some(&address) = refused.first()
            {
                tracing::warn!(%host, %address, "refused a name that resolves to a forbidden address");
                return Err(Box::new(Refused { host, address }) as _);
            }
            let addrs: Addrs = Box::new(allowed.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("test address")
    }

    #[test]
    fn forbidden_addresses() {
        for text in [
            "0.0.0.0",
            "0.1.2.3",
            "127.0.0.1",
            "127.255.255.254",
            "10.0.0.1",
            "10.255.255.255",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.0.1",
            "192.168.255.255",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.9",
            "198.18.0.1",
            "198.19.255.255",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
            "2001:db8::1",
            "100::1",
            "64:ff9b:1::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::ffff:0.0.0.0",
            "::127.0.0.1",
            "::192.168.1.1",
            "64:ff9b::10.0.0.1",
            "64:ff9b::127.0.0.1",
            "2002:7f00:1::1",
            "2002:c0a8:101::1",
        ] {
            assert!(is_forbidden(ip(text)), "{text} should be forbidden");
        }
    }

    #[test]
    fn public_addresses() {
        for text in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.167.1.1",
            "192.169.1.1",
            "169.253.1.1",
            "198.17.1.1",
            "198.20.1.1",
            "223.255.255.255",
            "11.0.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001:82b::200e",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:0808:0808::1",
            "fbff::1",
            "fe7f::1",
        ] {
            assert!(!is_forbidden(ip(text)), "{text} should be allowed");
        }
    }

    #[test]
    fn guard_switch_and_exemption() {
        let strict = Guard::new(false, HashSet::new());
        assert!(!strict.allows(ip("127.0.0.1")));
        assert!(strict.allows(ip("8.8.8.8")));
        let exempt = Guard::new(false, HashSet::from([ip("127.0.0.1")]));
        assert!(exempt.allows(ip("127.0.0.1")));
        assert!(!exempt.allows(ip("127.0.0.2")));
        assert!(!exempt.allows(ip("::ffff:127.0.0.1")));
        let open = Guard::new(true, HashSet::new());
        assert!(open.allows(ip("10.0.0.1")));
    }

    #[test]
    fn ip_literal_urls() {
        let strict = Guard::new(false, HashSet::new());
        for text in [
            "http://127.0.0.1/",
            "http://[::1]:8080/",
            "http://0x7f.1/",
            "http://2130706433/",
            "http://[::ffff:7f00:1]/",
            "https://169.254.169.254/latest/meta-data/",
        ] {
            let url = Url::parse(text).expect("test URL");
            assert!(strict.check_url(&url).is_err(), "{text} should be refused");
        }
        for text in ["http://8.8.8.8/", "https://example.com/"] {
            let url = Url::parse(text).expect("test URL");
            assert!(strict.check_url(&url).is_ok(), "{text} should pass");
        }
    }
}
