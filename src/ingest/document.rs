//! Documents (PDF, EPUB, DOCX): which files and downloads are documents, and reading one
//! with the readers of [`wikimind_documents`].

use wikimind_documents::{docx, epub, pdf, Document, DocumentError, Limits};

/// A document format WikiMind reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocumentType {
    /// A PDF, read through Poppler's `pdftotext`.
    Pdf,
    /// An EPUB e-book.
    Epub,
    /// A Word document.
    Docx,
}

impl DocumentType {
    /// The format's short name, as `ingest --json` gives it (`pdf`, `epub`, `docx`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            DocumentType::Pdf => "pdf",
            DocumentType::Epub => "epub",
            DocumentType::Docx => "docx",
        }
    }

    /// The format of a file with this extension (lower case, without the dot).
    pub(crate) fn of_extension(extension: &str) -> Option<DocumentType> {
        match extension {
            "pdf" => Some(DocumentType::Pdf),
            "epub" => Some(DocumentType::Epub),
            "docx" => Some(DocumentType::Docx),
            _ => None,
        }
    }

    /// The format of a download with this content type essence (lower case).
    pub(crate) fn of_content_type(essence: &str) -> Option<DocumentType> {
        match essence {
            "application/pdf" | "application/x-pdf" => Some(DocumentType::Pdf),
            "application/epub+zip" => Some(DocumentType::Epub),
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document" => {
                Some(DocumentType::Docx)
            }
            _ => None,
        }
    }

    /// Reads `bytes` as a document of this format; `stem` (a file name without its
    /// extension) is the last resort for its title. It may run a tool for a while (a PDF):
    /// call it where blocking is allowed. `progress` is told how far the reading of a PDF
    /// has come (`what` names the file or URL), at most every
    /// [`super::READING_PROGRESS_EVERY`] besides its first and last page.
    pub(crate) fn read(
        self,
        bytes: &[u8],
        stem: Option<&str>,
        what: &str,
        progress: Option<&super::ReadingSink>,
    ) -> Result<Document, DocumentError> {
        let limits = Limits::default();
        match self {
            DocumentType::Pdf => match progress {
                Some(sink) => {
                    let mut last: Option<std::time::Instant> = None;
                    let mut seen = pdf::PagesRead {
                        read: 0,
                        pages: None,
                    };
                    let mut report = |p: pdf::PagesRead| {
                        seen = p;
                        let ends = p.read == 0 || Some(p.read) == p.pages;
                        if ends
                            || last.is_none_or(|at| at.elapsed() >= super::READING_PROGRESS_EVERY)
                        {
                            last = Some(std::time::Instant::now());
                            (sink.0)(&super::ReadingProgress::new(what, p.read, p.pages));
                        }
                    };
                    let read = pdf::read_pdf_with_progress(bytes, stem, &limits, Some(&mut report));
                    (sink.0)(&super::ReadingProgress::ended(what, seen.read, seen.pages));
                    read
                }
                None => pdf::read_pdf(bytes, stem, &limits),
            },
            DocumentType::Epub => epub::read_epub(bytes, stem, &limits),
            DocumentType::Docx => docx::read_docx(bytes, stem, &limits),
        }
    }
}
