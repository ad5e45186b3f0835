//! The URI of a page as an MCP resource: `wikimind://page/<title>`, the title
//! percent-encoded as RFC 3986 asks (every byte of its UTF-8 but the unreserved
//! characters `A–Z a–z 0–9 - . _ ~` is written `%XX`), so any title, with spaces, slashes,
//! `#`, `?` or any script, makes one URI and comes back unchanged.

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// What comes before the encoded title.
pub const PREFIX: &str = "wikimind://page/";

/// The URI template of pages, for clients that build a URI from a title.
pub const TEMPLATE: &str = "wikimind://page/{title}";

/// Everything but RFC 3986's unreserved characters is encoded.
const ENCODED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The resource URI of the page titled `title`.
pub fn page_uri(title: &str) -> String {
    format!("{PREFIX}{}", utf8_percent_encode(title, ENCODED))
}

/// The title a page URI names, or why `uri` names none (in words for the person or model
/// that sent it).
pub fn title_of(uri: &str) -> Result<String, String> {
    let Some(encoded) = uri.strip_prefix(PREFIX) else {
        return Err(format!(
            "{uri:?} is not a WikiMind page: page URIs are {TEMPLATE} with the title \
             percent-encoded (list them with resources/list)"
        ));
    };
    let title = percent_decode_str(encoded)
        .decode_utf8()
        .map_err(|_| format!("{uri:?} does not decode to a UTF-8 title"))?;
    if title.trim().is_empty() {
        return Err(format!("{uri:?} names no title: {TEMPLATE}"));
    }
    Ok(title.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreserved_characters_stay_and_everything_else_is_encoded() {
        assert_eq!(page_uri("Espresso"), "wikimind://page/Espresso");
        assert_eq!(
            page_uri("Model 2.0-beta_x~y"),
            "wikimind://page/Model%202.0-beta_x~y"
        );
        assert_eq!(
            page_uri("C# / F#? 100%"),
            "wikimind://page/C%23%20%2F%20F%23%3F%20100%25"
        );
        assert_eq!(page_uri("Café"), "wikimind://page/Caf%C3%A9");
        assert_eq!(page_uri("a+b"), "wikimind://page/a%2Bb");
    }

    #[test]
    fn every_title_comes_back_from_its_uri() {
        for title in [
            "Espresso",
            "C# / F#? 100%",
            "Café au lait",
            "日本語",
            "a+b=c&d",
        ] {
            assert_eq!(title_of(&page_uri(title)).as_deref(), Ok(title));
        }
    }

    #[test]
    fn other_uris_are_refused_with_the_scheme_to_use() {
        let err = title_of("file:///etc/passwd").unwrap_err();
        assert!(err.contains("wikimind://page/{title}"), "{err}");
        assert!(title_of("wikimind://page/").is_err());
        assert!(title_of("wikimind://page/%FF").is_err());
    }
}
