//! Export: the wiki written as markdown files a note app opens.

use std::path::{Path, PathBuf};

use crate::store::SourceId;

use super::{Result, Wiki};

impl Wiki {
    /// Writes the wiki as markdown files in `dir` (Obsidian-friendly): one file per page,
    /// with its aliases and sources in the front matter, one file per source's digest in
    /// its `sources/` folder, and one file per note written in the wiki in `notes/`.
    pub fn export_markdown(&self, dir: &Path) -> Result<crate::export::ExportReport> {
        use crate::export::{ConfidenceMix, ExportArticle};
        let counts = self.store.page_claim_counts()?;
        let mut pages = Vec::new();
        for summary in self.store.pages()? {
            let Some(page) = self.store.page(summary.id)? else {
                continue;
            };
            let digests = self.store.page_digests(page.id)?;
            let mix = counts.get(&page.id).copied().unwrap_or_default();
            pages.push(ExportArticle {
                title: page.title,
                aliases: page.aliases,
                tags: page.tags,
                summary: page.summary,
                concepts: page.concepts,
                sources: digests.iter().map(|d| d.origin.clone()).collect(),
                digests: digests.iter().map(|d| d.article_id).collect(),
                confidence_mix: ConfidenceMix {
                    sourced: mix.sourced,
                    inferred: mix.inferred,
                    opinion: mix.opinion,
                },
                body: page.body,
                citations: self.export_citations(
                    &page.claims,
                    |c| {
                        (
                            c.source_ids.clone(),
                            c.claim.quote.clone().filter(|_| c.claim.grounded),
                        )
                    },
                    &digests
                        .iter()
                        .map(|d| (d.source_id, (d.title.clone(), d.origin.clone())))
                        .collect(),
                )?,
                claims: page.claims.into_iter().map(|c| c.claim).collect(),
                open_questions: page.open_questions,
                answer: summary.kind == crate::store::PageKind::Answer,
            });
        }
        let mut digests = Vec::new();
        for summary in self.store.articles()? {
            let Some(a) = self.store.article(summary.id)? else {
                continue;
            };
            let titles: std::collections::HashMap<SourceId, (String, String)> = a
                .sources
                .iter()
                .map(|s| (s.source_id, (a.title.clone(), s.origin.clone())))
                .collect();
            let held: Vec<SourceId> = titles.keys().copied().collect();
            let citations = self.export_citations(
                &a.claims,
                |c| (held.clone(), c.quote.clone().filter(|_| c.grounded)),
                &titles,
            )?;
            digests.push((
                a.id,
                ExportArticle {
                    citations,
                    title: a.title,
                    aliases: Vec::new(),
                    tags: Vec::new(),
                    summary: a.summary,
                    concepts: a.concepts,
                    sources: a.sources.into_iter().map(|s| s.origin).collect(),
                    digests: Vec::new(),
                    confidence_mix: ConfidenceMix {
                        sourced: summary.claims.sourced,
                        inferred: summary.claims.inferred,
                        opinion: summary.claims.opinion,
                    },
                    body: a.body,
                    claims: a.claims,
                    open_questions: a.open_questions,
                    answer: false,
                },
            ));
        }
        let mut report = crate::export::export_markdown(dir, &pages, &digests)?;
        let mut notes = Vec::new();
        for note in self.notes()? {
            if let Some(source) = self.store.source(note.source_id)? {
                notes.push((note.title, source.text));
            }
        }
        report.notes = crate::export::export_notes(dir, &notes)?;
        Ok(report)
    }

    /// The citations of `claims` as an export writes them: `held` gives a claim's sources
    /// and quote, `sources` each source's title and origin (a PDF file's origin is its
    /// path, which a footnote links to at the page).
    fn export_citations<C>(
        &self,
        claims: &[C],
        held: impl Fn(&C) -> (Vec<SourceId>, Option<String>),
        sources: &std::collections::HashMap<SourceId, (String, String)>,
    ) -> Result<Vec<Vec<crate::export::ExportCitation>>> {
        let wanted: Vec<(Vec<SourceId>, Option<String>)> = claims.iter().map(held).collect();
        let cited = self.store.citations(&wanted)?;
        Ok(cited
            .into_iter()
            .map(|citations| {
                citations
                    .iter()
                    .map(|c| {
                        let (title, origin) = sources
                            .get(&c.source_id)
                            .cloned()
                            .unwrap_or_else(|| (format!("#{}", c.source_id), String::new()));
                        let is_pdf = origin.starts_with('/')
                            && origin.to_ascii_lowercase().ends_with(".pdf");
                        crate::export::ExportCitation {
                            source_title: title,
                            place: crate::reading::citation_place(c),
                            pdf: c
                                .page
                                .filter(|_| is_pdf)
                                .map(|page| (PathBuf::from(&origin), page)),
                        }
                    })
                    .collect()
            })
            .collect())
    }
}
