//! Web pages over http and https.

use encoding_rs::Encoding;
use reqwest::header::CONTENT_TYPE;
use wikimind_text::url::{parse_http_url, shown_url};

use std::sync::Arc;

use super::document::DocumentType;
use super::reach::{literal_not_public, refusal_in, Guarded, NotPublic, Reach};
use super::text::{markdown_meta, normalise_text, MarkdownMeta};
use super::{IngestError, IngestOptions, IngestedSource, Result, SourceKind};
use wikimind_documents::html::readable_html;

/// The most redirects followed (reqwest's default).
const MAX_REDIRECTS: usize = 10;

/// How a downloaded body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyType {
    Html,
    Text,
    /// A PDF, EPUB or DOCX document.
    Document(DocumentType),
    /// No content type declared: decided by looking at the body.
    Unknown,
}

/// Downloads one web page and returns its readable text.
///
/// Only `http` and `https` URLs are fetched. The URL as given, normalised (see
/// [`url_origin`]: fragment and any `user:password@` dropped), is the source's origin, so
/// ingesting the same URL again finds the same source; where redirects led, if elsewhere,
/// is kept in [`IngestedSource::final_url`]. Credentials in the URL are sent to the server
/// (as HTTP basic authentication) but never appear in the origin, the final URL or an
/// error message. HTML pages are reduced to readable text (title from
/// `<title>` or the first `<h1>`); `text/plain` and `text/markdown` are kept as they are.
/// Anything else (PDF, images, archives) is refused with an error naming the content type.
/// The whole exchange is bounded by [`IngestOptions::timeout`], and the body by
/// [`IngestOptions::max_bytes`], checked while streaming so an endless body stops early.
/// The charset of the `Content-Type` header (or an HTML `<meta charset>`) is honoured;
/// UTF-8 is assumed otherwise.
pub async fn fetch_url(url: &str, options: &IngestOptions) -> Result<IngestedSource> {
    fetch_url_within(url, options, &Reach::Anywhere).await
}

/// [`fetch_url`], connecting only where `reach` allows: with [`Reach::PublicOnly`] the URL,
/// every redirect and every resolved address must be public, or the download is refused
/// with [`IngestError::NotPublic`] before anything is sent there.
pub async fn fetch_url_within(
    url: &str,
    options: &IngestOptions,
    reach: &Reach,
) -> Result<IngestedSource> {
    let parsed = parse_http_url(url)?;
    let origin = shown_url(&parsed);
    let not_public = |refused: NotPublic| IngestError::NotPublic {
        url: origin.clone(),
        reason: refused.to_string(),
    };
    if let Reach::PublicOnly(_) = reach {
        if let Some(refused) = literal_not_public(&parsed) {
            return Err(not_public(refused));
        }
    }

    // reqwest's errors name the URL they were for, credentials included: never keep it.
    let request_error = |source: reqwest::Error| {
        if let Some(refused) = refusal_in(&source) {
            return not_public(refused);
        }
        if source.is_timeout() {
            IngestError::Timeout {
                url: origin.clone(),
                seconds: options.timeout.as_secs().max(1),
            }
        } else {
            IngestError::Http {
                url: origin.clone(),
                source: source.without_url(),
            }
        }
    };

    let mut builder = reqwest::Client::builder()
        .timeout(options.timeout)
        .connect_timeout(options.timeout)
        .user_agent(concat!("WikiMind/", env!("CARGO_PKG_VERSION")));
    if let Reach::PublicOnly(resolver) = reach {
        // Every connection's name goes through the guard; a redirect to an IP literal
        // (never resolved) is judged here. No proxy: it would connect on our behalf.
        builder = builder
            .dns_resolver(Arc::new(Guarded(Arc::clone(resolver))))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                if let Some(refused) = literal_not_public(attempt.url()) {
                    attempt.error(refused)
                } else if attempt.previous().len() >= MAX_REDIRECTS {
                    attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
                } else {
                    attempt.follow()
                }
            }));
    }
    let client = builder.build().map_err(request_error)?;
    let mut response = client
        .get(parsed.clone())
        .header(
            reqwest::header::ACCEPT,
            "text/html, application/xhtml+xml, text/markdown, text/plain;q=0.9, \
             application/pdf;q=0.8, application/epub+zip;q=0.8, \
             application/vnd.openxmlformats-officedocument.wordprocessingml.document;q=0.8, \
             */*;q=0.1",
        )
        .send()
        .await
        .map_err(request_error)?;

    let final_url = Some(shown_url(response.url())).filter(|url| *url != origin);
    let status = response.status();
    if !status.is_success() {
        return Err(IngestError::Status {
            url: origin,
            status: status.as_u16(),
        });
    }

    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
    let (body_type, charset) = match content_type.as_deref() {
        None => (BodyType::Unknown, None),
        Some(raw) => {
            let (essence, charset) = parse_content_type(raw);
            let body_type = match essence.as_str() {
                "text/html" | "application/xhtml+xml" => BodyType::Html,
                "text/plain" | "text/markdown" | "text/x-markdown" => BodyType::Text,
                "" | "application/octet-stream" => BodyType::Unknown,
                other => match DocumentType::of_content_type(other) {
                    Some(kind) => BodyType::Document(kind),
                    None => {
                        return Err(IngestError::UnsupportedContentType {
                            url: origin,
                            content_type: raw.trim().to_owned(),
                        })
                    }
                },
            };
            (body_type, charset)
        }
    };

    let limit = options.max_bytes;
    if response
        .content_length()
        .is_some_and(|length| length > limit)
    {
        return Err(IngestError::ResponseTooLarge { url: origin, limit });
    }
    let mut body: Vec<u8> = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(request_error)? {
        let total = u64::try_from(body.len() + chunk.len()).unwrap_or(u64::MAX);
        if total > limit {
            return Err(IngestError::ResponseTooLarge { url: origin, limit });
        }
        body.extend_from_slice(&chunk);
    }

    let body_type = match body_type {
        BodyType::Unknown if body.starts_with(b"%PDF-") => BodyType::Document(DocumentType::Pdf),
        BodyType::Unknown if looks_like_html(&body) => BodyType::Html,
        BodyType::Unknown => BodyType::Text,
        known => known,
    };
    if let BodyType::Document(kind) = body_type {
        // The last part of the URL's path, without its extension, is the last resort for
        // the title.
        let stem = parsed
            .path_segments()
            .and_then(|mut segments| segments.next_back().map(str::to_owned))
            .map(|name| match name.rsplit_once('.') {
                Some((stem, _)) => stem.to_owned(),
                None => name,
            })
            .and_then(|stem| super::text::clean_title(&stem));
        let body: std::sync::Arc<[u8]> = body.into();
        let bytes = std::sync::Arc::clone(&body);
        let (what, progress) = (origin.clone(), options.progress.clone());
        let read = tokio::task::spawn_blocking(move || {
            kind.read(&bytes, stem.as_deref(), &what, progress.as_ref())
        })
        .await;
        let document = match read {
            Ok(result) => result.map_err(|source| IngestError::Document {
                what: origin.clone(),
                source,
            })?,
            Err(join) => {
                return Err(IngestError::Document {
                    what: origin.clone(),
                    source: wikimind_documents::DocumentError::ToolFailed {
                        tool: "the document reader",
                        message: join.to_string(),
                    },
                })
            }
        };
        let warnings = document
            .warnings
            .iter()
            .map(|w| format!("{origin}: {w}"))
            .collect();
        return Ok(IngestedSource {
            origin,
            kind: SourceKind::Url,
            title: document.title,
            tags: Vec::new(),
            aliases: Vec::new(),
            warnings,
            text: document.text,
            pages: document.pages,
            document: Some(kind.name()),
            final_url,
            file: None,
            root: None,
            // A PDF's pages are shown as images from a copy the wiki keeps.
            original: (kind == DocumentType::Pdf).then_some(body),
        });
    }
    let charset = charset.or_else(|| {
        if body_type == BodyType::Html {
            meta_charset(&body)
        } else {
            None
        }
    });
    let encoding = charset
        .as_deref()
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    // A NUL byte in an 8-bit encoding means binary data served under a text type.
    if body.contains(&0) && !matches!(encoding.name(), "UTF-16LE" | "UTF-16BE") {
        return Err(IngestError::UnsupportedContentType {
            url: origin,
            content_type: format!(
                "{} (binary data)",
                content_type.as_deref().unwrap_or("undeclared")
            ),
        });
    }
    // `decode` sniffs a byte order mark first and replaces malformed sequences.
    let (decoded, _, _) = encoding.decode(&body);
    let normalised = normalise_text(&decoded);

    let (meta, text) = match body_type {
        BodyType::Html => {
            let readable = readable_html(&normalised);
            (
                MarkdownMeta {
                    title: readable.title,
                    ..MarkdownMeta::default()
                },
                readable.text,
            )
        }
        _ => (markdown_meta(&normalised, None), normalised),
    };
    if text.trim().is_empty() {
        return Err(IngestError::EmptyPage { url: origin });
    }
    let warnings = meta
        .warning
        .map(|w| format!("{origin}, {w}"))
        .into_iter()
        .collect();
    Ok(IngestedSource {
        origin,
        kind: SourceKind::Url,
        title: meta.title,
        tags: meta.tags,
        aliases: meta.aliases,
        warnings,
        text,
        pages: Vec::new(),
        document: None,
        final_url,
        file: None,
        root: None,
        original: None,
    })
}

/// The origin of a web page for a URL as typed (see [`wikimind_text::url::url_origin`]).
pub fn url_origin(url: &str) -> Result<String> {
    Ok(wikimind_text::url::url_origin(url)?)
}

/// The lowercase essence (`type/subtype`) and the charset parameter of a content type.
fn parse_content_type(raw: &str) -> (String, Option<String>) {
    let mut parts = raw.split(';');
    let essence = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let charset = parts.find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim().trim_matches(['"', '\'']).trim();
        (!value.is_empty()).then(|| value.to_owned())
    });
    (essence, charset)
}

fn looks_like_html(body: &[u8]) -> bool {
    let start = &body[..body.len().min(1024)];
    let start = String::from_utf8_lossy(start).to_ascii_lowercase();
    let start = start.trim_start_matches('\u{feff}').trim_start();
    start.starts_with("<!doctype html") || start.starts_with("<html") || start.contains("<body")
}

/// The charset named by a `<meta charset>` or `<meta http-equiv content>` near the start.
fn meta_charset(body: &[u8]) -> Option<String> {
    let start = &body[..body.len().min(2048)];
    let head = String::from_utf8_lossy(start).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let value: String = head[at..]
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
        .collect();
    (!value.is_empty()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("text/html; charset=UTF-8", "text/html", Some("UTF-8")),
            ("Text/HTML", "text/html", None),
            (
                "text/plain;charset=\"iso-8859-1\"",
                "text/plain",
                Some("iso-8859-1"),
            ),
            ("application/pdf", "application/pdf", None),
            ("", "", None),
            (";;;=", "", None),
        ];
        for (raw, essence, charset) in cases {
            let (got_essence, got_charset) = parse_content_type(raw);
            assert_eq!(got_essence, *essence, "{raw}");
            assert_eq!(got_charset.as_deref(), *charset, "{raw}");
        }
    }

    #[test]
    fn meta_charsets() {
        assert_eq!(
            meta_charset(b"<html><head><meta charset=\"windows-1252\">").as_deref(),
            Some("windows-1252")
        );
        assert_eq!(
            meta_charset(b"<meta http-equiv=Content-Type content='text/html; charset=Shift_JIS'>")
                .as_deref(),
            Some("shift_jis")
        );
        assert_eq!(meta_charset(b"<p>no charset</p>"), None);
    }

    #[tokio::test]
    async fn refuses_non_http_schemes_and_garbage() {
        let options = IngestOptions::default();
        for (url, want) in [
            ("file:///etc/passwd", "only http and https"),
            ("javascript:alert(1)", "only http and https"),
            ("ftp://example.com/x", "only http and https"),
            ("not a url", "not a valid URL"),
            ("", "not a valid URL"),
        ] {
            let error = fetch_url(url, &options).await.unwrap_err();
            assert!(error.to_string().contains(want), "{url}: {error}");
        }
    }
}
