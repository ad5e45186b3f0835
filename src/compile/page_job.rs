//! Writing a page from the digests that feed it, the IO half: reads the page's material,
//! skips the model when the new digests add nothing, else asks for the page with the same
//! engine, retries and fallbacks as a source's compile, grounds every quote against the
//! texts of all the page's sources, and saves the new version — or keeps the old one and
//! flags the page when every answer would lose content. The decisions are `page`'s.

use std::time::Instant;

use crate::llm::{AnswerGrounds, CancellationToken};
use crate::store::{JobTarget, NewLink, PageClaim, PageContent, PageId, PageMaterial};

use super::driver::{Answer, Asking, CallLog, CompileError, Compiler};
use super::extract::reading_notes;
use super::grounds;
use super::live::{Live, ProgressFn, Stage};
use super::page::{adds_nothing, new_holders, page_prompt, Guard, PageParts, SourceTexts};
use super::page_report::{PageOutcome, PageReport};
use super::parts::PartSource;
use super::plan::{chars_for, estimate_tokens, Limits, Route, CONTEXT_MARGIN};
use super::prompt::MAX_KNOWN;
use super::report::LastCall;
use super::step::{judge_with, Accepted, Judgement, Rejection};
use super::templates::{Prompt, EXTRACT, PAGE};

/// The page prompt, and what to append to the page's body when parts of its material
/// could not be read.
struct PagePrompt {
    prompt: Prompt,
    note: Option<String>,
    /// What the answer's quotes and names are drawn from; `None` when the material was
    /// read in parts.
    grounds: Option<AnswerGrounds>,
}

impl Compiler {
    /// Writes a stale page from its digests (a page job the queue has started): with no
    /// model call when the new digests add nothing, else with one page call (after reading
    /// the material in parts when it does not fit one call).
    pub async fn write_page(
        &self,
        page_id: PageId,
        events: &ProgressFn,
        cancel: &CancellationToken,
    ) -> Result<PageReport, CompileError> {
        let started = Instant::now();
        let Some(material) = self.store().page_material(page_id)? else {
            return Ok(PageReport::nothing_yet(page_id, String::new()));
        };
        let mut report = PageReport::nothing_yet(page_id, material.title.clone());
        report.sources = material.digests.len();
        report.changed = material.changed().count();
        if material.stale_reason.is_none() || material.digests.is_empty() {
            return Ok(report);
        }
        if adds_nothing(&material) {
            self.store()
                .page_gains_sources(&material, &new_holders(&material))?;
            report.outcome = PageOutcome::NoNewInformation;
            report.elapsed_ms = started.elapsed().as_millis() as u64;
            return Ok(report);
        }
        let limits = Limits {
            context: self.context_tokens(0).await,
            max_tokens: u64::from(self.settings.max_tokens),
        };
        let target = JobTarget::Page(page_id);
        let prompt = match self
            .page_prompt(&material, limits, events, cancel, &mut report)
            .await?
        {
            Ok(prompt) => prompt,
            Err(reason) => {
                report.outcome = PageOutcome::Failed { reason };
                report.elapsed_ms = started.elapsed().as_millis() as u64;
                return Ok(report);
            }
        };
        self.write_page_from(
            &material,
            limits,
            prompt,
            target,
            events,
            cancel,
            &mut report,
        )
        .await?;
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }

    /// The prompt that writes the page: the material in full when it fits one call
    /// (excerpts as long as the room allows), else notes of reading the digests and
    /// excerpts in parts. `Err` with a reason when the context is too small for either.
    async fn page_prompt(
        &self,
        material: &PageMaterial,
        limits: Limits,
        events: &ProgressFn,
        cancel: &CancellationToken,
        report: &mut PageReport,
    ) -> Result<Result<PagePrompt, String>, CompileError> {
        let template = self.prompts.get(PAGE);
        report.prompt_version = template.version.clone();
        let bare = PageParts::of(material, 0);
        let haystack = format!("{}\n{}", bare.page, bare.digests);
        let (title_index, concept_index) = self.names.known(self.store())?;
        let titles = title_index.relevant(&haystack, MAX_KNOWN);
        let concepts = concept_index.relevant(&haystack, MAX_KNOWN);
        let render =
            |parts: &PageParts| page_prompt(template, &material.title, parts, &titles, &concepts);
        let without_excerpts = render(&bare);
        let used = estimate_tokens(without_excerpts.system.len() + without_excerpts.user.len());
        let left = limits
            .context
            .saturating_sub(used + limits.max_tokens + CONTEXT_MARGIN);
        // Block headers of the excerpts come out of their room too.
        let room = chars_for(left).saturating_sub(64 * material.digests.len());
        let full_parts = PageParts::of(material, room);
        let full = render(&full_parts);
        let extract = self.prompts.get(EXTRACT);
        match limits.route(&full, extract, &material.title) {
            Route::Direct => {
                return Ok(Ok(PagePrompt {
                    prompt: full,
                    note: None,
                    grounds: Some(grounds::page_grounds(
                        &full_parts.excerpt_texts,
                        &titles,
                        &concepts,
                    )),
                }))
            }
            Route::TooSmall(reason) => return Ok(Err(reason)),
            Route::InParts { .. } => {}
        }
        // The digests alone do not fit: read them and their sources' excerpts in parts.
        let whole = PageParts::of(material, usize::MAX);
        let text = format!("{}\n\n{}", whole.digests, whole.excerpts);
        let room = match limits.route(&without_excerpts, extract, &material.title) {
            Route::InParts { room } => room,
            // The prompt without the digests' text fits: parts as large as the context.
            Route::Direct => limits
                .context
                .saturating_sub(limits.max_tokens + CONTEXT_MARGIN)
                .max(1),
            Route::TooSmall(reason) => return Ok(Err(reason)),
        };
        report.prompt_version = format!("{}+{}", extract.version, template.version);
        let source = PartSource {
            target: JobTarget::Page(material.page_id),
            title: Some(&material.title),
            text: &text,
        };
        let reading = self
            .read_in_parts(&source, limits.context, room, events, cancel)
            .await?;
        let mut parts = bare;
        parts.digests = String::new();
        parts.excerpts = "(read in parts: see the notes above)".to_owned();
        let fixed = render(&parts);
        let notes_room = limits.notes_room(fixed.system.len() + fixed.user.len() + 64);
        let (notes, large, note) = reading_notes(reading, notes_room);
        report.calls += large.calls;
        report.tokens_in += large.tokens_in;
        report.tokens_out += large.tokens_out;
        report.warnings.push(format!(
            "the new digests were too long for one call: read in {} parts ({} notes)",
            large.chunks, large.notes
        ));
        report.warnings.extend(large.warnings());
        if large.notes == 0 {
            // Writing from nothing would only lose the sources' content to the guard.
            return Ok(Err(format!(
                "the new digests were read in {} parts and no part gave a note",
                large.chunks
            )));
        }
        parts.digests = format!(
            "The new and changed digests and their sources' excerpts were too long for one \
             call; they were read in parts. Notes of all of them (quotes are verbatim):\n\
             <<<NOTES\n{notes}\nNOTES>>>"
        );
        Ok(Ok(PagePrompt {
            prompt: render(&parts),
            note,
            grounds: None,
        }))
    }

    /// Asks the providers for the page as a compile asks for an article — an answer the
    /// rewrite guard refuses is retried with the reason — and saves it, or keeps the page as
    /// it is (flagged when the guard refused the last answer).
    #[allow(clippy::too_many_arguments)]
    async fn write_page_from(
        &self,
        material: &PageMaterial,
        limits: Limits,
        prompt: PagePrompt,
        target: JobTarget,
        events: &ProgressFn,
        cancel: &CancellationToken,
        report: &mut PageReport,
    ) -> Result<(), CompileError> {
        let schema = self.prompts.get(PAGE).schema();
        let texts = SourceTexts::new(material);
        let guard = Guard::of(material);
        let judge = |raw: &str, cut_off: bool| -> Judgement {
            let judgement = judge_with(raw, cut_off, &|q| texts.grounds(q), &schema);
            guarded(judgement, &texts, &guard)
        };
        let asking = Asking {
            target: Some(target),
            events,
            cancel,
            prompt: &prompt.prompt,
            schema: &schema,
            judge: &judge,
            shows: None,
            grounds: prompt.grounds.as_ref(),
        };
        let mut log = CallLog::default();
        let mut last = LastCall::default();
        let answer = self
            .ask_until_done(&asking, limits, &mut log, &mut last)
            .await;
        report.calls += log.calls;
        report.tokens_in += log.tokens_in;
        report.tokens_out += log.tokens_out;
        report.attempts.append(&mut log.attempts);
        report.warnings.append(&mut log.warnings);
        let author = last.provider.clone();
        match answer? {
            Answer::Accepted(accepted) => {
                let content = page_content(material, &accepted, &texts, prompt.note);
                report.warnings.extend(accepted.warnings.iter().cloned());
                let record = last.record(&report.prompt_version, Vec::new(), accepted.truncated);
                let live = Live::new(Some(target), author.clone(), last.attempt, events);
                live.emit(Stage::Saving, Some(material.title.clone()));
                let version = self.store().save_page_rewrite(
                    material,
                    &content,
                    &record.provider,
                    &record.model,
                )?;
                live.emit(Stage::Compiled, Some(material.title.clone()));
                report.provider = Some(author);
                report.outcome = PageOutcome::Written { version };
            }
            Answer::GaveUp { reason, rejection } => {
                if rejection == Some(Rejection::LostContent) {
                    self.store().flag_page(material.page_id, &reason)?;
                    report.outcome = PageOutcome::Flagged { reason };
                } else {
                    report.outcome = PageOutcome::Failed { reason };
                }
                Live::new(Some(target), author, last.attempt, events)
                    .emit(Stage::Failed, report.reason().map(str::to_owned));
            }
        }
        Ok(())
    }
}

/// The page's claims of an accepted answer: each names the sources whose text holds its
/// quote (a quote found only across two sources' texts grounds nothing).
fn page_claims(accepted: &Accepted, texts: &SourceTexts) -> Vec<PageClaim> {
    accepted
        .claims
        .iter()
        .map(|claim| {
            let mut claim = claim.clone();
            let holders = match (&claim.quote, claim.grounded) {
                (Some(quote), true) => texts.holders(quote),
                _ => Vec::new(),
            };
            if claim.grounded && holders.is_empty() {
                claim.grounded = false;
                if claim.confidence == crate::contract::Confidence::Sourced {
                    claim.confidence = crate::contract::Confidence::Inferred;
                }
            }
            PageClaim {
                claim,
                source_ids: holders,
                cited_page: None,
            }
        })
        .collect()
}

/// An accepted answer the rewrite guard refuses becomes a rejection with its problems, so
/// the model is asked again with them.
fn guarded(judgement: Judgement, texts: &SourceTexts, guard: &Guard) -> Judgement {
    let Judgement::Accept(accepted) = judgement else {
        return judgement;
    };
    let problems = guard.problems(
        &page_claims(&accepted, texts),
        &accepted.result.article_body,
    );
    if problems.is_empty() {
        return Judgement::Accept(accepted);
    }
    Judgement::Reject {
        why: Rejection::LostContent,
        problems,
        repairs: accepted.repairs,
        truncated: accepted.truncated,
    }
}

/// What the page says after an accepted answer: its title stays the topic's name (the
/// answer's title is ignored), with `note` appended when parts of the material are missing;
/// its links are the answer's and those of the digests whose title names the topic.
fn page_content(
    material: &PageMaterial,
    accepted: &Accepted,
    texts: &SourceTexts,
    note: Option<String>,
) -> PageContent {
    let result = &accepted.result;
    let mut body = result.article_body.clone();
    if let Some(note) = note {
        body.push_str(&note);
    }
    // The links the digests named by the topic make are the topic's too: an answer that
    // leaves one out (a model reading notes sees no links) does not lose it.
    let mut links: Vec<NewLink> = accepted.links();
    links.extend(
        material
            .digests
            .iter()
            .filter(|d| d.by_title)
            .flat_map(|d| d.content.links.iter())
            .map(|l| NewLink {
                target: l.target.clone(),
                context: String::new(),
            }),
    );
    PageContent {
        title: material.title.clone(),
        summary: result.summary.clone(),
        body,
        claims: page_claims(accepted, texts),
        concepts: result.concepts.clone(),
        open_questions: result.open_questions.clone(),
        links,
    }
}
