//! The [`Wiki`] operations that fill the views: the library, articles, quotes, sources,
//! compile logs and ingest from the app.

use super::*;

impl QuoteView {
    fn around(source: &crate::store::Source, at: Option<std::ops::Range<usize>>) -> QuoteView {
        let text = source.text.as_str();
        let at = at.unwrap_or(0..0);
        let start = text[..at.start]
            .char_indices()
            .rev()
            .nth(QUOTE_CONTEXT_CHARS - 1)
            .map_or(0, |(i, _)| i);
        let end = text[at.end..]
            .char_indices()
            .nth(QUOTE_CONTEXT_CHARS)
            .map_or(text.len(), |(i, _)| at.end + i);
        QuoteView {
            source_id: source.id.0,
            origin: source.origin.clone(),
            found: !at.is_empty(),
            before: text[start..at.start].to_owned(),
            quote: text[at.clone()].to_owned(),
            after: text[at.end..end].to_owned(),
            more_before: start > 0,
            more_after: end < text.len(),
        }
    }
}

impl Wiki {
    /// The library in the asked order, with counts and wanted pages.
    pub fn library(&self, sort: LibrarySort) -> Result<LibraryView> {
        let store = self.store();
        let order = match sort {
            LibrarySort::Title => ArticleSort::Title,
            LibrarySort::Updated => ArticleSort::Updated,
        };
        let c = store.counts()?;
        Ok(LibraryView {
            counts: CountsView {
                sources: c.sources,
                articles: c.articles,
                wanted: c.wanted,
            },
            entries: store
                .articles_sorted(order)?
                .into_iter()
                .map(|a| LibraryEntry {
                    id: a.id.0,
                    title: a.title,
                    summary: a.summary,
                    updated_at: a.updated_at,
                    sourced: a.claims.sourced,
                    inferred: a.claims.inferred,
                    opinion: a.claims.opinion,
                })
                .collect(),
            wanted: store
                .wanted_pages()?
                .into_iter()
                .map(|w| WantedView {
                    title: w.title,
                    mentions: w.mentions,
                })
                .collect(),
        })
    }

    /// Full-text search, best first.
    pub fn search_view(&self, query: &str) -> Result<Vec<SearchResult>> {
        Ok(self
            .store()
            .search(query)?
            .into_iter()
            .map(|h| SearchResult {
                article_id: h.article_id.0,
                title: h.title,
                snippet: h.snippet,
            })
            .collect())
    }

    /// One article with its body rendered, or `None` when no article has this id.
    pub fn article_view(&self, id: i64) -> Result<Option<ArticleView>> {
        let Some(a) = self.store().article(ArticleId(id))? else {
            return Ok(None);
        };
        let html = self.render(&a).into_string();
        Ok(Some(ArticleView {
            id: a.id.0,
            title: a.title,
            summary: a.summary,
            html,
            truncated: a.truncated,
            updated_at: a.updated_at,
            claims: a
                .claims
                .into_iter()
                .map(|c| ClaimView {
                    claim: c.claim,
                    confidence: c.confidence.into(),
                    quote: c.quote,
                    grounded: c.grounded,
                })
                .collect(),
            concepts: a.concepts,
            open_questions: a.open_questions,
            links: a
                .links
                .into_iter()
                .map(|l| LinkView {
                    target: l.target,
                    article_id: l.article_id.map(|i| i.0),
                })
                .collect(),
            backlinks: a
                .backlinks
                .into_iter()
                .map(|b| BacklinkView {
                    article_id: b.article_id.0,
                    title: b.title,
                    context: b.context,
                })
                .collect(),
            sources: a
                .sources
                .into_iter()
                .map(|s| ArticleSourceView {
                    source_id: s.source_id.0,
                    origin: s.origin,
                    final_url: s.final_url,
                    compiled_at: s.compiled_at,
                    provider: s.provider,
                    model: s.model,
                })
                .collect(),
        }))
    }

    /// Where `quote` (a claim's quote) is in the sources of article `article_id`, with the
    /// text around it. `None` when the article does not exist or has no source.
    pub fn quote_view(&self, article_id: i64, quote: &str) -> Result<Option<QuoteView>> {
        let Some(article) = self.store().article(ArticleId(article_id))? else {
            return Ok(None);
        };
        let mut first = None;
        for s in &article.sources {
            let Some(source) = self.store().source(s.source_id)? else {
                continue;
            };
            if let Some(at) = crate::compile::locate_quote(&source.text, quote) {
                return Ok(Some(QuoteView::around(&source, Some(at))));
            }
            first.get_or_insert(source);
        }
        Ok(first.map(|source| QuoteView::around(&source, None)))
    }

    /// The id of the article with this title (case-insensitive), if any.
    pub fn article_id_by_title(&self, title: &str) -> Result<Option<i64>> {
        Ok(self.store().find_article(title)?.map(|a| a.0))
    }

    /// Every source with its status, newest change first as the store lists them.
    pub fn source_views(&self) -> Result<Vec<SourceView>> {
        use crate::store::SourceStatus as S;
        Ok(self
            .store()
            .sources()?
            .into_iter()
            .map(|s| SourceView {
                id: s.id.0,
                origin: s.origin,
                final_url: s.final_url,
                kind: s.kind.as_str().to_string(),
                title: s.title,
                status: match s.status {
                    S::Pending => SourceStatusView::Pending,
                    S::Compiling => SourceStatusView::Compiling,
                    S::Compiled => SourceStatusView::Compiled,
                    S::Failed => SourceStatusView::Failed,
                    S::Stale => SourceStatusView::Stale,
                },
                reason: s.reason,
                article_id: s.article_id.map(|a| a.0),
                article_title: s.article_title,
                updated_at: s.updated_at,
            })
            .collect())
    }

    /// A source's full text, or `None` when no source has this id.
    pub fn source_text(&self, id: i64) -> Result<Option<SourceTextView>> {
        Ok(self.store().source(SourceId(id))?.map(|s| SourceTextView {
            id: s.id.0,
            origin: s.origin,
            text: s.text,
        }))
    }

    /// A source's compile log, oldest first: every raw answer kept.
    pub fn compilation_views(&self, source_id: i64) -> Result<Vec<CompilationView>> {
        Ok(self
            .store()
            .compilations(SourceId(source_id))?
            .into_iter()
            .map(|c| CompilationView {
                id: c.id,
                provider: c.record.provider,
                model: c.record.model,
                outcome: match c.outcome {
                    crate::store::CompileOutcome::Compiled => "compiled".into(),
                    crate::store::CompileOutcome::Failed => "failed".into(),
                },
                reason: c.reason,
                raw_answer: c.record.raw_answer,
                repairs: c.record.repairs,
                created_at: c.created_at,
            })
            .collect())
    }

    /// A note to compile into the wanted page `title`: the sentences of every article that
    /// links to it. Returns `None` when nothing links to that title.
    pub fn wanted_page_note(&self, title: &str) -> Result<Option<String>> {
        let mentions = self.store().mentions_of(title)?;
        if mentions.is_empty() {
            return Ok(None);
        }
        let mut note = format!("# {}\n\n", title.trim());
        for m in mentions {
            note.push_str(&format!("From [[{}]]: {}\n\n", m.title, m.context.trim()));
        }
        Ok(Some(note))
    }
}

impl Wiki {
    /// Reads files and folders the person picked, dropped or typed, each on its own: one
    /// that cannot be read is reported and the others are still stored.
    pub fn ingest_paths_view(&self, paths: &[String]) -> IngestView {
        let mut view = IngestView::default();
        for p in paths {
            view.absorb(
                p,
                self.ingest_path(Path::new(p.trim()), self.ingest_options()),
            );
        }
        view
    }

    /// Stores pasted text (its title from its first heading unless given).
    pub fn ingest_text_view(&self, text: &str, title: Option<&str>) -> IngestView {
        let mut view = IngestView::default();
        let title = title.map(str::trim).filter(|t| !t.is_empty());
        view.absorb("pasted text", self.ingest_text(text, title));
        view
    }

    /// Downloads a web page and stores its readable text.
    pub async fn ingest_url_view(&self, url: &str) -> IngestView {
        let mut view = IngestView::default();
        let url = url.trim();
        view.absorb(url, self.ingest_url(url, self.ingest_options()).await);
        view
    }

    /// Stores a note built from the mentions of the wanted page `title`, ready to compile.
    pub fn create_wanted_view(&self, title: &str) -> Result<IngestView> {
        let mut view = IngestView::default();
        match self.wanted_page_note(title)? {
            Some(note) => view.absorb(title, self.ingest_text(&note, Some(title.trim()))),
            None => view.errors.push(format!("nothing links to {title:?}")),
        }
        Ok(view)
    }

    /// Removes a source; links to its article become wanted pages.
    pub fn remove_source_view(&self, id: i64) -> Result<bool> {
        Ok(self.store().remove_source(SourceId(id))?)
    }
}
