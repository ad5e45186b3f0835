//! URLs as WikiMind keeps and shows them: a web page's origin (its identity) and any text
//! that may hold a URL with `user:password@` in it, redacted before it is stored or shown.

use url::Url;

/// Why a URL cannot be a web page's origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// The URL could not be parsed.
    #[error("{url}: not a valid URL ({reason})")]
    Invalid {
        /// The URL as given, credentials cut out.
        url: String,
        /// The parser's message.
        reason: String,
    },
    /// The URL's scheme is not http or https.
    #[error("{url}: only http and https URLs can be fetched (got `{scheme}:`)")]
    UnsupportedScheme {
        /// The URL, credentials cut out.
        url: String,
        /// Its scheme.
        scheme: String,
    },
}

/// The origin of a web page for a URL as typed: the URL parsed and normalised, without its
/// fragment and without `user:password@`. The same URL always gives the same origin. Errors
/// (not a URL, not http or https) never repeat credentials.
pub fn url_origin(url: &str) -> Result<String, UrlError> {
    parse_http_url(url).map(|parsed| shown_url(&parsed))
}

/// Parses an http or https URL and drops its fragment (credentials are kept: they are sent).
pub fn parse_http_url(url: &str) -> Result<Url, UrlError> {
    let given = url.trim();
    let mut parsed = Url::parse(given).map_err(|error| UrlError::Invalid {
        url: without_userinfo(given),
        reason: error.to_string(),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(UrlError::UnsupportedScheme {
            url: shown_url(&parsed),
            scheme: parsed.scheme().to_owned(),
        });
    }
    parsed.set_fragment(None);
    Ok(parsed)
}

/// A URL fit to store and show: no `user:password@`, no fragment.
pub fn shown_url(url: &Url) -> String {
    let mut shown = url.clone();
    shown.set_fragment(None);
    if shown.set_password(None).is_err() || shown.set_username("").is_err() {
        // A URL that cannot hold credentials (no host) has none to hide.
        return without_userinfo(url.as_str());
    }
    shown.to_string()
}

/// Text that may be a URL, with anything between `//` and the last `@` of the authority
/// removed: the form of a URL fit for a message, whether or not it parses.
pub fn without_userinfo(text: &str) -> String {
    let Some(scheme_end) = text.find("//") else {
        return text.to_owned();
    };
    let authority_start = scheme_end + 2;
    let authority_end = text[authority_start..]
        .find(['/', '?', '#', '\\'])
        .map_or(text.len(), |i| authority_start + i);
    match text[authority_start..authority_end].rfind('@') {
        Some(at) => format!(
            "{}{}",
            &text[..authority_start],
            &text[authority_start + at + 1..]
        ),
        None => text.to_owned(),
    }
}

/// Where a web page was finally read from, as shown beside its origin (`origin → URL`):
/// `None` when it did not redirect (no final URL, or one that reads as the origin once
/// redacted), and never with `user:password@`. The store keeps no credentials in a final
/// URL ([`shown_url`]); this holds for any row, however it was written.
pub fn redirect_shown(origin: &str, final_url: Option<&str>) -> Option<String> {
    let shown = without_userinfo(final_url?);
    (shown != origin).then_some(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_is_shown_only_when_it_moved_and_never_with_credentials() {
        let origin = "https://example.org/a";
        assert_eq!(
            redirect_shown("https://example.org/old", Some("https://example.com/new")).as_deref(),
            Some("https://example.com/new")
        );
        assert_eq!(redirect_shown(origin, None), None);
        assert_eq!(redirect_shown(origin, Some(origin)), None);
        assert_eq!(
            redirect_shown(origin, Some("https://alice:pw@example.com/b?c=d@e")).as_deref(),
            Some("https://example.com/b?c=d@e")
        );
        assert_eq!(
            redirect_shown(origin, Some("https://a:b@c@example.com/")).as_deref(),
            Some("https://example.com/")
        );
        assert_eq!(
            redirect_shown(origin, Some("https://alice:pw@example.org/a")),
            None,
            "credentials cut out, it is the origin"
        );
    }

    #[test]
    fn origins_drop_fragments_and_credentials() {
        let cases = [
            ("https://example.com/a#b", "https://example.com/a"),
            ("  HTTP://Example.COM  ", "http://example.com/"),
            (
                "http://alice:pw@example.com/x?q=1",
                "http://example.com/x?q=1",
            ),
            ("http://alice@example.com:8080/", "http://example.com:8080/"),
            ("http://:pw@example.com/", "http://example.com/"),
        ];
        for (given, want) in cases {
            assert_eq!(url_origin(given).unwrap(), want, "{given}");
        }
        assert_eq!(
            without_userinfo("http://a:b@c@ho st/p@q"),
            "http://ho st/p@q"
        );
        assert_eq!(without_userinfo("no url here"), "no url here");
        assert_eq!(without_userinfo("mailto:a@b"), "mailto:a@b");
    }
}
