//! One request on a loaded model: the constraint built for its schema (grounded llguidance,
//! llguidance, else GBNF) and the decode loop that evaluates the prompt and samples the
//! answer token by token, sample-then-check, streaming whole characters as they come.
//! When the grammar engine fails mid-answer (llguidance out of lexer fuel, say), the
//! request ends with an error that says so, after how many tokens and in the engine's own
//! words: a failed grammar neither allows nothing (a "dead end") nor counts as finished.

use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llguidance::api::TopLevelGrammar;
use serde_json::Value;

use super::decode::{
    jsonl_gbnf, jsonl_lark, next_token, take_utf8, Constraint, Sampler, LINE_BUDGET,
};
use super::loops::AnswerLoops;
use super::repeat::{LineRepeats, RepeatScope, Repetition};
use super::{backend, grounded, ConstraintEngine, Engine, BATCH};
use crate::schema_bounds::bound_schema;
use crate::{CancellationToken, FinishReason, Result, StreamEvent};

/// One request, owned, for the decoding thread.
pub(super) struct Job {
    pub(super) messages: Vec<(String, String)>,
    pub(super) schema: Option<Value>,
    /// `schema` holds for each line of a JSONL answer, not for the whole answer.
    pub(super) lines: bool,
    /// What the answer's quotes and names are drawn from.
    pub(super) grounds: Option<crate::AnswerGrounds>,
    /// The answer is taken back where it starts saying again what it said, and closed
    /// there ([`AnswerLoops`]).
    pub(super) distinct_items: bool,
    /// A claim is a sentence and its quote a passage ([`grounded::Shape::Sentences`]).
    pub(super) sentence_claims: bool,
    pub(super) repeat_penalty: f32,
    pub(super) repeat_scope: RepeatScope,
    pub(super) temperature: f32,
    pub(super) max_tokens: u32,
    pub(super) seed: u64,
    pub(super) threads: i32,
    pub(super) constraint: ConstraintEngine,
}

/// What one decode produced.
pub(super) struct Outcome {
    pub(super) text: String,
    pub(super) finish: FinishReason,
    pub(super) prompt_tokens: u64,
    pub(super) prompt_time: Duration,
    pub(super) answer_tokens: u64,
    pub(super) answer_time: Duration,
    pub(super) resampled: u64,
    pub(super) constraint: Option<ConstraintEngine>,
    pub(super) grounded: bool,
    pub(super) grammar_time: Duration,
    /// The JSONL answer ended at a line that repeated an earlier one.
    pub(super) repeated_line: bool,
    /// Arrays and strings closed where the answer started saying again what it said
    /// (see [`AnswerLoops`]).
    pub(super) closed_repeats: u64,
}

impl Engine {
    /// The constraint for `schema`: over the whole answer, or (`lines`) over each line of a
    /// JSONL answer, any number of lines each holding one compact object and ending in `\n`.
    fn constraint_for(
        &self,
        schema: &Value,
        budget: u32,
        wanted: ConstraintEngine,
        lines: bool,
        grounds: Option<&crate::AnswerGrounds>,
        shape: grounded::Shape,
    ) -> Result<Option<(Constraint, ConstraintEngine, bool)>> {
        // A line is one object: its strings are bounded for a line's share of the budget,
        // so one runaway string cannot eat the whole answer.
        let bounded = if lines {
            bound_schema(schema, budget.min(LINE_BUDGET))
        } else {
            bound_schema(schema, budget)
        };
        if wanted == ConstraintEngine::Llguidance {
            // Quotes and names held to the call's texts, when the schema is one the
            // grounded writer knows and llguidance takes its grammar.
            if let Some(lark) =
                grounds.and_then(|g| grounded::grounded_lark(&bounded, g, lines, shape))
            {
                let built = self.matcher(TopLevelGrammar::from_lark(lark));
                // When llguidance refuses it (a lexer too large, say), the schema alone
                // holds the answer, grounding checks its quotes after, and the stats say the
                // answer was not grounded by construction.
                if let Ok(matcher) = built {
                    return Ok(Some((
                        Constraint::Llg(Box::new(matcher)),
                        ConstraintEngine::Llguidance,
                        true,
                    )));
                }
            }
            let built = self.matcher(if lines {
                TopLevelGrammar::from_lark(jsonl_lark(&bounded))
            } else {
                TopLevelGrammar::from_json_schema(bounded.clone())
            });
            if let Ok(matcher) = built {
                return Ok(Some((
                    Constraint::Llg(Box::new(matcher)),
                    ConstraintEngine::Llguidance,
                    false,
                )));
            }
            // Fall through to GBNF: llguidance does not take every schema.
        }
        let mut gbnf_schema = bounded;
        if let Value::Object(o) = &mut gbnf_schema {
            o.remove("x-guidance");
        }
        let grammar = llama_cpp_2::json_schema_to_grammar(&gbnf_schema.to_string())
            .map_err(|e| self.error(format!("the schema cannot be turned into a grammar: {e}")))?;
        let (grammar, root) = if lines {
            (jsonl_gbnf(&grammar), "jsonl")
        } else {
            (grammar, "root")
        };
        let sampler = LlamaSampler::grammar(&self.model, &grammar, root)
            .map_err(|e| self.error(format!("llama.cpp rejected the schema's grammar: {e}")))?;
        Ok(Some((
            Constraint::Gbnf(sampler),
            ConstraintEngine::Gbnf,
            false,
        )))
    }

    /// Decodes one request's answer on this thread, sending its text to `tx` as it comes;
    /// stops early when `stop` is cancelled.
    pub(super) fn generate(
        &self,
        job: &Job,
        stop: &CancellationToken,
        tx: &tokio::sync::mpsc::UnboundedSender<StreamEvent>,
    ) -> Result<Outcome> {
        // One decode at a time; waiting stays cancellable.
        let _busy = loop {
            if stop.is_cancelled() {
                return Err(self.cancelled());
            }
            match self.busy.try_lock() {
                Ok(guard) => break guard,
                Err(std::sync::TryLockError::Poisoned(p)) => break p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {
                    std::thread::sleep(Duration::from_millis(20))
                }
            }
        };
        let backend = backend().map_err(|e| self.error(e))?;
        let tokens = self.prompt_tokens(&job.messages)?;
        let vocab = self.model.vocab();
        let n_train = self.model.n_ctx_train().max(64) as usize;
        if tokens.is_empty() {
            return Err(self.error("the prompt is empty"));
        }
        if tokens.len() + 16 > n_train {
            return Err(self.error(format!(
                "the prompt is {} tokens but the model reads at most {n_train}; use a model with a larger context",
                tokens.len()
            )));
        }
        let budget = (job.max_tokens as usize).min(n_train - tokens.len()).max(1);
        let n_ctx = (tokens.len() + budget + 1).min(n_train) as u32;
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx))
            .with_n_batch(BATCH as u32)
            .with_n_threads(job.threads)
            .with_n_threads_batch(job.threads);
        let mut ctx = self
            .model
            .new_context(backend, params)
            .map_err(|e| self.error(format!("no context of {n_ctx} tokens: {e}")))?;

        let grammar_started = Instant::now();
        let built = match &job.schema {
            Some(schema) if job.constraint != ConstraintEngine::Off => self.constraint_for(
                schema,
                budget as u32,
                job.constraint,
                job.lines,
                job.grounds.as_ref(),
                if job.sentence_claims {
                    grounded::Shape::Sentences
                } else {
                    grounded::Shape::Free
                },
            )?,
            _ => None,
        };
        let grammar_time = grammar_started.elapsed();
        let grounded = built.as_ref().is_some_and(|(_, _, g)| *g);
        let mut constraint = built.map(|(c, e, _)| (c, e));
        let used = constraint.as_ref().map(|(_, e)| *e);

        // The prompt, in batches; logits for the last token only.
        let prompt_started = Instant::now();
        let mut batch = LlamaBatch::new(BATCH, 1);
        for (chunk_index, chunk) in tokens.chunks(BATCH).enumerate() {
            if stop.is_cancelled() {
                return Err(self.cancelled());
            }
            batch.clear();
            let base = chunk_index * BATCH;
            for (i, token) in chunk.iter().enumerate() {
                let pos = base + i;
                batch
                    .add(*token, pos as i32, &[0], pos + 1 == tokens.len())
                    .map_err(|e| self.error(format!("batch: {e}")))?;
            }
            ctx.decode(&mut batch)
                .map_err(|e| self.error(format!("evaluating the prompt failed: {e}")))?;
        }
        let prompt_time = prompt_started.elapsed();

        let mut repetition =
            Repetition::new(job.repeat_penalty, job.repeat_scope, job.schema.as_ref());
        let mut sampler = Sampler::new(job.seed, job.temperature);
        let mut text = String::new();
        let mut pending: Vec<u8> = Vec::new();
        let mut logits_index = batch.n_tokens() - 1;
        let prompt_len = tokens.len();
        let mut pos = prompt_len;
        let mut produced = 0usize;
        let mut resampled = 0u64;
        let mut finish = FinishReason::Length;
        let mut line_repeats = job.lines.then(LineRepeats::default);
        let mut repeated_line = false;
        // Loops are taken back and closed; needs a grammar that can take tokens back.
        let mut loops = (job.distinct_items && matches!(constraint, Some((Constraint::Llg(_), _))))
            .then(AnswerLoops::default);
        let mut closed_repeats = 0u64;
        // The answer's tokens as kept, and where each ends in its bytes.
        let mut kept: Vec<LlamaToken> = Vec::new();
        let mut ends: Vec<usize> = Vec::new();
        // The tokens the model reads next: the one sampled, or those a take-back wrote.
        let mut next: Vec<LlamaToken> = Vec::with_capacity(8);
        let is_eog = |t: i32| vocab.is_eog(LlamaToken(t));
        let answer_started = Instant::now();
        while produced < budget {
            if stop.is_cancelled() {
                return Err(self.cancelled());
            }
            let logits = repetition.scores(ctx.get_logits_ith(logits_index));
            let (token, again) = next_token(
                &mut sampler,
                logits,
                constraint.as_mut().map(|(c, _)| c),
                &is_eog,
                produced,
            )
            .map_err(|e| self.error(e))?;
            resampled += u64::from(again);
            let token = LlamaToken(token);
            if vocab.is_eog(token) {
                finish = FinishReason::Stop;
                break;
            }
            if let Some((c, _)) = constraint.as_mut() {
                c.accept(token).map_err(|e| self.error(e.after(produced)))?;
            }
            produced += 1;
            let bytes = vocab.token_to_piece(token, false, None);
            repetition.remember(token.0, &bytes);
            kept.push(token);
            ends.push(ends.last().copied().unwrap_or(0) + bytes.len());
            pending.extend(bytes);
            let mut piece = take_utf8(&mut pending);
            // A JSONL line said again: the answer ends after it (see `LineRepeats`).
            if let Some(end) = line_repeats.as_mut().and_then(|r| r.push(&piece)) {
                piece.truncate(end);
                pending.clear();
                repeated_line = true;
            }
            text.push_str(&piece);
            next.clear();
            next.push(token);
            // The answer says again what it said: back to where it should have closed.
            let found = loops.as_mut().and_then(|l| l.push(&piece));
            let rewritten = match (found, constraint.as_mut()) {
                (Some(found), Some((c, _))) => {
                    let whole = text.len() + pending.len() == ends.last().copied().unwrap_or(0);
                    let back_to = ends.partition_point(|&e| e <= found.back_to);
                    let from = back_to.checked_sub(1).map_or(0, |i| ends[i]);
                    let fits = whole
                        && text.is_char_boundary(found.back_to)
                        && text.is_char_boundary(from);
                    let instead =
                        fits.then(|| format!("{}{}", &text[from..found.back_to], found.close));
                    // Within the budget: a token writes at least one byte.
                    let room = budget.saturating_sub(produced);
                    instead.filter(|i| i.len() <= room).and_then(|instead| {
                        c.rewrite(kept.len() - back_to, instead.as_bytes())
                            .map(|tokens| (back_to, from, instead, tokens))
                    })
                }
                _ => None,
            };
            if found.is_some() && rewritten.is_none() {
                // The grammar does not close it there: the answer goes on as written.
                if let Some(l) = loops.as_mut() {
                    l.let_string_be();
                }
            }
            if let Some((back_to, from, instead, tokens)) = rewritten {
                // The model forgets the answer from the first token taken back.
                let first = (prompt_len + back_to) as u32;
                ctx.clear_kv_cache_seq(Some(0), Some(first), None)
                    .map_err(|e| self.error(format!("taking back a loop: {e}")))?;
                pos = prompt_len + back_to;
                kept.truncate(back_to);
                ends.truncate(back_to);
                text.truncate(from);
                pending.clear();
                let mut written = from;
                next.clear();
                for &t in &tokens {
                    let t = LlamaToken(t);
                    written += vocab.token_to_piece(t, false, None).len();
                    kept.push(t);
                    ends.push(written);
                    next.push(t);
                }
                text.push_str(&instead);
                produced += tokens.len();
                closed_repeats += 1;
                // Read again from the start: what was taken back is forgotten.
                let mut fresh = AnswerLoops::default();
                fresh.push(&text);
                loops = Some(fresh);
                if let Some(r) = line_repeats.as_mut() {
                    *r = LineRepeats::default();
                    r.push(&text);
                }
                let _ = tx.send(StreamEvent::Restart);
                let _ = tx.send(StreamEvent::Delta(text.clone()));
            } else if !piece.is_empty() {
                let _ = tx.send(StreamEvent::Delta(piece));
            }
            if repeated_line {
                finish = FinishReason::Stop;
                break;
            }
            let finished = match constraint.as_ref() {
                Some((c, _)) => c.finished().map_err(|e| self.error(e.after(produced)))?,
                None => false,
            };
            if finished {
                finish = FinishReason::Stop;
                break;
            }
            if produced >= budget {
                break;
            }
            batch.clear();
            for (i, t) in next.iter().enumerate() {
                batch
                    .add(*t, (pos + i) as i32, &[0], i + 1 == next.len())
                    .map_err(|e| self.error(format!("batch: {e}")))?;
            }
            pos += next.len();
            ctx.decode(&mut batch)
                .map_err(|e| self.error(format!("decoding failed: {e}")))?;
            logits_index = batch.n_tokens() - 1;
        }
        if !pending.is_empty() {
            let rest = String::from_utf8_lossy(&pending).into_owned();
            text.push_str(&rest);
            let _ = tx.send(StreamEvent::Delta(rest));
        }
        Ok(Outcome {
            text,
            finish,
            prompt_tokens: tokens.len() as u64,
            prompt_time,
            answer_tokens: produced as u64,
            answer_time: answer_started.elapsed(),
            resampled,
            constraint: used,
            grounded,
            grammar_time,
            repeated_line,
            closed_repeats,
        })
    }
}
