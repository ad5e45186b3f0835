//! Zip archives (DOCX and EPUB), read within limits: how many entries, how large one part
//! may inflate, and how much may inflate in all, so a zip bomb stops at the limit instead
//! of filling memory. Parts are only ever looked up by name inside the archive; nothing is
//! written or read outside it.

use std::io::{Cursor, Read};

use wikimind_text::markdown::note_links::{normalise_path, percent_decode};
use zip::result::ZipError;
use zip::ZipArchive;

use crate::{DocumentError, Limits, Result};

/// An archive being read.
pub(crate) struct Archive<'a> {
    zip: ZipArchive<Cursor<&'a [u8]>>,
    limits: &'a Limits,
    inflated: u64,
}

impl<'a> Archive<'a> {
    /// Opens `bytes` as a zip archive; `format` (`EPUB`, `DOCX`) names what it should be.
    pub(crate) fn open(bytes: &'a [u8], format: &str, limits: &'a Limits) -> Result<Archive<'a>> {
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
            DocumentError::Broken(format!(
                "not a {format} file: it is not a zip archive ({})",
                short(&e)
            ))
        })?;
        if zip.len() > limits.max_entries {
            return Err(DocumentError::Broken(format!(
                "the archive holds {} entries, more than the limit of {}",
                zip.len(),
                limits.max_entries
            )));
        }
        Ok(Archive {
            zip,
            limits,
            inflated: 0,
        })
    }

    /// The inflated bytes of the entry `name`; `None` when the archive has no such entry.
    pub(crate) fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>> {
        let mut entry = match self.zip.by_name(name) {
            Ok(entry) => entry,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(e) => {
                return Err(DocumentError::Broken(format!(
                    "{name}: cannot be read from the archive ({})",
                    short(&e)
                )))
            }
        };
        let room = self.limits.max_total_bytes.saturating_sub(self.inflated);
        let limit = self.limits.max_part_bytes.min(room);
        let mut bytes = Vec::new();
        (&mut entry)
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| DocumentError::Broken(format!("{name}: damaged in the archive ({e})")))?;
        let read = bytes.len() as u64;
        if read > limit {
            let (what, limit) = if limit == self.limits.max_part_bytes {
                (format!("{name} once inflated"), limit)
            } else {
                (
                    "the archive once inflated".to_owned(),
                    self.limits.max_total_bytes,
                )
            };
            return Err(DocumentError::TooLarge { what, limit });
        }
        self.inflated += read;
        Ok(Some(bytes))
    }

    /// The entry `name` as text ([`crate::xml::decode`]); `None` when there is none.
    pub(crate) fn read_text(&mut self, name: &str) -> Result<Option<String>> {
        match self.read(name)? {
            Some(bytes) => crate::xml::decode(name, &bytes).map(Some),
            None => Ok(None),
        }
    }
}

fn short(error: &ZipError) -> String {
    let text = error.to_string();
    text.chars().take(200).collect()
}

/// Resolves `href` (percent-encoded, relative to the folder `base`, which ends in `/` or
/// is empty) to an entry name inside the archive; `None` when it climbs out of the
/// archive's root or is not a relative path.
pub(crate) fn resolve(base: &str, href: &str) -> Option<String> {
    let href = href.split(['#', '?']).next().unwrap_or_default();
    if href.is_empty() || href.contains("://") || href.starts_with('/') {
        return None;
    }
    let decoded = percent_decode(href);
    let joined = format!("{base}/{decoded}");
    normalise_path(&joined).filter(|path| !path.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_stay_inside_the_archive() {
        assert_eq!(
            resolve("OEBPS/", "chap_1.xhtml").as_deref(),
            Some("OEBPS/chap_1.xhtml")
        );
        assert_eq!(
            resolve("OEBPS/text/", "../img/a%20b.png#x").as_deref(),
            Some("OEBPS/img/a b.png")
        );
        assert_eq!(resolve("", "../../etc/passwd"), None);
        assert_eq!(resolve("OEBPS/", "../../x"), None);
        assert_eq!(resolve("OEBPS/", "/etc/passwd"), None);
        assert_eq!(resolve("OEBPS/", "http://example.invalid/x"), None);
        assert_eq!(resolve("", "a%2").as_deref(), Some("a%2"));
        assert_eq!(resolve("OEBPS/", "a%2F..%2F..%2F..%2Fx"), None);
        assert_eq!(resolve("", "a%zz").as_deref(), Some("a%zz"));
    }
}
