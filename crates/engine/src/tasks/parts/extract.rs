//! Reading a large source in parts, pure: what one extraction answer yields, when a part
//! is asked again or of the next provider and when it is given up, and how the parts'
//! notes become the final compile prompt and the report of the reading. No IO, no async;
//! [`crate::tasks::parts::read`] makes the calls.

use crate::structured::{self, Mode, Schema};

use crate::call::budget::Limits;
use crate::prompts::prompt::{known_concepts, list_lines};
use crate::prompts::templates::{Prompt, PromptTemplate};
use crate::tasks::parts::chunk::{self, Chunk};
use crate::tasks::parts::notes::{self, Note};
use crate::tasks::parts::report::{FailedChunk, LargeSourceReport};

/// Bytes repeated from the end of one chunk at the start of the next.
pub(crate) const CHUNK_OVERLAP: usize = 200;
/// Attempts per provider for one chunk of a large source.
pub(crate) const CHUNK_ATTEMPTS: u32 = 2;

/// What reading a large source in parts produced.
#[derive(Debug, Clone)]
pub(crate) struct Reading {
    /// The context size the chunks were sized for, in tokens.
    pub context: u64,
    /// The chunks, in order.
    pub chunks: Vec<Chunk>,
    /// One result a chunk, in the chunks' order.
    pub parts: Vec<PartResult>,
}

/// One part's extraction.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PartResult {
    /// Which chunk, from 0.
    pub index: usize,
    /// The notes of the kept answer.
    pub notes: Vec<Note>,
    /// Extraction calls made for it and the tokens reported over them.
    pub usage: crate::call::usage::Usage,
    /// Why it could not be read, when it could not.
    pub failure: Option<String>,
    /// The kept answer reached the output limit (its complete lines are kept).
    pub cut_off: bool,
    /// Lines of the kept answer that were not valid notes.
    pub skipped_lines: usize,
}

/// The notes one extraction answer holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PartNotes {
    /// The valid notes.
    pub notes: Vec<Note>,
    /// The answer stopped at the output limit.
    pub cut_off: bool,
    /// Lines that were not valid notes.
    pub skipped_lines: usize,
}

/// Reads one extraction answer (JSONL, or one JSON array of notes) about `chunk`: its
/// notes, or why it holds none.
pub(crate) fn read_part_answer(
    text: &str,
    cut_off: bool,
    schema: &Schema,
    chunk: &Chunk,
    source_text: &str,
) -> Result<PartNotes, String> {
    let outcome = structured::parse_jsonl(text, schema, Mode::Lenient);
    if outcome.values.is_empty() {
        return Err(match outcome.warnings.first() {
            Some(w) => format!("no line of the answer was a valid note ({w})"),
            None => "the answer held no notes".to_string(),
        });
    }
    Ok(PartNotes {
        notes: outcome
            .values
            .iter()
            .filter_map(|v| Note::from_value(v, chunk, source_text))
            .collect(),
        cut_off,
        skipped_lines: outcome.warnings.len(),
    })
}

/// The extraction prompt of `chunk`, one of `count`, of the source `text` titled `title`.
pub(crate) fn part_prompt(
    template: &PromptTemplate,
    title: Option<&str>,
    text: &str,
    chunk: &Chunk,
    count: usize,
) -> Prompt {
    template.render(&[
        ("chunk", chunk.text(text)),
        ("chunk_number", &(chunk.index + 1).to_string()),
        ("chunk_count", &count.to_string()),
        ("source_title", title.unwrap_or("(untitled)")),
        ("section", chunk.section.as_deref().unwrap_or("(start)")),
    ])
}

/// What to do next for one part.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PartStep {
    /// Ask `provider` (an index into the configured list) to extract the part.
    Call {
        /// Which provider.
        provider: usize,
    },
    /// The part is done: read, or given up (its `failure` says why).
    Done(PartResult),
}

/// The state of one part's extraction across attempts and providers: each provider is
/// asked up to [`CHUNK_ATTEMPTS`] times; a transport failure (which the provider already
/// retried) moves on to the next provider at once; when none is left the part is given
/// up with the last reason.
///
/// It is not the one call loop ([`crate::call::step::CompileState`] under
/// [`crate::call::Caller`]) because a part is asked differently: the same prompt again with
/// no feedback, [`CHUNK_ATTEMPTS`] times whatever the `retries` setting; a refused request
/// (not a transport failure) tried again on the same provider; no call budget (no
/// `num_ctx`, the configured answer budget as it is); a JSONL answer schema and the
/// chunk's own grounds; no call-log record (a part's calls and tokens are summed in its
/// [`PartResult`] and the reading's report); progress as claims so far over every part;
/// and a given-up part keeps the last reason alone, not the list of what was tried.
#[derive(Debug, Clone)]
pub(crate) struct PartReading {
    result: PartResult,
    providers: usize,
    provider: usize,
    tries: u32,
    last_reason: String,
}

impl PartReading {
    /// The reading of part `index` with `providers` providers configured.
    pub fn new(index: usize, providers: usize) -> PartReading {
        PartReading {
            result: PartResult {
                index,
                ..PartResult::default()
            },
            providers,
            provider: 0,
            tries: 0,
            last_reason: "no provider is configured".to_string(),
        }
    }

    /// The first step.
    pub fn start(&mut self) -> PartStep {
        self.ask(0)
    }

    /// The provider answered; `answer` is what [`read_part_answer`] made of it.
    pub fn on_answer(
        &mut self,
        tokens_in: Option<u64>,
        tokens_out: Option<u64>,
        answer: Result<PartNotes, String>,
    ) -> PartStep {
        self.result.usage += crate::call::usage::Usage::tokens(tokens_in, tokens_out);
        match answer {
            Ok(read) => {
                self.result.notes = read.notes;
                self.result.cut_off = read.cut_off;
                self.result.skipped_lines = read.skipped_lines;
                PartStep::Done(std::mem::take(&mut self.result))
            }
            Err(reason) => self.retry(reason, false),
        }
    }

    /// The call failed; `transport` when the provider could not be reached (it has retried
    /// what a retry can fix).
    pub fn on_error(&mut self, reason: String, transport: bool) -> PartStep {
        self.retry(reason, transport)
    }

    fn retry(&mut self, reason: String, transport: bool) -> PartStep {
        self.last_reason = reason;
        if !transport && self.tries < CHUNK_ATTEMPTS {
            return self.ask(self.provider);
        }
        self.ask(self.provider + 1)
    }

    fn ask(&mut self, provider: usize) -> PartStep {
        if provider >= self.providers {
            self.result.failure = Some(std::mem::take(&mut self.last_reason));
            return PartStep::Done(std::mem::take(&mut self.result));
        }
        if provider != self.provider {
            self.provider = provider;
            self.tries = 0;
        }
        self.tries += 1;
        self.result.usage.calls += 1;
        PartStep::Call { provider }
    }
}

/// The final compile prompt over a large source's notes, the report of its reading, and
/// the note appended to the article when parts could not be read or were cut off.
#[derive(Debug, Clone)]
pub(crate) struct NotesPrompt {
    /// The prompt of the call that writes the article.
    pub prompt: Prompt,
    /// How the source was read.
    pub large: LargeSourceReport,
    /// Markdown appended to the article body, when anything is missing.
    pub note: Option<String>,
    /// The quotes the parts extracted that were found in the source, in order: what the
    /// final call's quotes are drawn from.
    pub quotes: Vec<String>,
}

/// What the final call of a large source is about, beside the notes.
pub(crate) struct Material<'a> {
    /// The source's title hint.
    pub title: Option<&'a str>,
    /// The source's text (for its outline).
    pub text: &'a str,
    /// Titles of the articles already in the wiki.
    pub titles: &'a [String],
    /// Concepts already in the wiki.
    pub concepts: &'a [String],
}

/// Builds the final compile prompt from `template` over the merged notes of `reading`,
/// as many as fit within `limits`.
pub(crate) fn notes_prompt(
    template: &PromptTemplate,
    material: &Material<'_>,
    limits: Limits,
    reading: Reading,
) -> NotesPrompt {
    let Reading {
        context,
        chunks,
        parts,
    } = reading;
    let count = chunks.len();
    let (mut large, per_chunk) = tally(context, &chunks, parts);
    let merged = notes::merge(per_chunk);
    large.notes = merged.len();
    large.claims = merged.iter().filter(|n| n.is_claim()).count();
    let outline = chunk::outline(material.text);
    let outline = if outline.is_empty() {
        "(no headings)".to_string()
    } else {
        outline.into_iter().take(200).collect::<Vec<_>>().join("\n")
    };
    let coverage = if large.failed_chunks.is_empty() {
        format!("All {count} parts of the document were read.")
    } else {
        format!(
            "Parts {} of {count} could not be read; do not invent their content.",
            join(large.failed_chunks.iter().map(|f| f.part.to_string()))
        )
    };
    let titles = list_lines(material.titles);
    let concepts = known_concepts(material.concepts);
    let fixed = template.system.len()
        + template.user.len()
        + outline.len()
        + titles.len()
        + concepts.len()
        + coverage.len();
    let (notes_text, left_out) = notes::render(&merged, limits.notes_room(fixed));
    large.notes_left_out = left_out;
    let prompt = template.render(&[
        ("notes", &notes_text),
        ("outline", &outline),
        ("source_title", material.title.unwrap_or("(untitled)")),
        ("known_titles", &titles),
        ("known_concepts", &concepts),
        ("coverage", &coverage),
    ]);
    let note = missing_note(&large, &chunks);
    let quotes = found_quotes(&merged);
    NotesPrompt {
        prompt,
        large,
        note,
        quotes,
    }
}

/// The quotes of `notes` that were found in the text read, in order: what the final
/// call's quotes are drawn from.
fn found_quotes(notes: &[Note]) -> Vec<String> {
    notes
        .iter()
        .filter_map(|n| match n {
            Note::Claim {
                quote: Some(q),
                offset: Some(_),
                ..
            } => Some(q.trim().to_owned()),
            _ => None,
        })
        .collect()
}

/// The notes of a reading merged and rendered within `room` characters (for a page whose
/// material was read in parts), with the report of the reading, the note for the reader
/// when parts are missing, and the quotes found in the text read.
pub(crate) fn reading_notes(
    reading: Reading,
    room: usize,
) -> (String, LargeSourceReport, Option<String>, Vec<String>) {
    let Reading {
        context,
        chunks,
        parts,
    } = reading;
    let (mut large, per_chunk) = tally(context, &chunks, parts);
    let merged = notes::merge(per_chunk);
    large.notes = merged.len();
    large.claims = merged.iter().filter(|n| n.is_claim()).count();
    let (text, left_out) = notes::render(&merged, room);
    large.notes_left_out = left_out;
    let note = missing_note(&large, &chunks);
    (text, large, note, found_quotes(&merged))
}

/// The report of a reading (without the merged-notes counts) and each part's notes.
fn tally(
    context: u64,
    chunks: &[Chunk],
    parts: Vec<PartResult>,
) -> (LargeSourceReport, Vec<Vec<Note>>) {
    let mut large = LargeSourceReport {
        context_tokens: context,
        chunks: chunks.len(),
        ..LargeSourceReport::default()
    };
    let mut per_chunk = Vec::with_capacity(parts.len());
    for part in parts {
        large.usage += part.usage;
        if part.cut_off {
            large.cut_off_chunks.push(part.index + 1);
        }
        large.skipped_lines += part.skipped_lines;
        if let Some(reason) = part.failure {
            let c = &chunks[part.index];
            large.failed_chunks.push(FailedChunk {
                part: part.index + 1,
                start: c.start,
                end: c.end,
                reason,
            });
        }
        per_chunk.push(part.notes);
    }
    (large, per_chunk)
}

/// The note for the article's reader: which parts could not be read, and which were read
/// only up to the model's output limit.
fn missing_note(large: &LargeSourceReport, chunks: &[Chunk]) -> Option<String> {
    let count = large.chunks;
    let failed = (!large.failed_chunks.is_empty()).then(|| {
        format!(
            "\n\n> **Incomplete:** WikiMind could not read {}; what it says is missing from this article.",
            join(large.failed_chunks.iter().map(|f| format!(
                "part {} of {count} (bytes {}–{} of the source)",
                f.part, f.start, f.end
            )))
        )
    });
    let cut = (!large.cut_off_chunks.is_empty()).then(|| {
        format!(
            "\n\n> **Partly read:** the model's notes on {} stopped at its output limit; the end of those parts may be missing from this article.",
            join(large.cut_off_chunks.iter().map(|&p| {
                let c = &chunks[p - 1];
                format!("part {p} of {count} (bytes {}–{})", c.start, c.end)
            }))
        )
    });
    match (failed, cut) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or_default() + &b.unwrap_or_default()),
    }
}

fn join(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::usage::Usage;
    use crate::prompts::templates::{PromptSet, COMPILE_NOTES, EXTRACT};

    const TEXT: &str =
        "# Intro\nOwnership is Rust's most unique feature.\n# Rules\nEach value has an owner.\n";

    fn chunks() -> Vec<Chunk> {
        chunk::split(TEXT, 40, 0)
    }

    fn note_line(claim: &str, quote: &str) -> String {
        serde_json::json!({"type": "claim", "text": claim, "quote": quote}).to_string()
    }

    fn notes_of(chunk: &Chunk, answer: &str, cut_off: bool) -> Result<PartNotes, String> {
        let prompts = PromptSet::builtin();
        read_part_answer(answer, cut_off, &prompts.get(EXTRACT).schema(), chunk, TEXT)
    }

    /// A scripted call: `Ok(answer)`, or `Err((reason, transport))` for a failed call.
    type Outcome<'a> = Result<&'a str, (&'a str, bool)>;

    /// Runs a part's reading against scripted outcomes, one per call; returns the
    /// providers asked and the result.
    fn read(providers: usize, outcomes: &[Outcome<'_>]) -> (Vec<usize>, PartResult) {
        let chunks = chunks();
        let mut reading = PartReading::new(0, providers);
        let mut step = reading.start();
        let mut asked = Vec::new();
        let mut outcomes = outcomes.iter();
        loop {
            match step {
                PartStep::Call { provider } => {
                    asked.push(provider);
                    step = match outcomes.next().expect("a call no outcome was scripted for") {
                        Ok(answer) => reading.on_answer(
                            Some(10),
                            Some(5),
                            notes_of(&chunks[0], answer, false),
                        ),
                        Err((reason, transport)) => {
                            reading.on_error(reason.to_string(), *transport)
                        }
                    };
                }
                PartStep::Done(result) => return (asked, result),
            }
        }
    }

    #[test]
    fn an_answer_with_notes_is_kept_and_one_without_is_explained() {
        let chunks = chunks();
        let good = note_line(
            "Ownership is unique",
            "Ownership is Rust's most unique feature.",
        );
        let table = [
            (good.clone(), Ok(1)),
            (format!("{good}\nnot a note\n"), Ok(1)),
            (String::new(), Err("the answer held no notes")),
            (
                "not a note".to_string(),
                Err("no line of the answer was a valid note"),
            ),
        ];
        for (answer, want) in table {
            match (notes_of(&chunks[0], &answer, false), want) {
                (Ok(n), Ok(count)) => assert_eq!(n.notes.len(), count, "{answer}"),
                (Err(reason), Err(want)) => assert!(reason.starts_with(want), "{reason}"),
                (got, _) => panic!("{answer}: {got:?}"),
            }
        }
        let skipped = notes_of(&chunks[0], &format!("{good}\nnot a note\n"), true).unwrap();
        assert_eq!(skipped.skipped_lines, 1);
        assert!(skipped.cut_off);
    }

    #[test]
    fn a_part_is_asked_twice_per_provider_then_of_the_next_provider() {
        let good = note_line(
            "Ownership is unique",
            "Ownership is Rust's most unique feature.",
        );
        // (providers, outcomes) → (providers asked, read?)
        let table: Vec<(usize, Vec<Outcome<'_>>, Vec<usize>, bool)> = vec![
            (1, vec![Ok(&good)], vec![0], true),
            (1, vec![Ok(""), Ok(&good)], vec![0, 0], true),
            (
                2,
                vec![Ok(""), Err(("bad request", false)), Ok(&good)],
                vec![0, 0, 1],
                true,
            ),
            // A transport failure moves on at once: the provider already retried.
            (2, vec![Err(("down", true)), Ok(&good)], vec![0, 1], true),
            (
                2,
                vec![Ok(""), Ok(""), Ok(""), Ok("")],
                vec![0, 0, 1, 1],
                false,
            ),
            (1, vec![Err(("down", true))], vec![0], false),
        ];
        for (providers, outcomes, want_asked, want_read) in table {
            let (asked, result) = read(providers, &outcomes);
            assert_eq!(asked, want_asked, "{outcomes:?}");
            assert_eq!(result.usage.calls as usize, asked.len());
            assert_eq!(result.failure.is_none(), want_read, "{outcomes:?}");
            // Tokens are counted for every answer, kept or not.
            let answers = outcomes
                .iter()
                .take(asked.len())
                .filter(|o| o.is_ok())
                .count();
            assert_eq!(result.usage.tokens_in, 10 * answers as u64);
        }
    }

    #[test]
    fn a_part_given_up_says_the_last_reason() {
        let (_, result) = read(2, &[Ok(""), Ok(""), Err(("down", true))]);
        assert_eq!(result.failure.as_deref(), Some("down"));
        assert!(result.notes.is_empty());
        let (asked, result) = read(0, &[]);
        assert!(asked.is_empty());
        assert_eq!(result.usage.calls, 0);
        assert_eq!(result.failure.as_deref(), Some("no provider is configured"));
    }

    fn reading(parts: Vec<PartResult>) -> Reading {
        Reading {
            context: 4_096,
            chunks: chunks(),
            parts,
        }
    }

    fn compose(parts: Vec<PartResult>) -> NotesPrompt {
        let prompts = PromptSet::builtin();
        let titles = vec!["Borrowing".to_string()];
        notes_prompt(
            prompts.get(COMPILE_NOTES),
            &Material {
                title: Some("Ownership"),
                text: TEXT,
                titles: &titles,
                concepts: &[],
            },
            Limits {
                context: 4_096,
                max_tokens: 1_024,
            },
            reading(parts),
        )
    }

    fn part(index: usize, failure: Option<&str>, cut_off: bool) -> PartResult {
        let chunks = chunks();
        let notes = match failure {
            Some(_) => Vec::new(),
            None => {
                notes_of(
                    &chunks[index],
                    &note_line("Values have owners", "Each value has an owner."),
                    false,
                )
                .unwrap()
                .notes
            }
        };
        PartResult {
            index,
            notes,
            usage: Usage {
                calls: 2,
                tokens_in: 7,
                tokens_out: 3,
            },
            failure: failure.map(str::to_string),
            cut_off,
            skipped_lines: 1,
        }
    }

    #[test]
    fn an_unread_part_is_named_in_the_prompt_the_report_and_the_article() {
        let n = chunks().len();
        assert!(n >= 2, "{n}");
        let mut parts: Vec<PartResult> = (0..n).map(|i| part(i, None, false)).collect();
        parts[1] = part(1, Some("down"), false);
        let out = compose(parts);
        assert_eq!(out.large.chunks, n);
        assert_eq!(out.large.usage.calls, 2 * n as u32);
        assert_eq!(out.large.usage.tokens_in, 7 * n as u64);
        assert_eq!(out.large.skipped_lines, n);
        assert_eq!(out.large.failed_chunks.len(), 1);
        assert_eq!(out.large.failed_chunks[0].part, 2);
        assert_eq!(out.large.failed_chunks[0].reason, "down");
        assert!(out
            .prompt
            .user
            .contains(&format!("Parts 2 of {n} could not be read")));
        let note = out.note.expect("the article says a part is missing");
        assert!(note.contains("**Incomplete:**"), "{note}");
        assert!(note.contains(&format!("part 2 of {n} (bytes")), "{note}");
        assert!(!note.contains("Partly read"), "{note}");
    }

    #[test]
    fn a_fully_read_source_adds_no_note_and_a_cut_off_part_is_flagged() {
        let n = chunks().len();
        let all = compose((0..n).map(|i| part(i, None, false)).collect());
        assert!(all.note.is_none());
        assert!(all
            .prompt
            .user
            .contains(&format!("All {n} parts of the document were read.")));
        assert!(all.large.notes >= 1);
        assert_eq!(all.large.notes_left_out, 0);
        let cut = compose((0..n).map(|i| part(i, None, i == 0)).collect());
        assert_eq!(cut.large.cut_off_chunks, vec![1]);
        let note = cut.note.expect("a cut-off part is flagged");
        assert!(note.contains("**Partly read:**"), "{note}");
        assert!(note.contains(&format!("part 1 of {n} (bytes 0–")), "{note}");
    }
}
