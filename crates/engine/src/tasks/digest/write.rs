//! Writing a source's digest over a [`Caller`]: the whole source in one call when it fits,
//! else the notes of reading it in parts ([`crate::tasks::parts`]); the answer judged and
//! grounded against the source ([`crate::tasks::article`]) and held to the name rules
//! ([`crate::tasks::names`]). What the store gives (the source, the wiki's names) comes in
//! as plain inputs; what it takes (the digest, or the failure, with its compile record)
//! goes out as a [`Digest`] for the app to save.

use crate::call::budget::{Limits, Route};
use crate::call::caller::{Answer, Asking};
use crate::call::log::{CallLog, LastCall};
use crate::call::{CallError, Caller, ProgressFn};
use crate::ground::grounds;
use crate::ground::index::GroundingIndex;
use crate::llm::{AnswerGrounds, CancellationToken};
use crate::prompts::prompt::{build_prompt_with, PromptInput, MAX_KNOWN};
use crate::prompts::templates::{Prompt, PromptSet, COMPILE, COMPILE_NOTES, EXTRACT};
use crate::store::{CompileRecord, JobTarget, NewLink, SaveArticle, Source, SourceId, SourceKind};
use crate::tasks::article::{judge_in, Accepted};
use crate::tasks::digest::report::CompileReport;
use crate::tasks::names::{apply_name_rules, SourceNames};
use crate::tasks::parts::extract::{notes_prompt, Material};
use crate::tasks::parts::read::{read_in_parts, PartSource};
use crate::topic::NameIndex;

/// What a digest is written from: the source and what the wiki knows now.
pub struct DigestInput<'a> {
    /// The source, its text readable ([`crate::ground::readable_source`]): the model reads,
    /// quotes and is grounded against it.
    pub source: &'a Source,
    /// The title the note gives itself ([`note_title`], read from its raw text).
    pub note_title: Option<&'a str>,
    /// The wiki's titles and aliases.
    pub titles: &'a NameIndex,
    /// The wiki's concepts.
    pub concepts: &'a NameIndex,
}

/// How writing a digest ended.
pub enum Digest {
    /// The answer was accepted: the digest to save.
    Written(Box<WrittenDigest>),
    /// No answer would do: the source fails.
    Failed(Box<FailedDigest>),
}

/// A digest ready to save, with its compile record.
pub struct WrittenDigest {
    /// The accepted answer, held to the name rules (with the note on missing parts of a
    /// large source appended to its body).
    pub accepted: Accepted,
    /// The links it makes.
    pub links: Vec<NewLink>,
    /// Whether its title names a page.
    pub title_is_page: bool,
    /// Concepts no source says (chips on the digest, never pages).
    pub unnamed_concepts: Vec<String>,
    /// The compile log's record of the call that answered.
    pub record: CompileRecord,
    /// The warnings stored with it.
    pub warnings: Vec<String>,
    /// The provider and model that answered (`ollama:qwen2.5:3b`).
    pub provider: String,
    /// The attempt that answered, from 1.
    pub attempt: u32,
}

impl WrittenDigest {
    /// What the store saves for `source_id`.
    pub fn save_article(&self, source_id: SourceId) -> SaveArticle<'_> {
        SaveArticle {
            source_id,
            result: &self.accepted.result,
            claims: &self.accepted.claims,
            links: &self.links,
            truncated: self.accepted.truncated,
            title_is_page: self.title_is_page,
            unnamed_concepts: &self.unnamed_concepts,
            record: &self.record,
        }
    }
}

/// A source that failed, with the compile record of the last call that answered.
pub struct FailedDigest {
    /// Why, for a person.
    pub reason: String,
    /// The compile log's record.
    pub record: CompileRecord,
    /// The provider and model asked last (empty when none was).
    pub provider: String,
    /// The attempt asked last.
    pub attempt: u32,
}

/// The title a source gives itself: a note written in the wiki, the title its person gave
/// it; a file, the title read when it was ingested (its front matter `title`, a folder's
/// index named after its folder, its first H1, a text file's standalone first line, else
/// its file name); else the front matter's `title` or the first H1 of its raw text (read
/// before the front matter leaves the text).
pub fn note_title(source: &Source) -> Option<String> {
    match source.kind {
        SourceKind::Note => source.title.clone(),
        SourceKind::File if source.title.is_some() => source.title.clone(),
        _ => wikimind_text::markdown::read_note(&source.text, None).title,
    }
}

/// Writes the digest of `input.source` with `caller` and `prompts`, filling in `report`
/// (prompt version, calls, warnings, the reading of a large source, the names left out).
pub async fn write_digest(
    caller: &Caller,
    prompts: &PromptSet,
    input: &DigestInput<'_>,
    report: &mut CompileReport,
    events: &ProgressFn,
    cancel: &CancellationToken,
) -> Result<Digest, CallError> {
    let limits = caller.limits().await;
    let article = match prepare(caller, prompts, input, limits, report, events, cancel).await? {
        Ok(article) => article,
        Err(reason) => return Ok(failed(report, &LastCall::default(), reason)),
    };
    let compile_t = prompts.get(COMPILE);
    let schema = compile_t
        .schema
        .clone()
        .unwrap_or_else(|| crate::contract::compilation_contract().clone());
    // The source is indexed once for grounding, whatever the number of answers.
    let grounding = GroundingIndex::new(&input.source.text);
    let judge = |text: &str, cut_off: bool| judge_in(text, cut_off, &grounding, &schema);
    let asking = Asking {
        target: Some(JobTarget::Source(input.source.id)),
        events,
        cancel,
        prompt: &article.prompt,
        schema: &schema,
        judge: &judge,
        shows: None,
        grounds: Some(&article.grounds),
    };
    let mut log = CallLog::default();
    let answer = caller.ask_until_done(&asking, limits, &mut log).await;
    report.usage += log.usage;
    report.attempts.append(&mut log.attempts);
    report.warnings.append(&mut log.warnings);
    Ok(match answer? {
        Answer::Accepted(accepted) => Digest::Written(Box::new(written(
            input,
            *accepted,
            article.note,
            &log.last,
            report,
        ))),
        Answer::GaveUp { reason, .. } => failed(report, &log.last, reason),
    })
}

/// The prompt that writes the article, and what to append to the article.
struct ArticlePrompt {
    prompt: Prompt,
    /// Markdown appended to the body when parts of a large source are missing.
    note: Option<String>,
    /// What its answer's quotes and names are drawn from.
    grounds: AnswerGrounds,
}

/// The prompt that writes the article: the whole source when it fits in one call, else the
/// notes of reading it in parts. `Err` with the reason the source fails when the context is
/// too small for either.
async fn prepare(
    caller: &Caller,
    prompts: &PromptSet,
    input: &DigestInput<'_>,
    limits: Limits,
    report: &mut CompileReport,
    events: &ProgressFn,
    cancel: &CancellationToken,
) -> Result<Result<ArticlePrompt, String>, CallError> {
    let source = input.source;
    // The titles and concepts this source names, then the most used: not the first ones
    // alphabetically.
    let titles = input.titles.relevant(&source.text, MAX_KNOWN);
    let concepts = input.concepts.relevant(&source.text, MAX_KNOWN);
    let compile_t = prompts.get(COMPILE);
    let direct = build_prompt_with(
        compile_t,
        &PromptInput {
            source_title: source.title.as_deref(),
            source_text: &source.text,
            known_titles: &titles,
            known_concepts: &concepts,
        },
    );
    let (extract_t, notes_t) = (prompts.get(EXTRACT), prompts.get(COMPILE_NOTES));
    let title = source.title.as_deref().unwrap_or("(untitled)");
    let room = match limits.route(&direct, extract_t, title) {
        Route::Direct => {
            report.prompt_version = compile_t.version.clone();
            return Ok(Ok(ArticlePrompt {
                prompt: direct,
                note: None,
                grounds: grounds::source_grounds(source, &titles, &concepts),
            }));
        }
        Route::InParts { room } => Ok(room),
        Route::TooSmall(reason) => Err(reason),
    };
    report.prompt_version = format!("{}+{}", extract_t.version, notes_t.version);
    let room = match room {
        Ok(room) => room,
        Err(reason) => return Ok(Err(reason)),
    };
    let reading = read_in_parts(
        caller,
        extract_t,
        &PartSource {
            target: JobTarget::Source(source.id),
            title: source.title.as_deref(),
            text: &source.text,
            quotable: None,
        },
        limits.context,
        room,
        events,
        cancel,
    )
    .await?;
    let material = Material {
        title: source.title.as_deref(),
        text: &source.text,
        titles: &titles,
        concepts: &concepts,
    };
    let out = notes_prompt(notes_t, &material, limits, reading);
    report.add_reading(out.large);
    Ok(Ok(ArticlePrompt {
        prompt: out.prompt,
        note: out.note,
        grounds: grounds::notes_grounds(source, &out.quotes, &titles, &concepts),
    }))
}

/// The accepted article as it is saved: held to the name rules, with `note` appended when
/// parts of a large source are missing, and its compile record.
fn written(
    input: &DigestInput<'_>,
    mut accepted: Accepted,
    note: Option<String>,
    last: &LastCall,
    report: &mut CompileReport,
) -> WrittenDigest {
    let source = input.source;
    let file_stem = (source.kind == SourceKind::File)
        .then(|| std::path::Path::new(&source.origin).file_stem())
        .flatten()
        .map(|s| s.to_string_lossy().into_owned());
    let names = apply_name_rules(
        &mut accepted.result,
        &SourceNames {
            text: &source.text,
            own_title: source.title.as_deref(),
            note_title: input.note_title,
            file_stem: file_stem.as_deref(),
        },
    );
    report.title_note = names.title_note;
    report.rejected_names = names.rejected;
    if let Some(note) = &note {
        accepted.result.article_body.push_str(note);
    }
    let warnings = report.warnings_with(&accepted);
    let record = last.record(&report.prompt_version, warnings.clone(), accepted.truncated);
    WrittenDigest {
        links: accepted.links(),
        accepted,
        title_is_page: names.title_is_page,
        unnamed_concepts: names.chips,
        record,
        warnings,
        provider: last.provider.clone(),
        attempt: last.attempt,
    }
}

/// The source fails for `reason`, with `last` call in its compile record.
fn failed(report: &CompileReport, last: &LastCall, reason: String) -> Digest {
    let record = last.record(
        &report.prompt_version,
        report.warnings.clone(),
        last.truncated,
    );
    Digest::Failed(Box::new(FailedDigest {
        reason,
        record,
        provider: last.provider.clone(),
        attempt: last.attempt,
    }))
}
