//! Writing a page from the digests that feed it, over a [`Caller`]: skips the model when
//! the new digests add nothing, else asks for the page — one call per batch of new digests,
//! as `plan::plan_page` plans them within the page's room — with the same loop, retries and
//! fallbacks as a source's digest, and grounds every quote against the texts of all the
//! page's sources. The page's material comes in; what to store goes out as a [`PageWrite`]
//! (the sources the page gains, the version to save, the flag when every answer would lose
//! content) for the app to save. The decisions are `plan`'s.

use crate::llm::{AnswerGrounds, CancellationToken};
use crate::store::{JobTarget, NewLink, PageClaim, PageContent, PageMaterial, SourceId};

use crate::call::budget::{chars_for, estimate_tokens, Limits, Route, CONTEXT_MARGIN};
use crate::call::caller::{Answer, Asking};
use crate::call::log::CallLog;
use crate::call::step::{Judgement, Rejection};
use crate::call::{CallError, Caller, ProgressFn};
use crate::ground::grounds;
use crate::prompts::prompt::MAX_KNOWN;
use crate::prompts::templates::{Prompt, PromptSet, PromptTemplate, EXTRACT, PAGE};
use crate::store::ClaimLeft;
use crate::tasks::article::{judge_with, links_of, Accepted};
use crate::tasks::page::plan::{
    adds_nothing, new_holders, page_prompt, plan_page, room_schema, within_room, Guard, LeftClaim,
    PageParts, PageRoom, SourceTexts,
};
use crate::tasks::page::report::{PageOutcome, PageReport};
use crate::tasks::parts::extract::reading_notes;
use crate::tasks::parts::read::{read_in_parts, PartSource};
use crate::topic::NameIndex;

/// The page prompt, and what to append to the page's body when parts of its material
/// could not be read.
struct PagePrompt {
    prompt: Prompt,
    note: Option<String>,
    /// What the answer's quotes and names are drawn from; `None` when the material was
    /// read in parts.
    grounds: Option<AnswerGrounds>,
}

/// How one page call ended.
enum PageCall {
    /// The answer was accepted: the page as it now reads, and who wrote it.
    Accepted {
        content: Box<PageContent>,
        provider: String,
        model: String,
        author: String,
    },
    /// No answer could be had: why, whether the guard refused the last one, and who was
    /// asked last.
    GaveUp {
        reason: String,
        lost_content: bool,
        author: String,
    },
}

/// The room of a page written with `template` within `limits`.
fn page_room(template: &PromptTemplate, limits: Limits) -> PageRoom {
    let prompt_chars = chars_for(
        limits
            .context
            .saturating_sub(limits.max_tokens + CONTEXT_MARGIN),
    );
    let bare = template.render(&[]);
    PageRoom::new(prompt_chars, bare.system.len() + bare.user.len())
}

/// The first of `names` that fit in `room` characters as the prompt lists them.
fn fit_names(names: Vec<String>, room: usize) -> Vec<String> {
    let mut used = 0usize;
    names
        .into_iter()
        .take_while(|n| {
            used += n.len() + 3;
            used <= room
        })
        .collect()
}

/// `material` as one page call sees it: the page as `page` says (the version a model
/// last wrote, or the one written by this job's previous call) within `room`, the digests
/// of `batch` as the new ones, those of `done` (written in or listed earlier) as already
/// written, and the digests the job has not come to yet left out. A call after the first
/// starts from a page that already let go of what left.
fn call_view(
    material: &PageMaterial,
    room: &PageRoom,
    page: Option<&PageContent>,
    batch: &[usize],
    done: &[usize],
    first: bool,
) -> PageMaterial {
    let mut view = material.clone();
    let feeding: Vec<SourceId> = material.digests.iter().map(|d| d.source_id).collect();
    view.last_compiled = page.map(|p| within_room(p, room, &feeding));
    view.digests = material
        .digests
        .iter()
        .enumerate()
        .filter(|(i, d)| !d.changed || batch.contains(i) || done.contains(i))
        .map(|(i, d)| {
            let mut d = d.clone();
            d.changed = batch.contains(&i);
            d.shrank &= first;
            d
        })
        .collect();
    if !first {
        view.sources_lost = 0;
    }
    view
}

/// `material` with only the digests a job went through (`done`, and those it never
/// needed to), for marking them as written into the page.
fn written_view(material: &PageMaterial, done: &[usize]) -> PageMaterial {
    let mut view = material.clone();
    view.digests = material
        .digests
        .iter()
        .enumerate()
        .filter(|(i, d)| !d.changed || done.contains(i))
        .map(|(_, d)| d.clone())
        .collect();
    view
}

/// What writing a page came to, for the app to store.
pub enum PageWrite {
    /// Nothing to write: the page is not stale, or no digest feeds it.
    Nothing(PageReport),
    /// The new digests add nothing the page lacks: no model call; the page gains these
    /// sources (by their index in the material's digests).
    GainsSources {
        /// What to report.
        report: PageReport,
        /// The material the page was judged from.
        material: Box<PageMaterial>,
        /// The digests that now hold the page's claims, and their sources.
        holders: Vec<(usize, SourceId)>,
    },
    /// Calls were made: the version to save (as far as the calls got), and why the job
    /// failed, when it did (both when a later call failed).
    Called {
        /// What to report; its outcome is set when the version is saved or the failure
        /// recorded.
        report: PageReport,
        /// The version to save.
        save: Option<Box<PageSave>>,
        /// Why the job failed.
        failure: Option<PageFailure>,
    },
}

/// A page version to save.
pub struct PageSave {
    /// The material as the calls wrote it in: the digests written in (and those the job
    /// never needed to), marked as written into the page.
    pub view: PageMaterial,
    /// The page as it now reads.
    pub content: PageContent,
    /// The provider that wrote it (`ollama`).
    pub provider: String,
    /// The model, as the server named it.
    pub model: String,
    /// The provider and model, for progress and the report (`ollama:qwen2.5:3b`).
    pub author: String,
}

/// Why a page job failed.
pub struct PageFailure {
    /// Why, for a person.
    pub reason: String,
    /// Whether the rewrite guard refused the last answer (the page is flagged).
    pub lost_content: bool,
    /// The provider and model asked last.
    pub author: String,
}

/// Writes the stale page of `material` (its digests' texts as stored) with `caller` and
/// `prompts`, offering the names of `titles` and `concepts`: with no model call when the
/// new digests add nothing, else with one page call per batch of the new digests the page
/// has room for (a batch read in parts first when it does not fit one call); the others
/// are listed on the page. The version is saved (by the app) once, at the end, or — when a
/// later call fails — as far as the calls before it got.
pub async fn write_page(
    caller: &Caller,
    prompts: &PromptSet,
    mut material: PageMaterial,
    titles: &NameIndex,
    concepts: &NameIndex,
    events: &ProgressFn,
    cancel: &CancellationToken,
) -> Result<PageWrite, CallError> {
    for digest in &mut material.digests {
        digest.text = crate::ground::readable(&digest.text);
    }
    let mut report = PageReport::nothing_yet(material.page_id, material.title.clone());
    report.sources = material.digests.len();
    report.changed = material.changed().count();
    if material.stale_reason.is_none() || material.digests.is_empty() {
        return Ok(PageWrite::Nothing(report));
    }
    if adds_nothing(&material) {
        let holders = new_holders(&material);
        report.outcome = PageOutcome::NoNewInformation;
        return Ok(PageWrite::GainsSources {
            report,
            material: Box::new(material),
            holders,
        });
    }
    let limits = caller.limits().await;
    let template = prompts.get(PAGE);
    report.prompt_version = template.version.clone();
    let room = page_room(template, limits);
    let plan = plan_page(&material, &room);
    report.listed = plan.listed.len();
    if plan.over_room > 0 {
        report.warnings.push(format!(
            "{} new sources are listed on the page without being written in: it holds \
             {} claims, and one job writes in at most that many sources",
            plan.over_room, room.max_claims
        ));
    }
    // A page that only lost sources is still rewritten once, with no new digest.
    let batches = if plan.batches.is_empty() {
        vec![Vec::new()]
    } else {
        plan.batches
    };
    let texts = SourceTexts::new(&material);
    let target = JobTarget::Page(material.page_id);
    let names = Names { titles, concepts };
    let mut done: Vec<usize> = plan.listed;
    let mut page: Option<PageContent> = material.last_compiled.clone();
    let mut written: Option<(String, String, String)> = None;
    let mut failure: Option<PageFailure> = None;
    for (k, batch) in batches.iter().enumerate() {
        let view = call_view(&material, &room, page.as_ref(), batch, &done, k == 0);
        let call = PageCallSetup {
            caller,
            prompts,
            limits,
            room: &room,
            events,
            cancel,
        };
        let prompt = match call.page_prompt(&view, &names, &mut report).await? {
            Ok(prompt) => prompt,
            Err(reason) => {
                failure = Some(PageFailure {
                    reason,
                    lost_content: false,
                    author: String::new(),
                });
                break;
            }
        };
        match call
            .ask_page(&view, &texts, prompt, target, &mut report)
            .await?
        {
            PageCall::Accepted {
                content,
                provider,
                model,
                author,
            } => {
                page = Some(*content);
                done.extend(batch.iter().copied());
                written = Some((provider, model, author));
            }
            PageCall::GaveUp {
                reason,
                lost_content,
                author,
            } => {
                failure = Some(PageFailure {
                    reason,
                    lost_content,
                    author,
                });
                break;
            }
        }
    }
    let save = match (written, page) {
        (Some((provider, model, author)), Some(content)) => Some(Box::new(PageSave {
            view: written_view(&material, &done),
            content,
            provider,
            model,
            author,
        })),
        _ => None,
    };
    Ok(PageWrite::Called {
        report,
        save,
        failure,
    })
}

/// The names a page prompt may offer.
struct Names<'a> {
    titles: &'a NameIndex,
    concepts: &'a NameIndex,
}

/// What every call of one page job shares.
struct PageCallSetup<'a> {
    caller: &'a Caller,
    prompts: &'a PromptSet,
    limits: Limits,
    room: &'a PageRoom,
    events: &'a ProgressFn,
    cancel: &'a CancellationToken,
}

impl PageCallSetup<'_> {
    /// The prompt of one page call: the material in full when it fits one call (excerpts
    /// as long as the room allows), else notes of reading the digests and excerpts in
    /// parts. `Err` with a reason when the context is too small for either.
    async fn page_prompt(
        &self,
        material: &PageMaterial,
        names: &Names<'_>,
        report: &mut PageReport,
    ) -> Result<Result<PagePrompt, String>, CallError> {
        let (limits, room) = (self.limits, self.room);
        let template = self.prompts.get(PAGE);
        let listing = room.listing_chars;
        let bare = PageParts::of(material, 0, listing);
        let haystack = format!("{}\n{}", bare.page, bare.digests);
        let titles = fit_names(names.titles.relevant(&haystack, MAX_KNOWN), listing);
        let concepts = fit_names(names.concepts.relevant(&haystack, MAX_KNOWN), listing);
        let render = |parts: &PageParts| {
            page_prompt(template, &material.title, parts, &titles, &concepts, room)
        };
        let without_excerpts = render(&bare);
        let used = estimate_tokens(without_excerpts.system.len() + without_excerpts.user.len());
        let left = limits
            .context
            .saturating_sub(used + limits.max_tokens + CONTEXT_MARGIN);
        // Block headers of the excerpts come out of their room too.
        let excerpt_room = chars_for(left).saturating_sub(64 * material.changed().count());
        let full_parts = PageParts::of(material, excerpt_room, listing);
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
        let whole = PageParts::of(material, usize::MAX, listing);
        let text = format!("{}\n\n{}", whole.digests, whole.excerpts);
        // Parts quote the excerpts' own words, never a digest or a wrapper line.
        let shift = whole.digests.len() + 2;
        let spans: Vec<std::ops::Range<usize>> = whole
            .excerpt_spans
            .iter()
            .map(|r| r.start + shift..r.end + shift)
            .collect();
        let part_room = match limits.route(&without_excerpts, extract, &material.title) {
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
            quotable: Some(&spans),
        };
        let reading = read_in_parts(
            self.caller,
            extract,
            &source,
            limits.context,
            part_room,
            self.events,
            self.cancel,
        )
        .await?;
        let mut parts = bare;
        parts.digests = String::new();
        parts.excerpts = "(read in parts: see the notes above)".to_owned();
        let fixed = render(&parts);
        let notes_room = limits.notes_room(fixed.system.len() + fixed.user.len() + 64);
        let (notes, large, note, quotes) = reading_notes(reading, notes_room);
        // The final call quotes what the parts quoted of the excerpts.
        let quotes: Vec<String> = quotes
            .into_iter()
            .filter(|q| spans.iter().any(|r| text[r.clone()].contains(q.as_str())))
            .collect();
        report.usage += large.usage;
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
            grounds: Some(grounds::page_grounds(&quotes, &titles, &concepts)),
        }))
    }

    /// Asks the providers for the page as a compile asks for an article — an answer the
    /// rewrite guard refuses is retried with the reason — and returns the page it reads as,
    /// or why no answer would do.
    async fn ask_page(
        &self,
        material: &PageMaterial,
        texts: &SourceTexts,
        prompt: PagePrompt,
        target: JobTarget,
        report: &mut PageReport,
    ) -> Result<PageCall, CallError> {
        // The contract narrowed to this page's room: what the server constrains to.
        let schema = room_schema(&self.prompts.get(PAGE).schema(), self.room);
        let guard = Guard::of(material, self.room);
        let judge = |raw: &str, cut_off: bool| -> Judgement<Accepted> {
            let judgement = judge_with(raw, cut_off, &|q| texts.grounds(q), &schema);
            guarded(judgement, texts, &guard)
        };
        let asking = Asking {
            target: Some(target),
            events: self.events,
            cancel: self.cancel,
            prompt: &prompt.prompt,
            schema: &schema,
            judge: &judge,
            shows: None,
            grounds: prompt.grounds.as_ref(),
        };
        let mut log = CallLog::default();
        let answer = self
            .caller
            .ask_until_done(&asking, self.limits, &mut log)
            .await;
        let last = &log.last;
        report.usage += log.usage;
        report.attempts.append(&mut log.attempts);
        report.warnings.append(&mut log.warnings);
        Ok(match answer? {
            Answer::Accepted(accepted) => {
                report.warnings.extend(accepted.warnings.iter().cloned());
                let record = last.record(&report.prompt_version, Vec::new(), accepted.truncated);
                let (content, left) = page_content(material, &accepted, texts, &guard, prompt.note);
                if !left.is_empty() {
                    report.warnings.push(left_warning(&left, guard.max_claims));
                }
                report
                    .claims_left
                    .extend(left.into_iter().map(|l| ClaimLeft {
                        claim: l.claim.claim.claim,
                        quote: l.claim.claim.quote,
                        source_ids: l.claim.source_ids,
                        why: l.why,
                    }));
                PageCall::Accepted {
                    content: Box::new(content),
                    provider: record.provider,
                    model: record.model,
                    author: last.provider.clone(),
                }
            }
            Answer::GaveUp { reason, rejection } => PageCall::GaveUp {
                reason,
                lost_content: rejection == Some(Rejection::LostContent),
                author: last.provider.clone(),
            },
        })
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
                author: Default::default(),
            }
        })
        .collect()
}

/// An accepted answer the rewrite guard refuses becomes a rejection with its problems, so
/// the model is asked again with them.
fn guarded(
    judgement: Judgement<Accepted>,
    texts: &SourceTexts,
    guard: &Guard,
) -> Judgement<Accepted> {
    let Judgement::Accept(accepted) = judgement else {
        return judgement;
    };
    let settled = guard.settle(page_claims(&accepted, texts));
    let problems = guard.problems(&settled.claims, &accepted.result.article_body);
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

/// One line saying which claims left a full page and why.
fn left_warning(left: &[LeftClaim], max_claims: usize) -> String {
    let named: Vec<String> = left
        .iter()
        .take(5)
        .map(|l| format!("\"{}\"", crate::text::line::one_line(&l.claim.claim.claim)))
        .collect();
    let more = if left.len() > named.len() {
        format!(" and {} more", left.len() - named.len())
    } else {
        String::new()
    };
    format!(
        "the page is full ({max_claims} claims): {} of its least supported claims left for \
         new sources' claims ({}{more}); each stays in its source's digest",
        left.len(),
        named.join(", ")
    )
}

/// What the page says after an accepted answer: its title stays the topic's name (the
/// answer's title is ignored), with `note` appended when parts of the material are missing;
/// its links are the answer's and those of the digests whose title names the topic; its
/// claims are the answer's settled by `guard` (with the claims that left the full page).
fn page_content(
    material: &PageMaterial,
    accepted: &Accepted,
    texts: &SourceTexts,
    guard: &Guard,
    note: Option<String>,
) -> (PageContent, Vec<LeftClaim>) {
    // A page names only what its sources say (the name rules, as for a digest).
    let mut result = accepted.result.clone();
    crate::tasks::names::apply_page_name_rules(
        &mut result,
        material.digests.iter().flat_map(|d| {
            [d.text.as_str(), d.content.title.as_str()]
                .into_iter()
                .chain(d.content.links.iter().map(|l| l.target.as_str()))
        }),
    );
    let mut body = result.article_body.clone();
    if let Some(note) = note {
        body.push_str(&note);
    }
    // The links the digests named by the topic make are the topic's too: an answer that
    // leaves one out (a model reading notes sees no links) does not lose it.
    let mut links: Vec<NewLink> = links_of(&result);
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
    let settled = guard.settle(page_claims(accepted, texts));
    (
        PageContent {
            title: material.title.clone(),
            summary: result.summary.clone(),
            body,
            claims: settled.claims,
            concepts: result.concepts.clone(),
            open_questions: result.open_questions.clone(),
            links,
        },
        settled.left,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ArticleId, FeedingDigest, PageId, PageKind};

    fn content(body: &str) -> PageContent {
        PageContent {
            title: "Espresso".into(),
            summary: "About espresso.".into(),
            body: body.into(),
            claims: Vec::new(),
            concepts: Vec::new(),
            open_questions: Vec::new(),
            links: Vec::new(),
        }
    }

    /// A page fed by five sources: 1 written before, 2 to 5 new (5's text shrank), one
    /// source lost.
    fn material() -> PageMaterial {
        let digests = (1..=5)
            .map(|i| FeedingDigest {
                source_id: SourceId(i),
                article_id: ArticleId(i),
                by_title: true,
                changed: i > 1,
                shrank: i == 5,
                digest_at: String::new(),
                content: content("Digest."),
                text: "Espresso.".into(),
            })
            .collect();
        PageMaterial {
            page_id: PageId(1),
            kind: PageKind::Topic,
            title: "Espresso".into(),
            aliases: Vec::new(),
            version: 3,
            stale_reason: Some("new sources".into()),
            current: content("Old."),
            last_compiled: Some(content("Old.")),
            sources_lost: 1,
            digests,
        }
    }

    fn ids(m: &PageMaterial, changed: bool) -> Vec<i64> {
        m.digests
            .iter()
            .filter(|d| d.changed == changed)
            .map(|d| d.source_id.0)
            .collect()
    }

    #[test]
    fn each_call_sees_its_batch_as_new_and_what_came_before_as_written() {
        let m = material();
        let room = PageRoom::new(20_000, 3_000);
        // The first call: digests 2 and 3 (indexes 1, 2); 4 and 5 wait for later calls.
        let first = call_view(&m, &room, m.last_compiled.as_ref(), &[1, 2], &[], true);
        assert_eq!(
            (ids(&first, true), ids(&first, false)),
            (vec![2, 3], vec![1])
        );
        assert_eq!(first.sources_lost, 1, "the first call drops what left");
        // The second call starts from the first's page: 2 and 3 are written, 5 is new.
        let page = content("Written by the first call.");
        let second = call_view(&m, &room, Some(&page), &[4], &[1, 2], false);
        assert_eq!(
            (ids(&second, true), ids(&second, false)),
            (vec![5], vec![1, 2, 3])
        );
        assert_eq!(second.last_compiled, Some(page));
        assert_eq!(second.sources_lost, 0);
        assert!(
            !second.may_shrink(),
            "only the first call may shrink the page"
        );
        assert!(first.may_shrink());

        // Saved after the second call was refused: what the first call wrote in (sources
        // 2 and 3) and a listed one (4) are marked as written; 5 waits for the next job.
        let saved = written_view(&m, &[1, 2, 3]);
        let marked: Vec<i64> = saved.digests.iter().map(|d| d.source_id.0).collect();
        assert_eq!(marked, [1, 2, 3, 4]);
    }

    #[test]
    fn known_names_are_cut_to_their_room() {
        let names: Vec<String> = ["Espresso", "Crema", "Tamping"].map(String::from).to_vec();
        assert_eq!(fit_names(names.clone(), 100), names);
        assert_eq!(fit_names(names.clone(), 19), ["Espresso", "Crema"]);
        assert!(fit_names(names, 5).is_empty());
    }
}
