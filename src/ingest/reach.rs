//! Which addresses a download may connect to.
//!
//! A person's own `wikimind ingest URL` reaches anything ([`Reach::Anywhere`]). A URL that
//! someone else chose — an assistant's `add_source` over MCP, steered by whatever page it
//! read — must not reach the machine itself or its network (server-side request forgery:
//! an admin page on `localhost`, a router, a cloud metadata service). [`Reach::PublicOnly`]
//! refuses every address that is not public ([`non_public`]), checked on the *resolved*
//! addresses of every connection (so a public-looking name that resolves to `127.0.0.1`,
//! or a redirect to one, is refused too), with the [`HostResolver`] it is given: the
//! system's by default, a fake one in tests.

use std::fmt;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

/// What a [`HostResolver`] returns: the addresses of a host, in time.
pub type Lookup<'a> = Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>>;

/// Finds the addresses of a host name (the seam where tests put their own answers).
pub trait HostResolver: Send + Sync {
    /// The addresses of `host` (a name, never an IP literal).
    fn lookup<'a>(&'a self, host: &'a str) -> Lookup<'a>;
}

/// The operating system's resolver (`getaddrinfo`, through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl HostResolver for SystemResolver {
    fn lookup<'a>(&'a self, host: &'a str) -> Lookup<'a> {
        Box::pin(async move {
            Ok(tokio::net::lookup_host((host, 0))
                .await?
                .map(|a| a.ip())
                .collect())
        })
    }
}

/// Which addresses a download may connect to.
#[derive(Clone, Default)]
pub enum Reach {
    /// Any address: what a person asks for themselves (`wikimind ingest URL`).
    #[default]
    Anywhere,
    /// Public addresses only, every connection's host resolved with this resolver and
    /// refused when any of its addresses is not public; proxies are not used (the check is
    /// on where the connection goes).
    PublicOnly(Arc<dyn HostResolver>),
}

impl Reach {
    /// Public addresses only, resolved by the system.
    pub fn public_only() -> Reach {
        Reach::PublicOnly(Arc::new(SystemResolver))
    }
}

impl fmt::Debug for Reach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reach::Anywhere => f.write_str("Anywhere"),
            Reach::PublicOnly(_) => f.write_str("PublicOnly"),
        }
    }
}

/// A connection refused because it would reach an address that is not public.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{host} is {address}, {range}")]
pub struct NotPublic {
    /// The host as the URL names it.
    pub host: String,
    /// The address it is (or resolves to).
    pub address: IpAddr,
    /// What the address is, in words (`a loopback address`).
    pub range: &'static str,
}

/// Why `ip` is not a public address, in words (`a loopback address (127.0.0.0/8)`), or
/// `None` when it is one. IPv4 addresses inside IPv6 (mapped `::ffff:a.b.c.d`, compatible
/// `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged as the IPv4 address
/// they carry.
pub fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => non_public_v4(v4),
        IpAddr::V6(v6) => non_public_v6(v6),
    }
}

fn non_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, _, _) => "the unspecified network (0.0.0.0/8)",
        (10, _, _) => "a private address (10.0.0.0/8)",
        (100, 64..=127, _) => "a shared carrier-grade NAT address (100.64.0.0/10)",
        (127, _, _) => "a loopback address (127.0.0.0/8)",
        (169, 254, _) => "a link-local address (169.254.0.0/16)",
        (172, 16..=31, _) => "a private address (172.16.0.0/12)",
        (192, 0, 0) => "an IETF protocol address (192.0.0.0/24)",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        (192, 168, _) => "a private address (192.168.0.0/16)",
        (198, 18..=19, _) => "a benchmarking address (198.18.0.0/15)",
        (224..=239, _, _) => "a multicast address (224.0.0.0/4)",
        (240..=255, _, _) => "a reserved or broadcast address (240.0.0.0/4)",
        _ => return None,
    })
}

fn non_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    if ip.is_unspecified() {
        return Some("the unspecified address (::)");
    }
    if ip.is_loopback() {
        return Some("a loopback address (::1)");
    }
    // An IPv4 address carried inside: judged as itself.
    let embedded = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    if s[..5] == [0; 5] && (s[5] == 0xffff || s[5] == 0) {
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible).
        return non_public_v4(embedded(s[6], s[7]));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return non_public_v4(embedded(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return non_public_v4(embedded(s[1], s[2]));
    }
    Some(match s[0] {
        0xfe80..=0xfebf => "a link-local address (fe80::/10)",
        0xfec0..=0xfeff => "a site-local address (fec0::/10)",
        0xfc00..=0xfdff => "a unique local address (fc00::/7)",
        0xff00..=0xffff => "a multicast address (ff00::/8)",
        0x2001 if s[1] == 0x0db8 => "a documentation address (2001:db8::/32)",
        0x0100 if s[1..4] == [0, 0, 0] => "a discard-only address (100::/64)",
        _ => return None,
    })
}

/// `host`'s addresses when all are public, else why not.
pub(super) fn check_all(host: &str, addresses: &[IpAddr]) -> Result<(), NotPublic> {
    for &address in addresses {
        if let Some(range) = non_public(address) {
            return Err(NotPublic {
                host: host.to_owned(),
                address,
                range,
            });
        }
    }
    Ok(())
}

/// A URL's host when it is an IP literal that is not public (a literal is never resolved,
/// so it is checked here).
pub(super) fn literal_not_public(url: &url::Url) -> Option<NotPublic> {
    let address = match url.host()? {
        url::Host::Ipv4(v4) => IpAddr::V4(v4),
        url::Host::Ipv6(v6) => IpAddr::V6(v6),
        url::Host::Domain(_) => return None,
    };
    let host = url.host_str().unwrap_or_default().to_owned();
    check_all(&host, &[address]).err()
}

/// The resolver reqwest connects through under [`Reach::PublicOnly`]: the host's addresses
/// from `inner`, refused as a whole when one of them is not public.
pub(super) struct Guarded(pub Arc<dyn HostResolver>);

impl reqwest::dns::Resolve for Guarded {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let inner = Arc::clone(&self.0);
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addresses = inner.lookup(&host).await?;
            if addresses.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("{host} has no address"),
                )
                .into());
            }
            check_all(&host, &addresses)?;
            let addrs: reqwest::dns::Addrs =
                Box::new(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

/// The [`NotPublic`] refusal somewhere in `error`'s chain of causes, if any.
pub(super) fn refusal_in(error: &(dyn std::error::Error + 'static)) -> Option<NotPublic> {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if let Some(refused) = e.downcast_ref::<NotPublic>() {
            return Some(refused.clone());
        }
        cause = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_private_loopback_and_link_local_range_is_refused() {
        let refused = [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.1.2.3",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "192.0.0.8",
            "198.18.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "fe80::1",
            "febf::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a00:1",
            "2002:c0a8:0101::1",
            "2001:db8::1",
        ];
        for ip in refused {
            let ip: IpAddr = ip.parse().unwrap();
            assert!(non_public(ip).is_some(), "{ip} must be refused");
        }
        let public = [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "169.253.1.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001:80b::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ];
        for ip in public {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(non_public(ip), None, "{ip} is public");
        }
    }

    #[test]
    fn the_reason_names_the_range() {
        let refused = check_all(
            "intranet.test",
            &["8.8.8.8".parse().unwrap(), "10.0.0.7".parse().unwrap()],
        )
        .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "intranet.test is 10.0.0.7, a private address (10.0.0.0/8)"
        );
        assert!(check_all("example.org", &["8.8.8.8".parse().unwrap()]).is_ok());
    }

    #[test]
    fn ip_literals_are_judged_without_resolving() {
        for url in [
            "http://127.0.0.1:8080/admin",
            "http://[::1]/",
            "http://[::ffff:7f00:1]/",
            "http://0x7f.1/",
            "http://2130706433/",
            "http://169.254.169.254/latest/meta-data/",
        ] {
            let url = url::Url::parse(url).unwrap();
            assert!(literal_not_public(&url).is_some(), "{url}");
        }
        for url in ["http://8.8.8.8/", "https://example.org/"] {
            let url = url::Url::parse(url).unwrap();
            assert_eq!(literal_not_public(&url), None, "{url}");
        }
    }
}
