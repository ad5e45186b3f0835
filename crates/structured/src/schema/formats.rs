//! The `format` values the engine checks, as assertions: a string that is not a date
//! where `"format": "date"` is asked for is invalid. Other values of `format` are refused
//! when the schema is loaded. (`regex` is one of them: whether a text is an ECMA-262
//! regular expression cannot be told with Rust's `regex`, whose syntax differs.)

use std::net::Ipv6Addr;

use super::hostname::hostname;

/// A checked `format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    DateTime,
    Date,
    Time,
    Duration,
    Email,
    Hostname,
    Ipv4,
    Ipv6,
    Uri,
    UriReference,
    Uuid,
    JsonPointer,
}

impl Format {
    /// Every checked format's name.
    pub(super) const NAMES: &'static [&'static str] = &[
        "date-time",
        "date",
        "time",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "uuid",
        "json-pointer",
    ];

    pub(super) fn parse(name: &str) -> Option<Format> {
        Some(match name {
            "date-time" => Format::DateTime,
            "date" => Format::Date,
            "time" => Format::Time,
            "duration" => Format::Duration,
            "email" => Format::Email,
            "hostname" => Format::Hostname,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "uri" => Format::Uri,
            "uri-reference" => Format::UriReference,
            "uuid" => Format::Uuid,
            "json-pointer" => Format::JsonPointer,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Time => "time",
            Format::Duration => "duration",
            Format::Email => "email",
            Format::Hostname => "hostname",
            Format::Ipv4 => "ipv4",
            Format::Ipv6 => "ipv6",
            Format::Uri => "uri",
            Format::UriReference => "uri-reference",
            Format::Uuid => "uuid",
            Format::JsonPointer => "json-pointer",
        }
    }

    /// Whether `s` is written in this format.
    pub(super) fn check(self, s: &str) -> bool {
        match self {
            Format::DateTime => date_time(s),
            Format::Date => date(s),
            Format::Time => time(s),
            Format::Duration => duration(s),
            Format::Email => email(s),
            Format::Hostname => hostname(s),
            Format::Ipv4 => ipv4(s),
            Format::Ipv6 => ipv6(s),
            Format::Uri => uri(s, false),
            Format::UriReference => uri(s, true),
            Format::Uuid => uuid(s),
            Format::JsonPointer => json_pointer(s),
        }
    }
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|c| c.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, a real day of a real month.
fn date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(&s[..4], 4), digits(&s[5..7], 2), digits(&s[8..], 2))
    else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 `full-time`: `HH:MM:SS[.frac](Z|±HH:MM)`; second 60 only where the time in
/// UTC is 23:59:60 (a leap second).
fn time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) =
        (digits(&s[..2], 2), digits(&s[3..5], 2), digits(&s[6..8], 2))
    else {
        return false;
    };
    let mut rest = &s[8..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    let offset_minutes: i64 = if rest.eq_ignore_ascii_case("z") {
        0
    } else {
        let ob = rest.as_bytes();
        if ob.len() != 6 || !matches!(ob[0], b'+' | b'-') || ob[3] != b':' {
            return false;
        }
        let (Some(oh), Some(om)) = (digits(&rest[1..3], 2), digits(&rest[4..], 2)) else {
            return false;
        };
        if oh > 23 || om > 59 {
            return false;
        }
        let sign = if ob[0] == b'-' { -1 } else { 1 };
        sign * i64::from(oh * 60 + om)
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    if sec == 60 {
        let utc = (i64::from(h * 60 + m) - offset_minutes).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

/// RFC 3339 `date-time`.
fn date_time(s: &str) -> bool {
    match s.find(['T', 't']) {
        Some(10) => date(&s[..10]) && time(&s[11..]),
        _ => false,
    }
}

/// RFC 3339 appendix A `duration`: `P` then years to days and/or `T` hours to seconds
/// (each unit once, in order, at least one), or weeks alone.
fn duration(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('P') else {
        return false;
    };
    if let Some(w) = rest.strip_suffix('W') {
        return !w.is_empty() && w.bytes().all(|c| c.is_ascii_digit());
    }
    let (date_part, time_part) = match rest.find('T') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let units = |part: &str, order: &[u8]| -> Option<usize> {
        let mut count = 0;
        let mut next = 0;
        let mut num = 0;
        for c in part.bytes() {
            if c.is_ascii_digit() {
                num += 1;
                continue;
            }
            let at = order[next..].iter().position(|&u| u == c)? + next;
            // Units follow one another without a gap (`P1Y1D` lacks its months).
            if num == 0 || (count > 0 && at != next) {
                return None;
            }
            num = 0;
            next = at + 1;
            count += 1;
        }
        (num == 0).then_some(count)
    };
    let Some(d) = units(date_part, b"YMD") else {
        return false;
    };
    match time_part {
        None => d > 0,
        Some(t) => units(t, b"HMS").is_some_and(|n| n > 0),
    }
}

/// Dotted-decimal IPv4: four numbers 0–255, no leading zeros.
fn ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|c| c.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

fn ipv6(s: &str) -> bool {
    s.is_ascii() && s.parse::<Ipv6Addr>().is_ok()
}

/// RFC 5321 mailbox: a dot-atom or quoted local part, `@`, and a host name or an
/// address literal (`[127.0.0.1]`, `[IPv6:…]`).
fn email(s: &str) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    let local_ok = if local.len() >= 2 && local.starts_with('"') && local.ends_with('"') {
        let inner = &local[1..local.len() - 1];
        inner.bytes().all(|c| c != b'"' || c == b'\\') && !inner.ends_with('\\')
    } else {
        const ATEXT: &[u8] = b"!#$%&'*+-/=?^_`{|}~";
        !local.is_empty()
            && local.split('.').all(|atom| {
                !atom.is_empty()
                    && atom
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || ATEXT.contains(&c))
            })
    };
    let domain_ok =
        if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
            match literal.strip_prefix("IPv6:") {
                Some(v6) => ipv6(v6),
                None => ipv4(literal),
            }
        } else {
            hostname(domain)
        };
    local_ok && domain_ok
}

/// 8-4-4-4-12 hexadecimal digits.
fn uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// RFC 6901: empty, or `/`-separated tokens where `~` is followed by `0` or `1`.
fn json_pointer(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    if !s.starts_with('/') {
        return false;
    }
    let b = s.as_bytes();
    b.iter()
        .enumerate()
        .all(|(i, &c)| c != b'~' || matches!(b.get(i + 1), Some(b'0' | b'1')))
}

/// RFC 3986 URI (`relative`: a URI reference, which may leave out the scheme).
fn uri(s: &str, relative: bool) -> bool {
    // Characters a URI may hold (percent-escapes checked apart).
    const ALLOWED: &[u8] = b"-._~:/?#[]@!$&'()*+,;=%";
    let b = s.as_bytes();
    if !b
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || ALLOWED.contains(c))
    {
        return false;
    }
    for (i, &c) in b.iter().enumerate() {
        if c == b'%'
            && !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
        {
            return false;
        }
    }
    let (scheme, rest) = match s.find([':', '/', '?', '#']) {
        Some(i) if b[i] == b':' => (Some(&s[..i]), &s[i + 1..]),
        _ => (None, s),
    };
    match scheme {
        Some(sc) => {
            let sb = sc.as_bytes();
            if sb.is_empty()
                || !sb[0].is_ascii_alphabetic()
                || !sb
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c))
            {
                return false;
            }
        }
        None if !relative => return false,
        None => {}
    }
    // `[` and `]` only around an IP literal host.
    let (hier, _) = rest.split_once(['?', '#']).unwrap_or((rest, ""));
    if let Some(after) = hier.strip_prefix("//") {
        let authority = after.split('/').next().unwrap_or("");
        if authority.matches('@').count() > 1 {
            return false;
        }
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
            let Some((inside, after)) = v6.split_once(']') else {
                return false;
            };
            if !ipv6(inside) && !inside.starts_with(['v', 'V']) {
                return false;
            }
            (None, after.strip_prefix(':'))
        } else {
            match host_port.rsplit_once(':') {
                Some((h, p)) => (Some(h), Some(p)),
                None => (Some(host_port), None),
            }
        };
        if host.is_some_and(|h| h.contains(['[', ']'])) {
            return false;
        }
        if port.is_some_and(|p| !p.bytes().all(|c| c.is_ascii_digit())) {
            return false;
        }
        if authority.contains(['[', ']']) && !host_port.starts_with('[') {
            return false;
        }
        hier[2 + authority.len()..]
            .bytes()
            .all(|c| c != b'[' && c != b']')
    } else {
        !hier.contains(['[', ']'])
    }
}
